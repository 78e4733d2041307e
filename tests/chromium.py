"""The Debian Chromium the browser tests drive through Playwright (its own download cannot work here).

``chromium_browser()`` skips the test (with the reason) when /usr/bin/chromium is missing, and
otherwise yields a headless Playwright browser that is always closed afterwards.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@contextlib.contextmanager
def chromium_browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (install the Debian chromium package: `make browser`)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
