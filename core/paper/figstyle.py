"""What every paper figure shares: the :class:`Figure` record, the house style and the rendering to files.

A figure is a Vega-Lite chart (Altair) drawn at a fixed size (:data:`WIDTH` x :data:`HEIGHT` px per plot)
in the colour-blind-safe Okabe-Ito palette with 12-point Liberation Sans, rendered to SVG or PDF by
``vl-convert-python`` (a Rust build of Vega: no browser, no network), and written with the numbers
behind it as CSV. The ``figures`` command and the dashboard's download buttons both call
:func:`figure_bytes`, so a file from either holds the same drawing and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from core.analysis.statistic import table
from core.taxonomy import OKABE_ITO

WIDTH, HEIGHT = 420, 280  # px at 72 dpi: 5.8 x 3.9 in, a one-column figure
TALL = 2 * HEIGHT         # the ensembles' chart: a row per feature set and ensemble
FONT_SIZE = 12
FONT = "Liberation Sans"
FORMS = ("svg", "pdf", "csv")
MIME = {"svg": "image/svg+xml", "pdf": "application/pdf", "csv": "text/csv"}
SYMBOLS = table("symbol")


@dataclass
class Figure:
    """One figure: its name (file stem), the chart, the numbers behind it, and the data it is of."""

    name: str
    chart: object          # a styled altair chart (or layer)
    data: pd.DataFrame
    dataset: str | None = None
    synthetic: bool = False


def title(text: str, synthetic: bool = False):
    """A chart title; synthetic data says so under it (synthetic data stays labelled wherever shown)."""
    import altair as alt

    return alt.Title(text, subtitle="synthetic data") if synthetic else alt.Title(text)


def styled(chart, *, width: int = WIDTH, height: int = HEIGHT):
    """``chart`` at the fixed size with the house fonts, grid and palette."""
    return (chart.properties(width=width, height=height)
            .configure(font=FONT)
            .configure_axis(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE, grid=True, gridOpacity=0.3)
            .configure_legend(labelFontSize=FONT_SIZE, titleFontSize=FONT_SIZE, labelLimit=260)
            .configure_title(fontSize=FONT_SIZE + 1, subtitleFontSize=FONT_SIZE - 1, anchor="start")
            .configure_range(category=list(OKABE_ITO)))


def render(figure: Figure, form: str) -> bytes:
    """``figure`` as SVG (UTF-8) or PDF bytes, at its fixed size, without a browser."""
    import vl_convert as vlc

    spec = figure.chart.to_json()
    if form == "svg":
        return vlc.vegalite_to_svg(spec).encode("utf-8")
    if form == "pdf":
        return vlc.vegalite_to_pdf(spec)
    raise ValueError(f"unknown figure format {form!r}; valid: svg, pdf")


def figure_csv(figure: Figure) -> bytes:
    """The numbers behind ``figure`` as CSV: the dataset and its synthetic flag first (when known), then the
    plotted rows as they are (15 significant digits, spreadsheet formulas neutralised)."""
    from core.store.export import to_safe_csv

    data = figure.data.reset_index(drop=True)
    if figure.dataset is not None:
        data = data.copy()
        data.insert(0, "dataset", figure.dataset)
        data.insert(1, "synthetic", figure.synthetic)
    return to_safe_csv(data)


def figure_bytes(figure: Figure, form: str) -> bytes:
    """``figure`` as ``svg``, ``pdf`` or ``csv`` bytes (what ``figures`` writes and the pages download)."""
    if form == "csv":
        return figure_csv(figure)
    return render(figure, form)
