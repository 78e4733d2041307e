"""Live scoring: judge one reference/candidate pair now, without storing anything.

Paste two reports (or pick a pair of the selected dataset): the rules judge
answers at once; configured models answer on a button, side by side. Pasted
text is written to the store only when the user clicks "Save as pair".

The patient context fields (age, sex, indication, comparison/history; a picked pair's stored context
fills them) go, non-empty ones only, to the model call as ``context=``: context-aware prompts
(``core.prompts.CONTEXT_PROMPTS``) read them, and the rules judge, for how much each finding matters
(``core.judges.rules.significance``); the lexical and length judges ignore them.

URL: ``dataset`` (app.py), ``live_src`` (paste | pair), ``pair`` (the picked pair).
"""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from core.analysis.naming import display_name
from core.analysis.scores import METRICS
from core.ingest.importers import PairColumns, import_pairs
from core.judges.language import languages_of
from core.judges.live import (
    LIVE_PROMPTS,
    MEANINGS,
    METRIC_ORDER,
    RULES_ORDER,
    LiveCallFailed,
    highlight_html,
    metric_order,
    score_live,
    score_rules_live,
)
from core.judges.llm import EndpointRefused, GenParams
from core.judges.messages import default_max_tokens
from core.models import configured_models, secret_api_key
from core.prompts import CONTEXT_PROMPTS
from core.reads.context import CONTEXT_LABELS, context_dict
from core.reads.queries import CATEGORY_NAMES
from core.settings import local_only
from core.store.export import to_safe_csv
from core.taxonomy import CONTEXT_FIELDS
from ui.errors import show_error
from ui.shared import (
    MISSING,
    escape_md,
    load_pair,
    load_pairs,
    page_start,
    set_url,
    show_reports,
    show_table,
    streamlit_secrets,
    url_value,
)

SOURCES = {"paste": "Paste text", "pair": "Pair from the dataset"}
RESULTS_KEY = "live_model_results"  # {(text digest, model, prompt, params): result dict}
SAVED_KEY = "live_saved"  # message after "Save as pair"
PAIR_CHOICES = 200


def _formulas(order: tuple[str, ...]) -> str:
    """The meaning column's tooltip: the formulas behind the words of the scores shown."""
    head = ("Formulas (M matched findings, S significant errors, I insignificant errors): " if order in (METRIC_ORDER, RULES_ORDER)
            else "Formulas: ")
    return head + "; ".join(f"{METRICS[m].label}: {METRICS[m].description}" for m in order)


LANGUAGES = f"{languages_of('rules')}; models: any language (not checked)"


def _digest(reference: str, candidate: str, context: dict[str, str] | None = None) -> str:
    extra = "" if not context else "\x00" + "\x00".join(f"{k}={v}" for k, v in context.items())
    return hashlib.sha256(f"{reference}\x00{candidate}{extra}".encode()).hexdigest()[:16]


# -- input -------------------------------------------------------------------------


def _pasted() -> tuple[str, str]:
    left, right = st.columns(2)
    with left:
        reference = st.text_area("Reference report", key="live_reference", height=220,
                                 placeholder="the expert's report")
    with right:
        candidate = st.text_area("Candidate report", key="live_candidate", height=220,
                                 placeholder="the generated report to judge")
    return reference, candidate


def _picked(store, dataset: str | None) -> tuple[str, str, dict | None]:
    if dataset is None:
        st.info("No dataset yet: paste two reports instead, or import a dataset on the Data page.")
        return "", "", None
    search = st.text_input("Find a pair", key="live_q", placeholder="text in the reports or a pair id")
    frame, total = load_pairs(store, dataset, {}, search.strip(), limit=PAIR_CHOICES, offset=0)
    if frame.empty:
        st.caption("No pair matches this search.")
        return "", "", None
    ids = frame["pair_id"].tolist()
    labels = dict(zip(frame["pair_id"], frame["ext_id"], strict=True))
    if st.session_state.get("live_pair") not in ids:
        wanted = url_value("pair")
        st.session_state["live_pair"] = wanted if wanted in ids else ids[0]
    pair_id = st.selectbox(f"Pair ({min(total, PAIR_CHOICES):,} of {total:,} shown)", ids, key="live_pair",
                           format_func=lambda p: str(labels.get(p, p)))
    set_url("pair", pair_id)
    pair = load_pair(store, pair_id)
    if pair is None:
        return "", "", None
    return pair["reference"], pair["candidate"], pair


def _context_note(prompts=CONTEXT_PROMPTS) -> str:
    """Which judges read the patient context, in words."""
    readers = (f"only the context-aware prompts ({', '.join(sorted(prompts))}) read it"
               if prompts else "no prompt offered here reads it yet (only context-aware prompts will)")
    return (f"Optional. {readers}; the rules judge reads it for how much each finding matters (an aortic "
            "calcification at 82 is expected, at 25 with chest pain it is not); the lexical and length judges "
            "ignore it.")


def _context_inputs(pair: dict | None) -> dict[str, str]:
    """The four context fields (a picked pair's stored context fills them, editable); returns the filled ones."""
    stored = (pair or {}).get("context") or {}
    suffix = f"_{pair['pair_id']}" if pair else ""  # a picked pair's fields start from its stored values
    with st.expander("Patient context", expanded=bool(stored) or any(
            st.session_state.get(f"live_ctx_{f}{suffix}") for f in CONTEXT_FIELDS)):
        st.caption(_context_note())
        values = {}
        for col, field in zip(st.columns(len(CONTEXT_FIELDS)), CONTEXT_FIELDS, strict=True):
            key = f"live_ctx_{field}{suffix}"
            if key not in st.session_state:
                st.session_state[key] = stored.get(field, "")
            values[field] = col.text_input(CONTEXT_LABELS[field], key=key, max_chars=2000,
                                           placeholder={"age": "e.g. 82", "sex": "e.g. F"}.get(field, ""))
    return context_dict(values)


# -- drawing one judge's answer ------------------------------------------------------


def _counts_table(parsed) -> pd.DataFrame:
    """Error counts per category as words: every cell a count or MISSING (this judge gave none)."""
    def cell(value) -> str:
        return MISSING if value is None or pd.isna(value) else str(int(value))

    return pd.DataFrame({
        "error category": [f"({c}) {name}" for c, name in CATEGORY_NAMES.items()],
        "significant": [cell(parsed.sig.get(c)) for c in CATEGORY_NAMES],
        "insignificant": [cell(parsed.insig.get(c)) for c in CATEGORY_NAMES],
    })


def _fmt(value) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return MISSING
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def draw_answer(key: str, title: str, parsed, raw: str, latency_ms: float, cost: float | None,
                errors: list[dict] | None = None, matched: list[str] | None = None,
                order: tuple[str, ...] = METRIC_ORDER, judge: str | None = None) -> None:
    """Scores (``order``: the prompt's, core.judges.live.metric_order; named by core.analysis.naming for
    ``judge``), error counts by category, error texts, matched findings and the raw answer."""
    st.markdown(f"**{escape_md(title)}**")
    status = "parsed" if parsed.status == "ok" else f"parse: {parsed.status}"
    cost_text = "cost unknown" if cost is None else f"${cost:.4f}"
    st.caption(f"{status} · {latency_ms:,.0f} ms · {cost_text}")
    metrics = pd.DataFrame({"score": [display_name(judge, m) if judge else METRICS[m].label for m in order],
                            "value": [_fmt(parsed.metrics.get(m)) for m in order],
                            "meaning": [MEANINGS[m] for m in order]})
    show_table(metrics, hide_index=True, key=f"live_metrics_{key}",
               column_config={"meaning": st.column_config.TextColumn(width="large", help=_formulas(order))})
    st.caption(f"Errors per category, clinically significant or not ({MISSING}: this judge gave no count)")
    # A static table: it wraps the category names instead of scrolling sideways in a half-width column.
    st.table(_counts_table(parsed).set_index("error category"))
    if errors is None:
        errors = [{"category": e.category, "significant": e.significant, "text": e.text} for e in parsed.errors]
    if errors:
        table = pd.DataFrame(errors)
        show_table(table, hide_index=True, key=f"live_errors_{key}")
        st.download_button("Errors (CSV)", to_safe_csv(table), file_name=f"live-errors-{key}.csv",
                           mime="text/csv", key=f"live_errors_csv_{key}")
    matched = parsed.matched_findings if matched is None else matched
    st.caption(f"Matched findings: {parsed.matched if parsed.matched is not None else MISSING}")
    if matched:
        show_table(pd.DataFrame({"matched finding": matched}), hide_index=True, key=f"live_matched_{key}")
    if parsed.reason and parsed.status != "ok":
        st.caption(f"Parser note: {escape_md(parsed.reason)}")
    with st.expander("Raw output"):
        st.code(raw, language=None, wrap_lines=True)


def draw_refusal(title: str, failure: str) -> None:
    """A judge that did not score the pair: the reason, as a run records it."""
    st.markdown(f"**{escape_md(title)}**")
    st.error(f"Not scored: {escape_md(failure)}", icon=":material/block:")
    st.caption(f"A run records this pair as a failure with the same reason. Languages: {escape_md(LANGUAGES)}.")


def draw_highlights(reference: str, candidate: str, rules) -> None:
    """Both reports with the phrases each rules error is about marked (escaped before marking)."""
    st.markdown("#### Reports, with the phrases the rules judge's errors are about")
    st.caption("Hover a highlight for its error category; (a) and (e) are in the candidate, (b) and (f) in "
               "the reference, (c) and (d) in both.")
    left, right = st.columns(2)
    with left, st.container(border=True):
        st.markdown("**Reference**")
        # highlight_html escapes the whole text first: the only HTML is its own <mark>/<br>/<div>.
        st.markdown(highlight_html(reference, rules.reference_marks), unsafe_allow_html=True)
    with right, st.container(border=True):
        st.markdown("**Candidate**")
        st.markdown(highlight_html(candidate, rules.candidate_marks), unsafe_allow_html=True)


# -- models ---------------------------------------------------------------------------


def draw_model_controls(reference: str, candidate: str, context: dict[str, str] | None = None) -> list[str]:
    """Model picker and the button; returns the result keys to show (a changed context is a new answer for a
    context-aware prompt)."""
    secrets = streamlit_secrets()
    models = configured_models(secrets=secrets)
    restricted = local_only(secrets=secrets)
    if restricted:
        st.badge("local only", icon=":material/lock:", color="green")
        st.caption("RADCONCORD_LOCAL_ONLY is on: only loopback/private endpoints receive report text.")
    if not models:
        st.info("No model is configured, so only the rules judge answers. Set `RADCONCORD_MODELS` (comma-"
                "separated litellm names) and, for a local OpenAI-compatible server, `RADCONCORD_API_BASE`, "
                "in the environment or in `.streamlit/secrets.toml` (see `.streamlit/secrets.toml.example`).",
                icon=":material/key:")
        return []
    by_name = {m.name: m for m in models}
    st.session_state.setdefault("live_models", [m.name for m in models if m.usable])
    st.session_state["live_models"] = [n for n in st.session_state["live_models"] if n in by_name]
    cols = st.columns([3, 2, 1, 1])
    chosen = cols[0].multiselect("Models", list(by_name), key="live_models")
    prompt_id = cols[1].selectbox("Prompt", LIVE_PROMPTS, key="live_prompt")
    temperature = cols[2].number_input("Temperature", 0.0, 2.0, 0.0, 0.1, key="live_temperature")
    budget = default_max_tokens(prompt_id)  # 8,192 for CRIMSON's long JSON answers; one field per default
    max_tokens = cols[3].number_input("Max tokens", 64, 32768, budget, 64, key=f"live_max_tokens_{budget}",
                                      help="Output tokens per answer: an answer cut off is incomplete (a CRIMSON one is not scored)")
    params = GenParams(temperature=float(temperature), max_tokens=int(max_tokens))
    for name in chosen:
        m = by_name[name]
        if m.needs_key and not m.key_present:
            st.warning(f"{escape_md(name)}: no {escape_md(m.provider)} key in the environment or secrets.")
    if context and prompt_id not in CONTEXT_PROMPTS:
        st.caption(f"The {escape_md(prompt_id)} prompt does not read the patient context: its answer is the same "
                   "without it.")
    text_key = _digest(reference, candidate, context if prompt_id in CONTEXT_PROMPTS else None)
    keys = [(text_key, name, prompt_id, repr(params)) for name in chosen]
    results = st.session_state.setdefault(RESULTS_KEY, {})
    ready = bool(reference.strip() and candidate.strip())
    if st.button("Score with the models", key="live_score", type="primary", disabled=not (ready and chosen)):
        for key, name in zip(keys, chosen, strict=True):
            m = by_name[name]
            with st.spinner(f"{name} ..."):
                try:
                    raw, parsed, latency, cost = score_live(
                        reference, candidate, name, prompt_id, m.api_base, secret_api_key(m, secrets), params,
                        local_only=restricted, context=context or None)
                    results[key] = {"raw": raw, "parsed": parsed, "latency": latency, "cost": cost}
                except (EndpointRefused, LiveCallFailed, ValueError) as exc:
                    results[key] = {"error": str(exc)}
    return [k for k in keys if k in results]


# -- the page ------------------------------------------------------------------------

def main() -> None:
    store, dataset, _ = page_start("Live scoring",
                                   lead="Judge one pair now. Nothing is stored unless you click **Save as pair**.")

    if "live_src" not in st.session_state:
        src = url_value("live_src", "paste")
        st.session_state["live_src"] = src if src in SOURCES else "paste"
    source = st.radio("Reports", list(SOURCES), key="live_src", format_func=SOURCES.get, horizontal=True)
    set_url("live_src", source if source != "paste" else None)
    pair = None
    if source == "paste":
        set_url("pair", None)
        reference, candidate = _pasted()
    else:
        reference, candidate, pair = _picked(store, dataset)
        if pair is not None:
            if pair["synthetic"]:
                st.badge("synthetic pair", icon=":material/science:", color="orange")
            show_reports(reference, candidate)
    context = _context_inputs(pair)

    if not (reference.strip() and candidate.strip()):
        st.info("Paste a reference and a candidate report (or pick a pair) to see the judges' answers.")
        st.stop()

    rules = score_rules_live(reference, candidate, context=context or None)  # sets the findings' significance
    st.divider()
    st.caption(f"Languages: {escape_md(LANGUAGES)}.")
    model_keys = draw_model_controls(reference, candidate, context)
    answers = st.columns(1 + len(model_keys))
    with answers[0]:
        if rules.failure:
            draw_refusal("rules judge", rules.failure)
        else:
            draw_answer("rules", "rules judge", rules.parsed, rules.raw_text, rules.latency_ms, 0.0,
                        rules.errors, rules.matched_findings, order=RULES_ORDER, judge="rules")
    for i, key in enumerate(model_keys, start=1):
        res = st.session_state[RESULTS_KEY][key]
        with answers[i]:
            if "error" in res:
                st.markdown(f"**{escape_md(key[1])}**")
                show_error("", res["error"])
            else:
                draw_answer(f"m{i}", f"{key[1]} · {key[2]}", res["parsed"], res["raw"], res["latency"], res["cost"],
                            order=metric_order(key[2]), judge=key[1])

    if not rules.failure:
        st.divider()
        draw_highlights(reference, candidate, rules)

    if source == "paste":
        st.divider()
        st.markdown("#### Save as pair")
        message = st.session_state.pop(SAVED_KEY, None)
        if message:
            st.success(message)
        name_col, id_col = st.columns(2)
        target = name_col.text_input("Dataset", value="live", key="live_save_dataset")
        given = id_col.text_input("Pair id", key="live_save_id", placeholder="blank: derived from the text")
        ext_id = given.strip() or f"live-{_digest(reference, candidate)[:10]}"
        if st.button("Save as pair", key="live_save"):
            row = pd.DataFrame({"id": [ext_id], "reference": [reference], "candidate": [candidate],
                                **{f: [v] for f, v in context.items()}})
            try:
                report = import_pairs(store, row, dataset=target,
                                      columns=PairColumns(id="id", reference="reference", candidate="candidate",
                                                          context={f: f for f in context}),
                                      source="live scoring")
            except ValueError as exc:  # ImportValidationError and friends: the message says why
                st.error(f"Not saved: {escape_md(exc)}")
            else:
                state = "saved" if report.added else "already in the store"
                st.session_state[SAVED_KEY] = f"Pair {escape_md(ext_id)} {state} in dataset {escape_md(target.strip())}."
                st.rerun()


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
