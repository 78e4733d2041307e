"""Comparing two parsed reports: pairing findings, the errors, their significance; :func:`judge_pair`.

5. **Matching** across reports: positive findings of the same observation
   (then a generic "effusion" with a specific one of its family), pairing the
   most compatible instances first; absent-vs-absent statements of the same
   observation; plain statements with the same words (Jaccard >= 0.6).

Errors (GREEN / ReXVal categories)
----------------------------------
(a) a positive candidate finding with no positive counterpart in the reference
    (the explanation says when the reference states it is absent);
(b) a positive reference finding with no positive counterpart in the candidate;
(c) a matched finding with another side, or another site of the same class;
(d) a matched finding with another severity level (>= 1 step on the same
    scale) or another size (ratio >= 1.1 and >= 1 mm apart);
(e) a candidate comparison with a prior study that the reference does not make
    for that finding (or a different change);
(f) a reference comparison the candidate omits for a matched finding
    ("resolved" counts: "interval resolution of the pneumothorax" vs "no
    pneumothorax").
At most one error per category per matched finding.

Significance rule
-----------------
How much each finding matters is :mod:`.significance`'s (CRIMSON's four levels from the finding, its grade or
size and the pair's patient context); an error is significant when its finding is urgent or actionable:

* (a) / (b) / (c): the candidate's finding for (a), the reference's for (b), either for (c) (a wrong side of
  an actionable finding is significant); a line or tube whose tip is placed elsewhere always is, because a
  malpositioned device is acted on.
* (d): a grade step by :func:`.significance.severity_significant` (it crosses the actionable line or a
  management line, spans two steps, or concerns an urgent finding); a size difference when the finding
  matters at either size and the ratio is >= its ``d_ratio`` (1.5; 1.2 for aortic aneurysms) or it crosses
  the size threshold; a vaguer or more specific reading of the same finding (:mod:`.precision`) when either
  reading is actionable.
* (e) / (f): when the finding matters and the stated change is not "unchanged" (a dropped or invented
  "stable" is minor); two different changes ("increased" vs "unchanged") when the finding matters.

Matched findings (GREEN's M) are positive pairs without a location or
severity error, absent-vs-absent pairs and shared plain statements.
"""

from __future__ import annotations

import re

from core.judges.rules import significance as S
from core.judges.rules import vocab as V
from core.judges.rules.extract import clean_text, parse_report
from core.judges.rules.findings import (
    CATEGORIES,
    CHANGE_WORDS,
    RULES_VERSION,
    Finding,
    Match,
    RuleError,
    RulesResult,
    concepts_related,
    family_of,
    findings_related,
    fmt_mm,
    sizes_differ,
)
from core.judges.rules.precision import precision_error, vaguer_pairs


def _affinity(r: Finding, c: Finding) -> float:
    s = 0.0
    if r.concept == c.concept:
        s += 4
    if r.side and c.side:
        s += 3 if r.side == c.side else -3
    cm = c.site_map
    for cls, vals in r.sites:
        if cls in cm:
            s += 2 if set(vals) & set(cm[cls]) else -2
    if r.grade and c.grade and r.grade[0] == c.grade[0]:
        s += 1 if abs(r.grade[1] - c.grade[1]) < 1 else -1
    if r.size_mm and c.size_mm:
        s += 1 if not sizes_differ(r.size_mm, c.size_mm) else -1
    return s


def _pair(refs: list[Finding], cands: list[Finding], strict: bool) -> list[tuple[int, int]]:
    """Greedy pairing of related findings, most compatible first."""
    scored = []
    for i, r in enumerate(refs):
        for j, c in enumerate(cands):
            ok = findings_related(r, c, strict)
            if ok:
                scored.append((-_affinity(r, c), i, j))
    scored.sort()
    used_r: set[int] = set()
    used_c: set[int] = set()
    pairs = []
    for _, i, j in scored:
        if i in used_r or j in used_c:
            continue
        used_r.add(i)
        used_c.add(j)
        pairs.append((i, j))
    return pairs


def _where(f: Finding, cls: str | None) -> str:
    if cls is None:
        return {"bilateral": "bilaterally", "central": "centrally"}.get(f.side or "", f"on the {f.side}")
    vals = " and ".join(f.site_map[cls])
    if cls == "spine level":
        return f"at {vals}"
    if cls == "clock face":
        return f"at {vals} o'clock"
    if cls == "rib":
        return f"at rib {vals}"
    if cls == "device tip":
        return f"with its tip at the {vals}"
    if cls in ("liver segment",):
        return f"in {vals}"
    if cls in ("medial/lateral", "position", "uterine layer", "curve", "tendon", "lung zone", "meniscal horn"):
        return f"at the {vals} position" if cls == "position" else f"({vals})"
    return f"in the {vals}"


def _location_error(r: Finding, c: Finding) -> str | None:
    side_diff = bool(r.side and c.side and r.side != c.side)
    cm = c.site_map
    site_diff = [cls for cls, vals in r.sites if cls in cm and not set(vals) & set(cm[cls])]
    if not side_diff and not site_diff:
        return None
    parts_c, parts_r = [], []
    for cls in site_diff:
        parts_c.append(_where(c, cls))
        parts_r.append(_where(r, cls))
    if side_diff and not any(c.side in p for p in parts_c):
        parts_c.insert(0, _where(c, None))
        parts_r.insert(0, _where(r, None))
    return (f"candidate places the {r.name} {' '.join(parts_c)}, the reference {' '.join(parts_r)}")


def _severity_error(r: Finding, c: Finding, ctx: S.Context) -> tuple[str, bool] | None:
    concept = V.CONCEPT_BY_KEY[r.concept]
    texts, sig = [], False
    if r.grade and c.grade and r.grade[0] == c.grade[0] and abs(r.grade[1] - c.grade[1]) >= 1:
        texts.append(f"grades the {r.name} as {c.grade_text}, the reference as {r.grade_text}")
        sig = S.severity_significant(r, c, ctx)
    if r.size_mm and c.size_mm and sizes_differ(r.size_mm, c.size_mm):
        texts.append(f"measures the {r.name} at {fmt_mm(c.size_mm)}, the reference at {fmt_mm(r.size_mm)}")
        ratio = max(r.size_mm, c.size_mm) / max(min(r.size_mm, c.size_mm), 0.1)
        before = S.matters(r, ctx, size=r.size_mm)
        after = S.matters(r, ctx, size=c.size_mm)
        crosses = concept.size_mm is not None and concept.sig == "graded" and (
            (r.size_mm >= concept.size_mm) != (c.size_mm >= concept.size_mm))
        sig = sig or ((before or after) and (ratio >= concept.d_ratio or crosses))
    if not texts:
        return None
    return "candidate " + " and ".join(texts), sig


def _offered(f: Finding, other: Finding) -> bool:
    """``other`` is one of the alternatives ``f`` offers for its observation, at no other place."""
    return any(concepts_related(k, other.concept) for k in f.alternatives) and not _location_error(f, other)


# a heart "at the upper limit of normal" (or "borderline in size but within normal limits") is read at the threshold:
# it matches a borderline heart, but alone it is a normal statement, so it is no finding to invent or to omit
_AT_NORMAL_LIMIT = re.compile(r"upper\s+(?:limits?|end|range)\s+of\s+(?:the\s+)?normal|(?:top|high)[-\s]normal|"
                              r"within\s+(?:the\s+)?normal\s+(?:limits|range)", re.I)


def _at_normal_limit(f: Finding) -> bool:
    return f.concept == "cardiomegaly" and bool(f.grade and f.grade[1] == 0 and _AT_NORMAL_LIMIT.search(f.text))


def _error(cat: str, sig: bool, text: str, r: Finding | None = None, c: Finding | None = None) -> RuleError:
    return RuleError(cat, bool(sig), text, r, c)


def _judge(ref: tuple[Finding, ...], cand: tuple[Finding, ...], ctx: S.Context = S.NO_CONTEXT) -> RulesResult:
    res = RulesResult(list(ref), list(cand))

    def _matters(f: Finding) -> bool:
        return S.matters(f, ctx)

    r_pos = [f for f in ref if f.kind == "finding" and f.present]
    c_pos = [f for f in cand if f.kind == "finding" and f.present]
    r_neg = [f for f in ref if f.kind == "finding" and not f.present]
    c_neg = [f for f in cand if f.kind == "finding" and not f.present]

    pairs = _pair(r_pos, c_pos, strict=True)
    left_r = [i for i in range(len(r_pos)) if i not in {p[0] for p in pairs}]
    left_c = [j for j in range(len(c_pos)) if j not in {p[1] for p in pairs}]
    more = _pair([r_pos[i] for i in left_r], [c_pos[j] for j in left_c], strict=False)
    pairs += [(left_r[i], left_c[j]) for i, j in more]
    left_r = [i for i in left_r if i not in {p[0] for p in pairs}]
    left_c = [j for j in left_c if j not in {p[1] for p in pairs}]
    vaguer = vaguer_pairs([r_pos[i] for i in left_r], [c_pos[j] for j in left_c])  # "opacity" for a mass
    pairs += [(left_r[i], left_c[j]) for i, j in vaguer]
    pairs.sort()
    matched_r = {i for i, _ in pairs}
    matched_c = {j for _, j in pairs}

    errors: list[RuleError] = []
    for i, j in pairs:
        r, c = r_pos[i], c_pos[j]
        loc = _location_error(r, c)
        sev = _severity_error(r, c, ctx) or precision_error(r, c, ctx)
        if loc:  # a line or tube ending elsewhere is acted on: always significant
            errors.append(_error("c", _matters(r) or _matters(c) or family_of(r.concept) == "device", loc, r, c))
        if sev:
            errors.append(_error("d", sev[1], sev[0], r, c))
        if c.change and c.change != r.change:
            if r.change:
                text = (f"candidate describes the {r.name} as {CHANGE_WORDS[c.change]} compared with the prior "
                        f"study, the reference as {CHANGE_WORDS[r.change]}")
                sig = _matters(r)  # one side states a real change the other contradicts
            else:
                text = (f"candidate describes the {r.name} as {CHANGE_WORDS[c.change]} compared with the prior "
                        f"study, the reference makes no comparison for it")
                sig = _matters(c) and c.change != "unchanged"
            errors.append(_error("e", sig, text, r, c))
        elif r.change and not c.change and not any(o.change == r.change and findings_related(r, o) for o in c_pos):
            # (a restatement of the finding elsewhere in the candidate that keeps the comparison keeps it)
            errors.append(_error(
                "f", _matters(r) and r.change != "unchanged",
                f"candidate omits the reference's comparison with the prior study: {r.name} "
                f"{CHANGE_WORDS[r.change]}", r, c))
        res.matches.append(Match(r, c, "positive", counted=not (loc or sev)))

    for j, c in enumerate(c_pos):
        if j in matched_c:
            continue
        # the candidate restates a matched finding in its other section at another place: a location error
        moved = next((r_pos[i] for i, k in pairs if c_pos[k].section != c.section and findings_related(r_pos[i], c)
                      and _location_error(r_pos[i], c)), None)
        if moved is not None:
            errors.append(_error("c", _matters(moved) or _matters(c), _location_error(moved, c), moved, c))
            continue
        if any(_offered(r_pos[i], c) for i, _ in pairs):
            continue  # the other reading of an observation the reference offers alternatives for ("A/B" vs "A or B")
        if _at_normal_limit(c):  # a normal statement, but a comparison it claims is still one ("top normal, unchanged")
            if c.change:
                errors.append(_error("e", False, f"candidate describes the heart size as {CHANGE_WORDS[c.change]} "
                                     f"compared with the prior study, the reference makes no comparison for it", None, c))
            continue
        denied = any(concepts_related(n.concept, c.concept) for n in r_neg)
        text = f"candidate reports {c.describe()}, " + (
            "which the reference states is absent" if denied else "which is not in the reference")
        errors.append(_error("a", _matters(c), text, None, c))
        if c.change:  # the invented finding also claims a change since a prior study
            errors.append(_error("e", _matters(c) and c.change != "unchanged",
                                 f"candidate describes the {c.name} as {CHANGE_WORDS[c.change]} compared with the "
                                 f"prior study, the reference makes no comparison for it", None, c))
    for i, r in enumerate(r_pos):
        if i in matched_r:
            continue
        if any(_offered(c_pos[j], r) for _, j in pairs):
            continue  # one of the readings the candidate offers for an observation it states
        if _at_normal_limit(r):
            continue
        denied = any(concepts_related(n.concept, r.concept) for n in c_neg)
        text = (f"candidate states there is no {r.name}, the reference reports {r.describe()}" if denied
                else f"candidate omits the reference's {r.describe()}")
        errors.append(_error("b", _matters(r), text, r, None))

    # absent-vs-absent statements of the same observation ("resolved" is a comparison too)
    for r, c in _pair_simple(r_neg, c_neg):
        if c.change == "resolved" and r.change != "resolved":
            errors.append(_error("e", _matters(c), f"candidate states the {r.name} has resolved since the prior "
                                 f"study, the reference only that there is none", r, c))
        elif r.change == "resolved" and c.change != "resolved":
            errors.append(_error("f", _matters(r), f"candidate omits the reference's comparison with the prior "
                                 f"study: {r.name} resolved", r, c))
        res.matches.append(Match(r, c, "negative", counted=True))
    # plain statements with the same words
    r_st = [f for f in ref if f.kind == "statement"]
    c_st = [f for f in cand if f.kind == "statement"]
    used: set[int] = set()
    for r in r_st:
        best, best_j = 0.0, None
        for j, c in enumerate(c_st):
            if j in used:
                continue
            inter = len(r.tokens & c.tokens)
            if not inter:
                continue
            jac = inter / len(r.tokens | c.tokens)
            if jac > best:
                best, best_j = jac, j
        if best_j is not None and best >= 0.6:
            used.add(best_j)
            res.matches.append(Match(r, c_st[best_j], "statement", counted=True))

    # a comparison stated for the whole study ("no significant interval change") when the reference makes none
    said = [f for f in cand if f.kind == "statement" and f.change]
    if said and not any(f.change or f.change_at for f in ref) and not any(e.category == "e" for e in errors):
        errors.append(_error("e", False, f"candidate compares the study with a prior one ({said[0].change_text}), "
                                         f"the reference makes no comparison", None, said[0]))

    order = {c: k for k, c in enumerate(CATEGORIES)}
    errors = _one_per_comparison(errors)
    errors.sort(key=lambda e: order[e.category])
    res.errors = errors
    n_sig = sum(e.significant for e in errors)
    res.explanation = (
        f"Rules judge {RULES_VERSION}: the reference states {len(r_pos)} positive finding(s) and "
        f"{len(r_neg)} absent finding(s), the candidate {len(c_pos)} and {len(c_neg)}. "
        f"{res.matched} finding(s) matched, {n_sig} clinically significant and {len(errors) - n_sig} "
        f"clinically insignificant error(s). Errors are significant for critical or actionable findings "
        f"(or above their severity or size threshold) and for changes that alter management.")
    return res


def _one_per_comparison(errors: list[RuleError]) -> list[RuleError]:
    """One (e) per comparison phrase of the candidate and one (f) per phrase of the reference, however many
    findings it covers ("atelectasis and effusion, new since the prior study" is one comparison)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for e in errors:
        f = e.candidate if e.category == "e" else e.reference if e.category == "f" else None
        key = (e.category, f.change_at) if f is not None and f.change_at else None
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        out.append(e)
    return out


def _pair_simple(refs: list[Finding], cands: list[Finding]) -> list[tuple[Finding, Finding]]:
    out, used = [], set()
    for r in refs:
        for j, c in enumerate(cands):
            if j not in used and concepts_related(r.concept, c.concept):
                used.add(j)
                out.append((r, c))
                break
    return out


def judge_pair(reference: str, candidate: str, context: dict | None = None) -> RulesResult:
    """Compare a candidate report with its reference.  Never raises on text input.

    ``context``: the pair's patient context (age, sex, indication, history), which sets how much each finding
    matters (:mod:`.significance`); without it the findings alone decide."""
    try:
        ref = parse_report(reference if isinstance(reference, str) else clean_text(reference))
        cand = parse_report(candidate if isinstance(candidate, str) else clean_text(candidate))
        ctx = S.read_context(context)
        res = _judge(ref, cand, ctx)
        res.context = ctx
        return res
    except Exception as exc:  # a judge never crashes a run, and an error it hit is never a clean report
        failure = f"rules judge {RULES_VERSION}: internal error {type(exc).__name__}"
        return RulesResult(explanation=failure, failure=failure)
