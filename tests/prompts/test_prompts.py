"""Tests for core.prompts: templates, rendering, few-shot builders, injection helpers."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.prompts as P
from core.prompts import fewshot, loader, render
from core.prompts.baselines import (
    number_lines,
    parse_fineradscore_answer,
    parse_radfact_answer,
    split_lines,
)

PAPER_TEMPLATES = ("green", "vert", "formula", "rubric", "inject_false_finding",
                   "inject_omission", "plausibility")

# Any edit to a template must update this table on purpose: the prompt is the metric.
PINNED_HASHES = {
    "crimson": "bc1cd90408798ce2",
    "crimson_context_guidelines": "df20bf12aadf7b98",
    "crimson_noguide": "a57c85681fc4a8f7",
    "crimson_system": "16c21919ad5b716b",
    "fewshot_example_rad_err": "59257bdefab2cd17",
    "fewshot_example_rad_err_10": "2f33d41671a23cc7",
    "fewshot_example_random": "e366e4f3a29dd628",
    "fewshot_example_rate_err": "1c571b84a78a6fd9",
    "fewshot_example_rate_err_10": "1828c3c10e3cb587",
    "fewshot_section_examples": "3aeb3e97e9795ed9",
    "fewshot_section_rad_err_10": "efe9ae3d10f53ed4",
    "fewshot_section_rate_err_10": "b2813a261df877fb",
    "fineradscore": "c92e72124f69b342",
    "formula": "d64a6687c8508b47",
    "green": "1a8ea2a05104202d",
    "green_original": "11e4f7718e50ca60",
    "inject_false_finding": "1a8c20ee66cb66e2",
    "inject_omission": "f9631f915580766e",
    "inject_user": "06ef855af3877d9c",
    "plausibility": "fcf269087ae45d62",
    "plausibility_user": "176a60e24ad89ab7",
    "radfact": "4c9f7dd77fee8de6",
    "rubric": "f609e98c3cea3ced",
    "vert": "d8ae8281058550a5",
}

HOSTILE = [
    "Heart size normal. {reference} {candidate} {0} {} {{ }} }{",
    "Text with {{reference}} and {{candidate}} and {{examples}} inside.",
    "Regex escapes \\1 \\g<0> $1 %s %(x)s and a lone { brace",
    "Multi-line\n\n  report\twith tabs\r\nand CRLF, unicode → ’ ‘‘ é 中文",
]


# ------------------------------------------------------------------ templates


def test_every_template_loads_with_a_cited_header():
    ids = P.list_templates()
    assert set(ids) == set(PINNED_HASHES)
    for tid in ids:
        t = P.get_template(tid)
        assert t.id == tid
        assert t.source and t.status and t.role in ("user", "system")
        assert t.body and not t.body.startswith("\n") and not t.body.endswith("\n")
        if t.designed:
            assert "designed" in t.source.lower()
        elif t.status == "repository":  # taken from a released repository's code (CRIMSON): file and commit
            assert "/" in t.source and re.search(r"commit [0-9a-f]{40}", t.source), tid
        else:
            assert "Appendix" in t.source


def test_declared_placeholders_are_exactly_those_in_the_body():
    for tid in P.list_templates():
        t = P.get_template(tid)
        found = loader.PLACEHOLDER_RE.findall(t.body)
        assert set(found) == set(t.placeholders), tid
        assert len(t.placeholders) == len(set(t.placeholders)), tid
        # Nothing in a body looks like a placeholder except the declared ones (CRIMSON's upstream text sends
        # doubled braces literally, {{R1, P1}}: tests/prompts/test_crimson_prompt.py checks those).
        if not tid.startswith("crimson"):
            assert set(re.findall(r"\{\{(.*?)\}\}", t.body)) == set(t.placeholders), tid


def test_judge_templates_have_both_reports():
    for pid in ("green", "green_original", "vert", "formula", "rubric", "radfact", "fineradscore"):
        t = P.get_template(pid)
        assert {"reference", "candidate"} <= set(t.placeholders)
        assert t.body.count("{{reference}}") == 1 and t.body.count("{{candidate}}") == 1


def test_unknown_template_lists_valid_ids():
    with pytest.raises(ValueError) as err:
        P.get_template("nope")
    assert "vert" in str(err.value) and "green" in str(err.value)


def test_hash_is_sha256_of_body_and_pinned():
    for tid, pinned in PINNED_HASHES.items():
        t = P.get_template(tid)
        assert t.hash == hashlib.sha256(t.body.encode("utf-8")).hexdigest()[:16]
        assert t.hash == pinned, f"{tid} changed: update PINNED_HASHES only if intended"


def test_hash_is_stable_across_loads_and_changes_with_the_body(tmp_path):
    src = loader.TEMPLATE_DIR / "vert.txt"
    again = loader.parse_file(src)
    assert again.hash == P.get_template("vert").hash
    text = src.read_text(encoding="utf-8")
    edited = tmp_path / "vert.txt"
    edited.write_text(text.replace("two decimals.", "two decimals!"), encoding="utf-8")
    assert loader.parse_file(edited).hash != again.hash
    # Header edits do not change the hash: only the body defines the prompt.
    edited.write_text(text.replace("# title: VERT judge prompt", "# title: other"), encoding="utf-8")
    assert loader.parse_file(edited).hash == again.hash


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# id: y\n# source: s\n# status: paper\n# role: user\n# placeholders:\n\nbody\n", "file name"),
        ("# id: x\n\nbody\n", "lacks"),
        ("# id: x\n# source: s", "blank line"),
        ("# id: x\n# source: s\n# status: paper\n# role: user\n# placeholders:\n\n\n", "empty body"),
        ("# id: x\nno hash\n\nbody\n", "does not start"),
    ],
)
def test_template_file_format_errors(tmp_path, text, message):
    bad = tmp_path / "x.txt"
    bad.write_text(text)
    with pytest.raises(ValueError, match=message):
        loader.parse_file(bad)


def test_substitute_rejects_missing_extra_and_non_str():
    with pytest.raises(ValueError, match="missing"):
        loader.substitute("a {{x}} b", {})
    with pytest.raises(ValueError, match="unknown"):
        loader.substitute("a {{x}} b", {"x": "1", "y": "2"})
    with pytest.raises(ValueError, match="must be str"):
        loader.substitute("a {{x}} b", {"x": 3})


# ------------------------------------------------------- paper text (exact)

PAPER_SENTENCES = {
    "green": [
        "Objective: Evaluate the accuracy of a candidate radiology report in\n"
        "comparison to a reference radiology report composed by expert radiologists.",
        "b) Missing a finding present in the reference.\n"
        "c) Misidentification of a finding’s anatomic location/position.",
        "Note: Concentrate on the clinical findings rather than the report’s writing\n"
        "style. Evaluate only the findings that appear in both reports.",
        "Follow this specific format for your output, even if no errors are found:\n```\n"
        "[Explanation]:\n<Explanation>",
        "[Matched Findings]:\n<count>. <Finding 1>; <Finding 2>; ...\n```",
    ],
    "vert": [
        "The count of clinically insignificant errors.\n"
        "The overall accuracy score to assign to the candidate report given the\n"
        "count of clinically significant and clinically insignificant errors. The\n"
        "score must be a continuous number in [0.00, 1.00] with two decimals.",
        "<count>. <Finding 1>; <Finding 2>; ...\n\n[Overall Accuracy Score]:\n"
        "<Overall accuracy score between 0 and 1 given the total number of clinically\n"
        "significant and insignificant errors in the candidate reports>\n```",
        "e) Mentioning a comparison that isn’t in the reference.",
    ],
    "formula": [
        "Radiology Report Evaluation Prompt (Formula-Based LLM Judge)",
        "Score = M / (M + 2*S + 0.5*I)\nRound the final score to two decimal places.\n"
        "The score must be between 0.00 and 1.00.",
        "Reference: ‘‘Small left pleural effusion’’\nCandidate: ‘‘Trace pleural fluid on the left’’\n"
        "=> Match.",
        "Only evaluate explicitly stated findings. Do not infer new findings.",
    ],
    "rubric": [
        "0.50--0.74: Moderate accuracy. Several discrepancies or one clinically\n"
        "significant error affecting interpretation.",
        "Select a score within the appropriate range based on the severity and\n"
        "number of errors. Round the score to two decimal places.",
        "- Minor incidental findings\n\nStep 5: Assess Overall Accuracy",
    ],
    "green_original": [
        "(a) <Error Type>: <The number of errors>. <Error 1>; <Error 2>; ...; <Error n>",
        "<The number of matched findings>. <Finding 1>; <Finding 2>; ...; <Finding n>",
        "Note: Concentrate on the clinical findings rather than the report's writing style.",
    ],
    "inject_false_finding": [
        "ERROR TYPE (a): False Prediction of Finding (i.e., false positive)",
        "× ’normal’ → ’unremarkable’ (NO)",
        "EXPLANATION: Added a small saccular aneurysm at the left ICA-PCoA junction.",
        '"harm potential": ""\n}\n]\n}\n\nREQUIREMENTS:',
        "- severity: Leave empty (for compatibility with other datasets)",
        "√ Use only the specified error type: false prediction of finding (false\npositive)",
    ],
    "inject_omission": [
        "ERROR TYPE (b): Omission of Finding (i.e., false negative)",
        "Omission of finding (false negative): remove a finding that IS present in",
        "EXPLANATION: Removed the complete ACL tear.",
        '- modified: Text in modified report (or empty string "" if the sentence\n'
        "was deleted entirely)",
        "√ Ensure the report still reads naturally after the omission",
    ],
    "plausibility": [
        "You are a radiology expert. You will be given a radiology report, its\n"
        "imaging modality and body region, and a list of modifications made to\nit.",
        "A modification is NOT plausible if:",
        "‘‘plausible’’: true or false,",
    ],
    "fewshot_section_rate_err_10": [
        "→ The candidate falsely reports a small left pleural effusion that is\n"
        "not present in the reference.",
        "--- Error type (f): Omitting a comparison detailing a change from\na prior study ---",
        "→ The candidate omits the clinically important interval change.\n\n"
        "6. Full Assessment Examples:\n{{examples}}",
    ],
    "fewshot_section_examples": ["5. Examples:\n\n{{examples}}"],
    "fewshot_example_random": ["--- Example {{n}} ---", "[Overall Accuracy Score]:\n{{score}}"],
    "fewshot_example_rad_err": [
        "--- Example {{n}} (illustrating error category ({{category}})) ---",
        "[Overall accuracy Score]:\n{{score}}",
    ],
    "fewshot_example_rate_err": [
        "[Explanation]:\n{{explanation}}",
        "{{significant_errors}}\n[Clinically Insignificant Errors]:",
        "[Overall accuracy Score]:",
    ],
    "fewshot_example_rad_err_10": ["[Overall Accuracy Score]:\n{{score}}"],
    "fewshot_example_rate_err_10": [
        "[Explanation]: {{explanation}}",
        "[Matched Findings]: {{matched_findings}}",
        "[Overall accuracy Score]:",
    ],
}


@pytest.mark.parametrize("tid", sorted(PAPER_SENTENCES))
def test_distinctive_paper_sentences_are_verbatim(tid):
    body = P.get_template(tid).body
    for sentence in PAPER_SENTENCES[tid]:
        assert sentence in body, f"{tid}: {sentence!r}"


def test_extraction_artifacts_are_gone():
    for tid in P.list_templates():
        body = P.get_template(tid).body
        assert "ˋ" not in body, tid  # mis-mapped backtick
        assert "Preprint" not in body, tid  # running header
        assert not re.search(r"(?m)^\d{1,3}$", body), tid  # page number line
        assert not re.search(r"√$", body, re.M), tid  # check mark at line end
        assert "[Same as" not in body and "[Steps 1--4" not in body, tid  # elisions filled


# The templates were checked line by line against the papers' text when they were
# written; the tests never read the papers (the project stands alone). The pinned
# hashes above catch any later edit of a template body.


def test_green_d1_differs_from_green_a1_so_both_exist():
    assert P.get_template("green").body != P.get_template("green_original").body


def test_category_names_match_the_green_prompt():
    body = P.get_template("green").body
    for c, name in P.CATEGORY_NAMES.items():
        assert f"{c}) {name}." in body


# ----------------------------------------------------------------- rendering

JUDGE_ZERO_SHOT = ("green", "green_original", "vert", "formula", "rubric", "radfact", "fineradscore")


def _shots(n=3):
    return [
        P.Shot(reference=HOSTILE[i % 4], candidate=HOSTILE[(i + 1) % 4], score=0.85,
               sig={"a": 1}, insig={}, explanation="{{reference}} expl",
               matched_findings="2. {x}", category="a", ext_id=str(i))
        for i in range(n)
    ]


@pytest.mark.parametrize("pid", JUDGE_ZERO_SHOT)
@pytest.mark.parametrize("ref, cand", list(zip(HOSTILE, HOSTILE[::-1], strict=True)))
def test_reports_are_inserted_verbatim(pid, ref, cand):
    messages = P.render_messages(pid, ref, cand)
    assert [m["role"] for m in messages] == ["user"]
    content = messages[0]["content"]
    assert ref in content and cand in content
    body = P.get_template(pid).body
    # The prompt text around the reports is untouched.
    before, _, rest = body.partition("{{reference}}")
    assert content.startswith(before)
    assert content.endswith(body.rpartition("}}")[2])
    # A report that looks like a placeholder is not expanded.
    if "{{candidate}}" in ref:
        assert cand not in ref and content.count(cand) >= 1
        assert ref in content


@settings(max_examples=60, deadline=None)
@given(ref=st.lists(st.sampled_from([*"{}ab $\\%\n1_", "{{reference}}", "{{x}}"])).map("".join),
       cand=st.lists(st.sampled_from([*"{}cd $\\%\n2_", "{{candidate}}", "\\g<0>"])).map("".join))
def test_render_is_a_plain_substitution_for_any_text(ref, cand):
    body = P.get_template("vert").body
    expected = body.replace("{{reference}}", "\0R").replace("{{candidate}}", "\0C")
    expected = expected.replace("\0R", ref).replace("\0C", cand)
    assert P.render_messages("vert", ref, cand)[0]["content"] == expected


@pytest.mark.parametrize("pid", [v.prompt_id for v in P.FEWSHOT_VARIANTS.values()])
def test_fewshot_prompts_keep_reports_and_shots_verbatim(pid):
    shots = _shots(3)
    content = P.render_messages(pid, HOSTILE[1], HOSTILE[2], shots)[0]["content"]
    base = P.render_messages("vert", HOSTILE[1], HOSTILE[2])[0]["content"]
    assert content.startswith(base + "\n\n")
    for s in shots:
        assert s.reference in content and s.candidate in content
    assert "--- Example 3" in content and "--- Example 4" not in content


def test_vert_with_shots_is_the_d5_form():
    shots = _shots(3)
    assert (P.render_messages("vert", "R", "C", shots)
            == P.render_messages("vert_random", "R", "C", shots))
    rendered = P.prompt_for("vert", "R", "C", shots)
    assert rendered.prompt_id == "vert_random"
    assert rendered.prompt_hash == P.prompt_hash("vert_random")


def test_random_fewshot_section_layout():
    shots = [P.Shot("REF1", "CAND1", score=0.7), P.Shot("REF2", "CAND2", score=1.0)]
    content = P.render_messages("vert_random", "R", "C", shots)[0]["content"]
    assert content.endswith(
        "```\n\n5. Examples:\n\n--- Example 1 ---\nReference Report:\nREF1\n\nCandidate Report:\n"
        "CAND1\n\n[Overall Accuracy Score]:\n0.70\n\n--- Example 2 ---\nReference Report:\nREF2\n\n"
        "Candidate Report:\nCAND2\n\n[Overall Accuracy Score]:\n1.00"
    )


def test_rad_err_example_expands_counts_like_d6():
    shot = P.Shot("R1", "C1", score=P.rad_err_score(2), sig={"a": 1, "c": 1},
                  insig={"d": 1.5}, category="a")
    section = P.render_fewshot_section("rad_err", [shot])
    assert "--- Example 1 (illustrating error category (a)) ---" in section
    assert "[Clinically Significant Errors]:\n(a) False report of a finding in the candidate: 1.\n" \
           "(b) Missing a finding present in the reference: 0.\n" in section
    assert "(c) Misidentification of a finding’s anatomic location/position: 1." in section
    assert "(d) Misassessment of the severity of a finding: 1.5." in section
    assert section.endswith("[Overall accuracy Score]:\n0.70")


def test_shot_lacking_a_needed_field_is_rejected():
    with pytest.raises(ValueError, match="explanation"):
        P.render_fewshot_section("rate_err", [P.Shot("R", "C", score=0.85, sig={}, insig={},
                                                     category="a")])
    with pytest.raises(ValueError, match="unknown few-shot variant"):
        P.render_fewshot_section("nine_shot", _shots(1))


def test_render_messages_errors():
    with pytest.raises(ValueError, match="valid ids"):
        P.render_messages("verty", "R", "C")
    with pytest.raises(ValueError, match="shots"):
        P.render_messages("green", "R", "C", _shots(3))
    with pytest.raises(ValueError, match="few-shot"):
        P.render_messages("vert_rad_err", "R", "C")
    with pytest.raises(ValueError, match="render_injection"):
        P.render_messages("inject_omission", "R", "C")
    with pytest.raises(ValueError, match="must be str"):
        P.render_messages("vert", None, "C")


def test_prompt_for_records_id_and_hash():
    rendered = P.prompt_for("green", "R", "C")
    messages, pid, phash = rendered
    assert pid == "green" and phash == P.get_template("green").hash
    assert messages == P.render_messages("green", "R", "C")
    hashes = {p: P.prompt_hash(p) for p in P.list_prompts(include_injection=True)}
    assert len(set(hashes.values())) == len(hashes)
    assert all(re.fullmatch(r"[0-9a-f]{16}", h) for h in hashes.values())


def test_composite_hash_changes_with_any_part(monkeypatch):
    before = P.prompt_hash("vert_rad_err")
    original = render.get_template

    def edited(tid):
        t = original(tid)
        if tid == "fewshot_example_rad_err":
            body = t.body + " "
            return loader.PromptTemplate(t.id, t.source, body, loader.body_hash(body), t.placeholders)
        return t

    monkeypatch.setattr(render, "get_template", edited)
    assert P.prompt_hash("vert_rad_err") != before
    assert P.prompt_hash("vert") == original("vert").hash


def test_fineradscore_numbers_candidate_lines():
    cand = "No effusion. Nodule 1.5 cm in the {{reference}} lobe.\nHeart normal!"
    content = P.render_messages("fineradscore", "Ref.", cand)[0]["content"]
    assert cand in content
    assert "[1] No effusion.\n[2] Nodule 1.5 cm in the {{reference}} lobe.\n[3] Heart normal!" in content
    assert split_lines("  \n") == [] and "no lines" in number_lines("")


def test_no_streamlit_under_core_prompts():
    pkg = Path(P.__file__).parent
    for src in pkg.glob("*.py"):
        assert "streamlit" not in src.read_text(encoding="utf-8"), src.name


# ------------------------------------------------------------------ few-shot


def _pool(n=30, with_score=True):
    rows = []
    for i in range(n):
        row = {"ext_id": f"p{i:03d}", "pair_id": f"h{i:03d}", "group_id": f"g{i // 3}",
               "dataset": "radeval" if i % 2 == 0 else "rate", "split": "train",
               "reference": f"Reference {i}.", "candidate": f"Candidate {i}.",
               "explanation": f"Explanation {i}.", "matched_findings": f"{i % 4}. A; B"}
        for j, c in enumerate(P.CATEGORIES):
            row[f"sig_{c}"] = 1 if i % 7 == j else 0
            row[f"insig_{c}"] = 1 if i % 5 == j else 0
        if i % 7 == 6:  # pairs with two significant types
            row["sig_a"] = 1
            row["sig_b"] = 2
        if with_score:
            row["score"] = i % 6  # a 0-5 scale
        rows.append(row)
    return pd.DataFrame(rows)


def test_random_shots_are_seeded_and_recorded():
    pool = _pool()
    shots, rec = P.sample_random_shots(pool, 5, 11, score_scale=5)
    again, rec2 = P.sample_random_shots(pool, 5, 11, score_scale=5)
    assert shots == again and rec == rec2
    assert rec["k"] == 5 and rec["seed"] == 11 and rec["variant"] == "random"
    assert rec["paper_section"] == "D.5" and rec["ext_ids"] == [s.ext_id for s in shots]
    assert json.loads(json.dumps(rec)) == rec  # storable as JSON
    other = {tuple(P.sample_random_shots(pool, 5, seed, score_scale=5)[1]["ext_ids"])
             for seed in range(10)}
    assert len(other) > 1
    by_id = pool.set_index("ext_id")
    for s in shots:
        assert s.score == by_id.loc[s.ext_id, "score"] / 5
        assert s.reference == by_id.loc[s.ext_id, "reference"]


def test_random_shots_do_not_depend_on_row_order():
    pool = _pool()
    shuffled = pool.sample(frac=1.0, random_state=3)
    a = P.sample_random_shots(pool, 10, 5, score_scale=5)[1]["ext_ids"]
    b = P.sample_random_shots(shuffled, 10, 5, score_scale=5)[1]["ext_ids"]
    assert a == b


def test_random_shots_never_include_excluded_pairs():
    pool = _pool()
    evaluated = [f"p{i:03d}" for i in range(0, 30, 2)]
    for seed in range(40):
        shots, rec = P.sample_random_shots(pool, 10, seed, evaluated, score_scale=5)
        assert not set(rec["ext_ids"]) & set(evaluated)
        assert rec["n_excluded"] == 15
    # store pair ids are honoured too, and so are groups (shared references)
    ids = P.sample_random_shots(pool, 10, 0, [f"h{i:03d}" for i in range(20)], score_scale=5)[1]
    assert all(int(x[1:]) >= 20 for x in ids["ext_ids"])
    ids = P.sample_random_shots(pool, 3, 0, exclude_groups=[f"g{i}" for i in range(9)],
                                score_scale=5)[1]["ext_ids"]
    assert sorted(ids) == ["p027", "p028", "p029"]


def test_random_shots_error_clearly_when_pool_is_too_small():
    pool = _pool(12)
    with pytest.raises(ValueError, match=r"need 10 eligible pairs, have 8 .*4 excluded"):
        P.sample_random_shots(pool, 10, 0, ["p000", "p001", "p002", "p003"], score_scale=5)
    with pytest.raises(ValueError, match="need 5 eligible pairs, have 0"):
        P.sample_random_shots(pool, 5, 0, dataset="other", score_scale=5)


def test_random_shot_arguments_are_checked():
    pool = _pool()
    with pytest.raises(ValueError, match="k must be one of"):
        P.sample_random_shots(pool, 4, 0, score_scale=5)
    with pytest.raises(ValueError, match="seed"):
        P.sample_random_shots(pool, 3, None, score_scale=5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        P.sample_random_shots(pool, 3, 0)  # 0-5 scores without score_scale
    with pytest.raises(ValueError, match="lacks columns"):
        P.sample_random_shots(pool.drop(columns=["reference"]), 3, 0, score_scale=5)
    with pytest.raises(ValueError, match="duplicate"):
        P.sample_random_shots(pd.concat([pool, pool]), 3, 0, score_scale=5)
    with pytest.raises(ValueError, match="DataFrame"):
        P.sample_random_shots([{"ext_id": 1}], 3, 0)


def test_random_shots_filter_dataset_and_split_and_skip_incomplete_rows():
    pool = _pool()
    pool.loc[pool["ext_id"] == "p004", "score"] = None
    shots, rec = P.sample_random_shots(pool, 10, 1, dataset="radeval", split="train", score_scale=5)
    assert all(int(x[1:]) % 2 == 0 for x in rec["ext_ids"]) and "p004" not in rec["ext_ids"]
    assert rec["n_eligible"] == 14 and rec["n_incomplete"] == 1 and rec["dataset"] == "radeval"


def test_random_shots_without_score_use_the_rad_err_formula():
    shots, rec = P.sample_random_shots(_pool(with_score=False), 10, 2)
    assert "0.15" in rec["score_source"]
    for s in shots:
        i = int(s.ext_id[1:])
        sig = 3 if i % 7 == 6 else (1 if i % 7 < 6 else 0)
        assert s.score == pytest.approx(max(0.0, 1 - 0.15 * sig))


@pytest.mark.parametrize("n, expected", [(0, 1.0), (1, 0.85), (2, 0.70), (3, 0.55), (4, 0.40),
                                         (6, 0.10), (7, 0.0), (12, 0.0), (1.5, 0.775)])
def test_rad_err_score_formula(n, expected):
    assert P.rad_err_score(n) == pytest.approx(expected, abs=1e-12)


def test_rad_err_score_exact_values_and_format():
    assert P.rad_err_score(1) == 0.85 and P.rad_err_score(2) == 0.7
    assert fewshot.format_score(P.rad_err_score(1)) == "0.85"
    assert fewshot.format_score(P.rad_err_score(2)) == "0.70"
    with pytest.raises(ValueError):
        P.rad_err_score(-1)


def test_rad_err_shots_one_per_error_type():
    pool = _pool()
    shots, rec = P.rad_err_shots(pool, 0)
    assert [s.category for s in shots] == list(P.CATEGORIES)
    assert len(set(rec["ext_ids"])) == 6 and rec["paper_section"] == "D.6"
    for s in shots:
        assert s.sig[s.category] >= 1
        # a pair whose significant errors are all of the illustrated type is preferred
        assert s.sig_total == s.sig[s.category]
        assert s.score == P.rad_err_score(s.sig_total)
    assert P.rad_err_shots(pool, 0) == (shots, rec)


def test_rad_err_shots_exclusion_pins_and_errors():
    pool = _pool()
    evaluated = ["p000", "p007", "p014"]
    shots, rec = P.rad_err_shots(pool, 3, evaluated)
    assert rec["categories"]["a"] not in evaluated
    shots, rec = P.rad_err_shots(pool, 3, pinned={"b": "p006"})  # p006: a=1, b=2
    assert rec["categories"]["b"] == "p006" and shots[1].score == pytest.approx(0.55)
    with pytest.raises(ValueError, match="no significant error of type"):
        P.rad_err_shots(pool, 3, pinned={"c": "p000"})
    no_f = pool.assign(sig_f=0)
    with pytest.raises(ValueError, match=r"type \(f\)"):
        P.rad_err_shots(no_f, 0)


def test_rate_err_shots_take_single_injections_of_a_and_b():
    pool = _pool().assign(kind=["false_finding", "omission"] * 15,
                          n_injected=[1, 1, 2] * 10)
    shots, rec = P.rate_err_shots(pool, 4, ["p000"])
    assert [s.category for s in shots] == ["a", "a", "b", "b"]
    assert rec["k"] == 4 and "p000" not in rec["ext_ids"] and rec["paper_section"] == "D.7"
    for s in shots:
        assert s.sig == {c: (1.0 if c == s.category else 0.0) for c in P.CATEGORIES}
        assert s.score == 0.85 and s.explanation
        assert int(s.ext_id[1:]) % 3 != 2  # n_injected == 1 only
    with pytest.raises(ValueError, match="pool too small for rate_err"):
        P.rate_err_shots(pool.head(4), 0)


def test_rad_err_10_uses_seed_42_by_default():
    shots, rec = P.rad_err_10_shots(_pool(), ["p001"])
    assert rec["seed"] == 42 and rec["k"] == 10 and rec["paper_section"] == "D.8"
    assert "p001" not in rec["ext_ids"] and all(s.sig is not None for s in shots)
    for s in shots:
        assert s.score == P.rad_err_score(s.sig_total)


def test_rate_err_10_needs_stored_assessments():
    pool = _pool().assign(score=0.5)
    shots, rec = P.rate_err_10_shots(pool, 9)
    assert rec["paper_section"] == "D.9" and len(shots) == 10
    assert all(s.matched_findings and s.explanation for s in shots)
    with pytest.raises(ValueError, match="matched_findings"):
        P.rate_err_10_shots(pool.drop(columns=["matched_findings"]), 9)


def test_pool_from_long_averages_annotators():
    pairs = pd.DataFrame({"pair_id": ["x", "y"], "dataset": ["d", "d"], "ext_id": ["1", "2"],
                          "reference": ["R1", "R2"], "candidate": ["C1", "C2"]})
    ann = pd.DataFrame([
        {"pair_id": "x", "annotator": "A", "field": "score", "category": None,
         "significant": None, "value": 4.0, "scale_max": 5.0},
        {"pair_id": "x", "annotator": "B", "field": "score", "category": None,
         "significant": None, "value": 2.0, "scale_max": 5.0},
        {"pair_id": "y", "annotator": "A", "field": "error_count", "category": "a",
         "significant": True, "value": 2.0, "scale_max": None},
        {"pair_id": "y", "annotator": "B", "field": "error_count", "category": "b",
         "significant": False, "value": 1.0, "scale_max": None},
    ])
    wide = P.pool_from_long(pairs, ann).set_index("ext_id")
    assert wide.loc["1", "score"] == pytest.approx(0.6)
    assert wide.loc["2", "sig_a"] == pytest.approx(1.0)  # (2 + 0) / 2 annotators
    assert wide.loc["2", "insig_b"] == pytest.approx(0.5)
    assert pd.isna(wide.loc["1", "sig_a"])


# ----------------------------------------------------------------- injection


def _paper_example_json(tid):
    body = P.get_template(tid).body
    tail = body.split("EXAMPLE OUTPUT", 1)[1]
    start = tail.index('{\n"modified report"')
    return tail[start:tail.index("\n\nCHECKLIST")]


def test_render_injection_messages():
    report = "Lungs are clear. {{report}} {k} {"
    messages = P.render_injection("false_finding", report, 2)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == P.get_template("inject_false_finding").body
    assert report in messages[1]["content"] and "exactly 2 clinically" in messages[1]["content"]
    assert P.render_injection("omission", report, 1)[0]["content"] == \
        P.get_template("inject_omission").body
    for bad in (("nope", report, 1), ("omission", report, 4), ("omission", report, True),
                ("omission", "  ", 1)):
        with pytest.raises(ValueError):
            P.render_injection(*bad)


def test_parse_injection_answer_accepts_the_papers_own_examples():
    report, changes = P.parse_injection_answer(_paper_example_json("inject_false_finding"),
                                               kind="false_finding", expected_k=1)
    assert report.startswith("The liver is normal in size. A 2 cm hypodense lesion")
    assert changes == [{"sentence_index": 1, "original": "No focal lesions identified.",
                        "modified": "A 2 cm hypodense lesion is identified in segment 6,\n"
                                    "indeterminate in character.",
                        "explanation": "Added an indeterminate hepatic lesion requiring further\n"
                                       "characterization"}]
    report, changes = P.parse_injection_answer(_paper_example_json("inject_omission"),
                                               kind="omission", expected_k=1)
    assert changes[0]["modified"] == "" and report.endswith("unremarkable.")


def test_parse_injection_answer_variants():
    answer = {"modified_report": "A. New {finding}.", "changes_detail": [
        {"sentence_index": "0", "original": "", "modified": "New {finding}.",
         "explanation": "added", "severity": "", "harm_potential": ""}]}
    text = "Here you go:\n```json\n" + json.dumps(answer) + "\n```\nDone."
    report, changes = P.parse_injection_answer(text, kind="false_finding", expected_k=1,
                                               original="A.")
    assert report == "A. New {finding}." and changes[0]["sentence_index"] == 0
    trailing = '{"modified report": "B.", "changes detail": [{"original": "A.", "modified": "B.",},],}'
    assert P.parse_injection_answer(trailing)[0] == "B."


@pytest.mark.parametrize("text, kwargs, match", [
    ("", {}, "empty"),
    ("I cannot do that.", {}, "no valid JSON"),
    ('{"modified report": "x", "changes detail": [', {}, "no valid JSON"),
    ('["modified report"]', {}, "no valid JSON"),
    ('{"changes detail": [{"original": "a", "modified": "b"}]}', {}, "modified report"),
    ('{"modified report": "  ", "changes detail": [{"original": "a", "modified": "b"}]}', {},
     "modified report"),
    ('{"modified report": "x", "changes detail": []}', {}, "changes detail"),
    ('{"modified report": "x", "changes detail": "a"}', {}, "changes detail"),
    ('{"modified report": "x", "changes detail": ["a"]}', {}, "not an object"),
    ('{"modified report": "x", "changes detail": [{"original": "a"}]}', {}, "strings"),
    ('{"modified report": "x", "changes detail": [{"original": "a", "modified": "a"}]}', {},
     "does not change"),
    ('{"modified report": "x", "changes detail": [{"original": "a", "modified": ""}]}',
     {"kind": "false_finding"}, "false finding"),
    ('{"modified report": "x", "changes detail": [{"original": "", "modified": "b"}]}',
     {"kind": "omission"}, "omission"),
    ('{"modified report": "x", "changes detail": [{"original": "a", "modified": "b"}]}',
     {"expected_k": 2}, "expected 2"),
    ('{"modified report": "same", "changes detail": [{"original": "a", "modified": "b"}]}',
     {"original": "same"}, "identical"),
])
def test_parse_injection_answer_rejects_malformed(text, kwargs, match):
    with pytest.raises(ValueError, match=match):
        P.parse_injection_answer(text, **kwargs)


def test_render_plausibility_messages():
    changes = [{"sentence_index": 1, "original": "", "modified": "New {x} finding.",
                "explanation": "added"}]
    messages = P.render_plausibility("Orig {{original}}.", "Mod }{.", changes=changes,
                                     modality="CT", body_region="abdomen")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == P.get_template("plausibility").body
    user = messages[1]["content"]
    assert "Orig {{original}}." in user and "Mod }{." in user and "New {x} finding." in user
    assert "Imaging modality: CT\nBody region: abdomen" in user
    assert "(none: a new sentence was added)" in user
    plain = P.render_plausibility("O.", "M.")[1]["content"]
    assert "not specified" in plain and "Not listed" in plain
    with pytest.raises(ValueError):
        P.render_plausibility("", "M.")


@pytest.mark.parametrize("text, expected", [
    ('{"plausible": true, "reason": "ok"}', (True, "ok")),
    ('```json\n{"plausible": false, "reason": "thyroid on a pelvis CT"}\n```',
     (False, "thyroid on a pelvis CT")),
    ("{\n‘‘plausible’’: false,\n‘‘reason’’: ‘‘cardiac finding on a knee MRI’’\n\n}",
     (False, "cardiac finding on a knee MRI")),
    ('{"Plausible": "True"}', (True, "")),
])
def test_parse_plausibility_answer(text, expected):
    assert P.parse_plausibility_answer(text) == expected


@pytest.mark.parametrize("text", ["", "yes", '{"reason": "ok"}', '{"plausible": "maybe"}',
                                  '{"plausible": 1}'])
def test_parse_plausibility_answer_rejects_malformed(text):
    with pytest.raises(ValueError):
        P.parse_plausibility_answer(text)


# ----------------------------------------------------------------- baselines


def test_parse_radfact_answer_scores():
    answer = json.dumps({
        "candidate_phrases": [{"phrase": "No effusion.", "entailed": True, "evidence": ["x"]},
                              {"phrase": "Nodule.", "entailed": False, "evidence": []},
                              {"phrase": "Normal heart.", "entailed": "true"}],
        "reference_phrases": [{"phrase": "No effusion.", "entailed": True},
                              {"phrase": "Edema.", "entailed": False}],
    })
    out = parse_radfact_answer(answer)
    assert out["logical_precision"] == pytest.approx(2 / 3)
    assert out["logical_recall"] == pytest.approx(1 / 2)
    assert out["logical_f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    empty = parse_radfact_answer('{"candidate_phrases": [], "reference_phrases": []}')
    assert empty["logical_precision"] is None and empty["logical_f1"] is None
    zero = parse_radfact_answer('{"candidate_phrases": [{"phrase": "a", "entailed": false}], '
                                '"reference_phrases": [{"phrase": "b", "entailed": false}]}')
    assert zero["logical_f1"] == 0.0
    for bad in ('{"candidate_phrases": []}', '{"candidate_phrases": [{"entailed": true}], '
                '"reference_phrases": []}', '{"candidate_phrases": [{"phrase": "a", '
                '"entailed": "perhaps"}], "reference_phrases": []}'):
        with pytest.raises(ValueError):
            parse_radfact_answer(bad)


def test_parse_fineradscore_answer():
    answer = json.dumps({
        "lines": [{"line": 1, "needs_correction": False},
                  {"line": 2, "needs_correction": True, "correction": "[delete]",
                   "severity": "Urgent error", "category": "(a)", "comment": "false"}],
        "missing": [{"insertion": "Nodule.", "severity": "Actionable non-urgent",
                     "category": "b", "comment": "missed"}],
    })
    out = parse_fineradscore_answer(answer, n_lines=2)
    assert out["n_corrections"] == 2 and out["severity_sum"] == 5 and out["max_severity"] == 3
    assert out["lines"][1]["category"] == "a" and out["missing"][0]["severity"] == "actionable nonurgent"
    clean = parse_fineradscore_answer('{"lines": [{"line": 1, "needs_correction": false}]}')
    assert clean["n_corrections"] == 0 and clean["max_severity"] == 0
    for bad, kw in (('{"lines": [{"line": 3, "needs_correction": false}]}', {"n_lines": 2}),
                    ('{"lines": [{"line": 1, "needs_correction": true, "severity": "bad"}]}', {}),
                    ('{"missing": []}', {}),
                    ('{"lines": [{"line": 1, "needs_correction": false}, '
                     '{"line": 1, "needs_correction": false}]}', {})):
        with pytest.raises(ValueError):
            parse_fineradscore_answer(bad, **kw)
