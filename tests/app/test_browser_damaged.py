"""Issue 31, item 2 in a real browser: a truncated store, or one with a damaged block, shows one line on
every page ("the store at PATH is damaged: ...; run check-store; restore from a backup or export"),
never Streamlit's generic "This app has encountered an error", and the file stays byte for byte as it was.

Real Chromium (tests/chromium.py), a real dashboard process (``serve.py``: tests/app/test_browser.py's
``serve_dashboard``). Screenshots: test-artifacts/damaged/.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import duckdb
import pytest

from core.judges import run_judge
from core.store.db import FIRST_BLOCK, Store
from tests.app.test_browser import page, serve_dashboard  # noqa: F401  (fixture)
from tests.app.test_browser_pages import PAGES, _settle
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "damaged"
UI_TIMEOUT_MS = 60_000
GENERIC = "This app has encountered an error"
TAIL = "run check-store; restore from a backup or export"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def judged(demo_store: Store, tmp_path: Path) -> Path:
    store = copy_store(demo_store, tmp_path / "judged.duckdb")
    for judge in ("rules", "lexical", "length"):
        run_judge(store, dataset="demo", judge=judge)
    return store.path


def _visit_every_page(page, url: str, name: str) -> dict[str, str]:  # noqa: F811
    """Each page's visible main text (after the script has run); fails on Streamlit's generic error."""
    from playwright.sync_api import expect

    texts = {}
    for path, title in PAGES.items():
        page.goto(f"{url}/{path}?dataset=demo", wait_until="domcontentloaded")
        main = page.get_by_test_id("stMain")
        # the page drawn (its heading) or the store's line, whichever the script reaches
        main.get_by_text(re.compile(f"is damaged|^{re.escape(title)}$")).first.wait_for(timeout=UI_TIMEOUT_MS)
        _settle(page)
        text = main.inner_text(timeout=UI_TIMEOUT_MS)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{path}.png"))
        assert GENERIC not in text and "Traceback" not in text and "IOException" not in text, (path, text[:500])
        expect(page.get_by_test_id("stException")).to_have_count(0)
        texts[path] = text
    return texts


def test_a_truncated_store_shows_one_line_on_every_page(judged: Path, tmp_path: Path, page):  # noqa: F811
    os.truncate(judged, judged.stat().st_size // 2)
    before = _sha(judged)
    with serve_dashboard(judged, tmp_path) as url:
        texts = _visit_every_page(page, url, "truncated")
    for path, text in texts.items():
        lines = [line for line in text.splitlines() if "is damaged" in line]
        assert len(lines) == 1, (path, text[:500])
        assert lines[0].startswith(f"the store at {judged.resolve()} is damaged: the file holds "), lines
        assert "whole blocks but block" in lines[0] and "it was cut short" in lines[0], lines
        assert lines[0].endswith(TAIL), lines
    assert _sha(judged) == before and not Path(f"{judged}.wal").exists()


def test_a_damaged_block_shows_one_line_where_a_page_reads_it(judged: Path, tmp_path: Path, page):  # noqa: F811
    con = duckdb.connect(str(judged), read_only=True)
    block = con.execute("SELECT min(block_id) FROM pragma_storage_info('metric_values') WHERE block_id >= 0 "
                        "AND segment_type <> 'VALIDITY'").fetchone()[0]
    con.close()
    with judged.open("r+b") as f:
        f.seek(FIRST_BLOCK + block * 262_144 + 64)
        f.write(b"\xaa" * 8192)
    before = _sha(judged)
    with serve_dashboard(judged, tmp_path) as url:
        texts = _visit_every_page(page, url, "block")
    damaged = {path for path, text in texts.items() if f"the store at {judged.resolve()} is damaged: " in text}
    assert "correlations" in damaged  # it reads every judge's metric values
    for path in damaged:
        lines = [line for line in texts[path].splitlines() if "is damaged" in line]
        assert len(lines) == 1 and lines[0].endswith(TAIL), (path, lines)
    assert _sha(judged) == before and not Path(f"{judged}.wal").exists()
