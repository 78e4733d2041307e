"""The sections of the HTML report as HTML fragments: summary, correlation tables, charts, preferences,
costs, the GREEN-style summary and the provenance tables.

Every user string goes through :func:`e` (HTML-escaped) and chart data through :func:`json_for_script`;
:func:`core.report.html.render` puts the fragments on one page.
"""

from __future__ import annotations

import html
import math
import textwrap

import pandas as pd

from core.analysis.naming import column_name, display_name
from core.analysis.statistic import table
from core.glossary import judge_in_words, metric_in_words
from core.reads.context import context_line
from core.report.gather import ReportData, TargetResult
from core.taxonomy import OKABE_ITO, readable_json

TARGET_LABELS = {
    "score": "Overall quality score (the experts' rating of each candidate report)",
    "sig_errors": "Number of clinically significant errors (counted by the experts in each candidate report)",
    "total_errors": "Number of errors, significant or not (counted by the experts)",
}
EXCERPT_CHARS = 300


def e(value: object) -> str:
    """HTML-escape anything for text or attribute context (None as an em dash)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return html.escape(str(value), quote=True)


def json_for_script(obj_json: str) -> str:
    """JSON text made safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` left."""
    return (obj_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))



# -- rendering ------------------------------------------------------------------------------------------------


def _fmt(value: object, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return e(value)


#: The report's statistic in words and as a symbol.
STAT_WORDS = table("symbol_words")
STAT_SYMBOL = table("symbol")


def _oriented_ci(row: dict, stat: str = "kendall") -> tuple[float, float]:
    from core.report.gather import STAT_COLS

    _, low, high, _ = STAT_COLS[stat]
    sign = row.get("expected_sign", 1) or 1
    lo, hi = sign * row[low], sign * row[high]
    return (min(lo, hi), max(lo, hi))


def ci_text(data: ReportData) -> str:
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


def summary_html(data: ReportData) -> str:
    name = data.dataset["name"]
    if data.runs.empty:
        return ("<p class='empty'>No judge runs on this dataset yet — run one with "
                f"<code>python -m core judge --dataset {e(name)} --judge rules</code>, then make this report "
                "again.</p>")
    if not data.targets:
        return ("<p class='empty'>This dataset has no expert scores or error counts, so no judge can be compared "
                "with the experts. Import annotations first.</p>")
    from core.analysis.headline import sentences
    from core.glossary import dataset_caveat

    parts = []
    caveat = dataset_caveat(data.dataset)
    for result in data.targets:
        out = [f"<div class='finding'><h3>{e(TARGET_LABELS.get(result.target, result.target))}</h3>"]
        if result.headline is not None:  # the answer in words, as the Correlations page and `correlate` say it
            words_ = sentences(result.headline)
            out.append(f"<p class='headline'>{e(words_[0])}</p>"
                       + "".join(f"<p>{e(s)}</p>" for s in words_[1:]))
        if caveat:
            out.append(f"<p class='note caveat'>{e(caveat)}</p>")
        out.append("<details><summary>How these figures are computed</summary>")
        best = result.best
        stat = result.stat
        sym, words = STAT_SYMBOL[stat], STAT_WORDS[stat]
        if best is None:
            out.append(f"<p>No judge metric agrees with the experts in the expected direction on at least "
                       f"{data.min_n} pairs.</p>")
        else:
            lo, hi = _oriented_ci(best, stat)
            out.append(
                f"<p>The closest judge: <strong>{e(judge_in_words(best['judge']))}</strong>, "
                f"scored by {e(metric_in_words(best['metric'], best['judge']))} (<code>{e(best['metric'])}</code>): "
                f"{words} = <strong>{best['oriented']:.2f}</strong> "
                f"(95% CI {_fmt(lo, 2)} to {_fmt(hi, 2)}; n = {int(best['n']):,} pairs).</p>")
            if best.get("expected_sign", 1) < 0:
                out.append("<p class='note'>This metric runs opposite to the target (for example more errors "
                           f"go with a lower score), so {sym} is shown with its sign flipped: positive means the judge "
                           "agrees with the experts.</p>")
        ceiling = result.ceiling
        if ceiling is None:
            out.append(f"<p>Expert–expert ceiling: not available ({result.n_annotators} annotator"
                       f"{'s' if result.n_annotators != 1 else ''}; two are needed).</p>")
        elif math.isnan(result.loo_value):
            out.append(f"<p>Expert–expert ceiling: not available (the experts share fewer than {data.min_n} "
                       "rated pairs, the minimum for every figure here).</p>")
        else:
            # like with like: one expert against the others' mean, as the judge, in the table's statistic
            tau = result.loo_value
            n_pairs = int(ceiling.pairwise["n"].max()) if len(ceiling.pairwise) else 0
            others = ("the other expert" if ceiling.n_annotators == 2
                      else f"the mean of the other {ceiling.n_annotators - 1}")
            text = (f"<p>Expert–expert ceiling: one expert agrees with {others} "
                    f"at {sym} = <strong>{_fmt(tau, 2)}</strong> (leave-one-out {words}, "
                    f"averaged over the {ceiling.n_annotators} experts; n = {n_pairs:,} pairs). Two single experts "
                    f"agree at {sym} = {_fmt(ceiling.mean(stat), 2)} (mean pairwise); Krippendorff's α = "
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
        out.append("</details></div>")
        parts.append("".join(out))
    return "\n".join(parts)


def correlation_table_html(result: TargetResult, n_boot: int, seed: int) -> str:
    from core.analysis.stats import TABLE_LEGEND

    label = e(TARGET_LABELS.get(result.target, result.target))
    if result.table is None:
        return f"<h3>{label}</h3><p class='empty'>No judge values for this target.</p>"
    from core.report.gather import STAT_COLS

    est, low, high, shown = STAT_COLS[result.stat]
    sym = STAT_SYMBOL[result.stat]
    table = result.table
    rows = {(r["judge"], r["metric"]): r for r in result.corr.to_dict("records")}
    head = "".join(f"<th scope='col'>{e(column_name(m, table.n.index[table.n[m].notna()]))}<br>"
                   f"<code>{e(m)}</code></th>" for m in table.text.columns)
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
            if row is not None and not math.isnan(row[shown]):
                lo, hi = row[low], row[high]
                if row[est] < 0:
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
        kinds.append(f"percentile bootstrap of |{sym}| ({n_boot:,} resamples, seed {seed}, resampling "
                     f"{e(resampling)})")
    if methods & {"asymptotic", "asymptotic-cluster"}:
        cluster = "cluster-robust over reference groups" if "asymptotic-cluster" in methods else "pairs independent"
        kinds.append(f"asymptotic, from each pair's influence on {sym} ({cluster})")
    legend = TABLE_LEGEND
    if result.stat != "kendall":
        legend = legend.replace("|tau| (Kendall tau-b)", f"|{sym}| ({STAT_WORDS[result.stat]})")
    return (f"<h3>{label}</h3><div class='scroll'><table class='corr'><thead><tr><th scope='col'>Judge</th>{head}"
            f"</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
            f"<p class='legend'>{e(legend)} CI: 95%, {'; '.join(kinds)}; n: pairs with both a judge value "
            "and the target.</p>")


def figure_json(fig) -> str:
    import plotly.io as pio

    return json_for_script(pio.to_json(fig, validate=False, engine="json"))


def calibration_figure(calibration: pd.DataFrame):
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


def f1_figure(f1: pd.DataFrame):
    import plotly.graph_objects as go

    from core.reads.queries import CATEGORY_NAMES

    fig = go.Figure()
    for i, (judge, part) in enumerate(f1.groupby("judge", sort=True)):
        # Tick labels wrapped with plotly's <br>; every piece escaped (plotly reads labels as HTML).
        labels = ["<br>".join(e(line) for line in textwrap.wrap(
                      f"({c}) {CATEGORY_NAMES[c]}" if c in CATEGORY_NAMES else "all (micro average)", 22))
                  for c in part["category"]]
        fig.add_trace(go.Bar(
            x=labels, y=part["f1"].tolist(), name=e(judge),
            marker={"color": OKABE_ITO[i % len(OKABE_ITO)]},
            error_y=None if "f1_ci_low" not in part or part["f1_ci_low"].isna().all() else {
                "type": "data", "symmetric": False, "color": "#444444", "thickness": 1,
                "array": (part["f1_ci_high"] - part["f1"]).clip(lower=0).fillna(0).tolist(),
                "arrayminus": (part["f1"] - part["f1_ci_low"]).clip(lower=0).fillna(0).tolist()},
            customdata=part[["support", "n_pairs"]].to_numpy().tolist(),
            hovertemplate="%{x}<br>F1 %{y:.2f}<br>expert errors %{customdata[0]:.1f} in %{customdata[1]} "
                          "reports<extra></extra>"))
    fig.update_layout(template="plotly_white", height=460, barmode="group", margin={"l": 60, "r": 20, "t": 30,
                                                                                    "b": 110},
                      showlegend=True, legend={"orientation": "h", "y": 1.08}, yaxis={"range": [0, 1.05]},
                      xaxis_title="Error category (clinically significant errors)",
                      yaxis_title="F1 against the experts (0–1)")
    return fig


def numbers_table(frame: pd.DataFrame, columns: dict[str, str]) -> str:
    head = "".join(f"<th scope='col'>{e(title)}</th>" for title in columns.values())
    rows = []
    for rec in frame.to_dict("records"):
        rows.append("<tr>" + "".join(f"<td>{_fmt(rec[c], 2) if isinstance(rec[c], float) else e(rec[c])}</td>"
                                     for c in columns) + "</tr>")
    return (f"<details><summary>The numbers</summary><div class='scroll'><table class='plain'><thead><tr>{head}"
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div></details>")


def summary_section(data: ReportData) -> str:
    summary = data.summary
    if summary is None:
        return f"<p class='empty'>{e(data.summary_note)}</p>"
    out = [f"<p>Judge: <strong>{e(summary.judge)}</strong> (the judge closest to the experts among the judges "
           "with a summary: a GREEN or CRIMSON score and errors per category). "]
    if summary.green_mean is not None:  # the headline score: GREEN's, or CRIMSON's for a CRIMSON run
        label = display_name(summary.judge, summary.score_metric)
        out.append(f"{e(label)} score: mean {summary.green_mean:.3f}, standard deviation {summary.green_std:.3f} "
                   f"over {summary.green_n:,} reports. ")
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
                context = context_line(pair.get("context") or {})
                example = (f"<div class='example'><div class='meta'>example: pair {e(pair['ext_id'])}"
                           + (f" · <span class='context'>patient: {e(context)}</span>" if context else "") + "</div>"
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


def kv_table(rows: list[tuple[str, object]]) -> str:
    body = "".join(f"<tr><th scope='row'>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows)
    return f"<table class='plain kv'><tbody>{body}</tbody></table>"


def preference_html(data: ReportData) -> str:
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
        cells = [display_name(r["judge"], r["metric"], with_judge=True),
                 f"{_fmt(r['accuracy'], 3)} [{_fmt(r['ci_low'], 2)}, {_fmt(r['ci_high'], 2)}]", f"{int(r['n']):,}",
                 *[_fmt(per.at[c, "accuracy"], 3) if c in per.index else "—" for c in conf]]
        rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    source = "; ".join(used["sources"]) or "imported"
    return (f"<p>How often each judge's score prefers the candidate the expert preferred, among "
            f"{used['n_comparisons']:,} comparisons of two candidates of one case ({e(source)}); a judge that "
            "scores both alike counts half; 95% Wilson intervals. Comparisons without an expert preference are "
            "left out.</p><table class='plain'><thead><tr>" + "".join(f"<th scope='col'>{e(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def cost_html(data: ReportData) -> str:
    """Time and cost per run beside the tau it bought (against the first expert target)."""
    if data.costs.empty:
        return "<p class='empty'>No judge runs.</p>"
    from core.reads.runcost import cost_and_tau, cost_text

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
               f"{float(r['tau_oriented']):.3f} ({display_name(str(r['judge']), str(r['metric']))}, n={int(r['n']):,})")
        cells = [r["judge"], f"{r['pairs']:,}", f"{r['calls']:,}", f"{r['failed']:,}", _fmt(r["ms_per_pair"], 1),
                 _fmt(r["ms_p90"], 1), tokens, cost_text(r["cost_usd"], r["cost_known"]),
                 cost_text(r["usd_per_1k_pairs"], r["cost_known"]), tau]
        rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    return ("<p>From each answer's recorded call time (an offline judge: its compute time per pair), not from "
            "timestamps; answers copied from the cache made no call and are not counted as calls. A cost is "
            "<em>unknown</em> when any answered call's price was missing from litellm's table, never shown as 0."
            "</p><table class='plain'><thead><tr>" + "".join(f"<th scope='col'>{e(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def judges_table(judges: pd.DataFrame) -> str:
    if judges.empty:
        return "<p class='empty'>No judge runs.</p>"
    titles = {"judge": "Judge", "kind": "Kind", "model": "Model", "prompt_id": "Prompt", "prompt_hash": "Prompt hash",
              "seeds_and_shots": "Seeds / shots", "params": "Params", "status": "Status", "n_ok": "OK",
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
            elif col == "params":  # in words (null entries left out), as on the pages
                cells.append(f"<td><code class='wrap'>{e(readable_json(value))}</code></td>")
            else:
                cells.append(f"<td>{e(value)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<div class='scroll'><table class='plain'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table></div>")
