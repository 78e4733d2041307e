"""Tests for core.parse.result.

* every file in tests/parse_corpus/ against its hand-written ``.expected.json``;
* GREEN-format cases against an independent restatement of how GREEN's
  reference implementation reads its own format, and against M / (M + S);
* CRLF == LF;
* property-based: never raises, status always valid, JSON shape stable,
  generated GREEN-format answers round-trip, truncation never invents counts.
"""

from __future__ import annotations

import json
import math
import pathlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.parse import ErrorItem, ParseResult, parse_output

CORPUS = pathlib.Path(__file__).parents[1] / "parse_corpus"
CASES = sorted(CORPUS.glob("*.txt"))
CATS = "abcdef"
STATUSES = {"ok", "partial", "failed"}
METRIC_KEYS = ["green", "green_f1", "formula", "ec_sig", "ec_total", "vert"]
TOP_KEYS = ["sig", "insig", "matched", "overall_score", "status", "reason", "metrics"]

LABELS = [
    "False report of a finding in the candidate",
    "Missing a finding present in the reference",
    "Misidentification of a finding's anatomic location/position",
    "Misassessment of the severity of a finding",
    "Mentioning a comparison that isn't in the reference",
    "Omitting a comparison detailing a change from a prior study",
]


def read_case(path: pathlib.Path) -> str:
    # bytes -> str without newline translation, so CRLF files stay CRLF
    return path.read_bytes().decode("utf-8")


def expected_for(path: pathlib.Path) -> dict:
    return json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))


def assert_close(got, want, what):
    if want is None or got is None:
        assert got is want, f"{what}: got {got!r}, want {want!r}"
    else:
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12), f"{what}: {got} != {want}"


# --------------------------------------------------------------------------
# corpus
# --------------------------------------------------------------------------


def test_corpus_is_complete():
    assert len(CASES) >= 30
    for path in CASES:
        assert path.with_name(path.stem + ".expected.json").exists(), path.name
    for sidecar in CORPUS.glob("*.expected.json"):
        assert sidecar.with_name(sidecar.name.replace(".expected.json", ".txt")).exists()


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_corpus_case(path):
    exp = expected_for(path)
    result = parse_output(read_case(path))
    got = result.to_json()
    assert got["status"] == exp["status"], got["reason"]
    assert got["sig"] == exp["sig"], got["reason"]
    assert got["insig"] == exp["insig"], got["reason"]
    assert got["matched"] == exp["matched"], got["reason"]
    assert_close(got["overall_score"], exp["overall_score"], "overall_score")
    assert list(got["metrics"]) == METRIC_KEYS
    for key in METRIC_KEYS:
        assert_close(got["metrics"][key], exp["metrics"][key], key)
    if "errors" in exp:
        assert [[e.category, e.significant, e.text] for e in result.errors] == exp["errors"]
    if "matched_findings" in exp:
        assert result.matched_findings == exp["matched_findings"]
    if "explanation_startswith" in exp:
        assert result.explanation.startswith(exp["explanation_startswith"])
    for fragment in exp.get("reason_contains", []):
        assert fragment in got["reason"]
    assert got["reason"]


# --------------------------------------------------------------------------
# agreement with GREEN's reference behaviour on its own format
# --------------------------------------------------------------------------


def green_reference_style(text: str) -> tuple[list[int], list[int], int]:
    """Independent restatement of the reference parser's rules (GREEN Sec. 3.2).

    A section is the paragraph (up to the first blank line) opened by
    ``[Name]:``; a section starting with "No" is all zeros; a category line
    starts with ``(x) `` (letters, else digits 1-6) and its count is the first
    integer written as ``: <n>.``; the matched count is the integer that opens
    the matched paragraph, followed by a period.
    """
    text = text.replace("\r\n", "\n")
    paragraphs = re.split(r"\n[ \t]*\n", text)

    def body(name: str) -> str | None:
        tag = f"[{name}]:"
        for para in paragraphs:
            if tag in para:
                return para.split(tag, 1)[1].lstrip()
        return None

    def categories(name: str) -> list[int]:
        content = body(name)
        out = [0] * 6
        if content is None or content.startswith("No"):
            return out
        lines = content.split("\n")
        markers = [f"({c}) " for c in CATS]
        if not any(ln.startswith(m) for ln in lines for m in markers):
            markers = [f"({d}) " for d in range(1, 7)]
        for ln in lines:
            for pos, marker in enumerate(markers):
                if ln.startswith(marker):
                    found = re.search(r": (\d+)\.", ln)
                    if found:
                        out[pos] = int(found.group(1))
        return out

    matched_text = body("Matched Findings") or ""
    lead = re.match(r"(\d+)\.", matched_text)
    matched = int(lead.group(1)) if lead else 0
    return categories("Clinically Significant Errors"), categories(
        "Clinically Insignificant Errors"
    ), matched


GREEN_FORMAT_CASES = [p for p in CASES if expected_for(p).get("green_format")]


def test_green_format_cases_exist():
    assert len(GREEN_FORMAT_CASES) >= 6


@pytest.mark.parametrize("path", GREEN_FORMAT_CASES, ids=[p.stem for p in GREEN_FORMAT_CASES])
def test_green_format_matches_reference_rules(path):
    text = read_case(path)
    sig, insig, matched = green_reference_style(text)
    got = parse_output(text)
    assert [got.sig[c] for c in CATS] == sig
    assert [got.insig[c] for c in CATS] == insig
    assert got.matched == matched
    s = sum(sig)
    by_hand = matched / (matched + s) if matched > 0 else 0.0  # GREEN Eq. (1)
    assert got.metrics["green"] == pytest.approx(by_hand)
    assert got.metrics["ec_sig"] == s


# --------------------------------------------------------------------------
# line endings and input types
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_crlf_and_lf_identical(path):
    lf = read_case(path).replace("\r\n", "\n")
    crlf = lf.replace("\n", "\r\n")
    cr = lf.replace("\n", "\r")
    a, b, c = parse_output(lf), parse_output(crlf), parse_output(cr)
    assert a.to_json() == b.to_json() == c.to_json()
    assert a.errors == b.errors == c.errors
    assert a.matched_findings == b.matched_findings
    assert a.explanation == b.explanation


def test_bytes_none_and_other_types():
    text = read_case(CORPUS / "vert_full.txt")
    assert parse_output(text.encode("utf-8")).to_json()["sig"] == parse_output(text).to_json()["sig"]
    for junk in (None, 42, 3.5, ["a"], {"sig": 1}, object(), b"\xff\xfe\x00\x81"):
        r = parse_output(junk)
        assert r.status == "failed"
        assert r.reason
        assert all(v is None for v in r.to_json()["metrics"].values())


def test_huge_and_pathological_inputs():
    samples = [
        "{" * 200_000,
        "[" * 50_000 + "]" * 10,
        '{"clinically_significant_errors": ' * 5_000,
        "(a) " * 100_000,
        "[Clinically Significant Errors]:\n" + "(a) x: 1. y\n" * 20_000,
        "*_" * 100_000,
        "|" + "---|" * 50_000,
        " " * 500_000 + "0.5",
        "\x00\x01\x02" * 10_000,
        "<think>" * 1_000,
    ]
    for text in samples:
        r = parse_output(text)
        assert r.status in STATUSES
        json.dumps(r.to_json())


def test_huge_input_keeps_the_answer_at_the_end():
    answer = read_case(CORPUS / "vert_full.txt")
    r = parse_output("x " * 300_000 + "\n\n" + answer)
    assert r.status == "ok"
    assert r.metrics["green"] == pytest.approx(0.75)
    assert "cut to" in r.reason


# --------------------------------------------------------------------------
# specific behaviours
# --------------------------------------------------------------------------


def green_text(sig, insig, matched, overall=None, only_nonzero=False, texts=None):
    """Render counts in GREEN's own format (D.1), optionally with a D.2 score."""

    def section(counts, significant):
        lines = []
        for i, c in enumerate(CATS):
            n = counts[c]
            if only_nonzero and n == 0:
                continue
            items = [f"{(texts or {}).get(c, 'finding')} {k + 1}" for k in range(n)]
            tail = (" " + "; ".join(items) + ".") if n else ""
            lines.append(f"({c}) {LABELS[i]}: {n}.{tail}")
        return "\n".join(lines) if lines else "None."

    findings = "; ".join(f"Finding {k + 1}" for k in range(matched))
    out = (
        "[Explanation]:\nThe candidate differs from the reference.\n\n"
        f"[Clinically Significant Errors]:\n{section(sig, True)}\n\n"
        f"[Clinically Insignificant Errors]:\n{section(insig, False)}\n\n"
        f"[Matched Findings]:\n{matched}." + (f" {findings}." if matched else "")
    )
    if overall is not None:
        out += f"\n\n[Overall Accuracy Score]:\n{overall:.2f}"
    return out


def test_missing_category_zero_only_in_well_formed_section():
    sig = {c: 0 for c in CATS} | {"b": 1}
    text = green_text(sig, {c: 0 for c in CATS}, 2, only_nonzero=True)
    r = parse_output(text)
    assert r.status == "ok"
    assert r.sig == {"a": 0, "b": 1, "c": 0, "d": 0, "e": 0, "f": 0}
    # the same section cut off after (b): unlisted categories may have been cut
    # away, so they are unknown -- never assumed 0
    cut = text[: text.index("[Clinically Insignificant")].rstrip()
    r = parse_output(cut)
    assert r.status == "partial"
    assert r.sig == {"a": None, "b": 1, "c": None, "d": None, "e": None, "f": None}
    assert r.metrics["ec_sig"] is None
    assert r.insig == {c: None for c in CATS}
    assert r.matched is None


def test_error_section_without_readable_lines_is_unknown():
    text = (
        "[Clinically Significant Errors]:\nThe candidate gets the effusion wrong.\n\n"
        "[Clinically Insignificant Errors]:\nNone.\n\n[Matched Findings]:\n2. A; B."
    )
    r = parse_output(text)
    assert r.status == "partial"
    assert r.sig == {c: None for c in CATS}
    assert r.insig == {c: 0 for c in CATS}
    assert r.metrics["green"] is None
    assert "sig" in r.reason


def test_overall_score_forms():
    base = green_text({c: 0 for c in CATS}, {c: 0 for c in CATS}, 1)
    good = {"0.85": 0.85, ".5": 0.5, "1": 1.0, "0": 0.0, "0.72/1.00": 0.72,
            "**0.9**": 0.9, "0.60 (moderate accuracy)": 0.6,
            "Score = 2 / (2 + 2*1 + 0.5*0) = 0.50": 0.5}
    for raw, value in good.items():
        r = parse_output(base + "\n\n[Overall Accuracy Score]:\n" + raw)
        assert r.overall_score == pytest.approx(value), raw
        assert r.metrics["vert"] == pytest.approx(value)
        assert r.status == "ok", (raw, r.reason)
    for raw in ("1.5", "-0.2", "85%", "8/10", "7", "N/A", "high"):
        r = parse_output(base + "\n\n[Overall Accuracy Score]:\n" + raw)
        assert r.overall_score is None, raw
        assert r.metrics["vert"] is None
        assert r.status == "partial", raw
        assert "overall score" in r.reason
        assert r.metrics["green"] == 1.0  # the counts stay usable


def test_json_variants():
    obj = {
        "Clinically Significant Errors": {"(a)": 1, "(b)": "two", "c": 0},
        "Clinically Insignificant Errors": {},
        "Matched Findings": "3",
        "Overall Accuracy Score": 0.6,
    }
    r = parse_output("Answer:\n" + json.dumps(obj, indent=2))
    assert r.status == "ok", r.reason
    assert r.sig == {"a": 1, "b": 2, "c": 0, "d": 0, "e": 0, "f": 0}
    assert r.insig == {c: 0 for c in CATS}
    assert r.matched == 3 and r.overall_score == 0.6
    nested = {"errors": {"significant": {"1": 1}, "insignificant": {"4": 2}},
              "matched_findings": 1}
    r = parse_output(json.dumps(nested))
    assert r.sig["a"] == 1 and r.insig["d"] == 2 and r.matched == 1
    r = parse_output(json.dumps({**obj, "Overall Accuracy Score": 70}))
    assert r.overall_score is None and r.status == "partial"


def test_result_objects():
    r = parse_output(read_case(CORPUS / "green_reference_full.txt"))
    assert isinstance(r, ParseResult)
    assert all(isinstance(e, ErrorItem) for e in r.errors)
    assert r.format == "text"
    assert list(r.to_json()) == TOP_KEYS
    assert list(r.to_json()["sig"]) == list(CATS)


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

FRAGMENTS = st.sampled_from(
    [
        "[Clinically Significant Errors]:", "[Clinically Insignificant Errors]:",
        "[Matched Findings]:", "[Overall Accuracy Score]:", "[Explanation]:",
        "(a) ", "(f) ", "(3) ", ": 1.", ": two", "None.", "**", "## ", "- ", "| ", "|---|",
        "\n", "\r\n", "\n\n", "<think>", "</think>", "{", "}", '"a": 1', '"matched_findings": ',
        "0.5", "85%", "7/10", "=", "1. ", "2. ", ";", "No", "```json", "```",
    ]
)
JUNK = st.one_of(
    st.text(max_size=400),
    st.lists(st.one_of(FRAGMENTS, st.text(max_size=20)), max_size=60).map("".join),
)


def check_invariants(r: ParseResult) -> None:
    assert r.status in STATUSES
    assert isinstance(r.reason, str) and r.reason
    out = r.to_json()
    assert list(out) == TOP_KEYS
    assert list(out["metrics"]) == METRIC_KEYS
    json.dumps(out)
    for part in ("sig", "insig"):
        assert list(out[part]) == list(CATS)
        for v in out[part].values():
            assert v is None or (isinstance(v, int) and v >= 0)
    score = out["overall_score"]
    assert score is None or 0.0 <= score <= 1.0
    for key in ("green", "green_f1", "formula"):
        v = out["metrics"][key]
        assert v is None or 0.0 <= v <= 1.0
    if r.status == "ok":
        assert None not in out["sig"].values() and None not in out["insig"].values()
        assert out["matched"] is not None
    if r.status == "failed":
        assert all(v is None for v in out["metrics"].values())


@SETTINGS
@given(JUNK)
def test_never_raises_on_arbitrary_text(text):
    check_invariants(parse_output(text))


@SETTINGS
@given(st.binary(max_size=300))
def test_never_raises_on_binary(data):
    check_invariants(parse_output(data))


count_st = st.integers(min_value=0, max_value=9)
counts_st = st.fixed_dictionaries({c: count_st for c in CATS})


@SETTINGS
@given(counts_st, counts_st, count_st, st.booleans(),
       st.one_of(st.none(), st.integers(0, 100).map(lambda x: x / 100)))
def test_generated_green_format_round_trips(sig, insig, matched, sparse, overall):
    text = green_text(sig, insig, matched, overall, only_nonzero=sparse)
    r = parse_output(text)
    assert r.status == "ok", r.reason
    assert r.sig == sig and r.insig == insig and r.matched == matched
    s, i = sum(sig.values()), sum(insig.values())
    assert r.metrics["green"] == pytest.approx(matched / (matched + s) if matched else 0.0)
    assert r.metrics["ec_sig"] == s and r.metrics["ec_total"] == s + i
    if overall is not None:
        assert r.overall_score == pytest.approx(overall)
    assert len([e for e in r.errors if e.significant]) == s
    assert len([e for e in r.errors if not e.significant]) == i
    # the same answer after a reasoning block, in markdown, or with CRLF
    def same(other):
        a, b = other.to_json(), r.to_json()
        a.pop("reason"), b.pop("reason")
        return a == b

    assert same(parse_output("<think>draft (a) x: 5.</think>\n" + text))
    assert same(parse_output(text.replace("\n", "\r\n")))
    md = re.sub(r"^\[(.+)\]:$", r"## \1", text, flags=re.M)
    md = re.sub(r"^\((\w)\) (.+?):", r"- **(\1) \2:**", md, flags=re.M)
    assert parse_output(md).to_json()["sig"] == r.to_json()["sig"]


def restyle(text: str, style: int) -> str:
    """0: GREEN as is; 1: markdown headers and bold labels; 2: (1)-(6) markers."""
    if style == 1:
        text = re.sub(r"^\[(.+)\]:$", r"## \1", text, flags=re.M)
        return re.sub(r"^\((\w)\) (.+?):", r"- **(\1) \2:**", text, flags=re.M)
    if style == 2:
        return re.sub(r"^\(([a-f])\)", lambda m: f"({CATS.index(m.group(1)) + 1})", text,
                      flags=re.M)
    return text


@SETTINGS
@given(counts_st, counts_st, count_st, st.booleans(), st.integers(0, 2), st.data())
def test_truncation_never_invents_counts(sig, insig, matched, sparse, style, data):
    text = restyle(green_text(sig, insig, matched, only_nonzero=sparse), style)
    full = parse_output(text)
    assert (full.sig, full.insig, full.matched) == (sig, insig, matched), full.reason
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    r = parse_output(text[:cut])
    check_invariants(r)
    for c in CATS:
        assert r.sig[c] in (None, sig[c]), (c, text[:cut])
        assert r.insig[c] in (None, insig[c]), (c, text[:cut])
    assert r.matched in (None, matched)
    if cut < len(text) - len(f"{matched}. Finding"):
        # cut before the matched-findings line finished
        assert r.status != "ok" or r.matched == matched


def json_value(n: int, style: int, label: str):
    if style == 0:
        return n
    if style == 1:
        return {"count": n, "errors": [f"{label} {k}" for k in range(n)]}
    return [f"{label} {k}" for k in range(n)]


@SETTINGS
@given(counts_st, counts_st, count_st, st.integers(0, 2), st.sampled_from([None, 2]), st.data())
def test_json_truncation_never_invents_counts(sig, insig, matched, style, indent, data):
    answer = {
        "explanation": "Differences listed below.",
        "clinically_significant_errors": {c: json_value(n, style, "sig") for c, n in sig.items()},
        "clinically_insignificant_errors": {
            c: json_value(n, style, "insig") for c, n in insig.items()
        },
        "matched_findings": json_value(matched, style, "finding"),
        "overall_score": 0.5,
    }
    text = json.dumps(answer, indent=indent)
    full = parse_output(text)
    assert full.status == "ok", full.reason
    assert full.sig == sig and full.insig == insig and full.matched == matched
    cut = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
    r = parse_output(text[:cut])
    check_invariants(r)
    for c in CATS:
        assert r.sig[c] in (None, sig[c]), (c, text[:cut])
        assert r.insig[c] in (None, insig[c]), (c, text[:cut])
    assert r.matched in (None, matched), text[:cut]
    assert r.status != "ok"
