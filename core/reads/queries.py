"""Read-only queries behind the Data page and the CLI listing commands.

Every function takes a :class:`core.store.db.Store`, runs parameterized SQL
through one short read-only connection and returns plain Python or a tidy
DataFrame. Nothing here writes, and nothing imports streamlit: the pages
cache these results themselves (keyed on ``store.data_version()``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import pandas as pd

from core.access import READ_BLINDED_RATINGS, allowed
from core.reads.context import context_dict
from core.store.db import Store
from core.taxonomy import CATEGORY_NAMES, FACETS

__all__ = [
    "CATEGORY_NAMES",
    "FACETS",
    "PAIR_COLUMNS",
    "annotation_summary",
    "counts_by_category",
    "escape_like",
    "facet_values",
    "find_pairs",
    "get_pair",
    "list_datasets",
    "pair_annotations",
]

# Pair columns a user can filter on. Fixed names: the only identifiers that
# ever reach SQL text, so no user input is spliced into a statement.

# Columns find_pairs returns, in display order.
PAIR_COLUMNS: tuple[str, ...] = (
    "pair_id",
    "ext_id",
    "group_id",
    "system",
    "modality",
    "anatomy",
    "split",
    "reference",
    "candidate",
)


def list_datasets(store: Store) -> pd.DataFrame:
    """One row per dataset with its size, sorted by name.

    Columns: name, kind, source, synthetic, version, pairs, modalities,
    annotators, annotations, runs, created_at. Counts are 0 (not missing)
    for a dataset with nothing in it yet.
    """
    df = store.query_df(
        """
        SELECT d.name, d.kind, d.source, d.synthetic, d.version,
               coalesce(p.pairs, 0)        AS pairs,
               coalesce(p.modalities, 0)   AS modalities,
               coalesce(a.annotators, 0)   AS annotators,
               coalesce(a.annotations, 0)  AS annotations,
               coalesce(r.runs, 0)         AS runs,
               d.created_at
        FROM datasets d
        LEFT JOIN (
            SELECT dataset, count(*) AS pairs, count(DISTINCT modality) AS modalities
            FROM pairs GROUP BY dataset
        ) p ON p.dataset = d.name
        LEFT JOIN (
            SELECT p.dataset, count(DISTINCT a.annotator) AS annotators, count(*) AS annotations
            FROM annotations a JOIN pairs p ON p.pair_id = a.pair_id
            GROUP BY p.dataset
        ) a ON a.dataset = d.name
        LEFT JOIN (
            SELECT dataset, count(*) AS runs FROM judge_runs GROUP BY dataset
        ) r ON r.dataset = d.name
        ORDER BY d.name
        """
    )
    for col in ("pairs", "modalities", "annotators", "annotations", "runs"):
        df[col] = df[col].astype("int64")
    df["synthetic"] = df["synthetic"].astype(bool)
    return df


def facet_values(store: Store, dataset: str) -> dict[str, list[str]]:
    """Distinct non-null values of each facet (modality, anatomy, system, split), sorted."""
    out: dict[str, list[str]] = {}
    with store.read() as conn:
        for facet in FACETS:
            rows = conn.execute(
                f"SELECT DISTINCT {facet} FROM pairs "
                f"WHERE dataset = ? AND {facet} IS NOT NULL ORDER BY 1",
                [dataset],
            ).fetchall()
            out[facet] = [str(r[0]) for r in rows]
    return out


def _as_list(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def escape_like(text: str) -> str:
    """Escape LIKE wildcards so the user's text matches literally (escape char ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _pair_filter(
    dataset: str,
    facets: dict[str, str | Sequence[str] | None],
    text: str | None,
) -> tuple[str, list]:
    clauses = ["dataset = ?"]
    params: list = [dataset]
    for facet in FACETS:
        values = _as_list(facets.get(facet))
        # An empty selection means "no filter", the way an empty multiselect reads.
        if values:
            clauses.append(f"{facet} IN ({', '.join('?' * len(values))})")
            params.extend(values)
    needle = (text or "").strip()
    if needle:
        pattern = f"%{escape_like(needle)}%"
        clauses.append(
            "(reference ILIKE ? ESCAPE '\\' OR candidate ILIKE ? ESCAPE '\\' OR ext_id ILIKE ? ESCAPE '\\')"
        )
        params.extend([pattern, pattern, pattern])
    return " AND ".join(clauses), params


def find_pairs(
    store: Store,
    dataset: str,
    *,
    modality: str | Sequence[str] | None = None,
    anatomy: str | Sequence[str] | None = None,
    system: str | Sequence[str] | None = None,
    split: str | Sequence[str] | None = None,
    text: str | None = None,
    limit: int = 200,
    offset: int = 0,
) -> tuple[pd.DataFrame, int]:
    """One page of a dataset's pairs matching the filters, and the total match count.

    Parameters
    ----------
    modality, anatomy, system, split
        A value or a list of values (matched with IN); None or an empty list
        means no filter on that column.
    text
        Case-insensitive substring searched in reference, candidate and
        ext_id. ``%`` and ``_`` match themselves, not as wildcards.
    limit, offset
        The page: rows ``offset .. offset + limit - 1`` in import order.

    Returns
    -------
    (DataFrame, int)
        Columns ``PAIR_COLUMNS`` plus ``annotators`` (distinct annotators of
        the pair); the int counts every matching pair, not just this page.
    """
    if limit < 0 or offset < 0:
        raise ValueError(f"limit and offset must be >= 0, got limit={limit}, offset={offset}")
    where, params = _pair_filter(
        dataset,
        {"modality": modality, "anatomy": anatomy, "system": system, "split": split},
        text,
    )
    cols = ", ".join(f"p.{c}" for c in PAIR_COLUMNS)
    with store.read() as conn:
        total = int(conn.execute(f"SELECT count(*) FROM pairs WHERE {where}", params).fetchone()[0])
        # Page first, then count annotators of those pairs only: the cost stays
        # one page's worth however large the annotations table grows.
        # rowid order = the order rows were imported in, i.e. the user's file order.
        df = conn.execute(
            f"""
            WITH page AS (
                SELECT rowid AS _row, * FROM pairs WHERE {where}
                ORDER BY rowid LIMIT ? OFFSET ?
            ),
            counted AS (
                SELECT pair_id, count(DISTINCT annotator) AS annotators FROM annotations
                WHERE pair_id IN (SELECT pair_id FROM page) GROUP BY pair_id
            )
            SELECT {cols}, coalesce(c.annotators, 0) AS annotators
            FROM page p LEFT JOIN counted c ON c.pair_id = p.pair_id
            ORDER BY p._row
            """,
            [*params, int(limit), int(offset)],
        ).df()
    df["annotators"] = df["annotators"].astype("int64")
    return df, total


def get_pair(store: Store, pair_id: str) -> dict | None:
    """One pair with its dataset's kind and synthetic flag, or None if unknown.

    ``meta`` is decoded from JSON into a dict (an empty dict when absent; the
    raw text under ``{"raw": ...}`` if it is not valid JSON). ``age``, ``sex``, ``indication`` and
    ``history`` are the stored patient context (None when unknown); ``context`` holds those with text.
    """
    with store.read() as conn:
        cur = conn.execute(
            """
            SELECT p.pair_id, p.dataset, p.ext_id, p.reference, p.candidate, p.group_id,
                   p.system, p.modality, p.anatomy, p.split, p.meta, p.content_hash,
                   p.age, p.sex, p.indication, p.history,
                   d.kind, coalesce(d.synthetic, FALSE) AS synthetic
            FROM pairs p LEFT JOIN datasets d ON d.name = p.dataset
            WHERE p.pair_id = ?
            """,
            [pair_id],
        )
        row = cur.fetchone()
        names = [c[0] for c in cur.description]
    if row is None:
        return None
    pair = dict(zip(names, row, strict=True))
    raw = pair.get("meta")
    if not raw:
        pair["meta"] = {}
    else:
        try:
            decoded = json.loads(raw)
            pair["meta"] = decoded if isinstance(decoded, dict) else {"value": decoded}
        except (TypeError, ValueError):
            pair["meta"] = {"raw": raw}
    pair["synthetic"] = bool(pair["synthetic"])
    pair["context"] = context_dict(pair)  # the patient context fields that hold text (migration 009)
    return pair


#: A clinician rating's mirror in ``annotations`` (core/reads/ratings.py) whose rating a role not allowed
#: ``read_blinded_ratings`` may not read: its rater's current rating of the pair was not given in an
#: unblinded queue. Parameters: the pair.
_BLINDED_MIRROR = """source = 'radjudge-annotate' AND annotator NOT IN (
    SELECT 'rater:' || r.rater FROM ratings r WHERE r.pair_id = ? AND NOT r.skipped
    QUALIFY r.revision = max(r.revision) OVER (PARTITION BY r.rater)
        AND r.queue_id IN (SELECT queue_id FROM rating_queues WHERE NOT blinded))"""


def pair_annotations(store: Store, pair_id: str, *, role: str | None) -> pd.DataFrame:
    """Every annotation row of one pair (long form) ``role`` may read, ordered for reading: a clinician's
    rating given in a blinded queue only for a role allowed ``read_blinded_ratings`` (core.access).

    Columns: annotator, field, category, significant, value, scale_max, source, created_at. A score is
    on its rater's own scale (a 1-5 rating of 4 is 4 of 5: stored from 0 with its ``scale_min``,
    migration 008).
    """
    return store.query_df(
        """
        SELECT annotator, field, category, significant,
               value + CASE WHEN field = 'score' THEN coalesce(scale_min, 0) ELSE 0 END AS value,
               scale_max + CASE WHEN field = 'score' THEN coalesce(scale_min, 0) ELSE 0 END AS scale_max,
               source, created_at
        FROM annotations
        WHERE pair_id = ? AND (? OR NOT ({_BLINDED_MIRROR}))
        ORDER BY annotator, field, category NULLS FIRST, significant DESC NULLS FIRST
        """.replace("{_BLINDED_MIRROR}", _BLINDED_MIRROR),
        [pair_id, allowed(role, READ_BLINDED_RATINGS), pair_id],
    )


def annotation_summary(store: Store, pair_id: str, *, role: str | None) -> pd.DataFrame:
    """One row per annotator: overall score and error counts per category.

    Columns: annotator, score, scale_max, then ``sig_a .. sig_f``,
    ``insig_a .. insig_f``, ``sig_total``, ``insig_total``. Counts are 0 for
    a category an annotator counted nothing in, and NaN for an annotator who
    gave no error counts at all (a score-only annotator did not say "0
    errors"). ``score`` is NaN for an annotator who gave no score; several
    score rows from one annotator are averaged.
    """
    long = pair_annotations(store, pair_id, role=role)
    count_cols = [f"{kind}_{c}" for kind in ("sig", "insig") for c in CATEGORY_NAMES]
    columns = ["annotator", "score", "scale_max", *count_cols, "sig_total", "insig_total"]
    if long.empty:
        return pd.DataFrame({c: pd.Series(dtype="float64") for c in columns}).astype({"annotator": "str"})

    rows = []
    for annotator, part in long.groupby("annotator", sort=True):
        scores = part[part["field"] == "score"]
        counts = part[(part["field"] == "error_count") & part["category"].notna()]
        row: dict = {
            "annotator": annotator,
            "score": float(scores["value"].mean()) if len(scores) else float("nan"),
            "scale_max": float(scores["scale_max"].max()) if len(scores) else float("nan"),
        }
        has_counts = len(counts) > 0
        for kind, flag in (("sig", True), ("insig", False)):
            sel = counts[counts["significant"].fillna(False).astype(bool) == flag]
            per_cat = sel.groupby("category")["value"].sum()
            for c in CATEGORY_NAMES:
                row[f"{kind}_{c}"] = float(per_cat.get(c, 0.0)) if has_counts else float("nan")
            row[f"{kind}_total"] = float(sel["value"].sum()) if has_counts else float("nan")
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def counts_by_category(summary: pd.DataFrame) -> pd.DataFrame:
    """Reshape :func:`annotation_summary` for reading: one row per error category.

    Columns: ``category`` (a-f), ``error type`` (its name), then for every
    annotator who gave counts ``"<annotator> sig"`` and ``"<annotator> insig"``;
    a last row ``total`` sums each column. Annotators without counts (score
    only) get no columns.
    """
    table = pd.DataFrame(
        {"category": list(CATEGORY_NAMES), "error type": list(CATEGORY_NAMES.values())}
    )
    total = {"category": "total", "error type": "all categories"}
    for _, row in summary.iterrows():
        if pd.isna(row["sig_total"]):
            continue
        for kind in ("sig", "insig"):
            col = f"{row['annotator']} {kind}"
            table[col] = [row[f"{kind}_{c}"] for c in CATEGORY_NAMES]
            total[col] = row[f"{kind}_total"]
    return pd.concat([table, pd.DataFrame([total])], ignore_index=True)
