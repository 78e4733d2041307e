"""Rendering structured findings as report text: sentence frames, noun phrases, negatives, sections."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from core.ingest.synth.exams import EXAMS, Exam
from core.ingest.synth.findings import FINDINGS, FindingSpec, State, presence_significant
from core.ingest.synth.vocabulary import GRADES, SIDE_ADJ, SIDE_PP, SITE_FORMS, grade_forms

_POOL_ORDER: dict[str, dict[str, int]] = {e.title: {k: i for i, k in enumerate(e.pool)} for e in EXAMS}

# (frame, wants_article). "{NP}" is the noun phrase; "{is}" agrees with it.
_POS_FRAMES: tuple[tuple[str, bool], ...] = (
    ("{NP}.", False), ("{NP}.", False), ("There {is} {NP}.", True), ("{NP} {is} present.", True),
    ("{NP} {is} seen.", True), ("{NP} {is} noted.", True), ("{NP} {is} identified.", True),
)
# Hedges come in two certainty tiers; a paraphrase keeps the tier ("possible" is
# not rewritten as "probable"), so hedging never silently changes the meaning.
_HEDGE_FRAMES: dict[str, tuple[tuple[str, bool], ...]] = {
    "possible": (("Possible {NP}.", False), ("{NP} cannot be excluded.", True),
                 ("There {is} questionable {NP}.", False), ("Findings may represent {NP}.", True)),
    "probable": (("Probable {NP}.", False), ("Findings are suspicious for {NP}.", True),
                 ("Findings are concerning for {NP}.", True)),
}
_HEDGE_IMPRESSION: dict[str, tuple[tuple[str, bool], ...]] = {
    "possible": (("Possible {NP}", False), ("{NP} cannot be excluded", True)),
    "probable": (("Probable {NP}", False), ("Findings suspicious for {NP}", True)),
}
# Comparison wording. Anything can increase or decrease; only measurable things
# get "larger/smaller" and only processes "worse/improved" (see _CLAUSES).
_CMP_CLAUSES: dict[str, tuple[str, ...]] = {
    "increased": ("increased since {prior}", "increased compared with {prior}",
                  "which {has} increased since {prior}", "increased in the interval"),
    "decreased": ("decreased since {prior}", "decreased compared with {prior}", "which {has} decreased since {prior}"),
    "unchanged": ("unchanged from {prior}", "unchanged since {prior}", "stable compared with {prior}",
                  "not significantly changed since {prior}"),
    "new": ("new since {prior}", "new compared with {prior}", "not present on {prior}"),
}
_CMP_MEASURED = {"increased": ("larger than on {prior}",), "decreased": ("smaller than on {prior}",)}
_CMP_PROCESS = {"increased": ("worse than on {prior}",), "decreased": ("improved since {prior}",)}
_CLAUSES: dict[str, dict[str, tuple[str, ...]]] = {
    f.key: {
        change: clauses + (_CMP_MEASURED if f.size or f.grade in ("amt", "amt4") else _CMP_PROCESS).get(change, ())
        for change, clauses in _CMP_CLAUSES.items()
    }
    for f in FINDINGS.values()
}
_CMP_PREFIX: dict[str, tuple[str, ...]] = {"unchanged": ("Unchanged", "Stable"), "new": ("New",)}
PRIOR_PLAIN = ("the prior study", "the previous examination", "the prior exam")
_PRIOR_DATED = ("the prior study of {date}", "the previous study dated {date}", "the prior examination from {date}")

_NEG_ONE = ("No {n}.", "No {n}.", "There is no {n}.", "No evidence of {n}.", "{N} is not seen.",
            "{N} is not identified.", "No {n} is seen.")
_PLURAL_NEG = frozenset({"gallstones", "suspicious calcifications"})  # "No gallstones are seen."
_NEG_MULTI = ("No {n}.", "There is no {n}.", "No evidence of {n}.")


def indefinite_article(text: str) -> str:
    """'a' or 'an' for the phrase ``text`` (spoken-form rules for digits and initialisms)."""
    c = text[0]
    if c in "aeiouAEIOU" or c == "8":
        return "an"
    if text[:2] in ("11", "18") and (len(text) == 2 or not text[2].isdigit()):
        return "an"
    if c in "FHLMNRSX" and len(text) > 1 and (text[1].isdigit() or text[1].isupper()):
        return "an"
    return "a"


def _fmt_size(mm: int, rng: random.Random) -> str:
    # Radiologists write small things in mm and larger ones in cm, but not consistently.
    if mm < 10:
        return f"{mm} mm" if rng.random() < 0.75 else f"0.{mm} cm"
    return f"{mm / 10:.1f} cm" if rng.random() < 0.7 else f"{mm} mm"


def pick(seq, rng: random.Random):
    return seq[0] if len(seq) == 1 else seq[int(rng.random() * len(seq))]


_NpPlan = tuple[str, bool, bool, bool, bool, bool, bool, bool, bool, bool]


def _np_plan(template: str) -> _NpPlan:
    """Pre-parse an NP template into (format string, singular-head flag, slot flags).

    The flags say which slots the template uses (s, es, side, sidex, sidep, site,
    g, z), so rendering computes nothing it will not print.
    """
    head1 = template.startswith("1:")
    if head1:
        template = template[2:]
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    flags = tuple(slot in names for slot in ("s", "es", "side", "sidex", "sidep", "site", "g", "z"))
    return (template, head1, *flags)


# Parsed once; rendering is the hot loop of the generator.
_NP_PLANS: dict[str, tuple[_NpPlan, ...]] = {
    f.key: tuple(_np_plan(t) for t in f.nps) for f in FINDINGS.values()
}
_GRADE_FORM_TABLE: dict[str, tuple[tuple[str, ...], ...]] = {
    name: tuple(grade_forms(word) for word in words) for name, words in GRADES.items()
}


def _render_np(f: FindingSpec, st: State, rng: random.Random, article: bool) -> tuple[str, bool]:
    """Noun phrase for a positive finding; returns (text, plural)."""
    rand = rng.random
    terms = f.terms
    sing, plur, kind = terms[int(rand() * len(terms))]
    plans = _NP_PLANS[f.key]
    tpl, head1, n_s, n_es, n_side, n_sidex, n_sidep, n_site, n_g, n_z = plans[int(rand() * len(plans))]
    side = st["side"]
    both = side == "bilateral"
    if head1:
        plural, count = False, True
    else:
        plural = kind == "p" or (kind == "c" and both)
        count = kind == "c"
    slots = {"t": plur if plural else sing}
    if n_s:
        slots["s"] = "s" if both else ""
    if n_es:
        slots["es"] = "es" if both else ""
    if n_side:
        slots["side"] = side
    if n_sidex:
        forms = SIDE_ADJ.get(side, (side,))
        slots["sidex"] = forms[int(rand() * len(forms))]
    if n_sidep:
        forms = SIDE_PP.get(side, (side,))
        slots["sidep"] = forms[int(rand() * len(forms))]
    if n_site:
        site = st["site"]
        forms = SITE_FORMS.get(site, (site,))
        slots["site"] = forms[int(rand() * len(forms))]
    if n_g:
        forms = _GRADE_FORM_TABLE[f.grade][st["grade"]]
        slots["g"] = forms[int(rand() * len(forms))]
    if n_z:
        slots["z"] = _fmt_size(st["size"], rng)
    text = tpl.format_map(slots)
    if article and count and not plural:
        text = f"{indefinite_article(text)} {text}"
    return text, plural


def _cmp_clause(f: FindingSpec, change: str, plural: bool, priors: tuple[str, ...], rng: random.Random) -> str:
    rand = rng.random
    clauses = _CLAUSES[f.key][change]
    clause = clauses[int(rand() * len(clauses))]
    if "{has}" in clause:
        clause = clause.replace("{has}", "have" if plural else "has")
    return clause.replace("{prior}", priors[int(rand() * len(priors))])


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def render_statement(f: FindingSpec, st: State, rng: random.Random, priors: tuple[str, ...]) -> str:
    """One findings-section sentence for a positive finding, comparison included."""
    rand = rng.random
    change = st["cmp"]
    if change in _CMP_PREFIX and not st["hedge"] and rand() < 0.35:
        np_text, _ = _render_np(f, st, rng, article=False)
        return f"{pick(_CMP_PREFIX[change], rng)} {np_text}."
    frames = _HEDGE_FRAMES[st["hedge"]] if st["hedge"] else _POS_FRAMES
    frame, article = frames[int(rand() * len(frames))]
    np_text, plural = _render_np(f, st, rng, article)
    s = frame.replace("{NP}", np_text).replace("{is}", "are" if plural else "is")
    if change is not None:
        s = f"{s[:-1]}, {_cmp_clause(f, change, plural, priors, rng)}."
    return s[0].upper() + s[1:]


def render_impression_item(f: FindingSpec, st: State, rng: random.Random, priors: tuple[str, ...]) -> str:
    if st["hedge"]:
        frame, article = pick(_HEDGE_IMPRESSION[st["hedge"]], rng)
        np_text, plural = _render_np(f, st, rng, article)
        s = frame.replace("{NP}", np_text)
    else:
        s, plural = _render_np(f, st, rng, article=False)
    if st["cmp"] is not None:
        s = f"{s}, {_cmp_clause(f, st['cmp'], plural, priors, rng)}"
    return f"{s[0].upper()}{s[1:]}."


def render_negatives(keys: list[str], rng: random.Random, merge: bool) -> list[str]:
    """Sentences stating the absence of ``keys`` (adjacent generic negatives may be merged)."""
    out: list[str] = []
    nouns: list[str] = []

    def flush() -> None:
        if not nouns:
            return
        if len(nouns) == 1:
            n = nouns[0]
            s = pick(_NEG_ONE, rng).replace("{n}", n).replace("{N}", n)
            if n in _PLURAL_NEG:
                s = s.replace(" is ", " are ")
            out.append(_cap(s))
        else:
            joined = f"{nouns[0]} or {nouns[1]}" if len(nouns) == 2 else ", ".join(nouns[:-1]) + f", or {nouns[-1]}"
            out.append(_cap(pick(_NEG_MULTI, rng).replace("{n}", joined)))
        nouns.clear()

    for key in keys:
        f = FINDINGS[key]
        if f.normal and (not f.neg or rng.random() < 0.5):
            flush()
            out.append(pick(f.normal, rng))
            continue
        nouns.append(pick(f.neg, rng))
        if not merge or len(nouns) == 3:
            flush()
    flush()
    return out


@dataclass
class Report:
    text: str
    statements: dict[str, str]  # finding key -> its findings-section sentence


def render_report(exam: Exam, pos: list[tuple[str, State]], negs: list[str], rng: random.Random, *,
                   priors: tuple[str, ...], header: str | None, impression: bool, reorder: float,
                   merge_neg: float) -> Report:
    """Render FINDINGS (and optionally IMPRESSION) from structured findings."""
    order = _POOL_ORDER[exam.title]
    items: list[tuple[int, int, str]] = [(order[k], 0, k) for k, _ in pos] + [(order[k], 1, k) for k in negs]
    items.sort()
    r = rng.random()
    if r < reorder / 2:
        rng.shuffle(items)  # free order
    elif r < reorder:
        items.sort(key=lambda it: it[1])  # positives first, the way many generators write
    states = dict(pos)
    merge = rng.random() < merge_neg
    sentences: list[str] = []
    statements: dict[str, str] = {}
    run: list[str] = []
    for _, is_neg, key in items:
        if is_neg:
            run.append(key)
            continue
        if run:
            sentences.extend(render_negatives(run, rng, merge))
            run = []
        s = render_statement(FINDINGS[key], states[key], rng, priors)
        statements[key] = s
        sentences.append(s)
    if run:
        sentences.extend(render_negatives(run, rng, merge))

    sep = "\n" if rng.random() < 0.25 else " "
    parts = [header] if header else []
    parts.append("FINDINGS:" + ("\n" if rng.random() < 0.6 else " ") + sep.join(sentences))
    if impression:
        parts.append("IMPRESSION:\n" + _render_impression(exam, pos, rng, priors))
    return Report("\n\n".join(parts), statements)


def _render_impression(exam: Exam, pos: list[tuple[str, State]], rng: random.Random, priors: tuple[str, ...]) -> str:
    # Significant findings always make the impression; others sometimes do.
    flags = [presence_significant(FINDINGS[k], st) for k, st in pos]
    major = [item for item, flag in zip(pos, flags, strict=True) if flag]
    minor = [item for item, flag in zip(pos, flags, strict=True) if not flag and rng.random() < 0.35]
    lines = [render_impression_item(FINDINGS[k], st, rng, priors) for k, st in major + minor]
    if not major:
        lines.insert(0, pick(exam.normal_impression, rng))
    if exam.tail_abnormal:
        lines.append(pick(exam.tail_abnormal if major else exam.tail_normal, rng))
    if len(lines) > 1 and rng.random() < 0.5:
        return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))
    return " ".join(lines)


def prior_phrases(date: str | None) -> tuple[str, ...]:
    if date is None:
        return PRIOR_PLAIN
    return PRIOR_PLAIN + tuple(p.replace("{date}", date) for p in _PRIOR_DATED)
