"""The methods paragraph names every setting that changed a number, and its BibTeX resolves every citation."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from core.paper.compute import PaperSettings, compute_all
from core.paper.methods import methods_bibtex, methods_paragraph
from core.reads.frames import judge_runs
from core.reads.runcost import run_costs
from core.store.db import Store
from tests.paper.conftest import THREE, cli


def paragraph(path, dataset: str = THREE, **settings):
    store = Store(path)
    results = compute_all(store, dataset, PaperSettings(**settings))
    return methods_paragraph(results, judge_runs(store, dataset), run_costs(store, dataset)), results


def test_every_setting_that_changes_a_number_changes_the_paragraph(three_rater):
    base, results = paragraph(three_rater)
    text = base.render("text")
    alpha = results.agreement["alpha"]
    assert "120 report pairs" in text and f"{results.context.n_groups} reference groups" in text
    assert "the number of clinically significant errors per report" in text
    assert "r1, r2, r3" in text and f"Krippendorff's alpha = {alpha:.3f} (ratio level" in text
    assert "sum of that annotator's integer error counts" in text and "one exact division" in text
    assert "Kendall's tau-b (which corrects for ties" in text
    assert "resamples whole reference groups (1,000 resamples, seed 0)" in text
    assert re.search(r"\d+ pairs? whose candidate equals the reference .* (was|were) kept", text)
    assert "rules (offline rules judge, version" in text and "cost $0.0000" in text
    variants = {
        "raters": dict(raters="r1,r2"),
        "ci": dict(ci="asymptotic"),
        "seed": dict(seed=5),
        "identical": dict(drop_identical=True),
        "resamples": dict(n_boot=200),
        "stat": dict(stat="rho"),
    }
    seen = {text}
    for name, change in variants.items():
        other = paragraph(three_rater, **change)[0].render("text")
        assert other not in seen, name
        seen.add(other)
        if name == "raters":
            assert "from annotators r1, r2;" in other and "Agreement between the 2 annotators" in other
            assert f"alpha = {alpha:.3f}" not in other  # the agreement of the chosen raters
        if name == "ci":
            assert "asymptotic intervals from each pair's influence" in other and "(asymptotic asked for)" in other
        if name == "seed":
            assert "seed 5" in other and "seed 0" not in other
        if name == "identical":
            assert "were removed before every statistic" in other and "120 report pairs" not in other
        if name == "resamples":
            assert "200 resamples" in other and "1,000 resamples" not in other
        if name == "stat":
            assert "Spearman's rho" in other and "mean pairwise rho" in other


def test_bibtex_holds_every_cited_key_and_a_latex_document_resolves_them(three_rater, tmp_path):
    para, _ = paragraph(three_rater)
    tex = para.render("latex")
    cited = {k for group in re.findall(r"\\citep\{([^}]*)\}", tex) for k in group.split(",")}
    bib = methods_bibtex(para)
    assert cited == set(re.findall(r"^@\w+\{([^,]+),", bib, re.M)) == set(para.keys)
    assert bib.count("{") == bib.count("}")
    assert {"kendall1945ties", "krippendorff2018content", "field2007clustered", "papineni2002bleu",
            "lin2004rouge", "ostmeier2024green"} <= cited
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.skip("pdflatex/bibtex not installed (make browser installs Debian's texlive-latex-base)")
    (tmp_path / "m.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "m.tex").write_text("\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{natbib}\n"
                                    "\\usepackage{url}\n\\begin{document}\n" + tex + "\n\\bibliographystyle{plainnat}\n"
                                    "\\bibliography{m}\n\\end{document}\n", encoding="utf-8")
    logs = []
    for cmd in (["pdflatex", "-interaction=nonstopmode", "m.tex"], ["bibtex", "m"],
                ["pdflatex", "-interaction=nonstopmode", "m.tex"], ["pdflatex", "-interaction=nonstopmode", "m.tex"]):
        run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-2000:]
        logs.append(run.stdout)
    assert "undefined" not in logs[-1].lower(), logs[-1][-1500:]
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")


def test_methods_command_prints_the_paragraph_and_writes_the_bib(three_rater, tmp_path):
    bib = tmp_path / "refs.bib"
    out = cli(three_rater, "methods", "--dataset", THREE, "--format", "latex", "--bib", str(bib)).stdout
    assert out.startswith("We compared 3 judges") and "\\citep{" in out and "@" not in out
    assert bib.read_text(encoding="utf-8").startswith("@")
    again = cli(three_rater, "methods", "--dataset", THREE, "--bib", str(bib), check=False)
    assert again.returncode == 1 and "--force" in again.stderr  # an existing file is not replaced silently
    plain = cli(three_rater, "methods", "--dataset", "demo").stdout  # the 3-rater store holds the demo too
    assert "(synthetic data generated by RadConcord)" in plain and "@article{kendall1945ties," in plain
