"""The page table (ui/page_table.py): adding a page is one row plus its module, and the row decides who
sees it (docs/ARCHITECTURE.md, "Adding a page")."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from core.access import RESEARCHER
from core.store.db import Store
from tests.app.test_access import AUTH, ROLES, _User
from tests.apptest_helpers import assert_ok

ROOT = Path(__file__).resolve().parents[2]

# The whole of a new page's module: a main() and nothing that runs at import.
NOTES_PAGE = '''import streamlit as st

from ui.shared import page_start


def main() -> None:
    store, dataset, _ = page_start("Lab notes")
    st.markdown("The notes page ran for dataset " + str(dataset) + ".")


if __name__ == "__main__":
    main()
'''


def test_every_page_file_is_one_row_with_a_main_and_runs_nothing_at_import():
    from ui.page_table import PAGES

    files = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert files == {spec.path for spec in PAGES}, "pages/ holds exactly the pages of the table"
    assert len({spec.url_path for spec in PAGES}) == len(PAGES)
    for spec in PAGES:
        module = importlib.import_module(spec.module)  # an import draws nothing (no script run here)
        assert callable(module.main), spec.path


def test_a_bad_row_is_refused_in_one_line():
    from ui.page_table import PageSpec

    with pytest.raises(ValueError, match="section 'Extras' is not one of"):
        PageSpec("pages/x.py", "X", "Extras")
    with pytest.raises(ValueError, match="audience must be 'viewer' or 'researcher', not 'admin'"):
        PageSpec("pages/x.py", "X", "Explore results", "admin")


@pytest.fixture
def app_with_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_store, demo_store_copy: Store):
    """``app_with_notes(email)``: app.py (a copy beside a copy of pages/) with one more row in the page table,
    ``pages/notes.py`` for researchers, and that module; served to a team, ``email`` signed in."""
    import streamlit
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    from tests.apptest_steady import steady_init
    from ui import page_table

    shutil.copy2(ROOT / "app.py", tmp_path / "app.py")
    shutil.copytree(ROOT / "pages", tmp_path / "pages", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "pages" / "notes.py").write_text(NOTES_PAGE, encoding="utf-8")
    row = page_table.PageSpec("pages/notes.py", "Lab notes", "Experts and sharing", RESEARCHER)
    monkeypatch.setattr(page_table, "PAGES", (*page_table.PAGES, row))
    monkeypatch.setattr(PagesManager, "__init__", steady_init(PagesManager.__init__))
    use_store(demo_store_copy)

    def _make(email: str):
        monkeypatch.setattr(streamlit, "user", _User({"email": email, "email_verified": True}))
        at = AppTest.from_file(str(tmp_path / "app.py"), default_timeout=60)
        at.secrets["auth"] = AUTH
        at.secrets["radconcord"] = {"roles": ROLES}
        at.run()
        assert_ok(at)
        return at

    return _make


def _share_links(at) -> str:
    at.switch_page("pages/share.py").run()
    assert_ok(at)
    return "\n".join(c.value for c in at.code)


def test_a_new_row_and_module_is_a_page_for_its_role_only(app_with_notes):
    lead = app_with_notes("lead@hospital.org")  # a researcher
    assert "/notes?dataset=demo" in _share_links(lead)  # the Share page's links come from the table
    lead.switch_page("pages/notes.py").run()  # registered by the navigation: switch_page finds it
    assert_ok(lead)
    assert [t.value for t in lead.title] == ["Lab notes"]
    assert "The notes page ran for dataset demo." in [m.value for m in lead.markdown]
    assert lead.sidebar.selectbox(key="dataset").value == "demo"  # app.py ran around it

    nurse = app_with_notes("nurse@hospital.org")  # a viewer
    assert "/notes" not in _share_links(nurse) and "/correlations" in _share_links(nurse)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        nurse.switch_page("pages/notes.py")  # not in the viewer's navigation


def test_a_viewer_who_types_the_new_pages_address_does_not_reach_it(app_with_notes, monkeypatch):
    import streamlit

    at = app_with_notes("lead@hospital.org")
    at.switch_page("pages/notes.py").run()  # the address /notes, as a researcher opened it
    assert [t.value for t in at.title] == ["Lab notes"]
    # the same session's next run asks for /notes as a viewer: the router's default page, not the notes
    monkeypatch.setattr(streamlit, "user", _User({"email": "nurse@hospital.org", "email_verified": True}))
    at.run()
    assert_ok(at)
    assert [t.value for t in at.title] != ["Lab notes"]
    assert not any("The notes page ran" in m.value for m in at.markdown)


def test_a_fresh_servers_first_request_to_a_page_goes_through_app_py(use_store, demo_store_copy: Store):
    """No patch here: AppTest starts each run in Streamlit's legacy pages/ mode, as a fresh server's first
    request, which runs the page file alone; the page sends it through app.py (ui/router.py)."""
    from streamlit.testing.v1 import AppTest

    from ui.router import NOT_ROUTED

    use_store(demo_store_copy)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/data.py").run()
    assert_ok(at)
    assert [t.value for t in at.title] == ["Data"]
    assert at.sidebar.selectbox(key="dataset").value == "demo"  # app.py's sidebar: it ran
    assert NOT_ROUTED not in [e.value for e in at.error]


def test_the_private_streamlit_attribute_is_set_in_serve_py_only():
    sources = [ROOT / "app.py", ROOT / "serve.py", *(ROOT / "ui").glob("*.py"), *(ROOT / "pages").glob("*.py")]
    assert [p.name for p in sources if "uses_pages_directory" in p.read_text(encoding="utf-8")] == ["serve.py"]
