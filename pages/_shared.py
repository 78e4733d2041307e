"""What app.py and every page share: the store handle, cached queries, URL state.

Not a page: app.py lists its pages explicitly, so files under ``pages/`` that
start with ``_`` are helpers, never shown in the navigation.

Caching follows the store's contract: ``st.cache_resource`` for the handle
(one per store path and process), ``st.cache_data`` for query results with
the store's ``data_version()`` in the key, so any committed write - from this
dashboard or from a CLI job - makes the next run read fresh rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from core import queries
from core.store import Store, default_store_path

# Session-state keys owned by app.py (pages only read them).
DATASET_KEY = "dataset"  # the selected dataset name, or None when the store is empty
NEXT_DATASET_KEY = "dataset_next"  # a page asks app.py to switch dataset on the next run
VERSION_KEY = "data_version"  # the store's write counter, read once per script run


# -- the router -----------------------------------------------------------------

#: Correlations: datasets with more pairs than this open without one judge metric's detail (scatter,
#: heatmap, paired test); it waits for the user's choice, as large bootstraps wait for a click.
DETAIL_PAIRS = 20_000


def ensure_router() -> None:
    """Call first in every page: make sure app.py (sidebar, store, dataset) ran.

    With a folder named ``pages/`` next to app.py, Streamlit starts in its
    legacy multipage mode until ``st.navigation`` is first called in the
    process. If the first request after a server start is a page's URL, that
    mode runs the page file alone, without app.py, and keeps doing so. Turning
    the mode off (what ``st.navigation`` itself does) and rerunning routes the
    request through app.py. A no-op in every other run.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


# -- the store ----------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _open_store(path: str) -> Store:
    # Store holds no open connection, so one shared handle per path is safe.
    return Store(path)


def get_store() -> Store:
    """The store named by ``RADJUDGE_STORE`` (or the default path)."""
    return _open_store(str(default_store_path().resolve()))


def streamlit_secrets() -> dict:
    """Root-level Streamlit secrets as a plain dict ({} without a secrets file), plus the
    ``[endpoint_keys]`` table.

    Provider keys and model settings for core.models; the values are passed on, never shown.
    """
    try:
        return {k: v for k, v in st.secrets.to_dict().items()
                if not isinstance(v, dict) or k == "endpoint_keys"}  # keys named per custom endpoint
    except (FileNotFoundError, OSError, ValueError):
        return {}


def refresh_version(store: Store) -> int:
    """Read the store's write counter once per run (each read opens the file, ~tens of ms)."""
    version = store.data_version()
    st.session_state[VERSION_KEY] = version
    return version


def _version() -> int:
    return int(st.session_state.get(VERSION_KEY, -1))


def selected_dataset() -> str | None:
    """The dataset picked in the sidebar (None when the store has none)."""
    return st.session_state.get(DATASET_KEY)


def switch_dataset_next_run(name: str) -> None:
    """Make ``name`` the selected dataset from the next run on.

    The sidebar picker already exists in this run, and Streamlit refuses a
    change to a widget's state after the widget is drawn, so app.py applies it.
    """
    st.session_state[NEXT_DATASET_KEY] = name


# -- cached queries -------------------------------------------------------------
# The leading underscore keeps the Store out of the cache key; path + version
# stand in for it (two stores in one process never share entries).


@st.cache_data(max_entries=16, show_spinner=False)
def _list_datasets(_store: Store, path: str, version: int) -> pd.DataFrame:
    return queries.list_datasets(_store)


@st.cache_data(max_entries=32, show_spinner=False)
def _facet_values(_store: Store, path: str, version: int, dataset: str) -> dict[str, list[str]]:
    return queries.facet_values(_store, dataset)


@st.cache_data(max_entries=128, show_spinner=False)
def _find_pairs(
    _store: Store, path: str, version: int, dataset: str, filters: tuple, text: str, limit: int, offset: int
) -> tuple[pd.DataFrame, int]:
    return queries.find_pairs(_store, dataset, **dict(filters), text=text, limit=limit, offset=offset)


@st.cache_data(max_entries=64, show_spinner=False)
def _get_pair(_store: Store, path: str, version: int, pair_id: str) -> dict | None:
    return queries.get_pair(_store, pair_id)


@st.cache_data(max_entries=64, show_spinner=False)
def _annotation_summary(_store: Store, path: str, version: int, pair_id: str) -> pd.DataFrame:
    return queries.annotation_summary(_store, pair_id)


def load_datasets(store: Store) -> pd.DataFrame:
    return _list_datasets(store, str(store.path), _version())


def load_facets(store: Store, dataset: str) -> dict[str, list[str]]:
    return _facet_values(store, str(store.path), _version(), dataset)


def load_pairs(
    store: Store,
    dataset: str,
    filters: dict[str, Sequence[str]],
    text: str,
    *,
    limit: int,
    offset: int,
) -> tuple[pd.DataFrame, int]:
    frozen = tuple(sorted((k, tuple(v)) for k, v in filters.items()))
    return _find_pairs(store, str(store.path), _version(), dataset, frozen, text, limit, offset)


def load_pair(store: Store, pair_id: str) -> dict | None:
    return _get_pair(store, str(store.path), _version(), pair_id)


def load_annotation_summary(store: Store, pair_id: str) -> pd.DataFrame:
    return _annotation_summary(store, str(store.path), _version(), pair_id)


# -- URL state ----------------------------------------------------------------


def url_values(name: str) -> list[str]:
    """Every value of a query parameter (``?modality=CT&modality=MR``)."""
    return [v for v in st.query_params.get_all(name) if v != ""]


def url_value(name: str, default: str | None = None) -> str | None:
    values = url_values(name)
    return values[0] if values else default


def set_url(name: str, value: str | Sequence[str] | None) -> None:
    """Write a view setting to the URL; an empty value removes the parameter.

    Written only when it changed, so a rerun does not push a history entry.
    """
    if value is None or value == "" or (not isinstance(value, str) and len(value) == 0):
        if name in st.query_params:
            del st.query_params[name]
        return
    wanted = [value] if isinstance(value, str) else [str(v) for v in value]
    if st.query_params.get_all(name) != wanted:
        st.query_params[name] = wanted if len(wanted) > 1 else wanted[0]


# -- text safety ----------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def escape_md(text: object) -> str:
    """Backslash-escape Markdown (and Streamlit directive) characters in user data.

    For labels that Streamlit renders as Markdown (headings, captions). Report
    text itself is shown with ``st.text``, which parses neither Markdown nor HTML.
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text))


# -- what the analysis pages share ---------------------------------------------

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442", "#000000")


# What a table shows for a missing value (never "None" or "NaN"); pages say what it means where it matters.
MISSING = "–"


def readable_json(value: object) -> object:
    """A JSON object or list held as text (run params, dataset versions, queue filters) in words:
    ``{"seed": 7, "n": 3}`` -> ``seed 7 · n 3``; anything else unchanged."""
    if not isinstance(value, str) or not value.strip().startswith(("{", "[")):
        return value
    import json

    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return _words(parsed)


def _words(value: object) -> str:
    if isinstance(value, dict):
        parts = [f"{k.replace('_', ' ')} {_words(v)}" for k, v in value.items() if v not in (None, "", [], {})]
        return " · ".join(parts) if parts else MISSING
    if isinstance(value, list):
        return ", ".join(_words(v) for v in value) if value else MISSING
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def show_table(data, **kwargs):
    """``st.dataframe`` as every page calls it: missing values as ``MISSING``, JSON text in words.

    Returns what ``st.dataframe`` returns (the selection event when ``on_select`` is given).
    """
    if isinstance(data, pd.DataFrame):
        text_cols = [c for c in data.columns
                     if data[c].dtype == object or pd.api.types.is_string_dtype(data[c].dtype)]
        if text_cols:
            data = data.copy()
            for col in text_cols:
                data[col] = data[col].map(readable_json)
    kwargs.setdefault("placeholder", MISSING)
    return st.dataframe(data, **kwargs)


def download_csv(frame: pd.DataFrame, dataset: str | None, synthetic: bool, name: str, key: str) -> None:
    """A CSV download of a table: formulas neutralised, list cells joined, dataset and synthetic flag kept."""
    from core.export import to_safe_csv

    out = frame.copy()
    for col in out.columns:  # list cells (representatives, feature columns) as one readable string
        if out[col].map(lambda v: isinstance(v, (list, tuple))).any():
            out[col] = out[col].map(lambda v: " | ".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
    prefix = ""
    if dataset is not None:
        out.insert(0, "dataset", dataset)
        if synthetic:  # synthetic data stays labelled in exports (DESIGN.md)
            out.insert(1, "synthetic", True)
        prefix = f"{dataset}{'-synthetic' if synthetic else ''}-"
    st.download_button("Download CSV", to_safe_csv(out), file_name=f"{prefix}{name}.csv",
                       mime="text/csv", key=key, icon=":material/download:")


def is_synthetic(datasets: pd.DataFrame, dataset: str) -> bool:
    """Whether ``dataset`` (a row of :func:`load_datasets`) is marked synthetic."""
    return bool(datasets.loc[datasets["name"] == dataset, "synthetic"].any())


# -- which annotators are the expert target ---------------------------------------

# The same choice and labels as the CLI's --raters (core.raters): experts (imported) by default.
EXPERT_SOURCES = {"imported": "experts (imported annotations)", "clinicians": "clinician ratings (this study)"}


@st.cache_data(max_entries=32, show_spinner=False)
def _expert_annotators(_store: Store, path: str, version: int, dataset: str) -> dict[str, list[str]]:
    from core.ratings import expert_annotators

    return expert_annotators(_store, dataset)


def expert_annotators_choice(store: Store, dataset: str, key: str) -> tuple[list[str] | None, str]:
    """A choice of expert target: imported annotations or the clinician ratings given on the Annotate page.

    Returns ``(annotators, label)``: pass ``annotators`` as ``annotators=`` to core's
    analysis functions. No widget (and ``None``: every annotator) while the dataset has
    no clinician ratings; the choice lives in the URL as ``experts``.
    """
    groups = _expert_annotators(store, str(store.path), _version(), dataset)
    if not groups["clinicians"]:
        return None, EXPERT_SOURCES["imported"]
    options = [k for k in EXPERT_SOURCES if groups[k]]
    if key not in st.session_state or st.session_state[key] not in options:
        wanted = url_value("experts")
        st.session_state[key] = wanted if wanted in options else options[0]
    choice = st.radio("Experts", options, key=key, format_func=EXPERT_SOURCES.get, horizontal=True,
                      help="Clinician ratings are the latest rating of each rater on the Annotate page "
                           "(annotators rater:<name>); imported annotations are everything else.")
    set_url("experts", choice)
    return list(groups[choice]), EXPERT_SOURCES[choice]
