"""Checks & leaderboards: deterministic report checks (LAIas Bench) and fair leaderboards.

As ``python -m core checks`` and ``python -m core leaderboard``: per-dimension
1-5 scores (combined with an LLM phase when one is chosen, else degraded),
verdict counts, the failing checks by id and per pair; candidate systems
ranked by a judge's score and judges ranked by agreement with the experts,
each only within its comparable-key group.

URL state: ``locale`` (en-US / pt-BR), ``llm`` (an LLM-phase run id, or
absent for none), ``board`` (systems / judges).
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.checks.locale import locales
from core.checks.registry import DIMENSION_NAMES, DIMENSIONS, WEIGHTS
from core.checks.store import (
    case_results,
    checks_runs,
    checks_spec,
    dimension_summary,
    failing_checks,
    llm_phase_runs,
    pair_failures,
    run_checks,
    verdict_counts,
)
from core.judges import run_judge
from core.judges.llm import redact
from core.models import configured_models, secret_api_key
from core.reads.leaderboard import judges_leaderboard, systems_leaderboard
from core.settings import local_only
from ui.shared import (
    BLUE,
    cached,
    download_csv,
    escape_md,
    page_start,
    set_url,
    show_table,
    streamlit_secrets,
    url_value,
)

BOARDS = {"systems": "Candidate systems (by score)", "judges": "Judges (by agreement with experts)"}
N_BOOT = 200  # the page's bootstrap for the judges board (the CLI defaults to 1,000)


@cached
def _runs(store, dataset: str, locale: str):
    return checks_runs(store, dataset), llm_phase_runs(store, dataset, locale)


@cached
def _results(store, dataset: str, run_id: str, llm_run: str | None):
    cases = case_results(store, dataset, run_id, llm_run)
    return cases, dimension_summary(cases), verdict_counts(cases), failing_checks(store, run_id)


@cached(max_entries=64)
def _pair_failures(store, run_id: str, pair_id: str) -> pd.DataFrame:
    return pair_failures(store, run_id, pair_id)


@cached
def _board(store, dataset: str, board: str) -> pd.DataFrame:
    if board == "systems":
        return systems_leaderboard(store, dataset)
    return judges_leaderboard(store, dataset, n_boot=N_BOOT, seed=0)


def dimension_figure(summary: pd.DataFrame, degraded: bool) -> go.Figure:
    dims = summary[summary["dimension"].isin(DIMENSIONS)]
    labels = [f"{d} · {DIMENSION_NAMES[d]} (w {WEIGHTS[d] / 100:.2f})" for d in dims["dimension"]]
    fig = go.Figure(go.Bar(
        x=labels, y=dims["mean_score"], marker={"color": BLUE},
        text=[("unscored" if pd.isna(v) else f"{v:.2f}") + f" (n={n})" for v, n in zip(dims["mean_score"], dims["n"],
                                                                                    strict=True)],
        textposition="outside", hovertemplate="%{x}<br>mean %{y:.2f}<extra></extra>"))
    fig.update_layout(title="Mean score per dimension" + (" (deterministic only: degraded)" if degraded else
                                                          " (min of deterministic and LLM)"),
                      xaxis_title="Dimension (LAIas Bench Sec. 4.1, weight)", yaxis_title="Mean score (1-5 scale)",
                      yaxis_range=[0, 5.6], height=380, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def draw_llm_phase(store, dataset: str, locale: str) -> None:
    """Run the adversarial phase with a configured model (report text goes to that endpoint only)."""
    with st.expander("Run the LLM phase"):
        secrets = streamlit_secrets()
        models = [m for m in configured_models(secrets=secrets) if m.usable]
        if not models:
            st.caption("No model configured: set `RADCONCORD_MODELS` (and a provider key, or a local server's "
                       "URL) to run the LLM phase. Without it every result stays degraded.")
            return
        by_name = {m.name: m for m in models}
        name = st.selectbox("Model", list(by_name), key="chk_llm_model",
                            format_func=lambda n: n + (" (local)" if by_name[n].local else ""))
        st.caption("Sends each reference and candidate report of the dataset to this model's endpoint, "
                   "with the designed LAIas judge prompt (see docs/CHECKS.md). Answers are cached.")
        if st.button("Run LLM phase", key="chk_llm_go"):
            model = by_name[name]
            with st.spinner("Asking the judge..."):
                try:
                    summary = run_judge(store, dataset=dataset, judge=model.name, prompt_id="laias_judge",
                                        locale=locale, api_base=model.api_base,
                                        api_key=secret_api_key(model, secrets),
                                        local_only=local_only(secrets=secrets))
                except ValueError as exc:
                    st.error(escape_md(redact(str(exc))))
                    return
            st.session_state["chk_llm_next"] = summary.run_id
            st.rerun()


def draw_checks(store, dataset: str, synthetic: bool, locale: str) -> None:
    runs, llm_runs = _runs(store, dataset, locale)
    run_id = checks_spec(dataset, locale).run_id()
    if run_id not in set(runs["run_id"]):
        st.info(f"No {locale} checks on this dataset yet. They run offline in seconds "
                f"(or: `python -m core checks --dataset {dataset} --locale {locale}`).", icon=":material/info:")
        if st.button("Run the checks", key="chk_run", type="primary"):
            with st.spinner("Checking every pair..."), store.outside_session():
                run_checks(store, dataset, locale)
            st.rerun()
        return
    options = [""] + list(llm_runs["run_id"])
    labels = {"": "none (deterministic only: degraded)"}
    labels.update({r.run_id: f"{r.model} · {r.n_ok} pairs · {r.run_id[-8:]}" for r in llm_runs.itertuples()})
    wanted = url_value("llm", "")
    pending = st.session_state.pop("chk_llm_next", None)  # a phase run just now (set before the widget exists)
    if pending in options:
        st.session_state["chk_llm"] = pending
    st.session_state.setdefault("chk_llm", wanted if wanted in options else "")
    if st.session_state["chk_llm"] not in options:
        st.session_state["chk_llm"] = ""
    llm_run = st.selectbox("LLM phase (adversarial judge)", options, key="chk_llm", format_func=labels.get,
                           help="Run one below, or `python -m core checks --dataset D --judge MODEL`.")
    set_url("llm", llm_run or None)
    draw_llm_phase(store, dataset, locale)
    cases, summary, verdicts, failing = _results(store, dataset, run_id, llm_run or None)
    degraded = int(cases["degraded"].sum())
    overall = summary.loc[summary["dimension"] == "overall"].iloc[0]
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Pairs checked", f"{len(cases):,}")
    c2.metric("Mean overall (1-5)", "-" if pd.isna(overall["mean_score"]) else f"{overall['mean_score']:.2f}")
    c3.metric("Not failed (PASS or PARTIAL)", f"{(cases['verdict'] != 'FAIL').mean():.1%}" if len(cases) else "-",
              help="Share of pairs whose verdict is PASS or PARTIAL: what LAIas Bench (Sec. 2.3) calls the "
                   "relaxed pass rate; the strict pass rate counts PASS only")
    c4.metric("Degraded", f"{degraded:,}", help="Pairs without an LLM-phase answer: PARTIAL at best (Sec. 4.4)")
    if degraded:
        st.caption("Without the LLM phase a result is degraded: its verdict is at most PARTIAL and its "
                   "confidence low or medium.")
    st.plotly_chart(dimension_figure(summary, degraded == len(cases)), key="chk_dims")
    st.caption("The five dimensions, scored 1-5 and weighted into the overall score: "
               + "; ".join(f"**{d}** {DIMENSION_NAMES[d]} ({WEIGHTS[d]}%)" for d in DIMENSIONS) + ".")
    left, right = st.columns([1, 2])
    with left:
        st.markdown("**Verdicts**")
        show_table(verdicts, hide_index=True, key="chk_verdicts_df")
        download_csv(verdicts, dataset, synthetic, f"checks-{locale}-verdicts", "chk_dl_verdicts")
    with right:
        st.markdown("**Failing checks by id**")
        if failing.empty:
            st.caption("No check failed on any pair.")
        else:
            show_table(failing, hide_index=True, key="chk_failing_df")
        download_csv(failing, dataset, synthetic, f"checks-{locale}-failing", "chk_dl_failing")
    st.markdown("**Per pair**")
    show_table(cases.drop(columns=["pair_id"]), hide_index=True, key="chk_cases_df")
    download_csv(cases, dataset, synthetic, f"checks-{locale}-pairs", "chk_dl_cases")
    ext = st.selectbox("A pair's failing checks", list(cases["ext_id"]), key="chk_pair")
    if ext is not None:
        pid = cases.loc[cases["ext_id"] == ext, "pair_id"].iloc[0]
        fails = _pair_failures(store, run_id, pid)
        if fails.empty:
            st.caption(f"Pair {escape_md(ext)} passes every check.")
        else:
            show_table(fails, hide_index=True, key="chk_pair_df")


# The leaderboards' columns in words (LAIas Bench's strict / relaxed pass rates: PASS only / not FAIL).
BOARD_COLUMNS = {"strict_pass_rate": "PASS rate", "relaxed_pass_rate": "not failed (PASS or PARTIAL)",
                 "cost_usd": "cost (USD)", "latency_ms_mean": "mean latency (ms)",
                 "tau_oriented": "Kendall τ (oriented)", "ci_low": "95% CI low", "ci_high": "95% CI high",
                 "too_few": "too few pairs"}


def draw_board(store, dataset: str, synthetic: bool) -> None:
    board = url_value("board", "systems")
    st.session_state.setdefault("chk_board", board if board in BOARDS else "systems")
    board = st.radio("Leaderboard", list(BOARDS), key="chk_board", format_func=BOARDS.get, horizontal=True)
    set_url("board", board)
    table = _board(store, dataset, board)
    if table.empty:
        st.info("Nothing to rank yet: run a judge (Run judges page, or the checks above)"
                + (" and import expert annotations." if board == "judges" else "."), icon=":material/info:")
        return
    st.caption("Ranks are given only within a group of runs with the same comparable key (dataset version, "
               "split, prompt id and hash, judge model and params, locale); groups are never ranked together."
               + (f" Kendall tau with {N_BOOT} bootstrap resamples (seed 0)." if board == "judges" else ""))
    show = (["rank", "system", "n", "score", "strict_pass_rate", "relaxed_pass_rate", "cost_usd", "latency_ms_mean"]
            if board == "systems" else ["rank", "judge", "metric", "n", "tau_oriented", "ci_low", "ci_high", "p",
                                        "too_few"])
    for number, (group, part) in enumerate(table.groupby("group", sort=False), start=1):
        first = part.iloc[0]
        if board == "systems":
            loc = first["locale"] if isinstance(first["locale"], str) else "-"
            title = f"{first['judge']} · {first['metric']} · locale {loc}"
        else:
            title = f"against the experts' {str(first['target']).replace('_', ' ')} · {int(first['n'])} pairs"
        # numbered, not by the group's internal hash: rows of one table share their pairs and target
        st.markdown(f"**Leaderboard {number}**: {escape_md(title)} · split {escape_md(first['split'])}")
        show_table(part[show].rename(columns=BOARD_COLUMNS), hide_index=True, key=f"chk_board_{group}")
    download_csv(table, dataset, synthetic, f"leaderboard-{board}", "chk_dl_board")


def main() -> None:
    store, dataset, synthetic = page_start(
        "Checks & leaderboards",
        lead="Deterministic report checks with conservative scoring and leaderboards that never mix "
             "incomparable runs (LAIas Bench).",
        empty="Import a dataset (or build the demo) to check its candidate reports.")
    codes = locales()
    wanted = url_value("locale", "en-US")
    st.session_state.setdefault("chk_locale", wanted if wanted in codes else "en-US")
    locale = st.selectbox("Locale pack", codes, key="chk_locale")
    set_url("locale", locale)
    tab_checks, tab_board = st.tabs(["Checks", "Leaderboards"])
    with tab_checks:
        draw_checks(store, dataset, synthetic, locale)
    with tab_board:
        draw_board(store, dataset, synthetic)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
