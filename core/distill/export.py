"""Fine-tuning data for an LLM judge, as in VERT Sec. 4.1.4 (seeds/vert-llm-judges-radiology.txt).

"We used the user-turn template with the first two lines from the VERT prompt
followed by the reference and candidate reports, and then we applied the
assistant-turn template to wrap the normalized score between 0.0 and 1.0 with
only 1 decimal."

- user turn: the first two lines of the VERT prompt (core/prompts/templates/
  vert.txt, D.2), a blank line, then the reference and the candidate under the
  headings the VERT prompt itself uses ("Reference Report:", "Candidate
  Report:"; the paper does not print the exact glue, this is our choice);
- assistant turn: the expert score normalised to 0-1 (core.targets: per
  annotator value / scale, mean over annotators), one decimal, half up;
- a seeded 90/10 train/validation split by group (a study never straddles).

One JSON object per line, ``{"messages": [{"role": "user", ...}, {"role":
"assistant", ...}]}``: the chat format that Hugging Face TRL/axolotl/Unsloth
and OpenAI-style fine-tuning read, and that a chat template turns into
model-specific text. Files are written to a temporary name and renamed.
"""

from __future__ import annotations

import json
import os
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from core.distill.data import group_split
from core.prompts.loader import get_template
from core.store import Store
from core.targets import dataset_targets


def vert_first_two_lines() -> str:
    return "\n".join(get_template("vert").body.splitlines()[:2])


def user_turn(reference: str, candidate: str) -> str:
    return f"{vert_first_two_lines()}\n\nReference Report:\n{reference}\n\nCandidate Report:\n{candidate}"


def one_decimal(score: float) -> str:
    """0.25 -> "0.3": the exact decimal of the float, rounded half up (not banker's rounding)."""
    return str(Decimal(repr(float(score))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def val_path(out: Path) -> Path:
    """``ft.jsonl`` -> ``ft.val.jsonl``."""
    return out.with_name(f"{out.stem}.val{out.suffix or '.jsonl'}")


def _write_atomic(path: Path, lines: list[str]) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line + "\n")
    os.replace(tmp, path)


def export_finetune(store: Store, dataset: str, out: str | Path, *, seed: int = 0, val_frac: float = 0.1) -> dict:
    """Write ``out`` (90% of the scored pairs) and ``<out stem>.val.jsonl`` (10%)."""
    out = Path(out)
    if not out.parent.is_dir():
        raise ValueError(f"folder '{out.parent}' does not exist")
    pairs = store.query_df("SELECT pair_id, ext_id, group_id, reference, candidate FROM pairs WHERE dataset = ? "
                           "ORDER BY ext_id", [dataset])
    if pairs.empty:
        if store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]) == 0:
            raise ValueError(f"dataset '{dataset}' not found")
        raise ValueError(f"dataset '{dataset}' has no pairs")
    t = dataset_targets(store, dataset)
    scores = t[t["target"] == "score"][["pair_id", "value"]]
    frame = pairs.merge(scores, on="pair_id")
    if frame.empty:
        raise ValueError(f"dataset '{dataset}' has no expert scores to export (import scores first)")
    groups = frame["group_id"].fillna(frame["pair_id"]).astype(str)
    # group_split's "test" share is the validation set here; its "val" share is empty.
    split = group_split(groups, seed, val_frac=0.0, test_frac=val_frac) if groups.nunique() >= 3 else None
    if split is None:
        raise ValueError("need at least 3 groups of scored pairs for a train/validation split")
    lines = {"train": [], "val": []}
    for row, s in zip(frame.itertuples(index=False), split, strict=True):
        record = {"messages": [{"role": "user", "content": user_turn(row.reference, row.candidate)},
                               {"role": "assistant", "content": one_decimal(row.value)}]}
        lines["val" if s == "test" else "train"].append(json.dumps(record, ensure_ascii=False))
    _write_atomic(out, lines["train"])
    _write_atomic(val_path(out), lines["val"])
    return {"dataset": dataset, "train_file": str(out), "val_file": str(val_path(out)),
            "n_train": len(lines["train"]), "n_val": len(lines["val"]), "seed": seed,
            "n_unscored": len(pairs) - len(frame)}
