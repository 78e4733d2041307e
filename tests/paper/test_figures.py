"""Every chart exports to SVG and PDF without a browser, at a fixed size, and its CSV holds the analysis'
numbers (checked against the commands' --json)."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from tests.paper.conftest import THREE, cli


@pytest.fixture(scope="module")
def figures_three(three_rater, tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    run = cli(three_rater, "figures", "--dataset", THREE, "--out", str(out))
    assert "no browser" in run.stderr
    return out


def read_csv(path) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(path.read_text(encoding="utf-8")))


def test_every_figure_is_an_svg_and_a_pdf_of_a_fixed_size(figures_three):
    from core.paper.figstyle import HEIGHT, TALL, WIDTH

    stems = sorted({p.stem for p in figures_three.iterdir()})
    assert {"calibration-counts", "f1-per-category", "heatmap-modality"} <= set(stems)
    assert any(s.startswith("scatter-") for s in stems)
    for stem in stems:
        svg, pdf, csv = (figures_three / f"{stem}.{ext}" for ext in ("svg", "pdf", "csv"))
        root = ET.fromstring(svg.read_bytes())  # well-formed XML
        assert root.tag.endswith("svg")
        width, height = float(root.get("width")), float(root.get("height"))
        plot = TALL if stem.startswith("ensembles-") else HEIGHT  # the fixed sizes of core/paper/figstyle.py
        assert WIDTH <= width <= WIDTH + 400 and plot <= height <= plot + 200, (stem, width, height)
        assert len(root.findall(".//{http://www.w3.org/2000/svg}text")) >= 5  # titles, ticks: readable text
        data = pdf.read_bytes()
        assert data.startswith(b"%PDF-") and b"/Type /Page" in data and len(data) > 8_000, stem
        assert b"/FontFile" in data  # fonts embedded
        assert svg.stat().st_size > 5_000 and csv.stat().st_size > 50


def test_figure_csvs_hold_the_commands_numbers(three_rater, figures_three):
    # calibrate and errortypes print JSON with 10 significant digits, correlate with 15
    cal = pd.DataFrame(json.loads(cli(three_rater, "calibrate", "--dataset", THREE, "--json").stdout)["counts"])
    cal = cal[cal["n"] > 0].reset_index(drop=True)
    shown = read_csv(figures_three / "calibration-counts.csv")
    assert list(shown["x"]) == list(cal["x"]) and list(shown["n"]) == list(cal["n"])
    assert shown["y"].to_numpy() == pytest.approx(cal["y"].to_numpy(), rel=1e-9)
    assert shown["ci_low"].to_numpy() == pytest.approx(cal["ci_low"].to_numpy(), rel=1e-9, nan_ok=True)

    f1 = pd.DataFrame(json.loads(cli(three_rater, "errortypes", "--dataset", THREE, "--json").stdout)["f1"])
    shown = read_csv(figures_three / "f1-per-category.csv")
    assert list(shown["category"]) == list(f1["category"])
    assert shown["f1"].to_numpy() == pytest.approx(f1["f1"].to_numpy(), rel=1e-9, nan_ok=True)
    assert shown["tp"].to_numpy() == pytest.approx(f1["tp"].to_numpy(), rel=1e-9)
    assert shown["fn"].to_numpy() == pytest.approx(f1["fn"].to_numpy(), rel=1e-9)

    rows = json.loads(cli(three_rater, "correlate", "--dataset", THREE, "--json").stdout)
    scatter = read_csv(next(figures_three.glob("scatter-*.csv")))
    judge, metric = scatter["judge"].iloc[0], scatter["metric"].iloc[0]
    row = next(r for r in rows if r["judge"] == judge and r["metric"] == metric)
    best = max((r for r in rows if r["tau_oriented"] is not None and r["tau_oriented"] > 0),
               key=lambda r: r["tau_oriented"])
    assert (judge, metric) == (best["judge"], best["metric"]) and len(scatter) == row["n"]
    from scipy.stats import kendalltau

    assert kendalltau(scatter["value"], scatter["target"]).statistic == pytest.approx(row["tau"], abs=1e-12)

    cells = pd.DataFrame(json.loads(cli(three_rater, "correlate", "--dataset", THREE, "--breakdown", "modality",
                                        "--n-boot", "0", "--json").stdout))
    heat = read_csv(figures_three / "heatmap-modality.csv")
    merged = heat.merge(cells, left_on=["judge", "metric", "facet"], right_on=["judge", "metric", "modality"],
                        suffixes=("", "_cli"))
    assert len(merged) == len(heat) > 10
    assert merged["tau"].to_numpy() == pytest.approx(merged["tau_cli"].to_numpy(), abs=1e-12, nan_ok=True)
    assert list(merged["n"]) == list(merged["n_cli"])


def test_the_preference_figure_plots_preference_accuracy(paper_demo, tmp_path):
    import shutil

    store = tmp_path / "prefs.duckdb"
    shutil.copyfile(paper_demo, store)
    cli(store, "import-preferences", "--dataset", "demo", "--from-annotations")
    out = tmp_path / "figs"
    cli(store, "figures", "--dataset", "demo", "--out", str(out), "--figure-format", "svg")
    assert not list(out.glob("*.pdf"))  # only what was asked
    shown = read_csv(out / "preference-by-confidence.csv")
    table = json.loads(cli(store, "preference", "--dataset", "demo", "--json").stdout)["rows"]
    levels = {(r["judge"], r["metric"], r["confidence"]): r for r in table if r["scope"] == "level"}
    for _, r in shown.iterrows():
        expected = levels[(r["judge"], r["metric"], r["confidence"])]
        assert r["accuracy"] == pytest.approx(expected["accuracy"], rel=1e-12) and r["n"] == expected["n"]
    assert shown["series"].nunique() <= 6


def test_reliability_and_ensemble_figures_hold_the_commands_numbers(three_rater, figures_three):
    stems = {p.stem for p in figures_three.iterdir()}
    assert "reliability-scores" not in stems  # study3 has error counts only: no expert score to bin
    ens = pd.DataFrame(json.loads(cli(three_rater, "ensemble", "--dataset", THREE, "--json").stdout))
    ens = ens[ens["tau"].notna()].set_index(["ensemble", "feature_set"])
    shown = read_csv(figures_three / "ensembles-sig-errors.csv")
    assert len(shown) == len(ens) > 5
    for _, r in shown.iterrows():
        want = ens.loc[(r["ensemble"], r["feature_set"])]
        assert r["tau"] == pytest.approx(want["tau"], rel=1e-9) and r["n_test"] == want["n_test"]
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]), rel=1e-9)
    assert (shown["dataset"] == THREE).all() and not shown["synthetic"].any()


def test_the_demo_has_a_reliability_figure_of_calibrates_numbers(paper_demo, tmp_path):
    out = tmp_path / "figs"
    cli(paper_demo, "figures", "--dataset", "demo", "--out", str(out), "--figure-format", "pdf", "--n-boot", "200")
    want = pd.DataFrame(json.loads(cli(paper_demo, "calibrate", "--dataset", "demo", "--json", "--n-boot",
                                       "200").stdout)["reliability"])
    want = want[want["n"] > 0].reset_index(drop=True)
    shown = read_csv(out / "reliability-scores.csv")
    assert list(zip(shown["judge"], shown["metric"], shown["bin"], strict=True)) == \
        list(zip(want["judge"], want["metric"], want["bin"], strict=True))
    assert shown["y"].to_numpy() == pytest.approx(want["y"].to_numpy(), rel=1e-9)
    assert shown["ci_low"].to_numpy() == pytest.approx(want["ci_low"].to_numpy(), rel=1e-9, nan_ok=True)
    assert list(shown["n"]) == list(want["n"]) and shown["synthetic"].all()
    pdf = (out / "reliability-scores.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"/FontFile" in pdf


def test_an_injected_dataset_gets_vert_fig3_per_error_type(paper_demo, tmp_path):
    """A dataset shaped like ``inject``'s output (annotator ``injected``, k = 1-3 errors of one type per report,
    taken from the demo's expert counts, no model): one figure per injected type, with calibrate's numbers."""
    import shutil

    store = tmp_path / "inj.duckdb"
    shutil.copyfile(paper_demo, store)
    from core.store.db import Store

    counts = Store(store).query_df(
        "SELECT p.ext_id, p.reference, p.candidate, a.category, avg(a.value) AS count FROM annotations a JOIN pairs p "
        "USING (pair_id) WHERE p.dataset = 'demo' AND a.field = 'error_count' AND a.significant GROUP BY ALL")
    picked = counts[counts["category"].isin(["a", "b"]) & counts["count"].isin([1.0, 2.0, 3.0])]
    picked = picked.drop_duplicates("ext_id")  # one injected type per report
    picked[["ext_id", "reference", "candidate"]].to_csv(tmp_path / "pairs.csv", index=False)
    picked.assign(significant="true", count=picked["count"].astype(int))[
        ["ext_id", "category", "significant", "count"]].to_csv(tmp_path / "injected.csv", index=False)
    cli(store, "import-pairs", str(tmp_path / "pairs.csv"), "--dataset", "inj", "--id-col", "ext_id",
        "--reference-col", "reference", "--candidate-col", "candidate", "--kind", "error_counts")
    cli(store, "import-annotations", str(tmp_path / "injected.csv"), "--dataset", "inj", "--id-col", "ext_id",
        "--category-col", "category", "--significant-col", "significant", "--count-col", "count",
        "--annotator", "injected")
    cli(store, "judge", "--dataset", "inj", "--judge", "rules", "--allow-failures")
    out = tmp_path / "figs"
    cli(store, "figures", "--dataset", "inj", "--out", str(out), "--n-boot", "200")
    want = pd.DataFrame(json.loads(cli(store, "calibrate", "--dataset", "inj", "--json", "--n-boot",
                                       "200").stdout)["injected"])
    for cat in ("a", "b"):
        shown = read_csv(out / f"injected-{cat}.csv")
        expected = want[(want["category"] == cat) & (want["n"] > 0)].reset_index(drop=True)
        assert list(shown["x"]) == list(expected["x"]) and list(shown["n"]) == list(expected["n"])
        assert shown["y"].to_numpy() == pytest.approx(expected["y"].to_numpy(), rel=1e-9)
        root = ET.fromstring((out / f"injected-{cat}.svg").read_bytes())
        assert any(f"({cat})" in (t.text or "") for t in root.iter("{http://www.w3.org/2000/svg}text"))
        assert (out / f"injected-{cat}.pdf").read_bytes().startswith(b"%PDF-")


def svg_texts(svg: bytes) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter() if t.tag.endswith("text")]


def test_heatmap_rows_are_never_cut_and_a_capped_heatmap_says_what_it_left_out(figures_three):
    """Issue 43: row labels cut until two rows read the same, and 10 of 16 rows shown without saying so."""
    from core.paper.figstyle import render
    from core.paper.figures_agreement import heatmap_figure

    order = [(f"openai/fake-judge-{i // 8}", f"{name} counted by the rules judge") for i in range(16)
             for name in [("significant errors", "all errors", "GREEN", "F1", "BLEU-4", "ROUGE-L", "BLEU-2",
                           "Formula")[i % 8]]]
    cells = pd.DataFrame([{"judge": j, "metric": m, "modality": v, "n": 40, "tau": 0.1 * (k % 9),
                           "expected_sign": 1} for k, (j, m) in enumerate(order) for v in ("CT", "MR", "XR")])
    for shown, capped in ((16, ""), (10, "the 10 of 16 judge metrics with the highest |τ|")):
        figure = heatmap_figure(cells, "modality", order[:shown], stat="kendall", min_n=10, capped=capped)
        texts = svg_texts(render(figure, "svg"))
        assert not [t for t in texts if t.endswith("…")]
        assert {f"{j} · {m}" for j, m in order[:shown]} <= set(texts)  # each row label whole
        assert set(figure.data["series"]) == {f"{j} · {m}" for j, m in order[:shown]}  # and in the CSV
        assert any(t == f"Showing {capped}." for t in texts) == bool(capped)
    # `figures` on the 3-rater dataset: 12 judge metrics (11 before the rules judge's CRIMSON-style score), the
    # heatmap draws the best 10 and says so
    texts = svg_texts((figures_three / "heatmap-modality.svg").read_bytes())
    assert any(t.startswith("Showing the 10 of 12 judge metrics with the highest |τ|") for t in texts), texts


@pytest.mark.parametrize("name", ["fig.svg", "fig.PDF", "chart.png", "numbers.csv"])
def test_out_ending_in_a_file_suffix_is_refused_in_one_line(paper_demo, tmp_path, name):
    """`figures --out fig.svg` made a folder named fig.svg (issue 43, point 10, found again in review): the same
    trap as `tables --out tables.tex`. Now it is refused in one line and nothing is written."""
    run = cli(paper_demo, "figures", "--dataset", "demo", "--out", str(tmp_path / name), check=False)
    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [f"error: --out {tmp_path / name} names a file; give a folder: every "
                                               "figure is written into it as NAME.svg, NAME.pdf and NAME.csv"]
    assert list(tmp_path.iterdir()) == []  # no folder named like a file, nothing else
