"""Training a CREPE-style student from a teacher, and saving it next to the store.

Recipe (seeds/crepe.txt Sec. 4.1 "Implementation Details", scaled down): the
whole encoder and all heads are fine-tuned with AdamW; the pairs are split by
group (``data.group_split``: a study never straddles train/val/test); after
each epoch the validation Kendall tau (student score vs teacher score) is
computed and the best epoch's weights are kept; training stops after
``patience`` epochs without improvement (CREPE selects on validation tau too).
Python, numpy and torch are seeded and the seed is recorded in the card. A GPU
is used when ``torch.cuda.is_available()``.

Artifacts: ``<store dir>/models/NAME/weights.pt`` and ``card.json`` (teacher,
split pair ids, text hashes of the training and validation pairs, seeds,
epochs, history, metrics on the test split), written to a temporary folder
and renamed into place, so a crash leaves no half model.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from core.analysis.stats import correlation
from core.distill import evaluate
from core.distill.data import (
    LABELS,
    check_name,
    group_split,
    labelled_pairs,
    model_dir,
    pair_text_hash,
    resolve_teacher,
    sample_groups,
)
from core.distill.model import CrepeModel, PairTokenizer, crepe_loss, device, predict, torch
from core.reads.targets import dataset_targets
from core.store.db import Store

DEFAULT_LR = {"tiny": 1e-3}  # every other encoder: 5e-5 (fine-tuning a pretrained BERT)
CONFIG_KEYS = ("dataset", "teacher_run_id", "teacher", "encoder", "epochs", "seed", "max_pairs", "max_length",
               "batch_size", "lr", "dropout", "patience", "val_frac", "test_frac")


def _val_tau(pred: np.ndarray, labels: np.ndarray) -> float:
    tau = correlation(pred.sum(axis=1), labels.sum(axis=1), min_n=3)["tau"]
    return tau if math.isfinite(tau) else -math.inf


def _expert_target(store: Store, dataset: str) -> tuple[str | None, int, pd.DataFrame]:
    """The expert target the student is compared with: sig_errors if annotated, else the score (negated)."""
    t = dataset_targets(store, dataset)
    for name, sign in (("sig_errors", 1), ("score", -1)):
        sub = t[t["target"] == name]
        if not sub.empty:
            return name, sign, sub[["pair_id", "value"]].rename(columns={"value": "expert"})
    return None, 1, pd.DataFrame(columns=["pair_id", "expert"])


def _teacher_ms(store: Store, run_id: str | None) -> float | None:
    if run_id is None:
        return None
    v = store.query_one("SELECT avg(latency_ms) FROM judge_outputs WHERE run_id = ? AND error IS NULL "
                        "AND latency_ms IS NOT NULL", [run_id])
    return None if v is None else round(float(v), 3)


def train_student(store: Store, *, dataset: str, teacher: str, name: str, epochs: int = 3,
                  encoder: str = "minilm", max_pairs: int | None = None, seed: int = 0, batch_size: int = 16,
                  lr: float | None = None, max_length: int = 256, dropout: float = 0.1, patience: int = 2,
                  val_frac: float = 0.1, test_frac: float = 0.1, replace: bool = False,
                  progress: Callable[[int, int, dict], None] | None = None) -> dict:
    """Train, evaluate on the held-out test split, save; returns the model card.

    Re-running with the same settings returns the saved card without training
    (``reused: true``); a different model under an existing name is refused
    unless ``replace``.
    """
    check_name(name)
    if epochs < 1:
        raise ValueError("epochs must be at least 1")
    if max_pairs is not None and max_pairs < 10:
        raise ValueError("max_pairs must be at least 10")
    t_info = resolve_teacher(store, dataset, teacher)
    config = {"dataset": dataset, "teacher_run_id": t_info["run_id"], "teacher": t_info["label"],
              "encoder": encoder, "epochs": epochs, "seed": seed, "max_pairs": max_pairs, "max_length": max_length,
              "batch_size": batch_size, "lr": lr or DEFAULT_LR.get(encoder, 5e-5), "dropout": dropout,
              "patience": patience, "val_frac": val_frac, "test_frac": test_frac}
    out_dir = model_dir(store, name)
    if (out_dir / "card.json").exists():
        card = json.loads((out_dir / "card.json").read_text(encoding="utf-8"))
        if {k: card.get(k) for k in CONFIG_KEYS} == config:
            return card | {"reused": True}
        if not replace:
            raise ValueError(f"a distilled scorer named '{name}' exists with other settings "
                             f"(teacher {card.get('teacher')}, encoder {card.get('encoder')}); "
                             "choose another name or replace it")
    frame, n_unlabelled = labelled_pairs(store, dataset, t_info)
    frame = sample_groups(frame, max_pairs, seed)
    if len(frame) < 10:
        raise ValueError(f"only {len(frame)} pairs of '{dataset}' have all six counts from teacher "
                         f"'{t_info['label']}'; need at least 10")
    frame["split"] = group_split(frame["group"], seed, val_frac, test_frac)
    parts = {s: frame[frame["split"] == s].reset_index(drop=True) for s in ("train", "val", "test")}

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    dev = device()
    started = time.monotonic()
    tokenizer = PairTokenizer(encoder, max_length)
    model = CrepeModel(encoder, max_length, dropout).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    train = parts["train"]
    y_train = torch.tensor(train[list(LABELS)].to_numpy(dtype=np.float32))
    val_labels = parts["val"][list(LABELS)].to_numpy(dtype=float)
    gen = torch.Generator().manual_seed(seed)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total_steps = steps_per_epoch * epochs
    best = {"tau": -math.inf, "epoch": 0, "state": None}
    history, step, stale = [], 0, 0
    for epoch in range(1, epochs + 1):
        model.train()
        order = torch.randperm(len(train), generator=gen).tolist()
        losses = []
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            batch = tokenizer(train["reference"].iloc[idx].tolist(), train["candidate"].iloc[idx].tolist())
            counts, logits = model(**{k: v.to(dev) for k, v in batch.items()})
            loss = crepe_loss(counts, logits, y_train[idx].to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            step += 1
            if progress:
                progress(step, total_steps, {"stage": "train", "epoch": epoch, "loss": losses[-1]})
        val_pred = predict(model, tokenizer, parts["val"]["reference"].tolist(), parts["val"]["candidate"].tolist())
        tau = _val_tau(val_pred, val_labels)
        history.append({"epoch": epoch, "train_loss": round(float(np.mean(losses)), 5),
                        "val_tau": None if not math.isfinite(tau) else round(tau, 4)})
        if progress:
            progress(step, total_steps, {"stage": "validate", "epoch": epoch, "val_tau": history[-1]["val_tau"]})
        if best["state"] is None or tau > best["tau"]:
            best = {"tau": tau, "epoch": epoch, "state": copy.deepcopy(model.state_dict())}
            stale = 0
        else:
            stale += 1
            if stale >= patience:
                break
    model.load_state_dict(best["state"])
    train_seconds = time.monotonic() - started

    test = parts["test"]
    t0 = time.perf_counter()
    pred = predict(model, tokenizer, test["reference"].tolist(), test["candidate"].tolist())
    ms_per_pair = (time.perf_counter() - t0) * 1000 / max(len(test), 1)
    target_name, sign, expert = _expert_target(store, dataset)
    ev = test.merge(expert, on="pair_id", how="left")
    for i, c in enumerate(LABELS):
        ev[f"pred_{c}"] = pred[:, i]
    metrics = evaluate.report(ev, LABELS, seed, expert_sign=sign)

    card = config | {
        "name": name, "teacher_kind": t_info["kind"], "labels": list(LABELS), "device": dev,
        "torch": torch.__version__, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "epochs_run": len(history), "best_epoch": best["epoch"], "history": history,
        "n_train": len(parts["train"]), "n_val": len(parts["val"]), "n_test": len(test),
        "n_unlabelled": int(n_unlabelled), "split_seed": seed,
        "splits": {s: parts[s]["pair_id"].tolist() for s in ("train", "val", "test")},
        "trained_text_hashes": sorted(pair_text_hash(r, c) for s in ("train", "val")
                                      for r, c in zip(parts[s]["reference"], parts[s]["candidate"], strict=True)),
        "expert_target": target_name, "metrics": metrics, "ms_per_pair": round(ms_per_pair, 3),
        "teacher_ms_per_pair": _teacher_ms(store, t_info["run_id"]), "train_seconds": round(train_seconds, 2),
    }
    _save(out_dir, model, card)
    return card


def _save(out_dir, model, card: dict) -> None:
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.parent / f".{out_dir.name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp / "weights.pt")
    card["weights_sha256"] = hashlib.sha256((tmp / "weights.pt").read_bytes()).hexdigest()
    (tmp / "card.json").write_text(json.dumps(card, indent=1, ensure_ascii=False), encoding="utf-8")
    old = out_dir.parent / f".{out_dir.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out_dir.exists():
        out_dir.rename(old)
    tmp.rename(out_dir)
    shutil.rmtree(old, ignore_errors=True)


def load_student(card: dict, model_path):
    """The saved model (eval mode, on the best device) and its tokenizer."""
    tokenizer = PairTokenizer(card["encoder"], card["max_length"])
    model = CrepeModel(card["encoder"], card["max_length"], card["dropout"])
    state = torch.load(model_path / "weights.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.to(device()).eval(), tokenizer


def summary(card: dict) -> dict:
    """The CLI's JSON: the card's headline numbers, flat."""
    m = card["metrics"]

    def block(sub: dict) -> dict:
        vt, ve = sub["vs_teacher"], sub.get("vs_expert") or {}
        return {"n": sub["n"], "tau_vs_teacher": vt["tau"], "tau_vs_teacher_ci": vt["tau_ci"],
                "rho_vs_teacher": vt["rho"], "rho_vs_teacher_ci": vt["rho_ci"],
                "tau_vs_expert": ve.get("tau"), "tau_vs_expert_ci": ve.get("tau_ci"),
                "rho_vs_expert": ve.get("rho"), "rho_vs_expert_ci": ve.get("rho_ci"), "n_expert": ve.get("n"),
                "teacher_tau_vs_expert": (sub.get("teacher_vs_expert") or {}).get("tau"),
                "mae": sub["mae"]}

    out = {"name": card["name"], "teacher": card["teacher"], "teacher_run_id": card["teacher_run_id"],
           "dataset": card["dataset"], "encoder": card["encoder"], "n_train": card["n_train"],
           "n_val": card["n_val"], "n_test": card["n_test"], "epochs": card["epochs"],
           "epochs_run": card["epochs_run"], "best_epoch": card["best_epoch"], "seed": card["seed"],
           "expert_target": card["expert_target"], "ms_per_pair": card["ms_per_pair"],
           "teacher_ms_per_pair": card["teacher_ms_per_pair"], "train_seconds": card["train_seconds"],
           "device": card["device"], "reused": bool(card.get("reused"))}
    out |= block(m["all"])
    out["no_identical"] = block(m["no_identical"])
    return out
