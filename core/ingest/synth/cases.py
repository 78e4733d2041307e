"""Reference reports and the simulated systems' candidates (error injection into the structure)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from core.ingest.synth.errors import error_detail, poisson, propose_error, random_change, random_state
from core.ingest.synth.exams import EXAMS, Exam
from core.ingest.synth.findings import FINDINGS, State
from core.ingest.synth.render import PRIOR_PLAIN, Report, prior_phrases, render_report
from core.ingest.synth.vocabulary import GRADES
from core.taxonomy import CATEGORIES

SYSTEMS: tuple[str, ...] = ("sys-careful", "sys-terse", "sys-hallucinating", "sys-sloppy")
_EXAM_CUM_WEIGHTS = tuple(np.cumsum([e.weight for e in EXAMS]).tolist())
# Capabilities that do not depend on the drawn state (a state has an attribute iff its spec does).
_HAS_LOCATION = frozenset(f.key for f in FINDINGS.values() if f.side or f.site)
_HAS_DEGREE = frozenset(f.key for f in FINDINGS.values() if f.grade or f.size)
_COMPARABLE = frozenset(f.key for f in FINDINGS.values() if f.cmp)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


@dataclass(frozen=True)
class Profile:
    """Error profile and writing style of a simulated report generator.

    ``weights`` are relative rates of categories a-f; ``sig_pref`` is the chance
    of picking a clinically significant target when one is available. The
    ``p_*`` style knobs are benign: reordering sentences, merging or leaving
    out *negative* statements ("No pneumothorax.") and skipping the impression
    are not errors in the ReXVal scheme, which counts positive findings and
    comparisons only -- a judge that flags them is wrong.
    """

    mean_errors: float
    burst_p: float
    weights: tuple[float, float, float, float, float, float]
    sig_pref: float
    p_identical: float
    p_reorder: float
    p_merge_neg: float
    p_drop_neg: float
    p_impression: float


PROFILES: dict[str, Profile] = {
    # Few, mostly insignificant slips; often copies or lightly rewords.
    "sys-careful": Profile(mean_errors=0.55, burst_p=0.0, weights=(1.0, 2.0, 1.0, 2.0, 0.5, 1.0), sig_pref=0.2,
                            p_identical=0.06, p_reorder=0.25, p_merge_neg=0.4, p_drop_neg=0.03, p_impression=0.9),
    # Short reports: drops findings and comparisons (and some negatives).
    "sys-terse": Profile(mean_errors=1.5, burst_p=0.04, weights=(0.3, 5.0, 0.5, 1.0, 0.2, 4.0), sig_pref=0.5,
                          p_identical=0.03, p_reorder=0.5, p_merge_neg=0.8, p_drop_neg=0.35, p_impression=0.6),
    # Invents findings and comparisons, with a long tail of very bad reports.
    "sys-hallucinating": Profile(mean_errors=2.0, burst_p=0.15, weights=(5.0, 0.5, 1.0, 1.0, 4.0, 0.5),
                                  sig_pref=0.6, p_identical=0.01, p_reorder=0.4, p_merge_neg=0.3, p_drop_neg=0.1,
                                  p_impression=0.95),
    # Gets sides, sites, grades and sizes wrong.
    "sys-sloppy": Profile(mean_errors=1.5, burst_p=0.05, weights=(1.0, 1.0, 4.0, 4.0, 1.0, 1.0), sig_pref=0.5,
                           p_identical=0.02, p_reorder=0.6, p_merge_neg=0.5, p_drop_neg=0.1, p_impression=0.85),
}
_N_POS_CUM = (0.12, 0.36, 0.63, 0.83, 0.94, 1.0)  # cumulative P(n positives = 0..5)


@dataclass
class RefCase:
    exam: Exam
    pos: list[tuple[str, State]]
    negs: list[str]
    date: str | None
    report: Report


def make_reference(rng: random.Random) -> RefCase:
    exam = rng.choices(EXAMS, cum_weights=_EXAM_CUM_WEIGHTS)[0]
    pool = exam.pool
    r = rng.random()
    n_pos = next(i for i, c in enumerate(_N_POS_CUM) if r < c)
    n_pos = min(n_pos, len(pool) - 1)
    pos_keys = set(rng.sample(pool, n_pos))
    date = None
    if rng.random() < 0.55:
        y, m, d = 2015 + int(rng.random() * 10), 1 + int(rng.random() * 12), 1 + int(rng.random() * 28)
        style = rng.random()
        date = (f"{m:02d}/{d:02d}/{y}" if style < 0.4 else f"{y}-{m:02d}-{d:02d}" if style < 0.7
                else f"{_MONTHS[m - 1]} {d}, {y}")
    pos: list[tuple[str, State]] = []
    for key in pool:
        if key not in pos_keys:
            continue
        f = FINDINGS[key]
        st = random_state(f, exam, rng)
        if date and f.cmp and rng.random() < 0.45:
            st["cmp"] = random_change(f, rng)
        pos.append((key, st))
    negatable = [k for k in pool if k not in pos_keys and (FINDINGS[k].neg or FINDINGS[k].normal)]
    # Reports with few positive findings say more about what is normal.
    n_neg = min(len(negatable), 1 + int(rng.random() * 3) + max(0, 3 - n_pos))
    neg_set = set(rng.sample(negatable, n_neg))
    negs = [k for k in pool if k in neg_set]
    header = None
    if rng.random() < 0.4:
        header = f"EXAMINATION: {exam.title}.\nCOMPARISON: {date or 'None'}."
    priors = prior_phrases(date)
    report = render_report(exam, pos, negs, rng, priors=priors, header=header,
                            impression=rng.random() < 0.85, reorder=0.0, merge_neg=0.5)
    return RefCase(exam, pos, negs, date, report)


def make_candidate(ref: RefCase, prof: Profile, rng: random.Random) -> tuple[str, list[dict], list[str], bool]:
    """Apply a system's errors to the reference structure and render the candidate.

    Returns (candidate text, error records, candidate positive keys, identical flag).
    """
    exam = ref.exam
    ref_keys = [k for k, _ in ref.pos]
    if rng.random() < prof.p_identical:
        return ref.report.text, [], ref_keys, True

    cand: dict[str, State] = {k: dict(st) for k, st in ref.pos}
    negs = list(ref.negs)
    errors: list[tuple] = []
    n_err = poisson(prof.mean_errors, rng)
    if prof.burst_p and rng.random() < prof.burst_p:
        n_err += 3 + int(rng.random() * 3)
    rand = rng.random
    # One error per finding keeps every label unambiguous: a finding leaves these
    # pools once it has been touched.
    untouched = list(ref_keys)
    inventable = [k for k in exam.pool if k not in cand]
    w_a, w_b, w_c, w_d, w_e, w_f = prof.weights
    for _ in range(n_err):
        options = (
            inventable,
            untouched,
            [k for k in untouched if k in _HAS_LOCATION],
            [k for k in untouched if k in _HAS_DEGREE],
            [k for k in untouched if k in _COMPARABLE and cand[k]["cmp"] is None],
            [k for k in untouched if cand[k]["cmp"] is not None],
        )
        weights = (w_a if inventable else 0.0, w_b if untouched else 0.0, w_c if options[2] else 0.0,
                   w_d if options[3] else 0.0, w_e if options[4] else 0.0, w_f if options[5] else 0.0)
        r = rand() * sum(weights)
        if r == 0:
            break
        ci = 5
        for j, w in enumerate(weights):
            if r < w:
                ci = j
                break
            r -= w
        cat = CATEGORIES[ci]
        # Propose on up to two targets and keep the first of the preferred
        # significance (systems differ in how often they err where it matters).
        keys = options[ci]
        if len(keys) > 2:
            i1 = int(rand() * len(keys))
            i2 = int(rand() * (len(keys) - 1))
            keys = (keys[i1], keys[i2 + (i2 >= i1)])
        want = rand() < prof.sig_pref
        for key in keys:
            f = FINDINGS[key]
            st = random_state(f, exam, rng) if ci == 0 else cand[key]
            sig, attr, old, new = propose_error(cat, f, st, exam, rng)
            if sig == want:
                break
        detail = error_detail(cat, f, st, attr, old, new)
        if ci == 0:
            inventable.remove(key)
            cand[key] = st
            if key in negs:  # the reference called it normal: the candidate contradicts it
                negs.remove(key)
                detail += " (reference states it is absent)"
        else:
            untouched.remove(key)
            if ci == 1:
                del cand[key]
            else:
                st[attr] = new  # c, d, e set the new value; f sets the comparison to None
        if attr == "grade":  # record grade words, not indices
            old, new = GRADES[f.grade][old], GRADES[f.grade][new]
        errors.append((cat, bool(sig), detail, key, attr, old, new))

    pos = [(k, cand[k]) for k in exam.pool if k in cand]
    if prof.p_drop_neg:
        negs = [k for k in negs if rand() >= prof.p_drop_neg]
    # A generator only knows "the prior study" unless the reference gave a date.
    priors = prior_phrases(ref.date) if ref.date and rng.random() < 0.5 else PRIOR_PLAIN
    # Only the deliberate copies may equal the reference (the "identical pairs"
    # filter relies on it); a very short report can paraphrase back to itself.
    for _attempt in range(8):
        report = render_report(exam, pos, negs, rng, priors=priors, header=None,
                                impression=rng.random() < prof.p_impression, reorder=prof.p_reorder,
                                merge_neg=prof.p_merge_neg)
        if report.text != ref.report.text:
            break
    records = [
        {"category": cat, "significant": sig, "detail": detail, "finding": key, "attr": attr, "from": old,
         "to": new, "ref": ref.report.statements.get(key) if cat != "a" else None,
         "cand": report.statements.get(key) if cat != "b" else None}
        for cat, sig, detail, key, attr, old, new in errors
    ]
    return report.text, records, [k for k, _ in pos], False
