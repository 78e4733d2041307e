"""The HTML report prints on A4 (issue 43, point 5): in print media at the A4 page's printable width no table
is wider than the page (before, the agreement tables scrolled sideways and lost their right columns on paper),
and Chromium prints it to an A4 PDF."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.judges import run_judge
from core.report import build_report
from core.store.db import Store
from tests.chromium import chromium_browser
from tests.conftest import copy_store

pytestmark = pytest.mark.browser

A4_PRINTABLE_PX = round((210 - 2 * 12) / 25.4 * 96)  # A4 less the report's 12 mm print margins, at 96 px/in
# every element whose content is wider than its box (a table cut on paper), and each table's right edge
TOO_WIDE = """() => {
  const page = document.documentElement.clientWidth;
  const cut = [...document.querySelectorAll('main *')].filter(e => e.getClientRects().length
      && getComputedStyle(e).overflowX !== 'visible' && e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.tagName}.${e.className}: ${e.scrollWidth} px in ${e.clientWidth} px`);
  const beyond = [...document.querySelectorAll('table')].filter(t => t.getBoundingClientRect().right > page + 1)
    .map(t => `table.${t.className} ends at ${Math.round(t.getBoundingClientRect().right)} px of ${page}`);
  return {cut, beyond, tables: document.querySelectorAll('table').length,
          page_overflow: document.documentElement.scrollWidth - page};
}"""


@pytest.fixture(scope="module")
def report(demo_store: Store, tmp_path_factory) -> str:
    store = copy_store(demo_store, tmp_path_factory.mktemp("print") / "judged.duckdb")
    for judge in ("rules", "lexical", "length"):  # 11 metric columns in the agreement table
        run_judge(store, dataset="demo", judge=judge)
    return build_report(store, "demo", n_boot=50, seed=0)


def test_the_report_prints_on_a4_without_cutting_a_table(report: str, tmp_path: Path):
    path = tmp_path / "report.html"
    path.write_text(report, encoding="utf-8")
    with chromium_browser() as browser:
        page = browser.new_context(viewport={"width": A4_PRINTABLE_PX, "height": 1000}).new_page()
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
        page.goto(path.as_uri(), wait_until="load")
        page.emulate_media(media="print")
        found = page.evaluate(TOO_WIDE)
        assert found["tables"] >= 5
        assert found["cut"] == [] and found["beyond"] == [] and found["page_overflow"] <= 1, found
        pdf = page.pdf(format="A4", print_background=True, prefer_css_page_size=True)
    boxes = set(re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf))
    assert pdf.startswith(b"%PDF") and boxes and all(round(float(w)) == 595 and round(float(h)) == 842
                                                      for w, h in boxes), boxes  # A4: 595 x 842 pt
