"""The real-language edit benchmark (bench/iu_edits.py): each edit makes one visible error of its category,
edits of a pair never land on each other, benign changes carry no label, and the whole run works on the real
IU reports when their wheel can be fetched (skipped with the reason when it cannot: the core suite does not
depend on it)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import iu_edits  # noqa: E402

REPORT = ("FINDINGS: The heart is normal in size. There is no pneumothorax. There is a small right pleural "
          "effusion. Stable calcified granuloma in the left upper lobe. Mild pulmonary edema.\n\n"
          "IMPRESSION: Small right pleural effusion. Mild pulmonary edema.")


def _apply(cat: str, seed: int = 0) -> tuple[str, str]:
    sections = iu_edits._sentences(REPORT)
    note = iu_edits.EDITS[cat](sections, random.Random(seed), set())
    note = note[0] if isinstance(note, tuple) else note
    assert note and note.startswith(f"{cat}:"), note
    return iu_edits._join(sections), note


def test_each_edit_makes_its_kind_of_error():
    text, _ = _apply("c")
    assert text != REPORT and ("left pleural effusion" in text or "right upper lobe" in text
                               or "left lower lobe" in text)
    text, _ = _apply("d")
    assert "large right pleural effusion" in text.lower() or "severe pulmonary edema" in text.lower()
    text, note = _apply("e")
    assert any(p in text for p in ("compared with the prior study", "since the prior examination",
                                   "from the previous radiograph"))
    text, _ = _apply("f")
    assert "Stable" not in text and "Calcified granuloma in the left upper lobe." in text
    text, note = _apply("b")
    removed = note.split("'")[1]
    assert removed not in text
    for seed in range(6):  # (a): a negated finding made positive, or a finding the report lacks added
        text, note = _apply("a", seed)
        assert "There is a" in text.replace("There is a small right pleural effusion", "")


def test_the_edits_of_one_pair_never_overlap_and_labels_count_them():
    rng = random.Random(3)
    for _ in range(200):
        pair = iu_edits.make_pair(REPORT, rng, max_edits=4)
        assert len(pair.edits) <= 4 and sum(pair.labels.values()) >= len(pair.edits)
        assert all(v in (0, 1) for c, v in pair.labels.items() if c != "b")  # (b): one label per finding lost
        if not pair.edits and not pair.benign:
            assert pair.candidate == REPORT
        # no edit was undone by a later one: a removed sentence was never one an edit wrote
        written = [n for n in pair.edits if n.startswith(("a:", "c:", "d:", "e:"))]
        for note in pair.edits:
            if note.startswith("b:"):
                assert not any(note.split("'")[1] in w for w in written)


def test_benign_changes_alone_change_words_or_order_but_no_finding():
    changed = 0
    for seed in range(20):
        sections = iu_edits._sentences(REPORT)
        done = iu_edits._benign(sections, random.Random(seed))
        text = iu_edits._join(sections)
        back = text.replace("No pneumothorax is seen.", "There is no pneumothorax.")
        assert sorted(back.split()) == sorted(REPORT.replace("\n\n", " ").split())  # same words, any order
        changed += bool(done) and text != REPORT
    assert changed >= 5  # the seeds above do reorder and rephrase


def test_the_hard_variant_counts_every_finding_removed_and_rewords_without_labels():
    report = ("FINDINGS: Cardiomegaly with pulmonary edema and small pleural effusion. There is no "
              "pneumothorax. Left basilar atelectasis.\n\nIMPRESSION: Cardiomegaly with pulmonary edema.")
    rng = random.Random(0)
    removed_lists = reworded = 0
    for _ in range(300):
        pair = iu_edits.make_pair(report, rng, max_edits=1, hard=True)
        for note in pair.edits:
            if note.startswith("b:") and "edema" in note:  # the list sentence: three findings, three labels
                assert pair.labels["b"] == 3 and "edema" not in pair.candidate
                removed_lists += 1
        if not pair.edits and pair.benign:
            reworded += any("->" in b or "reworded" in b for b in pair.benign)
    assert removed_lists > 5 and reworded > 5


def test_what_a_report_states_reads_word_forms_synonyms_and_negation_scope():
    assert iu_edits.stated("Emphysema without acute disease.") == {"emphysema"}
    assert iu_edits.stated("No pneumothorax or pleural effusions.") == set()
    assert iu_edits.stated("There has been clearing of left base airspace opacities.") == set()
    assert iu_edits.stated("The lungs are hyperexpanded. Bilateral effusions; no pneumothorax.") == {
        "hyperinflation", "pleural effusion"}
    assert iu_edits.stated("The heart is mildly enlarged.") == {"cardiomegaly"}
    # label fixes of issue 32: "clear of" negates its list, negations after the finding, limits
    assert iu_edits.stated("The lungs are clear of focal airspace disease, pneumothorax, or pleural effusion.") \
        == set()
    assert iu_edits.stated("Lungs are hyperexpanded but clear of consolidation.") == {"hyperinflation"}
    assert iu_edits.stated("The right pneumothorax is not appreciated.") == set()
    assert iu_edits.stated("Consolidation and atelectasis in the left lower lobe have cleared.") == set()
    assert iu_edits.stated("Please note that fractures may not be demonstrated.") == set()
    assert iu_edits.stated("The lateral view limits evaluation for an effusion.") == set()
    assert iu_edits.stated("The cardiomediastinal silhouette is enlarged.") == {"cardiomegaly"}
    assert iu_edits.stated("The heart is slightly large.") == {"cardiomegaly"}
    assert iu_edits.stated("Small effusion, the pneumothorax is not seen.") == {"pleural effusion"}


def test_a_removal_is_labelled_by_what_the_candidate_no_longer_states():
    # the impression repeats the effusion: both copies go, one label
    report = "FINDINGS: Small right pleural effusion. No pneumothorax.\n\nIMPRESSION: Right pleural effusion."
    sections = iu_edits._sentences(report)
    note, count = iu_edits._edit_b_hard(sections, random.Random(0), set())
    assert count == 1 and "effusion" not in iu_edits._join(sections).lower(), note
    # a sentence an earlier edit wrote still states it: nothing is lost, so nothing is removed
    sections = iu_edits._sentences(report)
    kept = "Small left pleural effusion."
    sections[0][1][0] = kept
    before = iu_edits._join(sections)
    assert iu_edits._edit_b_hard(sections, random.Random(0), {kept}) is None
    assert iu_edits._join(sections) == before


def test_a_removal_counts_observations_not_words():
    """Label fixes, second round: alternatives and a density joined to its reading are one observation; a sign
    that is an abnormality of its own counts beside its finding (bench/machine_written/README.md's rules)."""
    def label(report: str) -> int:
        return iu_edits._edit_b_hard(iu_edits._sentences(report), random.Random(0), set())[1]

    assert label("FINDINGS: Basilar opacities compatible with scarring or atelectasis. No effusion.") == 1
    assert label("FINDINGS: Left base atelectasis and/or infiltrate. No effusion.") == 1
    assert label("FINDINGS: Nodular opacity in the right apex. No effusion.") == 1
    assert label("FINDINGS: A 6 mm nodule in the left base, XXXX calcified granuloma. No effusion.") == 1
    assert label("FINDINGS: Small left effusion with adjacent atelectasis. No pneumothorax.") == 2
    assert label("FINDINGS: Hyperexpanded lungs with flattening of the diaphragms. No effusion.") == 2
    assert label("FINDINGS: Hyperinflation, suggesting COPD. No effusion.") == 2
    assert label("FINDINGS: Cardiomegaly with pulmonary edema and small pleural effusion. No pneumothorax.") == 3
    assert iu_edits.observations({"opacity", "atelectasis"}, ["Right base opacity, likely atelectasis."]) == 1
    assert iu_edits.observations({"opacity", "atelectasis"}, ["Right base opacity and left atelectasis."]) == 2


def test_pairs_are_seeded():
    reports = [REPORT, REPORT.replace("right", "left"), REPORT.replace("Mild", "Moderate")] * 10
    a = iu_edits.make_pairs(reports, 20, seed=5)
    b = iu_edits.make_pairs(reports, 20, seed=5)
    assert [p.candidate for p in a] == [p.candidate for p in b]
    assert [p.candidate for p in a] != [p.candidate for p in iu_edits.make_pairs(reports, 20, seed=6)]


def test_evaluate_counts_at_the_count_level():
    pairs = [iu_edits.Pair(REPORT, REPORT, {**dict.fromkeys(iu_edits.CATEGORIES, 0), "a": 2}),
             iu_edits.Pair(REPORT, REPORT, dict.fromkeys(iu_edits.CATEGORIES, 0)),
             iu_edits.Pair(REPORT, REPORT, {**dict.fromkeys(iu_edits.CATEGORIES, 0), "b": 1})]
    judged = [{**dict.fromkeys(iu_edits.CATEGORIES, 0), "a": 1},
              {**dict.fromkeys(iu_edits.CATEGORIES, 0), "a": 1},
              {**dict.fromkeys(iu_edits.CATEGORIES, 0), "b": 1}]
    result = iu_edits.evaluate(pairs, judged)
    a = result["categories"]["a"]
    assert (a["n_edits"], a["precision"], a["recall"]) == (2, 0.5, 0.5)  # TP 1, FP 1, FN 1
    assert result["categories"]["b"]["f1"] == 1.0
    assert (result["clean_pairs"], result["clean_flagged"]) == (1, 1)


@pytest.fixture(scope="module")
def real_reports() -> list[str]:
    try:
        return iu_edits.iu_reports()
    except Exception as exc:  # no registry here, or the wheel changed: the core suite goes on without it
        pytest.skip(f"the IU reports could not be fetched from the {iu_edits.WHEEL} wheel: {exc}")


def test_on_real_iu_reports_the_benchmark_runs_and_the_rules_judge_finds_most_edits(real_reports):
    assert len(real_reports) > 3000 and all(r.startswith("FINDINGS: ") for r in real_reports)
    pairs = iu_edits.make_pairs(real_reports, 120, seed=0)
    judged = [iu_edits.rules_counts(p) for p in pairs]
    result = iu_edits.evaluate(pairs, judged)
    assert sum(c["n_edits"] for c in result["categories"].values()) > 80
    assert result["categories"]["a"]["f1"] > 0.8  # the floor measured today: a regression guard, not the target
    assert abs(result["tau_rules_total"]) > 0.6
    assert result["benign_flagged"] <= max(1, result["benign_pairs"] // 10)


def test_on_real_iu_reports_the_hard_variant_meets_the_issue_targets(real_reports):
    """Issue 22's targets on the worst-case variant, seed 0, 1,000 pairs (bench/iu_edits.py prints the same)."""
    pairs = iu_edits.make_pairs(real_reports, 1000, seed=0, hard=True)
    result = iu_edits.evaluate(pairs, [iu_edits.rules_counts(p) for p in pairs])
    targets = {"a": 0.8, "b": 0.8, "c": 0.8, "d": 0.8, "e": 0.7, "f": 0.7}
    f1 = {c: result["categories"][c]["f1"] for c in targets}
    assert all(f1[c] >= t for c, t in targets.items()), f1
    assert result["benign_pairs"] > 100 and result["benign_flagged"] <= 0.05 * result["benign_pairs"]
