"""Tests for core.ingest.synth: the seeded synthetic demo corpus.

The generator claims its labels are correct *by construction*; these tests
check that claim against the text for every pair (not just the bookkeeping),
plus the corpus-level properties the dashboard and the analyses rely on.
"""

from __future__ import annotations

import json
import math
import random
import re
import string
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.ingest import synth
from core.ingest.synth import (
    CATEGORIES,
    CATEGORY_NAMES,
    COMPARISON_CUES,
    EXAMS,
    FINDINGS,
    SYSTEMS,
    DemoCorpus,
    generate_demo,
)
from core.ingest.synth.errors import random_change, random_state
from core.ingest.synth.exams import site_scale
from core.ingest.synth.render import (
    indefinite_article,
    prior_phrases,
    render_impression_item,
    render_negatives,
    render_statement,
)

CUE_RE = re.compile(r"\b(?:" + "|".join(COMPARISON_CUES) + r")\b", re.IGNORECASE)
NEG_RE = re.compile(r"\b(?:no|not|without|negative)\b", re.IGNORECASE)
SIZE_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) (mm|cm)\b")
EXAM_BY_FACETS = {(e.modality, e.anatomy): e for e in EXAMS}


def sentences(text: str) -> list[str]:
    """Split a report into sentences (decimals like 1.2 cm have no space after the dot)."""
    return [s for s in re.split(r"(?<=[.:])\s+|\n+", text) if s.strip()]


def has_form(form: str, text: str) -> bool:
    """Whole-phrase match: 'left' matches 'left-sided' but 'lateral' does not match 'bilateral'."""
    return re.search(r"(?<![\w-])" + re.escape(form) + r"(?!\w)", text, re.IGNORECASE) is not None


def mentions(text: str, key: str) -> bool:
    low = text.lower()
    return any(term in low for term in FINDINGS[key].all_terms)


def sizes_mm(text: str) -> set[int]:
    return {round(float(v) * (10 if unit == "cm" else 1)) for v, unit in SIZE_RE.findall(text)}


def score_formula(sig: int, insig: int) -> float:
    """5 - sig - 0.3 * insig, rounded half up, clipped to 0..5 (exact arithmetic)."""
    x = Fraction(5) - sig - Fraction(3, 10) * insig
    return float(min(5, max(0, math.floor(x + Fraction(1, 2)))))


@pytest.fixture(scope="module")
def corpus() -> DemoCorpus:
    return generate_demo(3000, seed=11)


@pytest.fixture(scope="module")
def default_corpus() -> DemoCorpus:
    return generate_demo()


@pytest.fixture(scope="module")
def metas(corpus) -> list[dict]:
    return [json.loads(m) for m in corpus.pairs["meta"]]


# --------------------------------------------------------------------------- #
# Shape and API                                                                #
# --------------------------------------------------------------------------- #


def test_public_constants():
    assert CATEGORIES == ("a", "b", "c", "d", "e", "f")
    assert set(CATEGORY_NAMES) == set(CATEGORIES)
    assert CATEGORY_NAMES["a"] == "False report of a finding"
    assert CATEGORY_NAMES["f"] == "Omitting a comparison detailing a change from a prior study"
    assert len(SYSTEMS) >= 3 and len(set(SYSTEMS)) == len(SYSTEMS)


def test_columns_and_types(default_corpus):
    pairs, ann = default_corpus.pairs, default_corpus.annotations
    assert default_corpus.seed == 7
    assert list(pairs.columns) == ["ext_id", "reference", "candidate", "group_id", "system", "modality",
                                   "anatomy", "split", "meta"]
    assert list(ann.columns) == ["ext_id", "annotator", "field", "category", "significant", "value", "scale_max"]
    assert len(pairs) == 400
    assert pairs["ext_id"].is_unique
    assert pairs["ext_id"].str.fullmatch(r"demo-\d{6}").all()
    for col in ["ext_id", "reference", "candidate", "group_id", "system", "modality", "anatomy", "split", "meta"]:
        assert all(isinstance(v, str) and v for v in pairs[col]), col
    assert set(pairs["system"]) <= set(SYSTEMS)
    assert set(pairs["split"]) <= {"train", "val", "test"}

    assert len(ann) == 400 * 2 * 13
    counts = ann[ann["field"] == "error_count"]
    scores = ann[ann["field"] == "score"]
    assert set(ann["field"]) == {"error_count", "score"}
    assert set(ann["annotator"]) == {"expert_1", "expert_2"}
    assert set(counts["category"]) == set(CATEGORIES)
    assert all(type(v) is bool for v in counts["significant"])
    assert counts["scale_max"].isna().all()
    assert all(v is None for v in scores["category"]) and all(v is None for v in scores["significant"])
    assert (scores["scale_max"] == 5.0).all()
    assert ann["value"].dtype == np.float64
    # Every pair x annotator has all 12 count cells exactly once (zeros included) and one score.
    cells = counts.groupby(["ext_id", "annotator"]).apply(
        lambda g: sorted(zip(g["category"], g["significant"], strict=True)), include_groups=False)
    expected = sorted((c, s) for c in CATEGORIES for s in (True, False))
    assert all(v == expected for v in cells)
    assert scores.groupby(["ext_id", "annotator"]).size().eq(1).all()
    assert set(ann["ext_id"]) == set(pairs["ext_id"])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 13, 401])
def test_n_pairs_is_exact(n):
    c = generate_demo(n, seed=3)
    assert len(c.pairs) == n
    assert len(c.annotations) == n * 26
    assert list(c.pairs.columns)[0] == "ext_id"


def test_negative_n_is_rejected():
    with pytest.raises(ValueError):
        generate_demo(-1)


def test_deterministic_and_seed_sensitive():
    a = generate_demo(300, seed=5)
    random.seed(12345)  # global random state must not matter
    np.random.seed(12345)
    b = generate_demo(300, seed=5)
    pd.testing.assert_frame_equal(a.pairs, b.pairs)
    pd.testing.assert_frame_equal(a.annotations, b.annotations)
    c = generate_demo(300, seed=6)
    assert not a.pairs["reference"].equals(c.pairs["reference"])
    assert not a.pairs["candidate"].equals(c.pairs["candidate"])
    assert (a.pairs["reference"] != c.pairs["reference"]).mean() > 0.9


def test_smaller_corpus_is_a_prefix():
    small, large = generate_demo(150, seed=5), generate_demo(400, seed=5)
    pd.testing.assert_frame_equal(small.pairs, large.pairs.iloc[:150])
    pd.testing.assert_frame_equal(small.annotations, large.annotations.iloc[:150 * 26])


def test_meta_json(metas, corpus):
    for m, system in zip(metas, corpus.pairs["system"], strict=True):
        assert m["synthetic"] is True
        assert isinstance(m["errors"], list)
        for e in m["errors"]:
            assert e["category"] in CATEGORIES
            assert isinstance(e["significant"], bool)
            assert isinstance(e["detail"], str) and e["detail"]
            assert e["finding"] in FINDINGS
        assert system in SYSTEMS


# --------------------------------------------------------------------------- #
# Groups and splits                                                            #
# --------------------------------------------------------------------------- #


def test_groups_share_reference_split_and_facets(corpus):
    pairs = corpus.pairs
    per_group = pairs.groupby("group_id", sort=False)
    for col in ("reference", "split", "modality", "anatomy"):
        assert per_group[col].nunique().eq(1).all(), col
    # Candidates of one reference come from distinct systems, at least 3 of them
    # (only the last group may be cut short to honour n_pairs exactly).
    assert per_group["system"].apply(lambda s: s.is_unique).all()
    sizes = per_group.size()
    assert (sizes.iloc[:-1] >= 3).all()
    assert sizes.max() <= len(SYSTEMS)


def test_split_proportions(corpus):
    split_of_group = corpus.pairs.groupby("group_id")["split"].first()
    frac = split_of_group.value_counts(normalize=True)
    assert 0.5 < frac["train"] < 0.7
    assert 0.12 < frac["val"] < 0.28
    assert 0.12 < frac["test"] < 0.28


# --------------------------------------------------------------------------- #
# Labels: annotations agree with the constructed errors                        #
# --------------------------------------------------------------------------- #


def _count_matrix(ann: pd.DataFrame, annotator: str, ids: pd.Series) -> np.ndarray:
    sub = ann[(ann["annotator"] == annotator) & (ann["field"] == "error_count")]
    wide = sub.pivot_table(index="ext_id", columns=["category", "significant"], values="value", aggfunc="sum")
    cols = [(c, s) for c in CATEGORIES for s in (True, False)]
    return wide.reindex(index=ids, columns=pd.MultiIndex.from_tuples(cols)).to_numpy()


def test_expert1_counts_equal_constructed_errors(corpus, metas):
    m1 = _count_matrix(corpus.annotations, "expert_1", corpus.pairs["ext_id"])
    expected = np.zeros_like(m1)
    for i, m in enumerate(metas):
        for e in m["errors"]:
            expected[i, 2 * CATEGORIES.index(e["category"]) + (0 if e["significant"] else 1)] += 1
    np.testing.assert_array_equal(m1, expected)


def test_scores_follow_formula_for_each_annotator(corpus):
    ann = corpus.annotations
    for annotator in ("expert_1", "expert_2"):
        m = _count_matrix(ann, annotator, corpus.pairs["ext_id"]).astype(int)
        scores = (ann[(ann["annotator"] == annotator) & (ann["field"] == "score")]
                  .set_index("ext_id")["value"].reindex(corpus.pairs["ext_id"]).to_numpy())
        assert ((scores >= 0) & (scores <= 5)).all()
        expected = [score_formula(int(row[0::2].sum()), int(row[1::2].sum())) for row in m]
        np.testing.assert_array_equal(scores, expected)
    assert score_formula(0, 5) == 4.0 and score_formula(0, 2) == 4.0 and score_formula(7, 0) == 0.0


def test_expert2_agrees_often_but_not_always(corpus, metas):
    ids = corpus.pairs["ext_id"]
    m1 = _count_matrix(corpus.annotations, "expert_1", ids)
    m2 = _count_matrix(corpus.annotations, "expert_2", ids)
    assert (m2 >= 0).all()
    differs = (m1 != m2).any(axis=1)
    assert 0.05 < differs.mean() < 0.4
    identical = np.array([m["identical"] for m in metas])
    assert not differs[identical].any()  # nobody finds errors in a verbatim copy
    # Disagreement includes both miscounts and significance calls.
    total_diff = m2.sum(axis=1) != m1.sum(axis=1)
    assert total_diff.any() and (differs & ~total_diff).any()


# --------------------------------------------------------------------------- #
# Labels: the text reflects every recorded error                               #
# --------------------------------------------------------------------------- #


def _check_report_findings(text: str, exam, present: list[str]) -> None:
    """Findings listed as present are written; any other pool finding is only ever negated."""
    sents = sentences(text)
    for key in exam.pool:
        hits = [s for s in sents if mentions(s, key)]
        if key in present:
            assert hits, f"{key} should be reported in:\n{text}"
        else:
            bad = [s for s in hits if not NEG_RE.search(s)]
            assert not bad, f"{key} is absent but mentioned positively: {bad}"


def _check_error(e: dict, ref: str, cand: str, m: dict) -> None:
    cat, key = e["category"], e["finding"]
    rs, cs = e["ref"], e["cand"]
    if cat == "a":
        assert key not in m["ref_findings"] and key in m["cand_findings"]
        assert cs in cand and cs not in ref
        assert mentions(cs, key)
        assert all(NEG_RE.search(s) for s in sentences(ref) if mentions(s, key))
        return
    assert key in m["ref_findings"] and rs in ref and mentions(rs, key)
    if cat == "b":
        assert key not in m["cand_findings"]
        assert rs not in cand
        assert not mentions(cand, key), f"omitted {key} still named in candidate:\n{cand}"
        return
    assert key in m["cand_findings"] and cs in cand and mentions(cs, key)
    assert cs != rs
    if cat == "c":
        old, new = synth.location_forms(e["from"]), synth.location_forms(e["to"])
        assert any(has_form(x, rs) for x in old) and not any(has_form(x, rs) for x in new), (rs, e)
        assert any(has_form(x, cs) for x in new) and not any(has_form(x, cs) for x in old), (cs, e)
    elif cat == "d" and e["attr"] == "grade":
        old, new = synth.grade_forms(e["from"]), synth.grade_forms(e["to"])
        assert any(has_form(x, rs) for x in old) and not any(has_form(x, rs) for x in new), (rs, e)
        assert any(has_form(x, cs) for x in new) and not any(has_form(x, cs) for x in old), (cs, e)
    elif cat == "d":
        assert e["attr"] == "size" and e["from"] != e["to"]
        assert e["from"] in sizes_mm(rs) and e["to"] not in sizes_mm(rs), (rs, e)
        assert e["to"] in sizes_mm(cs) and e["from"] not in sizes_mm(cs), (cs, e)
    elif cat == "e":
        assert not CUE_RE.search(rs) and CUE_RE.search(cs), (rs, cs)
        assert not any(CUE_RE.search(s) for s in sentences(ref) if mentions(s, key))
    else:  # f
        assert CUE_RE.search(rs) and not CUE_RE.search(cs), (rs, cs)
        assert not any(CUE_RE.search(s) for s in sentences(cand) if mentions(s, key))


def check_pairs(pairs: pd.DataFrame) -> int:
    """Assert, pair by pair, that the texts carry exactly the recorded findings and errors; the number checked."""
    checked = 0
    for row in pairs.itertuples(index=False):
        checked += 1
        m = json.loads(row.meta)
        exam = EXAM_BY_FACETS[row.modality, row.anatomy]
        assert m["identical"] == (row.candidate == row.reference)
        by_cat = Counter(e["category"] for e in m["errors"])
        if m["identical"]:
            assert not m["errors"]
        # Findings bookkeeping: candidate = reference - omitted + invented.
        omitted = {e["finding"] for e in m["errors"] if e["category"] == "b"}
        invented = {e["finding"] for e in m["errors"] if e["category"] == "a"}
        assert set(m["cand_findings"]) == (set(m["ref_findings"]) - omitted) | invented
        assert len({e["finding"] for e in m["errors"]}) == len(m["errors"])  # one error per finding
        assert by_cat["a"] == len(invented) and by_cat["b"] == len(omitted)
        _check_report_findings(row.reference, exam, m["ref_findings"])
        _check_report_findings(row.candidate, exam, m["cand_findings"])
        for e in m["errors"]:
            _check_error(e, row.reference, row.candidate, m)
    return checked


def test_text_reflects_every_error(corpus):
    assert check_pairs(corpus.pairs) == len(corpus.pairs) > 0


def test_text_reflects_every_error_default_corpus(default_corpus):
    assert check_pairs(default_corpus.pairs) == len(default_corpus.pairs) > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(min_value=0, max_value=60), seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_any_seed_gives_consistent_labels(n, seed):
    c = generate_demo(n, seed=seed)
    assert len(c.pairs) == n and len(c.annotations) == 26 * n
    assert check_pairs(c.pairs) == n


def test_zero_error_candidates_are_paraphrases(corpus, metas):
    pairs = corpus.pairs
    zero = [i for i, m in enumerate(metas) if not m["errors"] and not m["identical"]]
    assert len(zero) > 100
    for i in zero:
        assert metas[i]["cand_findings"] == metas[i]["ref_findings"]
        assert pairs["candidate"].iat[i] != pairs["reference"].iat[i]
    # Rewording is real, not just a dropped header: the findings sections differ,
    # and most candidate sentences are not copied verbatim from the reference.
    def body(text: str) -> str:
        return text.split("FINDINGS:", 1)[1]

    reworded = sum(body(pairs["candidate"].iat[i]) != body(pairs["reference"].iat[i]) for i in zero)
    assert reworded / len(zero) > 0.9
    copied = total = 0
    for i in zero:
        ref_sents = set(sentences(pairs["reference"].iat[i]))
        cand_sents = sentences(body(pairs["candidate"].iat[i]))
        total += len(cand_sents)
        copied += sum(s in ref_sents for s in cand_sents)
    assert copied / total < 0.5


def test_errors_are_not_one_token_edits(metas):
    """A changed side/grade is rarely the only difference between the two sentences."""
    edits = [e for m in metas for e in m["errors"] if e["category"] in "cd" and e["attr"] != "size"]
    assert len(edits) > 200
    trivial = 0
    for e in edits:
        forms = synth.location_forms if e["category"] == "c" else synth.grade_forms
        if any(e["ref"].replace(a, b) == e["cand"] for a in forms(e["from"]) for b in forms(e["to"])):
            trivial += 1
    assert trivial / len(edits) < 0.15


def test_phrasing_varies(corpus):
    text = "\n".join(corpus.pairs["candidate"]) + "\n".join(corpus.pairs["reference"])
    # synonyms, negation forms, hedges, units, comparison wording
    for phrase in ("pleural effusion", "pleural fluid collection", "fluid in the", "No evidence of",
                   "is not seen", "is not identified", "There is no", "cannot be excluded", "Probable",
                   "Possible", " mm ", " cm ", "unchanged", "Stable ", "increased", "decreased", "New ",
                   "1. ", "IMPRESSION:", "EXAMINATION:", "left-sided", "bilaterally"):
        assert phrase in text, phrase


# --------------------------------------------------------------------------- #
# Coverage and profiles                                                        #
# --------------------------------------------------------------------------- #


def test_coverage(corpus, metas):
    pairs = corpus.pairs
    assert pairs["modality"].nunique() >= 6
    assert {"XR", "CT", "MRI", "US", "MG"} <= set(pairs["modality"]) and {"CTA", "MRA"} & set(pairs["modality"])
    assert pairs["anatomy"].nunique() >= 12
    assert set(pairs["system"]) == set(SYSTEMS)
    kinds = {(e["category"], e["significant"]) for m in metas for e in m["errors"]}
    assert kinds == {(c, s) for c in CATEGORIES for s in (True, False)}
    n_err = np.array([len(m["errors"]) for m in metas])
    assert (n_err == 0).mean() > 0.15
    assert (n_err >= 6).sum() >= 5
    identical = np.mean([m["identical"] for m in metas])
    assert 0.015 < identical < 0.05
    refs = pairs.drop_duplicates("group_id")["reference"]
    assert refs.str.contains("IMPRESSION:").mean() > 0.7
    assert (~refs.str.contains("IMPRESSION:")).any()  # some findings-only reports
    assert refs.str.contains(r"\bbilateral", case=False).any()
    assert refs.str.contains(r"\d (?:mm|cm)\b").mean() > 0.2
    assert refs.str.contains(r"\b(?:mild|moderate|severe|small|large)\b", case=False).mean() > 0.3
    assert refs.apply(lambda t: bool(CUE_RE.search(t.split("FINDINGS:", 1)[1]))).mean() > 0.15
    assert refs.str.contains(r"\b(?:Possible|Probable|cannot be excluded|suspicious for)\b").any()


def test_system_error_profiles_differ(corpus, metas):
    systems = corpus.pairs["system"].to_numpy()
    stats = {}
    for system in SYSTEMS:
        errs = [e for m, s in zip(metas, systems, strict=True) if s == system for e in m["errors"]]
        n = int((systems == system).sum())
        cats = Counter(e["category"] for e in errs)
        stats[system] = {"mean": len(errs) / n, "share": {c: cats[c] / max(len(errs), 1) for c in CATEGORIES}}
    means = {s: v["mean"] for s, v in stats.items()}
    assert means["sys-careful"] < min(means[s] for s in SYSTEMS if s != "sys-careful")
    share = {s: v["share"] for s, v in stats.items()}
    assert max(SYSTEMS, key=lambda s: share[s]["a"] + share[s]["e"]) == "sys-hallucinating"
    assert max(SYSTEMS, key=lambda s: share[s]["b"] + share[s]["f"]) == "sys-terse"
    assert max(SYSTEMS, key=lambda s: share[s]["c"] + share[s]["d"]) == "sys-sloppy"


def test_significance_follows_clinical_weight(metas):
    # Missing a pneumothorax is always significant; a calcified granuloma never is.
    seen = {}
    for m in metas:
        for e in m["errors"]:
            if e["category"] in "ab":
                seen.setdefault(e["finding"], set()).add(e["significant"])
    assert seen.get("pneumothorax", {True}) == {True}
    assert seen.get("granuloma", {False}) == {False}
    assert any(v == {True} for v in seen.values()) and any(v == {False} for v in seen.values())
    # A finding that never matters clinically never yields a significant error, in any category.
    for m in metas:
        for e in m["errors"]:
            f = FINDINGS[e["finding"]]
            if f.sig is None and f.sig_size is None:
                assert e["significant"] is False, e
    # Only clinically sensible changes are stated (a fracture does not "increase").
    for m in metas:
        for e in m["errors"]:
            if e["category"] in "ef":
                assert (e["to"] or e["from"]) in FINDINGS[e["finding"]].changes, e
    # Comparisons stating no change are minor when omitted or invented.
    assert not any(e["significant"] for m in metas for e in m["errors"]
                   if e["category"] in "ef" and "unchanged" in (e["from"], e["to"]))


# --------------------------------------------------------------------------- #
# Vocabulary lint: the properties the label checks above depend on            #
# --------------------------------------------------------------------------- #


def test_exams_are_well_formed():
    assert len({(e.modality, e.anatomy) for e in EXAMS}) == len(EXAMS)
    assert len({e.title for e in EXAMS}) == len(EXAMS)
    for exam in EXAMS:
        assert len(exam.pool) >= 3 and len(set(exam.pool)) == len(exam.pool)
        assert all(k in FINDINGS for k in exam.pool)
        for k in exam.pool:
            f = FINDINGS[k]
            if f.site:
                assert site_scale(f, exam)


def test_finding_templates_render_every_attribute():
    side_slots = {"side", "sidex", "sidep"}
    for f in FINDINGS.values():
        for raw in f.nps:
            template = raw.removeprefix("1:")
            need = {name for _, name, _, _ in string.Formatter().parse(template) if name}
            assert "t" in need or any(mk in template for mk in f.markers), (f.key, template)
            assert bool(need & side_slots) == bool(f.side), (f.key, template)
            assert ("site" in need) == bool(f.site), (f.key, template)
            assert ("g" in need) == bool(f.grade), (f.key, template)
            assert ("z" in need) == bool(f.size), (f.key, template)


def test_terms_are_unambiguous_within_each_exam():
    for exam in EXAMS:
        for a in exam.pool:
            for b in exam.pool:
                if a != b:
                    clash = [(x, y) for x in FINDINGS[a].all_terms for y in FINDINGS[b].all_terms if x in y]
                    assert not clash, (exam.title, a, b, clash)


def test_rendered_sentences_name_only_their_own_finding():
    rng = random.Random(0)
    priors = prior_phrases("03/14/2022")
    for exam in EXAMS:
        texts = [exam.title, *exam.normal_impression, *exam.tail_abnormal, *exam.tail_normal]
        for text in texts:
            assert not any(mentions(text, k) for k in exam.pool), text
            assert not CUE_RE.search(text), text
        for key in exam.pool:
            f = FINDINGS[key]
            others = [k for k in exam.pool if k != key]
            for normal in f.normal:
                assert not any(mentions(normal, k) for k in exam.pool), normal
                assert not CUE_RE.search(normal)
            for _ in range(60):
                state = random_state(f, exam, rng)
                plain = render_statement(f, state, rng, priors)
                item = render_impression_item(f, state, rng, priors)
                for s in (plain, item):
                    assert mentions(s, key) and not any(mentions(s, k) for k in others), s
                    assert not CUE_RE.search(s), s
                    assert (s[0].isupper() or s[0].isdigit()) and s.endswith("."), s
                if f.cmp:
                    state["cmp"] = random_change(f, rng)
                    for s in (render_statement(f, state, rng, priors),
                              render_impression_item(f, state, rng, priors)):
                        assert CUE_RE.search(s) and mentions(s, key), s
            if f.neg or f.normal:
                for merged in (False, True):
                    for s in render_negatives([key, *[k for k in others if FINDINGS[k].neg][:2]],
                                              rng, merged):
                        assert NEG_RE.search(s) or s in sum((FINDINGS[k].normal for k in exam.pool), ()), s
                        assert not CUE_RE.search(s), s


def test_articles():
    art = indefinite_article
    assert [art(x) for x in ("8 mm", "11 mm", "18 mm", "1.8 cm", "12 mm", "L4-L5", "C5-C6", "ACL", "small",
                             "umbilical", "irregular")] == ["an", "an", "an", "a", "a", "an", "a", "an", "a",
                                                            "an", "an"]
