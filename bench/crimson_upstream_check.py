"""Check the CRIMSON reimplementation against upstream's own code, which you download yourself.

    .venv/bin/python bench/crimson_upstream_check.py --generate-score PATH [--prompt-parts PATH] [--n 20000]

``PATH`` is a copy of rajpurkarlab/CRIMSON's ``CRIMSON/generate_score.py`` (docs/crimson-radeval.md names commit
cb1f1261d2d2b934de64e29a9b4bad666bc39f82) and of its ``CRIMSON/prompt_parts.py``; neither is part of this
repository. The script takes ``_calculate_crimson`` out of the first (with ``ast``, nothing else of the
file runs) and compares it with :func:`core.parse.crimson.score_evaluation` on ``--n`` random evaluations
(seed 20260401; one in ten made malformed): every number of upstream's result must be equal (``==``, not
close), and an evaluation upstream stops on must be refused here too. With ``--prompt-parts`` it also
renders every CRIMSON prompt id with and without context and compares the text with ``build_prompt``'s.
Exit status 0 when everything agrees.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LEVELS = ["urgent", "actionable_not_urgent", "not_actionable_not_urgent", "benign_expected", "Urgent", None, "", 3]
SEVERITIES = ["significant", "negligible", "major", None]
TYPES = ["location", "severity", "descriptor", "measurement", "certainty", "unspecific", "overinterpretation",
         "temporal", "other", "location|severity"]


def upstream_calculator(path: Path):
    """Upstream's ``_calculate_crimson`` as a plain function of one evaluation."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "_calculate_crimson":
            namespace: dict = {}
            exec(compile(ast.Module(body=[node], type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102
            return lambda evaluation: namespace["_calculate_crimson"](None, evaluation)
    raise SystemExit(f"{path}: no _calculate_crimson in it")


def _finding(prefix: str, i: int, rng: random.Random) -> dict:
    f = {"id": f"{prefix}{i}", "finding": f"finding {i}"}
    if rng.random() < 0.9:
        f["clinical_significance"] = rng.choice(LEVELS)
    return f


def random_evaluation(rng: random.Random, malformed: bool) -> dict:
    refs = [_finding("R", i, rng) for i in range(1, rng.choice([0, 0, 1, 2, 3, 5]) + 1)]
    preds = [_finding("P", i, rng) for i in range(1, rng.choice([0, 1, 2, 4]) + 1)]
    rids, pids = [r["id"] for r in refs] + ["R9"], [p["id"] for p in preds] + ["P9"]
    matched = [{"ref_id": rng.choice(rids), "pred_id": rng.choice(pids)} for _ in range(rng.choice([0, 1, 2, 3]))]
    attrs = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        e = {"ref_id": rng.choice(rids), "pred_id": rng.choice(pids)}
        if rng.random() < 0.9:
            e["severity"] = rng.choice(SEVERITIES)
        if rng.random() < 0.9:
            e["error_types"] = rng.sample(TYPES, rng.choice([0, 1, 2])) if rng.random() < 0.85 else rng.choice(TYPES)
        attrs.append(e)
    errors = {"false_findings": rng.sample(pids, rng.randint(0, len(pids))),
              "missing_findings": rng.sample(rids, rng.randint(0, len(rids))), "attribute_errors": attrs}
    ev = {"reference_findings": refs, "predicted_findings": preds, "matched_findings": matched, "errors": errors}
    for key in list(ev):
        if rng.random() < 0.05:
            del ev[key]
    if malformed:
        what = rng.randrange(4)
        if what == 0 and refs:
            del refs[0]["id"]
        elif what == 1 and matched:
            matched[0] = "R1"
        elif what == 2:
            errors["false_findings"] = [{"id": "P1"}]
        elif what == 3 and attrs:
            del attrs[0]["ref_id"]
    return ev


def check_scores(path: Path, n: int) -> int:
    from core.parse.crimson import CrimsonAnswerError, score_evaluation

    upstream = upstream_calculator(path)
    rng = random.Random(20260401)
    same = refused = differ = 0
    for _ in range(n):
        ev = random_evaluation(rng, malformed=rng.random() < 0.1)
        try:
            theirs = upstream(ev)
        except Exception as exc:  # upstream stops on a malformed evaluation in many ways
            theirs = exc
        try:
            ours = score_evaluation(ev)
        except CrimsonAnswerError as exc:
            ours = exc
        if isinstance(theirs, Exception) or isinstance(ours, Exception):
            if isinstance(theirs, Exception) and isinstance(ours, Exception):
                refused += 1
            else:
                differ += 1
                print(f"differs: upstream {theirs!r:.120} here {ours!r:.120}")
            continue
        mine = {"crimson_score": ours.crimson, "error_counts": ours.counts, "weighted_error_counts": ours.weighted,
                "metrics": {"N_G": ours.n_g, "E_penalty": ours.e_penalty, "correct": ours.correct,
                            "errors_more_than_correct": ours.errors_more_than_correct, "S": ours.s}}
        if all(theirs[k] == mine[k] for k in mine):
            same += 1
        else:
            differ += 1
            print(f"differs: upstream {theirs} here {mine}")
    print(f"scores: {n:,} random evaluations: {same:,} identical, {refused:,} refused by both, {differ:,} differ")
    return differ


def check_prompts(path: Path) -> int:
    import core.prompts as P

    spec = importlib.util.spec_from_file_location("crimson_prompt_parts", path)
    parts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parts)
    reference, candidate = "Cardiomegaly. Small bilateral pleural effusions. {x}", "Normal heart size.\nLeft effusion."
    contexts = [None, {"age": "82", "indication": "Routine preoperative evaluation"},
                {"age": "25", "sex": "F", "indication": "Chest pain", "history": "CXR 2020: clear."}]
    bad = total = 0
    for pid, (guidelines, reads_context) in P.CRIMSON_PROMPTS.items():
        for context in contexts:
            messages = P.render_messages(pid, reference, candidate, context=context)
            given = {P.CRIMSON_CONTEXT_LABELS[k]: v for k, v in context.items()} if context and reads_context else None
            expected = parts.build_prompt(reference, candidate, patient_context=given,
                                          include_significance_examples=guidelines,
                                          include_attribute_guidelines=guidelines,
                                          include_context_guidelines=guidelines)
            total += 1
            if messages[1]["content"] != expected:
                bad += 1
                print(f"prompt differs: {pid} with context {context}")
    print(f"prompts: {total} renderings, {total - bad} identical to build_prompt's")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generate-score", type=Path, required=True, help="upstream CRIMSON/generate_score.py")
    ap.add_argument("--prompt-parts", type=Path, help="upstream CRIMSON/prompt_parts.py")
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()
    failures = check_scores(args.generate_score, args.n)
    if args.prompt_parts:
        failures += check_prompts(args.prompt_parts)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
