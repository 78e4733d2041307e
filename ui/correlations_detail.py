"""The Correlations page below the table: the ceiling, and one judge metric (scatter with its pairs, the
statistic by a facet, the paired test against a second judge metric).

:func:`one_metric` is an ``st.fragment``: choosing a judge, a metric,
a facet or the second judge metric reruns this part only, not the table above it (issue 41).
"""

from __future__ import annotations

import math
import re

import pandas as pd
import streamlit as st

from core.analysis.ceiling import STAT_COLUMNS as CEILING_COLUMNS
from core.analysis.ceiling import mean_stat, stat_key
from core.analysis.naming import display_name
from core.analysis.statistic import STATISTICS
from core.analysis.stats import METRIC_ORDER
from core.reads.frames import FACETS
from core.store.export import to_safe_csv
from ui import shared
from ui.correlations_charts import STAT_EST, STAT_SYMBOL, heatmap, scatter, series_label
from ui.correlations_reads import (
    MIN_N,
    STAT_VALUE,
    View,
)
from ui.correlations_words import STATS
from ui.shared import MISSING, escape_md, set_url, show_table, url_value, warn_unknown_names

#: Bootstrap work computed without asking, in pair-resamples (pairs x resamples, summed over the
#: series). Measured here at 1.3e7 (one paired test, small n) to 9e7 (a whole table, large n) per
#: second (bench/bench_page.py): at most about half a second.
BOOT_BUDGET = 10_000_000
BOOT_RATE = 5e7  # for the "roughly N s" shown next to the button
#: Rows of the pairs table sent to the browser (50,000 rows were megabytes of Arrow for a 360 px box).
PAIRS_SHOWN = 1000
HEATMAP_ROWS = 12  # heatmap rows: the best (judge, metric) series of the table, plus the selected one
TARGET_LABELS = {
    "score": "Expert score (0-1, higher is better)",
    "sig_errors": "Significant errors (count per report)",
    "total_errors": "Total errors (count per report)",
}
STAT_CI = {s.key: (s.ci_low, s.ci_high) for s in STATISTICS}
JUDGE_KEY, METRIC_KEY, HEAT_KEY, VS_KEY = "corr_judge", "corr_metric", "corr_facet", "corr_vs"
CI_ALWAYS_KEY = "corr_ci_always"  # not a widget: the user asked for CIs on large views


def boot_ok(work: int, where: str) -> bool:
    """Run bootstrap work now, or offer a button when it would take more than about half a second (a click
    reruns the whole page, so the table above gets its intervals too, also from inside the fragment)."""
    if work <= BOOT_BUDGET or st.session_state.get(CI_ALWAYS_KEY):
        return True
    st.info(f"This needs {work:,} pair-resamples or their equivalent (roughly {max(1, round(work / BOOT_RATE))} "
            "s here), so it waits for a click; point estimates, p and † are already shown.",
            icon=":material/hourglass_top:")
    if st.button("Compute intervals and tests for large views", key=f"corr_boot_go_{where}"):
        st.session_state[CI_ALWAYS_KEY] = True
        st.rerun(scope="app")
    return False


def export(frame: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """What a download holds: the table plus the dataset and its synthetic flag (labelled wherever shown)."""
    out = frame.reset_index(drop=True).copy()
    out.insert(0, "dataset", meta["dataset"])
    out.insert(1, "synthetic", meta["synthetic"])
    return out


def download(label: str, frame: pd.DataFrame, meta: dict, name: str, key: str) -> None:
    tag = "synthetic-" if meta["synthetic"] else ""
    exported = export(frame, meta)
    file_name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{tag}{meta['dataset']}-{name}") + ".csv"
    st.download_button(label, data=lambda: to_safe_csv(exported), file_name=file_name,
                       mime="text/csv", key=key, icon=":material/download:", on_click="ignore")


def draw_ceiling(reads: View, meta: dict, stat: str) -> None:
    """The experts' agreement with each other, in the statistic the table shows (``stat``)."""
    agreement = reads.agreement()
    if agreement is None:
        st.caption("Ceiling: fewer than two annotators rated these pairs, so there is no inter-annotator "
                   "agreement to compare with.")
        return
    def fmt(v: float) -> str:
        return MISSING if math.isnan(v) else f"{v:.3f}"

    key = stat_key(stat)  # tau / rho / r: the table's statistic, never another one
    est, p_col = CEILING_COLUMNS[key]
    sym, words = STAT_SYMBOL[stat], STATS[stat]
    loo = agreement["loo"]
    pairwise = agreement["pairwise"]
    k = agreement["n_annotators"]
    if math.isnan(mean_stat(loo, key)):  # one minimum n for every number of the comparison (core.taxonomy.MIN_N)
        shared = int(loo["n"].max()) if len(loo) else 0
        st.caption(f"Ceiling: not available — the experts share {shared:,} rated pairs in view; at least {MIN_N} "
                   "are needed, as for each judge cell.")
        return
    others = "the other expert" if k == 2 else f"the mean of the other {k - 1}"
    st.info(
        f"**Ceiling:** one expert agrees with {others} at {sym} = **{fmt(mean_stat(loo, key))}** (leave-one-out "
        f"{words}, averaged over {k} annotators; the statistic of the table above): the figure to compare a judge "
        f"with, since the judge is scored against the experts' mean. Two single experts agree at {sym} = "
        f"{fmt(float(pairwise[est].mean()) if len(pairwise) else math.nan)} (mean pairwise); Krippendorff's "
        f"α = {fmt(agreement['alpha'])} ({agreement['method']} level) on {agreement['n_units']:,} pairs rated "
        "twice or more.",
        icon=":material/groups:")
    with st.expander("Agreement between each pair of annotators"):
        shown = pairwise[["annotator_a", "annotator_b", "n", est, p_col]]
        show_table(shown, hide_index=True, key="corr_iaa_table",
                   column_config={est: st.column_config.NumberColumn(format="%.3f"),
                                  p_col: st.column_config.NumberColumn(format="%.3g")})
        download("Agreement CSV", pairwise, meta, f"agreement-{meta['target']}", "corr_dl_iaa")
        st.caption(f"Each annotator against the mean of the others (leave-one-out, {words}):")
        show_table(loo[["annotator", "n", est, p_col]], hide_index=True, key="corr_loo_table",
                   column_config={est: st.column_config.NumberColumn(format="%.3f"),
                                  p_col: st.column_config.NumberColumn(format="%.3g")})


def paired_section(reads: View, table: pd.DataFrame, a: tuple[str, str], stat: str, n_boot: int, seed: int,
                    meta: dict, boot_ok: bool) -> None:
    scored = table[table["tau"].notna()]
    others = [(j, m) for j, m in zip(scored["judge"], scored["metric"], strict=True) if (j, m) != a]
    if not others:
        st.caption("Only one judge metric has values: nothing to compare it with.")
        return
    keys = [f"{j}\x1f{m}" for j, m in others]
    ss = st.session_state
    if VS_KEY not in ss:
        wanted = f"{url_value('vs_judge', '')}\x1f{url_value('vs_metric', '')}"
        ss[VS_KEY] = wanted
    if ss[VS_KEY] not in keys:
        ss[VS_KEY] = keys[0]
    choice = st.selectbox("Compare with", keys, key=VS_KEY,
                          format_func=lambda k: series_label(*k.split("\x1f", 1)))
    b = tuple(choice.split("\x1f", 1))
    set_url("vs_judge", b[0])
    set_url("vs_metric", b[1])
    if n_boot == 0:
        st.caption("The paired test is a bootstrap: set the resamples above 0.")
        return
    n_a = int(table.loc[(table["judge"] == a[0]) & (table["metric"] == a[1]), "n"].iloc[0])
    if not boot_ok(2 * n_a * n_boot, "paired"):
        return
    with st.spinner("Paired bootstrap…"):
        result = reads.paired(a, b, stat, n_boot, seed)
    row = result.iloc[0]
    sym = STAT_SYMBOL[stat]
    if pd.isna(row["ci_low"]):
        st.warning(f"No paired test: the two series share {int(row['n'])} pairs with values "
                   f"(at least {MIN_N} needed, and neither may be constant).")
    else:
        cols = st.columns(4)
        cols[0].metric(f"{sym} A (sign-corrected)", f"{row['estimate_a']:.3f}")
        cols[1].metric(f"{sym} B (sign-corrected)", f"{row['estimate_b']:.3f}")
        cols[2].metric("A − B", f"{row['diff']:+.3f}", help="95% percentile CI of the paired bootstrap")
        floor = 2 / (int(row["n_boot_valid"]) + 1)
        cols[3].metric("p (two-sided)", f"{row['p_boot']:.3g}",
                       help=f"bootstrap p; {floor:.2g} is the smallest p {int(row['n_boot_valid']):,} resamples "
                            "can give")
        unit = "reference groups" if row["resampling"] == "groups" else "pairs"
        st.markdown(
            f"A = {escape_md(series_label(*a))}, B = {escape_md(series_label(*b))}: "
            f"difference **{row['diff']:+.3f}** (95% CI {row['ci_low']:+.3f} to {row['ci_high']:+.3f}), "
            f"p = {row['p_boot']:.3g}, on the **{int(row['n']):,}** pairs both scored; "
            f"{int(row['n_boot']):,} resamples of {int(row['n_clusters']):,} {unit}, seed {int(row['seed'])}.")
        st.caption("Both correlations are computed on the same resamples (paired bootstrap, Koehn 2004) and "
                   "sign-corrected, so a judge that correlates the wrong way loses.")
    download("Paired test CSV", result, meta, "paired-test", "corr_dl_paired")


@st.fragment
def one_metric(reads: View, table: pd.DataFrame, stat: str, target: str, n_boot: int, seed: int, meta: dict) -> None:
    """One judge metric of the table: scatter and pairs, the statistic by a facet, the paired test."""
    st.markdown("#### One judge metric")
    valid = table[table["n"] > 0]
    judges = list(dict.fromkeys(valid["judge"]))
    ss = st.session_state
    ranked = valid.sort_values(STAT_VALUE[stat], ascending=False, na_position="last")
    # On a large dataset the detail of one judge metric (scatter, pairs, heatmap, paired test) waits
    # for a choice, as large bootstraps do; on a small one the best judge metric is shown at once.
    n_pairs = len(reads.matrix().pairs)
    waits = n_pairs > shared.DETAIL_PAIRS  # read at each run (a test lowers it)
    if JUDGE_KEY not in ss:
        ss[JUDGE_KEY] = url_value("judge")
        warn_unknown_names("judge", [ss[JUDGE_KEY]] if ss[JUDGE_KEY] else [], judges,
                           "a judge to choose" if waits else "the best in the table")
    if ss[JUDGE_KEY] not in judges:
        ss[JUDGE_KEY] = None if waits else ranked["judge"].iloc[0]
    pick = st.columns([2, 2, 2])
    with pick[0]:
        judge = st.selectbox("Judge", judges, key=JUDGE_KEY, placeholder="Choose a judge")
    if judge is None:
        set_url("judge", None)
        set_url("metric", None)
        best = ranked.iloc[0]
        st.info(f"This dataset has {n_pairs:,} pairs, so the detail of one judge metric (scatter with its "
                f"pairs, {STAT_SYMBOL[stat]} by modality / anatomy / system / split, paired test) waits for a "
                f"choice: pick a judge above. Best in the table: **{escape_md(series_label(best['judge'], best['metric']))}**.",
                icon=":material/ads_click:")
        return
    order = {m: i for i, m in enumerate(METRIC_ORDER)}
    metrics = sorted(valid.loc[valid["judge"] == judge, "metric"], key=lambda m: (order.get(m, 99), m))
    if METRIC_KEY not in ss:
        ss[METRIC_KEY] = url_value("metric")
    if ss[METRIC_KEY] not in metrics:
        best = ranked.loc[ranked["judge"] == judge, "metric"]
        ss[METRIC_KEY] = best.iloc[0] if len(best) else metrics[0]
    with pick[1]:
        metric = st.selectbox("Metric", metrics, key=METRIC_KEY, format_func=lambda m: display_name(judge, m))
    with pick[2]:
        facet = st.selectbox("Heatmap by", list(FACETS), key=HEAT_KEY)
    set_url("judge", judge)
    set_url("metric", metric)
    set_url("facet", facet)
    set_url("ci", "always" if ss.get(CI_ALWAYS_KEY) else None)

    row = table[(table["judge"] == judge) & (table["metric"] == metric)].iloc[0]
    series = reads.series(judge, metric)
    sign = int(row["expected_sign"])  # the metric's orientation, or the one its import declared
    est, low, high = STAT_EST[stat], *STAT_CI[stat]  # the statistic chosen above, as in the table
    ci = "" if pd.isna(row[low]) else f", 95% CI {row[low]:.3f} to {row[high]:.3f}"
    value = MISSING if pd.isna(row[est]) else f"{row[est]:.3f}"
    target_words = TARGET_LABELS[target].split(" (")[0].lower()
    st.markdown(f"**{escape_md(series_label(judge, metric))}** against the {target_words}: {STAT_SYMBOL[stat]} = "
                f"{value}{ci}, n = {int(row['n']):,} pairs; expected "
                f"sign {'+' if sign > 0 else '−'} ({'a higher' if sign > 0 else 'a lower'} value where the experts "
                f"{'score higher' if target == 'score' else 'count more errors'})"
                + ("" if pd.isna(row[est]) or row[est] * sign > 0 else " — **wrong sign ⚠**") + ".")
    left, right = st.columns([3, 2])
    with left:
        scatter(series, judge, metric, row, target, stat, seed, dataset=meta["dataset"], synthetic=meta["synthetic"])
    with right:
        st.markdown(f"**Pairs ({len(series):,})**")
        show_table(series.head(PAIRS_SHOWN).rename(columns={"ext_id": "id", "group_id": "group", "value": metric,
                                                            "target": f"expert {target}"}),
                   hide_index=True, key="corr_pairs", height=360)
        if len(series) > PAIRS_SHOWN:  # the browser gets what a person scrolls through; the CSV holds every pair
            st.caption(f"The first {PAIRS_SHOWN:,} pairs by id; **Pairs CSV** holds all {len(series):,}.")
        download("Pairs CSV", series, meta, f"pairs-{judge}-{metric}-{target}", "corr_dl_pairs")

    st.markdown(f"#### {STAT_SYMBOL[stat]} by {facet}")
    ranked_all = list(zip(ranked["judge"], ranked["metric"], strict=True))
    heat_rows = ranked_all[:HEATMAP_ROWS]
    if (judge, metric) not in heat_rows:
        heat_rows.append((judge, metric))
    if not reads.matrix().pairs[facet].notna().any():  # nothing to break down: say why, not an empty frame
        st.caption(f"This dataset records no {facet} for its pairs, so there is no {STAT_SYMBOL[stat]} by {facet}; "
                   f"choose another facet above (or import the pairs with a {facet} column).")
    else:
        cells = reads.breakdown(facet, tuple(heat_rows))
        capped = ""
        if len(ranked_all) > len(heat_rows):
            capped = (f"the {HEATMAP_ROWS} of {len(ranked_all)} judge metrics with the highest "
                      f"|{STAT_SYMBOL[stat]}| in the table, plus the selected one")
            st.caption(f"Rows: {capped}.")
        heatmap(cells, facet, heat_rows, (judge, metric), stat, target_words,  # the title in words, not a column
                dataset=meta["dataset"], synthetic=meta["synthetic"], capped=capped)
        if not cells.empty:
            cols = [facet, "judge", "metric", "n", "tau", "p", "rho", "rho_p", "r", "r_p", "sign_ok", "too_few"]
            download("Heatmap CSV", cells[cols], meta, f"by-{facet}-{target}", "corr_dl_heat")

    st.markdown("#### Paired difference")
    st.caption(f"Is A = {escape_md(series_label(judge, metric))} closer to the experts than B?")
    paired_section(reads, table, (judge, metric), stat, n_boot, seed, meta, boot_ok)
