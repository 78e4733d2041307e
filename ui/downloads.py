"""Download buttons beside a chart: the chart as SVG and PDF, and the numbers behind it as CSV.

The files come from core/paper (``core.paper.figstyle.figure_bytes``), the code the ``figures`` command
writes with: the same drawing at the same fixed size, Okabe-Ito colours and embedded fonts, with no
browser. A page passes a function that builds the figure from the data it has just shown; the function
runs only when a button is clicked (Streamlit's deferred download), so drawing the buttons costs the
page nothing and rendering (0.1-0.5 s per file) happens on demand.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

from core.paper.figstyle import FORMS, MIME, Figure, figure_bytes

LABELS = {"svg": "SVG", "pdf": "PDF", "csv": "Chart CSV"}
HELP = {"svg": "the chart as a vector file for a paper: fixed size, colour-blind-safe colours (as `python -m core "
               "figures` writes it)",
        "pdf": "the chart as a PDF with its fonts embedded (as `python -m core figures` writes it)",
        "csv": "the numbers drawn in this chart"}


def file_stem(dataset: str | None, synthetic: bool, name: str) -> str:
    """``DATASET[-synthetic]-NAME``, safe as a file name."""
    prefix = f"{dataset}{'-synthetic' if synthetic else ''}-" if dataset else ""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", prefix + name)


def figure_downloads(make: Callable[[], Figure], *, name: str, key: str, dataset: str | None = None,
                     synthetic: bool = False) -> None:
    """SVG, PDF and CSV buttons (keys ``KEY_svg``, ``KEY_pdf``, ``KEY_csv``) for the figure ``make()`` builds.

    ``make`` is called when a button is clicked, outside the page's run: it must only use values it holds
    (no widgets, no ``st`` calls, no store reads).
    """
    stem = file_stem(dataset, synthetic, name)
    # a row that wraps, each button as wide as its label: fixed-width columns cut "SVG" to "S" in a half-width
    # column (the scatter beside the heatmap at 1440 px)
    with st.container(horizontal=True, wrap=True, gap="small"):
        for form in FORMS:
            st.download_button(LABELS[form], data=lambda form=form: figure_bytes(make(), form),
                               file_name=f"{stem}.{form}", mime=MIME[form], key=f"{key}_{form}",
                               icon=":material/download:", on_click="ignore", help=HELP[form], width="content")
