"""The README's tour in five screenshots (docs/img/*.png): the command each of them comes from.

    .venv/bin/python docs/make_screenshots.py [--out docs/img]

Builds the demo store as `make run` does (``python -m core demo`` and the rules, lexical and length
judges) in a temporary folder, serves the dashboard on a free loopback port as `make run` starts it
(``python serve.py``, through tests/app/test_browser.serve_dashboard), and drives Debian's headless
Chromium (tests/chromium.py's flags) to each page; nothing is written to data/ and nothing leaves the
machine. Needs /usr/bin/chromium and Playwright (`make test` installs both).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VIEWPORT = {"width": 1440, "height": 1300}
UI_TIMEOUT_MS = 60_000
LIVE_PAIR = ("FINDINGS: Small left pleural effusion. No pneumothorax. Heart size is normal.",
             "FINDINGS: Small right pleural effusion. Heart size is normal.")
#: file name -> (url path, the page's heading, a text shown once the page has drawn): the README's tour
SHOTS = {
    "data.png": ("data", "Data", "showing 1-50 of 400 pairs"),
    "correlations.png": ("correlations", "Correlations", "Closest to the experts"),
    "run.png": ("run", "Run judges", "Start run"),
    "live.png": ("live", "Live scoring", "Paste text"),
    "calibration.png": ("calibration", "Calibration", "VERT Fig. 2"),
}


def build_demo(store: Path) -> None:
    """The demo store as the Makefile builds it: the demo, then the three offline judges."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    steps = [["demo"]] + [["judge", "--dataset", "demo", "--judge", j] for j in ("rules", "lexical", "length")]
    for step in steps:
        subprocess.run([sys.executable, "-m", "core", "--store", str(store), *step], cwd=ROOT, env=env,
                       check=True, capture_output=True)


def _settle(page) -> None:
    """Wait until Streamlit has finished running the script for this view and drawn every element (a fresh
    server's first view shows grey placeholders, stSkeleton, for a while after the script is done)."""
    page.wait_for_timeout(300)
    page.get_by_test_id("stStatusWidget").wait_for(state="hidden", timeout=UI_TIMEOUT_MS)
    page.wait_for_function("() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
                           timeout=UI_TIMEOUT_MS)
    page.wait_for_timeout(1000)


def shoot(server: str, out: Path, browser) -> list[Path]:
    from playwright.sync_api import expect

    page = browser.new_context(viewport=VIEWPORT).new_page()
    main = page.get_by_test_id("stMain")
    written = []
    for name, (path, title, ready) in SHOTS.items():
        page.goto(f"{server}/{path}?dataset=demo", wait_until="domcontentloaded")
        expect(main.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=UI_TIMEOUT_MS)
        expect(main.get_by_text(ready).first).to_be_visible(timeout=UI_TIMEOUT_MS)
        _settle(page)
        if path == "live":  # the rules judge answers a pasted pair at once
            main.get_by_role("textbox", name="Reference report").fill(LIVE_PAIR[0])
            main.get_by_role("textbox", name="Candidate report").fill(LIVE_PAIR[1])
            main.get_by_role("textbox", name="Candidate report").press("Control+Enter")
            _settle(page)
            expect(main.get_by_text("Misidentification").first).to_be_attached(timeout=UI_TIMEOUT_MS)
        if page.get_by_test_id("stException").count():
            raise SystemExit(f"error: an exception box on /{path}; no screenshot written for it")
        page.screenshot(path=str(out / name))
        written.append(out / name)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="folder for the PNG files")
    args = ap.parse_args(argv)
    from tests.chromium import CHROMIUM, CHROMIUM_ARGS

    if not CHROMIUM.exists():
        print(f"error: {CHROMIUM} is missing (install the Debian chromium package: `make browser`)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    from tests.app.test_browser import serve_dashboard

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="radconcord-shots-") as tmp:
        store = Path(tmp) / "demo.duckdb"
        build_demo(store)
        with serve_dashboard(store, Path(tmp)) as server, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            try:
                written = shoot(server, args.out, browser)
            finally:
                browser.close()
    for path in written:
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
