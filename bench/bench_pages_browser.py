"""Every page in a real browser: from the click in the sidebar until the page stops changing.

Starts ``serve.py`` (as ``make run`` does) of one or two code checkouts over a copy of a store, opens
headless Debian Chromium (tests/chromium.py's flags) and clicks every page of the sidebar twice: a
**first visit** (the server's first run of that page: nothing cached) and a **revisit** (the same page
again after all the others, in the same tab), then an **after a restart** visit (a second server started
over the same file: what the first kept in the store, it reads). A page has *stopped changing* when its script run is over
(the last ``new_session`` message of Streamlit's websocket was followed by a ``script_finished`` one:
with ``toolbarMode = "minimal"`` the "Running..." widget is not drawn, and the DOM may not change for
seconds while the server computes) and the DOM has not mutated for ``--quiet-ms`` (500 ms); its time is
the last mutation's, counted from the click (so the quiet window itself is not counted).
A page still changing after ``--timeout`` seconds is reported as ``>timeout``.

With ``--baseline DIR`` (another checkout, e.g. ``git worktree add /tmp/old 62e31da``) both are
measured in the same command, alternating page by page is not possible (one server each), so the two
servers run one after the other, each on its own copy of the store, and the table gives the ratio
current / baseline beside the issue's figures (issue 41, measured on the demo before this work). The
server's CPU seconds (``/proc/PID/stat``) per visit are printed too: they vary less with the
machine's load than wall times.

    .venv/bin/python bench/bench_pages_browser.py --store DEMO.duckdb [--baseline /tmp/old] [--pages ...]

The demo store of the issue: ``python -m core --store X demo`` then ``judge --dataset demo --judge``
rules, lexical and length. The large one: bench/bigstores.py (``discrete_store``, dataset ``bench``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.dashboard_server import ServerDidNotStart, running_dashboard  # noqa: E402

#: sidebar title -> the issue's figures (first visit, revisit), seconds, demo store, before this work
ISSUE_FIGURES = {
    "Correlations": (9.8, 5.2), "Calibration": (5.0, 4.5), "Ensembles & simulator": (5.4, 3.4),
    "Error types": (3.1, 3.0), "Data": (3.5, 2.6), "Live scoring": (1.9, 1.9),
}
PAGES = ("Correlations", "Calibration", "Error types", "Summaries", "Ensembles & simulator", "Data",
         "Run judges", "Live scoring", "Checks & leaderboards", "Edit review", "Distill", "Annotate", "Share")
START = "share"  # the page the tab opens on (the frontend's own load is not timed)

OBSERVER = """
window.__lastMutation = performance.now();
window.__runs = {started: 0, finished: 0, lastStart: 0, lastFinish: 0};
new MutationObserver(() => { window.__lastMutation = performance.now(); })
  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
// Streamlit's ForwardMsg: field 4 new_session opens a script run, field 6 script_finished ends it.
function __scan(buffer) {
  const b = new Uint8Array(buffer); let i = 0;
  const varint = () => { let v = 0, m = 1, x; do { x = b[i++]; v += (x & 127) * m; m *= 128; } while (x & 128 && i < b.length); return v; };
  while (i < b.length) {
    const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
    if (wire === 0) varint(); else if (wire === 2) { const n = varint(); i += n; }
    else if (wire === 1) i += 8; else if (wire === 5) i += 4; else return;
    const now = performance.now();
    if (field === 4) { window.__runs.started++; window.__runs.lastStart = now; }
    if (field === 6) { window.__runs.finished++; window.__runs.lastFinish = now; }
  }
}
const __Socket = window.WebSocket;
window.WebSocket = function (...args) {
  const ws = new __Socket(...args);
  ws.addEventListener("message", ev => {
    if (ev.data instanceof ArrayBuffer) __scan(ev.data);
    else if (ev.data instanceof Blob) ev.data.arrayBuffer().then(__scan);
  });
  return ws;
};
window.WebSocket.prototype = __Socket.prototype;
Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
"""
STATE = """() => [performance.now(), window.__lastMutation,
  window.__runs.lastStart > window.__runs.lastFinish || window.__runs.finished === 0,
  Array.from(document.querySelectorAll('[data-testid="stMain"] h1')).map(h => h.innerText.trim()),
  window.__runs.lastFinish]"""


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its reaped children (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _browser_cpu_seconds() -> float:
    """CPU seconds of this process's descendants (Playwright's driver and Chromium's processes), living or
    reaped by them: the browser's side of a visit (parsing, layout, painting, charts)."""
    parents, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        cpu[pid] = sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    me, total = os.getpid(), 0.0
    for pid in cpu:
        up, seen = parents.get(pid), 0
        while up and up != me and seen < 64:
            up, seen = parents.get(up), seen + 1
        if up == me and pid != me:
            total += cpu[pid]
    return total


@contextlib.contextmanager
def serve(root: Path, store: Path, log: Path):
    """``python serve.py`` of the checkout ``root`` over ``store`` on a free loopback port (tests/dashboard_server.py)."""
    try:
        with running_dashboard(store, log, root=root, env={"RADCONCORD_MODELS": None}, start_timeout_s=90) as (url, proc):
            yield url, proc.pid
    except ServerDidNotStart as exc:
        raise SystemExit(f"the server of {root} did not start: {exc}") from None


def settle(page, title: str, since: float, quiet_ms: float, timeout_s: float) -> float:
    """Seconds from ``since`` (performance.now() of the click) to the last DOM mutation, once the page
    shows ``title`` as its heading, the running indicator is gone and nothing changed for ``quiet_ms``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        now, last, running, headings, finished = page.evaluate(STATE)
        if (not running and finished > since and title in headings and now - last >= quiet_ms
                and now - since >= quiet_ms):
            return (last - since) / 1000
        page.wait_for_timeout(50)
    return float("inf")


def visit(page, title: str, pid: int, quiet_ms: float, timeout_s: float) -> tuple[float, float]:
    """Click ``title`` in the sidebar; (seconds until it stopped changing, server CPU seconds)."""
    cpu0, browser0 = _cpu_seconds(pid), _browser_cpu_seconds()
    link = page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True)
    since = page.evaluate("() => performance.now()")
    link.click()
    seconds = settle(page, title, since, quiet_ms, timeout_s)
    if page.get_by_test_id("stException").count():
        raise SystemExit(f"{title}: the page shows an exception")
    visit.browser = _browser_cpu_seconds() - browser0
    return seconds, _cpu_seconds(pid) - cpu0


def _rounds(url: str, pid: int, dataset: str, pages: list[str], rounds: tuple[str, ...], quiet_ms: float,
            timeout_s: float, label: str, results: dict) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
            page.add_init_script(OBSERVER)
            page.goto(f"{url}/{START}?dataset={dataset}", wait_until="domcontentloaded")
            settle(page, "Share", 0, quiet_ms, timeout_s)
            for round_name in rounds:
                for title in pages:
                    seconds, cpu = visit(page, title, pid, quiet_ms, timeout_s)
                    results[title][round_name] = seconds
                    results[title][f"{round_name}_cpu"] = cpu
                    results[title][f"{round_name}_browser"] = visit.browser
                    print(f"  {label}: {title} {round_name} {seconds:.2f} s (server CPU {cpu:.2f} s, browser CPU "
                          f"{visit.browser:.2f} s)", flush=True)
        finally:
            browser.close()


def measure(root: Path, store: Path, dataset: str, pages: list[str], quiet_ms: float, timeout_s: float,
            folder: Path) -> dict[str, dict[str, float]]:
    """First visit and revisit on a new server; then ``restart``: a first visit on a second server started
    over the same file (what the first one kept in the store, it reads)."""
    copy = folder / f"{root.name}-{store.name}"
    shutil.copyfile(store, copy)
    results: dict[str, dict[str, float]] = {title: {} for title in pages}
    with serve(root, copy, folder / f"{root.name}.log") as (url, pid):
        _rounds(url, pid, dataset, pages, ("first", "revisit"), quiet_ms, timeout_s, root.name, results)
    with serve(root, copy, folder / f"{root.name}-2.log") as (url, pid):
        _rounds(url, pid, dataset, pages, ("restart",), quiet_ms, timeout_s, root.name, results)
    copy.unlink(missing_ok=True)
    Path(f"{copy}.wal").unlink(missing_ok=True)
    return results


def _s(v: float | None, timeout_s: float) -> str:
    if v is None:
        return "–"
    return f">{timeout_s:.0f}" if v == float("inf") else f"{v:.2f}"


def table(current: dict, baseline: dict | None, pages: list[str], timeout_s: float, issue: bool) -> str:
    head = ("| page | first visit (s) | revisit (s) | after a restart (s) | server CPU first / revisit / restart (s) "
            "| browser CPU first / revisit (s) |")
    rule = "| --- | ---: | ---: | ---: | ---: | ---: |"
    if baseline:
        head += " baseline first / revisit / restart (s) | ratio first / revisit / restart |"
        rule += " ---: | ---: |"
    if issue:
        head += " issue's figures (s) | ratio to them |"
        rule += " ---: | ---: |"
    lines = [head, rule]
    for title in pages:
        now = current[title]
        row = (f"| {title} | {_s(now.get('first'), timeout_s)} | {_s(now.get('revisit'), timeout_s)} | "
               f"{_s(now.get('restart'), timeout_s)} | {now.get('first_cpu', 0):.2f} / {now.get('revisit_cpu', 0):.2f}"
               f" / {now.get('restart_cpu', 0):.2f} | {now.get('first_browser', 0):.2f} / "
               f"{now.get('revisit_browser', 0):.2f} |")
        if baseline:
            old = baseline[title]
            ratios = " / ".join(f"{now[k] / old[k]:.2f}" if old.get(k) and old[k] != float("inf") else "–"
                                for k in ("first", "revisit", "restart"))
            row += (f" {_s(old.get('first'), timeout_s)} / {_s(old.get('revisit'), timeout_s)} / "
                    f"{_s(old.get('restart'), timeout_s)} | {ratios} |")
        if issue:
            fig = ISSUE_FIGURES.get(title)
            row += (f" {fig[0]} / {fig[1]} | {now['first'] / fig[0]:.2f} / {now['revisit'] / fig[1]:.2f} |"
                    if fig else " – | – |")
        lines.append(row)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="the store to serve (copied for each server)")
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--baseline", type=Path, help="another checkout to measure in the same command")
    parser.add_argument("--pages", nargs="*", default=list(PAGES), help="sidebar titles (default: every page)")
    parser.add_argument("--quiet-ms", type=float, default=500)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        baseline = None
        if args.baseline:
            print(f"baseline {args.baseline}", flush=True)
            baseline = measure(args.baseline.resolve(), args.store, args.dataset, args.pages, args.quiet_ms,
                               args.timeout, folder)
        print(f"current {ROOT}", flush=True)
        current = measure(ROOT, args.store, args.dataset, args.pages, args.quiet_ms, args.timeout, folder)
    load_after = os.getloadavg()
    print()
    print(table(current, baseline, args.pages, args.timeout, issue=args.dataset == "demo"))
    print()
    print(f"Store {args.store.name} (dataset {args.dataset}); quiet window {args.quiet_ms:.0f} ms; "
          f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
