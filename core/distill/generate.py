"""Generated training pairs labelled by the teacher itself (CREPE trained on injected errors, Sec. 3.1).

``--generated N`` adds N pairs from the demo generator (core.ingest.synth: seeded
references, candidates with injected errors) to the **training** split only,
each labelled by actually running the teacher on it. The held-out test pairs
and the validation pairs stay the user's own; a generated pair whose texts
equal any pair of the dataset, or whose reference is a validation or test
reference, is dropped (a study never straddles splits, even by copy).

Only a teacher that runs offline can label them here: the rules judge
(milliseconds a pair). An LLM teacher would have to be run on every generated
pair (a paid, slow judge run); that is refused with a clear message. So are
the experts (nobody annotated the generated pairs). For an LLM teacher, make
the pairs a dataset first (``python -m core demo``, or ``inject`` on your own
references, which needs a model too), run the LLM judge on it, and distil from
that run.

Without ``--generated``, distill adds :data:`AUTO_GENERATED` pairs when the
teacher labels offline and none otherwise (:func:`resolve_generated`).

No torch here.
"""

from __future__ import annotations

import pandas as pd

from core.distill.data import EXPERT, LABELS, pair_text_hash

OFFLINE_TEACHERS = ("rules",)  # judge kinds whose labels cost no model call
SEED_OFFSET = 1_000_003  # the generator's seed: never the demo's own seed (its pairs would repeat)
MAX_GENERATED = 200_000
AUTO_GENERATED = 4000  # what distill adds without --generated, for an offline teacher (docs/DISTILL.md: why)


def resolve_generated(teacher: dict, requested: int | None) -> int:
    """``requested`` None ("auto"): AUTO_GENERATED pairs when the teacher labels offline, else none."""
    if requested is not None:
        return requested
    return AUTO_GENERATED if teacher.get("judge_kind") in OFFLINE_TEACHERS else 0


def check_generated(teacher: dict, n: int) -> None:
    """Raise a clear ValueError when ``n`` generated pairs cannot be labelled by this teacher here."""
    if n < 0 or n > MAX_GENERATED:
        raise ValueError(f"generated pairs must be between 0 and {MAX_GENERATED:,}, got {n}")
    if n == 0:
        return
    if teacher["kind"] == EXPERT:
        raise ValueError("generated pairs have no expert labels: distil from an offline judge run "
                         "(--teacher rules) to add generated pairs, or use --generated 0")
    if teacher.get("judge_kind") not in OFFLINE_TEACHERS:
        raise ValueError(
            f"teacher '{teacher['label']}' is a {teacher.get('judge_kind')} judge: labelling {n} generated pairs "
            "would need a judge run on them (a model call per pair), which distill does not start. Build the "
            "pairs as a dataset (python -m core demo, or inject), run this judge on it and distil from that "
            f"run; or use --generated 0. Offline teachers that label generated pairs here: "
            f"{', '.join(OFFLINE_TEACHERS)}")


def label_offline(teacher: dict, refs: list[str], cands: list[str],
                  contexts: list[dict[str, str]] | None = None) -> pd.DataFrame:
    """The teacher's six significant counts for each pair, computed by running it (rules: GREEN format, parsed
    exactly as a stored run's answers are). ``contexts``: each pair's patient context, as a stored run gives the
    rules judge (generated pairs have none)."""
    from core.judges import rules
    from core.judges.runs import parsed_metrics
    from core.parse import parse_output

    rows = []
    for r, c, ctx in zip(refs, cands, contexts or [None] * len(refs), strict=True):
        result = rules.judge_pair(r, c, context=ctx or None)
        if result.failure:  # a label of zero errors would teach the student a clean report
            raise ValueError(f"the rules teacher could not read a generated pair: {result.failure}")
        metrics = parsed_metrics(parse_output(rules.render_green(result)))
        rows.append([float(metrics[label]) for label in LABELS])
    return pd.DataFrame(rows, columns=list(LABELS))


def generated_pairs(teacher: dict, n: int, seed: int, dataset_pairs: pd.DataFrame,
                    held_out_refs: set[str]) -> tuple[pd.DataFrame, int]:
    """``n`` generated training pairs (columns as ``data.labelled_pairs``) and how many were dropped.

    ``dataset_pairs``: every pair of the dataset (reference, candidate);
    ``held_out_refs``: the validation and test references. Dropped pairs are
    not replaced (the count says how many).
    """
    check_generated(teacher, n)
    if n == 0:
        return pd.DataFrame(columns=["pair_id", "reference", "candidate", "group", "identical", *LABELS]), 0
    from core.ingest.synth import generate_demo

    corpus = generate_demo(n_pairs=n, seed=seed + SEED_OFFSET).pairs
    known = {pair_text_hash(r, c) for r, c in zip(dataset_pairs["reference"], dataset_pairs["candidate"],
                                                    strict=True)}
    keep = [pair_text_hash(r, c) not in known and r not in held_out_refs
            for r, c in zip(corpus["reference"], corpus["candidate"], strict=True)]
    corpus = corpus[keep].reset_index(drop=True)
    labels = label_offline(teacher, corpus["reference"].tolist(), corpus["candidate"].tolist())
    frame = pd.DataFrame({"pair_id": "generated-" + corpus["ext_id"], "reference": corpus["reference"],
                          "candidate": corpus["candidate"], "group": "generated-" + corpus["group_id"],
                          "identical": corpus["reference"] == corpus["candidate"]})
    return pd.concat([frame, labels], axis=1), n - len(corpus)
