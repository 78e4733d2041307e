"""Writes fixtures/rendered_messages.json: every prompt's messages for two demo pairs, and its hash.

Run once with the code before the PromptSpec table (commit 507060c) to pin the prompts' text:
``.venv/bin/python tests/prompts/make_rendered_fixture.py``. tests/prompts/test_prompt_table.py renders the
same inputs with today's code and compares them with this file, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

FIXTURE = Path(__file__).with_name("fixtures") / "rendered_messages.json"


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


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(rendered(), indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
