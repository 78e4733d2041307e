"""Error injection (VERT App. F.1 false finding, F.2 omission, F.3 validation).

For each reference report of a source dataset, a model is asked to inject
exactly k in {1, 2, 3} clinically significant errors of one type and answer in
JSON; a separate call checks the modified report's plausibility. An answer
that cannot be parsed, has the wrong number of changes, or is judged
implausible is retried, up to ``max_attempts`` (5) in all; a report that never
passes is excluded and listed. The result is a new dataset whose pairs are
(original, modified) and whose annotations are the injected counts (annotator
``injected``: k significant errors of category a or b, zero elsewhere). Each new pair keeps
the patient context (age, sex, indication, history) of the source pair its reference came from.

Calls go through the same gateway as the judges (litellm, retries, secrets
redacted, ``local_only``). Each accepted pair is committed as soon as a batch
is ready; re-running skips the pairs already in the target dataset and tries
the excluded reports again (another ``max_attempts`` each).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from core.ingest.importers import (
    PairColumns,
    check_dataset_name,
    prepare_annotations,
    prepare_pairs,
    write_annotations,
    write_pairs,
)
from core.judges.llm import Caller, GenParams, check_endpoint, run_on_gateway_loop, safe_api_base
from core.settings import local_only as local_only_setting
from core.store.db import Store
from core.taxonomy import CATEGORIES, CONTEXT_FIELDS

KIND_CATEGORY = {"false_finding": "a", "omission": "b"}


@dataclass
class InjectionReport:
    dataset: str
    requested: int = 0
    skipped: int = 0  # already in the target dataset
    added: int = 0
    excluded: list[dict] = field(default_factory=list)
    calls: int = 0
    seed: int = 0

    def to_json(self) -> dict:
        return {"dataset": self.dataset, "requested": self.requested, "skipped": self.skipped,
                "added": self.added, "excluded": self.excluded[:100], "n_excluded": len(self.excluded),
                "calls": self.calls, "seed": self.seed}


def _source_reports(store: Store, dataset: str, limit: int | None) -> pd.DataFrame:
    """One row per distinct reference report of the source dataset (first pair of each), with its context."""
    df = store.query_df(
        f"SELECT ext_id, reference, modality, anatomy, split, group_id, {', '.join(CONTEXT_FIELDS)} FROM pairs "
        "WHERE dataset = ? ORDER BY ext_id", [dataset])
    if df.empty:
        raise ValueError(f"dataset '{dataset}' has no pairs")
    df = df.drop_duplicates(subset=["reference"], keep="first").reset_index(drop=True)
    return df.head(limit) if limit is not None else df


def inject_dataset(store: Store, *, source_dataset: str, target_dataset: str, model: str, kind: str,
                   ks: tuple[int, ...] = (1, 2, 3), limit: int | None = None, seed: int = 0,
                   api_base: str | None = None, api_key: str | None = None, max_attempts: int = 5,
                   concurrency: int = 8, timeout: float = 120.0, temperature: float = 0.7,
                   validate: bool = True, local_only: bool | None = None,
                   progress: Callable[[int, int, dict], None] | None = None,
                   cancel: threading.Event | None = None) -> InjectionReport:
    """Build ``target_dataset`` from ``source_dataset`` by injecting errors of ``kind``.

    Each source report gets one k drawn from ``ks`` with ``seed`` (recorded
    in the dataset's version field), so the dataset covers every k.
    """
    from core.prompts import INJECTION_K

    if kind not in KIND_CATEGORY:
        raise ValueError(f"kind must be one of {', '.join(KIND_CATEGORY)}")
    if not ks or any(k not in INJECTION_K for k in ks):
        raise ValueError(f"k must be in {INJECTION_K}")
    if not 1 <= max_attempts <= 10:
        raise ValueError("max_attempts must be between 1 and 10")
    target_dataset = check_dataset_name(target_dataset)  # empty, over-long, invisible characters
    if target_dataset == source_dataset:
        raise ValueError("the injected dataset needs a new name")
    check_endpoint(model, api_base, local_only_setting() if local_only is None else local_only)
    sources = _source_reports(store, source_dataset, limit)
    rng = random.Random(seed)
    sources["k"] = [rng.choice(list(ks)) for _ in range(len(sources))]
    sources["new_id"] = [f"{e}:{kind}:k{k}" for e, k in zip(sources["ext_id"], sources["k"], strict=True)]
    done = set(store.query_df("SELECT ext_id FROM pairs WHERE dataset = ?", [target_dataset])["ext_id"])
    todo = sources[~sources["new_id"].isin(done)]
    report = InjectionReport(dataset=target_dataset, requested=len(sources), skipped=len(sources) - len(todo),
                             seed=seed)
    if todo.empty:
        return report
    caller = Caller(model, GenParams(temperature=temperature, max_tokens=2048), api_base, api_key, timeout,
                     max_retries=4, backoff=0.5)
    meta = {"generator": "core.ingest.inject", "kind": kind, "ks": list(ks), "seed": seed, "model": model,
            "api_base": safe_api_base(api_base), "source": source_dataset, "max_attempts": max_attempts}
    run_on_gateway_loop(_inject_all(store, caller, todo, kind, target_dataset, meta, max_attempts, validate,
                                     concurrency, report, progress, cancel))
    return report


async def _inject_one(caller: Caller, row, kind: str, max_attempts: int, validate: bool, report):
    from core.prompts import (
        parse_injection_answer,
        parse_plausibility_answer,
        render_injection,
        render_plausibility,
    )

    reasons = []
    for attempt in range(1, max_attempts + 1):
        report.calls += 1
        rec = await caller.call(render_injection(kind, row.reference, int(row.k)))
        if rec.error:
            reasons.append(f"attempt {attempt}: {rec.error}")
            continue
        try:
            modified, changes = parse_injection_answer(rec.raw_text or "", kind=kind, expected_k=int(row.k),
                                                       original=row.reference)
        except ValueError as exc:
            reasons.append(f"attempt {attempt}: {exc}")
            continue
        if validate:
            report.calls += 1
            check = await caller.call(render_plausibility(row.reference, modified, changes=changes,
                                                          modality=row.modality, body_region=row.anatomy))
            try:
                if check.error:
                    raise ValueError(check.error)
                plausible, why = parse_plausibility_answer(check.raw_text or "")
            except ValueError as exc:
                reasons.append(f"attempt {attempt}: validation unusable: {exc}")
                continue
            if not plausible:
                reasons.append(f"attempt {attempt}: judged implausible: {why}")
                continue
        return {"modified": modified, "changes": changes, "attempts": attempt}, reasons
    return None, reasons


async def _inject_all(store, caller, todo, kind, target, meta, max_attempts, validate, concurrency, report,
                      progress, cancel):
    sem = asyncio.Semaphore(concurrency)
    accepted: list[tuple] = []
    lock = asyncio.Lock()

    async def one(row):
        async with sem:
            if cancel is not None and cancel.is_set():
                return
            result, reasons = await _inject_one(caller, row, kind, max_attempts, validate, report)
        async with lock:
            if result is None:
                report.excluded.append({"ext_id": row.ext_id, "reasons": reasons[-max_attempts:]})
            else:
                accepted.append((row, result))
            if len(accepted) >= 20:
                batch = accepted[:]
                accepted.clear()
                await asyncio.to_thread(_write_batch, store, target, kind, meta, batch)
                report.added += len(batch)
        if progress:
            progress(report.added + len(accepted) + len(report.excluded), len(todo),
                     {"ok": report.added + len(accepted), "failed": len(report.excluded)})

    await asyncio.gather(*(one(r) for r in todo.itertuples(index=False)), return_exceptions=False)
    if accepted:
        await asyncio.to_thread(_write_batch, store, target, kind, meta, accepted)
        report.added += len(accepted)


def _write_batch(store: Store, target: str, kind: str, meta: dict, batch: list[tuple]) -> None:
    category = KIND_CATEGORY[kind]
    rows = [{"id": r.new_id, "reference": r.reference, "candidate": res["modified"], "group": r.group_id or r.ext_id,
             "modality": r.modality, "anatomy": r.anatomy, "split": r.split, "system": f"injected-{kind}",
             **{f: getattr(r, f) for f in CONTEXT_FIELDS},
             "injection": json.dumps({"k": int(r.k), "changes": res["changes"], "attempts": res["attempts"],
                                      "source_ext_id": r.ext_id})}
            for r, res in batch]
    df = pd.DataFrame(rows)
    pairs = prepare_pairs(df, target, PairColumns(id="id", reference="reference", candidate="candidate",
                                                  group="group", system="system", modality="modality",
                                                  anatomy="anatomy", split="split",
                                                  context={f: f for f in CONTEXT_FIELDS}))
    lookup = dict(zip(pairs["ext_id"], pairs["pair_id"], strict=True))
    ann = pd.DataFrame([
        {"id": r.new_id, "category": c, "significant": sig, "count": (int(r.k) if (c == category and sig) else 0)}
        for r, _ in batch for c in CATEGORIES for sig in (True, False)])
    annotations = prepare_annotations(ann, target, lookup, id_col="id", category_col="category",
                                      significant_col="significant", count_col="count", annotator="injected",
                                      source="core.ingest.inject")
    with store.write() as conn:
        write_pairs(conn, pairs, dataset=target, kind="error_counts", source=f"injected ({kind}) by {meta['model']}",
                    license="derived", synthetic=True)
        write_annotations(conn, annotations)
        conn.execute("UPDATE datasets SET version = ?, description = ? WHERE name = ?",
                     [json.dumps(meta), f"Errors of type ({category}) injected into '{meta['source']}' "
                      "(VERT App. F); k per pair in the annotations", target])
