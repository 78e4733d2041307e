"""Run judges: choose pairs and judges x prompts x generation params, see the cost, run.

Before a run the page shows how many calls it means, how many the store
already answers (cache hits) and the estimated cost (unknown prices shown as
unknown). Start records a job in the store and runs it in a worker process of
its own (core.jobs): a refresh, a closed tab or a server restart does not stop
it, and the job panel (ui/jobs.py) polls its progress from the store every
second, with Cancel, and Resume for a job whose process died or some of whose tasks did not
run (interrupted, partial, failed: the newest finished one beside its results). A re-run of the
same judge resumes its run: answered pairs are skipped and only recorded
failures are sent again ("Retry failed").

URL: ``dataset`` (app.py), ``modality`` / ``anatomy`` / ``system`` / ``split`` / ``group``
(repeatable), ``q`` (id search), ``pick`` (all | sample | rows), ``n``,
``seed``, ``judge`` and ``prompt`` (repeatable), ``mode`` (``batch``: the provider's batch API).
"""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from core.jobs.spec import JobSpec, Task
from core.jobs.table import ACTIVE
from core.judges import OFFLINE_JUDGES
from core.judges.batch import batch_problem
from core.judges.callsettings import CallSettings
from core.judges.language import languages_of
from core.judges.llm import REASONING_EFFORTS, GenParams, ModelNotUsable, check_model
from core.judges.localserver import (
    CLOUD_CONCURRENCY,
    CLOUD_TIMEOUT,
    LOCAL_CONCURRENCY,
    LOCAL_TIMEOUT,
    stop_defaults,
)
from core.judges.shots import FEWSHOT_PROMPTS, POOL_NEEDS, ShotSource, runs_with_assessments
from core.models import configured_models, plan_run
from core.prompts import ALLOWED_K, list_prompts
from core.reads.queries import FACETS
from core.reads.selection import filter_pairs, pair_index, pair_texts, sample_pairs, selection_label
from core.settings import local_only
from ui.jobs import job_panel, last_finished, live_jobs
from ui.run_results import draw_costs, draw_results, job_keys, start
from ui.shared import (
    cached,
    data_version,
    escape_md,
    load_datasets,
    load_facets,
    page_start,
    seed_facet_filters,
    set_url,
    show_table,
    streamlit_secrets,
    url_value,
    url_values,
)

PICK_MODES = {"all": "All matching pairs", "sample": "Random sample", "rows": "Tick rows"}
TEMPERATURES = (0.0, 0.2, 0.5, 0.7, 1.0)
NOT_SET = "not set"  # reasoning effort not sent at all
EFFORTS = (NOT_SET, *REASONING_EFFORTS)
TABLE_ROWS = 1000
FILTER_KEYS = {facet: f"run_{facet}" for facet in (*FACETS, "group")}
SEND_MODES = {"direct": "Direct (fast)", "batch": "Batch (cheaper, slower)"}


# -- cached loaders ---------------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def _model_problem(model: str, api_base: str | None) -> str:
    """Why litellm cannot route ``model`` (its own provider lookup), or "" when it can."""
    try:
        check_model(model, api_base)
    except ModelNotUsable as exc:
        return str(exc)
    return ""


@st.cache_data(max_entries=64, show_spinner=False)
def _batch_problem(model: str, api_base: str | None) -> str:
    """Why ``model`` cannot run through a batch API (core.judges.batch), or ""."""
    try:
        return batch_problem(model, api_base) or ""
    except ModelNotUsable as exc:
        return str(exc)


@cached
def _pair_index(store, dataset: str) -> pd.DataFrame:
    # core.reads.selection: the same pairs, in the same order, as `judge`'s selection flags
    return pair_index(store, dataset)


@cached
def _pair_texts(store, dataset: str) -> pd.DataFrame:
    """The first 160 characters of each pair's texts, so rows can be ticked by content."""
    return pair_texts(store, dataset)


# Hand-written, not ui.shared.cached: the pair ids (thousands) stay out of the key
# (``_pair_ids``), their digest stands in for them.
@st.cache_data(max_entries=64, show_spinner=False)
def _plan(_store, path: str, version: int, dataset: str, judge: str, prompt_id: str | None,
          params: tuple | None, ids_digest: str, _pair_ids: list[str], shots: tuple | None) -> dict:
    gen = GenParams(*params) if params else None
    source = ShotSource(*shots) if shots else None
    try:
        p = plan_run(_store, dataset, judge, _pair_ids, prompt_id or "green", gen, source)
    except ValueError as exc:  # e.g. a few-shot prompt whose shot pool is too small
        return {"calls": len(_pair_ids), "cached": None, "cost": None, "output": "", "error": str(exc)}
    return {"calls": p.n_calls, "cached": p.cached, "cost": p.cost_usd, "output": p.output_note, "error": ""}


# -- the pairs --------------------------------------------------------------------------


def _seed_state(dataset: str, facets: dict[str, list[str]]) -> None:
    """Widget state from the URL on a first visit; a new dataset starts from a clean view."""
    seed_facet_filters("run_view_dataset", dataset, facets, FILTER_KEYS)
    st.session_state.setdefault("run_q", url_value("q", ""))
    if "run_pick" not in st.session_state:
        pick = url_value("pick", "all")
        st.session_state["run_pick"] = pick if pick in PICK_MODES else "all"
    for key, name, default in (("run_n", "n", 20), ("run_seed", "seed", 0)):
        if key not in st.session_state:
            value = url_value(name, "")
            st.session_state[key] = int(value) if value.isdigit() else default


def _new_seed() -> None:
    st.session_state["run_seed"] = int(st.session_state.get("run_seed", 0)) + 1


def choose_pairs(store, dataset: str) -> tuple[list[str], str]:
    """Filters, then all / a seeded sample / ticked rows; returns (pair ids, how they were chosen).

    The selection itself is core.reads.selection's, as `judge --modality ... --sample N --seed S` makes it.
    """
    index = _pair_index(store, dataset)
    facets = {**load_facets(store, dataset), "group": sorted(index["group_id"].dropna().astype(str).unique())}
    _seed_state(dataset, facets)
    cols = st.columns(len(FILTER_KEYS) + 1)
    filters = {}
    for col, (facet, key) in zip(cols, FILTER_KEYS.items(), strict=False):
        filters[facet] = col.multiselect(facet.capitalize(), facets[facet], key=key, placeholder="all",
                                         disabled=not facets[facet])
    search = cols[-1].text_input("Pair id contains", key="run_q").strip()
    frame = filter_pairs(index, filters, search)
    for facet in FILTER_KEYS:
        set_url(facet, filters[facet])
    set_url("q", search)

    pick = st.radio("Pairs", list(PICK_MODES), key="run_pick", format_func=PICK_MODES.get, horizontal=True)
    set_url("pick", pick if pick != "all" else None)
    if frame.empty:
        st.caption("No pair matches these filters.")
        return [], "no pairs"
    if pick == "all":
        set_url("n", None)
        set_url("seed", None)
        return frame["pair_id"].tolist(), selection_label("all", len(frame), len(frame))
    if pick == "sample":
        a, b, c = st.columns([1, 1, 1], vertical_alignment="bottom")
        n = int(a.number_input("Sample size", min_value=1, step=1, key="run_n"))
        seed = int(b.number_input("Seed", min_value=0, step=1, key="run_seed"))
        c.button("New sample", key="run_reseed", on_click=_new_seed, icon=":material/casino:")
        set_url("n", str(n))
        set_url("seed", str(seed))
        taken = sample_pairs(frame, n, seed)
        text = selection_label("sample", len(taken), len(frame), seed)
        st.caption(text.capitalize() + ".")
        return taken["pair_id"].tolist(), text
    shown = frame.head(TABLE_ROWS)
    texts = _pair_texts(store, dataset).set_index("pair_id")
    shown = shown.assign(reference=shown["pair_id"].map(texts["reference"]),
                         candidate=shown["pair_id"].map(texts["candidate"]))
    view = hashlib.sha1(repr((dataset, sorted(filters.items()), search)).encode()).hexdigest()[:10]
    event = show_table(
        shown.rename(columns={"ext_id": "id", "group_id": "group"}), key=f"run_rows_{view}", on_select="rerun",
        selection_mode="multi-row", hide_index=True,
        column_order=["id", "candidate", "reference", "system", "modality", "anatomy", "split", "group", "identical"],
        column_config={"candidate": st.column_config.TextColumn("candidate (start)", width="large"),
                       "reference": st.column_config.TextColumn("reference (start)", width="medium")})
    more = f" (first {TABLE_ROWS:,} of {len(frame):,} shown: filter to narrow)" if len(frame) > TABLE_ROWS else ""
    rows = list(event.selection.rows)
    st.caption(f"{len(rows):,} ticked{more}.")
    if rows:  # the same pairs from the command line: judge --pairs FILE
        st.download_button("Ticked ids (TXT)", "\n".join(shown["ext_id"].iloc[rows].astype(str)) + "\n",
                           file_name="pairs.txt", mime="text/plain", key="run_ticked_ids",
                           help="one pair id a line: `python -m core judge ... --pairs pairs.txt` judges these pairs")
    return shown["pair_id"].iloc[rows].tolist(), selection_label("ticked", len(rows), len(frame))


# -- judges, prompts, params --------------------------------------------------------------


def draw_models(models, restricted: bool) -> None:
    if restricted:
        st.badge("local only", icon=":material/lock:", color="green")
        st.caption("RADCONCORD_LOCAL_ONLY is on: a model whose endpoint is not loopback or private is refused.")
    if not models:
        st.info(
            "**No model is configured**, so only the offline judges (rules, lexical, length) can run. To add models, set "
            "`RADCONCORD_MODELS` to comma-separated litellm names (e.g. `openai/gpt-4o-mini`), the provider's key "
            "(`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, ...) and, for a local OpenAI-compatible "
            "server (vLLM, Ollama, llama.cpp), `RADCONCORD_API_BASE` - in the environment or in "
            "`.streamlit/secrets.toml` (see `.streamlit/secrets.toml.example`), then reload.",
            icon=":material/key:")
        return
    table = pd.DataFrame([{
        "model": m.name, "provider": m.provider, "endpoint": m.api_base or "provider default",
        "local": m.local,
        "key": "present" if m.key_present else ("missing" if m.needs_key else "not needed"),
        "status": ("refused: not local" if restricted and not m.local
                   else "no key" if not m.usable else "ready"),
    } for m in models])
    with st.expander(f"Configured models ({len(models)})", expanded=False):
        show_table(table, hide_index=True, key="run_models_table")
        st.caption("Key values are never shown, stored or logged; only whether one is present.")


def _seed_list(key: str, name: str, options: list, default: list) -> None:
    if key not in st.session_state:
        wanted = [v for v in url_values(name) if v in options]
        st.session_state[key] = wanted or default
    st.session_state[key] = [v for v in st.session_state[key] if v in options]


def choose_tasks(models, datasets: list[str], dataset: str, store) -> tuple[list[Task], ShotSource | None, int]:
    """Judges x prompts x params; returns the tasks, the shot source and the concurrency."""
    judge_options = [*OFFLINE_JUDGES, *(m.name for m in models)]
    _seed_list("run_judges", "judge", judge_options, ["rules"])
    judges = st.multiselect("Judges", judge_options, key="run_judges",
                            help="rules, lexical and length need no network; models come from configuration. Languages: "
                                 + "; ".join(languages_of(j) for j in OFFLINE_JUDGES)
                                 + "; models: any language (not checked). A pair outside a judge's languages is "
                                   "recorded as a failure with its reason, never scored")
    set_url("judge", judges)
    model_names = [j for j in judges if j not in OFFLINE_JUDGES]
    if not model_names:
        return [Task(j) for j in judges], None, 8

    prompts = list_prompts()
    _seed_list("run_prompts", "prompt", prompts, ["green"])
    chosen = st.multiselect("Prompts", prompts, key="run_prompts",
                            help="VERT appendix D and GREEN; vert_* with shots are the few-shot variants")
    set_url("prompt", chosen)
    shots = None
    if any(p in FEWSHOT_PROMPTS for p in chosen):
        st.caption("Few-shot examples: drawn with a recorded seed, never from the evaluated pairs or their groups.")
        a, b, c, d = st.columns(4)
        shot_ds = a.selectbox("Shots from dataset", datasets, index=datasets.index(dataset), key="run_shot_dataset")
        splits = load_facets(store, shot_ds)["split"]
        split = b.selectbox("Split", ["(any)", *splits], key="run_shot_split")
        k = c.selectbox("k (vert_random)", list(ALLOWED_K), key="run_shot_k")
        seed = d.number_input("Shot seed", min_value=0, value=0, step=1, key="run_shot_seed")
        for p in chosen:
            if p in POOL_NEEDS:
                st.caption(f"**{p}** — {escape_md(POOL_NEEDS[p])}")
        run = None
        if "vert_rate_err_10" in chosen:
            runs = runs_with_assessments(store, shot_ds)
            if runs.empty:
                st.info(f"vert_rate_err_10 (D.9) shows a judge's own VERT answers as its shots, and "
                        f"'{escape_md(shot_ds)}' has no such run yet: run a model with the vert prompt on it first.")
            else:
                labels = {r.run_id: f"{r.model} · {r.prompt_id} · {r.n_ok} answers · {r.run_id[-8:]}"
                          for r in runs.itertuples()}
                run = st.selectbox("D.9 assessments from run", list(labels), format_func=labels.get,
                                   key="run_shot_run")
        shots = ShotSource(shot_ds, None if split == "(any)" else split, int(k), int(seed), run)

    a, b, c, d = st.columns(4)
    st.session_state.setdefault("run_temps", [0.0])
    temps = a.multiselect("Temperature", TEMPERATURES, key="run_temps")
    chosen_max = b.number_input("Max tokens", min_value=64, max_value=65536, value=None, step=64,
                                placeholder="each prompt's default", key="run_max_tokens",
                                help="Empty: each prompt's own output budget (8,192 for the CRIMSON prompts, whose "
                                     "answer lists every finding; 2,048 for the others), shown in the estimate")
    max_tokens = None if chosen_max is None else int(chosen_max)  # None: Task.params takes the prompt's default
    st.session_state.setdefault("run_efforts", [NOT_SET])
    efforts = c.multiselect("Reasoning effort", EFFORTS, key="run_efforts",
                            help="'not set' sends no reasoning_effort; providers that do not take it ignore it")
    local = all(m.local for m in models if m.name in model_names)  # a CPU server answers one call at a time
    concurrency = int(d.number_input("Concurrent calls", min_value=1, max_value=64,
                                     value=LOCAL_CONCURRENCY if local else CLOUD_CONCURRENCY, key="run_concurrency",
                                     help=f"{LOCAL_CONCURRENCY} by default for servers on this machine or a private "
                                          f"network (llama.cpp, Ollama, vLLM on a CPU), {CLOUD_CONCURRENCY} for "
                                          "hosted APIs"))
    tasks = [Task(j) for j in judges if j in OFFLINE_JUDGES]
    bases = {m.name: m.api_base for m in models}
    for model in model_names:
        for prompt in chosen:
            stop = stop_defaults(bases.get(model), prompt, None)  # a local server's, as `judge` sends
            for t in temps:
                for e in efforts:
                    tasks.append(Task(model, prompt, float(t), max_tokens, None if e == NOT_SET else e, stop))
    return tasks, shots, concurrency


def choose_send_mode(tasks: list[Task], by_name: dict) -> dict | None:
    """Direct calls, or the provider's batch API for the model runs: the batch options (None: direct)."""
    names = list(dict.fromkeys(t.judge for t in tasks if not t.offline))
    if not names:
        return None
    if "run_mode" not in st.session_state:
        st.session_state["run_mode"] = "batch" if url_value("mode", "") == "batch" else "direct"
    mode = st.radio("Sending", list(SEND_MODES), key="run_mode", format_func=SEND_MODES.get, horizontal=True,
                    help="Batch: the prompts go out as batch files (OpenAI-compatible /v1/files and /v1/batches) "
                         "at about half the price; answers come back within 24 h and the job polls for them. Its "
                         "batches are recorded with the job, so a Resume after a restart polls them again instead "
                         "of sending again")
    set_url("mode", mode if mode == "batch" else None)
    if mode != "batch":
        return None
    for name in names:
        m = by_name[name]
        problem = ("a batch goes to one endpoint, and this model has several replicas" if m.replicas
                   else _batch_problem(name, m.api_base))
        if problem:
            st.error(f"{escape_md(name)}: {escape_md(problem)}")
    st.caption("The estimate is at the direct price; batch answers are priced at litellm's batch price (the model's "
               "batch price where litellm has one, else half its price), and an unknown price stays unknown.")
    return {}


def draw_estimate(store, dataset: str, tasks: list[Task], pair_ids: list[str], shots) -> None:
    digest = hashlib.sha1("\n".join(sorted(pair_ids)).encode()).hexdigest()
    version = data_version()
    rows, costs = [], []
    for t in tasks:
        p = t.params()
        params = (p.temperature, p.max_tokens, p.reasoning_effort, p.stop) if p else None
        shot_key = (shots.dataset, shots.split, shots.k, shots.seed, shots.run) if shots and t.prompt_id in FEWSHOT_PROMPTS \
            else None
        plan = _plan(store, str(store.path), version, dataset, t.judge, t.prompt_id, params, digest, pair_ids,
                     shot_key)
        cost = plan["cost"]
        costs.append(cost)
        rows.append({**t.columns(), "calls": plan["calls"], "cached": plan["cached"],
                     "to send": None if plan["cached"] is None else plan["calls"] - plan["cached"],
                     "est. cost": "unknown" if cost is None else f"${cost:,.4f}",
                     "output tokens per call": plan["output"], "problem": plan["error"]})
    table = pd.DataFrame(rows).astype({"cached": "Int64", "to send": "Int64"})
    calls, cached = int(table["calls"].sum()), int(table["cached"].fillna(0).sum())
    known = [c for c in costs if c is not None]
    total_known = sum(known)
    n_unknown = len(costs) - len(known)
    if n_unknown == len(rows):
        cost_text = "unknown"
    elif n_unknown:
        cost_text = f"${total_known:,.4f} + unknown"
    else:
        cost_text = f"${total_known:,.4f}"
    a, b, c, d = st.columns([1, 1, 1, 2])  # the cost ("$0.1234 + unknown") needs the room
    a.metric("Calls", f"{calls:,}")
    b.metric("Cache hits", f"{cached:,}", help="answers already in the store: never sent again")
    c.metric("To send", f"{calls - cached:,}")
    d.metric("Estimated cost", cost_text,
             help="litellm's price table, ~4 characters a token in; out, per call, the median of the stored "
                  "answers of the same prompt (any model), else the prompt's assumed answer length (see the "
                  "table); unknown prices are shown as unknown, never guessed")
    show_table(table, hide_index=True, key="run_estimate")
    for r in rows:
        if r["problem"]:
            st.error(f"{escape_md(r['judge'])} · {escape_md(r['prompt'])}: {escape_md(r['problem'])}")


# -- the page ------------------------------------------------------------------------------

def main() -> None:
    store, dataset, _ = page_start(
        "Run judges", boxed=True,
        empty="No dataset yet: import one on the Data page (or `python -m core demo`), then come back to run judges.")

    datasets = load_datasets(store)
    secrets = streamlit_secrets()
    models = configured_models(secrets=secrets)
    restricted = local_only(secrets=secrets)
    draw_models(models, restricted)

    st.markdown("#### Pairs")
    pair_ids, selection = choose_pairs(store, dataset)
    st.markdown("#### Judges")
    tasks, shots, concurrency = choose_tasks(models, datasets["name"].tolist(), dataset, store)
    by_name = {m.name: m for m in models}
    for name in dict.fromkeys(t.judge for t in tasks if not t.offline):
        m = by_name[name]
        problem = _model_problem(name, m.api_base)
        if problem:
            st.error(f"{escape_md(name)}: {escape_md(problem)}")
        elif restricted and not m.local:
            st.error(f"local_only is on: {escape_md(name)} ({escape_md(m.api_base or 'provider default endpoint')}) "
                     "is not a loopback or private endpoint; its runs will be refused.")
        elif not m.usable:
            st.warning(f"{escape_md(name)}: no {escape_md(m.provider)} key in the environment or secrets.")

    batch = choose_send_mode(tasks, by_name)
    keys = job_keys(models, secrets)
    live = live_jobs(store, dataset)
    running = len(live) and live["state"].isin(ACTIVE).any()
    last = None if running else last_finished(store, dataset)  # shown below with its results and Resume
    live = live[live["job_id"] != last["job_id"]] if last is not None and len(live) else live
    st.markdown("#### Before starting")
    if not pair_ids or not tasks:
        st.caption("Choose at least one pair and one judge (with a prompt and a temperature for a model).")
    else:
        draw_estimate(store, dataset, tasks, pair_ids, shots)
        if st.button("Start run", key="run_start", type="primary", icon=":material/play_arrow:",
                     help="runs in a worker process of its own: a refresh or a closed tab does not stop it"):
            all_local = all(m.local for m in models if m.name in {t.judge for t in tasks})
            timeout = LOCAL_TIMEOUT if all_local else CLOUD_TIMEOUT
            spec = JobSpec(dataset, tasks, pair_ids, selection=selection, shots=shots,
                           call=CallSettings(concurrency=concurrency, local_only=restricted, batch=batch, timeout=timeout))
            start(store, spec, models, secrets)

    if len(live):
        st.markdown("#### Jobs")
        st.caption("Read from the store: the same after a refresh, in another tab or browser, and from "
                   "`python -m core jobs`.")
        job_panel(store, dataset, keys, last["job_id"] if last is not None else "")
    if not running:
        if last is not None:
            draw_results(store, last, models, secrets, restricted)
        draw_costs(store, dataset)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
