"""The methods paragraph's BibTeX: every entry well formed and cited by its short form, each radiology entry
says where it was checked, an entry with unverified parts says so in a ``note``, the prompts and metrics
cite their papers, and bibtex resolves every entry (when TeX is installed)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from core.paper.citations import BIBTEX, CHECKED, SHORT, bibtex, cite, metric_cites, prompt_cites

STATISTICS = {"papineni2002bleu", "lin2004rouge", "kendall1945ties", "krippendorff2018content",
              "davison1997bootstrap", "field2007clustered", "hampel1974influence", "efron1993bootstrap",
              "koehn2004significance", "wilson1927"}


def fields(entry: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r"^\s+(\w+) = \{(.*)\},?$", entry, re.M)}


def test_every_entry_is_well_formed_and_has_a_short_form():
    assert set(BIBTEX) == set(SHORT)
    for key, entry in BIBTEX.items():
        assert entry.startswith("@") and re.match(r"@\w+\{" + re.escape(key) + ",", entry), key
        assert entry.count("{") == entry.count("}"), key
        f = fields(entry)
        assert {"title", "author", "year"} <= set(f), (key, sorted(f))
        assert " others" not in f["author"], key  # full author lists, no "and others"


def test_each_paper_of_the_field_says_where_it_was_checked_and_what_is_unverified():
    assert set(CHECKED) == set(BIBTEX) - STATISTICS
    for key in CHECKED:  # a note exactly where something could not be checked (no year: LAIas Bench)
        f = fields(BIBTEX[key])
        assert ("note" in f) == (f["year"] == "n.d.") == ("see note" in CHECKED[key]), key
        assert "note" not in f or "Check before submission" in f["note"], key
    assert "note" in fields(BIBTEX["ribeiro-laias"])  # no year, venue or identifier in its copy
    vert = fields(BIBTEX["bologna2026vert"])
    assert vert["eprint"] == "2604.03376" and vert["author"].startswith("Bologna, Federica")
    assert fields(BIBTEX["bannur2024maira2"])["eprint"] == "2406.04449"
    assert fields(BIBTEX["cho2025crepe"])["booktitle"].startswith("Proceedings of the 2025 Conference on Empirical")


def test_prompts_and_metrics_cite_their_papers():
    for prompt in ("crimson", "crimson_nocontext", "crimson_noguide_nocontext"):
        assert prompt_cites(prompt) == ("baharoon2026crimson",)
    assert prompt_cites("vert_rad_err_10") == ("bologna2026vert",) and prompt_cites("green_original") == (
        "ostmeier2024green",)
    assert metric_cites("crimson_false") == ("baharoon2026crimson",) and metric_cites("laias_overall") == (
        "ribeiro-laias",)
    assert metric_cites("words_diff") == ()
    assert cite(["baharoon2026crimson", "ribeiro-laias"], "text") == "(Baharoon et al., 2026; Ribeiro et al., n.d.)"


def test_bibtex_resolves_every_entry(tmp_path):
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.skip("pdflatex/bibtex not installed (make browser installs Debian's texlive-latex-base)")
    (tmp_path / "all.bib").write_text(bibtex(list(BIBTEX)), encoding="utf-8")
    (tmp_path / "all.tex").write_text("\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{natbib}\n"
                                      "\\usepackage{url}\n\\begin{document}\n\\nocite{*}\n\\bibliographystyle{plainnat}\n"
                                      "\\bibliography{all}\n\\end{document}\n", encoding="utf-8")
    for cmd in (["pdflatex", "-interaction=nonstopmode", "all.tex"], ["bibtex", "all"],
                ["pdflatex", "-interaction=nonstopmode", "all.tex"]):
        run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (cmd, run.stdout[-2000:])
    bbl = (tmp_path / "all.bbl").read_text(encoding="utf-8")
    assert all(f"{{{key}}}" in bbl for key in BIBTEX)
    assert "Warning--empty" not in (tmp_path / "all.blg").read_text(encoding="utf-8")
