"""The LaTeX the product writes fits the page: every table compiles with pdflatex without an overfull box
(``tables --out`` default and ``--with-ci --with-n``, the bundle's copy, the 3-rater dataset, a breakdown,
16 judges with long names), the layout comes from the content (transposed, CI stacked, split by metric
family), every printed cell survives the layout unchanged, and ``tables --out FILE.tex`` is that file."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from core.paper.correlations import correlation_table
from core.paper.formats import to_frame
from core.paper.latex import cell_latex, escape, standalone, structure_problems, to_latex
from tests.paper.conftest import THREE, cli
from tests.paper.latex_read import cell_at, read_cells
from tests.paper.test_tables import CTX, corr_row

PDFLATEX = shutil.which("pdflatex")
NO_TEX = "pdflatex is not installed (make browser installs Debian's texlive-latex-base)"
FAMILIES = {"rules": ("GREEN formula over the rules judge's counts", "significant errors the rules judge counted",
                      "all errors the rules judge counted", "F1 of the rules judge's findings", "Formula"),
            "lexical": ("BLEU-4", "BLEU-2 (ReXVal)", "ROUGE-L"),
            "length": ("Word-count difference", "Candidate words", "Reference words")}


def compile_log(document: str, folder: Path) -> str:
    """pdflatex's log of ``document`` (it must compile)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.tex").write_text(document, encoding="utf-8")
    run = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=folder,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:]
    return (folder / "t.log").read_text(encoding="latin-1")


def long_names(with_ci: bool) -> object:
    """16 judges with long model names, each with one family's metrics under long labels."""
    rows = [corr_row(f"openrouter/some-vendor/a-long-model-name-{i} · {fam}", metric, 0.4 + i / 50)
            for i in range(16) for fam in [list(FAMILIES)[i % 3]] for metric in FAMILIES[fam]]
    return correlation_table(pd.DataFrame(rows), CTX, with_ci=with_ci, with_n=with_ci)


def documents(which: str, store: Path, tmp: Path) -> str:
    """The LaTeX document the product writes in case ``which``."""
    if which in ("default", "ci-n", "three-ci-n"):
        extra = () if which == "default" else ("--with-ci", "--with-n")
        dataset = THREE if which.startswith("three") else "demo"
        cli(store, "tables", "--dataset", dataset, "--out", str(tmp / "out"), *extra)
        return (tmp / "out" / "tables.tex").read_text(encoding="utf-8")
    if which == "bundle":
        cli(store, "bundle", "--dataset", "demo", "--out", str(tmp / "b.zip"), "--with-ci", "--with-n")
        with zipfile.ZipFile(tmp / "b.zip") as z:
            name = next(n for n in z.namelist() if n.endswith("tables/tables.tex"))
            return z.read(name).decode("utf-8")
    if which == "breakdown":
        return standalone([cli(store, "correlate", "--dataset", "demo", "--breakdown", "system", "--table",
                               "--format", "latex", "--with-ci", "--with-n").stdout])
    return standalone([to_latex(long_names(False)), to_latex(long_names(True))])


@pytest.mark.parametrize("which", ["default", "ci-n", "bundle", "three-ci-n", "breakdown", "long-names"])
def test_every_table_compiles_without_an_overfull_box(which, paper_demo, three_rater, tmp_path):
    document = documents(which, three_rater if which.startswith("three") else paper_demo, tmp_path)
    assert structure_problems(document) == []
    if PDFLATEX is None:
        pytest.skip(NO_TEX)
    log = compile_log(document, tmp_path / "tex")
    assert re.findall(r"Overfull \\[hv]box.*", log) == []
    assert "Float too large" not in log


def test_the_size_estimate_is_pdflatex_s_within_4_percent(three_rater, tmp_path):
    """The layout is chosen from estimated widths and heights: measure every part's natural size with pdflatex."""
    from core.paper.assemble import all_tables
    from core.paper.compute import PaperSettings, compute_all
    from core.paper.layout import choose_layout, height_pt, width_pt
    from core.store.db import Store

    if PDFLATEX is None:
        pytest.skip(NO_TEX)
    tables = [*all_tables(compute_all(Store(three_rater), THREE, PaperSettings(with_ci=True, with_n=True))).values(),
              long_names(False), long_names(True)]
    estimates, fragments = [], []
    for table in tables:
        layout = choose_layout(table)
        estimates += [(width_pt(g, table.with_ci, table.with_n, layout.stacked),
                       height_pt(g, table.with_ci, table.with_n, layout.stacked)) for f in layout.floats for g in f]
        fragments.append(to_latex(table).replace(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
                                                 r"\setbox0\hbox{%")
                         .replace(r"\end{tabular}}",
                                  r"\end{tabular}}\typeout{SIZE \the\wd0\space\the\dimexpr\ht0+\dp0\relax}\box0"))
    log = compile_log(standalone(fragments), tmp_path)
    measured = [(float(w), float(h)) for w, h in re.findall(r"SIZE ([\d.]+)pt ?([\d.]+)pt", log)]
    assert len(measured) == len(estimates) >= 10
    for estimate, real in zip(estimates, measured, strict=True):
        assert abs(estimate[0] / real[0] - 1) < 0.04 and abs(estimate[1] / real[1] - 1) < 0.04, (estimate, real)


def printed_cells(table) -> dict[tuple[str, str], str]:
    """(row, header) -> the cell as one line of LaTeX, for every cell with a value."""
    frame = to_frame(table)
    rows = dict(table.rows)
    return {(r["row"], r["header"]): cell_latex(rows[r["row"]][table.columns.index(r["header"])],
                                                table.with_ci, table.with_n)
            for _, r in frame.iterrows()}


def test_the_layout_comes_from_the_content_and_keeps_every_cell(paper_demo):
    from core.paper.layout import TEXT_WIDTH_PT, choose_layout, is_empty, width_pt

    # the demo: 3 judges x 11 metrics is too wide, 11 metrics x 3 judges fits
    demo = _demo_table(paper_demo, False)
    layout = choose_layout(demo)
    assert layout.transposed and not layout.stacked and len(layout.parts) == 1
    assert width_pt(layout.parts[0], False, False, False) <= TEXT_WIDTH_PT
    tex = to_latex(demo)
    assert "per row (on the printed values)" in tex and "per column" not in tex
    # 16 long-named judges: split by metric family, each part only the judges that have its metrics
    for with_ci in (False, True):
        table = long_names(with_ci)
        layout = choose_layout(table)
        assert len(layout.parts) >= 2 and not layout.transposed
        for part in layout.parts:
            assert width_pt(part, with_ci, with_ci, layout.stacked) <= TEXT_WIDTH_PT
            assert all(any(not is_empty(c) for c in cells) for _, cells in part.rows)  # only rows with a value
            for family, metrics in FAMILIES.items():  # a family is cut only when it is wider than the page
                holding = [p for p in layout.parts if set(metrics) & set(p.columns)]
                assert len(holding) == 1 or (with_ci and family == "rules"), (family, with_ci)
        assert sum(len(p.rows) for p in layout.parts) < 16 * len(layout.parts)
        assert sum(len(f) for f in layout.floats) >= len(layout.parts) and len(layout.floats) >= 1
    # every number identical, whatever the layout: each printed cell read back from the LaTeX
    for table in (demo, long_names(False), long_names(True), _demo_table(paper_demo, True)):
        cells = read_cells(to_latex(table))
        expected = printed_cells(table)
        assert len(cells) >= len(expected) >= 11
        for (row, header), text in expected.items():
            assert cell_at(cells, escape(row), escape(header)) == text


def _demo_table(store: Path, with_ci: bool):
    from core.paper.compute import PaperSettings, correlation_results
    from core.store.db import Store

    corr, ctx, _ = correlation_results(Store(store), "demo", PaperSettings())
    return correlation_table(corr, ctx, with_ci=with_ci, with_n=with_ci)


def test_out_ending_in_tex_is_that_file(paper_demo, tmp_path):
    out = tmp_path / "tables.tex"
    run = cli(paper_demo, "tables", "--dataset", "demo", "--out", str(out))
    assert out.is_file() and run.stdout.strip() == str(out)
    text = out.read_text(encoding="utf-8")
    assert text.startswith(r"\documentclass") and text.count(r"\begin{table}") >= 5
    assert list(tmp_path.iterdir()) == [out]  # no folder, no other file
    again = cli(paper_demo, "tables", "--dataset", "demo", "--out", str(out), check=False)
    assert again.returncode != 0 and "exists; add --force" in again.stderr
    assert cli(paper_demo, "tables", "--dataset", "demo", "--out", str(out), "--force").returncode == 0
    bad = cli(paper_demo, "tables", "--dataset", "demo", "--out", str(tmp_path / "t.tex"), "--format", "csv",
              check=False)
    assert bad.returncode != 0 and "give a folder" in bad.stderr and not (tmp_path / "t.tex").exists()
    folder = tmp_path / "folder"
    cli(paper_demo, "tables", "--dataset", "demo", "--out", str(folder))
    assert (folder / "tables.tex").read_text(encoding="utf-8") == text  # the same document
