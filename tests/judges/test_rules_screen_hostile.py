"""The not-a-report screen on hostile text: its patterns stay linear in the length of the text.

Inputs built from one repeated unit with an opening bracket and no closing one (or a question to the user with
no question mark) made the screen backtrack: "[a/b " * k took 28 s at 8 kB and did not finish in 9 minutes at
100 kB. Each input below runs in a subprocess that must finish well inside 20 s (the old code took minutes or
more); the structural tests say why: no placeholder match can span more than its bound.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.judges.rules.extract import MAX_REPORT_CHARS
from core.judges.rules.screen import ASIDE, DECLINE, PLACEHOLDER, SLOT, not_a_report

ROOT = Path(__file__).resolve().parents[2]
_RUN = """
import sys, time
from core.judges.rules.screen import not_a_report
unit, n = sys.argv[1], int(sys.argv[2])
text = (unit * (n // len(unit) + 1))[:n]
start = time.perf_counter()
not_a_report(text)
print(f"{time.perf_counter() - start:.2f}")
"""


def _seconds(unit: str, n: int) -> float:
    out = subprocess.run([sys.executable, "-c", _RUN, unit, str(n)], cwd=ROOT, capture_output=True, text=True,
                         timeout=20, check=True)
    return float(out.stdout.strip())


@pytest.mark.parametrize("unit", ["[a/b ", "[insert ", "<findings ", "[ _ "])
def test_a_bracket_never_closed_is_screened_in_linear_time(unit):
    assert _seconds(unit, 100_000) < 10


def test_a_placeholder_with_a_slash_is_bounded_on_both_sides():
    assert DECLINE.search("[normal/enlarged]")
    assert DECLINE.search("FINDINGS: heart size [normal / enlarged].")
    # the first side stops at the first slash, and neither side runs past its bound
    assert not DECLINE.search("[" + "a" * 81 + "/b]")
    assert not DECLINE.search("[a/" + "b" * 81 + "]")
    assert not DECLINE.search("[insert " + "x" * 201 + "]")
    assert DECLINE.search("[insert " + "x" * 150 + "]")


def test_placeholder_and_slot_brackets_are_bounded():
    assert PLACEHOLDER.search("[insert findings]") and SLOT.search("<impression>")
    assert not PLACEHOLDER.search("[" + "y" * 201 + "]") and not SLOT.search("<" + "y" * 201 + ">")


@pytest.mark.parametrize("unit", ["can you ", "[insert "])
def test_text_past_the_report_limit_is_not_scanned(unit):
    # 400 kB: 37 s ("can you ") and 164 s ("[insert ") before the screen cut the text where the parser does
    assert _seconds(unit, 400_000) < 10


def test_a_question_to_the_user_is_bounded():
    assert DECLINE.search("Could you upload the image again?")
    assert DECLINE.search("Can you " + "y " * 140 + "?")
    assert not DECLINE.search("Can you " + "y" * 301 + "?")


def test_the_screen_reads_what_the_parser_reads():
    """A cue past MAX_REPORT_CHARS is past the end of what is scored: the screen does not see it either."""
    report = "FINDINGS: Heart size normal. Lungs clear. " * (MAX_REPORT_CHARS // 40)
    assert not_a_report(report + "Sorry, I cannot interpret this image.") is None
    assert not_a_report("Sorry, I cannot interpret this image.")


def test_blank_lines_before_a_cue_are_screened_in_linear_time():
    # 40 kB of newlines before "Sorry.": 45 s before the start-of-line cues stopped reading across lines
    out = subprocess.run([sys.executable, "-c", _RUN.replace("(unit * (n // len(unit) + 1))[:n]",
                                                             "chr(10) * n + unit"), "Sorry.", "90000"],
                         cwd=ROOT, capture_output=True, text=True, timeout=20, check=True)
    assert float(out.stdout.strip()) < 10
    # a start-of-line cue still allows a few marks before its word, on its own line only
    assert ASIDE.search("\n\n  **Sure!** Here is a report:")
    assert not ASIDE.search("-\n" * 30 + "... " + "=" * 40 + "Sure")
