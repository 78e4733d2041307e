"""The Data page's import wizard: upload -> preview -> map columns -> import.

Split in two so the import itself is testable without a browser: ui/import_plan.py holds the plain
part (``guess_mapping``, ``ImportRequest``, ``missing_inputs``, ``run_import``, re-exported here); this
module draws the widgets, builds an ``ImportRequest`` and hands it to ``run_import``. Settings are kept
when a file is uploaded again (ui/import_memory.py).
"""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from core.ingest import importers, presets
from core.store.db import Store, StoreError
from ui.import_memory import remember
from ui.import_plan import (
    ANNOTATION_MODES,
    FILE_TYPES,
    NEW_DATASET,
    NONE,
    ORIENTATIONS,
    PAIR_ROLES_CONTEXT,
    PAIR_ROLES_OPTIONAL,
    PAIR_ROLES_REQUIRED,
    PREFERENCE_ROLES_OPTIONAL,
    PREFERENCE_ROLES_REQUIRED,
    ROLE_HINTS,
    ROLE_LABELS,
    WHAT_LABELS,
    WIDE_CELLS,
    ImportRequest,
    dataset_name_from_file,
    guess_column,
    guess_mapping,
    missing_inputs,
    run_import,
    upload_size_problem,
)
from ui.import_radeval import draw_radeval_import
from ui.shared import escape_md, show_table, switch_dataset_next_run

__all__ = ["ROLE_HINTS", "ImportRequest", "draw_import_wizard", "guess_column", "guess_mapping", "missing_inputs",
           "run_import", "upload_size_problem"]


# -- the widgets ---------------------------------------------------------------


def _read_upload(uploaded) -> tuple[pd.DataFrame | None, list[str]]:
    """Parse the upload once per file (kept in this session, not re-read every rerun)."""
    cached = st.session_state.get("data_imp_parsed")
    if cached is not None and cached[0] == uploaded.file_id:
        return cached[1], cached[2]
    try:
        table, problems = importers.read_table(uploaded.getvalue(), name=uploaded.name), []
    except importers.ImportValidationError as exc:
        table, problems = None, exc.problems
    st.session_state["data_imp_parsed"] = (uploaded.file_id, table, problems)
    return table, problems


def _mode_choice(label: str, modes: dict[str, str], guess: str, key: str) -> str:
    """What a file holds (``modes``: value -> words), as a horizontal radio."""
    remember(key, guess, list(modes))
    return st.radio(label, list(modes), horizontal=True, key=key, format_func=modes.get)


def _column_picker(role: str, columns: list[str], guess: str | None, *, required: bool,
                   label: str | None = None) -> str | None:
    options = columns if required else [NONE, *columns]
    key = f"data_imp_col_{role}"
    remember(key, guess if guess in columns else None if required else NONE, options)
    choice = st.selectbox(label or ROLE_LABELS[role], options, key=key, placeholder="choose a column")
    return None if choice in (None, NONE) else choice


def _text(label: str, default: str, key: str, **kwargs) -> str:
    remember(key, default)
    return st.text_input(label, key=key, **kwargs)


def _number(label: str, default: float, key: str, **kwargs) -> float:
    remember(key, default)
    return st.number_input(label, step=0.5, key=key, **kwargs)


def _target_dataset(what: str, names: list[str], current: str | None, filename: str) -> str | None:
    if what in ("pairs", "preset"):
        choice = st.selectbox(
            "Dataset", [NEW_DATASET, *names], key=f"data_imp_target_{what}",
            help="A new dataset, or add pairs to an existing one (rows already there are skipped).",
        )
        if choice != NEW_DATASET:
            return choice
        return _text("New dataset name", dataset_name_from_file(filename), "data_imp_newname").strip()
    if not names:
        st.info("Import report pairs first: annotations and judge outputs attach to a dataset's pairs.")
        return None
    index = names.index(current) if current in names else 0
    return st.selectbox("Dataset", names, index=index, key=f"data_imp_target_{what}")


def _wide_grid(columns: list[str], mapping: dict) -> None:
    """The wide layout's mapping grid: for each category a-f, the column counting its significant errors
    and the one counting the others, prefilled from the column names (core/ingest/importers/wide.py)."""
    found = importers.detect_wide_columns(columns)
    st.caption("Which column counts each category's errors (a row per pair per rater; prefilled from the "
               "column names, e.g. a_significant / a_minor or sig_a / insig_a):")
    for key in WIDE_CELLS[:6]:
        left, right = st.columns(2)
        insig = "in" + key
        with left:
            mapping[key] = _column_picker(key, columns, found.get(key), required=True)
        with right:
            mapping[insig] = _column_picker(insig, columns, found.get(insig), required=True)


def _annotator(columns: list[str], guess: str | None, mapping: dict, options: dict, words: str) -> None:
    mapping["annotator"] = _column_picker("annotator", columns, guess, required=False)
    if mapping["annotator"] is None:
        options["annotator"] = _text(f"Annotator name (one {words} for the whole file)", "expert",
                                     "data_imp_annname")


def _scale(options: dict, prefix: str) -> None:
    c0, c1 = st.columns(2)
    options["scale_min"] = _number(
        "Score scale minimum", 0.0, f"data_imp_{prefix}scalemin",
        help="1 for a 1-5 Likert rating: scores are shown on the rater's own scale and normalised "
             "to 0-1 as (score - min) / (max - min) only where the analyses need it")
    options["scale_max"] = _number("Score scale maximum", 5.0, f"data_imp_{prefix}scalemax")


def _pairs_widgets(columns: list[str], mapping: dict, options: dict) -> None:
    guesses = guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL])
    counted = len(importers.detect_wide_columns(columns)) >= 6
    left, right = st.columns(2)
    with left:
        for role in PAIR_ROLES_REQUIRED:
            mapping[role] = _column_picker(role, columns, guesses[role], required=True)
        remember("data_imp_kind", "error_counts" if counted else "score", list(importers.DATASET_KINDS))
        options["kind"] = st.selectbox(
            "Dataset kind", list(importers.DATASET_KINDS), key="data_imp_kind",
            help="score: one overall rating per pair; error_counts: counts per error category (ReXVal).")
    with right:
        for role in PAIR_ROLES_OPTIONAL:
            mapping[role] = _column_picker(role, columns, guesses[role], required=False)
    with st.expander("Expert error counts in the same file (optional)", expanded=counted):
        remember("data_imp_counts_in_file", counted)
        options["counts_in_file"] = st.checkbox(
            "The file holds error counts in columns, a row per pair per rater", key="data_imp_counts_in_file",
            help="Pairs and counts are imported in one transaction (dataset kind error_counts); a pair's rows "
                 "after its first must repeat its reports")
        if options["counts_in_file"]:
            if options["kind"] != "error_counts":
                st.caption("The dataset is created with kind error_counts: the file holds error counts.")
            _annotator(columns, guess_mapping(columns, ["id", "annotator"])["annotator"], mapping, options, "rater")
            _wide_grid(columns, mapping)
    guess = None if options["counts_in_file"] else \
        guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL, "score"])["score"]
    if not options["counts_in_file"]:
        with st.expander("Expert scores in the same file (optional)", expanded=guess is not None):
            mapping["score"] = _column_picker("score", columns, guess, required=False)
            if mapping["score"]:
                _scale(options, "p")
                options["annotator"] = _text("Whose scores (annotator name)", "expert", "data_imp_pann")
                st.caption("Imported with the pairs as one overall score per pair (dataset kind: score).")
    context_guess = guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL, "score", *PAIR_ROLES_CONTEXT])
    with st.expander("Patient context (optional)", expanded=any(context_guess[r] for r in PAIR_ROLES_CONTEXT)):
        st.caption("Free text per pair, shown beside it (Data, Annotate, the report) and read by "
                   "context-aware prompts; the rules, lexical and length judges ignore it.")
        for col, role in zip(st.columns(len(PAIR_ROLES_CONTEXT)), PAIR_ROLES_CONTEXT, strict=True):
            with col:
                mapping[role] = _column_picker(role, columns, context_guess[role], required=False)


def _annotation_widgets(columns: list[str], mapping: dict, options: dict) -> None:
    guesses = guess_mapping(columns, ["id", "category", "significant", "count", "score", "annotator"])
    likely = ("wide" if len(importers.detect_wide_columns(columns)) >= 6 else
              "counts" if guesses["category"] and guesses["count"] else "errors" if guesses["category"] else "score")
    mode = options["mode"] = _mode_choice("Annotations hold", ANNOTATION_MODES, likely, "data_imp_annmode")
    left, right = st.columns(2)
    with left:
        mapping["id"] = _column_picker("id", columns, guesses["id"], required=True)
        if mode in ("counts", "errors"):
            for role in ("category", "significant", "count") if mode == "counts" else ("category", "significant"):
                mapping[role] = _column_picker(role, columns, guesses[role], required=True)
            if mode == "errors":
                st.caption("Each row is one error and is counted. A row with an empty category (and empty "
                           "significance) marks a pair the rater annotated with no errors: it counts 0 in "
                           "every category, not missing.")
            rule = importers.SignificanceRule()
            options["significant_levels"] = _text(
                "Significance levels that count as clinically significant", ", ".join(rule.significant),
                "data_imp_siglev", help="Besides true/false, yes/no and 1/0. Default rule: " + rule.describe())
            options["insignificant_levels"] = _text(
                "Levels that do not", ", ".join(rule.insignificant), "data_imp_insiglev",
                help="Any other level in the file is refused with its row.")
        elif mode == "score":
            mapping["score"] = _column_picker("score", columns, guesses["score"], required=True)
            _scale(options, "")
    with right:
        _annotator(columns, guesses["annotator"], mapping, options, "annotator")
    if mode == "wide":
        _wide_grid(columns, mapping)


def _mapping_widgets(what: str, columns: list[str]) -> tuple[dict, dict]:
    """Column pickers and options for one kind of import -> (mapping, options)."""
    mapping: dict[str, str | None] = {}
    options: dict = {}
    if what == "pairs":
        _pairs_widgets(columns, mapping, options)
    elif what == "annotations":
        _annotation_widgets(columns, mapping, options)
    elif what == "preferences":
        guesses = guess_mapping(columns, [*PREFERENCE_ROLES_REQUIRED, *PREFERENCE_ROLES_OPTIONAL])
        left, right = st.columns(2)
        with left:
            for role in PREFERENCE_ROLES_REQUIRED:
                mapping[role] = _column_picker(role, columns, guesses[role], required=True)
        with right:
            for role in PREFERENCE_ROLES_OPTIONAL[:2]:
                mapping[role] = _column_picker(role, columns, guesses[role], required=False)
            _annotator(columns, guesses["annotator"], mapping, options, "rater")
        st.caption("One row per comparison of two candidates of one case (their pair ids); with an annotator "
                   "column, one row per rater per comparison, each rater's row its own comparison.")
    elif what == "outputs":
        guesses = guess_mapping(columns, ["id", "text", "score"])
        mode = options["mode"] = _mode_choice(
            "Outputs hold", {"text": "judge text (GREEN format, parsed)", "score": "one numeric score"},
            "text" if guesses["text"] else "score", "data_imp_outmode")
        left, right = st.columns(2)
        with left:
            mapping["id"] = _column_picker("id", columns, guesses["id"], required=True)
            role = "text" if mode == "text" else "score"
            mapping[role] = _column_picker(role, columns, guesses[role], required=True)
        with right:
            options["judge"] = _text("Judge name", "", "data_imp_judge", placeholder="e.g. gpt-4o-green")
            if mode == "score":
                options["metric"] = _text("Metric name (defaults to the judge name)", "", "data_imp_metric",
                                          placeholder="e.g. green")
                remember("data_imp_orient", next(iter(ORIENTATIONS)), list(ORIENTATIONS))
                options["orientation"] = st.selectbox(
                    "Better reports score", list(ORIENTATIONS), key="data_imp_orient",
                    help="recorded with the run: every correlation checks its sign against it. Not stated: "
                         "assumed higher, and the tables say it was assumed (built-in metrics keep their own).")
    return mapping, options


def _show_outcome(outcome_key: str) -> None:
    outcome = st.session_state.get("data_imp_outcome")
    if not outcome or outcome["token"] != outcome_key:
        return
    if outcome["ok"]:
        r = outcome["report"]
        st.success(
            f"Imported {r['rows']:,} rows into dataset **{escape_md(r['dataset'])}**: "
            f"{r['added']:,} added, {r['skipped']:,} skipped (already stored)."
        )
        for warning in r.get("warnings") or []:
            st.warning(escape_md(warning))
    else:
        problems = outcome["problems"]
        st.error(
            f"Nothing was imported: {len(problems)} problem(s) found. "
            "Fix the file or the column mapping and import again."
        )
        # st.code: shows every problem verbatim (cell values may hold Markdown or HTML).
        st.code("\n".join(problems), language=None, wrap_lines=True)


def draw_import_wizard(store: Store, dataset_names: list[str], current: str | None) -> None:
    """The whole wizard; on success it reruns the app so every table shows the new rows."""
    what = st.radio(
        "What to import", list(WHAT_LABELS), format_func=WHAT_LABELS.get, key="data_imp_what",
        horizontal=True,
    )
    if what == "outputs":  # RadEval's per-sample JSON and its ids have their own uploaders (ui/import_radeval.py)
        draw_radeval_import(store, dataset_names, current)
    preset = None
    if what == "preset":
        preset = st.selectbox("Preset", list(presets.PRESETS), key="data_imp_preset")
        if preset:
            st.caption(escape_md(presets.PRESETS[preset].description))

    limit_mb = st.get_option("server.maxUploadSize")
    uploaded = st.file_uploader(
        "File (CSV, TSV, JSONL or Parquet)", type=FILE_TYPES, key="data_imp_file",
        help="Text files must be UTF-8. Every column is read as text; ids such as 007 stay as written.",
    )
    st.caption(
        f"Upload limit: {limit_mb} MB per file (server.maxUploadSize in .streamlit/config.toml). "
        "Larger files: use `python -m core import-pairs FILE ...`."
    )
    if uploaded is None:
        st.session_state.pop("data_imp_parsed", None)  # don't keep a removed file's rows around
        return
    too_big = upload_size_problem(uploaded.size, limit_mb)
    if too_big:
        st.error(too_big)
        return
    table, read_problems = _read_upload(uploaded)
    # Outcomes are per uploaded file (no stale message); settings are not (ui/import_memory.py).
    token = uploaded.file_id.replace("-", "")[:12]
    outcome_key = f"{token}:{what}"
    if table is None:
        st.error("This file cannot be read:")
        st.code("\n".join(read_problems), language=None, wrap_lines=True)
        return

    st.caption(f"Preview: first {min(len(table), 10)} of {len(table):,} rows, {len(table.columns)} columns")
    show_table(table.head(10), hide_index=True, key="data_imp_preview")

    columns = [str(c) for c in table.columns]
    if what == "preset":
        mapping, options = {}, {"preset": preset}  # a preset knows its own columns
    else:
        mapping, options = _mapping_widgets(what, columns)
    dataset = _target_dataset(what, dataset_names, current, uploaded.name)
    request = ImportRequest(what=what, dataset=dataset or "", mapping=mapping, options=options,
                            filename=uploaded.name)
    missing = missing_inputs(request)
    if missing:
        st.caption("Still to choose: " + escape_md("; ".join(missing)))
    if st.button("Validate and import", type="primary", key="data_imp_go", disabled=bool(missing)):
        bar = st.progress(0.0, text="Starting")

        def progress(done: int, total: int, stage: str) -> None:
            bar.progress(min(1.0, done / total) if total else 1.0, text=f"{stage} ({done}/{total})")

        outcome: dict = {"token": outcome_key, "ok": False}
        try:
            report = run_import(store, request, table, progress=progress)
        except importers.ImportValidationError as exc:
            bar.empty()  # not left at "validating (1/3)": the outcome below says what happened
            st.session_state["data_imp_outcome"] = {**outcome, "problems": exc.problems}
        except StoreError as exc:  # e.g. the store stayed locked by a CLI job
            bar.empty()
            st.session_state["data_imp_outcome"] = {**outcome, "problems": [str(exc)]}
        else:
            outcome.update(ok=True, report=dataclasses.asdict(report))
            st.session_state["data_imp_outcome"] = outcome
            switch_dataset_next_run(report.dataset)
            # The sidebar and tables above were drawn from the old store version.
            st.rerun()
    _show_outcome(outcome_key)
