"""Writes fixtures/rendered_messages.json (every prompt's messages for two demo pairs, and its hash) and
fixtures/prompt_facts.json (what every consumer of a prompt's facts answered: lists, budgets, citations...).

Run once with the code before the PromptSpec table (commit 507060c) to pin the prompts' text:
``.venv/bin/python tests/prompts/make_rendered_fixture.py``. tests/prompts/test_prompt_table.py renders the
same inputs with today's code and compares them with these files, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

FIXTURE = Path(__file__).with_name("fixtures") / "rendered_messages.json"
FACTS = Path(__file__).with_name("fixtures") / "prompt_facts.json"


def inputs() -> tuple[list[dict], list]:
    """Two demo pairs (reference, candidate, patient context) and three worked shots."""
    from core.ingest.synth import generate_demo
    from core.ingest.synth.context import demo_context
    from core.prompts import Shot
    from core.taxonomy import CONTEXT_FIELDS

    corpus = generate_demo(n_pairs=4, seed=7)
    pairs = corpus.pairs.drop(columns=["meta"]).join(demo_context(corpus.pairs, 7)).head(2)
    rows = [{"reference": r["reference"], "candidate": r["candidate"],
             "context": {f: r[f] for f in CONTEXT_FIELDS if isinstance(r.get(f), str)}}
            for r in pairs.to_dict("records")]
    counts = {"a": 1, "b": 0, "c": 0, "d": 1, "e": 0, "f": 0}
    shots = [Shot(reference=f"Reference {i} {{x}}.", candidate=f"Candidate {i}.", score=0.5 + i / 10, sig=counts,
                  insig=counts, explanation=f"Explanation {i}.", matched_findings=f"Finding {i}", category="abc"[i],
                  ext_id=f"s{i}") for i in range(3)]
    return rows, shots


def rendered() -> dict:
    """prompt id -> {"hash": prompt_hash, "messages": [messages of pair 1, of pair 2]}."""
    from core.prompts import FEWSHOT_VARIANTS, list_prompts, prompt_hash, render_messages

    rows, shots = inputs()
    fewshot = {v.prompt_id for v in FEWSHOT_VARIANTS.values()}
    return {pid: {"hash": prompt_hash(pid),
                  "messages": [render_messages(pid, r["reference"], r["candidate"],
                                               shots if pid in fewshot else None, r["context"]) for r in rows]}
            for pid in list_prompts()}


def facts() -> dict:
    """What the consumers of the prompt table answer for every prompt id (the code's public names only)."""
    from core.cli.parsing import read_answer
    from core.judges.live import LIVE_PROMPTS, metric_order
    from core.judges.messages import default_max_tokens
    from core.judges.runs import answer_reader
    from core.judges.shots import FEWSHOT_PROMPTS, POOL_NEEDS
    from core.models import assumed_output_tokens
    from core.paper.citations import prompt_cites
    from core.prompts import CONTEXT_PROMPTS, CRIMSON_PROMPTS, list_prompts, prompt_templates

    def parse_accepts(pid: str) -> bool:
        try:
            read_answer("", pid)
        except ValueError:
            return False
        return True

    ids = [*list_prompts(include_injection=True), "radar_review", "laias_judge", "review_rules", "unknown"]
    return {"list_prompts": list_prompts(), "with_injection": list_prompts(include_injection=True),
            "live": list(LIVE_PROMPTS), "fewshot": dict(FEWSHOT_PROMPTS), "pool_needs": dict(POOL_NEEDS),
            "context": sorted(CONTEXT_PROMPTS), "crimson": {k: list(v) for k, v in CRIMSON_PROMPTS.items()},
            "templates": {pid: list(prompt_templates(pid)) for pid in list_prompts(include_injection=True)},
            "per_id": {pid: {"max_tokens": default_max_tokens(pid), "assumed_output": assumed_output_tokens(pid),
                             "cites": list(prompt_cites(pid)), "reader": answer_reader(pid) is not None,
                             "parse_accepts": parse_accepts(pid), "metric_order": list(metric_order(pid))}
                       for pid in ids}}


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(rendered(), indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    FACTS.write_text(json.dumps(facts(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} and {FACTS}")
