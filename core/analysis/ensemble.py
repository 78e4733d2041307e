"""Ensembles of judges, evaluated on held-out pairs (VERT Table 5).

VERT (``seeds/vert-llm-judges-radiology.txt``) Section 4.1.2 combines the
scores of several LLM judges in two ways: the *average* of one metric across
judges (no training) and a *linear regression* fitted on 500 pairs of the
RaTE-Eval training set.  Section 5.1.5 / Table 5 reports Kendall's tau with the
radiologists' scores, per metric (each ensemble pools one metric across the
judges, e.g. GREEN-F1 of every judge) and, for the regression only, "All":
every feature of a prompt family (matched findings, error counts and scores).

Features are a wide frame: ``pair_id``, one column per (judge, metric) named
``"judge:metric"`` (e.g. ``"gpt4o:green"``, ``"gpt4o:sig_a"``,
``"gpt4o:matched"``), optional ``split`` and ``group_id`` columns, and the
expert target (a column or a Series aligned on the frame's index).

Split rule
----------
Ensembles are fitted on training pairs and scored on held-out test pairs of one split
(:func:`core.analysis.heldout.split_pairs`, whose module gives the rule); everything reported is computed
on the test pairs only, and the exact ids used for fitting and for testing are returned with every row.

Normalisation of the average ensemble
-------------------------------------
Each column is first oriented so that higher = better (``orientation`` or
:data:`core.analysis.scores.METRICS`), then z-scored with the mean and (population)
standard deviation of the *training* pairs only, then averaged.  z-scoring
keeps a judge with a wide spread from dominating; ``normalization="none"``
gives VERT's plain average of raw scores, ``"minmax"`` and ``"rank"`` (the
mid-rank of a value within the training values) are alternatives.  No target
value is read.

Regression
----------
Ordinary least squares (:class:`sklearn.linear_model.LinearRegression`), the
paper's "linear regression", on the raw features.  ``alpha > 0`` switches to
ridge regression on features standardised with training statistics.

Missing data
------------
Pairs without a target are left out of everything (counted in ``notes``).
For each feature set, pairs with a missing feature in that set are left out of
that set's fit and evaluation (complete cases), so ``n_train``/``n_test`` may
differ between rows; the split itself never depends on the features.

Kendall's tau
-------------
tau-b and the p-value :func:`scipy.stats.kendalltau` gives (computed by
:func:`core.analysis.stats.correlation`, the same numbers without scipy's per-call
wrapper), and a percentile bootstrap CI with a recorded seed
(:func:`core.analysis.stats.bootstrap_distribution`: every resample at once, exact);
when groups exist the bootstrap resamples whole groups of test pairs
(``ci_method`` ``bootstrap-cluster``, else ``bootstrap``).  Every ensemble's output is a predicted
quality (higher = better), and the target is oriented the same way, so a
positive tau means agreement with the experts (VERT prints ``|tau|``).  The
p-value assumes independent pairs; with groups, read the clustered bootstrap
CI rather than p.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from core.analysis.ensemble_average import NORMALIZATIONS, average_ensemble
from core.analysis.heldout import Split, feature_sets_by_metric, higher_is_better, metric_of, split_pairs
from core.analysis.kendall_ci import kendall_ci, tau_b

__all__ = [
    "ENSEMBLES",
    "NORMALIZATIONS",
    "TABLE_COLUMNS",
    "EnsembleResult",
    "Split",
    "average_ensemble",
    "ensemble_table",
    "feature_sets_by_metric",
    "higher_is_better",
    "kendall_ci",
    "metric_of",
    "regression_ensemble",
    "split_pairs",
]

#: Ensemble kinds :func:`ensemble_table` can compute.
ENSEMBLES: tuple[str, ...] = ("best_single", "average", "linear_regression")

#: Columns of :attr:`EnsembleResult.table`, in order.
TABLE_COLUMNS: tuple[str, ...] = (
    "ensemble", "feature_set", "columns", "n_train", "n_test", "tau", "p", "ci_low", "ci_high",
    "level", "n_boot", "seed", "alpha", "status", "ci_method",
)

MIN_TRAIN = 2
MIN_TEST = 3


# -- evaluation table ------------------------------------------------------------


@dataclass
class EnsembleResult:
    """Ensembles evaluated on held-out pairs.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (ensemble, feature set), columns :data:`TABLE_COLUMNS`;
        every number is computed on the test pairs only.
    predictions : pandas.DataFrame
        ``ensemble, feature_set, pair_id, role, score, target``: each
        ensemble's predicted quality (higher = better) for every pair it
        touched, ``role`` "train" (fitted on / normalisation statistics /
        selection) or "test" (reported).  ``target`` is the raw expert value.
    coefficients : pandas.DataFrame
        ``ensemble, feature_set, term, value`` of each fitted regression
        (ridge coefficients are on standardised features).
    split : Split
        The split every row shares.
    notes : list of str
    """

    table: pd.DataFrame
    predictions: pd.DataFrame
    coefficients: pd.DataFrame
    split: Split
    notes: list[str] = field(default_factory=list)

    @property
    def id_table(self) -> pd.DataFrame:
        """``ensemble, feature_set, pair_id, role``: the exact ids of every row."""
        return self.predictions[["ensemble", "feature_set", "pair_id", "role"]]

    def ids(self, ensemble: str, feature_set: str, role: str) -> list:
        """Pairs with ``role`` ("train" or "test") for one row of the table."""
        p = self.predictions
        sel = (p["ensemble"] == ensemble) & (p["feature_set"] == feature_set) & (p["role"] == role)
        return p.loc[sel, "pair_id"].tolist()

    def to_json(self) -> dict:
        def records(frame: pd.DataFrame) -> list[dict]:
            return [{k: _jsonable(v) for k, v in r.items()} for r in frame.to_dict(orient="records")]

        return {"table": records(self.table), "predictions": records(self.predictions),
                "coefficients": records(self.coefficients), "split": self.split.to_json(),
                "notes": list(self.notes)}


def _jsonable(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _fit_regression(x: np.ndarray, y: np.ndarray, alpha: float):
    if alpha > 0:
        return make_pipeline(StandardScaler(), Ridge(alpha=alpha)).fit(x, y)
    return LinearRegression().fit(x, y)


def _coefficients(model, columns: list[str]) -> list[tuple[str, float]]:
    last = model[-1] if hasattr(model, "steps") else model
    return [("intercept", float(last.intercept_))] + [
        (c, float(w)) for c, w in zip(columns, np.ravel(last.coef_), strict=True)]


def _resolve_target(features: pd.DataFrame, target: str | pd.Series) -> pd.Series:
    """The target as floats aligned with ``features``' rows.

    A Series may be indexed like ``features`` or by ``pair_id``; anything else
    is refused rather than aligned by position.
    """
    if isinstance(target, str):
        if target not in features.columns:
            raise KeyError(f"target column {target!r} not in features")
        y = features[target]
    elif isinstance(target, pd.Series):
        if target.index.is_unique and features.index.isin(target.index).all():
            y = target.reindex(features.index)
        elif target.index.is_unique and features["pair_id"].isin(target.index).all():
            y = pd.Series(target.reindex(features["pair_id"]).to_numpy(), index=features.index)
        else:
            raise ValueError("target Series must be indexed like features or by pair_id")
    else:
        raise TypeError("target must be a column name or a pandas Series")
    return pd.to_numeric(y, errors="raise").astype(float)


def ensemble_table(
    features: pd.DataFrame,
    target: str | pd.Series,
    feature_sets: Mapping[str, Sequence[str]] | None = None,
    train_size: int = 500,
    seed: int = 0,
    split_col: str | None = "split",
    *,
    group_col: str | None = "group_id",
    test_split: str = "test",
    max_train_fraction: float = 0.5,
    target_higher_is_better: bool = True,
    ensembles: Sequence[str] = ENSEMBLES,
    orientation: bool | Mapping[str, bool] | None = None,
    normalization: str = "zscore",
    alpha: float = 0.0,
    n_boot: int = 1000,
    level: float = 0.95,
) -> EnsembleResult:
    """VERT Table 5: ensembles per feature set, fitted on train, scored on test.

    Rows, all on the same :class:`Split`:

    * ``best_single``: the column of the set with the largest ``|tau|`` on the
      *training* pairs, signed by that tau (VERT's baseline row picks the best
      single judge from its full results, Table 3; here the choice sees only
      training pairs).
    * ``average``: :func:`average_ensemble` with training statistics; only for
      sets whose columns share one metric (Table 5 has no "All" average).
    * ``linear_regression`` (``"ridge"`` when ``alpha > 0``): OLS of the target
      on the set's columns over the training pairs.

    Parameters
    ----------
    features : pandas.DataFrame
        ``pair_id`` (unique), ``"judge:metric"`` columns, optional split and
        group columns.
    target : str or pandas.Series
        Expert target: a column of ``features`` or a Series aligned with it.
    feature_sets : mapping, optional
        Name -> columns.  Default: :func:`feature_sets_by_metric` over every
        column containing ``":"``.
    train_size, seed, split_col, group_col, test_split, max_train_fraction
        See :func:`split_pairs`.
    target_higher_is_better : bool
        ``False`` for error counts: the target is negated before computing tau,
        so a positive tau means agreement for every kind of target.
    ensembles : sequence of str
        Subset of :data:`ENSEMBLES`.
    orientation, normalization
        See :func:`average_ensemble`.
    alpha : float
        0: ordinary least squares; > 0: ridge with this penalty on
        standardised features.
    n_boot, level
        Bootstrap of :func:`kendall_ci` (seed = ``seed``).

    Returns
    -------
    EnsembleResult
    """
    unknown = [e for e in ensembles if e not in ENSEMBLES]
    if unknown:
        raise ValueError(f"unknown ensembles {unknown}; valid: {', '.join(ENSEMBLES)}")
    if "pair_id" not in features.columns:
        raise ValueError("features must have a pair_id column")
    if features["pair_id"].duplicated().any():
        raise ValueError("pair_id must be unique in features")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    y_all = _resolve_target(features, target)
    if feature_sets is None:
        feature_sets = feature_sets_by_metric(
            [c for c in features.columns if ":" in str(c) and not (isinstance(target, str) and c == target)])
    if not feature_sets:
        raise ValueError("no feature sets: pass feature_sets or name columns 'judge:metric'")
    for name, cols in feature_sets.items():
        absent = [c for c in cols if c not in features.columns]
        if absent or not cols:
            raise KeyError(f"feature set {name!r}: columns not in features: {absent or 'none given'}")

    notes: list[str] = []
    known = y_all.notna().to_numpy()
    if not known.all():
        notes.append(f"{int((~known).sum())} pairs without a target left out")
    frame = features[known].copy()
    y = y_all[known]
    split = split_pairs(frame, train_size=train_size, seed=seed, split_col=split_col, group_col=group_col,
                        test_split=test_split, max_train_fraction=max_train_fraction)
    notes.append(split.rule)
    t_sign = 1.0 if target_higher_is_better else -1.0
    in_train = frame["pair_id"].isin(set(split.train_ids)).to_numpy()
    in_test = frame["pair_id"].isin(set(split.test_ids)).to_numpy()
    regression_name = "ridge" if alpha > 0 else "linear_regression"

    rows, preds, coefs = [], [], []

    def record(ensemble, set_name, cols, score, train_mask, test_mask, status=None):
        """Evaluate ``score`` (higher = better) on the test pairs, keep ids."""
        n_train, n_test = int(train_mask.sum()), int(test_mask.sum())
        result = {"tau": math.nan, "p": math.nan, "ci_low": math.nan, "ci_high": math.nan, "ci_method": "none"}
        if status is None:
            if n_test < MIN_TEST:
                status = f"too few test pairs ({n_test} < {MIN_TEST})"
            elif np.unique(score[test_mask]).size < 2:
                status = "constant prediction on the test pairs"
            else:
                g = _group_labels(frame, test_mask, group_col) if split.grouped else None
                result = kendall_ci(score[test_mask], t_sign * y.to_numpy()[test_mask], seed=seed,
                                    n_boot=n_boot, level=level, groups=g)
                status = "ok"
        rows.append({"ensemble": ensemble, "feature_set": set_name, "columns": list(cols),
                     "n_train": n_train, "n_test": n_test, "tau": result["tau"], "p": result["p"],
                     "ci_low": result["ci_low"], "ci_high": result["ci_high"], "level": level,
                     "n_boot": n_boot, "seed": seed, "alpha": alpha if ensemble == regression_name else None,
                     "status": status, "ci_method": result["ci_method"]})
        for role, mask in (("train", train_mask), ("test", test_mask)):
            if mask.any():
                preds.append(pd.DataFrame({
                    "ensemble": ensemble, "feature_set": set_name, "pair_id": frame["pair_id"].to_numpy()[mask],
                    "role": role, "score": score[mask] if score is not None else np.nan,
                    "target": y.to_numpy()[mask]}))

    for set_name, cols in feature_sets.items():
        cols = list(cols)
        x = frame[cols].apply(pd.to_numeric, errors="raise").astype(float)
        complete = x.notna().all(axis=1).to_numpy()
        train_mask, test_mask = in_train & complete, in_test & complete
        y_train = y.to_numpy()[train_mask]

        if "best_single" in ensembles:
            best = (-1.0, None, 1.0)
            for col in cols:
                tau_train = tau_b(x[col].to_numpy()[train_mask], y_train)[0] if train_mask.sum() >= 2 else math.nan
                if not math.isnan(tau_train) and abs(tau_train) > best[0]:
                    best = (abs(tau_train), col, 1.0 if tau_train >= 0 else -1.0)
            if best[1] is None:
                record("best_single", set_name, [], None, train_mask, np.zeros_like(test_mask),
                       status="no column correlates on the training pairs (too few or constant)")
            else:
                # sign of the training tau turns the column into a predicted
                # target; t_sign turns that into a predicted quality
                record("best_single", set_name, [best[1]], t_sign * best[2] * x[best[1]].to_numpy(),
                       train_mask, test_mask)

        if "average" in ensembles and len({metric_of(c) for c in cols}) == 1:
            try:
                avg = average_ensemble(frame, cols, orientation=orientation,
                                       train_ids=frame["pair_id"].to_numpy()[train_mask],
                                       normalization=normalization, missing="require_all").to_numpy()
            except KeyError as exc:  # orientation unknown: this row only, said so
                record("average", set_name, cols, None, train_mask, np.zeros_like(test_mask),
                       status=str(exc.args[0]))
            else:
                ok = ~np.isnan(avg)
                status = None if avg[ok].size else "no usable column (constant on the training pairs)"
                record("average", set_name, cols, avg, train_mask & ok, test_mask & ok, status=status)

        if "linear_regression" in ensembles:
            if train_mask.sum() < MIN_TRAIN:
                record(regression_name, set_name, cols, None, train_mask, np.zeros_like(test_mask),
                       status=f"too few training pairs ({int(train_mask.sum())} < {MIN_TRAIN})")
                continue
            model = _fit_regression(x.to_numpy()[train_mask], y_train, alpha)
            predicted = np.full(len(frame), np.nan)
            predicted[train_mask | test_mask] = model.predict(x.to_numpy()[train_mask | test_mask])
            coefs += [{"ensemble": regression_name, "feature_set": set_name, "term": t, "value": v}
                      for t, v in _coefficients(model, cols)]
            underdetermined = train_mask.sum() <= len(cols)
            record(regression_name, set_name, cols, t_sign * predicted, train_mask, test_mask)
            if underdetermined and rows[-1]["status"] == "ok":
                rows[-1]["status"] = "ok (underdetermined: n_train <= number of features)"

    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    predictions = (pd.concat(preds, ignore_index=True) if preds else
                   pd.DataFrame(columns=["ensemble", "feature_set", "pair_id", "role", "score", "target"]))
    coefficients = pd.DataFrame(coefs, columns=["ensemble", "feature_set", "term", "value"])
    return EnsembleResult(table=table, predictions=predictions, coefficients=coefficients, split=split,
                          notes=notes)


def _group_labels(frame: pd.DataFrame, mask: np.ndarray, group_col: str) -> list:
    # a pair without a group is its own cluster in the bootstrap
    return [("pair", str(p)) if pd.isna(g) else ("group", str(g))
            for p, g in zip(frame["pair_id"].to_numpy()[mask], frame[group_col].to_numpy()[mask], strict=True)]


def regression_ensemble(
    features: pd.DataFrame,
    target: str | pd.Series,
    feature_sets: Mapping[str, Sequence[str]] | None = None,
    train_size: int = 500,
    seed: int = 0,
    split_col: str | None = "split",
    **kwargs,
) -> EnsembleResult:
    """Linear-regression ensembles only (VERT Table 5, "Linear Regression" row).

    Same as :func:`ensemble_table` with ``ensembles=("linear_regression",)``;
    keyword arguments (``group_col``, ``alpha``, ``n_boot``, ...) pass through.
    """
    return ensemble_table(features, target, feature_sets, train_size=train_size, seed=seed,
                          split_col=split_col, ensembles=("linear_regression",), **kwargs)
