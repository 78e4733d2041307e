"""The Data page's import wizard: upload -> preview -> map columns -> import.

Split in two so the import itself is testable without a browser:

- ``guess_mapping`` and ``run_import`` take plain values (a DataFrame and a
  role -> column mapping) and call ``core.ingest.importers``; no widgets.
- ``draw_import_wizard`` draws the widgets, builds an ``ImportRequest`` and
  hands it to ``run_import``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

from core.ingest import importers
from core.ingest.comparisons import import_preferences
from core.store.db import Store, StoreError
from core.taxonomy import CONTEXT_FIELDS
from pages._import_radeval import draw_radeval_import
from pages._shared import escape_md, show_table, switch_dataset_next_run

# What the wizard can import -> label shown to the user.
WHAT_LABELS: dict[str, str] = {
    "pairs": "Report pairs (reference + candidate)",
    "annotations": "Expert annotations",
    "outputs": "Judge outputs",
    "preferences": "Pairwise preferences",
    "preset": "A known dataset format (preset)",
}
# What an annotation file holds -> words (the wizard's radio; run_import's options["mode"]).
ANNOTATION_MODES: dict[str, str] = {
    "score": "an overall score per pair",
    "counts": "error counts per category",
    "errors": "a list of errors (one row per error)",
}
FILE_TYPES = ["csv", "tsv", "jsonl", "ndjson", "parquet"]
NEW_DATASET = "(new dataset)"  # plain text: no emoji font is assumed
NONE = "(none)"

# Column names people use for each role, best first; matched after normalizing
# case and punctuation, first exactly, then as a whole word inside the name
# ("reference_text" -> reference).
ROLE_HINTS: dict[str, tuple[str, ...]] = {
    "id": ("id", "pair_id", "ext_id", "uid", "sample_id", "row_id", "case_id", "idx", "study_id"),
    "reference": ("reference", "ref", "reference_report", "ref_report", "ground_truth", "gt",
                  "gt_report", "target", "report"),
    "candidate": ("candidate", "cand", "candidate_report", "generated", "generated_report",
                  "prediction", "pred", "predicted", "hypothesis", "hyp", "model_report", "output"),
    "group": ("group_id", "group", "study_id", "study", "reference_id", "ref_id"),
    "system": ("system", "model", "generator", "system_name", "source_model"),
    "modality": ("modality",),
    "anatomy": ("anatomy", "body_part", "bodypart", "region", "organ"),
    "split": ("split", "fold", "subset", "partition"),
    "score": ("score", "rating", "expert_score", "overall_score", "overall", "value", "label"),
    "category": ("category", "error_category", "error_type", "cat", "type"),
    "significant": ("significant", "clinically_significant", "is_significant", "significance", "sig"),
    "count": ("count", "n_errors", "num_errors", "error_count", "errors", "n", "value"),
    "annotator": ("annotator", "rater", "radiologist", "reader", "expert", "annotator_id", "rater_id", "user"),
    "a": ("a", "candidate_a", "pair_a", "id_a", "report_a", "left", "first"),
    "b": ("b", "candidate_b", "pair_b", "id_b", "report_b", "right", "second"),
    "preferred": ("preferred", "preference", "winner", "better", "choice", "chosen"),
    "confidence": ("confidence", "certainty", "conf"),
    "comparison": ("comparison_id", "comparison", "pair_key", "task_id"),
    "text": ("text", "judge_output", "output", "response", "raw_text", "completion", "generation"),
    # patient context (issue 33)
    "age": ("age", "patient_age", "age_years", "age_at_exam"),
    "sex": ("sex", "gender", "patient_sex", "patient_gender"),
    "indication": ("indication", "clinical_indication", "indications", "reason_for_exam", "reason_for_study"),
    "history": ("history", "clinical_history", "comparison", "comparisons", "prior", "priors", "prior_studies"),
}
ROLE_LABELS: dict[str, str] = {
    "id": "ID column",
    "reference": "Reference report column",
    "candidate": "Candidate report column",
    "group": "Group / study column",
    "system": "System (generator) column",
    "modality": "Modality column",
    "anatomy": "Anatomy column",
    "split": "Split column",
    "score": "Score column",
    "category": "Error category column (a-f or 1-6)",
    "significant": "Clinically significant column (true/false)",
    "count": "Error count column",
    "annotator": "Annotator column",
    "text": "Judge output text column",
    "a": "Candidate A column (a pair id)",
    "b": "Candidate B column (a pair id)",
    "preferred": "Preferred column (a / b / the preferred id / empty or tie)",
    "confidence": "Confidence column (1-10)",
    "comparison": "Comparison id column",
    "age": "Patient age column",
    "sex": "Patient sex column",
    "indication": "Indication column",
    "history": "Comparison / history column",
}
PREFERENCE_ROLES_REQUIRED = ("a", "b", "preferred")
PREFERENCE_ROLES_OPTIONAL = ("confidence", "comparison", "annotator")
PAIR_ROLES_REQUIRED = ("id", "reference", "candidate")
PAIR_ROLES_OPTIONAL = ("group", "system", "modality", "anatomy", "split")
PAIR_ROLES_CONTEXT = CONTEXT_FIELDS  # patient context: optional, free text each


# -- pure part: guessing and importing ----------------------------------------------


def _normalize(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(name).lower()).strip("_")


def guess_column(columns: Sequence[str], role: str, taken: Iterable[str] = ()) -> str | None:
    """The column most likely to hold ``role``, or None; never one in ``taken``."""
    hints = ROLE_HINTS.get(role, (role,))
    free = [c for c in columns if c not in set(taken)]
    normal = {c: _normalize(c) for c in free}
    for hint in hints:
        for col in free:
            if normal[col] == hint:
                return col
    for hint in hints:
        if len(hint) < 3:  # "n", "gt", "id" inside longer names match too much
            continue
        for col in free:
            if hint in normal[col].split("_") or normal[col].startswith(hint + "_"):
                return col
    return None


def guess_mapping(columns: Sequence[str], roles: Sequence[str]) -> dict[str, str | None]:
    """Guess a column for every role in order; a column is used at most once."""
    mapping: dict[str, str | None] = {}
    for role in roles:
        mapping[role] = guess_column(columns, role, taken=[c for c in mapping.values() if c])
    return mapping


# The wizard's choice for an imported score's orientation -> import_outputs(higher_is_better=).
ORIENTATIONS = {"not stated": None, "higher": True, "lower (e.g. an error count)": False}


@dataclass
class ImportRequest:
    """Everything the wizard collected, as plain values.

    ``mapping`` is role -> column (None: not in the file). ``options`` holds
    the extra settings: ``kind`` (pairs), ``scale_max`` and ``annotator``
    (annotations), ``judge`` and ``metric`` (outputs), ``preset`` (preset).
    """

    what: str
    dataset: str
    mapping: dict[str, str | None] = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    filename: str | None = None


def missing_inputs(request: ImportRequest) -> list[str]:
    """What the user still has to choose before an import can be tried."""
    missing = []
    if not request.dataset:
        missing.append("a dataset name")
    m = request.mapping
    if request.what == "pairs":
        missing += [ROLE_LABELS[r].lower() for r in PAIR_ROLES_REQUIRED if not m.get(r)]
    elif request.what == "annotations":
        if not m.get("id"):
            missing.append("the id column")
        mode = request.options.get("mode")
        if mode in ("counts", "errors"):
            roles = ("category", "significant", "count") if mode == "counts" else ("category", "significant")
            missing += [ROLE_LABELS[r].lower() for r in roles if not m.get(r)]
        elif not m.get("score"):
            missing.append("the score column")
    elif request.what == "preferences":
        missing += [ROLE_LABELS[r].lower() for r in PREFERENCE_ROLES_REQUIRED if not m.get(r)]
    elif request.what == "outputs":
        if not m.get("id"):
            missing.append("the id column")
        if not (request.options.get("judge") or "").strip():
            missing.append("the judge's name")
        if request.options.get("mode") == "score":
            if not m.get("score"):
                missing.append("the score column")
        elif not m.get("text"):
            missing.append("the judge output text column")
    elif request.what == "preset" and not request.options.get("preset"):
        missing.append("a preset")
    chosen = [c for c in m.values() if c]
    dupes = sorted({c for c in chosen if chosen.count(c) > 1})
    if dupes:
        missing.append("a different column for each role (used twice: " + ", ".join(dupes) + ")")
    return missing


def run_import(
    store: Store,
    request: ImportRequest,
    table: pd.DataFrame,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> importers.ImportReport:
    """Import ``table`` (the file as read) as the request says.

    Raises ``ImportValidationError`` listing every problem; then nothing is written.
    """
    m, o = request.mapping, request.options
    if request.what == "pairs":
        columns = importers.PairColumns(
            id=m["id"], reference=m["reference"], candidate=m["candidate"],
            group=m.get("group"), system=m.get("system"), modality=m.get("modality"),
            anatomy=m.get("anatomy"), split=m.get("split"),
            context={f: m[f] for f in PAIR_ROLES_CONTEXT if m.get(f)},
        )
        if m.get("score"):  # an expert score in the same file: pairs and scores in one transaction
            return importers.import_scored_pairs(
                store, table, dataset=request.dataset, columns=columns, score_col=m["score"],
                scale_max=float(o.get("scale_max", 5.0)), scale_min=float(o.get("scale_min", 0.0)),
                annotator=o.get("annotator") or "expert", kind="score", source=request.filename, progress=progress,
            )
        return importers.import_pairs(
            store, table, dataset=request.dataset, columns=columns, kind=o.get("kind", "score"),
            source=request.filename, progress=progress,
        )
    if request.what == "annotations":
        mode = o.get("mode", "score")
        counted = mode in ("counts", "errors")
        levels = o.get("significant_levels"), o.get("insignificant_levels")
        rule = (importers.SignificanceRule.from_lists(*[(v or "").strip() or None for v in levels])
                if counted and any((v or "").strip() for v in levels) else None)
        return importers.import_annotations(
            store, table, dataset=request.dataset, id_col=m["id"],
            score_col=None if counted else m.get("score"),
            scale_max=float(o.get("scale_max", 5.0)), scale_min=float(o.get("scale_min", 0.0)),
            category_col=m.get("category") if counted else None,
            significant_col=m.get("significant") if counted else None,
            count_col=m.get("count") if mode == "counts" else None,
            error_list=mode == "errors", significance=rule,
            annotator_col=m.get("annotator"), annotator=o.get("annotator") or "expert",
            name=request.filename, progress=progress,
        )
    if request.what == "preferences":
        return import_preferences(
            store, table, dataset=request.dataset, a_col=m["a"], b_col=m["b"], preferred_col=m["preferred"],
            confidence_col=m.get("confidence"), id_col=m.get("comparison"), annotator_col=m.get("annotator"),
            annotator=o.get("annotator") or "expert", name=request.filename, progress=progress,
        )
    if request.what == "outputs":
        by_score = o.get("mode") == "score"
        return importers.import_outputs(
            store, table, dataset=request.dataset, judge=o.get("judge", ""), id_col=m["id"],
            text_col=None if by_score else m.get("text"),
            score_col=m.get("score") if by_score else None,
            metric=(o.get("metric") or None) if by_score else None,
            higher_is_better=ORIENTATIONS.get(o.get("orientation")) if by_score else None,
            progress=progress,
        )
    if request.what == "preset":
        return importers.import_preset(
            store, o["preset"], table, dataset=request.dataset, name=request.filename, progress=progress
        )
    raise ValueError(f"unknown import kind {request.what!r}; kinds are: {', '.join(WHAT_LABELS)}")


def upload_size_problem(size_bytes: int, limit_mb: float) -> str | None:
    """The message for an upload over the limit (Streamlit's uploader stops most; this catches the rest)."""
    if size_bytes <= limit_mb * 1024 * 1024:
        return None
    return (f"This file is {size_bytes / 1024 / 1024:,.1f} MB; the upload limit is {limit_mb:g} MB "
            "(server.maxUploadSize in .streamlit/config.toml). Import it with "
            "`python -m core import-pairs FILE ...` instead: the command line has no size limit.")


def dataset_name_from_file(filename: str) -> str:
    """A readable default dataset name from an upload's file name."""
    stem = Path(filename).stem
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-").lower() or "imported"


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


def _mode_choice(label: str, modes: dict[str, str], index: int, key: str) -> str:
    """What a file holds (``modes``: value -> words), as a horizontal radio."""
    return st.radio(label, list(modes), index=index, horizontal=True, key=key, format_func=modes.get)


def _column_picker(
    role: str, columns: list[str], guess: str | None, *, required: bool, token: str
) -> str | None:
    options = columns if required else [NONE, *columns]
    if guess in columns:
        index = options.index(guess)
    else:
        index = None if required else 0
    choice = st.selectbox(
        ROLE_LABELS[role], options, index=index, key=f"data_imp_col_{role}_{token}",
        placeholder="choose a column",
    )
    return None if choice in (None, NONE) else choice


def _target_dataset(
    what: str, names: list[str], current: str | None, filename: str, token: str
) -> str | None:
    if what in ("pairs", "preset"):
        choice = st.selectbox(
            "Dataset", [NEW_DATASET, *names], key=f"data_imp_target_{what}",
            help="A new dataset, or add pairs to an existing one (rows already there are skipped).",
        )
        if choice != NEW_DATASET:
            return choice
        return st.text_input(
            "New dataset name", value=dataset_name_from_file(filename), key=f"data_imp_newname_{token}"
        ).strip()
    if not names:
        st.info("Import report pairs first: annotations and judge outputs attach to a dataset's pairs.")
        return None
    index = names.index(current) if current in names else 0
    return st.selectbox("Dataset", names, index=index, key=f"data_imp_target_{what}")


def _mapping_widgets(what: str, columns: list[str], token: str) -> tuple[dict, dict]:
    """Column pickers and options for one kind of import -> (mapping, options)."""
    mapping: dict[str, str | None] = {}
    options: dict = {}
    if what == "pairs":
        guesses = guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL])
        left, right = st.columns(2)
        with left:
            for role in PAIR_ROLES_REQUIRED:
                mapping[role] = _column_picker(role, columns, guesses[role], required=True, token=token)
            options["kind"] = st.selectbox(
                "Dataset kind", list(importers.DATASET_KINDS), key=f"data_imp_kind_{token}",
                help="score: one overall rating per pair; error_counts: counts per error category (ReXVal).",
            )
        with right:
            for role in PAIR_ROLES_OPTIONAL:
                mapping[role] = _column_picker(role, columns, guesses[role], required=False, token=token)
        guess = guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL, "score"])["score"]
        with st.expander("Expert scores in the same file (optional)", expanded=guess is not None):
            mapping["score"] = _column_picker("score", columns, guess, required=False, token=token)
            if mapping["score"]:
                c0, c1, c2 = st.columns(3)
                options["scale_min"] = c0.number_input(
                    "Score scale minimum", value=0.0, step=0.5, key=f"data_imp_pscalemin_{token}",
                    help="1 for a 1-5 Likert rating: scores are shown on the rater's own scale")
                options["scale_max"] = c1.number_input(
                    "Score scale maximum", value=5.0, step=0.5, key=f"data_imp_pscale_{token}")
                options["annotator"] = c2.text_input("Whose scores (annotator name)", value="expert",
                                                     key=f"data_imp_pann_{token}")
                st.caption("Imported with the pairs as one overall score per pair (dataset kind: score).")
        context_guess = guess_mapping(columns, [*PAIR_ROLES_REQUIRED, *PAIR_ROLES_OPTIONAL, "score",
                                                *PAIR_ROLES_CONTEXT])
        with st.expander("Patient context (optional)",
                         expanded=any(context_guess[r] for r in PAIR_ROLES_CONTEXT)):
            st.caption("Free text per pair, shown beside it (Data, Annotate, the report) and read by "
                       "context-aware prompts; the rules, lexical and length judges ignore it.")
            cols = st.columns(len(PAIR_ROLES_CONTEXT))
            for col, role in zip(cols, PAIR_ROLES_CONTEXT, strict=True):
                with col:
                    mapping[role] = _column_picker(role, columns, context_guess[role], required=False, token=token)
    elif what == "annotations":
        guesses = guess_mapping(columns, ["id", "category", "significant", "count", "score", "annotator"])
        likely = 1 if guesses["category"] and guesses["count"] else 2 if guesses["category"] else 0
        mode = options["mode"] = _mode_choice(
            "Annotations hold", ANNOTATION_MODES, likely, f"data_imp_annmode_{token}")
        left, right = st.columns(2)
        with left:
            mapping["id"] = _column_picker("id", columns, guesses["id"], required=True, token=token)
            if mode in ("counts", "errors"):
                for role in ("category", "significant", "count") if mode == "counts" else ("category", "significant"):
                    mapping[role] = _column_picker(role, columns, guesses[role], required=True, token=token)
                if mode == "errors":
                    st.caption("Each row is one error and is counted. A row with an empty category (and empty "
                               "significance) marks a pair the rater annotated with no errors: it counts 0 in "
                               "every category, not missing.")
                options["significant_levels"] = st.text_input(
                    "Significance levels that count as clinically significant",
                    value=", ".join(importers.SignificanceRule().significant), key=f"data_imp_siglev_{token}",
                    help="Besides true/false, yes/no and 1/0. Default rule: "
                         + importers.SignificanceRule().describe())
                options["insignificant_levels"] = st.text_input(
                    "Levels that do not", value=", ".join(importers.SignificanceRule().insignificant),
                    key=f"data_imp_insiglev_{token}", help="Any other level in the file is refused with its row.")
            else:
                mapping["score"] = _column_picker(
                    "score", columns, guesses["score"], required=True, token=token
                )
                c0, c1 = st.columns(2)
                options["scale_min"] = c0.number_input(
                    "Score scale minimum", value=0.0, step=0.5, key=f"data_imp_scalemin_{token}",
                    help="1 for a 1-5 Likert rating: scores are shown on the rater's own scale and normalised "
                         "to 0-1 as (score - min) / (max - min) only where the analyses need it")
                options["scale_max"] = c1.number_input(
                    "Score scale maximum", value=5.0, step=0.5, key=f"data_imp_scale_{token}",
                )
        with right:
            mapping["annotator"] = _column_picker(
                "annotator", columns, guesses["annotator"], required=False, token=token
            )
            if mapping["annotator"] is None:
                options["annotator"] = st.text_input(
                    "Annotator name (one annotator for the whole file)", value="expert",
                    key=f"data_imp_annname_{token}",
                )
    elif what == "preferences":
        guesses = guess_mapping(columns, [*PREFERENCE_ROLES_REQUIRED, *PREFERENCE_ROLES_OPTIONAL])
        left, right = st.columns(2)
        with left:
            for role in PREFERENCE_ROLES_REQUIRED:
                mapping[role] = _column_picker(role, columns, guesses[role], required=True, token=token)
        with right:
            for role in PREFERENCE_ROLES_OPTIONAL:
                mapping[role] = _column_picker(role, columns, guesses[role], required=False, token=token)
            if mapping["annotator"] is None:
                options["annotator"] = st.text_input(
                    "Annotator name (one rater for the whole file)", value="expert", key=f"data_imp_prefann_{token}")
        st.caption("One row per comparison of two candidates of one case (their pair ids); with an annotator "
                   "column, one row per rater per comparison, each rater's row its own comparison.")
    elif what == "outputs":
        guesses = guess_mapping(columns, ["id", "text", "score"])
        mode = options["mode"] = _mode_choice(
            "Outputs hold", {"text": "judge text (GREEN format, parsed)", "score": "one numeric score"},
            0 if guesses["text"] else 1, f"data_imp_outmode_{token}")
        left, right = st.columns(2)
        with left:
            mapping["id"] = _column_picker("id", columns, guesses["id"], required=True, token=token)
            role = "text" if mode == "text" else "score"
            mapping[role] = _column_picker(role, columns, guesses[role], required=True, token=token)
        with right:
            options["judge"] = st.text_input("Judge name", key=f"data_imp_judge_{token}",
                                             placeholder="e.g. gpt-4o-green")
            if mode == "score":
                options["metric"] = st.text_input(
                    "Metric name (defaults to the judge name)", key=f"data_imp_metric_{token}",
                    placeholder="e.g. green",
                )
                options["orientation"] = st.selectbox(
                    "Better reports score", list(ORIENTATIONS), key=f"data_imp_orient_{token}",
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
    if what == "outputs":  # RadEval's per-sample JSON and its ids have their own uploaders (pages/_import_radeval.py)
        draw_radeval_import(store, dataset_names, current)
    preset = None
    if what == "preset":
        presets = importers.PRESETS
        preset = st.selectbox("Preset", list(presets), key="data_imp_preset")
        if preset:
            st.caption(escape_md(presets[preset].description))

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
    # Keys and outcomes are per uploaded file: a new file gets fresh guesses and no stale message.
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
        mapping, options = _mapping_widgets(what, columns, token)
    dataset = _target_dataset(what, dataset_names, current, uploaded.name, token)
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
