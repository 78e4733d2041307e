"""Published files in their exact released layouts import with the documented commands (docs/importing.md) (issue: real studies).

The fixtures copy ReXVal's released columns and conventions (PhysioNet): the pairs
file keyed by MIMIC ``study_id`` with one column per generator, and the errors file
referring to a study by its 0-based row number in the pairs file, categories 1-6,
significance ``True``/``False``, raters 0-5. The report text is synthetic.
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
from pathlib import Path

import pytest

from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = ("radgraph", "bertscore", "s_emb", "bleu")
FINDINGS = ("small left pleural effusion", "mild cardiomegaly", "right lower lobe opacity",
            "no pneumothorax", "stable hilar contours", "degenerative changes of the spine")


def _cli(store: Path, *args: str) -> subprocess.CompletedProcess:
    return run_cli("--store", str(store), *args)


def write_rexval(folder: Path, n_studies: int = 12, seed: int = 0) -> tuple[Path, Path]:
    """``50_samples_gt_and_candidates.csv`` and ``6_valid_raters_per_rater_error_categories.csv``, real layout."""
    rng = random.Random(seed)
    pairs = folder / "50_samples_gt_and_candidates.csv"
    with open(pairs, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["study_id", "gt_report", *GENERATORS])
        for i in range(n_studies):
            ref = ". ".join(rng.sample(FINDINGS, 3)).capitalize() + "."
            w.writerow([53780576 + 7919 * i, ref, *(". ".join(rng.sample(FINDINGS, 2)) + "." for _ in GENERATORS)])
    errors = folder / "6_valid_raters_per_rater_error_categories.csv"
    with open(errors, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["study_number", "candidate_type", "error_category", "rater_index", "clinically_significant",
                    "num_errors"])
        for study in range(n_studies):
            for gen_i, gen in enumerate(GENERATORS):
                for rater in range(6):
                    for category in range(1, 7):
                        for significant in (True, False):
                            base = (study + gen_i + category) % 3 if significant else (study * gen_i) % 2
                            w.writerow([study, gen, category, rater, significant,
                                        max(0, base + rng.choice((0, 0, 0, 1)) - (rater == 5))])
    return pairs, errors


def test_the_readme_commands_import_rexval_as_released(tmp_path):
    readme = (ROOT / "docs" / "importing.md").read_text(encoding="utf-8")  # moved there from the README
    commands = [line.split("python -m core ", 1)[1].split() for line in readme.splitlines()
                if line.startswith("python -m core import-preset rexval-")]
    assert [c[1] for c in commands] == ["rexval-pairs", "rexval-errors"]
    pairs, errors = write_rexval(tmp_path)
    files = {pairs.name: pairs, errors.name: errors}
    store = tmp_path / "s.duckdb"
    for argv in commands:  # exactly the docs' commands, with the released file names
        done = _cli(store, *[str(files.get(a, a)) for a in argv], "--json")
        assert done.returncode == 0, done.stderr
    from core.store.db import Store

    s = Store(store)
    assert s.query_one("SELECT count(*) FROM pairs WHERE dataset = 'rexval'") == 12 * 4
    assert s.query_one("SELECT count(*) FROM annotations") == 12 * 4 * 6 * 6 * 2  # every row of the errors file
    first = s.query_df("SELECT ext_id, group_id, system, reference FROM pairs WHERE ext_id LIKE '0:%' "
                       "ORDER BY ext_id")
    with open(pairs, encoding="utf-8") as fh:
        row0 = next(csv.DictReader(fh))
    assert first["ext_id"].tolist() == ["0:bertscore", "0:bleu", "0:radgraph", "0:s_emb"]
    assert set(first["group_id"]) == {row0["study_id"]}  # the MIMIC study number is kept as the study
    assert set(first["reference"]) == {row0["gt_report"]}
    raters = s.query_df("SELECT DISTINCT annotator FROM annotations ORDER BY 1")["annotator"].tolist()
    assert raters == [f"rater_{i}" for i in range(6)]
    # Spot-check one annotation against the file: row number, generator, category, significance, rater.
    with open(errors, encoding="utf-8") as fh:
        rec = list(csv.DictReader(fh))[777]
    value = s.query_one(
        "SELECT value FROM annotations a JOIN pairs p USING (pair_id) WHERE p.ext_id = ? AND a.annotator = ? "
        "AND a.category = ? AND a.significant = ?",
        [f"{rec['study_number']}:{rec['candidate_type']}", f"rater_{rec['rater_index']}",
         "abcdef"[int(rec["error_category"]) - 1], rec["clinically_significant"] == "True"])
    assert value == float(rec["num_errors"])


def test_ids_that_do_not_match_show_the_files_ids_beside_the_stored_ones(tmp_path):
    pairs, errors = write_rexval(tmp_path, n_studies=3)
    store = tmp_path / "s.duckdb"
    assert _cli(store, "import-preset", "rexval-pairs", str(pairs), "--dataset", "rexval").returncode == 0
    shifted = tmp_path / "shifted.csv"
    rows = list(csv.DictReader(open(errors, encoding="utf-8")))
    with open(shifted, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow(r | {"study_number": int(r["study_number"]) + 100})
    done = _cli(store, "import-preset", "rexval-errors", str(shifted), "--dataset", "rexval")
    assert done.returncode == 2
    first = done.stderr.splitlines()[0]
    assert f"{len(rows):,} of {len(rows):,} ids are not pairs of dataset 'rexval'" in first
    assert "the file's ids look like '100:radgraph'" in first and "the dataset's look like '0:bertscore'" in first
    assert "more problem(s)" not in done.stderr  # one summary and four example rows: nothing else to tally


@pytest.mark.parametrize("with_number", [True, False])
def test_a_pairs_file_with_its_own_study_number_is_keyed_by_it(tmp_path, with_number):
    from core.ingest.presets import import_preset
    from core.store.db import Store

    path = tmp_path / "p.jsonl"
    rows = [{"study_number": 5 + i, "study_id": 900 + i, "gt_report": f"r{i}", **{g: f"c{i}{g}" for g in GENERATORS}}
            for i in range(2)]
    if not with_number:
        rows = [{k: v for k, v in r.items() if k != "study_number"} for r in rows]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    store = Store(tmp_path / "s.duckdb")
    import_preset(store, "rexval-pairs", path, dataset="x")
    ids = store.query_df("SELECT ext_id FROM pairs WHERE system = 'bleu' ORDER BY ext_id")["ext_id"].tolist()
    assert ids == (["5:bleu", "6:bleu"] if with_number else ["0:bleu", "1:bleu"])


def test_analyses_default_to_the_target_an_error_count_dataset_has(tmp_path):
    pairs, errors = write_rexval(tmp_path)
    store = tmp_path / "s.duckdb"
    for preset, path in (("rexval-pairs", pairs), ("rexval-errors", errors)):
        assert _cli(store, "import-preset", preset, str(path), "--dataset", "rexval").returncode == 0
    assert _cli(store, "judge", "--dataset", "rexval", "--judge", "rules").returncode == 0
    corr = _cli(store, "correlate", "--dataset", "rexval", "--n-boot", "50", "--json")
    assert corr.returncode == 0, corr.stderr
    rows = json.loads(corr.stdout)
    assert {r["target"] for r in rows} == {"sig_errors"} and {r["n"] for r in rows} == {48}
    text = _cli(store, "correlate", "--dataset", "rexval", "--n-boot", "50", "--table")
    assert text.returncode == 0 and text.stdout.startswith("Expert target: sig_errors")
    assert "**" not in text.stdout  # one judge per metric: nothing to mark best
    agree = _cli(store, "agreement", "--dataset", "rexval", "--json")
    assert agree.returncode == 0 and json.loads(agree.stdout)["n_annotators"] == 6
    board = _cli(store, "leaderboard", "--dataset", "rexval", "--n-boot", "50", "--json")
    assert board.returncode == 0, board.stderr
    wrong = _cli(store, "correlate", "--dataset", "rexval", "--target", "score")
    assert wrong.returncode == 1
    assert wrong.stderr.strip() == ("error: dataset 'rexval' has no 'score' target; its targets are sig_errors, "
                                    "total_errors and the per-category counts (sig_a ... total_f)")
    calib = _cli(store, "calibrate", "--dataset", "rexval", "--n-boot", "20")
    assert calib.returncode == 0 and "NaN" not in calib.stdout and "nan" not in calib.stdout


def test_a_real_datasets_report_has_no_report_text_unless_asked(tmp_path, app_test):
    from core.store.db import Store

    pairs, errors = write_rexval(tmp_path, n_studies=4)
    store = tmp_path / "s.duckdb"
    for preset, path in (("rexval-pairs", pairs), ("rexval-errors", errors)):
        assert _cli(store, "import-preset", preset, str(path), "--dataset", "rexval").returncode == 0
    assert _cli(store, "judge", "--dataset", "rexval", "--judge", "rules").returncode == 0
    reference = next(csv.DictReader(open(pairs, encoding="utf-8")))["gt_report"]

    default, opted = tmp_path / "default.html", tmp_path / "opted.html"
    assert _cli(store, "report", "--dataset", "rexval", "--out", str(default), "--n-boot", "0").returncode == 0
    html = default.read_text(encoding="utf-8")
    assert "This report contains no report text." in html and reference not in html
    assert _cli(store, "report", "--dataset", "rexval", "--out", str(opted), "--n-boot", "0",
                "--excerpts").returncode == 0
    assert "This report contains excerpts of report text" in opted.read_text(encoding="utf-8")

    at = app_test(Store(store), {"dataset": "rexval"})
    at.switch_page("pages/share.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.checkbox(key="share_excerpts").value is False
    assert any("no report text" in c.value for c in at.caption)
    assert any(c.value.endswith("--no-excerpts") for c in at.code)
    at.checkbox(key="share_excerpts").check().run()
    assert any("this dataset is imported" in w.value for w in at.warning)
    assert at.query_params["excerpts"] == "1"


def test_published_means_over_raters_import_exactly_and_never_count_as_a_rater(tmp_path):
    from fractions import Fraction

    from core.reads.frames import correlation_frame
    from core.reads.targets import annotator_values, expert_targets, load_annotations
    from core.store.db import Store

    pairs, errors = write_rexval(tmp_path, n_studies=6)
    store = tmp_path / "s.duckdb"
    for preset, path in (("rexval-pairs", pairs), ("rexval-errors", errors)):
        assert _cli(store, "import-preset", preset, str(path), "--dataset", "rexval").returncode == 0
    rows = list(csv.DictReader(open(errors, encoding="utf-8")))
    totals: dict[str, int] = {}
    sig: dict[str, int] = {}
    for r in rows:
        key = f"{r['study_number']}:{r['candidate_type']}"
        totals[key] = totals.get(key, 0) + int(r["num_errors"])
        sig[key] = sig.get(key, 0) + int(r["num_errors"]) * (r["clinically_significant"] == "True")
    means = tmp_path / "means.csv"
    with open(means, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "mean_total_errors", "mean_sig_errors"])
        for i, key in enumerate(sorted(totals)):  # printed as published files do: rounded, differently
            w.writerow([key, f"{totals[key] / 6:.{4 if i % 2 else 9}f}", f"{sig[key] / 6:.4f}"])
    done = _cli(store, "import-annotations", str(means), "--dataset", "rexval", "--id-col", "id", "--aggregate-of",
                "6", "--total-col", "mean_total_errors", "--sig-col", "mean_sig_errors", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 2 * len(totals)

    s = Store(store)
    ann = load_annotations(s, "rexval")
    mean_only = expert_targets(ann, ["mean_of_6"])
    got = {(r.pair_id, r.target): r.value for r in mean_only.itertuples()}
    ext = dict(zip(*s.query_df("SELECT pair_id, ext_id FROM pairs").T.values, strict=True))
    for (pid, target), value in got.items():
        key = ext[pid]
        exact = Fraction(totals[key] if target == "total_errors" else sig[key], 6)
        assert value == float(exact)  # k / 6 exactly, whatever rounding the file printed
    # the same targets from the single raters (their mean) and from the published mean: bit-identical
    singles = expert_targets(ann, [f"rater_{i}" for i in range(6)])
    singles = {(r.pair_id, r.target): r.value for r in singles.itertuples() if r.target in ("sig_errors",
                                                                                            "total_errors")}
    assert singles == got
    # never a rater in inter-rater agreement
    assert "mean_of_6" not in set(annotator_values(ann)["annotator"])
    agree = json.loads(_cli(store, "agreement", "--dataset", "rexval", "--json").stdout)
    assert agree["n_annotators"] == 6
    # the SQL path (correlation_frame) gives the same target from the mean alone
    assert _cli(store, "judge", "--dataset", "rexval", "--judge", "length").returncode == 0
    frame = correlation_frame(s, "rexval", "total_errors", annotators=["mean_of_6"])
    sql = dict(zip(frame["pair_id"], frame["target"], strict=False))
    assert all(sql[pid] == got[(pid, "total_errors")] for pid in sql) and len(sql) == len(totals)
    corr = _cli(store, "correlate", "--dataset", "rexval", "--target", "total_errors", "--raters", "mean_of_6",
                "--n-boot", "0", "--json")
    assert corr.returncode == 0, corr.stderr
    assert {r["raters"] for r in json.loads(corr.stdout)} == {"mean_of_6"}
    # a value that is no mean of 6 whole counts is refused with its row, and nothing is written
    bad = tmp_path / "bad.csv"
    bad.write_text("id,m\n0:bleu,1.62\n", encoding="utf-8")
    refused = _cli(store, "import-annotations", str(bad), "--dataset", "rexval", "--id-col", "id",
                   "--aggregate-of", "6", "--total-col", "m", "--annotator", "other")
    assert refused.returncode == 2 and "row 1: m '1.62' is not a mean of 6 whole counts" in refused.stderr
