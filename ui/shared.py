"""What app.py and every page share: the store handle, cached queries, URL state.

Not a page: the pages are the rows of ui/page_table.py, one module each under ``pages/``.

Caching follows the store's contract: ``st.cache_resource`` for the handle
(one per store path and process), ``st.cache_data`` for query results with
the store's ``data_version()`` in the key, so any committed write - from this
dashboard or from a CLI job - makes the next run read fresh rows.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import re
import time
from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from core import settings, taxonomy
from core.reads import queries
from core.store.db import Store, StoreMissing, default_store_path
from core.taxonomy import OKABE_ITO
from ui.router import reroute, routed_page

# Session-state keys owned by app.py (pages only read them).
DATASET_KEY = "dataset"  # the selected dataset name, or None when the store is empty
NEXT_DATASET_KEY = "dataset_next"  # a page asks app.py to switch dataset on the next run
VERSION_KEY = "data_version"  # the store's write counter, read once per script run


#: Correlations: datasets with more pairs than this open without one judge metric's detail (scatter,
#: heatmap, paired test); it waits for the user's choice, as large bootstraps wait for a click.
DETAIL_PAIRS = 20_000


def page_start(title: str, *, lead: str | None = None,
               empty: str | None = None, boxed: bool = False, icon: str | None = None,
               intro: str | None = None) -> tuple[Store, str | None, bool]:
    """The start every page shares; returns ``(store, dataset, synthetic)``.

    In this order: the router check (a page file run without app.py is sent through it:
    ``ui.router.reroute``), the gate of the page's audience in the page table (``ui.access.refuse_unless_open``:
    a viewer who typed a researcher page's URL), the title, the ``lead`` caption, the store and the
    dataset picked in the sidebar. Without ``empty`` the dataset may be None (``synthetic`` is then
    False); with it a page without a dataset stops after saying ``empty`` - as a caption, or
    ``boxed`` in ``st.info`` (with ``icon``). The ``intro`` caption follows once there is a dataset.
    """
    spec = routed_page()
    if spec is None:
        reroute()
    from ui.access import refuse_unless_open  # ui.access imports this module

    refuse_unless_open(spec)
    st.title(title)
    if lead is not None:
        st.caption(lead)
    store = get_store()
    dataset = selected_dataset()
    if dataset is None:
        if empty is not None:
            if boxed:
                st.info(empty, icon=icon)
            else:
                st.caption(empty)
            st.stop()
        return store, None, False
    if intro is not None:
        st.caption(intro)
    return store, dataset, is_synthetic(load_datasets(store), dataset)


# -- the store ----------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _open_store(path: str, create: bool = True) -> Store:
    # Store holds no open connection, so one shared handle per path is safe.
    return Store(path, create=create)


def get_store() -> Store:
    """The store named by ``RADCONCORD_STORE`` (or the default path). A store ``RADCONCORD_STORE`` names must
    exist, as for the CLI (a mistyped path is refused in one line, nothing made there); only the default
    path is made when missing (the first run's empty state). An existing file is never initialised here:
    an empty DuckDB file or another application's is refused (StoreForeign) and left as it is."""
    path = default_store_path().resolve()
    if settings.store_path() and not path.exists():
        raise StoreMissing(f"store {path} does not exist; check {settings.STORE_VAR}; nothing was made there")
    return _open_store(str(path), not path.exists())


def make_missing_store() -> Store:
    """Make the store ``RADCONCORD_STORE`` names, which does not exist yet (a researcher's explicit click on
    a new deployment's first run: never made silently)."""
    path = default_store_path().resolve()
    return _open_store(str(path), True)


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


def data_version() -> int:
    """The store's write counter as :func:`refresh_version` read it at the start of this run (-1 before)."""
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


def cached(fn: Callable | None = None, *, max_entries: int = 16, shared: bool = False,
           kept: bool = False, compute: bool = False) -> Callable:
    """Cache a store read ``fn(store, *args)`` per (store path, data version, args).

    ``@cached`` or ``@cached(max_entries=64)`` above ``def load_x(store, dataset): ...``; call it
    as ``load_x(store, dataset)``. Underneath it is the hand-written shape this replaces,
    ``st.cache_data`` over ``(_store, path, version, *args)``: the leading underscore keeps
    the Store out of the key, its path stands in for it (two stores in one process never
    share entries) and :func:`data_version` invalidates on any committed write. The other
    arguments must be hashable by Streamlit (tuples, not lists). ``shared=True`` is
    ``st.cache_resource``: one object shared by every caller, never copied (callers must not
    mutate it). ``kept=True`` (a reader returning a DataFrame): on a miss here, the result kept in the
    store (:mod:`core.reads.results`, keyed by fn's name and source digest, the arguments, the data
    version and the code version) before computing, and a result that took at least
    ``results.KEEP_ABOVE_S`` to compute is kept there, so another process (a restarted server, a second
    one) does not compute it again (a quicker one costs more to write than to compute again).
    ``compute=True`` (implied by ``kept``): fn is a computation more than a read; on a miss it runs outside the
    run's store session (app.py: one read-only opening per run), its reads opening their own connections, so
    the file is not held, and other processes' writes wait, while it computes (docs/PERFORMANCE.md, Pages).
    """
    if fn is None:
        return functools.partial(cached, max_entries=max_entries, shared=shared, kept=kept, compute=compute)

    def read(_store, path, version, *args, **kwargs):
        if not kept or version < 0:
            if not compute:
                return fn(_store, *args, **kwargs)
            with _store.outside_session():
                return fn(_store, *args, **kwargs)
        from core.reads import results

        key = results.result_key(f"{fn.__qualname__}:{digest}", (*args, *sorted(kwargs.items())), version)
        found = results.lookup(_store, key, version)
        if found is not None:
            return found
        started = time.perf_counter()
        with _store.outside_session():  # a long computation: the file is not held (for reading) while it runs
            out = fn(_store, *args, **kwargs)
        if isinstance(out, pd.DataFrame) and time.perf_counter() - started >= results.KEEP_ABOVE_S:
            results.keep(_store, key, fn.__qualname__, version, out)  # worth a write: it took long to compute
        return out

    # Streamlit keys a cache on the function's module, qualified name and source. Page scripts all
    # run as __main__ and ``read`` has one source, so the name carries the file and fn's source.
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        source = repr(getattr(fn, "__code__", fn))
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    code = getattr(fn, "__code__", None)
    read.__module__ = fn.__module__
    read.__qualname__ = f"{fn.__qualname__}@{code.co_filename if code else '?'}:{digest}"
    kind = st.cache_resource if shared else st.cache_data
    cached_read = kind(max_entries=max_entries, show_spinner=False)(read)

    @functools.wraps(fn)
    def call(store, *args, **kwargs):
        return cached_read(store, str(store.path), data_version(), *args, **kwargs)

    call.clear = cached_read.clear
    return call


load_datasets = cached(queries.list_datasets, max_entries=16)
load_facets = cached(queries.facet_values, max_entries=32)
load_pair = cached(queries.get_pair, max_entries=64)
load_annotation_summary = cached(queries.annotation_summary, max_entries=64)


@cached(max_entries=128)
def _find_pairs(store: Store, dataset: str, filters: tuple, text: str, limit: int, offset: int
                ) -> tuple[pd.DataFrame, int]:
    return queries.find_pairs(store, dataset, **dict(filters), text=text, limit=limit, offset=offset)


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
    return _find_pairs(store, dataset, frozen, text, limit, offset)


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


def warn_unknown_names(what: str, wanted: Sequence[str], known: Sequence[str], shown: str) -> None:
    """A link naming a ``what`` (dataset, judge) this store does not hold: say so once, with a did-you-mean
    (core.reads.names), and what the page shows instead."""
    from core.reads.names import did_you_mean

    for name in wanted:
        if name not in known:
            hint = did_you_mean(name, known)
            st.warning(f"The link names {what} '{escape_md(name)}', which is not here"
                       f"{escape_md(hint) if hint else '.'} Showing {shown} instead.", icon=":material/link_off:")


def seed_facet_filters(view_key: str, dataset: str, facets: dict[str, list[str]],
                       filter_keys: dict[str, str]) -> tuple[bool, bool]:
    """Fill the facet filters' widget state (``filter_keys``: facet -> key) before they are drawn.

    A key still missing (first visit, or back from another page) is seeded from the URL, so a shared
    link opens the same view; switching dataset (``view_key`` remembers the last one) starts from
    empty filters, since the old ones name the old dataset's values. Returns ``(first_visit, switched)``.
    """
    first_visit = view_key not in st.session_state
    switched = not first_visit and st.session_state[view_key] != dataset
    st.session_state[view_key] = dataset
    for facet, key in filter_keys.items():
        if switched:
            st.session_state[key] = []
        elif key not in st.session_state:
            st.session_state[key] = url_values(facet)
        # Only values the dataset has: a stale link must not break the widget.
        st.session_state[key] = [v for v in st.session_state[key] if v in facets[facet]]
    return first_visit, switched


# -- text safety ----------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """'1 annotator', '2 annotators', '1,000 pairs': a count with its noun in the right number."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def escape_md(text: object) -> str:
    """Backslash-escape Markdown (and Streamlit directive) characters in user data.

    For labels that Streamlit renders as Markdown (headings, captions). Report
    text itself is shown with ``st.text``, which parses neither Markdown nor HTML.
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text))


# -- what the analysis pages share ---------------------------------------------

# Okabe-Ito: distinguishable with the common colour-vision deficiencies. Series take the colours in
# this order (Okabe & Ito's own, as in the HTML report, core/report/html.py).
BLUE, VERMILLION = OKABE_ITO[4], OKABE_ITO[5]  # a chart's one colour; a diverging scale's two ends

# The empty state of the analysis pages: ``RUN_HINT.format(d=dataset)``.
RUN_HINT = "open **Run judges** (or `python -m core judge --dataset {d} --judge rules`)"


# What a table shows for a missing value (never "None" or "NaN"), and JSON text in words: the one rule of
# core.taxonomy (issue 43), re-exported for the pages.
MISSING = taxonomy.MISSING
readable_json = taxonomy.readable_json


def show_reports(reference: str, candidate: str) -> None:
    """A pair's two reports side by side, each in a bordered box under its name."""
    left, right = st.columns(2)
    # st.text: report text is shown as written, never parsed as Markdown or HTML.
    with left, st.container(border=True):
        st.markdown("**Reference**")
        st.text(reference)
    with right, st.container(border=True):
        st.markdown("**Candidate**")
        st.text(candidate)


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
    from core.store.export import to_safe_csv

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


def draw_caveat(info) -> None:
    """The dataset's caveat as a warning beside its numbers (core.glossary.dataset_caveat: the synthetic demo's,
    where the rules judge sits near the ceiling by construction, or that the data are synthetic); nothing for
    imported data. ``info``: the dataset's row of :func:`load_datasets` (``source``, ``synthetic``)."""
    from core.glossary import dataset_caveat

    caveat = dataset_caveat(info)
    if caveat:
        st.warning(escape_md(caveat), icon=":material/science:")


def draw_dataset_caveat(store: Store, dataset: str) -> None:
    """:func:`draw_caveat` for ``dataset``, read from :func:`load_datasets`."""
    datasets = load_datasets(store)
    rows = datasets.loc[datasets["name"] == dataset]
    if len(rows):
        draw_caveat(rows.iloc[0].to_dict())


# -- which annotators are the expert target ---------------------------------------

# The same choice and labels as the CLI's --raters (core.reads.raters): experts (imported) by default.
EXPERT_SOURCES = {"imported": "experts (imported annotations)", "clinicians": "clinician ratings (this study)"}


@cached(max_entries=32)
def _expert_annotators(store: Store, dataset: str, role: str | None) -> dict[str, list[str]]:
    from core.reads.ratings import expert_annotators

    return expert_annotators(store, dataset, role=role)


def expert_annotators_choice(store: Store, dataset: str, key: str) -> tuple[list[str] | None, str]:
    """A choice of expert target: imported annotations or the clinician ratings given on the Annotate page.

    Returns ``(annotators, label)``: pass ``annotators`` as ``annotators=`` to core's
    analysis functions. No widget (and ``None``: every annotator) while the dataset has
    no clinician ratings; the choice lives in the URL as ``experts``. A viewer's clinicians leave out the
    raters with a rating given in a blinded queue (core.reads.ratings.expert_annotators): per pair, the
    target would show it.
    """
    from ui.access import current_role  # ui.access imports this module

    groups = _expert_annotators(store, dataset, current_role())
    if not groups["clinicians"]:  # every annotator, unless some are hidden from this visitor
        return (list(groups["imported"]) if groups["hidden"] else None), EXPERT_SOURCES["imported"]
    options = [k for k in EXPERT_SOURCES if groups[k]]
    if key not in st.session_state or st.session_state[key] not in options:
        wanted = url_value("experts")
        st.session_state[key] = wanted if wanted in options else options[0]
    choice = st.radio("Experts", options, key=key, format_func=EXPERT_SOURCES.get, horizontal=True,
                      help="Clinician ratings are the latest rating of each rater on the Annotate page "
                           "(annotators rater:<name>); imported annotations are everything else.")
    set_url("experts", choice)
    return list(groups[choice]), EXPERT_SOURCES[choice]
