"""The deterministic checks (LAIas Bench Sec. 4.1, App. B), adapted to reference/candidate pairs.

The paper checks a generated report against its input (exam descriptor and
dictated findings). Here the candidate is the generated report and the
reference report is the input: findings, measurements, spinal levels and sides
must carry over from it, and the sections it has are the template the
candidate must follow (when the reference has no section headers at all, the
structure checks do not apply). The exam descriptor is ``meta.exam`` when the
pair has one, else its modality and anatomy.

Paper checks kept (ids as in App. B): C01-C07, Q05 (as "conclusion section
present"), Q07, Q08, Q09, Q10, R02-R06. Left out because plain-text reports
have no title line or HTML layout: Q01-Q04, Q06 (C04 flags foreign markup), R01.
Added: C08 (a positive finding the reference does not report), T01-T03 and
G01-G02 (the paper generates TERM and GUIDE checks from the locale pack).
Bump :data:`CHECKS_VERSION` when a check's logic changes: it is part of the
run's identity, so results from different logic are never mixed or ranked together.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from core.checks.locale import CompiledLocale, compiled
from core.checks.registry import CHECKS
from core.checks.text import (
    Mention,
    Report,
    findings,
    measurements,
    positive_keys,
    sentences,
    sides_by_finding,
    spinal_levels,
    split_sections,
)

CHECKS_VERSION = "1"
_MARKUP = re.compile(r"\*\*[^*\n]+\*\*|(?m:^#{1,6}\s)|```|(?m:^\s*\|.*\|\s*$)|</?(?!(?:center|b|br)\b)[a-z][^>]*>",
                     re.I)
_NORM = re.compile(r"[^\w]+")


@dataclass
class Context:
    loc: CompiledLocale
    ref: Report
    cand: Report
    ref_mentions: list[Mention]
    cand_mentions: list[Mention]
    family: str | None  # CT | MR | US | XR | MG
    region: str | None
    contrast: bool | None  # None: unknown


@dataclass(frozen=True)
class Result:
    check_id: str
    dimension: str
    severity: str
    passed: bool
    detail: str


def _first_label(table, hint: str | None, exam: str) -> str | None:
    """The label of the first ``(label, pattern)`` of ``table`` found in ``hint``, else in ``exam``."""
    for text in (hint or "", exam):
        for label, pat in table:
            if pat.search(text):
                return label
    return None


def _contrast(loc: CompiledLocale, modality: str | None, exam: str, family: str | None) -> bool | None:
    text = f"{modality or ''} {exam}"
    if loc.exam_with.search(text):
        return True
    if loc.exam_without.search(text):
        return False
    if family in ("XR", "MG", "US"):
        return False  # radiographs and mammograms take no IV contrast; contrast ultrasound says so
    return None


def context(reference: str, candidate: str, *, locale: str = "en-US", modality: str | None = None,
            anatomy: str | None = None, exam: str | None = None) -> Context:
    loc = compiled(locale)
    exam = exam or ""
    ref, cand = split_sections(reference, loc), split_sections(candidate, loc)
    family = _first_label(loc.modality_aliases, modality, exam)
    return Context(loc, ref, cand, findings(ref.text, loc), findings(cand.text, loc), family,
                   _first_label(loc.regions, anatomy, exam), _contrast(loc, modality, exam, family))


def _hits(pattern, text: str, limit: int = 3) -> list[str]:
    if pattern is None or pattern.search(text) is None:  # the usual case: one scan, no match objects
        return []
    return [m.group(0) for m in itertools.islice(pattern.finditer(text), limit)]


def _quote(items) -> str:
    return ", ".join(f"'{i}'" for i in sorted(items))


# -- CRIT: hallucination resistance -----------------------------------------------------------

def contrast_language(ctx: Context):
    if ctx.contrast is not False or ctx.loc.contrast.search(ctx.ref.text):
        return []  # contrast given, unknown, or the reference itself describes contrast
    hits = _hits(ctx.loc.contrast, ctx.cand.text)
    return [(not hits, f"non-contrast {ctx.family or 'exam'}: {_quote(hits)}" if hits else "")]


def _conclusion(report: Report) -> str:
    return report.section("conclusion")


def umbrella(ctx: Context):
    text = _conclusion(ctx.cand)
    if not text.strip():
        return []
    hits = _hits(ctx.loc.umbrella, text)
    return [(not hits, _quote(hits))]


def banned(ctx: Context):
    hits = _hits(ctx.loc.banned, ctx.cand.text)
    return [(not hits, _quote(hits))]


def markup(ctx: Context):
    if _MARKUP.search(ctx.ref.text):
        return []  # the reference is formatted that way: not foreign
    hits = _hits(_MARKUP, ctx.cand.text)
    return [(not hits, _quote(hits))]


def measurements_in_conclusion(ctx: Context):
    text = _conclusion(ctx.cand)
    if ctx.loc.spec.measurements_in_conclusion or not text.strip():
        return []
    found = measurements(text, ctx.loc.spec.decimal_comma)
    return [(not found, f"{len(found)} measurement(s) in the conclusion")]


def normal_lead(ctx: Context):
    text = _conclusion(ctx.cand)
    if not positive_keys(ctx.ref_mentions) or not text.strip():
        return []
    first = sentences(text)[:1]
    bad = bool(first) and bool(ctx.loc.normal_conclusion.match(first[0]))
    return [(not bad, f"opens with '{first[0][:80]}'" if bad else "")]


def _preserved(ref: set[str], cand: set[str], threshold_pct: int):
    if not ref:
        return []
    kept = len(ref & cand)
    ok = kept * 100 >= threshold_pct * len(ref)  # integers: no rounding at the threshold
    return [(ok, f"{kept}/{len(ref)} kept; missing {_quote(ref - cand)}" if not ok else f"{kept}/{len(ref)} kept")]


def findings_preserved(ctx: Context):
    return _preserved(positive_keys(ctx.ref_mentions), {m.key for m in ctx.cand_mentions}, 75)


def no_invented_findings(ctx: Context):
    extra = positive_keys(ctx.cand_mentions) - positive_keys(ctx.ref_mentions)
    return [(not extra, f"not in the reference: {_quote(extra)}" if extra else "")]


# -- QUAL: structure ---------------------------------------------------------------------------

def _section_kept(ctx: Context, role: str, message: str) -> list:
    """The candidate has a ``role`` section when the reference has one (no result when it has none)."""
    if role not in ctx.ref.roles:
        return []
    return [(role in ctx.cand.roles, message)]


def conclusion_present(ctx: Context):
    return _section_kept(ctx, "conclusion", "no conclusion/impression section")


def placeholders(ctx: Context):
    ref_hits = set(_hits(ctx.loc.placeholder, ctx.ref.text, 50))
    hits = [h for h in _hits(ctx.loc.placeholder, ctx.cand.text, 50) if h not in ref_hits][:3]
    return [(not hits, _quote(hits))]


def analysis_present(ctx: Context):
    return _section_kept(ctx, "analysis", "no findings/analysis section")


def us_technique(ctx: Context):
    if not ctx.loc.spec.us_technique_forbidden or ctx.family != "US":
        return []
    return [("technique" not in ctx.cand.roles, "technique section in an ultrasound report")]


def conclusion_duplicates(ctx: Context):
    concl, analysis = _conclusion(ctx.cand), ctx.cand.section("analysis")
    if not concl.strip() or not analysis.strip():
        return []

    def norm(s: str) -> str:
        return _NORM.sub(" ", s.lower()).strip()

    c_sents = [norm(s) for s in sentences(concl)]
    a_text, a_sents = norm(analysis), {norm(s) for s in sentences(analysis)}
    dup = norm(concl) == a_text or (len(c_sents) >= 2 and all(s in a_sents for s in c_sents))
    return [(not dup, "the conclusion repeats the analysis verbatim" if dup else "")]


# -- TERM: terminology (one check per applicable pack entry) -------------------------------------

def forbidden_terms(ctx: Context):
    out = []
    for pattern, _, preferred in ctx.loc.forbidden_terms:
        hits = _hits(pattern, ctx.cand.text, 1)
        out.append((not hits, f"'{hits[0]}' -> '{preferred}'" if hits else ""))
    return out


def forbidden_openers(ctx: Context):
    sents = sentences(ctx.cand.text)
    out = []
    for pattern, _ in ctx.loc.openers:
        hit = next((s for s in sents if pattern.match(s)), None)
        out.append((hit is None, f"opens with '{hit[:40]}'" if hit else ""))
    return out


def modality_vocabulary(ctx: Context):
    out = []
    for pattern, _, why in ctx.loc.modality_vocabulary.get(ctx.family or "", ()):
        if pattern.search(ctx.ref.text):
            continue  # the reference uses it too: not the candidate's error
        hits = _hits(pattern, ctx.cand.text, 1)
        out.append((not hits, f"{why}: '{hits[0]}'" if hits else ""))
    return out


# -- GUIDE: anatomical coverage ------------------------------------------------------------------

def _coverage(ctx: Context):
    tokens = ctx.loc.coverage.get((ctx.family or "", ctx.region or ""), ())
    return [(label, bool(pattern.search(ctx.cand.text))) for label, pattern in tokens]


def structure_covered(ctx: Context):
    return [(ok, "" if ok else f"'{label}' not mentioned") for label, ok in _coverage(ctx)]


def coverage_gap(ctx: Context):
    cov = _coverage(ctx)
    if not cov:
        return []
    missing = [label for label, ok in cov if not ok]
    return [(len(missing) <= 1, f"missing {_quote(missing)}" if len(missing) > 1 else "")]


# -- RAG: fidelity to the reference --------------------------------------------------------------

def laterality(ctx: Context):
    ref_sides = {m_side for m in ctx.ref_mentions for m_side in m.sides} | {
        side for side, pat in ctx.loc.sides if pat.search(ctx.ref.text)}
    if not ref_sides:
        return []
    cand_sides = {side for side, pat in ctx.loc.sides if pat.search(ctx.cand.text)}
    problems = []
    if ref_sides - cand_sides:
        problems.append(f"side(s) {_quote(ref_sides - cand_sides)} of the reference not in the candidate")
    ref_by, cand_by = sides_by_finding(ctx.ref_mentions), sides_by_finding(ctx.cand_mentions)
    for key in sorted(set(ref_by) & set(cand_by)):
        if not ref_by[key] & cand_by[key]:
            problems.append(f"{key.replace('_', ' ')}: {_quote(cand_by[key])} instead of {_quote(ref_by[key])}")
    return [(not problems, "; ".join(problems))]


def levels(ctx: Context):
    ref = spinal_levels(ctx.ref.text)
    if not ref:
        return []
    missing = ref - spinal_levels(ctx.cand.text)
    return [(not missing, f"missing {_quote(missing)}" if missing else "")]


def measures(ctx: Context):
    comma = ctx.loc.spec.decimal_comma
    ref = measurements(ctx.ref.text, comma)
    if not ref:
        return []
    missing = ref - measurements(ctx.cand.text, comma)
    shown = ", ".join(f"{v:g} {u}" for v, u in sorted(missing))
    return [(not missing, f"missing {shown}" if missing else "")]


def key_findings(ctx: Context):
    return _preserved({m.key for m in ctx.ref_mentions}, {m.key for m in ctx.cand_mentions}, 80)


def section_order(ctx: Context):
    order = ("technique", "analysis", "conclusion")
    ref = [r for r in dict.fromkeys(ctx.ref.roles) if r in order]
    cand = [r for r in dict.fromkeys(ctx.cand.roles) if r in order and r in ref]
    if len(ref) < 2 or len(cand) < 2:
        return []
    expected = [r for r in ref if r in cand]
    return [(cand == expected, f"{' -> '.join(cand)} (expected {' -> '.join(expected)})" if cand != expected else "")]


# -- running them ------------------------------------------------------------------------------

#: check id -> the function that runs it, bound from the registry's table (core.checks.registry.CHECKS names
#: each check's function of this module: a name that is not one fails at import).
RUNS: dict[str, Callable[[Context], list]] = {c.id: globals()[c.run] for c in CHECKS.values()}


def evaluate(ctx: Context) -> list[Result]:
    """Every check of the registry on one pair, in its order: one Result per applicable outcome."""
    out = []
    for c in CHECKS.values():
        for passed, detail in RUNS[c.id](ctx):
            out.append(Result(c.id, c.dimension, c.severity, bool(passed), "" if passed else detail))
    return out


def evaluate_pair(reference: str, candidate: str, *, locale: str = "en-US", modality: str | None = None,
                  anatomy: str | None = None, meta: str | dict | None = None) -> list[Result]:
    """Convenience: the checks of one pair (``meta`` may hold ``exam``, the exam descriptor)."""
    modality = modality if isinstance(modality, str) else None  # NULL may arrive as NaN from a frame
    anatomy = anatomy if isinstance(anatomy, str) else None
    exam = None
    if isinstance(meta, str) and meta:
        try:
            meta = json.loads(meta)
        except ValueError:
            meta = None
    if isinstance(meta, dict):
        exam = meta.get("exam") if isinstance(meta.get("exam"), str) else None
    return evaluate(context(reference, candidate, locale=locale, modality=modality, anatomy=anatomy, exam=exam))
