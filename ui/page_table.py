"""The dashboard's pages, one row each: the only place a page's existence is written.

app.py builds the navigation from :data:`PAGES` (sections in table order, each page shown only to a
role that may open it), ``ui.access.researchers_only`` refuses a typed URL to the wrong role, and
the Share page lists its links from it. A page is a module ``pages/NAME.py`` that defines ``main()``
and runs nothing at import (docs/ARCHITECTURE.md, "Adding a page"). No streamlit here: the table is
plain data, read by tests without a script run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from core.access import RESEARCHER, VIEWER

#: The navigation's sections, in the order shown (every section expanded: nothing behind "View more").
SECTIONS = ("Explore results", "Data and judges", "Experts and sharing")


@dataclass(frozen=True)
class PageSpec:
    """One page: its file (relative to app.py), title, section, and who may open it.

    ``audience`` is :data:`core.access.VIEWER` (every role that may browse) or
    :data:`core.access.RESEARCHER` (pages that run judges, spend on endpoints or write judge
    results; :func:`core.access.may_open`). ``icon`` is an emoji or None: Streamlit fetches
    ``:material/...:`` navigation icons from a font CDN, and the dashboard never reaches the network.
    """

    path: str
    title: str
    section: str
    audience: str = VIEWER
    icon: str | None = None

    def __post_init__(self) -> None:
        if self.section not in SECTIONS:
            raise ValueError(f"page {self.path}: section '{self.section}' is not one of {', '.join(SECTIONS)}")
        if self.audience not in (VIEWER, RESEARCHER):
            raise ValueError(f"page {self.path}: audience must be '{VIEWER}' or '{RESEARCHER}', not '{self.audience}'")

    @property
    def url_path(self) -> str:
        """The page's address under the dashboard: its file name (``/errortypes``), as bookmarks have it."""
        return PurePosixPath(self.path).stem

    @property
    def module(self) -> str:
        """The importable name of the page's module (``pages.run``)."""
        return ".".join(PurePosixPath(self.path).with_suffix("").parts)


PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/correlations.py", "Correlations", "Explore results"),
    PageSpec("pages/calibration.py", "Calibration", "Explore results"),
    PageSpec("pages/errortypes.py", "Error types", "Explore results"),
    PageSpec("pages/summaries.py", "Summaries", "Explore results"),
    PageSpec("pages/ensembles.py", "Ensembles & simulator", "Explore results"),
    PageSpec("pages/data.py", "Data", "Data and judges"),
    PageSpec("pages/run.py", "Run judges", "Data and judges", RESEARCHER),
    PageSpec("pages/live.py", "Live scoring", "Data and judges", RESEARCHER),
    PageSpec("pages/checks.py", "Checks & leaderboards", "Data and judges", RESEARCHER),
    PageSpec("pages/review.py", "Edit review", "Data and judges", RESEARCHER),
    PageSpec("pages/distill.py", "Distill", "Data and judges", RESEARCHER),
    PageSpec("pages/annotate.py", "Annotate", "Experts and sharing"),
    PageSpec("pages/share.py", "Share", "Experts and sharing"),
)

#: The page a new visitor lands on once some dataset has both annotations and judge runs, and otherwise.
HOME, START = "pages/correlations.py", "pages/data.py"


def page(path: str, pages: tuple[PageSpec, ...] = PAGES) -> PageSpec:
    """The row of ``path`` (``pages/run.py``); KeyError names the known pages."""
    for spec in pages:
        if spec.path == path:
            return spec
    raise KeyError(f"no page '{path}' in ui/page_table.py; pages are: {', '.join(p.path for p in pages)}")
