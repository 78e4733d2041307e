"""``correlate --breakdown F`` in the papers' shape (one column per value of F) and the systems' leaderboard
table: numbers equal the commands' --json to the printed decimals, marks where the rules put them, LaTeX
that passes the structural check (and compiles when pdflatex is here)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from core.analysis.naming import display_name
from core.paper.latex import structure_problems
from core.paper.tables import fmt
from tests.paper.conftest import cli
from tests.paper.test_tables import NO_TEX, PDFLATEX, compile_ok

BOOT = ("--n-boot", "200")


def label(judge: str, metric: str) -> str:
    """A row's name by the one naming rule (core.analysis.naming): the rules judge's counts say so themselves."""
    return display_name(judge, metric, with_judge=True)


def read_csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), dtype={"printed": str, "ci": str, "row": str, "column": str})


def test_breakdown_table_holds_correlate_breakdowns_numbers(paper_demo):
    rows = json.loads(cli(paper_demo, "correlate", "--dataset", "demo", "--breakdown", "modality", "--json",
                          *BOOT).stdout)
    csv = read_csv(cli(paper_demo, "correlate", "--dataset", "demo", "--breakdown", "modality", "--format", "csv",
                       "--with-ci", *BOOT).stdout)
    assert len(csv) == len(rows) > 20  # one cell per (judge metric, modality), with a value or its n
    cells = csv.set_index(["row", "column"])
    for r in rows:
        cell = cells.loc[(label(r["judge"], r["metric"]), r["modality"])]
        assert cell["n"] == r["n"]
        if r["abs_tau"] is None:  # too few pairs: the n, no number
            assert r["too_few"] and cell["printed"] == f"(n={r['n']})"
            continue
        assert cell["printed"] == fmt(r["abs_tau"], 3) and cell["value"] == pytest.approx(r["abs_tau"], rel=1e-13)
        assert bool(cell["dagger"]) == (not r["p"] < 0.01) and bool(cell["wrong_sign"]) == (not r["sign_ok"])
        lo, hi = (r["ci_low"], r["ci_high"]) if r["tau"] >= 0 else (-r["ci_high"], -r["ci_low"])
        assert cell["ci"] == f"[{fmt(lo, 3)}, {fmt(hi, 3)}]"
    # bold best and underlined second per modality, on the printed values (dense ranking, ties alike)
    for modality, part in csv[csv["value"].notna()].groupby("column"):
        printed = part["printed"].astype(float)
        ranks = sorted(set(printed), reverse=True)
        assert list(part["bold"]) == list(printed == ranks[0]), modality
        assert list(part["underline"]) == list(printed == ranks[1]), modality


def test_breakdown_table_as_markdown_and_latex(paper_demo, tmp_path):
    md = cli(paper_demo, "correlate", "--dataset", "demo", "--breakdown", "modality", "--table").stdout
    assert md.startswith("| Judge · metric | CT | CTA |") and ", by modality: |τ| (Kendall's tau-b)" in md
    tex = cli(paper_demo, "correlate", "--dataset", "demo", "--breakdown", "system", "--format", "latex", "--stat",
              "rho", "--with-n", "--n-boot", "0").stdout
    assert structure_problems(tex) == [] and r"\label{tab:demo-score-spearman-system}" in tex
    assert "sys-careful" in tex and "($n=" in tex and "CIs:" not in tex
    plain = cli(paper_demo, "correlate", "--dataset", "demo", "--breakdown", "modality", "--n-boot", "0").stdout
    assert plain.startswith("Expert target: score")  # without --table or --format: the text table, as before
    if PDFLATEX is None:
        pytest.skip(NO_TEX)
    from core.paper.latex import standalone

    compile_ok(standalone([tex]), tmp_path)


def test_systems_table_holds_the_systems_leaderboard(paper_demo, tmp_path):
    board = json.loads(cli(paper_demo, "leaderboard", "--dataset", "demo", "--kind", "systems", "--json").stdout)
    assert len(board) >= 8  # four systems under each of two judges' scores
    csv = read_csv(cli(paper_demo, "tables", "--dataset", "demo", "--table", "systems", "--format", "csv").stdout)
    scores = csv[csv["column"] == "score"].reset_index(drop=True)
    assert list(scores["row"]) == [r["system"] for r in board]
    assert list(scores["printed"]) == [fmt(r["score"], 3) for r in board]
    assert scores["value"].to_numpy() == pytest.approx([r["score"] for r in board], rel=1e-13)
    ranks = csv[csv["column"] == "rank"]
    assert list(ranks["printed"]) == [str(r["rank"]) for r in board]
    groups = csv[csv["column"] == "group"]
    assert list(groups["printed"]) == [r["group"] for r in board]
    tex = cli(paper_demo, "tables", "--dataset", "demo", "--table", "systems", "--format", "latex").stdout
    assert structure_problems(tex) == [] and "LAIas Sec. 6.3" in tex
    out = tmp_path / "tables"
    cli(paper_demo, "tables", "--dataset", "demo", "--out", str(out), "--n-boot", "0")
    assert {"leaderboard-systems.tex", "leaderboard-systems.md", "leaderboard-systems.csv"} <= {
        p.name for p in out.iterdir()}
    assert "Candidate systems ranked" in (out / "tables.tex").read_text(encoding="utf-8")
