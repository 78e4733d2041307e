"""Finding states and the errors applied to them: random states, changes, error proposals and details."""

from __future__ import annotations

import math
import random
from typing import Any

from core.ingest.synth.exams import Exam, site_scale
from core.ingest.synth.findings import FindingSpec, State, presence_significant
from core.ingest.synth.render import pick
from core.ingest.synth.vocabulary import GRADES, SIDES

_CMP_WEIGHTS = (("unchanged", 0.4), ("increased", 0.25), ("decreased", 0.2), ("new", 0.15))


def random_state(f: FindingSpec, exam: Exam, rng: random.Random) -> State:
    st: State = {"side": None, "site": None, "grade": None, "size": None, "cmp": None, "hedge": False}
    if f.side:
        sides = SIDES[f.side]
        # Bilateral disease is less common than unilateral.
        st["side"] = sides[2] if len(sides) == 3 and rng.random() < 0.2 else sides[int(rng.random() * 2)]
    if f.site:
        st["site"] = pick(site_scale(f, exam), rng)
    if f.grade:
        n = len(GRADES[f.grade])
        st["grade"] = min(int(rng.random() ** 1.4 * n), n - 1)  # milder grades are more common
    if f.size:
        lo, hi = f.size
        st["size"] = lo + int(rng.random() ** 1.5 * (hi - lo + 1))
    if f.hedge and rng.random() < 0.25:
        st["hedge"] = "possible" if rng.random() < 0.5 else "probable"
    return st


def random_change(f: FindingSpec, rng: random.Random) -> str:
    """A plausible change versus the prior for ``f`` (weighted towards "unchanged")."""
    options = [(c, w) for c, w in _CMP_WEIGHTS if c in f.changes]
    r = rng.random() * sum(w for _, w in options)
    for change, w in options:
        if r < w:
            return change
        r -= w
    return options[-1][0]


def _describe(f: FindingSpec, st: State) -> str:
    """Canonical short description used in ``detail`` strings, e.g. "small pleural effusion (left)"."""
    bits = []
    if st["size"] is not None:
        bits.append(f"{st['size']} mm")
    if st["grade"] is not None:
        bits.append(GRADES[f.grade][st["grade"]])
    bits.append(f.terms[0][0])
    where = [v for v in (st["side"], st["site"]) if v is not None]
    if where:
        bits.append(f"({', '.join(where)})")
    return " ".join(bits)


def propose_error(cat: str, f: FindingSpec, st: State, exam: Exam, rng: random.Random) -> tuple[bool, str | None, Any, Any]:
    """Draw one concrete error of category ``cat`` on a finding in state ``st``.

    Returns ``(significant, attribute, old, new)``; grades are indices. The
    significance rules encode clinical weight rather than chance.
    """
    if cat == "a" or cat == "b":
        # Inventing or missing a finding matters exactly when the finding matters.
        return presence_significant(f, st), None, None, None
    if cat == "c":
        attr = "side" if st["site"] is None or (st["side"] is not None and rng.random() < 0.5) else "site"
        scale = SIDES[f.side] if attr == "side" else site_scale(f, exam)
        old = st[attr]
        new = pick([v for v in scale if v != old], rng)
        # A wrong side/site matters exactly when the finding itself matters.
        return presence_significant(f, st), attr, old, new
    if cat == "d":
        if st["size"] is None or (st["grade"] is not None and rng.random() < 0.5):
            n = len(GRADES[f.grade])
            old = st["grade"]
            new = pick([i for i in range(n) if i != old], rng)
            # Grading a finding that never matters (mild vs marked atherosclerosis) is
            # insignificant. Otherwise two steps (mild vs severe) always matter, and one
            # step matters when it crosses the clinical threshold or the finding is
            # always serious.
            before, after = presence_significant(f, st), presence_significant(f, dict(st, grade=new))
            sig = f.sig is not None and (abs(new - old) >= 2 or f.sig == 0 or before != after)
            return sig, "grade", old, new
        old = st["size"]
        factor = 0.45 + 0.3 * rng.random() if rng.random() < 0.4 else 1.25 + 1.0 * rng.random()
        new = max(2, round(old * factor))
        if new == old:
            new = old + 1
        ratio = max(new, old) / min(new, old)
        before, after = presence_significant(f, st), presence_significant(f, dict(st, size=new))
        # A measurement slip matters for a finding that matters, when the ratio is
        # large or it moves the finding across its size threshold.
        return (before or after) and (ratio >= f.d_ratio or before != after), "size", old, new
    if cat == "e":
        change = random_change(f, rng)
        return presence_significant(f, st) and change != "unchanged", "cmp", None, change
    # f: a stated change from the prior matters for a significant finding; "unchanged" is minor.
    return presence_significant(f, st) and st["cmp"] != "unchanged", "cmp", st["cmp"], None


def error_detail(cat: str, f: FindingSpec, st: State, attr: str | None, old: Any, new: Any) -> str:
    """Human-readable description of an error (``st`` is the state before the error)."""
    name = f.terms[0][0]
    if cat == "a":
        return f"false finding: {_describe(f, st)}"
    if cat == "b":
        return f"missing finding: {_describe(f, st)}"
    if cat == "c":
        return f"{'laterality' if attr == 'side' else 'location'} of {name}: {old} -> {new}"
    if cat == "d":
        if attr == "grade":
            scale = GRADES[f.grade]
            return f"severity of {name}: {scale[old]} -> {scale[new]}"
        return f"size of {name}: {old} mm -> {new} mm"
    if cat == "e":
        return f"comparison added for {name}: {new}"
    return f"comparison omitted for {name}: {old}"


def poisson(lam: float, rng: random.Random) -> int:
    limit, k, p = math.exp(-lam), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k
