"""The British-wording rewrite (core/judges/rules/spelling.py) on hostile text, and its review fixes (rules-16).

Timings run in a subprocess with a generous bound: the faults were 100x blow-ups (a 50 kB letter run took
1.2 GB, 50 kB of "CTR 0.6. " took 35 s), not a few percent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.judges.rules import clear_caches, parse_report, spelling
from core.judges.rules.spelling import american, known_words, normalise

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json, sys, time, tracemalloc
from core.judges.rules.spelling import american, normalise
american("warm")  # the word list is built once, outside the measure
text = sys.stdin.read()
tracemalloc.start()
t = time.perf_counter()
out = normalise(text)
print(json.dumps({"seconds": time.perf_counter() - t, "peak_mb": tracemalloc.get_traced_memory()[1] / 1e6,
                  "same": out == text}))
"""


def _normalise_in_subprocess(text: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE], input=text, capture_output=True, text=True, cwd=ROOT,
                          timeout=20, check=True)
    return json.loads(done.stdout)


def _present(text: str) -> dict[str, str]:
    return {f.concept: f.certainty for f in parse_report(text) if f.kind == "finding" and f.present}


# ---- 1. long letter runs: memory in the square of their length ---------------------------------------------


def test_a_long_letter_run_is_left_alone_in_little_memory():
    run = _normalise_in_subprocess("Heart size normal. " + "ae" * 25_000)  # 50 kB: 1.2 GB peak before
    assert run["same"]
    assert run["peak_mb"] < 50, run
    assert run["seconds"] < 5, run


def test_long_runs_are_not_read_or_cached():
    long_run = "haemorrhage" * 5  # 55 letters: no word is that long
    assert len(long_run) > spelling.LONGEST_WORD
    cached = spelling._american.cache_info().currsize
    assert american(long_run) == long_run
    assert spelling._american.cache_info().currsize == cached  # the cache keys stay short
    assert normalise(f"Old {long_run} here.") == f"Old {long_run} here."
    assert american("haemorrhage") == "hemorrhage"  # a real word still is


# ---- 2. CTR and ICD: sentence bounds found locally -----------------------------------------------------------


@pytest.mark.parametrize("unit", ["CTR 0.6. ", "CTR 0.6 ", "ICD effusion. ", "ICD drain "])
def test_many_ratios_or_icds_are_read_in_linear_time(unit):
    text = (unit * (100_000 // len(unit) + 1))[:100_000]  # "CTR 0.6. " took 28-35 s at 50-100 kB before
    run = _normalise_in_subprocess(text)
    assert run["seconds"] < 5, run


def test_sentence_around_is_bounded_and_local():
    text = "x" * 5000 + " CTR 0.6 " + "y" * 5000
    a = text.index("CTR")
    around = spelling._sentence_around(text, a, a + 7)
    assert len(around) <= 2 * spelling.SENTENCE_REACH + 7
    assert spelling._sentence_around("Heart normal. CTR 0.6; lungs clear.", 14, 21) == " CTR 0.6"
    # the heart's own statement far away, across the reach, is not this ratio's sentence
    far = "Heart " + "z" * (spelling.SENTENCE_REACH + 50) + " CTR 0.6"
    assert normalise(far).endswith("enlarged heart, cardiothoracic ratio 0.6")
    assert normalise("Heart is enlarged, CTR 0.6.") == "Heart is enlarged, cardiothoracic ratio 0.6."


# ---- 3. ICD: a chest tube only beside words of a drain -------------------------------------------------------


@pytest.mark.parametrize("text", [
    "FINDINGS: Left chest wall ICD in place without pneumothorax.",
    "FINDINGS: Left chest wall ICD in place. No pneumothorax or effusion.",
    "FINDINGS: ICD in situ, no pneumothorax.",
    "FINDINGS: Left subclavian ICD, no effusion.",
    "FINDINGS: Dual chamber ICD, small left effusion.",
    "FINDINGS: ICD pocket hematoma, no pneumothorax at the apex.",
    "FINDINGS: ICD battery over the left pectoral region, lungs clear at the bases.",
])
def test_american_icd_is_a_defibrillator(text):
    present = _present(text)
    assert "chest_tube" not in present, present
    assert "chest tube" not in normalise(text)


@pytest.mark.parametrize("text", [
    "FINDINGS: Right ICD on underwater seal, small residual apical pneumothorax.",
    "FINDINGS: Left ICD draining the empyema.",
    "FINDINGS: Right ICD (intercostal catheter) with tip at the apex.",
    "FINDINGS: Right basal ICD drain in situ.",
])
def test_icd_beside_drain_words_is_a_chest_tube(text):
    assert "chest_tube" in _present(text)


# ---- 4. the word list does not read docstrings or paths ------------------------------------------------------


def test_known_words_skip_dunder_names(monkeypatch):
    from core.judges.rules import vocab

    monkeypatch.setattr(vocab, "__doc__", "zyxwordinadocstring")
    spelling.known_words.cache_clear()
    spelling.known_stems.cache_clear()
    try:
        words = known_words()
        assert "zyxwordinadocstring" not in words
        assert "builtins" not in words and "vocab" not in words  # __builtins__, __name__
        assert "effusion" in words
    finally:
        monkeypatch.undo()
        spelling.known_words.cache_clear()
        spelling.known_stems.cache_clear()
        spelling.clear_caches()


# ---- 5. Latin plurals in -ae ---------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["spinae", "vertebrae", "bullae", "pleurae", "fossae", "axillae", "scapulae",
                                  "Spinae"])
def test_latin_ae_plurals_are_kept(word):
    assert american(word) == word


def test_erector_spinae_is_kept_and_british_ae_inside_a_word_still_read():
    assert normalise("Erector spinae muscles intact.") == "Erector spinae muscles intact."
    assert american("haemothorax") == "hemothorax"
    assert american("anaemia") == "anemia"


# ---- 6. clear_caches clears the spelling cache ---------------------------------------------------------------


def test_clear_caches_clears_the_spelling_cache():
    american("oedema")
    assert spelling._american.cache_info().currsize > 0
    clear_caches()
    assert spelling._american.cache_info().currsize == 0
