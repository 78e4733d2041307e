"""Correlations: which judge agrees with the experts?

The judge x metric table of the VERT / CREPE papers (|tau| with a dagger for
p >= 0.01, best bold, second underlined, wrong-sign flag), its detail with n,
bootstrap CIs, rho and r, and for one chosen (judge, metric): a scatter
against the expert target, tau by modality / anatomy / system / split, a
paired bootstrap test against a second (judge, metric), and the experts'
agreement with each other as the ceiling.

The view lives in the URL: ``dataset`` (app.py), ``target``, ``stat``,
``modality`` / ``anatomy`` / ``system`` / ``split`` (repeatable),
``identical=removed``, ``n_boot``, ``seed``, ``ci_method``, ``ci=always``, ``judge``,
``metric``, ``facet``, ``vs_judge``, ``vs_metric``.

Caching (pages/_correlations_reads.py): the data are read once per (store version, dataset, target), in
one DuckDB query, into a pairs x series matrix (``core.reads.pairmatrix``: one row per pair with its facets
and target, one column per judge metric) held as a shared resource (never copied); a view is a mask over
the pairs, and every table is cached per (store version, dataset, target, filters, toggle, n_boot, seed).
The scatter and the heatmap are drawn by pages/_correlations_charts.py, each with SVG, PDF and CSV downloads
made on click by core/paper (pages/_downloads.py); the Table LaTeX download carries each cell's n and, when the
detail shows them, its CIs (as ``correlate --table --format latex --with-n [--with-ci]``). Bootstrap work
above ``BOOT_BUDGET`` pair-resamples (docs/PERFORMANCE.md) waits for a click,
so a large store stays responsive; the point estimates, p-values and
daggers never wait.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis.ceiling import STAT_COLUMNS as CEILING_COLUMNS
from core.analysis.ceiling import mean_stat, stat_key
from core.analysis.naming import display_name
from core.analysis.stats import AUTO_BOOTSTRAP_MAX_N, METRIC_ORDER, TABLE_LEGEND, ci_method_for
from core.reads.frames import FACETS, is_checks_run
from core.store.db import Store
from core.store.export import to_safe_csv
from pages._correlations_charts import STAT_EST, STAT_SYMBOL, heatmap, scatter, series_label
from pages._correlations_reads import (
    MIN_N,
    STAT_VALUE,
    load_agreement,
    load_breakdown,
    load_mask,
    load_matrix,
    load_paired,
    load_ratings,
    load_runs,
    load_series,
    load_shaped,
    load_table,
    load_targets,
    load_view_counts,
)
from pages._correlations_words import cell_texts, draw_headline
from pages._preferences import draw_preferences
from pages._shared import (
    DETAIL_PAIRS,
    MISSING,
    escape_md,
    expert_annotators_choice,
    load_datasets,
    load_facets,
    page_start,
    seed_facet_filters,
    set_url,
    show_table,
    url_value,
    warn_unknown_names,
)

DEFAULT_N_BOOT, MAX_N_BOOT = 1000, 20000
#: Bootstrap work computed without asking, in pair-resamples (pairs x resamples, summed over the
#: series). Measured here at 1.3e7 (one paired test, small n) to 9e7 (a whole table, large n) per
#: second (bench/bench_page.py): at most about half a second.
BOOT_BUDGET = 10_000_000
BOOT_RATE = 5e7  # for the "roughly N s" shown next to the button
#: An asymptotic interval's cost per pair in pair-resamples (the table with them is computed again: 1.45 s
#: for 40 series x 50,000 pairs here, i.e. about 36 per pair), so large views still open at once.
ASYM_WORK = 40
HEATMAP_ROWS = 12  # heatmap rows: the best (judge, metric) series of the table, plus the selected one

TARGET_LABELS = {
    "score": "Expert score (0-1, higher is better)",
    "sig_errors": "Significant errors (count per report)",
    "total_errors": "Total errors (count per report)",
}
STATS = {"kendall": "Kendall τ-b", "spearman": "Spearman ρ", "pearson": "Pearson r"}
STAT_CI = {"kendall": ("ci_low", "ci_high"), "spearman": ("rho_ci_low", "rho_ci_high"),
           "pearson": ("r_ci_low", "r_ci_high")}

FACET_KEYS = {facet: f"corr_{facet}" for facet in FACETS}
TARGET_KEY, STAT_KEY, IDENT_KEY = "corr_target", "corr_stat", "corr_identical"
NBOOT_KEY, SEED_KEY = "corr_n_boot", "corr_seed"
JUDGE_KEY, METRIC_KEY, HEAT_KEY, VS_KEY = "corr_judge", "corr_metric", "corr_facet", "corr_vs"
CI_ALWAYS_KEY = "corr_ci_always"  # not a widget: the user asked for CIs on large views
CI_KEY = "corr_ci_method"  # the interval: auto (bootstrap up to AUTO_BOOTSTRAP_MAX_N pairs), bootstrap, asymptotic
CI_LABELS = {"auto": "auto (by size)", "bootstrap": "bootstrap", "asymptotic": "asymptotic"}


# -- view state (URL <-> widgets) -----------------------------------------------------------------


def _int_param(name: str, default: int, low: int, high: int) -> int:
    raw = url_value(name, str(default))
    return min(max(int(raw), low), high) if raw.lstrip("-").isdigit() else default


def _seed_view(dataset: str, facets: dict[str, list[str]], targets: list[str]) -> None:
    """Fill widget state before the widgets are drawn: from the URL on a first visit, reset on a new dataset."""
    ss = st.session_state
    first_visit, switched = seed_facet_filters("corr_view_dataset", dataset, facets, FACET_KEYS)
    if switched:
        for key in (JUDGE_KEY, METRIC_KEY, VS_KEY):
            ss.pop(key, None)
    if TARGET_KEY not in ss:
        ss[TARGET_KEY] = url_value("target", "score")
    if ss[TARGET_KEY] not in targets:
        ss[TARGET_KEY] = targets[0]
    if ss.get(STAT_KEY) not in STATS:
        wanted = url_value("stat", "kendall") if STAT_KEY not in ss else "kendall"
        ss[STAT_KEY] = wanted if wanted in STATS else "kendall"
    if IDENT_KEY not in ss:
        ss[IDENT_KEY] = url_value("identical") == "removed"
    if NBOOT_KEY not in ss:
        ss[NBOOT_KEY] = _int_param("n_boot", DEFAULT_N_BOOT, 0, MAX_N_BOOT)
    if SEED_KEY not in ss:
        ss[SEED_KEY] = _int_param("seed", 0, 0, 2**31 - 1)
    if ss.get(CI_KEY) not in CI_LABELS:
        ss[CI_KEY] = url_value("ci_method", "auto") if url_value("ci_method", "auto") in CI_LABELS else "auto"
    if HEAT_KEY not in ss:
        ss[HEAT_KEY] = url_value("facet", "modality")
    if ss[HEAT_KEY] not in FACETS:
        ss[HEAT_KEY] = "modality"
    if first_visit and url_value("ci") == "always":
        ss[CI_ALWAYS_KEY] = True


def _controls(facets: dict[str, list[str]], targets: list[str]) -> dict:
    top = st.columns([3, 4, 3])
    with top[0]:
        target = st.radio("Expert target", targets, key=TARGET_KEY, format_func=TARGET_LABELS.get,
                          help="Expert targets: per annotator first (sum over categories), then the mean "
                               "over annotators. Scores are normalised to 0-1.")
    with top[1]:
        stat = st.segmented_control("Statistic", list(STATS), key=STAT_KEY, format_func=STATS.get,
                                    help="Kendall's τ-b is the papers' headline; Spearman's ρ and Pearson's r "
                                         "switch the table, the heatmap and the paired test.")
        stat = stat or "kendall"
    with top[2]:
        drop_identical = st.toggle(
            "Identical pairs removed (ReXVal*)", key=IDENT_KEY,
            help="Identical reference and candidate removed - CREPE's ReXVal* check: pairs whose candidate "
                 "repeats the reference (after collapsing whitespace) are left out, since every judge "
                 "trivially scores them as perfect.")
    cols = st.columns(len(FACETS))
    filters = {}
    for col, (facet, key) in zip(cols, FACET_KEYS.items(), strict=True):
        with col:
            filters[facet] = st.multiselect(facet.capitalize(), facets[facet], key=key, placeholder="all",
                                            disabled=not facets[facet])
    boot = st.columns([1, 1, 1, 3])
    with boot[0]:
        n_boot = int(st.number_input("Bootstrap resamples", min_value=0, max_value=MAX_N_BOOT, step=100,
                                     key=NBOOT_KEY, help="0 = no confidence intervals"))
    with boot[1]:
        seed = int(st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=SEED_KEY,
                                   help="numpy default_rng seed of every resample and of the scatter jitter"))
    with boot[2]:
        ci = st.selectbox("Confidence intervals", list(CI_LABELS), key=CI_KEY, format_func=CI_LABELS.get,
                          help=f"auto: the seeded (cluster) bootstrap up to {AUTO_BOOTSTRAP_MAX_N:,} pairs, the "
                               "asymptotic interval above (Fisher z, variance from each pair's influence, summed "
                               "within reference groups); or one of them for every row")
    return {"target": target, "stat": stat, "drop_identical": bool(drop_identical),
            "filters": tuple((f, tuple(filters[f])) for f in FACETS), "raw_filters": filters,
            "n_boot": n_boot, "seed": seed, "ci": ci or "auto", "boot_col": boot[3]}


# -- drawing helpers ---------------------------------------------------------------------------------


def _export(frame: pd.DataFrame, meta: dict) -> pd.DataFrame:
    """What a download holds: the table plus the dataset and its synthetic flag (labelled wherever shown)."""
    out = frame.reset_index(drop=True).copy()
    out.insert(0, "dataset", meta["dataset"])
    out.insert(1, "synthetic", meta["synthetic"])
    return out


def _download(label: str, frame: pd.DataFrame, meta: dict, name: str, key: str) -> None:
    tag = "synthetic-" if meta["synthetic"] else ""
    exported = _export(frame, meta)
    file_name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{tag}{meta['dataset']}-{name}") + ".csv"
    st.download_button(label, data=lambda: to_safe_csv(exported), file_name=file_name,
                       mime="text/csv", key=key, icon=":material/download:", on_click="ignore")


def _download_latex(table: pd.DataFrame, counts: dict, meta: dict, view: dict, with_ci: bool) -> None:
    """The judge x metric table as LaTeX (booktabs, caption, label), as `correlate --format latex --with-n` writes
    it; with the CIs (``--with-ci``) when the page shows them (``table`` is then the table with intervals)."""
    from core.paper.correlations import CorrelationContext, correlation_table
    from core.paper.latex import to_latex

    shown = "; ".join(f"{f}: {', '.join(map(str, v))}" for f, v in view["filters"] if v)
    ctx = CorrelationContext(dataset=meta["dataset"] + (f" ({shown})" if shown else ""), synthetic=meta["synthetic"],
                             target=meta["target"], raters=meta["raters"], n_pairs=counts["pairs"],
                             n_groups=counts["groups"], n_identical=counts["identical"],
                             identical_removed=counts["identical_removed"])
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{'synthetic-' if meta['synthetic'] else ''}{meta['dataset']}-"
                  f"judge-metric-{meta['target']}") + ".tex"
    st.download_button("Table LaTeX", data=lambda: to_latex(correlation_table(table, ctx, stat=view["stat"],
                                                                         with_ci=with_ci, with_n=True)),
                       file_name=name, mime="application/x-tex", key="corr_dl_latex", icon=":material/download:",
                       on_click="ignore", help="booktabs table with its caption and label, for \\input in a paper: "
                                               "each cell's n, and its 95% CI when the detail below shows CIs")


def _styled_table(shaped, table: pd.DataFrame, stat: str):
    """The papers' table, each cell with its CI (when computed) and n: bold best, underlined second best
    (st.table renders the Styler's CSS).

    st.table wraps each cell's text in an inline-block, which a cell's own text-decoration does not
    reach, so the underline targets the text element inside the cell.
    """
    text = cell_texts(shaped, table, stat)
    best = shaped.best.to_numpy(dtype=bool)
    second = shaped.second.to_numpy(dtype=bool)
    css = pd.DataFrame(np.where(best, "font-weight: 700", ""), index=text.index, columns=text.columns)
    underline = [{"selector": f"td.row{i}.col{j} p", "props": "text-decoration: underline"}
                 for i, j in zip(*np.nonzero(second), strict=True)]
    return text.style.apply(lambda _: css, axis=None).set_table_styles(underline)


def _legend(stat: str) -> str:
    if stat == "kendall":
        return TABLE_LEGEND
    return TABLE_LEGEND.replace("|tau| (Kendall tau-b)", f"|{STAT_SYMBOL[stat]}| ({STATS[stat]})")


def _detail(table: pd.DataFrame, resampled: bool) -> pd.DataFrame:
    """The long table as shown; without resampling there are no CIs and no resampled groups to show."""
    cols = {"judge": "judge", "metric": "metric", "n": "n", "n_clusters": "groups", "tau": "tau",
            "ci_low": "tau CI low", "ci_high": "tau CI high", "p": "p", "rho": "rho", "rho_ci_low": "rho CI low",
            "rho_ci_high": "rho CI high", "rho_p": "rho p", "r": "r", "r_ci_low": "r CI low",
            "r_ci_high": "r CI high", "r_p": "r p"}
    out = table[list(cols)].rename(columns=cols)
    out.insert(2, "label", [display_name(j, m) for j, m in zip(table["judge"], table["metric"], strict=True)])
    out.insert(out.columns.get_loc("p") + 1, "sign",
               np.where(table["sign_ok"], "ok", np.where(table["tau"].isna(), "", "wrong ⚠")))
    out["note"] = [r if isinstance(r, str) else "" for r in table["reason"]]
    out["resampling"] = table["resampling"]
    out["CI method"] = table["ci_method"]
    if not resampled:
        out = out.drop(columns=["groups", "resampling", "CI method"])
    return out


def _boot_statement(counts: dict, n_boot: int, seed: int, computed: bool) -> str:
    if n_boot == 0:
        return "No bootstrap (resamples = 0): no confidence intervals."
    clustered = counts["groups"] > 0  # as core.analysis.stats: any group_id label means the bootstrap resamples groups
    how = (f"resampling reference groups (`group_id`: {counts['groups']:,} groups), since candidates of "
           "one reference are not independent" if clustered else "resampling pairs (no group ids)")
    state = "" if computed else " — not computed yet for this view (see below)"
    return f"95% percentile CIs from **{n_boot:,}** bootstrap resamples, seed **{seed}**, {how}{state}."


def _ci_statement(counts: dict, n_boot: int, seed: int, computed: bool, ci: str, sizes) -> str:
    """What the intervals are: the bootstrap statement, the asymptotic one, or both (auto, mixed sizes)."""
    methods = {ci_method_for(ci, int(n), counts["groups"] > 0, n_boot) for n in sizes}
    boot = _boot_statement(counts, n_boot, seed, computed) if any(m.startswith("bootstrap") for m in methods) \
        or not any(m.startswith("asymptotic") for m in methods) else ""
    if not any(m.startswith("asymptotic") for m in methods):
        return boot
    how = (f"summed within reference groups ({counts['groups']:,} groups)" if counts["groups"] > 0
           else "pairs independent (no group ids)")
    text = f"95% asymptotic CIs (Fisher z; variance from each pair's influence on τ, ρ and r, {how})"
    return text + "." if not boot else f"{text} for rows of more than {AUTO_BOOTSTRAP_MAX_N:,} pairs; {boot}"


# -- sections --------------------------------------------------------------------------------------------


def _ceiling(args: tuple, meta: dict, stat: str) -> None:
    """The experts' agreement with each other, in the statistic the table shows (``stat``)."""
    agreement = load_agreement(*args)
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
        _download("Agreement CSV", pairwise, meta, f"agreement-{meta['target']}", "corr_dl_iaa")
        st.caption(f"Each annotator against the mean of the others (leave-one-out, {words}):")
        show_table(loo[["annotator", "n", est, p_col]], hide_index=True, key="corr_loo_table",
                   column_config={est: st.column_config.NumberColumn(format="%.3f"),
                                  p_col: st.column_config.NumberColumn(format="%.3g")})


def _paired_section(args: tuple, table: pd.DataFrame, a: tuple[str, str], stat: str, n_boot: int, seed: int,
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
        result = load_paired(*args, a, b, stat, n_boot, seed)
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
    _download("Paired test CSV", result, meta, "paired-test", "corr_dl_paired")


# -- the page ------------------------------------------------------------------------------------------------


def _open_view(store: Store, dataset: str) -> tuple[dict, dict, tuple] | None:
    """Empty states, the view's widgets and URL, and the reads it needs: ``(meta, view, args)`` or None."""
    datasets = load_datasets(store)
    info = datasets.loc[datasets["name"] == dataset].iloc[0]
    meta = {"dataset": dataset, "synthetic": bool(info["synthetic"]), "source": info.get("source")}
    runs = load_runs(store, dataset)
    missing = False
    if int(info["annotations"]) == 0:
        st.info(f"**No expert annotations on {escape_md(dataset)} yet**, so there is nothing to correlate "
                "with. Import them on the Data page (**Import data → annotations**) or with "
                f"`python -m core import-annotations FILE --dataset {dataset} --id-col ID --score-col SCORE`.",
                icon=":material/rate_review:")
        missing = True
    if runs.empty:
        st.info(f"**No judge runs on {escape_md(dataset)} yet** — open **Run judges** (or "
                f"`python -m core judge --dataset {dataset} --judge rules`).", icon=":material/gavel:")
        missing = True
    if missing:
        return None

    targets = load_targets(store, dataset)
    if not targets:
        st.info("The annotations hold no overall score and no error counts, the targets this page uses.")
        return None
    annotators, meta["raters"] = expert_annotators_choice(store, dataset, "corr_experts")  # imported / clinicians
    experts = None if annotators is None else tuple(annotators)
    facets = load_facets(store, dataset)
    _seed_view(dataset, facets, targets)
    view = _controls(facets, targets)
    target, stat, n_boot, seed = view["target"], view["stat"], view["n_boot"], view["seed"]
    meta["target"] = target
    args = (store, dataset, target, experts, view["drop_identical"], view["filters"])

    for facet in FACETS:
        set_url(facet, view["raw_filters"][facet])
    set_url("target", target)
    set_url("stat", stat)
    set_url("identical", "removed" if view["drop_identical"] else None)
    set_url("n_boot", str(n_boot))
    set_url("seed", str(seed))
    set_url("ci_method", None if view["ci"] == "auto" else view["ci"])
    # the store's data for this view, read now (inside the caller's session): the matrix, the ceiling's values
    load_mask(*args)
    load_ratings(store, dataset, target, experts)
    return meta, view, args


def main() -> None:
    store, dataset, _ = page_start(
        "Correlations",
        lead="Which judge agrees with the experts? Correlation of every judge metric with the expert "
             "target on the same pairs, as in the VERT and CREPE tables.",
        empty="Import a dataset (or build the demo) to see how judges agree with the experts.")
    # Every read of this view in one opening of the store (each open costs tens of ms, and the first
    # query after it reads cold blocks); the session ends before the statistics.
    with store.session():
        opened = _open_view(store, dataset)
    if opened is None:
        return
    meta, view, args = opened
    target, stat, n_boot, seed = view["target"], view["stat"], view["n_boot"], view["seed"]

    with st.spinner("Correlating…"):
        point = load_table(*args, 0, 0)  # point estimates and p: no resampling, so no seed
    counts = load_view_counts(*args)
    if point.empty:
        scored = "match these filters" if any(v for _, v in view["filters"]) or view["drop_identical"] else \
            f"have both a judge value and the {target} target"
        st.info(f"No pairs {scored}. Widen the filters, pick another target, or run a judge on the annotated pairs.",
                icon=":material/filter_alt_off:")
        return

    def boot_ok(work: int, where: str) -> bool:
        """Run bootstrap work now, or offer a button when it would take more than about half a second."""
        if work <= BOOT_BUDGET or st.session_state.get(CI_ALWAYS_KEY):
            return True
        st.info(f"This needs {work:,} pair-resamples or their equivalent (roughly {max(1, round(work / BOOT_RATE))} "
                "s here), so it waits for a click; point estimates, p and † are already shown.",
                icon=":material/hourglass_top:")
        st.button("Compute intervals and tests for large views", key=f"corr_boot_go_{where}",
                  on_click=lambda: st.session_state.__setitem__(CI_ALWAYS_KEY, True))
        return False

    # -- the table --------------------------------------------------------------------------------
    st.markdown(f"#### Judge × metric · {escape_md(TARGET_LABELS[target].split(' (')[0].lower())}")
    ident = (f"; {counts['identical']:,} identical pair(s) removed" if counts["identical_removed"]
             else f"; {counts['identical']:,} identical pair(s) kept")
    n_low, n_high = int(point["n"].min()), int(point["n"].max())
    covered = ("" if n_low == counts["pairs"] else  # a judge scores only the pairs it has values for: say so
               f"; the judges have values for {n_low:,} of them" if n_low == n_high else
               f"; each judge has values for {n_low:,} to {n_high:,} of them (its n)")
    st.caption(f"**{counts['pairs']:,} pairs** in view ({counts['groups']:,} reference groups{ident}){covered}"
               + (" · synthetic data" if meta["synthetic"] else ""))
    ci = view["ci"]
    methods = [ci_method_for(ci, int(n), True, n_boot) for n in point["n"]]
    work = sum(int(n) * (n_boot if m.startswith("bootstrap") else ASYM_WORK if m.startswith("asymptotic") else 0)
               for n, m in zip(point["n"], methods, strict=True))
    with view["boot_col"]:
        st.caption(_ci_statement(counts, n_boot, seed, n_boot == 0 or work <= BOOT_BUDGET
                                 or bool(st.session_state.get(CI_ALWAYS_KEY)), ci, point["n"]))
    table = point
    if (n_boot > 0 or ci == "asymptotic") and boot_ok(work, "table"):
        with st.spinner("Confidence intervals…"):
            table = load_table(*args, n_boot, seed, ci)
    # the answer in words, as `correlate` and the report say it (core.analysis.headline); the paired test
    # only once the table's intervals were computed (the same bootstrap budget)
    draw_headline(table, load_agreement(*args), stat, target, meta,
                  paired=(lambda a, b: load_paired(*args, a, b, stat, n_boot, seed))
                  if table is not point and n_boot > 0 else None)
    shaped = load_shaped(*args, stat)
    st.table(_styled_table(shaped, table, stat))
    st.caption(_legend(stat) + " Each cell: the value, its 95% CI (once computed) and n; ρ, r and p per cell: "
               "the detail table below.")
    runs = load_runs(args[0], args[1])
    left_out = sorted(runs.loc[is_checks_run(runs), "judge"]) if len(runs) else []
    if left_out:  # the report checks grade conformance, not agreement with the reference: not in this table
        st.caption(f"Not in this table: the report checks ({', '.join(escape_md(j) for j in left_out)}). They "
                   "grade a report's structure and wording against rules (LAIas), not its agreement with the "
                   "reference, so they are no judges of agreement; their scores and verdicts are on **Checks & "
                   "leaderboards**.")
    wide = cell_texts(shaped, table, stat).reset_index()
    dl = st.columns(4)
    with dl[0]:
        _download("Table CSV", wide, meta, f"judge-metric-{target}", "corr_dl_table")
    latex_slot = dl[1]  # the same table for the paper (core/paper), filled once the CIs are known

    _ceiling(args, meta, stat)
    draw_preferences(store, dataset, synthetic=meta["synthetic"])  # only with comparisons

    # -- detail -----------------------------------------------------------------------------------
    st.markdown("#### Detail: n, estimates, 95% CIs, p")
    with latex_slot:  # booktabs LaTeX with its caption, n, and the CIs the detail shows
        _download_latex(table, counts, meta, view, with_ci=table is not point)
    detail = _detail(table, resampled=table is not point)
    three = {"format": "%.3f"}
    show_table(detail, hide_index=True, key="corr_detail", column_config={
        **{c: st.column_config.NumberColumn(**three) for c in ("tau", "tau CI low", "tau CI high", "rho",
                                                               "rho CI low", "rho CI high", "r", "r CI low",
                                                               "r CI high")},
        **{c: st.column_config.NumberColumn(format="%.2g") for c in ("p", "rho p", "r p")},
        "n": st.column_config.NumberColumn(help="pairs with both a judge value and the target"),
        "groups": st.column_config.NumberColumn(help="reference groups resampled by the bootstrap"),
        "sign": st.column_config.TextColumn(help="wrong ⚠: the correlation runs against the metric's orientation"),
    })
    _download("Detail CSV", detail, meta, f"correlations-{target}", "corr_dl_detail")

    # -- one judge metric ---------------------------------------------------------------------------
    st.markdown("#### One judge metric")
    valid = table[table["n"] > 0]
    judges = list(dict.fromkeys(valid["judge"]))
    ss = st.session_state
    ranked = valid.sort_values(STAT_VALUE[stat], ascending=False, na_position="last")
    # On a large dataset the detail of one judge metric (scatter, pairs, heatmap, paired test) waits
    # for a choice, as large bootstraps do; on a small one the best judge metric is shown at once.
    n_pairs = len(load_matrix(*args[:4]).pairs)
    waits = n_pairs > DETAIL_PAIRS  # imported at each run of the page (a test lowers it)
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
    series = load_series(*args, judge, metric)
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
        show_table(series.rename(columns={"ext_id": "id", "group_id": "group", "value": metric,
                                            "target": f"expert {target}"}),
                     hide_index=True, key="corr_pairs", height=360)
        _download("Pairs CSV", series, meta, f"pairs-{judge}-{metric}-{target}", "corr_dl_pairs")

    st.markdown(f"#### {STAT_SYMBOL[stat]} by {facet}")
    ranked_all = list(zip(ranked["judge"], ranked["metric"], strict=True))
    heat_rows = ranked_all[:HEATMAP_ROWS]
    if (judge, metric) not in heat_rows:
        heat_rows.append((judge, metric))
    if not load_matrix(*args[:4]).pairs[facet].notna().any():  # nothing to break down: say why, not an empty frame
        st.caption(f"This dataset records no {facet} for its pairs, so there is no {STAT_SYMBOL[stat]} by {facet}; "
                   f"choose another facet above (or import the pairs with a {facet} column).")
    else:
        cells = load_breakdown(*args, facet, tuple(heat_rows))
        capped = ""
        if len(ranked_all) > len(heat_rows):
            capped = (f"the {HEATMAP_ROWS} of {len(ranked_all)} judge metrics with the highest "
                      f"|{STAT_SYMBOL[stat]}| in the table, plus the selected one")
            st.caption(f"Rows: {capped}.")
        heatmap(cells, facet, heat_rows, (judge, metric), stat, target_words,  # the title in words, not a column
                dataset=meta["dataset"], synthetic=meta["synthetic"], capped=capped)
        if not cells.empty:
            cols = [facet, "judge", "metric", "n", "tau", "p", "rho", "rho_p", "r", "r_p", "sign_ok", "too_few"]
            _download("Heatmap CSV", cells[cols], meta, f"by-{facet}-{target}", "corr_dl_heat")

    st.markdown("#### Paired difference")
    st.caption(f"Is A = {escape_md(series_label(judge, metric))} closer to the experts than B?")
    _paired_section(args, table, (judge, metric), stat, n_boot, seed, meta, boot_ok)


main()
