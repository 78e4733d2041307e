"""Clinician ratings given in the dashboard: queues, ratings with history, agreement.

Tables (migration 003): ``rating_queues`` + ``rating_queue_pairs`` (which pairs
raters see, in which order, and how they were chosen), ``ratings`` (append-only:
every save is a new revision of a (pair, rater); the highest revision is the
rating) and ``adjudications`` (append-only too, latest per (pair, field) wins).

Each save is one short write transaction that also mirrors the rater's latest
non-skipped revision into ``annotations`` (annotator ``rater:<name>``, source
``radjudge-annotate``: a 0-5 ``score`` with ``scale_max`` 5 and/or twelve
``error_count`` rows, category a-f x significant/insignificant), so every
analysis sees the ratings as expert annotations. Since DuckDB admits one
writing process at a time (``core/store/db.py``), the revision number computed
inside the transaction cannot be taken twice: concurrent raters lose nothing.

"Judges disagree most" (:func:`judge_disagreement`): each judge run of the
dataset contributes one headline metric (the first of :data:`HEADLINE_METRICS`
it has, else its first metric by name), oriented so that higher is better and
rank-normalised over the dataset's pairs to [0, 1] ((average rank - 1) / (n - 1)).
A pair's disagreement is the largest minus the smallest of these normalised
ranks over the runs that scored it (pairs scored by at least two runs).

Who sees what is decided here, where the ratings are read and written, by
:func:`core.access.allowed` on the caller's ``role`` (a required argument): a rating given in a
blinded queue (or in no queue) is read only by a role allowed ``read_blinded_ratings`` (researchers)
and by its own rater; adjudications are read and written by researchers only (an adjudicated value
changes the expert target); queues are blinded and unblinded by researchers only.
"""

from __future__ import annotations

import json
import re
import uuid

import numpy as np
import pandas as pd

from core.access import ADJUDICATE, MANAGE_QUEUES, READ_BLINDED_RATINGS, RESEARCHER, allowed, require
from core.store.db import Store
from core.taxonomy import CATEGORIES, FACETS

COUNT_FIELDS = tuple(f"sig_{c}" for c in CATEGORIES) + tuple(f"insig_{c}" for c in CATEGORIES)
#: Fields compared between raters: the overall score, the two totals, and each category.
FIELDS = ("score", "sig_errors", "total_errors", *COUNT_FIELDS)
SCORE_MAX = 5
SOURCE = "radjudge-annotate"
RATER_PREFIX = "rater:"
METHODS = ("filters", "sample", "disagree")
SCHEMES = ("score", "counts", "both")
HEADLINE_METRICS = ("vert", "green", "formula", "ec_sig", "ec_total", "green_f1", "rouge_l", "bleu4")
#: Disagreement list: raters differ by at least this much (score in points of 0-5, counts in errors).
MIN_SPREAD = {"score": 2.0}
_RATER_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,64}$")


def annotator_name(rater: str) -> str:
    """The ``annotations.annotator`` of a rater's ratings."""
    return RATER_PREFIX + rater


def clean_rater(rater: str | None) -> str:
    """A rater's name, stripped; refused (ValueError) when empty, too long or with control characters."""
    name = (rater or "").strip()
    if not _RATER_RE.match(name):
        raise ValueError("rater name must be 1-64 printable characters (name, initials or sign-in e-mail)")
    return name


# -- queues ---------------------------------------------------------------------


def _dataset_pairs(store: Store, dataset: str, filters: dict | None) -> pd.DataFrame:
    if not store.query_one("SELECT count(*) FROM datasets WHERE name = ?", [dataset]):
        raise ValueError(f"dataset '{dataset}' not found")
    pairs = store.query_df("SELECT pair_id, ext_id, modality, anatomy, system, split FROM pairs "
                           "WHERE dataset = ? ORDER BY ext_id, pair_id", [dataset])
    for facet, wanted in (filters or {}).items():
        if facet not in FACETS:
            raise ValueError(f"cannot filter on '{facet}'; facets are: {', '.join(FACETS)}")
        if wanted:
            pairs = pairs[pairs[facet].astype(str).isin([str(v) for v in wanted])]
    return pairs.reset_index(drop=True)


def judge_disagreement(store: Store, dataset: str) -> pd.DataFrame:
    """Per pair: ``spread`` of rank-normalised judge scores (module docstring) and ``n_runs``, largest first."""
    from core.analysis.scores import METRICS, orientation_sign
    from core.reads.frames import judge_values

    values = judge_values(store, dataset).dropna(subset=["value"])
    parts = []
    for run_id, run in values.groupby("run_id"):
        have = set(run["metric"])
        metric = next((m for m in HEADLINE_METRICS if m in have), min(have))
        v = run[run["metric"] == metric].drop_duplicates("pair_id")
        sign = orientation_sign(metric) if metric in METRICS else 1
        if len(v) < 2:
            continue
        rank = (v["value"] * sign).rank(method="average")
        parts.append(pd.DataFrame({"pair_id": v["pair_id"], "run_id": run_id,
                                   "norm": (rank - 1) / (len(v) - 1)}))
    if len(parts) < 2:
        raise ValueError(f"'judges disagree most' needs at least two judge runs on '{dataset}'; "
                         "run judges first (Run judges page or `python -m core judge`)")
    long = pd.concat(parts, ignore_index=True)
    g = long.groupby("pair_id")["norm"]
    out = pd.DataFrame({"spread": g.max() - g.min(), "n_runs": g.size()}).reset_index()
    out = out[out["n_runs"] >= 2]
    return out.sort_values(["spread", "pair_id"], ascending=[False, True], ignore_index=True)


def create_queue(store: Store, dataset: str, name: str, method: str = "filters", *, filters: dict | None = None,
                 n: int | None = None, seed: int = 0, scheme: str = "both", blinded: bool = True,
                 created_by: str | None = None, role: str | None) -> str:
    """Create a rating queue and return its id (researchers only: :class:`core.access.NotAllowed` otherwise).

    ``filters``: all pairs matching the facet filters (ordered by ext_id; at
    most ``n`` when given). ``sample``: a seeded random sample of ``n`` of them
    (numpy ``default_rng(seed)``, in sampled order). ``disagree``: the ``n``
    pairs on which the judges disagree most (:func:`judge_disagreement`).
    """
    require(role, MANAGE_QUEUES)
    name = (name or "").strip()
    if not name:
        raise ValueError("give the queue a name")  # names are unique per dataset (case and spaces aside)
    if method not in METHODS:
        raise ValueError(f"method '{method}' unknown; methods are: {', '.join(METHODS)}")
    if scheme not in SCHEMES:
        raise ValueError(f"scheme '{scheme}' unknown; schemes are: {', '.join(SCHEMES)}")
    if n is not None and int(n) < 1:
        raise ValueError("the number of pairs must be at least 1")
    pairs = _dataset_pairs(store, dataset, filters)
    params: dict = {"filters": {k: list(v) for k, v in (filters or {}).items() if v}, "n": n}
    ids = pairs["pair_id"].tolist()
    if method == "sample":
        if n is None:
            raise ValueError("a seeded sample needs its size n")
        rng = np.random.default_rng(int(seed))
        ids = [ids[i] for i in rng.choice(len(ids), size=min(int(n), len(ids)), replace=False)]
        params["seed"] = int(seed)
    elif method == "disagree":
        ranked = judge_disagreement(store, dataset)
        ranked = ranked[ranked["pair_id"].isin(set(ids))]
        ids = ranked["pair_id"].tolist()[: int(n or 50)]
        params["definition"] = ("max - min over judge runs of the run's headline metric, oriented higher=better, "
                                "rank-normalised to [0, 1] over the dataset")
        params["n"] = int(n or 50)
    elif n is not None:
        ids = ids[: int(n)]
    if not ids:
        raise ValueError(f"no pairs of '{dataset}' match; loosen the filters")
    queue_id = uuid.uuid4().hex[:12]
    with store.write() as conn:  # the name check inside the write: two clicks cannot both pass it
        taken = conn.execute("SELECT name FROM rating_queues WHERE dataset = ? AND lower(trim(name)) = lower(?)",
                             [dataset, name]).fetchone()
        if taken is not None:
            raise ValueError(f"a queue named '{taken[0]}' already exists on '{dataset}'; choose another name")
        conn.execute("INSERT INTO rating_queues (queue_id, name, dataset, method, params, scheme, blinded, "
                     "created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [queue_id, name, dataset, method, json.dumps(params), scheme, bool(blinded), created_by])
        frame = pd.DataFrame({"queue_id": queue_id, "position": np.arange(len(ids), dtype="int32"),
                              "pair_id": ids})
        conn.register("queue_frame", frame)
        conn.execute("INSERT INTO rating_queue_pairs BY NAME SELECT * FROM queue_frame")
        conn.unregister("queue_frame")
    return queue_id


def list_queues(store: Store, dataset: str | None = None) -> pd.DataFrame:
    """Queues (newest first) with their pair count: queue_id, name, dataset, method, params, scheme, blinded, ..."""
    return store.query_df(
        "SELECT q.*, (SELECT count(*) FROM rating_queue_pairs p WHERE p.queue_id = q.queue_id) AS n_pairs "
        "FROM rating_queues q WHERE ? IS NULL OR q.dataset = ? ORDER BY q.created_at DESC, q.queue_id",
        [dataset, dataset])


def get_queue(store: Store, queue_id: str) -> dict:
    queues = store.query_df("SELECT * FROM rating_queues WHERE queue_id = ?", [queue_id])
    if queues.empty:
        raise ValueError(f"no rating queue '{queue_id}'")
    row = queues.iloc[0].to_dict()
    row["params"] = json.loads(row["params"])
    row["pair_ids"] = queue_pair_ids(store, queue_id)
    return row


def queue_pair_ids(store: Store, queue_id: str) -> list[str]:
    return store.query_df("SELECT pair_id FROM rating_queue_pairs WHERE queue_id = ? ORDER BY position",
                          [queue_id])["pair_id"].tolist()


def set_blinded(store: Store, queue_id: str, blinded: bool, *, role: str | None) -> None:
    """Blind or unblind a queue (a researcher's choice; ratings are unaffected)."""
    require(role, MANAGE_QUEUES)
    store.execute("UPDATE rating_queues SET blinded = ? WHERE queue_id = ?", [bool(blinded), queue_id])


# -- ratings --------------------------------------------------------------------


def _check(score: float | None, counts: dict | None, skipped: bool) -> tuple[float | None, dict]:
    if score is not None:
        score = float(score)
        if not 0 <= score <= SCORE_MAX:
            raise ValueError(f"score {score:g} outside 0-{SCORE_MAX}")
    clean = {}
    for key, value in (counts or {}).items():
        if key not in COUNT_FIELDS:
            raise ValueError(f"count '{key}' unknown; counts are: {', '.join(COUNT_FIELDS)}")
        if value is None or int(value) != value or not 0 <= int(value) <= 99:
            raise ValueError(f"count {key}={value!r}: give a whole number of errors 0-99")
        clean[key] = int(value)
    if clean:
        clean = {k: clean.get(k, 0) for k in COUNT_FIELDS}
    if not skipped and score is None and not clean:
        raise ValueError("give an overall score or error counts (or skip the pair)")
    return score, clean


def _sync_annotations(conn, pair_id: str, rater: str) -> None:
    """Mirror the rater's latest non-skipped revision of the pair into ``annotations``."""
    annotator = annotator_name(rater)
    conn.execute("DELETE FROM annotations WHERE pair_id = ? AND annotator = ? AND source = ?",
                 [pair_id, annotator, SOURCE])
    cols = ", ".join(COUNT_FIELDS)
    row = conn.execute(f"SELECT score, {cols} FROM ratings WHERE pair_id = ? AND rater = ? AND NOT skipped "
                       "ORDER BY revision DESC LIMIT 1", [pair_id, rater]).fetchone()
    if row is None:
        return
    score, counts = row[0], row[1:]
    if score is not None:
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, value, scale_max, source) "
                     "VALUES (?, ?, 'score', ?, ?, ?)", [pair_id, annotator, score, SCORE_MAX, SOURCE])
    if counts[0] is not None:
        for field, value in zip(COUNT_FIELDS, counts, strict=True):
            sig, cat = field.split("_")
            conn.execute("INSERT INTO annotations (pair_id, annotator, field, category, significant, value, "
                         "source) VALUES (?, ?, 'error_count', ?, ?, ?, ?)",
                         [pair_id, annotator, cat, sig == "sig", value, SOURCE])


def save_rating(store: Store, pair_id: str, rater: str, *, score: float | None = None,
                counts: dict[str, int] | None = None, note: str | None = None, queue_id: str | None = None,
                skipped: bool = False) -> int:
    """Append a revision of ``rater``'s rating of a pair (one transaction) and return its number.

    ``counts`` maps ``sig_a`` .. ``insig_f`` to whole numbers (missing keys are
    0). ``skipped=True`` records that the rater passed over the pair; a skip
    never hides an earlier rating (the annotations keep the latest real one).
    """
    rater = clean_rater(rater)
    score, clean = _check(score, counts, skipped)
    if skipped:
        score, clean = None, {}
    note = (note or "").strip() or None
    with store.write() as conn:
        found = conn.execute("SELECT content_hash FROM pairs WHERE pair_id = ?", [pair_id]).fetchone()
        if found is None:
            raise ValueError(f"pair '{pair_id}' not found (was its dataset deleted?)")
        revision = conn.execute("SELECT coalesce(max(revision), 0) + 1 FROM ratings WHERE pair_id = ? AND rater = ?",
                                [pair_id, rater]).fetchone()[0]
        cols = ", ".join(COUNT_FIELDS)
        conn.execute(f"INSERT INTO ratings (pair_id, rater, revision, queue_id, content_hash, skipped, score, "
                     f"{cols}, note) VALUES ({', '.join('?' * (8 + len(COUNT_FIELDS)))})",
                     [pair_id, rater, revision, queue_id, found[0], bool(skipped), score,
                      *[clean.get(f) for f in COUNT_FIELDS], note])
        _sync_annotations(conn, pair_id, rater)
    return int(revision)


def _visible(role: str | None, reader: str | None) -> tuple[str, list]:
    """The SQL condition (and its parameters) on rating ``r`` for ``role``: everything for a role
    allowed ``read_blinded_ratings``; else ratings given in an unblinded queue and the ``reader``'s own
    (``rater = NULL`` is never true: no reader, no own ratings)."""
    if allowed(role, READ_BLINDED_RATINGS):
        return "TRUE", []
    return "(r.queue_id IN (SELECT queue_id FROM rating_queues WHERE NOT blinded) OR r.rater = ?)", [reader]


def history(store: Store, pair_id: str, rater: str | None = None, *, role: str | None,
            reader: str | None = None) -> pd.DataFrame:
    """Every revision of a pair's ratings (one rater's, or everyone's) that ``role`` may read (the
    ``reader``'s own always), newest first."""
    visible, params = _visible(role, reader)
    return store.query_df(f"SELECT * FROM ratings r WHERE pair_id = ? AND (? IS NULL OR rater = ?) "
                          f"AND {visible} ORDER BY rater, revision DESC", [pair_id, rater, rater, *params])


def latest_ratings(store: Store, dataset: str, queue_id: str | None = None, *, role: str | None,
                   include_skipped: bool = False, reader: str | None = None) -> pd.DataFrame:
    """The current rating per (pair, rater) of a dataset (optionally only the pairs of one queue), of
    those ``role`` may read: all for a researcher; else only current ratings given in an unblinded
    queue (and the ``reader``'s own). The current rating is chosen first, then hidden if blinded: an
    older, unblinded revision never stands in for it."""
    visible, params = _visible(role, reader)
    df = store.query_df(
        "SELECT * FROM (SELECT r.*, p.ext_id, p.content_hash <> r.content_hash AS text_changed FROM ratings r "
        "JOIN pairs p USING (pair_id) WHERE p.dataset = ? "
        "AND (? IS NULL OR r.pair_id IN (SELECT pair_id FROM rating_queue_pairs WHERE queue_id = ?)) "
        "AND (? OR NOT r.skipped) "
        "QUALIFY r.revision = max(r.revision) OVER (PARTITION BY r.pair_id, r.rater, r.skipped)) r "
        f"WHERE {visible} ORDER BY r.ext_id, r.rater", [dataset, queue_id, queue_id, include_skipped, *params])
    if include_skipped:  # the newest revision per (pair, rater), skip or not
        df = df.sort_values("revision").drop_duplicates(["pair_id", "rater"], keep="last")
    return df.sort_values(["ext_id", "rater"], ignore_index=True)


def rater_status(store: Store, queue_id: str, rater: str) -> pd.DataFrame:
    """The queue in order with this rater's state per pair: position, pair_id, status (rated/skipped/todo)."""
    return store.query_df(
        "WITH r AS (SELECT pair_id, bool_or(NOT skipped) AS rated, count(*) AS n FROM ratings "
        "WHERE rater = ? GROUP BY pair_id) "
        "SELECT q.position, q.pair_id, CASE WHEN r.rated THEN 'rated' WHEN r.n > 0 THEN 'skipped' ELSE 'todo' END "
        "AS status FROM rating_queue_pairs q LEFT JOIN r USING (pair_id) WHERE q.queue_id = ? ORDER BY q.position",
        [rater, queue_id])


def next_pair(store: Store, queue_id: str, rater: str) -> str | None:
    """The first pair the rater has not seen, else the first one they skipped, else None (all rated)."""
    status = rater_status(store, queue_id, rater)
    for wanted in ("todo", "skipped"):
        hit = status[status["status"] == wanted]
        if len(hit):
            return str(hit.iloc[0]["pair_id"])
    return None


def progress(store: Store, queue_id: str) -> pd.DataFrame:
    """Per rater: n (queue size), rated, skipped, todo."""
    n = len(queue_pair_ids(store, queue_id))
    df = store.query_df(
        "WITH r AS (SELECT rater, pair_id, bool_or(NOT skipped) AS rated FROM ratings WHERE pair_id IN "
        "(SELECT pair_id FROM rating_queue_pairs WHERE queue_id = ?) GROUP BY rater, pair_id) "
        "SELECT rater, count(*) FILTER (WHERE rated) AS rated, count(*) FILTER (WHERE NOT rated) AS skipped "
        "FROM r GROUP BY rater ORDER BY rater", [queue_id])
    df.insert(1, "n", n)
    df["todo"] = n - df["rated"] - df["skipped"]
    return df.astype({"n": "int64", "rated": "int64", "skipped": "int64", "todo": "int64"})


# -- agreement --------------------------------------------------------------------


def rating_values(store: Store, dataset: str, queue_id: str | None = None, *, role: str | None) -> pd.DataFrame:
    """Long: pair_id, ext_id, rater, field, value for each current rating ``role`` may read
    (:func:`latest_ratings`; score 0-5, integer counts)."""
    latest = latest_ratings(store, dataset, queue_id, role=role)
    parts = [latest[["pair_id", "ext_id", "rater", "score"]].rename(columns={"score": "value"}).assign(field="score")]
    counted = latest[latest["sig_a"].notna()].copy()
    counted["sig_errors"] = counted[[f"sig_{c}" for c in CATEGORIES]].sum(axis=1)
    counted["total_errors"] = counted[list(COUNT_FIELDS)].sum(axis=1)
    for field in FIELDS[1:]:
        parts.append(counted[["pair_id", "ext_id", "rater", field]].rename(columns={field: "value"})
                     .assign(field=field))
    out = pd.concat(parts, ignore_index=True).dropna(subset=["value"])
    return out[["pair_id", "ext_id", "rater", "field", "value"]].astype({"value": float})


def agreement(store: Store, dataset: str, queue_id: str | None = None, *,
              role: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Agreement between raters per field over the ratings ``role`` may read: (summary, pairwise).

    summary: field, method, alpha, n_units (pairs rated by two or more), n_raters, mean_tau.
    pairwise: field, rater_a, rater_b, n, tau, p (Kendall tau-b). Krippendorff's
    alpha is ordinal for the 0-5 score (an ordered rating scale) and ratio for
    error counts (as ``python -m core agreement``), via :func:`core.analysis.stats.inter_annotator`.
    """
    from core.analysis.stats import inter_annotator

    values = rating_values(store, dataset, queue_id, role=role)
    rows, pairwise = [], []
    for field in FIELDS:
        v = values[values["field"] == field]
        if v["rater"].nunique() < 2:
            continue
        method = "ordinal" if field == "score" else "ratio"
        res = inter_annotator(v.rename(columns={"rater": "annotator"}), method=method)
        rows.append({"field": field, "method": method, "alpha": res.alpha, "n_units": res.n_units,
                     "n_raters": res.n_annotators, "mean_tau": res.mean_tau})
        pw = res.pairwise.rename(columns={"annotator_a": "rater_a", "annotator_b": "rater_b"})
        pairwise.append(pw[["rater_a", "rater_b", "n", "tau", "p"]].assign(field=field))
    summary = pd.DataFrame(rows, columns=["field", "method", "alpha", "n_units", "n_raters", "mean_tau"])
    pw_cols = ["field", "rater_a", "rater_b", "n", "tau", "p"]
    pairwise_df = pd.concat(pairwise, ignore_index=True)[pw_cols] if pairwise else pd.DataFrame(columns=pw_cols)
    return summary, pairwise_df


def disagreements(store: Store, dataset: str, queue_id: str | None = None, *, role: str | None) -> pd.DataFrame:
    """Pairs and fields where raters differ by at least :data:`MIN_SPREAD` (1 for counts), largest first,
    among the ratings ``role`` may read (the ``adjudicated`` column empty for a role that may not read
    adjudications).

    Columns: pair_id, ext_id, field, n_raters, spread, values (``rater=value; ...``), adjudicated.
    """
    values = rating_values(store, dataset, queue_id, role=role)
    cols = ["pair_id", "ext_id", "field", "n_raters", "spread", "values", "adjudicated"]
    if values.empty:
        return pd.DataFrame(columns=cols)
    g = values.groupby(["pair_id", "ext_id", "field"], sort=False)
    out = g["value"].agg(n_raters="size", spread=lambda s: s.max() - s.min()).reset_index()
    out["values"] = g.apply(lambda d: "; ".join(f"{r}={v:g}" for r, v in zip(d["rater"], d["value"], strict=True)),
                            include_groups=False).to_numpy()
    threshold = out["field"].map(MIN_SPREAD).fillna(1.0)
    out = out[(out["n_raters"] >= 2) & (out["spread"] >= threshold)]
    adj = adjudicated_values(store, dataset, role=role)[["pair_id", "field", "value"]].rename(columns={"value": "adjudicated"})
    out = out.merge(adj, on=["pair_id", "field"], how="left")
    order = {f: i for i, f in enumerate(FIELDS)}
    out = out.assign(_o=out["field"].map(order)).sort_values(["spread", "ext_id", "_o"], ascending=[False, True, True])
    return out[cols].reset_index(drop=True)


def adjudicate(store: Store, pair_id: str, field: str, value: float, adjudicator: str,
               note: str | None = None, *, role: str | None) -> int:
    """Record the adjudicated value of one field of a pair (append-only); returns the revision.

    Researchers only (:func:`core.access.require`; NotAllowed for any other ``role``): the value
    becomes the expert target."""
    require(role, ADJUDICATE)
    adjudicator = clean_rater(adjudicator)
    if field not in FIELDS:
        raise ValueError(f"field '{field}' unknown; fields are: {', '.join(FIELDS)}")
    value = float(value)
    if field == "score" and not 0 <= value <= SCORE_MAX:
        raise ValueError(f"score {value:g} outside 0-{SCORE_MAX}")
    if field != "score" and (value < 0 or value != int(value)):
        raise ValueError(f"{field}: give a whole number of errors, not {value:g}")
    with store.write() as conn:
        if conn.execute("SELECT count(*) FROM pairs WHERE pair_id = ?", [pair_id]).fetchone()[0] == 0:
            raise ValueError(f"pair '{pair_id}' not found")
        revision = conn.execute("SELECT coalesce(max(revision), 0) + 1 FROM adjudications WHERE pair_id = ? "
                                "AND field = ?", [pair_id, field]).fetchone()[0]
        conn.execute("INSERT INTO adjudications (pair_id, field, revision, value, adjudicator, note) "
                     "VALUES (?, ?, ?, ?, ?, ?)", [pair_id, field, revision, value, adjudicator,
                                                    (note or "").strip() or None])
    return int(revision)


def adjudicated_values(store: Store, dataset: str, *, role: str | None) -> pd.DataFrame:
    """The latest adjudicated value per (pair, field): pair_id, ext_id, field, value, adjudicator, note, created_at
    (no rows for a role that may not read adjudications: they settle blinded ratings)."""
    return store.query_df(
        "SELECT a.pair_id, p.ext_id, a.field, a.value, a.adjudicator, a.note, a.created_at, a.revision "
        "FROM adjudications a JOIN pairs p USING (pair_id) WHERE p.dataset = ? AND ? "
        "QUALIFY a.revision = max(a.revision) OVER (PARTITION BY a.pair_id, a.field) ORDER BY p.ext_id, a.field",
        [dataset, allowed(role, READ_BLINDED_RATINGS)])


# -- expert targets ----------------------------------------------------------------


def expert_annotators(store: Store, dataset: str, *, role: str | None) -> dict[str, list[str]]:
    """The dataset's annotators split into ``clinicians`` (ratings given here) and ``imported`` (all others).

    For a ``role`` not allowed ``read_blinded_ratings``, ``clinicians`` keeps only the raters none of whose
    current ratings on the dataset was given in a blinded queue (or in none): a per-pair expert target
    made of the others would show their blinded ratings pair by pair. Those left out are ``hidden``.
    """
    names = store.query_df("SELECT DISTINCT a.annotator FROM annotations a JOIN pairs p USING (pair_id) "
                           "WHERE p.dataset = ? ORDER BY 1", [dataset])["annotator"].tolist()
    clinicians = [a for a in names if a.startswith(RATER_PREFIX)]
    hidden: list[str] = []
    if clinicians and not allowed(role, READ_BLINDED_RATINGS):
        current = latest_ratings(store, dataset, role=role)  # what such a role may read, per (pair, rater)
        every = latest_ratings(store, dataset, role=RESEARCHER)  # only the names of the hidden leave here
        seen = set(zip(current["pair_id"], current["rater"], strict=True))
        hidden = sorted({annotator_name(r) for p, r in zip(every["pair_id"], every["rater"], strict=True)
                         if (p, r) not in seen})
        clinicians = [a for a in clinicians if a not in hidden]
    return {"clinicians": clinicians, "imported": [a for a in names if not a.startswith(RATER_PREFIX)],
            "hidden": hidden}


def pair_judge_values(store: Store, pair_id: str) -> pd.DataFrame:
    """The judges' metric values of one pair (shown to raters only when a queue is unblinded)."""
    return store.query_df(
        "SELECT r.judge_name AS judge, r.model, r.prompt_id, m.metric, m.value FROM metric_values m "
        "JOIN judge_runs r USING (run_id) WHERE m.pair_id = ? ORDER BY r.judge_name, r.model, m.metric", [pair_id])
