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
bootstrap settings, RadJudge version, the command and the time).

Safety: report text, judge names, dataset names and error explanations are
user data and may hold HTML or script. Every such string goes through
:func:`html.escape` before it reaches the page (plotly labels too: plotly reads
its labels as a small HTML dialect and shows escaped entities as text), chart
data travel as JSON with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc. so
no ``</script>`` can end a data block early, and only the two inline scripts
whose SHA-256 the CSP lists may run.

The analysis is fed exactly as in :mod:`core.cli_analysis`; this module only
gathers (:func:`collect`) and renders (:func:`render`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import platform
import re
import textwrap
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from core import glossary
from core.glossary import judge_in_words, metric_in_words
from core.store import Store

__all__ = ["ReportData", "TargetResult", "build_report", "collect", "provenance_tables", "radjudge_version",
           "render", "write_report"]

#: Targets the report covers, in order (only those the dataset has annotations for).
REPORT_TARGETS: tuple[str, ...] = ("score", "sig_errors")
TARGET_LABELS = {
    "score": "Overall quality score (the experts' rating of each candidate report)",
    "sig_errors": "Number of clinically significant errors (counted by the experts in each candidate report)",
    "total_errors": "Number of errors, significant or not (counted by the experts)",
}
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
EXCERPT_CHARS = 300
ROOT = Path(__file__).resolve().parents[1]


def e(value: object) -> str:
    """HTML-escape anything for text or attribute context (None as an em dash)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return html.escape(str(value), quote=True)


def json_for_script(obj_json: str) -> str:
    """JSON text made safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` left."""
    return (obj_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def radjudge_version() -> str:
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


# -- gathering ------------------------------------------------------------------------------------------------


@dataclass
class TargetResult:
    """Correlations of every judge metric with one expert target, and the expert ceiling."""

    target: str
    corr: pd.DataFrame              # core.stats.correlate output
    table: object | None            # core.stats.JudgeMetricTable, None without values
    best: dict | None               # the correlate row that agrees best (right sign, enough pairs)
    ceiling: object | None          # core.stats.Agreement between annotators, None below two
    n_annotators: int
    loo_tau: float = math.nan       # core.ceiling: each annotator vs the mean of the others


@dataclass
class ReportData:
    dataset: dict
    runs: pd.DataFrame
    targets: list[TargetResult]
    calibration: pd.DataFrame
    f1: pd.DataFrame
    summary: object | None          # core.summary.Summary
    summary_note: str
    excerpts: dict[str, dict]
    n_boot: int
    seed: int
    min_n: int
    store_info: dict = field(default_factory=dict)
    experts: str = "all annotators"  # which annotators are the expert target (e.g. clinician ratings)
    costs: pd.DataFrame = field(default_factory=pd.DataFrame)  # core.runcost.run_costs
    preferences: tuple | None = None  # core.comparisons.dataset_preference_accuracy, None without comparisons


def _best_row(corr: pd.DataFrame, min_n: int) -> dict | None:
    ok = corr[(corr["n"] >= min_n) & corr["sign_ok"].astype(bool) & corr["tau_oriented"].notna()]
    if ok.empty:
        return None
    return ok.sort_values(["tau_oriented", "n"], ascending=[False, False], kind="stable").iloc[0].to_dict()


def _target_result(store: Store, dataset: str, target: str, annotator_frame: pd.DataFrame, *, n_boot: int,
                   seed: int, min_n: int, annotators: list[str] | None = None) -> TargetResult:
    from core.analysis import correlation_frame
    from core.stats import correlate, inter_annotator, judge_metric_table

    frame = correlation_frame(store, dataset, target, annotators=annotators, counts=False)  # as `correlate`
    corr = pd.DataFrame()
    table = None
    if not frame.empty:
        from core.analysis import apply_orientations, declared_orientations

        corr = correlate(frame, n_boot=n_boot, seed=seed, min_n=min_n, cluster_col="group_id", target_name=target,
                         ci="auto")  # as `correlate` and the page: the bootstrap up to 5,000 pairs
        corr = apply_orientations(corr, declared_orientations(store, dataset), target)
        table = judge_metric_table(corr)
    values = annotator_frame[annotator_frame["target"] == target]
    n_annotators = int(values["annotator"].nunique())
    ceiling = None
    loo = math.nan
    if n_annotators >= 2:
        from core.ceiling import leave_one_out, mean_tau

        ceiling = inter_annotator(values[["pair_id", "annotator", "value"]],
                                  method="interval" if target == "score" else "ratio")
        loo = mean_tau(leave_one_out(values[["pair_id", "annotator", "value"]]))
    return TargetResult(target=target, corr=corr, table=table, best=_best_row(corr, min_n) if len(corr) else None,
                        ceiling=ceiling, n_annotators=n_annotators, loo_tau=loo)


def _summary_judge(targets: list[TargetResult], with_texts: set[str]) -> str | None:
    """The judge whose best metric agrees most with the experts (first target first), among those with texts."""
    for result in targets:
        if result.corr.empty:
            continue
        ranked = result.corr[result.corr["judge"].isin(with_texts) & result.corr["sign_ok"].astype(bool)
                             & (result.corr["n"] >= 1)]
        ranked = ranked.sort_values("tau_oriented", ascending=False, kind="stable")
        if len(ranked):
            return str(ranked.iloc[0]["judge"])
    return sorted(with_texts)[0] if with_texts else None


def collect(store: Store, dataset: str, *, n_boot: int = 1000, seed: int = 0, min_n: int = 10,
            annotators: list[str] | None = None, experts: str | None = None) -> ReportData:
    """Everything the report shows, computed from the store as the CLI's analysis commands do.

    ``annotators`` limits the expert target to those annotators (e.g. the clinician ratings
    ``rater:*`` of core/ratings.py); ``experts`` names that choice in the report. Neither given:
    :func:`core.raters.resolve_raters`' default, the imported annotations, as everywhere else.
    """
    from core.analysis import (
        error_texts,
        expert_counts,
        judge_counts,
        judge_runs,
        judge_values,
        pair_facets,
        with_system,
    )
    from core.calibration import count_calibration
    from core.errortypes import f1_per_category
    from core.queries import list_datasets
    from core.summary import green_summary
    from core.targets import annotator_values, load_annotations

    datasets = list_datasets(store)
    if dataset not in set(datasets["name"]):
        known = ", ".join(datasets["name"]) or "none"
        raise ValueError(f"dataset '{dataset}' not found; datasets are: {known}")
    info = datasets[datasets["name"] == dataset].iloc[0].to_dict()
    if annotators is None and experts is None:  # the rule of every analysis (core.raters): experts by default
        from core.raters import resolve_raters

        choice = resolve_raters(store, dataset)
        annotators, experts = choice.annotators, choice.label
    runs = judge_runs(store, dataset)
    annotator_frame = annotator_values(load_annotations(store, dataset))
    if annotators is not None:
        annotator_frame = annotator_frame[annotator_frame["annotator"].isin(annotators)]
    present = set(annotator_frame["target"])
    targets = [_target_result(store, dataset, t, annotator_frame, n_boot=n_boot, seed=seed, min_n=min_n,
                              annotators=annotators)
               for t in REPORT_TARGETS if t in present]

    jc = judge_counts(store, dataset)
    calibration = f1 = pd.DataFrame()
    if not jc.empty and "sig_errors" in present:  # the chosen experts gave error counts
        ec = expert_counts(store, dataset, annotators)
        if not ec.empty:
            groups = pair_facets(store, dataset)[["pair_id", "group_id"]]
            calibration = count_calibration(jc, ec, significant=True, bins=range(1, 13), n_boot=n_boot,
                                             seed=seed, groups=groups)
            f1 = f1_per_category(jc, ec, significant=True)

    summary, note = None, ""
    errors = error_texts(store, dataset)
    scores = with_system(store, dataset, judge_values(store, dataset, metrics=["green"]))
    candidates = set(errors["judge"]) & set(scores["judge"])
    judge = _summary_judge(targets, candidates)
    if judge is None:
        note = ("No judge on this dataset wrote GREEN-format error explanations yet; run one "
                f"(python -m core judge --dataset {dataset} --judge rules) to get a summary.")
    else:
        counts = with_system(store, dataset, jc)
        summary = green_summary(errors, counts, scores, judge, seed=seed)

    excerpts: dict[str, dict] = {}
    if summary is not None and len(summary.clusters):
        top = summary.clusters[summary.clusters["is_largest"].astype(bool) & (summary.clusters["rank"] <= 3)]
        ids = sorted(set(top["pair_id"].astype(str)))
        if ids:
            rows = store.query_df("SELECT pair_id, ext_id, reference, candidate FROM pairs "
                                  "WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [ids])
            excerpts = {r["pair_id"]: r for r in rows.to_dict("records")}
    store_info = {"file": store.path.name, "schema_version": store.schema_version(),
                  "data_version": store.data_version()}
    from core.runcost import run_costs

    return ReportData(dataset=info, runs=runs, targets=targets, calibration=calibration, f1=f1, summary=summary,
                      summary_note=note, excerpts=excerpts, n_boot=n_boot, seed=seed, min_n=min_n,
                      store_info=store_info, experts=experts or "all annotators", costs=run_costs(store, dataset),
                      preferences=_preferences(store, dataset))



def _seeds_and_shots(params: object) -> str:
    """The seed and shot settings buried in a run's params JSON, as ``key=value`` pairs."""
    try:
        parsed = json.loads(params) if isinstance(params, str) else (params or {})
    except ValueError:
        return ""
    found = []

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else str(k))
        elif path and re.search(r"seed|shot|(^|\.)k$|split", path) and not isinstance(node, list):
            found.append(f"{path}={node}")
        elif path and isinstance(node, list) and re.search(r"shot", path):
            found.append(f"{path}: {len(node)} items")

    walk(parsed, "")
    return "; ".join(found)


def provenance_tables(store: Store, dataset: str | None = None) -> dict[str, pd.DataFrame]:
    """What the store holds and where it came from: ``datasets`` (all) and ``judges`` (of ``dataset``).

    ``datasets``: name, origin (synthetic / imported), kind, source, version, pairs, annotators, runs,
    created_at. ``judges``: judge, kind, model, prompt_id, prompt_hash, seeds_and_shots, params, status,
    n_ok, n_failed, n_unparsed (answers that could not be read), cost_usd, started_at, finished_at.
    """
    from core.analysis import judge_runs
    from core.queries import list_datasets

    ds = list_datasets(store)
    datasets = pd.DataFrame({
        "name": ds["name"], "origin": ds["synthetic"].map({True: "synthetic", False: "imported"}),
        "kind": ds["kind"], "source": ds["source"], "version": ds["version"], "pairs": ds["pairs"],
        "annotators": ds["annotators"], "runs": ds["runs"], "created_at": ds["created_at"],
    })
    runs = judge_runs(store, dataset) if dataset is not None else pd.DataFrame()
    return {"datasets": datasets, "judges": _judges_frame(runs)}


_JUDGE_COLUMNS = ["judge", "kind", "model", "prompt_id", "prompt_hash", "seeds_and_shots", "params", "status",
                  "n_ok", "n_failed", "n_unparsed", "cost_usd", "started_at", "finished_at"]


def _judges_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """:func:`core.analysis.judge_runs` rows as the provenance table shows them."""
    if runs.empty:
        return pd.DataFrame(columns=_JUDGE_COLUMNS)
    frame = runs.rename(columns={"judge_kind": "kind"}).assign(
        seeds_and_shots=[_seeds_and_shots(p) for p in runs["params"]])
    return frame[_JUDGE_COLUMNS].reset_index(drop=True)


# -- rendering ------------------------------------------------------------------------------------------------


def _fmt(value: object, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return e(value)


def _metric_label(metric: str) -> str:
    from core.scores import METRICS

    spec = METRICS.get(metric)
    return spec.label if spec else metric


def _oriented_ci(row: dict) -> tuple[float, float]:
    sign = row.get("expected_sign", 1) or 1
    lo, hi = sign * row["ci_low"], sign * row["ci_high"]
    return (min(lo, hi), max(lo, hi))


def _ci_text(data: ReportData) -> str:
    """Which intervals the report's tables show: the methods its rows record (docs/STATISTICS.md)."""
    methods = sorted({m for r in data.targets if len(r.corr) and "ci_method" in r.corr
                      for m in r.corr["ci_method"].dropna().unique()})
    boot = (f"percentile bootstrap, {data.n_boot:,} resamples, seed {data.seed}, pairs sharing a reference (group) "
            "resampled together")
    words = {"bootstrap": boot, "bootstrap-cluster": boot,
             "asymptotic": "asymptotic (influence values, pairs independent)",
             "asymptotic-cluster": "asymptotic, cluster-robust over reference groups (influence values; Fisher z "
                                   "with t(G-1))"}
    used = list(dict.fromkeys(words[m] for m in methods if m in words)) or [boot]
    return ("95%; " + "; ".join(used) + ". The bootstrap up to 5,000 pairs per row, asymptotic intervals above "
            "(as `correlate --ci auto`).")


def _summary_html(data: ReportData) -> str:
    name = data.dataset["name"]
    if data.runs.empty:
        return ("<p class='empty'>No judge runs on this dataset yet — run one with "
                f"<code>python -m core judge --dataset {e(name)} --judge rules</code>, then make this report "
                "again.</p>")
    if not data.targets:
        return ("<p class='empty'>This dataset has no expert scores or error counts, so no judge can be compared "
                "with the experts. Import annotations first.</p>")
    parts = []
    for result in data.targets:
        out = [f"<div class='finding'><h3>{e(TARGET_LABELS.get(result.target, result.target))}</h3>"]
        best = result.best
        if best is None:
            out.append(f"<p>No judge metric agrees with the experts in the expected direction on at least "
                       f"{data.min_n} pairs.</p>")
        else:
            lo, hi = _oriented_ci(best)
            out.append(
                f"<p class='headline'>Closest to the experts: <strong>{e(judge_in_words(best['judge']))}</strong>, "
                f"scored by {e(metric_in_words(best['metric']))} (<code>{e(best['metric'])}</code>): "
                f"Kendall's τ = <strong>{best['tau_oriented']:.2f}</strong> "
                f"(95% CI {_fmt(lo, 2)} to {_fmt(hi, 2)}; n = {int(best['n']):,} pairs).</p>")
            if best.get("expected_sign", 1) < 0:
                out.append("<p class='note'>This metric runs opposite to the target (for example more errors "
                           "go with a lower score), so τ is shown with its sign flipped: positive means the judge "
                           "agrees with the experts.</p>")
        ceiling = result.ceiling
        if ceiling is None:
            out.append(f"<p>Expert–expert ceiling: not available ({result.n_annotators} annotator"
                       f"{'s' if result.n_annotators != 1 else ''}; two are needed).</p>")
        else:
            tau = result.loo_tau  # like with like: one expert against the others' mean, as the judge
            n_pairs = int(ceiling.pairwise["n"].max()) if len(ceiling.pairwise) else 0
            others = ("the other expert" if ceiling.n_annotators == 2
                      else f"the mean of the other {ceiling.n_annotators - 1}")
            text = (f"<p>Expert–expert ceiling: one expert agrees with {others} "
                    f"at τ = <strong>{_fmt(tau, 2)}</strong> (leave-one-out Kendall τ, "
                    f"averaged over the {ceiling.n_annotators} experts; n = {n_pairs:,} pairs). Two single experts "
                    f"agree at τ = {_fmt(ceiling.mean_tau, 2)} (mean pairwise); Krippendorff's α = "
                    f"{_fmt(ceiling.alpha, 2)} ({ceiling.method} level).")
            if best is not None and not math.isnan(tau) and not math.isnan(lo):
                if tau > hi:
                    verdict = ("The judge agrees with the experts' mean less closely than one expert agrees with "
                               "the mean of the others.")
                elif tau < lo:
                    verdict = ("The judge agrees with the experts' mean more closely than one expert agrees with "
                               "the mean of the others.")
                else:
                    verdict = ("The judge agrees with the experts' mean about as closely as one expert agrees "
                               "with the mean of the others.")
                text += " " + verdict
            out.append(text + "</p>")
        out.append("</div>")
        parts.append("".join(out))
    return "\n".join(parts)


def _correlation_table_html(result: TargetResult, n_boot: int, seed: int) -> str:
    from core.stats import TABLE_LEGEND

    label = e(TARGET_LABELS.get(result.target, result.target))
    if result.table is None:
        return f"<h3>{label}</h3><p class='empty'>No judge values for this target.</p>"
    table = result.table
    rows = {(r["judge"], r["metric"]): r for r in result.corr.to_dict("records")}
    head = "".join(f"<th scope='col'>{e(_metric_label(m))}<br><code>{e(m)}</code></th>" for m in table.text.columns)
    body = []
    for judge in table.text.index:
        cells = []
        for metric in table.text.columns:
            text = e(table.text.at[judge, metric])
            if table.best.at[judge, metric]:
                text = f"<strong>{text}</strong>"
            elif table.second.at[judge, metric]:
                text = f"<u>{text}</u>"
            row = rows.get((judge, metric))
            detail = ""
            if row is not None and not math.isnan(row["abs_tau"]):
                lo, hi = row["ci_low"], row["ci_high"]
                if row["tau"] < 0:
                    lo, hi = -hi, -lo
                detail = (f"<span class='ci'>CI {_fmt(lo, 2)}–{_fmt(hi, 2)}<br>n = {int(row['n']):,}</span>")
            elif row is not None:
                detail = f"<span class='ci'>n = {int(row['n']):,}</span>"
            cells.append(f"<td>{text}{detail}</td>")
        body.append(f"<tr><th scope='row'>{e(judge)}</th>{''.join(cells)}</tr>")
    resampling = ", ".join(sorted(set(result.corr["resampling"].astype(str)))) if len(result.corr) else "pairs"
    methods = set(result.corr["ci_method"].dropna()) if "ci_method" in result.corr else set()
    kinds = []
    if not methods or methods & {"bootstrap", "bootstrap-cluster"}:
        kinds.append(f"percentile bootstrap of |τ| ({n_boot:,} resamples, seed {seed}, resampling {e(resampling)})")
    if methods & {"asymptotic", "asymptotic-cluster"}:
        cluster = "cluster-robust over reference groups" if "asymptotic-cluster" in methods else "pairs independent"
        kinds.append(f"asymptotic, from each pair's influence on τ ({cluster})")
    return (f"<h3>{label}</h3><div class='scroll'><table class='corr'><thead><tr><th scope='col'>Judge</th>{head}"
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f"<p class='legend'>{e(TABLE_LEGEND)} CI: 95%, {'; '.join(kinds)}; n: pairs with both a judge value "
            "and the target.</p>")


def _figure_json(fig) -> str:
    import plotly.io as pio

    return json_for_script(pio.to_json(fig, validate=False, engine="json"))


def _calibration_figure(calibration: pd.DataFrame):
    import plotly.graph_objects as go

    cells = calibration[calibration["n"] > 0]
    fig = go.Figure()
    xs = sorted(cells["x"].unique())
    if xs:
        fig.add_trace(go.Scatter(x=[0, max(xs)], y=[0, max(xs)], mode="lines", name="perfect agreement (y = x)",
                                 line={"color": "#000000", "dash": "dash", "width": 1}, hoverinfo="skip"))
    for i, (judge, part) in enumerate(cells.groupby("judge", sort=True)):
        part = part.sort_values("x")
        hi = (part["ci_high"] - part["y"]).fillna(0).clip(lower=0)
        lo = (part["y"] - part["ci_low"]).fillna(0).clip(lower=0)
        fig.add_trace(go.Scatter(
            x=part["x"].tolist(), y=part["y"].tolist(), mode="lines+markers", name=e(judge),
            line={"color": OKABE_ITO[i % len(OKABE_ITO)]},
            error_y={"type": "data", "symmetric": False, "array": hi.tolist(), "arrayminus": lo.tolist()},
            customdata=part["n"].astype(int).tolist(),
            hovertemplate="expert count %{x}<br>judge mean %{y:.2f}<br>n = %{customdata} reports<extra></extra>"))
    fig.update_layout(template="plotly_white", height=420, margin={"l": 60, "r": 20, "t": 30, "b": 60},
                      legend={"orientation": "h", "y": -0.2},
                      xaxis_title="Experts: significant errors in the report (count)",
                      yaxis_title="Judge: mean significant errors (count)")
    return fig


def _f1_figure(f1: pd.DataFrame):
    import plotly.graph_objects as go

    from core.queries import CATEGORY_NAMES

    fig = go.Figure()
    for i, (judge, part) in enumerate(f1.groupby("judge", sort=True)):
        # Tick labels wrapped with plotly's <br>; every piece escaped (plotly reads labels as HTML).
        labels = ["<br>".join(e(line) for line in textwrap.wrap(
                      f"({c}) {CATEGORY_NAMES[c]}" if c in CATEGORY_NAMES else "all (micro average)", 22))
                  for c in part["category"]]
        fig.add_trace(go.Bar(
            x=labels, y=part["f1"].tolist(), name=e(judge),
            marker={"color": OKABE_ITO[i % len(OKABE_ITO)]},
            customdata=part[["support", "n_pairs"]].to_numpy().tolist(),
            hovertemplate="%{x}<br>F1 %{y:.2f}<br>expert errors %{customdata[0]:.1f} in %{customdata[1]} "
                          "reports<extra></extra>"))
    fig.update_layout(template="plotly_white", height=460, barmode="group", margin={"l": 60, "r": 20, "t": 30,
                                                                                    "b": 110},
                      showlegend=True, legend={"orientation": "h", "y": 1.08}, yaxis={"range": [0, 1.05]},
                      xaxis_title="Error category (clinically significant errors)",
                      yaxis_title="F1 against the experts (0–1)")
    return fig


def _numbers_table(frame: pd.DataFrame, columns: dict[str, str]) -> str:
    head = "".join(f"<th scope='col'>{e(title)}</th>" for title in columns.values())
    rows = []
    for rec in frame.to_dict("records"):
        rows.append("<tr>" + "".join(f"<td>{_fmt(rec[c], 2) if isinstance(rec[c], float) else e(rec[c])}</td>"
                                     for c in columns) + "</tr>")
    return (f"<details><summary>The numbers</summary><div class='scroll'><table class='plain'><thead><tr>{head}"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>")


def _summary_section(data: ReportData) -> str:
    summary = data.summary
    if summary is None:
        return f"<p class='empty'>{e(data.summary_note)}</p>"
    out = [f"<p>Judge: <strong>{e(summary.judge)}</strong> (the judge closest to the experts that explains its "
           "errors). "]
    if summary.green_mean is not None:
        out.append(f"GREEN score: mean {summary.green_mean:.3f}, standard deviation {summary.green_std:.3f} over "
                   f"{summary.green_n:,} reports. ")
    out.append(f"Explanations clustered per category (embedding {e(summary.embedding)}, seed {summary.seed}); "
               "the representatives are the explanations nearest the centre of the largest cluster.</p>")
    clusters = summary.clusters
    for cat in summary.categories.to_dict("records"):
        header = (f"<h3>({e(cat['category'])}) {e(cat['label'])}</h3><p class='meta'>"
                  f"{int(cat['n_reports']):,} reports · mean {_fmt(float(cat['mean_count']), 2)} errors per report · "
                  f"{_fmt(100 * float(cat['share_no_error']), 0)}% with none · {int(cat['n_texts']):,} explanations"
                  "</p>")
        top = clusters[(clusters["category"] == cat["category"]) & clusters["is_largest"].astype(bool)
                       & (clusters["rank"] <= 3)].sort_values("rank")
        if top.empty:
            out.append(header + "<p class='empty'>No explanations in this category.</p>")
            continue
        items = []
        for rec in top.to_dict("records"):
            pair = data.excerpts.get(str(rec["pair_id"]))
            example = ""
            if pair is not None:
                example = (f"<div class='example'><div class='meta'>example: pair {e(pair['ext_id'])}</div>"
                           f"<div class='pair'><div><b>Reference</b><div class='excerpt'>"
                           f"{e(_clip(pair['reference']))}</div></div><div><b>Candidate</b><div class='excerpt'>"
                           f"{e(_clip(pair['candidate']))}</div></div></div></div>")
            items.append(f"<li><q>{e(rec['text'])}</q>{example}</li>")
        out.append(header + f"<ol class='reps'>{''.join(items)}</ol>")
    if summary.notes:
        out.append("<p class='note'>" + "<br>".join(e(n) for n in summary.notes) + "</p>")
    return "".join(out)


def _clip(text: object) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rstrip() + " …"


def _kv_table(rows: list[tuple[str, object]]) -> str:
    body = "".join(f"<tr><th scope='row'>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    return f"<table class='plain kv'><tbody>{body}</tbody></table>"


def _preferences(store: Store, dataset: str) -> tuple | None:
    from core.comparisons import dataset_preference_accuracy

    if not store.query_one("SELECT count(*) FROM preferences WHERE dataset = ?", [dataset]):
        return None
    return dataset_preference_accuracy(store, dataset)


def _preference_html(data: ReportData) -> str:
    """GREEN Fig. 6 as a table: accuracy at picking the expert-preferred candidate, overall and by confidence."""
    if data.preferences is None:
        return ("<p class='empty'>No pairwise preferences on this dataset (<code>python -m core import-preferences"
                "</code> imports them or derives them from the annotations).</p>")
    table, used = data.preferences
    overall = table[table["scope"] == "overall"].sort_values("accuracy", ascending=False)
    levels = table[table["scope"] == "level"]
    conf = sorted(levels["confidence"].unique())
    n_at = levels.groupby("confidence")["n"].max()
    head = ["Judge · metric", "Accuracy [95% CI]", "n", *[f"confidence {c:g} (n={int(n_at[c])})" for c in conf]]
    rows = []
    for r in overall.to_dict("records"):
        per = levels[(levels["judge"] == r["judge"]) & (levels["metric"] == r["metric"])].set_index("confidence")
        cells = [f"{r['judge']} · {_metric_label(r['metric'])}",
                 f"{_fmt(r['accuracy'], 3)} [{_fmt(r['ci_low'], 2)}, {_fmt(r['ci_high'], 2)}]", f"{int(r['n']):,}",
                 *[_fmt(per.at[c, "accuracy"], 3) if c in per.index else "—" for c in conf]]
        rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    source = "; ".join(used["sources"]) or "imported"
    return (f"<p>How often each judge's score prefers the candidate the expert preferred, among "
            f"{used['n_comparisons']:,} comparisons of two candidates of one case ({e(source)}); a judge that "
            "scores both alike counts half; 95% Wilson intervals. Comparisons without an expert preference are "
            "left out.</p><table class='plain'><thead><tr>" + "".join(f"<th scope='col'>{e(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _cost_html(data: ReportData) -> str:
    """Time and cost per run beside the tau it bought (against the first expert target)."""
    if data.costs.empty:
        return "<p class='empty'>No judge runs.</p>"
    from core.runcost import cost_and_tau, cost_text

    corr = data.targets[0].corr if data.targets else pd.DataFrame()
    target = data.targets[0].target if data.targets else None
    table = cost_and_tau(data.costs, corr, data.min_n)
    head = ["Judge", "Pairs answered", "Calls", "Failed", "Median ms / pair", "90th pct ms", "Tokens in / out",
            "Cost", "Cost per 1,000 pairs", f"Best |τ| vs {target or 'experts'} (metric, n)"]
    rows = []
    for r in table.to_dict("records"):
        tokens = ("—" if pd.isna(r["tokens_in"]) and pd.isna(r["tokens_out"]) else
                  f"{0 if pd.isna(r['tokens_in']) else int(r['tokens_in']):,} / "
                  f"{0 if pd.isna(r['tokens_out']) else int(r['tokens_out']):,}")
        tau = ("—" if pd.isna(r.get("tau_oriented")) else
               f"{float(r['tau_oriented']):.3f} ({_metric_label(str(r['metric']))}, n={int(r['n']):,})")
        cells = [r["judge"], f"{r['pairs']:,}", f"{r['calls']:,}", f"{r['failed']:,}", _fmt(r["ms_per_pair"], 1),
                 _fmt(r["ms_p90"], 1), tokens, cost_text(r["cost_usd"], r["cost_known"]),
                 cost_text(r["usd_per_1k_pairs"], r["cost_known"]), tau]
        rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    return ("<p>From each answer's recorded call time (an offline judge: its compute time per pair), not from "
            "timestamps; answers copied from the cache made no call and are not counted as calls. A cost is "
            "<em>unknown</em> when any answered call's price was missing from litellm's table, never shown as 0."
            "</p><table class='plain'><thead><tr>" + "".join(f"<th scope='col'>{e(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _judges_table(judges: pd.DataFrame) -> str:
    if judges.empty:
        return "<p class='empty'>No judge runs.</p>"
    titles = {"judge": "Judge", "kind": "Kind", "model": "Model", "prompt_id": "Prompt", "prompt_hash": "Prompt hash",
              "seeds_and_shots": "Seeds / shots", "params": "Params (JSON)", "status": "Status", "n_ok": "OK",
              "n_failed": "Failed", "n_unparsed": "Unreadable answers", "cost_usd": "Cost", "started_at": "Started",
              "finished_at": "Finished"}
    head = "".join(f"<th scope='col'>{e(t)}</th>" for t in titles.values())
    rows = []
    for rec in judges.to_dict("records"):
        cells = []
        for col in titles:
            value = rec[col]
            if col == "cost_usd":  # NULL: a price litellm does not know, never 0
                known = not (value is None or (isinstance(value, float) and math.isnan(value)))
                cells.append(f"<td>{e(f'${float(value):,.4f}' if known else 'unknown')}</td>")
            elif value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
                cells.append("<td>—</td>")
            elif col == "params":
                cells.append(f"<td><code class='wrap'>{e(value)}</code></td>")
            else:
                cells.append(f"<td>{e(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<div class='scroll'><table class='plain'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table></div>")


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
@media print { .chart { page-break-inside: avoid; } main { max-width: none; } }
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
        charts.append(("chart-calibration", "calibration", _figure_json(_calibration_figure(data.calibration))))
        calib_html = (
            "<p>For every number of significant errors the experts found in a report (1 to 12), the mean number "
            "the judge found in the same reports, with 95% bootstrap intervals. A well calibrated judge sits on "
            "the dashed line (VERT Fig. 2). Hover a point for n.</p>"
            "<div id='chart-calibration' class='chart' role='img' aria-label='Error-count calibration chart'>"
            "</div>" + _numbers_table(data.calibration[data.calibration["n"] > 0],
                                      {"judge": "Judge", "x": "Expert count", "y": "Judge mean", "ci_low": "CI low",
                                       "ci_high": "CI high", "n": "n reports"})
            + f"<p class='legend'>Reports with more than 12 or no expert errors are left out "
              f"({int(data.calibration['n_outside'].max()):,} per judge). Bootstrap: {data.n_boot:,} resamples, "
              f"seed {data.seed}, reports sharing a reference resampled together.</p>")
    f1_html = "<p class='empty'>No per-category counts from both a judge and the experts.</p>"
    if not data.f1.empty:
        charts.append(("chart-f1", "f1", _figure_json(_f1_figure(data.f1))))
        f1_html = (
            "<p>How well each judge finds the experts' clinically significant errors of each type: F1 combines "
            "precision (errors the judge reports that the experts also found) and recall (expert errors the judge "
            "also reports), counted per report and category (VERT App. C).</p>"
            "<div id='chart-f1' class='chart' role='img' aria-label='F1 per error category chart'></div>"
            + _numbers_table(data.f1, {"judge": "Judge", "category": "Category", "precision": "Precision",
                                       "recall": "Recall", "f1": "F1", "support": "Expert errors",
                                       "n_pairs": "n reports"}))

    corr_html = "".join(_correlation_table_html(r, data.n_boot, data.seed) for r in data.targets) or (
        "<p class='empty'>No expert targets to correlate with.</p>")
    judges_frame = _judges_frame(data.runs)
    dataset_rows = [("Name", name), ("Origin", "SYNTHETIC (generated, not real reports)" if synthetic else "imported"),
                    ("Kind", ds.get("kind")), ("Source", ds.get("source")), ("Version", ds.get("version")),
                    ("Pairs", f"{int(ds.get('pairs', 0)):,}"), ("Annotators", ds.get("annotators")),
                    ("Expert target", data.experts),
                    ("Annotations", f"{int(ds.get('annotations', 0)):,}"), ("Judge runs", ds.get("runs")),
                    ("Created", ds.get("created_at"))]
    stats_rows = [
        ("Correlation", "Kendall's τ-b between each judge metric and the expert target (targets: per annotator "
                        "first, summed over categories, then averaged across annotators)"),
        ("Confidence intervals", _ci_text(data)),
        ("Significance", "† marks p ≥ 0.01 (scipy's p, pairs treated as independent)"),
        ("Minimum pairs", f"{data.min_n} (fewer: no statistics, shown as (n=…))"),
        ("Calibration / F1", f"clinically significant errors; calibration bootstrap {data.n_boot:,} resamples, "
                             f"seed {data.seed}"),
        ("Error summary", "TF-IDF + SVD embedding, k-means with k by silhouette, seed "
                          f"{data.summary.seed if data.summary is not None else data.seed}"),
    ]
    software_rows = [("RadJudge", radjudge_version()), ("Python", platform.python_version()),
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
    excerpt_note = ("This report contains excerpts of report text; handle it like the reports themselves."
                    if data.excerpts else "This report contains no report text.")

    scripts = [get_plotlyjs(), _RENDER_JS] if charts else []
    chart_blocks = "".join(f"<script type='application/json' data-chart='{cid}'>{spec}</script>"
                           for cid, _, spec in charts)
    script_tags = "".join(f"<script>{s}</script>" for s in scripts)
    title = f"RadJudge report — {name}" + (" (synthetic data)" if synthetic else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{e(_csp(scripts))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{e(title)}</title><style>{_CSS}</style></head>
<body><main>
<h1>{e(title)}</h1>
<p class="meta">Which judge of generated radiology reports agrees with the experts? Generated
{e(generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))} by RadJudge {e(radjudge_version())}.
{e(excerpt_note)}</p>
{banner}
<section id="summary"><h2>Summary</h2>{_summary_html(data)}</section>
<section id="correlations"><h2>Agreement with the experts</h2>
<p>Each cell: |τ| between the judge's metric and the experts, its 95% CI and the number of pairs.</p>
{corr_html}</section>
<section id="calibration"><h2>Calibration of error counts</h2>{calib_html}</section>
<section id="f1"><h2>Error types: F1 per category</h2>{f1_html}</section>
<section id="preference"><h2>Preference accuracy (GREEN Fig. 6)</h2>{_preference_html(data)}</section>
<section id="cost"><h2>Time and cost per judge</h2>{_cost_html(data)}</section>
<section id="green-summary"><h2>What the judge found: error summary with examples</h2>{_summary_section(data)}
</section>
<section id="methods"><h2>Methods and provenance</h2>
<h3>Dataset</h3>{_kv_table(dataset_rows)}
<h3>Judges</h3>{_judges_table(judges_frame)}
<h3>Statistics</h3>{_kv_table(stats_rows)}
<h3>Software and run</h3>{_kv_table(software_rows)}
</section>
<section id="glossary"><h2>Glossary</h2>{glossary.as_html()}</section>
<footer>Self-contained file: it loads nothing from the network. Made with RadJudge.</footer>
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
                 experts: str | None = None) -> str:
    """Collect and render: the report of ``dataset`` as an HTML string (``annotators``: see :func:`collect`).

    ``include_excerpts=None``: :func:`excerpts_by_default` (synthetic datasets only).
    """
    if include_excerpts is None:
        include_excerpts = excerpts_by_default(store, dataset)
    data = collect(store, dataset, n_boot=n_boot, seed=seed, min_n=min_n, annotators=annotators, experts=experts)
    command = command or (f"core.report.build_report(store, {dataset!r}, n_boot={n_boot}, seed={seed}, "
                          f"min_n={min_n})")
    text = render(data, command=command, generated_at=generated_at, include_excerpts=include_excerpts)
    from core.checks.report import with_checks_section  # when checks ran: LAIas scores and systems
    from core.review.report import with_review_section  # edit_review datasets: the RADAR tables

    return with_checks_section(store, dataset, with_review_section(store, dataset, text))


def write_report(store: Store, dataset: str, out: str | Path, **kwargs) -> dict:
    """Write the report to ``out`` (folders created, written whole or not at all); returns path, bytes, dataset.

    The caller decides whether ``out`` may be replaced (core.outfiles.check_out_file).
    """
    from core.outfiles import write_atomic

    text = build_report(store, dataset, **kwargs)
    path = Path(out)
    size = write_atomic(path, [text])
    return {"path": str(path), "bytes": size, "dataset": dataset}
