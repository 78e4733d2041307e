"""GREEN-style summary of one judge's error explanations.

Follows GREEN (Ostmeier et al., ``seeds/green.txt``) Section 3.3 and Figure 4:
for every clinically significant error category (a)-(f) the summary gives how
often the category occurs and the *representative explanations*: the
explanation sentences of the category are embedded, clustered into ``k``
clusters with ``k`` chosen by the silhouette score, and the 3 members nearest
(cosine distance) to the mean of the largest cluster are listed, counting texts
that differ only in case, spacing or punctuation once (a difference from
Figure 4, which can repeat one sentence).  The header
line is the mean and standard deviation of the GREEN score (Figure 4,
"[Summary]: Green score: mean 0.23 std 0.04"), or of another headline score
(``score_metric``; :func:`headline_metric` picks CRIMSON's for a CRIMSON run,
whose answers give the same categories (a)-(f) and one explanation per error).
:func:`judge_summary` resolves the headline itself and :func:`summarisable_judges` says which judges have
a summary: the report, the Summaries page and the ``summary`` command use both.

Differences from the paper, on purpose
--------------------------------------
* Embeddings.  The paper uses a Sentence-Transformers model.  The default here
  is TF-IDF (word 1-2 grams) reduced by a seeded TruncatedSVD: no model weights,
  deterministic for a seed.  A callable or a locally available
  Sentence-Transformers model can be passed instead (never downloaded).
* Choice of k.  Every ``k`` in a bounded range is tried and the best silhouette
  wins (ties: the smaller ``k``), rather than a binary search, which assumes the
  silhouette is unimodal in ``k``.  The range is capped by the number of
  distinct texts and by ``n - 1`` (the silhouette needs at least one cluster
  with two members and at most ``n - 1`` clusters).
* Every cluster and every member stays browsable in :attr:`Summary.clusters`,
  not only the top 3 of the largest cluster.

Counting policy (explicit, never silent)
----------------------------------------
The reports of a category are the pairs that have at least one count row (of
the requested significance) for the judge and system.  A pair with rows for
some categories but none for category ``c`` has 0 errors of kind ``c`` by
default (GREEN's parser reads an absent sub-category as 0), or is *unknown*
with ``absent="unknown"``.  A count that is NaN/None is unknown.  Unknown
reports are left out of that category's statistics and counted in
``n_unknown``.  "Share with no error" is GREEN's per-category "accuracy"
(the fraction of reports whose count is 0), shown next to each category in
Figure 4.  Blank explanation texts (no word character) are not clustered and
are counted in ``n_blank``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.analysis.clusters import CLUSTER_COLUMNS, cluster_category, distinct_texts, normalized_text
from core.analysis.embeddings import DEFAULT_EMBEDDING, Embedder, embed_texts, resolve_embedder
from core.analysis.scores import CATEGORIES
from core.taxonomy import CATEGORY_NAMES

__all__ = [
    "CATEGORY_COLUMNS",
    "CLUSTER_COLUMNS",
    "DEFAULT_EMBEDDING",
    "Summary",
    "compare_systems",
    "distinct_texts",
    "embed_texts",
    "green_summary",
    "headline_metric",
    "judge_summary",
    "normalized_text",
    "require_summarisable",
    "summarisable_judges",
]

#: Columns of :attr:`Summary.categories`, in order.
CATEGORY_COLUMNS: tuple[str, ...] = (
    "category", "label", "n_reports", "n_unknown", "mean_count", "share_no_error",
    "n_texts", "n_distinct_texts", "n_blank", "k", "silhouette", "largest_size",
    "representatives", "status",
)

_WORD = re.compile(r"\w")


@dataclass
class Summary:
    """GREEN summary of one judge (optionally one candidate system).

    Attributes
    ----------
    judge, system : str, str or None
        What was summarised; ``system=None`` pools every system.
    significant : bool
        Which errors: clinically significant (the paper's summary) or not.
    categories : pandas.DataFrame
        One row per category (a)-(f), columns :data:`CATEGORY_COLUMNS`.
    clusters : pandas.DataFrame
        Every clustered explanation, columns :data:`CLUSTER_COLUMNS`; cluster 0
        is the largest, ``rank`` 1 is the member nearest its cluster's mean.
    green_mean, green_std : float or None
        Mean and standard deviation (``ddof`` recorded) of the headline score
        (``score_metric``: GREEN unless another was asked for) over the pairs
        that have one; ``None`` when none has.
    green_n : int
        Number of headline score values used.
    n_reports : int
        Distinct pairs seen for this judge/system in any of the three inputs.
    seed : int
        Seed of the SVD and k-means.
    embedding : str
        Name of the embedding actually used.
    k_range : tuple of int
        Requested range of k (before capping).
    notes : list of str
        Everything left out or substituted, in words.
    score_metric : str
        The metric behind ``green_mean``/``green_std`` (``"green"``, or e.g. ``"crimson"``).
    """

    judge: str
    system: str | None
    significant: bool
    categories: pd.DataFrame
    clusters: pd.DataFrame
    green_mean: float | None
    green_std: float | None
    green_n: int
    n_reports: int
    seed: int
    embedding: str
    k_range: tuple[int, int]
    ddof: int = 0
    notes: list[str] = field(default_factory=list)
    score_metric: str = "green"

    @property
    def representatives(self) -> dict[str, list[str]]:
        """Category -> the representative explanations (Figure 4's brackets)."""
        return dict(zip(self.categories["category"], self.categories["representatives"], strict=True))

    def to_json(self) -> dict:
        """A JSON-serialisable dict (NaN written as ``None``)."""
        return {
            "judge": self.judge,
            "system": self.system,
            "significant": self.significant,
            "green_mean": _jsonable(self.green_mean),
            "green_std": _jsonable(self.green_std),
            "green_n": self.green_n,
            "score_metric": self.score_metric,
            "ddof": self.ddof,
            "n_reports": self.n_reports,
            "seed": self.seed,
            "embedding": self.embedding,
            "k_range": list(self.k_range),
            "notes": list(self.notes),
            "categories": _records(self.categories),
            "clusters": _records(self.clusters),
        }


# -- inputs -----------------------------------------------------------------


def _select(frame: pd.DataFrame, judge: str, system: str | None, what: str,
            required: Sequence[str]) -> pd.DataFrame:
    missing = [c for c in ("pair_id", "judge", *required) if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing columns {missing}")
    out = frame[frame["judge"] == judge]
    if system is not None:
        if "system" not in out.columns:
            raise ValueError(f"{what}: no 'system' column to filter on system={system!r}")
        out = out[out["system"] == system]
    return out.copy()


def _significance_filter(frame: pd.DataFrame, significant: bool, what: str,
                         notes: list[str]) -> pd.DataFrame:
    flag = frame["significant"]
    unknown = flag.isna()
    if unknown.any():
        notes.append(f"{what}: {int(unknown.sum())} rows with unknown significance left out")
    return frame[~unknown & (flag.astype("boolean") == significant)]


def _check_categories(frame: pd.DataFrame, what: str, notes: list[str]) -> pd.DataFrame:
    cat = frame["category"]
    unknown = cat.isna()
    if unknown.any():
        notes.append(f"{what}: {int(unknown.sum())} rows without a category left out")
    frame = frame[~unknown]
    bad = sorted(set(frame["category"]) - set(CATEGORIES))
    if bad:
        raise ValueError(f"{what}: unknown categories {bad}; valid: {', '.join(CATEGORIES)}")
    return frame


# -- counts -----------------------------------------------------------------


def _category_counts(counts: pd.DataFrame, absent: str) -> dict[str, dict]:
    """Per category: n_reports, n_unknown, mean_count, share_no_error."""
    dup = counts.duplicated(["pair_id", "category"], keep=False)
    if dup.any():
        example = counts.loc[dup, ["pair_id", "category"]].iloc[0].tolist()
        raise ValueError(f"counts: several rows for one (pair_id, category), e.g. {example}")
    values = pd.to_numeric(counts["count"], errors="raise").astype(float)
    if (values.dropna() < 0).any():
        raise ValueError("counts: negative error count")
    reports = sorted(counts["pair_id"].unique(), key=str)
    by_cat = {cat: {} for cat in CATEGORIES}
    for pid, cat, value in zip(counts["pair_id"], counts["category"], values, strict=True):
        by_cat[cat][pid] = value
    out = {}
    for cat in CATEGORIES:
        rows = by_cat[cat]
        default = 0.0 if absent == "zero" else math.nan
        per_report = np.array([rows.get(pid, default) for pid in reports], dtype=float)
        per_report = per_report[~np.isnan(per_report)]
        n = len(per_report)
        out[cat] = {
            "n_reports": n,
            "n_unknown": len(reports) - n,
            "mean_count": float(per_report.mean()) if n else math.nan,
            "share_no_error": float((per_report == 0).mean()) if n else math.nan,
        }
    return out


# -- public API -------------------------------------------------------------

#: Scores a summary can head with, preferred in this order when a judge has several.
HEADLINE_METRICS: tuple[str, ...] = ("green", "crimson")


def headline_metric(scores: pd.DataFrame, judge: str) -> str:
    """The score heading ``judge``'s summary: the first of :data:`HEADLINE_METRICS` it has a value of in
    ``scores`` (a long frame with ``judge`` and ``metric`` columns), so GREEN for a GREEN-format judge
    and ``crimson`` for a CRIMSON run; ``"green"`` (shown as missing) when it has none."""
    have = set(scores.loc[scores["judge"] == judge, "metric"]) if len(scores) else set()
    return next((m for m in HEADLINE_METRICS if m in have), "green")


def summarisable_judges(errors: pd.DataFrame, counts: pd.DataFrame, scores: pd.DataFrame,
                        order: Sequence[str] | None = None) -> list[str]:
    """The judges a summary can be written for: a headline score (one of :data:`HEADLINE_METRICS`) and
    something per category, error explanations (``errors``) or per-category counts (``counts``: a run
    whose answers list no error still has its zeros). A judge with a score alone (a GREEN score imported
    from elsewhere, a RadEval run) or explanations alone has no summary.

    ``errors``, ``counts``, ``scores``: the long frames :func:`green_summary` takes. ``order``: the judges
    in the order to list them (e.g. run order); judges not in it follow, sorted. The report, the
    Summaries page and the ``summary`` command all ask this function.
    """
    headed = set(scores.loc[scores["metric"].isin(HEADLINE_METRICS), "judge"]) if len(scores) else set()
    per_category = set(errors["judge"]) | set(counts["judge"])
    found = headed & per_category
    listed = [j for j in dict.fromkeys(order or []) if j in found]
    return listed + sorted((j for j in found if j not in set(listed)), key=str)


def require_summarisable(errors: pd.DataFrame, counts: pd.DataFrame, scores: pd.DataFrame, judge: str) -> None:
    """``ValueError`` naming the judges that have a summary when ``judge`` is not one of
    :func:`summarisable_judges`."""
    able = summarisable_judges(errors, counts, scores)
    if judge not in able:
        raise ValueError(f"judge '{judge}' has nothing to summarise (a GREEN or CRIMSON score with error "
                         f"explanations or per-category counts); judges with a summary: {', '.join(able) or 'none'}")


def judge_summary(errors: pd.DataFrame, counts: pd.DataFrame, scores: pd.DataFrame, judge: str,
                  system: str | None = None, seed: int = 0, **options) -> Summary:
    """:func:`green_summary` of ``judge`` headed by its own score (:func:`headline_metric`: GREEN for a
    GREEN-format judge, CRIMSON's for a CRIMSON run): what the report, the Summaries page and the
    ``summary`` command show. ``options`` go to :func:`green_summary`.

    Raises ``ValueError`` (:func:`require_summarisable`) when ``judge`` has no summary.
    """
    require_summarisable(errors, counts, scores, judge)
    return green_summary(errors, counts, scores, judge, system=system, seed=seed,
                         score_metric=headline_metric(scores, judge), **options)


def green_summary(
    errors: pd.DataFrame,
    counts: pd.DataFrame,
    scores: pd.DataFrame,
    judge: str,
    system: str | None = None,
    seed: int = 0,
    k_range: tuple[int, int] = (2, 8),
    embedder: Embedder | str | None = None,
    *,
    significant: bool = True,
    absent: str = "zero",
    n_representatives: int = 3,
    ddof: int = 0,
    score_metric: str = "green",
) -> Summary:
    """GREEN summary (GREEN Section 3.3, Figure 4) of ``judge``'s explanations.

    Parameters
    ----------
    errors : pandas.DataFrame
        Long frame of explanations: ``pair_id, judge, system, category,
        significant, text`` (category a-f).
    counts : pandas.DataFrame
        Long frame of error counts: ``pair_id, judge, system, category,
        significant, count``.
    scores : pandas.DataFrame
        Long frame ``pair_id, judge, system, metric, value``; the rows with
        ``metric == score_metric`` give the header's mean and std.
    judge : str
        Judge to summarise.
    system : str, optional
        Candidate system to restrict to; ``None`` pools all systems.
    seed : int
        Seed of the SVD, k-means and silhouette sampling (recorded).
    k_range : (int, int)
        Inclusive range of ``k`` tried; capped by distinct texts and ``n - 1``.
    embedder : callable or str, optional
        ``None``: TF-IDF + TruncatedSVD.  A callable ``list[str] -> (n, d)``.
        A string: a Sentence-Transformers model name or path, used only when
        the package is importable and the model is on disk (never downloaded);
        otherwise the default is used and a note says so.
    significant : bool
        ``True`` (the paper's summary): clinically significant errors.
    absent : {"zero", "unknown"}
        How a report without a count row for a category is read (module doc).
    n_representatives : int
        How many members of the largest cluster to name (the paper: 3).
    ddof : int
        Delta degrees of freedom of the GREEN std; 0 as ``numpy.std`` in the
        GREEN reference implementation.
    score_metric : str
        The headline score (default ``"green"``; ``"crimson"`` for a CRIMSON
        run, see :func:`headline_metric`).  Only the header depends on it.

    Returns
    -------
    Summary
    """
    if absent not in ("zero", "unknown"):
        raise ValueError(f"absent must be 'zero' or 'unknown', got {absent!r}")
    k_range = (int(k_range[0]), int(k_range[1]))
    if k_range[0] > k_range[1] or k_range[1] < 2:
        raise ValueError(f"k_range must be (low, high) with low <= high and high >= 2, got {k_range}")
    notes: list[str] = []
    err = _select(errors, judge, system, "errors", ("category", "significant", "text"))
    cnt = _select(counts, judge, system, "counts", ("category", "significant", "count"))
    sco = _select(scores, judge, system, "scores", ("metric", "value"))
    n_reports = len(set(err["pair_id"]) | set(cnt["pair_id"]) | set(sco["pair_id"]))

    err = _check_categories(_significance_filter(err, significant, "errors", notes), "errors", notes)
    cnt = _check_categories(_significance_filter(cnt, significant, "counts", notes), "counts", notes)
    stats = _category_counts(cnt, absent)

    fn, embedding = resolve_embedder(embedder, notes)
    text = err["text"].astype("string")
    blank = text.isna() | ~text.fillna("").str.contains(_WORD)
    n_blank = err.loc[blank.to_numpy(), "category"].value_counts()
    kept = err[~blank.to_numpy()].assign(text=lambda f: f["text"].astype(str).str.strip())

    category_rows, cluster_frames = [], []
    for cat in CATEGORIES:
        sub = kept[kept["category"] == cat].sort_values(["text", "pair_id"], key=lambda s: s.astype(str))
        texts, pair_ids = sub["text"].tolist(), sub["pair_id"].tolist()
        distinct = sorted(set(texts))
        if distinct:
            # Embed each distinct text once; duplicates share a row (and count
            # towards cluster sizes, as in the paper's Figure 4).
            unique_emb = embed_texts(distinct, seed=seed, embedder=fn)
            emb = unique_emb[pd.Index(distinct).get_indexer(texts)]
            n_distinct = len(np.unique(np.round(unique_emb, 10), axis=0))
        else:
            emb, n_distinct = np.zeros((0, 1)), 0
        frame, k, sil, status, reps, largest = cluster_category(
            texts, pair_ids, emb, k_range, seed, n_distinct, n_representatives)
        if len(frame):
            cluster_frames.append(frame.assign(category=cat))
        category_rows.append({
            "category": cat,
            "label": CATEGORY_NAMES[cat],
            **stats[cat],
            "n_texts": len(texts),
            "n_distinct_texts": len(distinct),
            "n_blank": int(n_blank.get(cat, 0)),
            "k": k,
            "silhouette": sil,
            "largest_size": largest,
            "representatives": reps,
            "status": status,
        })
    categories = pd.DataFrame(category_rows, columns=list(CATEGORY_COLUMNS))
    categories["k"] = categories["k"].astype("Int64")
    categories["silhouette"] = categories["silhouette"].astype(float)
    clusters = (pd.concat(cluster_frames, ignore_index=True)[list(CLUSTER_COLUMNS)] if cluster_frames
                else pd.DataFrame(columns=list(CLUSTER_COLUMNS)))

    green_rows = sco[sco["metric"] == score_metric]
    if green_rows["pair_id"].duplicated().any():
        raise ValueError(f"scores: several {score_metric} values for one pair")
    green_values = pd.to_numeric(green_rows["value"], errors="raise").dropna()
    green_n = len(green_values)
    green_mean = float(green_values.mean()) if green_n else None
    green_std = float(green_values.std(ddof=ddof)) if green_n > ddof else None

    return Summary(
        judge=judge, system=system, significant=significant, categories=categories,
        clusters=clusters, green_mean=green_mean, green_std=green_std, green_n=green_n,
        n_reports=n_reports, seed=seed, embedding=embedding, k_range=k_range, ddof=ddof, notes=notes,
        score_metric=score_metric,
    )


def compare_systems(
    errors: pd.DataFrame,
    counts: pd.DataFrame,
    scores: pd.DataFrame,
    judge: str,
    systems: tuple[str, str] | Sequence[str],
    seed: int = 0,
    k_range: tuple[int, int] = (2, 8),
    embedder: Embedder | str | None = None,
    **kwargs,
) -> pd.DataFrame:
    """Side-by-side GREEN summaries of several candidate systems.

    Each system is summarised independently with :func:`green_summary` (same
    judge, seed and options).  The result is tidy: one row per (category,
    system), rows of the same category adjacent and systems in the order given,
    so ``table.pivot(index="category", columns="system", values=...)`` gives the
    wide view.  The GREEN header (``green_mean``, ``green_std``, ``green_n``)
    and ``n_reports`` are per system and repeated on that system's rows.

    Returns
    -------
    pandas.DataFrame
        Columns: ``category, label, system,`` the statistics of
        :data:`CATEGORY_COLUMNS` (less ``label``), then ``green_mean,
        green_std, green_n, score_metric, n_reports_system, embedding, seed``
        (``green_*`` hold the ``score_metric`` headline: the judge's own, :func:`headline_metric`, unless
        ``score_metric`` is given).
    """
    systems = list(systems)
    if len(systems) < 2 or len(set(systems)) != len(systems):
        raise ValueError(f"systems must name at least two different systems, got {systems}")
    kwargs.setdefault("score_metric", headline_metric(scores, judge))
    frames = []
    for order, name in enumerate(systems):
        s = green_summary(errors, counts, scores, judge, system=name, seed=seed, k_range=k_range,
                          embedder=embedder, **kwargs)
        frames.append(s.categories.assign(
            system=name, _order=order, green_mean=s.green_mean, green_std=s.green_std,
            green_n=s.green_n, score_metric=s.score_metric, n_reports_system=s.n_reports, embedding=s.embedding,
            seed=s.seed))
    table = pd.concat(frames, ignore_index=True)
    table["_cat"] = table["category"].map({c: i for i, c in enumerate(CATEGORIES)})
    table = table.sort_values(["_cat", "_order"], kind="stable").drop(columns=["_cat", "_order"])
    front = ["category", "label", "system"]
    return table[front + [c for c in table.columns if c not in front]].reset_index(drop=True)


# -- JSON -------------------------------------------------------------------


def _jsonable(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is pd.NA or value is None:
        return None
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _jsonable(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]
