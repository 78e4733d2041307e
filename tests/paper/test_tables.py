"""The papers' tables: numbers equal `correlate --json` to the printed decimals, marks where the rules put
them (crafted ties, a single judge), names escaped, LaTeX that compiles (or passes the structural check)."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from core.analysis.naming import column_name
from core.paper.correlations import CorrelationContext, correlation_table
from core.paper.formats import render, to_frame
from core.paper.latex import escape, standalone, structure_problems, to_latex
from core.paper.tables import fmt
from tests.paper.conftest import THREE, cli, correlate_json
from tests.paper.latex_read import cell_at, read_cells, unstack

PDFLATEX = shutil.which("pdflatex")
NO_TEX = "pdflatex is not installed (make browser installs Debian's texlive-latex-base); structural check only"


def latex_rows(tex: str) -> dict[str, list[str]]:
    """Row label -> its cells, read back from a to_latex tabular."""
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    out = {}
    for line in body.strip().splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)&", line.removesuffix(r"\\").strip())]
        out[cells[0]] = cells[1:]
    return out


def latex_header(tex: str) -> list[str]:
    head = tex.split(r"\toprule")[1].split(r"\midrule")[0].strip().removesuffix(r"\\")
    return [c.strip() for c in re.split(r"(?<!\\)&", head)][1:]


CELL = re.compile(r"^(?P<open>\\textbf\{|\\underline\{)?(?P<num>(\$-\$)?[0-9.]+)\}?(?P<dag>\$\^\{\\dagger\}\$)?"
                  r"(?P<wrong>\$\^\{\\ddagger\}\$)?(?: \[(?P<lo>(\$-\$)?[0-9.]+), (?P<hi>(\$-\$)?[0-9.]+)\])?$")


def _num(text: str) -> str:
    return text.replace("$-$", "-")


def check_against_json(tex: str, rows: list[dict], decimals: int, with_ci: bool) -> int:
    """Every number of the LaTeX table equals the JSON's to the printed decimals; dagger and wrong sign as
    the JSON says. Returns the cells checked."""

    # each column's header by the one naming rule (core.analysis.naming), over the judges with that metric
    labels = {m: column_name(m, [r["judge"] for r in rows if r["metric"] == m]) for m in {r["metric"] for r in rows}}
    cells = read_cells(tex)
    checked = 0
    for r in rows:
        if r["abs_tau"] is None:
            continue
        cell = cell_at(cells, escape(r["judge"]), escape(labels[r["metric"]]))
        m = CELL.match(cell)
        assert m, cell
        assert _num(m["num"]) == fmt(r["abs_tau"], decimals)
        assert bool(m["dag"]) == (not r["p"] < 0.01)
        assert bool(m["wrong"]) == (not r["sign_ok"])
        if with_ci:
            lo, hi = (r["ci_low"], r["ci_high"]) if r["tau"] >= 0 else (-r["ci_high"], -r["ci_low"])
            assert (_num(m["lo"]), _num(m["hi"])) == (fmt(lo, decimals), fmt(hi, decimals))
        checked += 1
    return checked


@pytest.mark.parametrize("which", ["demo", "three"])
def test_latex_numbers_equal_correlate_json(which, paper_demo, three_rater):
    store, dataset = (paper_demo, "demo") if which == "demo" else (three_rater, THREE)
    rows = correlate_json(store, dataset)
    tex = cli(store, "correlate", "--dataset", dataset, "--table", "--format", "latex", "--with-ci").stdout
    assert check_against_json(tex, rows, 3, True) == sum(r["abs_tau"] is not None for r in rows) >= 10
    assert structure_problems(tex) == []
    two = cli(store, "correlate", "--dataset", dataset, "--format", "latex", "--decimals", "2").stdout
    assert check_against_json(two, rows, 2, False) >= 10
    assert all("[" not in c for c in read_cells(two).values())  # no CI unless asked


def test_drop_identical_and_three_raters_in_the_caption_and_numbers(three_rater):
    rows = correlate_json(three_rater, THREE, "--drop-identical", "--raters", "r1,r3")
    tex = cli(three_rater, "correlate", "--dataset", THREE, "--format", "latex", "--drop-identical",
              "--raters", "r1,r3").stdout
    check_against_json(tex, rows, 3, False)
    n_identical = int(re.search(r"(\d+) identical pairs? \(candidate = reference\) removed", tex)[1])
    kept = correlate_json(three_rater, THREE)
    assert n_identical > 0 and max(r["n"] for r in kept) - max(r["n"] for r in rows) == n_identical
    assert "annotators r1, r3" in tex and r"not synthetic" not in tex and "synthetic data" not in tex


def corr_row(judge, metric, abs_tau, *, p=1e-9, sign=1, n=50):
    return {"judge": judge, "metric": metric, "tau": sign * abs_tau, "abs_tau": abs_tau, "p": p, "n": n,
            "expected_sign": 1, "tau_oriented": sign * abs_tau, "sign_ok": sign > 0, "rho": math.nan,
            "abs_rho": math.nan, "rho_p": math.nan, "r": math.nan, "abs_r": math.nan, "r_p": math.nan,
            "ci_low": sign * abs_tau - 0.05, "ci_high": sign * abs_tau + 0.05, "ci_method": "bootstrap-cluster",
            "n_boot": 1000, "seed": 0, "level": 0.95}


CTX = CorrelationContext(dataset="crafted", synthetic=False, target="score", raters="experts", n_pairs=50,
                         n_groups=20, n_identical=0, identical_removed=False)


def test_ties_are_decided_on_the_printed_values():
    corr = pd.DataFrame([corr_row("A", "green", 0.8004), corr_row("B", "green", 0.8003),
                         corr_row("C", "green", 0.7), corr_row("D", "green", 0.6),
                         corr_row("A", "bleu4", 0.5), corr_row("B", "bleu4", 0.5), corr_row("C", "bleu4", 0.49951)])
    t3 = correlation_table(corr, CTX, decimals=3)
    # 0.8004 and 0.8003 both print 0.800: both bold; the next printed value (0.700) is the second
    assert [t3.cell(j, "green").bold for j in "ABCD"] == [True, True, False, False]
    assert [t3.cell(j, "green").underline for j in "ABCD"] == [False, False, True, False]
    # 0.49951 prints 0.500 like the exact 0.5s: three bold, none second
    assert [t3.cell(j, "bleu4").bold for j in "ABC"] == [True, True, True]
    assert not any(t3.cell(j, "bleu4").underline for j in "ABC")
    t4 = correlation_table(corr, CTX, decimals=4)  # now printed apart: A best, B second
    assert [t4.cell(j, "green").bold for j in "ABCD"] == [True, False, False, False]
    assert [t4.cell(j, "green").underline for j in "ABCD"] == [False, True, False, False]
    assert [t4.cell(j, "bleu4").bold for j in "ABC"] == [True, True, False]
    assert t4.cell("C", "bleu4").underline
    tex = to_latex(t3)
    assert latex_rows(tex)["A"][0] == r"\textbf{0.800}" and latex_rows(tex)["C"][0] == r"\underline{0.700}"
    md = render(t3, "markdown").decode()
    assert "| A | **0.800** |" in md and "<u>0.700</u>" in md


def test_a_single_judge_or_a_metric_of_one_judge_is_never_marked():
    corr = pd.DataFrame([corr_row("only", "green", 0.9), corr_row("only", "bleu4", 0.3, p=0.2),
                         corr_row("only", "rouge_l", 0.4, sign=-1)])
    table = correlation_table(corr, CTX, with_ci=True)
    cells = [table.cell("only", m) for m in ("green", "bleu4", "rouge_l")]
    assert not any(c.bold or c.underline for c in cells)
    assert [c.dagger for c in cells] == [False, True, False]
    assert [c.wrong_sign for c in cells] == [False, False, True]
    # the wrong-sign cell prints |tau| and the interval of -tau: [-(high), -(low)]
    assert cells[2].text == "0.400" and cells[2].ci == ("0.350", "0.450")
    tex = to_latex(table)
    assert latex_rows(tex)["only"] == ["0.900 [0.850, 0.950]", r"0.300$^{\dagger}$ [0.250, 0.350]",
                                       r"0.400$^{\ddagger}$ [0.350, 0.450]"]


def test_names_are_escaped_and_the_table_compiles_or_is_structurally_sound(tmp_path):
    nasty = r"my_judge 50% & #1 ~x^2 \path {a}"
    corr = pd.DataFrame([corr_row(nasty, "my_metric%", 0.61), corr_row("plain", "my_metric%", 0.42)])
    ctx = CorrelationContext(dataset="study_1 & co", synthetic=False, target="score", raters="annotators a_1, b%",
                             n_pairs=50, n_groups=50, n_identical=2, identical_removed=True)
    tex = to_latex(correlation_table(corr, ctx, with_ci=True))
    assert (r"my\_judge 50\% \& \#1 \textasciitilde{}x\textasciicircum{}2 \textbackslash{}path \{a\}"
            in unstack(tex))  # a long label wraps at its spaces
    assert r"my\_metric\%" in tex and r"study\_1 \& co" in tex and r"a\_1, b\%" in tex
    assert structure_problems(tex) == []
    assert structure_problems(tex.replace(r"\_judge", "_judge"))  # the check does catch a raw underscore
    assert structure_problems(tex.replace(r"\bottomrule", ""))
    if PDFLATEX is None:
        pytest.skip(NO_TEX)
    compile_ok(standalone([tex]), tmp_path)


def compile_ok(document: str, folder: Path) -> bytes:
    (folder / "t.tex").write_text(document, encoding="utf-8")
    run = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=folder,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "mktexpk" not in run.stdout  # only vector (Type 1) fonts: no bitmap font made on the fly
    pdf = (folder / "t.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(pdf) > 5000
    return pdf


@pytest.mark.parametrize("which", ["demo", "three"])
def test_every_table_is_written_in_three_formats_and_compiles(which, paper_demo, three_rater, tmp_path):
    store, dataset = (paper_demo, "demo") if which == "demo" else (three_rater, THREE)
    out = tmp_path / "tables"
    cli(store, "tables", "--dataset", dataset, "--out", str(out), "--with-ci")
    names = {p.name for p in out.iterdir()}
    for stem in ("correlations-score-kendall" if which == "demo" else "correlations-sig-errors-kendall",
                 "errortypes-f1", "calibration-counts", "ensembles", "leaderboard-judges"):
        assert {f"{stem}.tex", f"{stem}.md", f"{stem}.csv"} <= names, names
    for tex in out.glob("*.tex"):
        assert structure_problems(tex.read_text(encoding="utf-8")) == [], tex.name
    if PDFLATEX is None:
        pytest.skip(NO_TEX)
    compile_ok((out / "tables.tex").read_text(encoding="utf-8"), out)


def test_csv_holds_the_exact_values_of_correlate(paper_demo):
    import io

    rows = {(r["judge"], r["metric"]): r for r in correlate_json(paper_demo, "demo")}
    csv = pd.read_csv(io.StringIO(cli(paper_demo, "correlate", "--dataset", "demo", "--format", "csv",
                                      "--with-ci").stdout), dtype={"printed": str, "ci": str})
    assert len(csv) == len(rows)
    for _, c in csv.iterrows():
        r = rows[(c["row"], c["column"])]
        assert c["value"] == pytest.approx(r["abs_tau"], rel=1e-14)
        assert c["printed"] == fmt(r["abs_tau"], 3) and bool(c["dagger"]) == (not r["p"] < 0.01)
    md = cli(paper_demo, "correlate", "--dataset", "demo", "--format", "markdown").stdout
    assert md.startswith("| Judge | GREEN formula (rules counts) |")
    assert re.search(r"\|τ\| \(Kendall's tau-b\).* 120 pairs( \(each cell: n = [0-9, to]+\))? in \d+ reference groups",
                     md)


def test_the_other_tables_print_the_commands_numbers(three_rater):
    import json

    from core.analysis.scores import METRICS
    from core.paper.analyses import errortype_table
    from core.paper.assemble import all_tables
    from core.paper.compute import PaperSettings, compute_all
    from core.store.db import Store

    results = compute_all(Store(three_rater), THREE, PaperSettings(with_ci=True))
    tables = all_tables(results)
    f1 = json.loads(cli(three_rater, "errortypes", "--dataset", THREE, "--json").stdout)["f1"]
    frame = to_frame(tables["errortypes"])
    for r in f1:
        cell = frame[(frame["row"] == r["judge"]) & (frame["column"] == r["category"])].iloc[0]
        assert cell["printed"] == fmt(r["f1"], 3)
        if r["f1_ci_low"] is None:  # an undefined interval (no resample defined it) prints none
            assert pd.isna(cell["ci"])
        else:
            assert cell["ci"] == f"[{fmt(r['f1_ci_low'], 3)}, {fmt(r['f1_ci_high'], 3)}]"
    ens = json.loads(cli(three_rater, "ensemble", "--dataset", THREE, "--json").stdout)
    frame = to_frame(tables["ensembles"])
    for r in (r for r in ens if r["status"] == "ok"):
        label = METRICS[r["feature_set"]].label if r["feature_set"] in METRICS else r["feature_set"]
        cell = frame[(frame["column"] == r["ensemble"]) & (frame["row"] == label)].iloc[0]
        assert cell["printed"] == fmt(r["tau"], 3) and cell["value"] == pytest.approx(r["tau"], rel=1e-13)
        assert bool(cell["dagger"]) == (not r["p"] < 0.01) and cell["n"] == r["n_test"]
    cal = json.loads(cli(three_rater, "calibrate", "--dataset", THREE, "--json").stdout)["counts"]
    frame = to_frame(tables["calibration"])
    for r in (r for r in cal if r["n"] > 0):
        cell = frame[(frame["row"] == str(r["x"])) & (frame["column"] == r["judge"])].iloc[0]
        assert cell["printed"] == fmt(r["y"], 2) and cell["n"] == r["n"]
    board = json.loads(cli(three_rater, "leaderboard", "--dataset", THREE, "--json").stdout)
    assert [c for _, c in tables["leaderboard"].rows][0][2].text == fmt(board[0]["tau_oriented"], 3)
    assert errortype_table  # the builder the table came from
