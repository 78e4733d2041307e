"""Few-shot examples for the VERT prompt (VERT paper, section 4.1.3, Appendix D.5-D.9).

Every variant appends a section to the rendered ``vert`` prompt ("The VERT
base prompt is extended with"):

========== ======= ===================================================== =====
variant    paper   shots                                                 k
========== ======= ===================================================== =====
random     D.5     random pairs, human score                             3/5/10
rad_err    D.6     one RadEval pair per error type (a)-(f), human counts 6
rate_err   D.7     RaTE-Eval references with one injected (a) or (b)     4
rad_err_10 D.8     illustrations + 10 random RadEval pairs (seed 42)     10
rate_err_10 D.9    illustrations + 10 random RaTE-Eval pairs with
                   GPT-4.1-mini VERT assessments                         10
========== ======= ===================================================== =====

Pools are wide DataFrames, one row per pair. Column names (override the id
column with ``id_col``):

- ``ext_id`` (unique), ``reference``, ``candidate``;
- ``score``: the pair's overall score; divided by ``score_scale`` it must lie
  in [0, 1] (a 0-5 expert score: ``score_scale=5``; RaTE-Eval's paragraph scores: 4.5);
- ``sig_a`` ... ``sig_f`` and ``insig_a`` ... ``insig_f``: error counts;
- ``explanation``, ``matched_findings``: text of a stored judge output (D.9)
  or of an injection (D.7, ``explanation`` only);
- ``category`` (``a``/``b``) or ``kind`` (``false_finding``/``omission``) and
  optionally ``n_injected`` for injected pools (D.7);
- optional ``dataset``, ``split`` (filters) and ``group_id`` (exclusion by
  study, so a reference shared with an evaluated pair is never shown).

Every builder returns ``(shots, record)``. The record (a plain JSON-able
dict) says which variant and paper section, which ids, k, the seed, the pool
size and exclusions: store it with the run. Shots never come from
``exclude_ids`` (the pairs being evaluated; matched against the id column
and, when the pool has one, ``pair_id``), and a pool with too few eligible
rows raises ``ValueError`` naming the numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from core.taxonomy import CATEGORIES

from .fewshot_render import (  # noqa: F401 (re-exported: the few-shot API is read from here)
    ALLOWED_K,
    CATEGORY_NAMES,
    EXAMPLE_SEPARATOR,
    FEWSHOT_VARIANTS,
    INSIG_COLS,
    RAD_ERR_PENALTY,
    SIG_COLS,
    FewShotVariant,
    Shot,
    format_count,
    format_counts,
    format_score,
    rad_err_score,
    render_fewshot_section,
)

__all__ = ["ALLOWED_K", "CATEGORIES", "CATEGORY_NAMES", "FEWSHOT_VARIANTS", "FewShotVariant",
           "RAD_ERR_PENALTY", "Shot", "format_count", "format_counts", "format_score", "pool_from_long",
           "rad_err_10_shots", "rad_err_score", "rad_err_shots", "rate_err_10_shots", "rate_err_shots",
           "render_fewshot_section", "sample_random_shots"]

_KIND_TO_CATEGORY = {"false_finding": "a", "omission": "b"}


# ------------------------------------------------------------------ sampling


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int (it is recorded with the run), got {seed!r}")
    return int(seed)


def _eligible(
    pool: pd.DataFrame,
    *,
    required: Iterable[str],
    id_col: str,
    exclude_ids: Iterable[Any] | None,
    exclude_groups: Iterable[Any] | None,
    group_col: str,
    dataset: str | None,
    split: str | None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Rows that may be shown as shots, sorted by id, plus counts for the record."""
    if not isinstance(pool, pd.DataFrame):
        raise ValueError(f"pool must be a pandas DataFrame, got {type(pool).__name__}")
    required = [id_col, "reference", "candidate", *required]
    missing = [c for c in dict.fromkeys(required) if c not in pool.columns]
    if missing:
        raise ValueError(f"pool lacks columns {missing}; it has {list(pool.columns)}")
    df = pool.copy()
    df[id_col] = df[id_col].astype(str)
    for col, wanted in (("dataset", dataset), ("split", split)):
        if wanted is not None:
            if col not in df.columns:
                raise ValueError(f"cannot filter on {col}={wanted!r}: pool has no {col!r} column")
            df = df[df[col].astype(str) == str(wanted)]
    dup = df[id_col][df[id_col].duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"pool has duplicate {id_col} values {dup[:5]}; one row per pair")
    n_rows = len(df)
    excluded = {str(x) for x in (exclude_ids or ())}
    drop = df[id_col].isin(excluded)
    if "pair_id" in df.columns and id_col != "pair_id":
        drop |= df["pair_id"].astype(str).isin(excluded)  # callers may pass store pair ids
    groups = {str(x) for x in (exclude_groups or ())}
    if groups:
        if group_col not in df.columns:
            raise ValueError(f"exclude_groups given but pool has no {group_col!r} column")
        drop |= df[group_col].astype(str).isin(groups)
    n_excluded = int(drop.sum())
    df = df[~drop]
    complete = df[list(dict.fromkeys(required))].notna().all(axis=1)
    n_incomplete = int((~complete).sum())
    df = df[complete].sort_values(id_col, kind="mergesort").reset_index(drop=True)
    info = {
        "dataset": dataset,
        "split": split,
        "pool_rows": n_rows,
        "n_excluded": n_excluded,
        "n_incomplete": n_incomplete,
        "n_eligible": len(df),
    }
    return df, info


def _too_small(what: str, need: int, info: Mapping[str, Any]) -> ValueError:
    return ValueError(
        f"pool too small for {what}: need {need} eligible pairs, have {info['n_eligible']} "
        f"({info['pool_rows']} rows after dataset/split filters, {info['n_excluded']} excluded "
        f"as evaluated pairs, {info['n_incomplete']} with missing fields)"
    )


def _counts(row: pd.Series, cols: tuple[str, ...]) -> dict[str, float]:
    return {c: float(row[col]) for c, col in zip(CATEGORIES, cols, strict=True)}


def _scores(df: pd.DataFrame, score_col: str | None, score_scale: float) -> tuple[pd.Series, str]:
    """Shot scores in [0, 1]: ``score_col / score_scale``, or derived from ``sig_*`` if None."""
    if score_col is not None:
        if not score_scale or score_scale <= 0:
            raise ValueError(f"score_scale must be > 0, got {score_scale}")
        scores = df[score_col].astype(float) / float(score_scale)
        bad = df[(scores < 0) | (scores > 1)]
        if len(bad):
            raise ValueError(
                f"scores must lie in [0, 1] after dividing by score_scale={score_scale}; "
                f"e.g. {bad[score_col].iloc[0]} (set score_scale, e.g. 5 for a 0-5 scale)"
            )
        return scores, f"{score_col} / {score_scale:g}"
    sig = df[list(SIG_COLS)].astype(float).sum(axis=1)
    return sig.map(rad_err_score), "max(0, 1 - 0.15 x significant errors) (D.6/D.8)"


def _record(variant: str, k: int, seed: int, ids: list[str], info: dict, **extra: Any) -> dict:
    return {
        "variant": variant,
        "paper_section": FEWSHOT_VARIANTS[variant].paper_section,
        "prompt_id": FEWSHOT_VARIANTS[variant].prompt_id,
        "k": k,
        "seed": seed,
        "ext_ids": ids,
        **info,
        **extra,
    }


def _draw_random(
    variant: str,
    pool: pd.DataFrame,
    k: int,
    seed: Any,
    exclude_ids: Iterable[Any] | None,
    *,
    required: tuple[str, ...],
    id_col: str,
    score_col: str | None,
    score_scale: float,
    exclude_groups: Iterable[Any] | None,
    group_col: str,
    dataset: str | None,
    split: str | None,
    make_shot,
) -> tuple[list[Shot], dict]:
    """Shared draw of the random variants; ``score_col=None`` derives scores from counts."""
    seed = _check_seed(seed)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k not in ALLOWED_K:
        raise ValueError(f"k must be one of {ALLOWED_K} (section 4.1.3), got {k!r}")
    needs_score = (score_col,) if score_col is not None else SIG_COLS
    df, info = _eligible(
        pool, required=(*needs_score, *required), id_col=id_col, exclude_ids=exclude_ids,
        exclude_groups=exclude_groups, group_col=group_col, dataset=dataset, split=split,
    )
    if len(df) < k:
        raise _too_small(f"{variant} k={k}", k, info)
    scores, score_source = _scores(df, score_col, score_scale)
    rng = np.random.default_rng(seed)
    picked = [int(i) for i in rng.choice(len(df), size=k, replace=False)]
    shots = [make_shot(df.iloc[i], float(scores.iloc[i])) for i in picked]
    ids = [df[id_col].iloc[i] for i in picked]
    return shots, _record(variant, k, seed, ids, info, score_source=score_source)


def sample_random_shots(
    pool: pd.DataFrame,
    k: int,
    seed: int,
    exclude_ids: Iterable[Any] | None = None,
    *,
    dataset: str | None = None,
    split: str | None = None,
    id_col: str = "ext_id",
    score_col: str = "score",
    score_scale: float = 1.0,
    exclude_groups: Iterable[Any] | None = None,
    group_col: str = "group_id",
) -> tuple[list[Shot], dict]:
    """D.5: *k* (3, 5 or 10) random pairs with their human overall score.

    Section 4.1.3: "3-, 5-, 10- shots sampled at random from either the
    RadEval dataset or the RaTE-Eval train set. Each shot includes the
    candidate report, the reference report, and an overall score based on
    human assessments." The score is ``score / score_scale``; a pool without
    a score column (RadEval has error counts only) gets the D.6/D.8 score
    ``max(0, 1 - 0.15 x significant errors)`` from ``sig_a..sig_f``.

    Eligible rows are sorted by id before a ``numpy.random.default_rng(seed)``
    draw without replacement, so the result does not depend on row order.
    """

    def make(row: pd.Series, score: float) -> Shot:
        return Shot(row["reference"], row["candidate"], score=score, ext_id=row[id_col])

    if not isinstance(pool, pd.DataFrame):
        raise ValueError(f"pool must be a pandas DataFrame, got {type(pool).__name__}")
    return _draw_random(
        "random", pool, k, seed, exclude_ids, required=(), id_col=id_col,
        score_col=score_col if score_col in pool.columns else None, score_scale=score_scale, exclude_groups=exclude_groups, group_col=group_col,
        dataset=dataset, split=split, make_shot=make,
    )


def rad_err_10_shots(
    pool_with_counts: pd.DataFrame,
    exclude_ids: Iterable[Any] | None = None,
    *,
    seed: int = 42,
    k: int = 10,
    dataset: str | None = None,
    split: str | None = None,
    id_col: str = "ext_id",
    exclude_groups: Iterable[Any] | None = None,
    group_col: str = "group_id",
) -> tuple[list[Shot], dict]:
    """D.8 rad-err-10 human: 10 random RadEval pairs with their human counts.

    "10 complete assessments drawn from RadEval human-annotated examples
    (seed 42, deduplicated from evaluation set) [...] Scores are computed as
    score = max(0, 1 - 0.15 x sig errors)." The seed defaults to the paper's
    42; the draw is numpy's, so the ids differ from the paper's own draw.
    Rendered after the section-5 error-type illustrations (template
    ``fewshot_section_rad_err_10``).
    """

    def make(row: pd.Series, score: float) -> Shot:
        return Shot(row["reference"], row["candidate"], score=score,
                    sig=_counts(row, SIG_COLS), insig=_counts(row, INSIG_COLS), ext_id=row[id_col])

    return _draw_random(
        "rad_err_10", pool_with_counts, k, seed, exclude_ids, required=SIG_COLS + INSIG_COLS,
        id_col=id_col, score_col=None, score_scale=1.0,
        exclude_groups=exclude_groups, group_col=group_col, dataset=dataset, split=split,
        make_shot=make,
    )


def rate_err_10_shots(
    pool_with_assessments: pd.DataFrame,
    seed: int,
    exclude_ids: Iterable[Any] | None = None,
    *,
    k: int = 10,
    dataset: str | None = None,
    split: str | None = None,
    id_col: str = "ext_id",
    score_col: str = "score",
    exclude_groups: Iterable[Any] | None = None,
    group_col: str = "group_id",
) -> tuple[list[Shot], dict]:
    """D.9 rate-err-10 VERT: 10 random RaTE-Eval pairs with a judge's VERT assessment.

    The pool holds one parsed GPT-4.1-mini VERT output per pair (the paper's
    choice; any stored VERT run works and should be named in the record by
    the caller): ``explanation``, ``sig_*``, ``insig_*``, ``matched_findings``
    and the judge's own overall score in ``score`` (already in [0, 1]).
    Rendered after the section-5 error-type illustrations (template
    ``fewshot_section_rate_err_10``).
    """

    def make(row: pd.Series, score: float) -> Shot:
        return Shot(row["reference"], row["candidate"], score=score,
                    sig=_counts(row, SIG_COLS), insig=_counts(row, INSIG_COLS),
                    explanation=str(row["explanation"]),
                    matched_findings=str(row["matched_findings"]), ext_id=row[id_col])

    if not isinstance(pool_with_assessments, pd.DataFrame):
        raise ValueError("pool must be a pandas DataFrame")
    if score_col not in pool_with_assessments.columns:
        raise ValueError(f"rate_err_10 needs the judge's own score in column {score_col!r}")
    return _draw_random(
        "rate_err_10", pool_with_assessments, k, seed, exclude_ids,
        required=SIG_COLS + INSIG_COLS + ("explanation", "matched_findings"), id_col=id_col,
        score_col=score_col, score_scale=1.0, exclude_groups=exclude_groups,
        group_col=group_col, dataset=dataset, split=split, make_shot=make,
    )


def rad_err_shots(
    pool_with_counts: pd.DataFrame,
    seed: int,
    exclude_ids: Iterable[Any] | None = None,
    *,
    pinned: Mapping[str, Any] | None = None,
    dataset: str | None = None,
    split: str | None = None,
    id_col: str = "ext_id",
    exclude_groups: Iterable[Any] | None = None,
    group_col: str = "group_id",
) -> tuple[list[Shot], dict]:
    """D.6 rad-err: six human-annotated RadEval pairs, one per error type (a)-(f).

    For category x (in order a-f) the example is a pair with at least one
    significant error of type x, preferring pairs whose significant errors
    are all of type x (the clearest illustration), drawn with
    ``default_rng(seed)``; ``pinned={"c": ext_id, ...}`` fixes a curated
    choice instead (the paper curated its six by hand and does not list
    them). Score = ``max(0, 1 - 0.15 x total significant errors)``.
    """
    seed = _check_seed(seed)
    df, info = _eligible(
        pool_with_counts, required=SIG_COLS + INSIG_COLS, id_col=id_col,
        exclude_ids=exclude_ids, exclude_groups=exclude_groups, group_col=group_col,
        dataset=dataset, split=split,
    )
    pinned = {str(c): str(v) for c, v in (pinned or {}).items()}
    unknown = set(pinned) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"pinned has unknown categories {sorted(unknown)}")
    sig = df[list(SIG_COLS)].astype(float)
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    for c, col in zip(CATEGORIES, SIG_COLS, strict=True):
        if c in pinned:
            hits = df.index[df[id_col] == pinned[c]].tolist()
            if not hits:
                raise ValueError(f"pinned {c}={pinned[c]!r} is not an eligible pair of the pool")
            if sig.at[hits[0], col] < 1:
                raise ValueError(f"pinned {c}={pinned[c]!r} has no significant error of type ({c})")
            chosen.append(hits[0])
            continue
        has = (sig[col] >= 1) & ~df.index.isin(chosen)
        if not has.any():
            raise ValueError(
                f"pool too small for rad_err: no eligible pair with a significant error of "
                f"type ({c}) ({info['n_eligible']} eligible pairs)"
            )
        only = has & (sig.drop(columns=col).sum(axis=1) == 0)
        options = df.index[only if only.any() else has].tolist()
        chosen.append(options[int(rng.integers(len(options)))])
    shots = []
    for c, i in zip(CATEGORIES, chosen, strict=True):
        row = df.loc[i]
        counts = _counts(row, SIG_COLS)
        shots.append(Shot(row["reference"], row["candidate"],
                          score=rad_err_score(sum(counts.values())), sig=counts,
                          insig=_counts(row, INSIG_COLS), category=c, ext_id=row[id_col]))
    ids = [s.ext_id for s in shots]
    return shots, _record(
        "rad_err", 6, seed, ids, info, categories=dict(zip(CATEGORIES, ids, strict=True)),
        pinned=sorted(pinned), score_source="max(0, 1 - 0.15 x significant errors) (D.6)",
    )


def rate_err_shots(
    injected_pool: pd.DataFrame,
    seed: int,
    exclude_ids: Iterable[Any] | None = None,
    *,
    per_type: int = 2,
    dataset: str | None = None,
    split: str | None = None,
    id_col: str = "ext_id",
    exclude_groups: Iterable[Any] | None = None,
    group_col: str = "group_id",
) -> tuple[list[Shot], dict]:
    """D.7 rate-err: four RaTE-Eval train references with one injected error each.

    Section 4.1.3: "four examples from RaTE-Eval's train set [...] we inject
    reference reports with errors of type (a) and (b) using GPT-4.1". The
    pool holds injection results: ``reference`` = original report,
    ``candidate`` = perturbed report, ``explanation`` = the injected change,
    ``category`` (a/b) or ``kind`` (false_finding/omission), and, if present,
    ``n_injected`` (only rows with exactly one injected error qualify, as in
    the printed example). ``per_type`` examples of (a) then of (b); counts are
    1 for the injected type and 0 elsewhere, score max(0, 1 - 0.15) = 0.85.
    """
    seed = _check_seed(seed)
    pool = injected_pool
    if not isinstance(pool, pd.DataFrame):
        raise ValueError(f"pool must be a pandas DataFrame, got {type(pool).__name__}")
    if "category" not in pool.columns:
        if "kind" not in pool.columns:
            raise ValueError("injected pool needs a 'category' (a/b) or 'kind' column")
        pool = pool.assign(category=pool["kind"].map(_KIND_TO_CATEGORY))
    df, info = _eligible(
        pool, required=("category", "explanation"), id_col=id_col, exclude_ids=exclude_ids,
        exclude_groups=exclude_groups, group_col=group_col, dataset=dataset, split=split,
    )
    if "n_injected" in df.columns:
        df = df[df["n_injected"] == 1]
    rng = np.random.default_rng(seed)
    shots: list[Shot] = []
    for c in ("a", "b"):
        options = df.index[df["category"].astype(str).str.strip("() ").str.lower() == c].tolist()
        if len(options) < per_type:
            raise ValueError(
                f"pool too small for rate_err: need {per_type} single-error injections of "
                f"type ({c}), have {len(options)} ({info['n_eligible']} eligible rows)"
            )
        for i in rng.choice(len(options), size=per_type, replace=False):
            row = df.loc[options[int(i)]]
            sig = {x: (1.0 if x == c else 0.0) for x in CATEGORIES}
            shots.append(Shot(row["reference"], row["candidate"], score=rad_err_score(1),
                              sig=sig, insig=dict.fromkeys(CATEGORIES, 0.0),
                              explanation=str(row["explanation"]), category=c,
                              ext_id=row[id_col]))
    ids = [s.ext_id for s in shots]
    return shots, _record("rate_err", len(shots), seed, ids, info, per_type=per_type,
                          score_source="max(0, 1 - 0.15 x 1) (D.7)")


# ------------------------------------------------------------- store -> pool


def pool_from_long(pairs: pd.DataFrame, annotations: pd.DataFrame) -> pd.DataFrame:
    """Wide shot pool from the store's ``pairs`` and long ``annotations`` tables.

    ``score`` = mean over annotators of ``value / scale_max`` (rows with
    ``field == "score"``; a missing scale_max means the value is already in
    [0, 1]). ``sig_x`` / ``insig_x`` = mean over the annotators who gave
    error counts for the pair of their count for category x (0 when an
    annotator gave none for x). Pairs without annotations keep NaN, which the
    samplers treat as ineligible.
    """
    keep = [c for c in ("pair_id", "dataset", "ext_id", "reference", "candidate", "group_id",
                        "split", "modality", "anatomy") if c in pairs.columns]
    wide = pairs[keep].copy()
    ann = annotations
    scores = ann[ann["field"] == "score"]
    if len(scores):
        scale = scores["scale_max"].astype(float).fillna(1.0).replace(0, np.nan)
        norm = scores.assign(_v=scores["value"].astype(float) / scale)
        wide = wide.merge(norm.groupby("pair_id")["_v"].mean().rename("score"),
                          left_on="pair_id", right_index=True, how="left")
    counts = ann[(ann["field"] == "error_count") & ann["category"].isin(CATEGORIES)]
    if len(counts):
        counts = counts.assign(
            _col=np.where(counts["significant"].astype(bool), "sig_", "insig_") + counts["category"]
        )
        per_annotator = counts.pivot_table(
            index=["pair_id", "annotator"], columns="_col", values="value", aggfunc="sum",
            fill_value=0.0,
        )
        for col in SIG_COLS + INSIG_COLS:
            if col not in per_annotator.columns:
                per_annotator[col] = 0.0
        mean = per_annotator[list(SIG_COLS + INSIG_COLS)].groupby(level="pair_id").mean()
        wide = wide.merge(mean, left_on="pair_id", right_index=True, how="left")
    return wide.reset_index(drop=True)
