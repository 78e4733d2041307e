"""Share: links that reproduce each page's view, the HTML report, and the store's provenance.

Every page keeps its view (dataset, filters, selections) in the URL, so the
address bar is the thing to share. This page lists each page's link with the
current dataset, offers the self-contained HTML report of the dataset
(:mod:`core.report.html`, the same file as ``python -m core report``), and shows
where the store's data and judge runs came from.

What a visitor may see is :func:`core.access.allowed`'s answer for their role: the store's path (in the
report's "equivalent" command and its provenance) only for a role allowed ``see_paths``, the bundle (every
clinician's rating, blinded or not) only for one allowed ``read_blinded_ratings``.

URL state: ``dataset`` (kept by app.py), ``n_boot``, ``seed``, ``excerpts`` (1/0, when not the dataset's default)
(``0`` leaves report text out of the report).
"""

from __future__ import annotations

import shlex
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from core import settings
from core.access import READ_BLINDED_RATINGS, SEE_PATHS, allowed
from core.report import build_report, provenance_tables
from core.settings import PUBLIC_URL_VAR
from core.store.export import to_safe_csv
from ui.access import current_role
from ui.router import routed_page, visible_pages
from ui.shared import (
    EXPERT_SOURCES,
    cached,
    escape_md,
    expert_annotators_choice,
    page_start,
    set_url,
    show_table,
    url_value,
)

N_BOOT_LIMITS = (0, 10_000)
SEED_LIMITS = (0, 2**31 - 1)


@cached
def _load_provenance(store, dataset: str | None) -> dict[str, pd.DataFrame]:
    return provenance_tables(store, dataset)


def _url_int(name: str, default: int, limits: tuple[int, int]) -> int:
    raw = url_value(name, "")
    return int(raw) if raw.isdigit() and limits[0] <= int(raw) <= limits[1] else default


def _pages() -> list[dict]:
    """The pages the visitor's role may open, from the page table (ui/page_table.py): title, path relative
    to app.py, URL path, and whether it is the page being shown."""
    here = routed_page()
    return [{"title": spec.title, "path": spec.path, "icon": spec.icon, "url_path": spec.url_path,
             "current": spec == here} for spec in visible_pages(current_role())]


def public_url() -> str | None:
    """The address colleagues reach the dashboard at (environment, else Streamlit secrets), if configured."""
    from ui.shared import streamlit_secrets

    value = settings.env_value(PUBLIC_URL_VAR) or settings.lookup(streamlit_secrets(), PUBLIC_URL_VAR)
    return str(value).strip().rstrip("/") or None if value else None


def _base_url(pages: list[dict]) -> str:
    """``RADCONCORD_PUBLIC_URL`` when set, else the app's address as this browser sees it, without the page."""
    public = public_url()
    if public:
        return public
    url = (st.context.url or "").rstrip("/")
    current = next((p["url_path"] for p in pages if p["current"]), "")
    if current and url.endswith("/" + current):
        url = url[: -len(current) - 1]
    return url


def draw_links(dataset: str | None) -> None:
    st.markdown("#### Links")
    st.markdown(
        "Every page writes its view — the dataset, filters, the selected pair or judge — into the address "
        "bar, so a copied URL opens the same view for a colleague on the same dashboard. The links below "
        "open each page on the current dataset."
    )
    pages = _pages()
    if not pages:
        st.caption("The page list is not available in this run.")
        return
    query = {"dataset": dataset} if dataset else {}
    base = _base_url(pages)
    if public_url() is None:
        st.caption(f"These links use this browser's address{' (' + base + ')' if base else ''}: a colleague on "
                   f"another machine can open them only if that address reaches this server. Set "
                   f"`{PUBLIC_URL_VAR}` (environment or Streamlit secrets) to the address colleagues use.")
    urls = []
    cols = st.columns(min(len(pages), 4))
    for i, page in enumerate(pages):
        with cols[i % len(cols)]:
            st.page_link(page["path"], label=page["title"], icon=page["icon"], query_params=query)
        suffix = f"?{urlencode(query)}" if query else ""
        urls.append(f"{base}/{page['url_path']}{suffix}")
    st.caption("The same links, to copy:")
    st.code("\n".join(urls), language=None)


def _report_verb(annotators: list[str] | None, experts: str) -> list[str]:
    """The CLI command of the report: ``report`` (all annotators) or ``ratings-report --experts ...``."""
    if annotators is None:
        return ["report"]
    return ["ratings-report", "--experts", {v: k for k, v in EXPERT_SOURCES.items()}[experts]]


def _excerpt_flag(excerpts: bool) -> list[str]:
    return ["--excerpts"] if excerpts else ["--no-excerpts"]


def _report_bytes(store, dataset: str, n_boot: int, seed: int, excerpts: bool, annotators: list[str] | None = None,
                  experts: str | None = None, *, role: str | None) -> bytes:
    # Runs when the button is clicked (a deferred download): no Streamlit calls in here.
    where = ["--store", str(store.path)] if allowed(role, SEE_PATHS) else []  # a viewer learns no server path
    parts = ["python", "-m", "core", *where, *_report_verb(annotators, experts), "--dataset",
             dataset, "--out", f"{dataset}-report.html", "--n-boot", str(n_boot), "--seed", str(seed)]
    command = "Share page of the dashboard; equivalent: " + shlex.join(parts + _excerpt_flag(excerpts))
    return build_report(store, dataset, n_boot=n_boot, seed=seed, include_excerpts=excerpts,
                        command=command, annotators=annotators, experts=experts, role=role).encode("utf-8")


def draw_report(store, dataset: str, synthetic: bool) -> None:
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    st.markdown("#### HTML report")
    st.markdown(
        "One file for clinicians: a plain-language summary (which judge agrees best with the experts, with "
        "τ, its 95% CI and n, next to the agreement between experts), the correlation tables, calibration and "
        "F1 charts, an error summary with examples, and methods and provenance. It opens offline in any "
        "browser: nothing is loaded from the network."
    )
    st.session_state.setdefault("share_n_boot", _url_int("n_boot", 1000, N_BOOT_LIMITS))
    st.session_state.setdefault("share_seed", _url_int("seed", 0, SEED_LIMITS))
    # Report text only by default for synthetic data: an imported dataset's reports may be credentialed.
    chosen = url_value("excerpts")
    st.session_state.setdefault("share_excerpts", synthetic if chosen not in ("0", "1") else chosen == "1")
    boot, seed_col, text_col = st.columns([1, 1, 2])
    with boot:
        n_boot = st.number_input("Bootstrap resamples", *N_BOOT_LIMITS, step=100, key="share_n_boot",
                                 help="for the 95% confidence intervals; 0 leaves them out")
    with seed_col:
        seed = st.number_input("Seed", *SEED_LIMITS, step=1, key="share_seed",
                               help="bootstrap and clustering seed, recorded in the report")
    with text_col:
        excerpts = st.checkbox("Include report text (excerpts)", key="share_excerpts",
                               help="examples next to the error summary; off by default for imported datasets, "
                                    "whose reports may be credentialed or identifiable")
    set_url("n_boot", str(n_boot) if n_boot != 1000 else None)
    set_url("seed", str(seed) if seed else None)
    set_url("excerpts", None if excerpts == synthetic else "1" if excerpts else "0")
    annotators, experts = expert_annotators_choice(store, dataset, "share_experts")
    if synthetic:
        st.badge("synthetic", icon=":material/science:", color="orange")
        st.caption("The report says so in its title and in a banner at the top.")
    if excerpts:
        st.warning("The file will contain report text: share it like the reports themselves"
                   + ("." if synthetic else " (this dataset is imported: make sure its licence allows it)."),
                   icon=":material/warning:")
    else:
        st.caption("The file will contain no report text (error explanations stay).")
    st.download_button(
        "Download HTML report",
        data=lambda: _report_bytes(store, dataset, int(n_boot), int(seed), excerpts, annotators, experts, role=role),
        file_name=f"radconcord-{dataset}{'-synthetic' if synthetic else ''}-report.html", mime="text/html",
        key="share_report", icon=":material/download:", type="primary",
    )
    cli = ["python", "-m", "core", *_report_verb(annotators, experts), "--dataset", dataset, "--out",
           f"{dataset}-report.html", "--n-boot", str(n_boot), "--seed", str(seed)] + _excerpt_flag(excerpts)
    st.caption("The same file from a terminal:")
    st.code(shlex.join(cli), language="bash")


def draw_bundle(store, dataset: str, synthetic: bool) -> None:
    """The reproducibility bundle (core/paper/bundle.py): the same zip as ``python -m core bundle``."""
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    from core.paper.bundle import build_bundle, settings_flags
    from core.paper.compute import PaperSettings

    st.markdown("#### Reproducibility bundle")
    if not allowed(role, READ_BLINDED_RATINGS):
        st.caption("The reproducibility bundle holds every clinician's rating, blinded ones too: the researchers "
                   "who run this dashboard download it.")
        return
    st.markdown("One zip for a paper's reviewers: this dataset's pairs, annotations, judge outputs and metric "
                "values, the prompts with their hashes, package versions, the settings and commands behind every "
                "table and figure, the papers' tables (LaTeX, Markdown, CSV), the methods paragraph with BibTeX, "
                "and `reproduce.sh`. `python -m core reproduce FILE.zip` rebuilds a store from it and checks that "
                "every table comes out byte-identical.")
    text = st.checkbox("Include report text and judge answers", value=synthetic, key="share_bundle_text",
                       help="off by default for imported datasets: the bundle then holds pair ids and content "
                            "hashes, not the reports")
    if text and not synthetic:
        st.warning("The bundle will contain this imported dataset's report text: share it like the reports.",
                   icon=":material/warning:")
    figures = st.checkbox("Include the figures (SVG, PDF and the numbers as CSV)", value=False,
                          key="share_bundle_figures", help="the charts as vector files for the paper; a few seconds more")
    settings = PaperSettings(n_boot=int(st.session_state.get("share_n_boot", 1000)),
                             seed=int(st.session_state.get("share_seed", 0)), with_ci=True)
    st.download_button("Download bundle (.zip)", data=lambda: build_bundle(store, dataset, settings, with_text=text,
                                                                            with_figures=figures, role=role),
                       file_name=f"radconcord-{dataset}{'-synthetic' if synthetic else ''}-bundle.zip",
                       mime="application/zip", key="share_bundle", icon=":material/download:", on_click="ignore")
    flags = settings_flags(settings) + ["--with-ci"] + (["--with-text"] if text and not synthetic else
                                                         ["--no-text"] if synthetic and not text else [])
    flags += ["--with-figures"] if figures else []
    st.code(shlex.join(["python", "-m", "core", "bundle", "--dataset", dataset, "--out", f"{dataset}-bundle.zip",
                        *flags]), language="bash")


def _table_with_csv(frame: pd.DataFrame, name: str, key: str) -> None:
    show_table(frame, hide_index=True, key=f"share_{key}")
    st.download_button("Download CSV", to_safe_csv(frame), file_name=f"radconcord-{name}.csv", mime="text/csv",
                       key=f"share_{key}_csv", icon=":material/download:")


def draw_provenance(store, dataset: str | None) -> None:
    st.markdown("#### Provenance")
    tables = _load_provenance(store, dataset)
    st.markdown("**Datasets in the store**")
    st.caption(f"{len(tables['datasets'])} dataset(s); origin *synthetic* means generated with errors injected "
               "by construction.")
    _table_with_csv(tables["datasets"], "datasets", "datasets")
    if dataset is None:
        return
    st.markdown(f"**Judge runs on {escape_md(dataset)}**")
    judges = tables["judges"]
    if judges.empty:
        st.caption(f"No judge runs on this dataset yet — open Run judges (or `python -m core judge --dataset "
                   f"{escape_md(dataset)} --judge rules`).")
        return
    st.caption(f"{len(judges)} run(s): prompt id and hash, generation params with seeds and few-shot settings, "
               "as recorded when each run started.")
    _table_with_csv(judges, f"{dataset}-judge-runs", "judges")


# -- the page ----------------------------------------------------------------------

def main() -> None:
    store, dataset, synthetic = page_start("Share")
    draw_links(dataset)
    st.divider()
    if dataset is None:
        st.info("No dataset to report on yet — build the demo with `python -m core demo` or import data on the "
                "**Data** page.", icon=":material/inbox:")
    else:
        draw_report(store, dataset, synthetic)
        draw_bundle(store, dataset, synthetic)
    st.divider()
    draw_provenance(store, dataset)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
