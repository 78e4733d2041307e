"""RadConcord dashboard entry point: ``streamlit run app.py``.

The router only: the navigation (built from the page table, ui/page_table.py), the store handle and
the sidebar every page shares (store path, dataset picker, synthetic badge). Pages live in pages/, one
module each with a ``main()``, and read the picked dataset from ``st.session_state["dataset"]``.
"""

from contextlib import ExitStack

from core import settings

# Before anything can import litellm: use its bundled price map instead of
# fetching one over the network at import time.
settings.use_local_price_map()

import streamlit as st  # noqa: E402

from core import glossary  # noqa: E402
from core.access import CHANGE_DATA, SEE_PATHS, allowed, may_open  # noqa: E402
from core.judges.llm import preload_litellm  # noqa: E402
from core.serve import models_configured  # noqa: E402
from core.store.db import StoreDamaged, StoreError, StoreForeign, StoreMissing, default_store_path  # noqa: E402
from ui.access import gate  # noqa: E402
from ui.jobs import jobs_indicator  # noqa: E402
from ui.page_table import HOME, START, page  # noqa: E402
from ui.router import navigation, routed  # noqa: E402
from ui.shared import (  # noqa: E402
    DATASET_KEY,
    NEXT_DATASET_KEY,
    count_of,
    escape_md,
    get_store,
    load_datasets,
    make_missing_store,
    refresh_version,
    set_url,
    url_value,
    warn_unknown_names,
)

st.set_page_config(page_title="RadConcord", layout="wide")
# A team deployment (sign-in + allow-list in the secrets) shows nothing before sign-in; the role
# decides which pages the navigation lists (core/access.py).
role = gate()

if models_configured():  # litellm's seconds of import, off the first scoring (once per process)
    preload_litellm()

# The navigation lists the rows of ui/page_table.py the visitor's role may open (adding a page is one
# row there plus its module: docs/ARCHITECTURE.md, "Adding a page"). No icons from Streamlit's
# ":material/...:" set: it fetches them from a font CDN, and the dashboard must not reach the network
# (tests/app/test_browser_pages.py fails on any outbound request).


def home_page(datasets) -> str:
    """Correlations once some dataset has both annotations and judge runs, else Data."""
    if datasets is not None and not datasets.empty:
        if ((datasets["annotations"] > 0) & (datasets["runs"] > 0)).any():
            return HOME
    return START


def draw_glossary() -> None:
    """What the terms mean, one click away on every page (core/glossary.py; also in the HTML report)."""
    with st.sidebar.expander("Glossary: what the terms mean"):
        st.markdown("\n".join(f"- **{escape_md(term)}**: {escape_md(text)}" for term, text in glossary.entries()))


def draw_sidebar(store, datasets) -> None:
    """Store path (researchers only: a viewer learns nothing of the server's files), dataset picker
    (kept in session state and the URL), synthetic badge."""
    with st.sidebar:
        if allowed(role, SEE_PATHS):
            st.caption("Store")
            st.code(str(store.path), language=None, wrap_lines=True)
        if datasets.empty:
            st.session_state[DATASET_KEY] = None
            set_url("dataset", None)
            st.caption("No datasets yet.")
            return
        names = datasets["name"].tolist()
        pending = st.session_state.pop(NEXT_DATASET_KEY, None)
        if pending in names:
            st.session_state[DATASET_KEY] = pending
        # First run of a session (or the dataset vanished): a shared URL decides, else the first.
        if st.session_state.get(DATASET_KEY) not in names:
            wanted = url_value("dataset")
            st.session_state[DATASET_KEY] = wanted if wanted in names else names[0]
            warn_unknown_names("dataset", [wanted] if wanted else [], names, f"'{names[0]}'")
        name = st.selectbox("Dataset", names, key=DATASET_KEY)
        set_url("dataset", name)
        row = datasets.loc[datasets["name"] == name].iloc[0]
        if row["synthetic"]:
            st.badge("synthetic", icon=":material/science:", color="orange")
            st.caption("Generated data with errors injected by construction, not real reports.")
        st.caption(
            f"{row['kind']} · {count_of(int(row['pairs']), 'pair')} · "
            f"{count_of(int(row['annotators']), 'annotator')} · {count_of(int(row['runs']), 'run')}"
        )


def draw_empty_state() -> None:
    st.info(
        "**The store has no datasets yet.** Build the synthetic demo with "
        "`python -m core demo` (then reload this page), or import your own "
        "files in the **Import data** tab of the Data page.",
        icon=":material/inbox:",
    )


def landing() -> None:
    """The root URL: open the home page under its own address. A default st.Page answers only
    at "/", so "/correlations" would be "page not found" while Correlations was the default."""
    st.switch_page(home, query_params=st.query_params.to_dict())


def store_error_line(exc: StoreError) -> str:
    """A store problem in one line (a damaged or foreign file says so itself: StoreDamaged, StoreForeign);
    only a researcher sees the server's path."""
    text = str(exc) if isinstance(exc, StoreDamaged | StoreForeign) else f"Cannot open the store: {exc}"
    if not allowed(role, SEE_PATHS):
        for form in {str(default_store_path()), str(default_store_path().resolve())}:
            text = text.replace(form, "the store")
    return escape_md(text)


store_error = None
# One read-only opening of the store for the whole run (Store.session): the sidebar's and the page's reads
# share it, and it is closed when the run ends, however it ends (st.stop, st.rerun, an error). Long
# computations step outside it (ui.shared.cached), so the file is held for reading, not for computing.
run_reads = ExitStack()
try:
    store = get_store()
    run_reads.enter_context(store.session())
    refresh_version(store)
    datasets = load_datasets(store)
except StoreError as exc:
    run_reads.close()
    store_error, datasets = exc, None
with run_reads:
    home = home_page(datasets)
    if not may_open(role, page(home).audience):
        home = START
    chosen, spec = navigation(role, st.Page(landing, title="RadConcord", url_path="home", default=True,
                                            visibility="hidden"))
    if store_error is not None:
        st.error(store_error_line(store_error))
        if isinstance(store_error, StoreMissing) and allowed(role, CHANGE_DATA):  # a new deployment's first run: one click
            if st.button("Make a new, empty store at this path"):
                make_missing_store()
                st.rerun()
        st.stop()
    draw_sidebar(store, datasets)
    jobs_indicator(store)
    draw_glossary()
    if datasets.empty:
        draw_empty_state()
    store.let_go()  # the page's module imports and controls come first; its first read opens the file again
    try:
        if spec is None:  # the landing page
            chosen.run()
        else:
            with routed(spec):
                chosen.run()
    except StoreError as exc:  # met by a page's own reads (a damaged block of the table it reads): one line
        st.error(store_error_line(exc))
