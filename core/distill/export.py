"""Fine-tuning data for an LLM judge, as in VERT Sec. 4.1.4 (seeds/vert-llm-judges-radiology.txt).

"We used the user-turn template with the first two lines from the VERT prompt
followed by the reference and candidate reports, and then we applied the
assistant-turn template to wrap the normalized score between 0.0 and 1.0 with
only 1 decimal."

- user turn: the first two lines of the VERT prompt (core/prompts/templates/
  vert.txt, D.2), a blank line, then the reference and the candidate under the
  headings the VERT prompt itself uses ("Reference Report:", "Candidate
  Report:"; the paper does not print the exact glue, this is our choice);
- assistant turn: the expert score normalised to 0-1 (core.reads.targets: per
  annotator value / scale, mean over annotators), one decimal, half up;
- the dataset's own split is respected: a pair of a group that has any
  ``test`` pair is never exported (an exported file is for training, and the
  test pairs are how the tuned judge will be judged); pairs marked ``val`` /
  ``validation`` / ``dev`` form the validation file; without such pairs a
  seeded 10% of the training groups does (a study never straddles);
- ``--out`` is a file (``ft.jsonl`` + ``ft.val.jsonl``) or a folder (an
  existing one, or a path ending in ``/``: ``train.jsonl`` + ``val.jsonl``).

One JSON object per line, ``{"messages": [{"role": "user", ...}, {"role":
"assistant", ...}]}``: the chat format that Hugging Face TRL/axolotl/Unsloth
and OpenAI-style fine-tuning read, and that a chat template turns into
model-specific text. Files are written to unique temporary names and renamed;
an existing file is replaced only with ``force`` (never a DuckDB file).
"""

from __future__ import annotations

import json
import os
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from core.distill.data import dataset_pairs, group_split
from core.prompts.loader import get_template
from core.reads.targets import dataset_targets
from core.store.db import Store


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


TEST_SPLITS = {"test"}
VAL_SPLITS = {"val", "validation", "dev"}


def out_files(out: str | os.PathLike) -> tuple[Path, Path]:
    """The (train, validation) files for ``--out``: a folder gets train.jsonl and val.jsonl."""
    text = os.fspath(out)
    path = Path(text)
    if path.is_dir() or text.endswith(("/", os.sep)):
        return path / "train.jsonl", path / "val.jsonl"
    return path, val_path(path)


def assign_splits(frame, seed: int, val_frac: float) -> tuple[list[str], str]:
    """train / val / excluded per row of ``frame`` (columns group, split), by whole groups; and where val came from."""
    import pandas as pd

    own = frame["split"].fillna("").astype(str).str.strip().str.lower()
    groups = frame["group"]
    test_groups = set(groups[own.isin(TEST_SPLITS)])
    val_groups = set(groups[own.isin(VAL_SPLITS)]) - test_groups
    usable = ~groups.isin(test_groups)
    source = "the dataset's own val split"
    if not val_groups:
        source = f"a seeded {val_frac:.0%} of the training groups"
        rest = groups[usable]
        if rest.nunique() < 3:
            raise ValueError("need at least 3 groups of scored non-test pairs for a train/validation split")
        # group_split's "test" share is the validation set here; its "val" share is empty.
        drawn = pd.Series(group_split(rest.reset_index(drop=True), seed, val_frac=0.0, test_frac=val_frac))
        val_groups = set(rest.reset_index(drop=True)[drawn == "test"])
    return ["excluded" if g in test_groups else "val" if g in val_groups else "train" for g in groups], source


def export_finetune(store: Store, dataset: str, out: str | Path, *, seed: int = 0, val_frac: float = 0.1,
                    force: bool = False) -> dict:
    """Write the training file (~90% of the scored non-test pairs) and the validation file."""
    from core.store.outfiles import check_out_file, write_atomic

    train_path, val_file = out_files(out)
    if not train_path.parent.is_dir() and not os.fspath(out).endswith(("/", os.sep)):
        raise ValueError(f"folder '{train_path.parent}' does not exist")
    for path in (train_path, val_file):
        check_out_file(path, store=store.path, force=force, example="train.jsonl")
    pairs = dataset_pairs(store, dataset, "pair_id, ext_id, group_id, split, reference, candidate")
    t = dataset_targets(store, dataset)
    scores = t[t["target"] == "score"][["pair_id", "value"]]
    frame = pairs.merge(scores, on="pair_id")
    if frame.empty:
        raise ValueError(f"dataset '{dataset}' has no expert scores to export (import scores first)")
    frame["group"] = frame["group_id"].fillna(frame["pair_id"]).astype(str)
    split, source = assign_splits(frame, seed, val_frac)
    lines: dict[str, list[str]] = {"train": [], "val": [], "excluded": []}
    for row, s in zip(frame.itertuples(index=False), split, strict=True):
        record = {"messages": [{"role": "user", "content": user_turn(row.reference, row.candidate)},
                               {"role": "assistant", "content": one_decimal(row.value)}]}
        lines[s].append(json.dumps(record, ensure_ascii=False))
    if not lines["train"]:
        raise ValueError(f"dataset '{dataset}' has no scored pairs outside its test split to train on")
    train_path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(train_path, (line + "\n" for line in lines["train"]))
    try:
        write_atomic(val_file, (line + "\n" for line in lines["val"]))
    except BaseException:
        train_path.unlink(missing_ok=True)  # written by this call a moment ago: no half export
        raise
    return {"dataset": dataset, "train_file": str(train_path), "val_file": str(val_file),
            "n_train": len(lines["train"]), "n_val": len(lines["val"]), "seed": seed,
            "n_test_excluded": len(lines["excluded"]), "n_unscored": len(pairs) - len(frame),
            "validation_from": source}
