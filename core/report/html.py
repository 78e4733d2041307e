"""A self-contained HTML report of one dataset, for clinicians.

``python -m core report --dataset NAME --out FILE.html`` (or the Share page)
writes one HTML file that opens offline in any browser: the plotly.js bundle
is inlined once, the charts read their data from JSON blocks, and nothing is
ever fetched (a Content-Security-Policy with ``default-src 'none'`` forbids it).

Contents, in order: a plain-language summary (which judge agrees best with
the experts on each target, with tau, its bootstrap CI and n, next to the
expert-expert ceiling; a prominent banner when the data are synthetic), the
correlation tables in the papers' style (VERT Tables 2-3), error-count
calibration (VERT Fig. 2) and F1 per error category (VERT App. C) charts, a
GREEN-style summary with examples for the best judge (GREEN Sec. 3.3), and
methods and provenance (dataset, judges with prompts, hashes and params,
bootstrap settings, RadConcord version, the command and the time).

Safety: report text, judge names, dataset names and error explanations are
user data and may hold HTML or script. Every such string goes through
:func:`html.escape` before it reaches the page (plotly labels too: plotly reads
its labels as a small HTML dialect and shows escaped entities as text), chart
data travel as JSON with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc. so
no ``</script>`` can end a data block early, and only the two inline scripts
whose SHA-256 the CSP lists may run.

The analysis is fed exactly as in :mod:`core.cli.analysis`: :mod:`core.report.gather` gathers it,
:mod:`core.report.sections` renders each section, and this module assembles the page (:func:`render`),
with its styles, scripts and Content-Security-Policy, and writes it (:func:`build_report`,
:func:`write_report`).
"""

from __future__ import annotations

import base64
import hashlib
import platform
import re
import tomllib
from datetime import UTC, datetime
from pathlib import Path

from core import glossary
from core.access import RESEARCHER
from core.analysis.statistic import statistic
from core.report.gather import ReportData, collect, judges_frame
from core.report.sections import (
    calibration_figure,
    ci_text,
    correlation_table_html,
    cost_html,
    e,
    f1_figure,
    figure_json,
    judges_table,
    kv_table,
    numbers_table,
    preference_html,
    summary_html,
    summary_section,
)
from core.store.db import Store

__all__ = ["build_report", "excerpts_by_default", "radconcord_version", "render", "write_report"]

ROOT = Path(__file__).resolve().parents[2]


def radconcord_version() -> str:
    """The version in pyproject.toml, plus the git commit when the checkout has one (read, never run)."""
    try:
        version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        version = "unknown"
    try:
        head = (ROOT / ".git" / "HEAD").read_text(encoding="utf-8").strip()
        commit = head
        if head.startswith("ref: "):
            ref = head[5:]
            ref_file = ROOT / ".git" / ref
            if ref_file.exists():
                commit = ref_file.read_text(encoding="utf-8").strip()
            else:
                packed = (ROOT / ".git" / "packed-refs").read_text(encoding="utf-8")
                commit = next(line.split()[0] for line in packed.splitlines() if line.endswith(" " + ref))
        if re.fullmatch(r"[0-9a-f]{40}", commit):
            version += f" (git {commit[:10]})"
    except (OSError, StopIteration):
        pass
    return version


_CSS = """
:root { color-scheme: light; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; margin: 0;
       background: #fafafa; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 60px; background: #fff; }
h1 { font-size: 1.7em; margin: 0 0 4px; } h2 { margin-top: 2em; border-bottom: 2px solid #0072B2;
padding-bottom: 4px; } h3 { margin: 1.2em 0 .3em; }
.banner { background: #E69F00; color: #000; padding: 12px 16px; font-weight: 600; border-radius: 6px;
          margin: 12px 0; font-size: 1.05em; }
.finding { border-left: 4px solid #009E73; padding: 4px 14px; margin: 12px 0; background: #f4faf8; }
.headline { font-size: 1.05em; } .note, .legend, .meta { color: #555; font-size: .9em; }
.empty { color: #555; font-style: italic; }
table { border-collapse: collapse; margin: 8px 0; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: 4px 8px; vertical-align: top; text-align: left; }
table.corr td { text-align: center; min-width: 80px; } .ci { display: block; color: #666; font-size: .8em; }
.kv th { background: #f3f3f3; width: 220px; } .scroll { overflow-x: auto; }
code { font-size: .9em; } code.wrap { white-space: pre-wrap; word-break: break-all; }
.chart { width: 100%; min-height: 420px; }
.reps li { margin-bottom: 10px; } .example { margin: 4px 0 0 0; padding: 6px 10px; background: #f6f6f6;
border-radius: 4px; } .excerpt { white-space: pre-wrap; font-size: .88em; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
footer { margin-top: 3em; color: #666; font-size: .85em; }
.glossary dt { font-weight: 600; margin-top: 6px; } .glossary dd { margin: 0 0 0 18px; color: #333; }
@media print {  /* A4: every table fits the page width (fixed layout, words wrap, smaller type), none scrolls */
  @page { size: A4; margin: 12mm; }
  body { background: #fff; font-size: 11px; } main { max-width: none; padding: 0; }
  .chart { page-break-inside: avoid; } .scroll { overflow: visible; } .pair { grid-template-columns: 1fr; }
  table { width: 100%; table-layout: fixed; font-size: 8px; }
  th, td { padding: 2px 3px; overflow-wrap: anywhere; } table.corr td { min-width: 0; } .kv th { width: 30%; }
  code.wrap, .excerpt { word-break: break-all; } tr { page-break-inside: avoid; }
}
"""

_RENDER_JS = """
(function () {
  var blocks = document.querySelectorAll('script[type="application/json"][data-chart]');
  for (var i = 0; i < blocks.length; i++) {
    var spec = JSON.parse(blocks[i].textContent);
    var target = document.getElementById(blocks[i].getAttribute('data-chart'));
    Plotly.newPlot(target, spec.data, spec.layout,
                   {displaylogo: false, responsive: true, showLink: false, showSendToCloud: false,
                    showEditInChartStudio: false});
  }
})();
"""


def _csp(scripts: list[str]) -> str:
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'"
                      for s in scripts)
    # plotly.js styles its SVG with inline styles; nothing may be fetched or posted anywhere.
    return (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data: blob:; "
            "font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'")


def _chart(charts: list[tuple[str, str, str]], chart_id: str, name: str, figure, label: str) -> str:
    """Queue ``figure`` (id, name, figure json) in ``charts`` and return the element it is drawn in."""
    charts.append((chart_id, name, figure_json(figure)))
    return f"<div id='{chart_id}' class='chart' role='img' aria-label='{label}'></div>"


def render(data: ReportData, *, command: str, generated_at: datetime | None = None,
           include_excerpts: bool = True) -> str:
    """The report as one HTML document (str)."""
    import plotly
    from plotly.offline import get_plotlyjs, get_plotlyjs_version

    generated_at = generated_at or datetime.now(UTC)
    ds = data.dataset
    name = ds["name"]
    synthetic = bool(ds["synthetic"])
    if not include_excerpts:
        data = ReportData(**{**data.__dict__, "excerpts": {}})

    charts: list[tuple[str, str, str]] = []  # (id, title, figure json)
    calib_html = "<p class='empty'>No judge reported per-category error counts on this dataset (run a GREEN-format "
    calib_html += "judge such as <code>rules</code>), or the experts did not count errors.</p>"
    if not data.calibration.empty and (data.calibration["n"] > 0).any():
        calib_html = (
            "<p>For every number of significant errors the experts found in a report (1 to 12), the mean number "
            "the judge found in the same reports, with 95% bootstrap intervals. A well calibrated judge sits on "
            "the dashed line (VERT Fig. 2). Hover a point for n.</p>"
            + _chart(charts, "chart-calibration", "calibration", calibration_figure(data.calibration),
                     "Error-count calibration chart")
            + numbers_table(data.calibration[data.calibration["n"] > 0],
                                      {"judge": "Judge", "x": "Expert count", "y": "Judge mean", "ci_low": "CI low",
                                       "ci_high": "CI high", "n": "n reports"})
            + f"<p class='legend'>Reports with more than 12 or no expert errors are left out "
              f"({int(data.calibration['n_outside'].max()):,} per judge). Bootstrap: {data.n_boot:,} resamples, "
              f"seed {data.seed}, reports sharing a reference resampled together.</p>")
    f1_html = "<p class='empty'>No per-category counts from both a judge and the experts.</p>"
    if not data.f1.empty:
        f1_html = (
            "<p>How well each judge finds the experts' clinically significant errors of each type: F1 combines "
            "precision (errors the judge reports that the experts also found) and recall (expert errors the judge "
            "also reports), counted per report and category (VERT App. C).</p>"
            + _chart(charts, "chart-f1", "f1", f1_figure(data.f1), "F1 per error category chart")
            + numbers_table(data.f1, {"judge": "Judge", "category": "Category", "precision": "Precision",
                                       "recall": "Recall", "f1": "F1", "f1_ci_low": "F1 CI low",
                                       "f1_ci_high": "F1 CI high", "support": "Expert errors",
                                       "n_pairs": "n reports", "n_groups": "groups resampled"})
            + f"<p class='legend'>F1 bars: 95% percentile bootstrap intervals, {data.n_boot:,} resamples, seed "
              f"{data.seed}, reports sharing a reference resampled together (TP, FP and FN summed over the drawn "
              "reports before dividing; a resample in which a category occurs on neither side is left out of its "
              "interval). n: reports with counts from both the judge and the experts.</p>")

    corr_html = "".join(correlation_table_html(r, data.n_boot, data.seed) for r in data.targets) or (
        "<p class='empty'>No expert targets to correlate with.</p>")
    judges = judges_frame(data.runs)
    dataset_rows = [("Name", name), ("Origin", "SYNTHETIC (generated, not real reports)" if synthetic else "imported"),
                    ("Kind", ds.get("kind")), ("Source", ds.get("source")), ("Version", ds.get("version")),
                    ("Pairs", f"{int(ds.get('pairs', 0)):,}"), ("Annotators", ds.get("annotators")),
                    ("Expert target", data.experts),
                    ("Annotations", f"{int(ds.get('annotations', 0)):,}"), ("Judge runs", ds.get("runs")),
                    ("Created", ds.get("created_at"))]
    stat_words, stat_sym = statistic(data.stat).words, statistic(data.stat).symbol
    stats_rows = [
        ("Correlation", f"{stat_words} between each judge metric and the expert target (targets: per annotator "
                        "first, summed over categories, then averaged across annotators); the expert ceiling in "
                        "the same statistic"),
        ("Confidence intervals", ci_text(data)),
        ("Significance", "† marks p ≥ 0.01 (scipy's p, pairs treated as independent)"),
        ("Minimum pairs", f"{data.min_n} (fewer: no statistics, shown as (n=…))"),
        ("Calibration / F1", f"clinically significant errors; calibration and F1 bootstrap {data.n_boot:,} "
                             f"resamples of reference groups, seed {data.seed}"),
        ("Error summary", "TF-IDF + SVD embedding, k-means with k by silhouette, seed "
                          f"{data.summary.seed if data.summary is not None else data.seed}"),
    ]
    software_rows = [("RadConcord", radconcord_version()), ("Python", platform.python_version()),
                     ("plotly (Python) / plotly.js", f"{plotly.__version__} / {get_plotlyjs_version()} (inlined)"),
                     ("Store", f"{data.store_info.get('file')} (schema v{data.store_info.get('schema_version')}, "
                               f"data version {data.store_info.get('data_version')})"),
                     ("Command", command),
                     ("Generated", generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))]

    banner = ""
    if synthetic:
        banner = ("<div class='banner' role='alert'>SYNTHETIC DATA — this dataset was generated with errors "
                  "injected by construction. It contains no real reports and no real experts; the numbers "
                  "demonstrate the method only.</div>")
    excerpt_note = ("This report contains excerpts of report text (with their pairs' patient context, where "
                    "stored); handle it like the reports themselves."
                    if data.excerpts else "This report contains no report text.")

    scripts = [get_plotlyjs(), _RENDER_JS] if charts else []
    chart_blocks = "".join(f"<script type='application/json' data-chart='{cid}'>{spec}</script>"
                           for cid, _, spec in charts)
    script_tags = "".join(f"<script>{s}</script>" for s in scripts)
    title = f"RadConcord report — {name}" + (" (synthetic data)" if synthetic else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{e(_csp(scripts))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{e(title)}</title><style>{_CSS}</style></head>
<body><main>
<h1>{e(title)}</h1>
<p class="meta">Which judge of generated radiology reports agrees with the experts? Generated
{e(generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))} by RadConcord {e(radconcord_version())}.
{e(excerpt_note)}</p>
{banner}
<section id="summary"><h2>Summary</h2>{summary_html(data)}</section>
<section id="correlations"><h2>Agreement with the experts</h2>
<p>Each cell: |{stat_sym}| ({e(stat_words)}) between the judge's metric and the experts, its 95% CI and the number
of pairs. Report checks (conformance to reporting rules, not agreement with the reference) are not judges here:
they have their own section when they ran.</p>
{corr_html}</section>
<section id="calibration"><h2>Calibration of error counts</h2>{calib_html}</section>
<section id="f1"><h2>Error types: F1 per category</h2>{f1_html}</section>
<section id="preference"><h2>Preference accuracy (GREEN Fig. 6)</h2>{preference_html(data)}</section>
<section id="cost"><h2>Time and cost per judge</h2>{cost_html(data)}</section>
<section id="green-summary"><h2>What the judge found: error summary with examples</h2>{summary_section(data)}
</section>
<section id="methods"><h2>Methods and provenance</h2>
<h3>Dataset</h3>{kv_table(dataset_rows)}
<h3>Judges</h3>{judges_table(judges)}
<h3>Statistics</h3>{kv_table(stats_rows)}
<h3>Software and run</h3>{kv_table(software_rows)}
</section>
<section id="glossary"><h2>Glossary</h2>{glossary.as_html()}</section>
<footer>Self-contained file: it loads nothing from the network. Made with RadConcord.</footer>
</main>
{chart_blocks}
{script_tags}
</body></html>
"""


def excerpts_by_default(store: Store, dataset: str) -> bool:
    """Report text goes into a report by default only for synthetic datasets.

    An imported dataset may hold credentialed or identifiable text (MIMIC-CXR, a hospital's reports):
    a report that leaves the machine must not carry it by accident, so it needs an explicit opt-in.
    """
    return bool(store.query_one("SELECT coalesce(any_value(synthetic), false) FROM datasets WHERE name = ?",
                                [dataset]))


def build_report(store: Store, dataset: str, *, n_boot: int = 1000, seed: int = 0, min_n: int = 10,
                 command: str | None = None, include_excerpts: bool | None = None,
                 generated_at: datetime | None = None, annotators: list[str] | None = None,
                 experts: str | None = None, stat: str = "kendall", role: str | None = RESEARCHER) -> str:
    """Collect and render: the report of ``dataset`` as an HTML string (``annotators``, ``stat``: see
    :func:`collect`; ``stat`` switches the correlation tables, the headline and the ceiling together;
    ``role``: who may read it, :func:`collect`).

    ``include_excerpts=None``: :func:`excerpts_by_default` (synthetic datasets only).
    """
    if include_excerpts is None:
        include_excerpts = excerpts_by_default(store, dataset)
    data = collect(store, dataset, n_boot=n_boot, seed=seed, min_n=min_n, annotators=annotators, experts=experts,
                   stat=stat, role=role)
    command = command or (f"core.report.html.build_report(store, {dataset!r}, n_boot={n_boot}, seed={seed}, "
                          f"min_n={min_n}, stat={stat!r})")
    text = render(data, command=command, generated_at=generated_at, include_excerpts=include_excerpts)
    from core.checks.report import with_checks_section  # when checks ran: LAIas scores and systems
    from core.review.report import with_review_section  # edit_review datasets: the RADAR tables

    return with_checks_section(store, dataset, with_review_section(store, dataset, text))


def write_report(store: Store, dataset: str, out: str | Path, **kwargs) -> dict:
    """Write the report to ``out`` (folders created, written whole or not at all); returns path, bytes, dataset.

    The caller decides whether ``out`` may be replaced (core.store.outfiles.check_out_file).
    """
    from core.store.outfiles import write_atomic

    text = build_report(store, dataset, **kwargs)
    path = Path(out)
    size = write_atomic(path, [text])
    return {"path": str(path), "bytes": size, "dataset": dataset}
