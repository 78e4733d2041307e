"""What CREPE reports, for a student on its held-out pairs (seeds/crepe.txt Tables 1-3).

Pure: frames in, a dict out. Kendall tau-b and Spearman rho with 95%
percentile-bootstrap CIs (core.analysis.stats, groups resampled) of the student's
score vs the teacher's and vs the experts', the MAE of each category's count
vs the teacher's, the same with identical pairs removed (ReXVal*, Table 2),
and n for each. Correlations with the expert target are oriented so that
positive means agreement: the error count is compared with an error-count
target as is, and negated against a 0-1 quality score.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core.analysis.stats import bootstrap_ci, correlation

N_BOOT = 1000


def _finite(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else round(float(v), 4)


def tau_rho_with_ci(x, y, groups, seed: int) -> dict:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    base = correlation(x, y, min_n=3)
    out = {"n": int(base["n"]), "tau": _finite(base["tau"]), "rho": _finite(base["rho"]),
           "tau_ci": [None, None], "rho_ci": [None, None]}
    if base["reason"] is None:
        for stat, key in (("kendall", "tau_ci"), ("spearman", "rho_ci")):
            ci = bootstrap_ci(x, y, groups, n_boot=N_BOOT, seed=seed, stat=stat)
            out[key] = [_finite(ci["ci_low"]), _finite(ci["ci_high"])]
    return out


def agreement(frame: pd.DataFrame, labels: tuple[str, ...], seed: int, expert_sign: int = 1) -> dict:
    """``frame``: pair_id, group, identical, ``pred_<label>`` and ``<label>`` columns, optional
    ``expert`` (the target) and ``teacher_score``. Returns the metrics of one subset."""
    pred = frame[[f"pred_{c}" for c in labels]].to_numpy(dtype=float)
    teach = frame[list(labels)].to_numpy(dtype=float)
    student = pred.sum(axis=1)
    teacher = frame["teacher_score"].to_numpy(dtype=float) if "teacher_score" in frame else teach.sum(axis=1)
    groups = frame["group"].to_numpy()
    out = {"n": len(frame), "vs_teacher": tau_rho_with_ci(student, teacher, groups, seed),
           "mae": {c: _finite(float(np.abs(pred[:, i] - teach[:, i]).mean())) if len(frame) else None
                   for i, c in enumerate(labels)}}
    if "expert" in frame:
        has = frame["expert"].notna().to_numpy()
        sign = expert_sign
        out["vs_expert"] = tau_rho_with_ci(student[has], sign * frame["expert"].to_numpy(dtype=float)[has], groups[has], seed)
        out["teacher_vs_expert"] = tau_rho_with_ci(teacher[has], sign * frame["expert"].to_numpy(dtype=float)[has],
                                         groups[has], seed)
    return out


def report(frame: pd.DataFrame, labels: tuple[str, ...], seed: int, expert_sign: int = 1) -> dict:
    """All pairs, and identical pairs removed."""
    return {"all": agreement(frame, labels, seed, expert_sign),
            "no_identical": agreement(frame[~frame["identical"].astype(bool)], labels, seed, expert_sign)}
