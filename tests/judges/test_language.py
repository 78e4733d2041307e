"""Which languages each offline judge reads, and what the rules judge does with text it cannot read.

Real parts: the lingua detector itself (no stub), the offline runner through the CLI on a real store file.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from core.judges import length, lexical
from core.judges.language import SUPPORTED, detect, languages_of, unsupported
from core.judges.rules import not_a_report, score_pair, screen_pair
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]

# English reports as they come: very short ones, abbreviations, IU-style de-identification (XXXX).
ENGLISH = [
    "No acute disease.", "No acute cardiopulmonary abnormality.", "Normal chest.", "Normal.", "Unchanged.",
    "Negative chest x-XXXX.", "Stable mediastinal contours.", "Lungs are clear.", "Heart size normal.",
    "No pneumothorax.", "Cardiomegaly.", "Pneumothorax.", "Bibasilar atelectasis.", "XXXX XXXX are normal.",
    "Interval resolution of LLL consolidation.", "S/p CABG. NG tube in place.", "ET tube 4 cm above carina.",
    "Hyperexpanded lungs. No focal airspace disease.", "IMPRESSION: No acute findings.",
    "Pulmonary arterial hypertension.", "Possible apical cavitation.", "Dissection flap in the infrarenal "
    "abdominal aorta.", "Granulomatous mediastinal calcifications.", "XXXX cholecystectomy.",
    "FINDINGS: The cardiac silhouette and mediastinum size are within normal limits. There is no pulmonary "
    "edema. There is no focal consolidation. There are no XXXX of a pleural effusion. There is no evidence of "
    "pneumothorax.\n\nIMPRESSION: Normal chest x-XXXX.",
    "FINDINGS: Normal cardiomediastinal contours. No focal consolidation or pleural effusions. No pneumothorax."
    "\n\nIMPRESSION: No acute cardiopulmonary abnormalities.",
    "FINDINGS: Moderate left pleural effusion. No pneumothorax. Heart size is normal.",
]

FOREIGN_PAIRS = {
    "fr": ("Épanchement pleural droit modéré. Pas de pneumothorax.",
           "Petit épanchement pleural gauche. Pneumothorax droit."),
    "de": ("Mäßiger Pleuraerguss rechts. Kein Pneumothorax. Herz normal groß.",
           "Kleiner Pleuraerguss links. Pneumothorax rechts."),
    "pt": ("Derrame pleural moderado à direita. Sem pneumotórax.",
           "Pequeno derrame pleural à esquerda. Pneumotórax à direita."),
    "zh": ("右侧中等量胸腔积液。无气胸。", "左侧少量胸腔积液。右侧气胸。"),
}
NAMES = {"fr": "French", "de": "German", "pt": "Portuguese", "zh": "Chinese"}
REFUSALS = ["", "   ", "I cannot assess this image.", "As an AI, I can't provide a diagnosis.",
            "I'm sorry, but no image was provided. Please consult a radiologist."]


@pytest.mark.parametrize("text", ENGLISH)
def test_english_reports_short_or_long_are_read_as_english(text):
    assert detect(text).code == "en", detect(text)
    for judge in ("rules", "lexical", "length"):
        assert unsupported(judge, text, "No pneumothorax.") is None


@pytest.mark.parametrize("lang", list(FOREIGN_PAIRS))
def test_foreign_pairs_are_not_scored_by_the_english_judges(lang):
    reference, candidate = FOREIGN_PAIRS[lang]
    assert detect(reference).code == lang and detect(candidate).code == lang
    rec = score_pair(reference, candidate)  # the rules judge's runner hook
    assert rec.raw_text is None and rec.metrics is None
    assert rec.error.startswith("unsupported language: the reference report is " + NAMES[lang])
    assert "rules judge reads English only" in rec.error
    assert "English only" in lexical.score_pair(reference, candidate).error
    # length counts whitespace words: fine where words are spaced, refused where they are not
    out = length.score_pair(reference, candidate)
    if lang == "zh":
        assert out.metrics is None and "Chinese" in out.error
    else:
        assert out.error is None and out.metrics["words_reference"] == len(reference.split())


def test_an_english_reference_with_a_foreign_candidate_is_refused_by_the_candidate():
    reason = screen_pair("Moderate right pleural effusion. No pneumothorax.", FOREIGN_PAIRS["fr"][1])
    assert reason.startswith("unsupported language: the candidate report is French")


@pytest.mark.parametrize("candidate", REFUSALS)
def test_a_candidate_that_is_not_a_report_is_not_scored(candidate):
    reason = screen_pair("No acute cardiopulmonary abnormality.", candidate)
    assert reason is not None and reason.startswith("not a report: the candidate is")
    assert score_pair("No acute cardiopulmonary abnormality.", candidate).error == reason


def test_report_wording_that_sounds_like_a_refusal_is_still_scored():
    assert not_a_report("I cannot exclude a small right pneumothorax.") is None
    assert not_a_report("No acute disease.") is None
    rec = score_pair("No pneumothorax.", "I cannot exclude a small right pneumothorax.")
    assert rec.error is None and "[Clinically Significant Errors]" in rec.raw_text


def test_english_scores_are_what_the_judge_gave_before_the_checks():
    from core.judges.rules import judge_pair, render_green

    for text in ENGLISH:
        assert score_pair(ENGLISH[-1], text).raw_text == render_green(judge_pair(ENGLISH[-1], text))
        assert lexical.score_pair(ENGLISH[-1], text).metrics == lexical.lexical_scores(ENGLISH[-1], text)


def test_each_judge_says_which_languages_it_reads():
    assert languages_of("rules") == "rules: English only"
    assert languages_of("lexical") == "lexical: English only"
    assert languages_of("length").startswith("length: any language written with spaces between words")
    assert languages_of("openai/gpt-4o-mini") == "openai/gpt-4o-mini: any language (not checked)"
    assert unsupported("openai/gpt-4o-mini", *FOREIGN_PAIRS["zh"]) is None  # models: no check
    assert set(SUPPORTED) == {"rules", "lexical", "length"}


def _cli(*args):
    return run_cli(*args)


def test_judge_run_records_the_refused_pairs_as_failures(tmp_path):
    """A `judge` run through the CLI: the refused pairs are failures with their reason, counted as such."""
    rows = [("en-1", "FINDINGS: Moderate left pleural effusion. No pneumothorax.",
             "FINDINGS: Small right pleural effusion. Small pneumothorax."),
            ("en-2", "No acute disease.", "No acute cardiopulmonary abnormality.")]
    rows += [(lang, *pair) for lang, pair in FOREIGN_PAIRS.items()]
    rows += [("refusal", "No acute disease.", "As an AI, I can't provide a diagnosis.")]
    csv = tmp_path / "pairs.csv"
    pd.DataFrame(rows, columns=["id", "reference", "candidate"]).to_csv(csv, index=False)
    store = tmp_path / "s.duckdb"
    done = _cli("--store", str(store), "import-pairs", str(csv), "--dataset", "mixed", "--id-col", "id",
                "--reference-col", "reference", "--candidate-col", "candidate")
    assert done.returncode == 0, done.stderr
    done = _cli("--store", str(store), "judge", "--dataset", "mixed", "--judge", "rules", "--json")
    assert done.returncode == 4 and "5 of 7 pairs failed" in done.stderr, done.stderr  # failures: exit 4
    summary = json.loads(done.stdout)
    assert summary["requested"] == 7 and summary["failed_total"] == 5

    con = duckdb.connect(str(store), read_only=True)
    try:
        run = con.execute("SELECT n_ok, n_failed FROM judge_runs WHERE judge_name = 'rules'").fetchone()
        out = dict(con.execute("SELECT p.ext_id, o.error FROM judge_outputs o JOIN pairs p USING (pair_id)").fetchall())
        scored = {r[0] for r in con.execute("SELECT DISTINCT p.ext_id FROM metric_values m JOIN pairs p "
                                            "USING (pair_id)").fetchall()}
    finally:
        con.close()
    assert run == (2, 5)
    assert scored == {"en-1", "en-2"}  # no metric value for a refused pair
    for lang in FOREIGN_PAIRS:
        assert out[lang].startswith(f"unsupported language: the reference report is {NAMES[lang]}")
    assert out["refusal"].startswith("not a report: the candidate is a refusal")
    assert out["en-1"] is None and out["en-2"] is None
    # English pairs keep the scores the judge gives them outside a run
    con = duckdb.connect(str(store), read_only=True)
    try:
        ec = con.execute("SELECT m.value FROM metric_values m JOIN pairs p USING (pair_id) WHERE p.ext_id = 'en-1' "
                         "AND m.metric = 'ec_sig'").fetchone()[0]
    finally:
        con.close()
    assert ec == 3.0

    # the report's provenance table counts them as failures
    from core.report.gather import provenance_tables
    from core.store.db import Store

    judges = provenance_tables(Store(store), "mixed")["judges"]
    assert judges[["judge", "n_ok", "n_failed"]].values.tolist() == [["rules", 2, 5]]


def test_medical_english_without_function_words_is_english():
    """Fragments as report generators write them (no article, no verb): every ordering of six findings."""
    import itertools

    findings = ("small left pleural effusion", "mild cardiomegaly", "right lower lobe opacity", "no pneumothorax",
                "stable hilar contours", "degenerative changes of the spine")
    refused = [t for n in (1, 2, 3) for combo in itertools.permutations(findings, n)
               if (t := ". ".join(combo) + ".") and unsupported("rules", t, t)]
    assert refused == []
