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
from core.distill.compare import expert_target, teacher_ms
from core.distill.data import (
    DEFAULTS,
    LABELS,
    check_name,
    group_split,
    labelled_pairs,
    model_dir,
    pair_text_hash,
    resolve_teacher,
    sample_groups,
)
from core.distill.fast import auto_max_length, choose_int8, length_batches, quantize, set_threads
from core.distill.generate import SEED_OFFSET, check_generated, generated_pairs, resolve_generated
from core.distill.model import CrepeModel, PairTokenizer, crepe_loss, device, predict, torch
from core.store.db import Store

DEFAULT_LR = {"tiny": 1e-3}  # every other encoder: 5e-5 (fine-tuning a pretrained BERT)
CONFIG_KEYS = ("dataset", "teacher_run_id", "teacher", "encoder", "epochs", "seed", "max_pairs", "max_length",
               "batch_size", "lr", "dropout", "patience", "val_frac", "test_frac", "generated")


def _val_tau(pred: np.ndarray, labels: np.ndarray) -> float:
    tau = correlation(pred.sum(axis=1), labels.sum(axis=1), min_n=3)["tau"]
    return tau if math.isfinite(tau) else -math.inf


def train_student(store: Store, *, dataset: str, teacher: str, name: str, epochs: int = DEFAULTS["epochs"],
                  encoder: str = DEFAULTS["encoder"], max_pairs: int | None = None, seed: int = 0,
                  batch_size: int = 16, lr: float | None = None, max_length: int | None = None,
                  dropout: float = 0.1, patience: int = DEFAULTS["patience"], val_frac: float = 0.1,
                  test_frac: float = 0.1, generated: int | None = DEFAULTS["generated"], replace: bool = False,
                  progress: Callable[[int, int, dict], None] | None = None) -> dict:
    """Train, evaluate on the held-out test split, save; returns the model card.

    ``max_length`` None: from the data (core.distill.fast.auto_max_length).
    ``generated``: that many generated pairs, labelled by the (offline)
    teacher, join the training split only (core.distill.generate); None:
    AUTO_GENERATED for an offline teacher, else 0.
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
    n_gen = resolve_generated(t_info, generated)
    check_generated(t_info, n_gen)
    config = {"dataset": dataset, "teacher_run_id": t_info["run_id"], "teacher": t_info["label"],
              "encoder": encoder, "epochs": epochs, "seed": seed, "max_pairs": max_pairs, "max_length": max_length,
              "batch_size": batch_size, "lr": lr or DEFAULT_LR.get(encoder, 5e-5), "dropout": dropout,
              "patience": patience, "val_frac": val_frac, "test_frac": test_frac, "generated": generated}
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
    all_pairs = store.query_df("SELECT reference, candidate FROM pairs WHERE dataset = ?", [dataset])
    held_out = set(parts["val"]["reference"]) | set(parts["test"]["reference"])
    extra, n_dropped = generated_pairs(t_info, n_gen, seed, all_pairs, held_out)
    train = pd.concat([parts["train"], extra], ignore_index=True) if len(extra) else parts["train"]

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    threads = set_threads()
    dev = device()
    started = time.monotonic()
    tokenizer = PairTokenizer(encoder, max_length or 512)
    lengths = np.array(tokenizer.lengths(train["reference"].tolist(), train["candidate"].tolist()))
    tokenizer.max_length = max_length or auto_max_length(lengths, encoder, tokenizer.model_limit)
    model = CrepeModel(encoder, tokenizer.max_length, dropout).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    y_train = torch.tensor(train[list(LABELS)].to_numpy(dtype=np.float32))
    val_labels = parts["val"][list(LABELS)].to_numpy(dtype=float)
    gen = torch.Generator().manual_seed(seed)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total_steps = steps_per_epoch * epochs
    best = {"tau": -math.inf, "epoch": 0, "state": None}
    history, step, stale = [], 0, 0
    refs, cands = train["reference"].tolist(), train["candidate"].tolist()
    for epoch in range(1, epochs + 1):
        model.train()
        losses = []
        for idx in length_batches(np.minimum(lengths, tokenizer.max_length), batch_size, gen):
            batch = tokenizer([refs[i] for i in idx], [cands[i] for i in idx])
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
    pred, quant = score_test(model, tokenizer, test, dev)
    target_name, sign, expert = expert_target(store, dataset)
    ev = test.merge(expert, on="pair_id", how="left")
    for i, c in enumerate(LABELS):
        ev[f"pred_{c}"] = pred[:, i]
    metrics = evaluate.report(ev, LABELS, seed, expert_sign=sign)

    card = config | {
        "name": name, "teacher_kind": t_info["kind"], "teacher_judge_kind": t_info["judge_kind"],
        "labels": list(LABELS), "device": dev, "threads": threads,
        "torch": torch.__version__, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "epochs_run": len(history), "best_epoch": best["epoch"], "history": history,
        "n_train": len(parts["train"]), "n_val": len(parts["val"]), "n_test": len(test),
        "n_generated": len(extra), "n_generated_dropped": int(n_dropped),
        "generated_source": {"generator": "core.ingest.synth", "seed": seed + SEED_OFFSET} if n_gen else None,
        "max_length_used": tokenizer.max_length,
        "train_tokens": {"p50": int(np.percentile(lengths, 50)), "p95": int(np.percentile(lengths, 95)),
                         "max": int(lengths.max())},
        "n_unlabelled": int(n_unlabelled), "split_seed": seed,
        "splits": {s: parts[s]["pair_id"].tolist() for s in ("train", "val", "test")},
        "trained_text_hashes": sorted({pair_text_hash(r, c) for part in (train, parts["val"])
                                       for r, c in zip(part["reference"], part["candidate"], strict=True)}),
        "expert_target": target_name, "metrics": metrics, "quantization": quant,
        "ms_per_pair": quant["int8" if quant["int8_used"] else "fp32"]["ms_per_pair"],
        "teacher_ms_per_pair": teacher_ms(store, t_info["run_id"]), "train_seconds": round(train_seconds, 2),
    }
    _save(out_dir, model, card)
    return card


def _timed_predict(model, tokenizer, test: pd.DataFrame) -> tuple[np.ndarray, float]:
    refs, cands = test["reference"].tolist(), test["candidate"].tolist()
    predict(model, tokenizer, refs[:4], cands[:4])  # warm-up (first-call allocations, int8 packing)
    t0 = time.perf_counter()
    pred = predict(model, tokenizer, refs, cands)
    return pred, (time.perf_counter() - t0) * 1000 / max(len(test), 1)


def score_test(model, tokenizer, test: pd.DataFrame, dev: str) -> tuple[np.ndarray, dict]:
    """Predictions on the test pairs, from the float model or its int8 copy (core.distill.fast.choose_int8),
    with both variants' ms/pair (batches of 32) and tau vs the teacher recorded."""
    labels = test[list(LABELS)].to_numpy(dtype=float)
    pred, ms = _timed_predict(model, tokenizer, test)
    out = {"fp32": {"ms_per_pair": round(ms, 3), "tau": _finite(_val_tau(pred, labels))}}
    if dev != "cpu":  # int8 dynamic quantization is a CPU path
        return pred, out | {"int8": None, "int8_used": False}
    q_pred, q_ms = _timed_predict(quantize(copy.deepcopy(model)), tokenizer, test)
    out["int8"] = {"ms_per_pair": round(q_ms, 3), "tau": _finite(_val_tau(q_pred, labels)),
                   "max_abs_diff": round(float(np.abs(q_pred - pred).max()), 4) if len(test) else None}
    out["int8_used"] = choose_int8(out["fp32"], out["int8"])
    return (q_pred if out["int8_used"] else pred), out


def _finite(v: float) -> float | None:
    return round(v, 4) if math.isfinite(v) else None


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
    max_length = card.get("max_length_used") or card["max_length"]
    tokenizer = PairTokenizer(card["encoder"], max_length)
    model = CrepeModel(card["encoder"], max_length, card["dropout"])
    state = torch.load(model_path / "weights.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    set_threads()
    if (card.get("quantization") or {}).get("int8_used") and device() == "cpu":
        return quantize(model).eval(), tokenizer
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
           "device": card["device"], "reused": bool(card.get("reused")),
           "n_generated": card.get("n_generated", 0), "max_length_used": card.get("max_length_used"),
           "threads": card.get("threads"), "quantization": card.get("quantization")}
    out |= block(m["all"])
    out["no_identical"] = block(m["no_identical"])
    return out
