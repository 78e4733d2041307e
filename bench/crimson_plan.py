"""What a run of each CRIMSON prompt would send over the demo, as the Run page's plan estimates it.

    .venv/bin/python bench/crimson_plan.py [--pairs 400] [--model openai/gpt-4o-mini]

Builds ``demo --pairs N`` (every pair with a synthetic age, sex, indication and history) in a temporary
store, then prints, per prompt id, ``core.models.plan_run``'s estimate: prompt tokens per pair (about 4
characters a token), the output budget (``max_tokens`` when none is set), and the cost at ``--model``'s
price in litellm's bundled table, with the output tokens per answer the plan uses and where they come from
(a fresh store holds no answer to measure, so each prompt's assumption: ``core.models.assumed_output_tokens``).
Then the same for ``crimson`` with the context removed from every pair: what the plan estimated before it
rendered the context. No call is made.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROMPTS = ("crimson", "crimson_nocontext", "crimson_noguide", "crimson_noguide_nocontext", "green")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--model", default="openai/gpt-4o-mini", help="a model priced in litellm's bundled table")
    args = ap.parse_args()
    from core.models import plan_run
    from core.store.db import Store
    from core.taxonomy import CONTEXT_FIELDS

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.duckdb"
        subprocess.run([sys.executable, "-m", "core", "--store", str(path), "demo", "--pairs", str(args.pairs)],
                       cwd=ROOT, check=True, capture_output=True)
        store = Store(path)
        ids = store.query_df("SELECT pair_id FROM pairs WHERE dataset = 'demo'")["pair_id"].tolist()
        with_context = store.query_one(
            f"SELECT count(*) FROM pairs WHERE dataset = 'demo' AND coalesce({', '.join(CONTEXT_FIELDS)}) IS NOT NULL")
        print(f"{len(ids)} pairs, {with_context} with context; model {args.model}")
        print("| prompt | prompt tokens per pair | max_tokens | output tokens per answer | estimated cost (USD) |")
        print("| --- | --- | --- | --- | --- |")

        def row(label: str, prompt: str) -> None:
            plan = plan_run(store, "demo", args.model, ids, prompt)
            cost = "unknown" if plan.cost_usd is None else f"{plan.cost_usd:.3f}"
            print(f"| {label} | {plan.prompt_tokens / len(ids):,.0f} | {plan.params.max_tokens:,} | {plan.output_note} "
                  f"| {cost} |")

        for prompt in PROMPTS:
            row(f"`{prompt}`", prompt)
        store.execute(f"UPDATE pairs SET {', '.join(f'{f} = NULL' for f in CONTEXT_FIELDS)} WHERE dataset = 'demo'")
        row("`crimson`, context removed", "crimson")


if __name__ == "__main__":
    main()
