"""The first live score after a server start, in a real browser: click to answer, in seconds.

A researcher starts the dashboard, opens Live scoring, pastes a pair and clicks
"Score with the models". The time from that click until the model's answer is
on screen is what they wait. Per pass: a new server process (``python
serve.py``, as ``make run`` starts it, or plain ``streamlit run app.py``), a
model configured against the loopback fake server, Debian Chromium driven by
Playwright. Then a second click on new text in the same session: the warm
figure, with litellm long imported, is the floor to compare against.

    .venv/bin/python bench/bench_live_start.py --repeat 3 --latency 0.2
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.benchlib import parser, start_fake_server  # noqa: E402
from bench.perfdoc import finish  # noqa: E402
from core.ingest.demo import build_demo  # noqa: E402
from core.store.db import Store  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
MODEL = "openai/live-bench"
REFERENCE = "FINDINGS: Moderate left pleural effusion. No pneumothorax. Heart size is normal."
CANDIDATE = "FINDINGS: Small right pleural effusion. Small pneumothorax. Heart is normal."


# `streamlit run app.py` with the litellm preload turned into a no-op: how the first score ran before.
_NO_PRELOAD = """
import sys
import core.judges.llm as llm
llm.preload_litellm = lambda: None
from streamlit.web import cli
sys.argv = ["streamlit", *sys.argv[1:]]
sys.exit(cli.main())
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(launcher: str, store: Path, url: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = dict(os.environ, RADCONCORD_STORE=str(store), RADCONCORD_MODELS=MODEL, RADCONCORD_API_BASE=url,
               LITELLM_LOCAL_MODEL_COST_MAP="True", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
               PYTHONPATH=str(ROOT))
    env.pop("RADCONCORD_LOCAL_ONLY", None)
    opts = ["--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1"]
    cmd = {"serve": [sys.executable, str(ROOT / "serve.py"), *opts],
           "streamlit": [sys.executable, "-m", "streamlit", "run", "app.py", *opts],
           "none": [sys.executable, "-c", _NO_PRELOAD, "run", "app.py", *opts]}[launcher]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return proc, base
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the dashboard did not come up in 60 s")


def _score(page, reference: str, candidate: str) -> float:
    """Paste, click, and wait until the model's answer for this text is shown; seconds from the click."""
    page.get_by_label("Reference report").fill(reference)
    page.get_by_label("Candidate report").fill(candidate)
    page.keyboard.press("Tab")  # commit the text area (Streamlit reruns on blur)
    button = page.get_by_role("button", name="Score with the models")
    page.wait_for_function("b => !b.disabled", arg=button.element_handle(), timeout=60_000)
    page.wait_for_timeout(500)  # let the blur's rerun finish: the click must be the only thing timed
    main = page.get_by_test_id("stMain")
    heading = page.get_by_text(MODEL + " · green")
    before = main.inner_text() if heading.count() else None  # a previous answer: wait for a new one
    t0 = time.perf_counter()
    button.click()
    deadline = time.monotonic() + 120
    while not (heading.count() and (before is None or main.inner_text() != before)):
        if time.monotonic() > deadline:
            page.screenshot(path=str(Path(tempfile.gettempdir()) / "bench_live_start.png"), full_page=True)
            raise SystemExit("no answer within 120 s (screenshot in the temp folder: bench_live_start.png)")
        time.sleep(0.02)
    return time.perf_counter() - t0


def _pass(pw, launcher: str, store: Path, url: str) -> tuple[float, float, float]:
    t_start = time.perf_counter()
    proc, base = _start(launcher, store, url)
    up = time.perf_counter() - t_start
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{base}/live", wait_until="domcontentloaded")
        page.get_by_label("Reference report").wait_for(timeout=60_000)
        first = _score(page, REFERENCE, CANDIDATE)
        warm = _score(page, REFERENCE + " Mild cardiomegaly.", CANDIDATE)
    finally:
        browser.close()
        proc.terminate()
        proc.wait(timeout=20)
    return up, first, warm


def main() -> None:
    ap = parser(__doc__, latency=0.2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="replace this benchmark's section of docs/PERFORMANCE.md")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    store = Path(tempfile.mkdtemp()) / "live.duckdb"
    build_demo(Store(store), n_pairs=40, seed=7)
    server, url = start_fake_server("--latency", str(args.latency))
    load_before = os.getloadavg()[0]
    results: dict[str, list[tuple[float, float, float]]] = {"serve": [], "streamlit": [], "none": []}
    try:
        with sync_playwright() as pw:
            for _ in range(args.repeat):  # interleaved: both launchers meet the same load
                for launcher in results:
                    results[launcher].append(_pass(pw, launcher, store, url))
    finally:
        server.terminate()
        server.wait()
    load_after = os.getloadavg()[0]

    def med(launcher: str, i: int) -> float:
        return statistics.median(r[i] for r in results[launcher])

    names = {"serve": "`python serve.py` (make run): litellm imported as the server starts",
             "streamlit": "`streamlit run app.py`: litellm imported from the first page run",
             "none": "baseline: no preload (litellm imported by the click, as before)"}
    lines = ["### First live score after a server start", "",
             f"Command: `.venv/bin/python bench/bench_live_start.py --repeat {args.repeat} --latency {args.latency}` "
             f"(load average {load_before:.2f} before, {load_after:.2f} after). Click on \"Score with the models\" "
             f"to the answer on screen, Chromium + Playwright, model answering in {args.latency * 1000:.0f} ms.", "",
             "| launcher | server up (s) | first score (s) | passes | warm score (s) |",
             "| --- | ---: | ---: | --- | ---: |"]
    for launcher, rows in results.items():
        passes = ", ".join(f"{r[1]:.2f}" for r in rows)
        lines.append(f"| {names[launcher]} | {med(launcher, 0):.2f} | **{med(launcher, 1):.2f}** | {passes} | "
                     f"{med(launcher, 2):.2f} |")
    finish("### First live score after a server start", lines, args.write)


if __name__ == "__main__":
    main()
