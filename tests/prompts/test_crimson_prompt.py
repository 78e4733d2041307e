"""CRIMSON prompts: upstream's build_prompt text for every variant, the context block, ids and hashes.

The SHA-256 values below were computed by running upstream's ``build_prompt`` (rajpurkarlab/CRIMSON
CRIMSON/prompt_parts.py at 07e3331, vendored in tests/prompts/upstream_crimson and checked there) on the
inputs of this file, with the context dict keyed as upstream's README writes it ({"Age": ..., "Indication": ...}):

    build_prompt(REF, CAND, patient_context=ctx, include_significance_examples=g,
                 include_attribute_guidelines=g, include_context_guidelines=g)

They are an independent record of what upstream sends: a change to a template, to the context block or to the
section joins changes them.
"""

from __future__ import annotations

import hashlib
import re

import pytest

import core.prompts as P

REF = "Cardiomegaly. Small bilateral pleural effusions. {{reference}} {x}"
CAND = "Normal heart size.\nSmall left pleural effusion. }{"
CTX_TWO = {"age": "82", "indication": "Routine preoperative evaluation"}
CTX_ALL = {"age": "25", "sex": "F", "indication": "Chest pain", "history": "Prior CXR 2020: clear.\nSecond line"}
SYSTEM = "You are an expert radiology evaluator that assesses the accuracy of radiology reports."

# (guidelines, context) -> sha256 of build_prompt's text
UPSTREAM = {
    (True, None): "6ad802fa38832e73089bace96ca9de14a6e91dcbe5faf8f4bdd5124335bd3490",
    (True, "two"): "46df4933bba2e4929f405b8195fb4d8fdcc25080b73e57b4c06230e52e3f1706",
    (True, "all"): "7361a239814eedd59ba5f3264748120826d1928de848c18063c13a4b92eadf32",
    (False, None): "4be7e8d3730ffebde71aeb02cca882e849eec1e090a855b1a820fe52cebc5e65",
    (False, "two"): "f2f57ad4ce402286d9478261e68e3ca97d16617a73725f63f7b05d9364d73960",
    (False, "all"): "f138167a9a939e070427340351720d51036ae2e645e2bdcaf35e61c948a19b54",
}
CONTEXTS = {None: None, "two": CTX_TWO, "all": CTX_ALL}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("pid", sorted(P.CRIMSON_PROMPTS))
@pytest.mark.parametrize("ctx", [None, "two", "all"])
def test_every_variant_sends_upstreams_messages(pid, ctx):
    guidelines, reads_context = P.CRIMSON_PROMPTS[pid]
    messages = P.render_messages(pid, REF, CAND, context=CONTEXTS[ctx])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == SYSTEM
    expected = UPSTREAM[(guidelines, ctx if reads_context else None)]
    assert _sha(messages[1]["content"]) == expected


def test_context_block_is_upstreams_section():
    user = P.render_messages("crimson", REF, CAND, context=CTX_ALL)[1]["content"]
    block = ("Focus on clinical accuracy.\n\nPatient Context:\n    Age: 25\n    Sex: F\n    Indication: Chest pain\n"
             "    History: Prior CXR 2020: clear.\nSecond line\n\n\nReference Findings (Ground Truth):\n" + REF)
    assert block in user
    assert "Context guidelines:" in user and "Elderly patients (≥65)" in user
    # fields come in CONTEXT_FIELDS order whatever the dict's order, blanks are left out
    shuffled = {"history": "  ", "indication": "Chest pain", "age": "25"}
    user = P.render_messages("crimson_noguide", REF, CAND, context=shuffled)[1]["content"]
    assert "Patient Context:\n    Age: 25\n    Indication: Chest pain\n\n\nReference" in user
    assert "History" not in user and "Context guidelines:" not in user  # no guidelines in this variant


def test_without_context_there_is_no_block_and_no_context_guidelines():
    for ctx in (None, {}, {"age": "", "sex": "   "}):
        user = P.render_messages("crimson", REF, CAND, context=ctx)[1]["content"]
        assert "Patient Context" not in user and "Context guidelines:" not in user
        assert "Focus on clinical accuracy.\n\nReference Findings (Ground Truth):\n" in user


def test_reports_are_inserted_verbatim_and_upstreams_double_braces_stay():
    user = P.render_messages("crimson", REF, CAND)[1]["content"]
    assert f"Reference Findings (Ground Truth):\n{REF}\n\nPredicted Findings (Candidate):\n{CAND}\n\n" in user
    # upstream never calls str.format on these parts: the model receives the braces doubled
    assert "both {{R1, P1}} and {{R1, P2}} are valid matches" in user
    assert '{{"id": "R1", "finding": "<finding text>"' in user
    body = P.get_template("crimson").body
    literal = [m for m in re.findall(r"\{\{(.*?)\}\}", body) if m not in P.get_template("crimson").placeholders]
    assert literal[:2] == ["R1, P1", "R1, P2"] and len(literal) == 7


def test_ids_hashes_and_context_flags():
    assert P.CONTEXT_PROMPTS == {"crimson", "crimson_noguide"}
    assert set(P.CRIMSON_PROMPTS) <= set(P.list_prompts())
    hashes = {pid: P.prompt_hash(pid) for pid in P.CRIMSON_PROMPTS}
    assert len(set(hashes.values())) == len(hashes)  # same templates, other use: another hash
    rendered = P.prompt_for("crimson", "R", "C", context=CTX_TWO)
    assert rendered.prompt_id == "crimson" and rendered.prompt_hash == hashes["crimson"]
    assert rendered.messages == P.render_messages("crimson", "R", "C", context=CTX_TWO)
    # the GREEN-format prompts ignore the context
    assert P.render_messages("green", "R", "C", context=CTX_ALL) == P.render_messages("green", "R", "C")


def test_bad_context_and_shots_are_refused():
    with pytest.raises(ValueError, match="unknown context fields"):
        P.render_messages("crimson", "R", "C", context={"weight": "70"})
    with pytest.raises(ValueError, match="must be str"):
        P.render_messages("crimson", "R", "C", context={"age": 82})
    with pytest.raises(ValueError, match="takes no shots"):
        P.render_messages("crimson", "R", "C", shots=[])
