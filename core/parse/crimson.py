"""A CRIMSON answer -> CRIMSON's score, its error counts, and the ReXVal categories (a)-(f).

CRIMSON (Baharoon et al. 2026, arXiv:2603.06183; rajpurkarlab/CRIMSON) asks a model for a JSON evaluation:
``reference_findings`` and ``predicted_findings`` (``id``, ``finding``, ``clinical_significance``),
``matched_findings`` (``ref_id``/``pred_id`` pairs) and ``errors`` with ``false_findings`` (predicted ids),
``missing_findings`` (reference ids) and ``attribute_errors`` (``ref_id``, ``pred_id``, ``severity``,
``error_types``, ``explanation``).

:func:`score_evaluation` computes what ``CRIMSONScore._calculate_crimson`` of ``CRIMSON/generate_score.py``
at commit cb1f1261d2d2b934de64e29a9b4bad666bc39f82 (the newest one reachable here) returns, written anew:

* weights: a finding's ``clinical_significance`` urgent 1, actionable_not_urgent 0.5,
  not_actionable_not_urgent 0.25, benign_expected 0; an attribute error's ``severity`` significant 0.5,
  negligible 0; a missing or unknown label weighs 0.25 (cb1f1261 and cd5704f0; older commits raised on it,
  RadEval's copy weighs it 0);
* ``E_false`` and ``E_miss``: the weights of the listed false (predicted) and missing (reference) ids, an id
  not among the findings weighing 0; ``N_G``: the weights of all reference findings, or, when there is no
  reference finding at all, the number of matched pairs plus ``E_miss``;
* ``correct``: each matched reference finding once (first occurrence), its weight ``w`` times
  ``w / (w + sum of its attribute errors' weights)`` when it has attribute errors (0 when that sum is 0);
* ``S = (correct - E_false) / N_G``; when ``N_G == 0``, ``S = 1`` without false and missing weight, else
  ``-(E_false + E_miss + 1)``; the score is ``S`` when ``S >= 0``, else ``-x / (1 + x)`` with
  ``x = E_false - correct`` when ``x > 0``, else 0; rounded to 4 decimals.

An answer that upstream's own code would stop on (a finding without ``id``, a matched pair without
``ref_id``, an object where an id belongs) is a failure with its reason here too. On purpose stricter than
upstream: a string where a list belongs (``"false_findings": "P1"``, which upstream reads letter by letter) is
a failure. ``error_types`` may be a list or a string, and a type counts when ``type in error_types`` holds,
as upstream tests it.

ReXVal categories (:class:`CategoryMap`, :data:`DEFAULT_MAP`): a false finding -> (a), a missing finding ->
(b), an attribute error of type location -> (c), severity, descriptor, measurement, certainty, unspecific or
overinterpretation -> (d), temporal -> (e); nothing -> (f). A finding error is significant when its finding
is urgent or actionable_not_urgent; an attribute error when its severity is ``significant``. An attribute
error counts once per type it lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.parse.crimson_json import CrimsonAnswerError, read_crimson_json
from core.parse.result import ParseResult
from core.parse.values import CATEGORIES, ErrorItem

__all__ = ["ATTRIBUTE_TYPES", "ATTRIBUTE_WEIGHTS", "CRIMSON_METRICS", "DEFAULT_MAP", "SIGNIFICANCE_WEIGHTS",
           "CategoryMap", "CrimsonAnswerError", "CrimsonScore", "parse_category_map", "parse_crimson",
           "score_evaluation"]

SIGNIFICANCE_WEIGHTS = {"urgent": 1.0, "actionable_not_urgent": 0.5, "not_actionable_not_urgent": 0.25,
                        "benign_expected": 0.0}
ATTRIBUTE_WEIGHTS = {"significant": 0.5, "negligible": 0.0}
UNKNOWN_WEIGHT = 0.25  # a missing or unknown label (generate_score.py cb1f1261: .get(label, 0.25))
ATTRIBUTE_TYPES = ("location", "severity", "descriptor", "measurement", "certainty", "unspecific",
                   "overinterpretation", "temporal")
#: Metric names stored with every scored answer: the score, the counts and the weighted counts.
CRIMSON_METRICS = ("crimson", "crimson_false", "crimson_missing", "crimson_attribute",
                   *(f"crimson_{t}" for t in ATTRIBUTE_TYPES), "crimson_e_false", "crimson_e_miss", "crimson_e_attr")
_HASHABLE = (str, int, float, bool, type(None))  # what a JSON value an id or label can be and still be looked up


@dataclass(frozen=True)
class CrimsonScore:
    """``_calculate_crimson``'s numbers: ``counts`` and ``weighted`` keyed as upstream's result dict."""

    crimson: float
    counts: dict[str, int]
    weighted: dict[str, float]
    n_g: float
    e_penalty: float
    correct: float
    errors_more_than_correct: float
    s: float
    unknown_labels: int = 0  # labels that were missing or unknown, weighed 0.25


def _list(value: object, where: str) -> list:
    if not isinstance(value, list):
        raise CrimsonAnswerError(f"{where} must be a list, got {type(value).__name__}")
    return value


def _objects(value: object, where: str, key: str) -> list[dict]:
    items = _list(value, where)
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise CrimsonAnswerError(f"{where} item {i} must be an object, got {type(item).__name__}")
        if key not in item:
            raise CrimsonAnswerError(f"{where} item {i} has no {key!r}")
        if not isinstance(item[key], _HASHABLE):
            raise CrimsonAnswerError(f"{where} item {i}: {key!r} must be an id, got {type(item[key]).__name__}")
    return items


def _ids(value: object, where: str) -> list:
    items = _list(value, where)
    for i, item in enumerate(items, start=1):
        if not isinstance(item, _HASHABLE):
            raise CrimsonAnswerError(f"{where} item {i} must be a finding id such as \"P1\", got "
                                     f"{type(item).__name__}")
    return items


def _label(item: dict, key: str, where: str) -> object:
    value = item.get(key, "")
    if not isinstance(value, _HASHABLE):
        raise CrimsonAnswerError(f"{where}: {key!r} must be a label, got {type(value).__name__}")
    return value


def _parts(evaluation: object) -> tuple[list, list, list, list, list, list]:
    """(reference findings, predicted findings, matched, false ids, missing ids, attribute errors), checked."""
    if not isinstance(evaluation, dict):
        raise CrimsonAnswerError(f"the evaluation must be an object, got {type(evaluation).__name__}")
    errors = evaluation.get("errors", {})
    if not isinstance(errors, dict):
        raise CrimsonAnswerError(f"'errors' must be an object, got {type(errors).__name__}")
    refs = _objects(evaluation.get("reference_findings", []), "reference_findings", "id")
    preds = _objects(evaluation.get("predicted_findings", []), "predicted_findings", "id")
    matched = _objects(evaluation.get("matched_findings", []), "matched_findings", "ref_id")
    attrs = _objects(errors.get("attribute_errors", []), "attribute_errors", "ref_id")
    for where, items, key in (("reference_findings", refs, "clinical_significance"),
                              ("predicted_findings", preds, "clinical_significance"),
                              ("attribute_errors", attrs, "severity")):
        for i, item in enumerate(items, start=1):
            _label(item, key, f"{where} item {i}")
    for i, err in enumerate(attrs, start=1):
        types = err.get("error_types", [])
        if not isinstance(types, (list, str)):
            raise CrimsonAnswerError(f"attribute_errors item {i}: 'error_types' must be a list, got "
                                     f"{type(types).__name__}")
    return (refs, preds, matched, _ids(errors.get("false_findings", []), "false_findings"),
            _ids(errors.get("missing_findings", []), "missing_findings"), attrs)


def _has_type(err: dict, name: str) -> bool:
    return name in err.get("error_types", [])  # upstream's test: list membership, or substring of a string


def score_evaluation(evaluation: object) -> CrimsonScore:
    """CRIMSON's score of one parsed evaluation (module docstring); :class:`CrimsonAnswerError` if malformed."""
    refs, preds, matched, false_ids, missing_ids, attrs = _parts(evaluation)
    unknown = 0

    def weight(item: dict, key: str, table: dict[str, float]) -> float:
        nonlocal unknown
        label = item.get(key, "")
        if label not in table:
            unknown += 1
            return UNKNOWN_WEIGHT
        return table[label]

    ref_weights = [weight(r, "clinical_significance", SIGNIFICANCE_WEIGHTS) for r in refs]
    ref_weight = dict(zip((r["id"] for r in refs), ref_weights, strict=True))  # a repeated id: the last one
    pred_weight = {p["id"]: weight(p, "clinical_significance", SIGNIFICANCE_WEIGHTS) for p in preds}
    attr_weights = [weight(e, "severity", ATTRIBUTE_WEIGHTS) for e in attrs]
    e_false = sum(pred_weight.get(i, 0.0) for i in false_ids)
    e_miss = sum(ref_weight.get(i, 0.0) for i in missing_ids)
    by_ref: dict[object, list[float]] = {}
    for err, w in zip(attrs, attr_weights, strict=True):
        by_ref.setdefault(err["ref_id"], []).append(w)
    n_g = sum(ref_weights)
    if n_g == 0 and not refs:
        n_g = len(matched) + e_miss
    correct = 0.0
    seen: set = set()
    for m in matched:
        if m["ref_id"] in seen:
            continue
        seen.add(m["ref_id"])
        base = ref_weight.get(m["ref_id"], 0.0)
        if m["ref_id"] not in by_ref:
            correct += base
        else:
            denominator = base + sum(by_ref[m["ref_id"]])
            correct += base * (base / denominator if denominator > 0 else 0.0)
    excess = e_false - correct
    if n_g == 0:
        s = 1.0 if e_false == 0 and e_miss == 0 else -(e_false + e_miss + 1)
    else:
        s = (correct - e_false) / n_g
    score = s if s >= 0 else (-1 * excess / (1 + excess) if excess > 0 else 0)
    counts = {"false_findings": len(false_ids), "missing_findings": len(missing_ids), "attribute_errors": len(attrs),
              **{f"{t}_errors": sum(1 for e in attrs if _has_type(e, t)) for t in ATTRIBUTE_TYPES}}
    weighted = {"false_findings": e_false, "missing_findings": e_miss, "attribute_errors": sum(attr_weights)}
    return CrimsonScore(round(score, 4), counts, weighted, n_g, e_false, correct, excess, s, unknown)


# -- the ReXVal categories ---------------------------------------------------------------------------------

ERROR_KINDS = ("false", "missing", *ATTRIBUTE_TYPES)


@dataclass(frozen=True)
class CategoryMap:
    """Which ReXVal category (a)-(f) each CRIMSON error kind counts in (``None``: none), and which finding
    significance levels make a false or missing finding significant."""

    category: dict[str, str | None] = field(default_factory=lambda: {
        "false": "a", "missing": "b", "location": "c", "severity": "d", "descriptor": "d", "measurement": "d",
        "certainty": "d", "unspecific": "d", "overinterpretation": "d", "temporal": "e"})
    significant: frozenset[str] = frozenset({"urgent", "actionable_not_urgent"})

    def spec(self) -> str:
        """The map as ``parse_category_map`` reads it, every entry written out."""
        kinds = ",".join(f"{k}={self.category.get(k) or 'none'}" for k in ERROR_KINDS)
        return kinds + ",significant=" + "+".join(sorted(self.significant))


DEFAULT_MAP = CategoryMap()


def parse_category_map(text: str | None) -> CategoryMap:
    """``kind=category,...`` over :data:`DEFAULT_MAP` (``none`` drops a kind; ``significant=LEVEL+LEVEL`` names
    the finding levels counted significant); ``ValueError`` naming every bad entry."""
    category = dict(DEFAULT_MAP.category)
    significant = DEFAULT_MAP.significant
    problems = []
    for entry in [e.strip() for e in (text or "").split(",") if e.strip()]:
        key, sep, value = (x.strip().lower() for x in entry.partition("="))
        if not sep:
            problems.append(f"{entry!r} is not kind=category")
        elif key == "significant":
            levels = frozenset(v.strip() for v in value.split("+") if v.strip())
            bad = sorted(levels - set(SIGNIFICANCE_WEIGHTS))
            if bad:
                problems.append(f"unknown significance level(s) {bad}; levels: {', '.join(SIGNIFICANCE_WEIGHTS)}")
            significant = levels
        elif key not in ERROR_KINDS:
            problems.append(f"unknown error kind {key!r}; kinds: {', '.join(ERROR_KINDS)}, significant")
        elif value not in (*CATEGORIES, "none"):
            problems.append(f"{key}={value}: the category must be one of {', '.join(CATEGORIES)} or none")
        else:
            category[key] = None if value == "none" else value
    if problems:
        raise ValueError("--crimson-map: " + "; ".join(problems))
    return CategoryMap(category, significant)


def _finding_text(findings: list[dict], fid: object) -> tuple[str, object]:
    for f in reversed(findings):  # a repeated id: the last one, as the weights take it
        if f["id"] == fid:
            return str(f.get("finding", "")).strip(), f.get("clinical_significance", "")
    return "", ""


def _error_items(evaluation: dict, mapping: CategoryMap) -> list[ErrorItem]:
    refs, preds, _, false_ids, missing_ids, attrs = _parts(evaluation)
    items: list[ErrorItem] = []
    for kind, ids, findings in (("false", false_ids, preds), ("missing", missing_ids, refs)):
        cat = mapping.category.get(kind)
        for fid in ids:
            text, level = _finding_text(findings, fid)
            if cat is not None:
                note = f"{kind} finding {fid}" + (f", {level}" if level else "")
                items.append(ErrorItem(cat, level in mapping.significant, f"{text} ({note})" if text else note))
    for err in attrs:
        explanation = str(err.get("explanation", "")).strip()
        for t in ATTRIBUTE_TYPES:
            cat = mapping.category.get(t)
            if cat is not None and _has_type(err, t):
                where = f"{err['ref_id']}/{err.get('pred_id', '?')}"
                items.append(ErrorItem(cat, err.get("severity") == "significant",
                                       f"{t} error {where}" + (f": {explanation}" if explanation else "")))
    return items


def _matched_texts(evaluation: dict) -> list[str]:
    refs, preds, matched, *_ = _parts(evaluation)
    out: dict[object, list[str]] = {}
    for m in matched:
        pred, _ = _finding_text(preds, m.get("pred_id"))
        out.setdefault(m["ref_id"], [])
        if pred:
            out[m["ref_id"]].append(pred)
    return [f"{_finding_text(refs, rid)[0] or rid}" + (f" = {'; '.join(p)}" if p else "") for rid, p in out.items()]


def parse_crimson(text: object, mapping: CategoryMap = DEFAULT_MAP) -> ParseResult:
    """One CRIMSON answer as a :class:`~core.parse.ParseResult`; never raises.

    ``metrics`` holds :data:`CRIMSON_METRICS`; ``sig``/``insig`` the ReXVal categories under ``mapping``;
    ``matched`` the matched reference findings; ``errors`` one item per categorised error. A failure has
    status ``failed``, its reason, and no metric.
    """
    try:
        evaluation, repairs = read_crimson_json(text)
        score = score_evaluation(evaluation)
        errors = _error_items(evaluation, mapping)
        matched_texts = _matched_texts(evaluation)
    except CrimsonAnswerError as exc:
        return ParseResult(status="failed", reason=str(exc), format="crimson")
    except RecursionError:
        return ParseResult(status="failed", reason="the JSON answer is nested too deeply", format="crimson")
    sig = {c: sum(1 for e in errors if e.category == c and e.significant) for c in CATEGORIES}
    insig = {c: sum(1 for e in errors if e.category == c and not e.significant) for c in CATEGORIES}
    c, w = score.counts, score.weighted
    metrics = {"crimson": score.crimson, "crimson_false": c["false_findings"], "crimson_missing": c["missing_findings"],
               "crimson_attribute": c["attribute_errors"], **{f"crimson_{t}": c[f"{t}_errors"] for t in ATTRIBUTE_TYPES},
               "crimson_e_false": w["false_findings"], "crimson_e_miss": w["missing_findings"],
               "crimson_e_attr": w["attribute_errors"]}
    notes = [f"repaired: {', '.join(repairs)}"] if repairs else []
    if score.unknown_labels:
        notes.append(f"{score.unknown_labels} missing or unknown significance/severity label(s) weighed 0.25, "
                     "as upstream does")
    return ParseResult(sig=sig, insig=insig, matched=len(matched_texts), status="ok", reason="; ".join(notes),
                       errors=errors, matched_findings=matched_texts, metrics=metrics, format="crimson")
