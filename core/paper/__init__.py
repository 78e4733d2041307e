"""Paper-ready results: the papers' tables as LaTeX / Markdown / CSV, vector figures, a methods paragraph
with its BibTeX, and a reproducibility bundle that rebuilds a store and regenerates the tables.

Every number comes from the analysis code (``core.analysis``, ``core.reads``) called as the CLI's analysis
commands call it (:mod:`core.paper.compute`); this package only shapes, formats and packs.
"""
