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

Caching (ui/correlations_reads.py): the data are read once per (store version, dataset, target), in
one DuckDB query, into a pairs x series matrix (``core.reads.pairmatrix``: one row per pair with its facets
and target, one column per judge metric) held as a shared resource (never copied); a view is a mask over
the pairs, and every table is cached per (store version, dataset, target, filters, toggle, n_boot, seed).
The scatter and the heatmap are drawn by ui/correlations_charts.py, each with SVG, PDF and CSV downloads
made on click by core/paper (ui/downloads.py); the Table LaTeX download carries each cell's n and, when the
detail shows them, its CIs (as ``correlate --table --format latex --with-n [--with-ci]``). Bootstrap work
above ``BOOT_BUDGET`` pair-resamples (docs/PERFORMANCE.md) waits for a click,
so a large store stays responsive; the point estimates, p-values and
daggers never wait.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import streamlit as st

from core.analysis.naming import display_name
from core.analysis.stats import AUTO_BOOTSTRAP_MAX_N, ci_method_for
from core.reads.frames import FACETS, is_checks_run
from core.store.db import Store
from ui.correlations_detail import (
    BOOT_BUDGET,
    CI_ALWAYS_KEY,
    HEAT_KEY,
    JUDGE_KEY,
    METRIC_KEY,
    TARGET_LABELS,
    VS_KEY,
    boot_ok,
    download,
    draw_ceiling,
    one_metric,
)
from ui.correlations_reads import View, load_runs, load_targets
from ui.correlations_words import STATS, cell_texts, ci_statement, draw_headline, legend
from ui.preferences import draw_preferences
from ui.shared import (
    escape_md,
    expert_annotators_choice,
    load_datasets,
    load_facets,
    page_start,
    seed_facet_filters,
    set_url,
    show_table,
    url_value,
)

DEFAULT_N_BOOT, MAX_N_BOOT = 1000, 20000
#: An asymptotic interval's cost per pair in pair-resamples (the table with them is computed again: 1.45 s
#: for 40 series x 50,000 pairs here, i.e. about 36 per pair), so large views still open at once.
ASYM_WORK = 40


FACET_KEYS = {facet: f"corr_{facet}" for facet in FACETS}
TARGET_KEY, STAT_KEY, IDENT_KEY = "corr_target", "corr_stat", "corr_identical"
NBOOT_KEY, SEED_KEY = "corr_n_boot", "corr_seed"
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


# -- sections --------------------------------------------------------------------------------------------


# -- the page ------------------------------------------------------------------------------------------------


def _open_view(store: Store, dataset: str) -> tuple[dict, dict, tuple] | None:
    """Empty states, the view's widgets and URL, and the reads it needs: ``(meta, view, reads)`` or None."""
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
    reads = View(store, dataset, target, experts, view["drop_identical"], view["filters"])

    for facet in FACETS:
        set_url(facet, view["raw_filters"][facet])
    set_url("target", target)
    set_url("stat", stat)
    set_url("identical", "removed" if view["drop_identical"] else None)
    set_url("n_boot", str(n_boot))
    set_url("seed", str(seed))
    set_url("ci_method", None if view["ci"] == "auto" else view["ci"])
    # the store's data for this view, read now (inside the caller's session): the matrix, the ceiling's values
    reads.mask()
    reads.ratings()
    return meta, view, reads


def main() -> None:
    store, dataset, _ = page_start(
        "Correlations",
        lead="Which judge agrees with the experts? Correlation of every judge metric with the expert "
             "target on the same pairs, as in the VERT and CREPE tables.",
        empty="Import a dataset (or build the demo) to see how judges agree with the experts.")
    # Every read of this view in one opening of the store (app.py's for the whole run: each open costs tens of
    # ms, and the first query after it reads cold blocks); the statistics and charts run outside it, so the
    # file is not held while they compute.
    with store.session():
        opened = _open_view(store, dataset)
    if opened is None:
        return
    with store.outside_session():
        _draw(store, dataset, *opened)


def _draw(store: Store, dataset: str, meta: dict, view: dict, reads: View) -> None:
    """The page below its controls: the table, the headline, the ceiling, the detail and one judge metric."""
    target, stat, n_boot, seed = view["target"], view["stat"], view["n_boot"], view["seed"]

    with st.spinner("Correlating…"):
        point = reads.table(0, 0)  # point estimates and p: no resampling, so no seed
    counts = reads.counts()
    if point.empty:
        scored = "match these filters" if any(v for _, v in view["filters"]) or view["drop_identical"] else \
            f"have both a judge value and the {target} target"
        st.info(f"No pairs {scored}. Widen the filters, pick another target, or run a judge on the annotated pairs.",
                icon=":material/filter_alt_off:")
        return

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
        st.caption(ci_statement(counts, n_boot, seed, n_boot == 0 or work <= BOOT_BUDGET
                                 or bool(st.session_state.get(CI_ALWAYS_KEY)), ci, point["n"]))
    table = point
    if (n_boot > 0 or ci == "asymptotic") and boot_ok(work, "table"):
        with st.spinner("Confidence intervals…"):
            table = reads.table(n_boot, seed, ci)
    # the answer in words, as `correlate` and the report say it (core.analysis.headline); the paired test
    # only once the table's intervals were computed (the same bootstrap budget)
    draw_headline(table, reads.agreement(), stat, target, meta,
                  paired=(lambda a, b: reads.paired(a, b, stat, n_boot, seed))
                  if table is not point and n_boot > 0 else None)
    shaped = reads.shaped(stat)
    st.table(_styled_table(shaped, table, stat))
    st.caption(legend(stat) + " Each cell: the value, its 95% CI (once computed) and n; ρ, r and p per cell: "
               "the detail table below.")
    runs = load_runs(reads.store, reads.dataset)
    left_out = sorted(runs.loc[is_checks_run(runs), "judge"]) if len(runs) else []
    if left_out:  # the report checks grade conformance, not agreement with the reference: not in this table
        st.caption(f"Not in this table: the report checks ({', '.join(escape_md(j) for j in left_out)}). They "
                   "grade a report's structure and wording against rules (LAIas), not its agreement with the "
                   "reference, so they are no judges of agreement; their scores and verdicts are on **Checks & "
                   "leaderboards**.")
    wide = cell_texts(shaped, table, stat).reset_index()
    dl = st.columns(4)
    with dl[0]:
        download("Table CSV", wide, meta, f"judge-metric-{target}", "corr_dl_table")
    latex_slot = dl[1]  # the same table for the paper (core/paper), filled once the CIs are known

    draw_ceiling(reads, meta, stat)
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
    download("Detail CSV", detail, meta, f"correlations-{target}", "corr_dl_detail")

    one_metric(reads, table, stat, target, n_boot, seed, meta)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
