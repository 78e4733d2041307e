"""The Correlations page at scale: 50,000 pairs x 20 judge runs = 1,000,000 judge outputs.

Builds (once, cached on disk by its parameters) a store with one synthetic
dataset ``bench``: ``--pairs`` pairs (4 candidates per reference, so the
bootstrap resamples ``pairs / 4`` reference groups), two annotators scoring
every pair 0-5 and counting significant / insignificant errors, and ``--runs``
judge runs, each with one stored output per pair and two metric values per
output (``green`` and ``ec_sig``: the discrete scores an LLM judge writes;
2,000,000 metric values at the defaults). Frames are generated with numpy and
bulk-inserted through ``Store.write()`` (register + ``INSERT ... SELECT``).

Then it drives ``pages/correlations.py`` through Streamlit's AppTest, as a
browser session would, and times:

* **first render**: a new session on a cold cache, data and resources (the page
  reads the store, builds the correlation frame, the table's point estimates and
  p-values, the heatmap and the ceiling; bootstrap CIs above ``BOOT_BUDGET`` wait
  for a click, timed separately);
* **filter change**: the same session picks one modality (a new table for the
  filtered pairs);
* **revisit**: a new session opening the same view (every table cached);
* **detail**: the first session picks a judge (on the large store the one-judge-metric detail waits
  for that choice; on the demo another judge than the one shown).

The baseline is the same page, same steps, on the 400-pair demo store with
the rules and lexical judges (what ``python -m core demo`` plus two offline
runs gives). Prints a markdown table; ``--write`` appends it to
docs/PERFORMANCE.md (append only).

    .venv/bin/python bench/bench_page.py [--pairs 50000] [--runs 20] [--write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shlex
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from core.store.db import Store, content_hash_for, insert_metric_values, new_pair_numbers, stable_hash  # noqa: E402
from ui.shared import DETAIL_PAIRS  # noqa: E402

DATASET = "bench"
MODALITIES = ("CT", "MRI", "XR", "US", "CTA", "MG")
ANATOMIES = ("chest", "abdomen", "brain", "knee", "pelvis", "breast", "liver", "spine", "hip", "neck")
SYSTEMS = ("sys-careful", "sys-sloppy", "sys-terse", "sys-hallucinating")
SPLITS = ("train", "val", "test")
FIRST_RENDER_BUDGET_S = 2.0
FILTER_BUDGET_S = 0.5


# -- the store -------------------------------------------------------------------------------


def _ids(prefix: str, n: int) -> np.ndarray:
    return np.char.add(prefix, np.char.zfill(np.arange(n).astype(str), 6))


def build_store(path: Path, n_pairs: int, n_runs: int, seed: int = 0) -> Store:
    """Write the synthetic dataset, annotations and runs in one transaction each."""
    rng = np.random.default_rng(seed)
    store = Store(path)
    ext = _ids("b-", n_pairs)
    pair_ids = np.array([stable_hash("pair", DATASET, e) for e in ext])
    quality = rng.uniform(0, 1, n_pairs)
    n_findings = rng.integers(1, 8, n_pairs)
    identical = rng.uniform(0, 1, n_pairs) < 0.02
    reference = np.char.add("Finding list ", ext)
    candidate = np.where(identical, reference, np.char.add("Candidate for ", ext))
    pairs = pd.DataFrame({
        "pair_id": pair_ids, "dataset": DATASET, "ext_id": ext, "reference": reference, "candidate": candidate,
        "group_id": np.char.add("ref-", (np.arange(n_pairs) // 4).astype(str)),
        "system": np.array(SYSTEMS)[np.arange(n_pairs) % 4],
        "modality": np.array(MODALITIES)[rng.integers(0, len(MODALITIES), n_pairs)],
        "anatomy": np.array(ANATOMIES)[rng.integers(0, len(ANATOMIES), n_pairs)],
        "split": np.array(SPLITS)[rng.choice(3, n_pairs, p=[0.6, 0.2, 0.2])],
        "meta": "{}",
        "content_hash": [content_hash_for(r, c) for r, c in zip(reference, candidate, strict=True)],
        "identical": identical,  # as the importer stores it: the candidates that copy their reference
    })
    # experts: errors fall with quality; identical pairs have none
    true_sig = np.where(identical, 0, rng.poisson(3 * (1 - quality)))
    ann_parts, score_parts = [], []
    for a, annotator in enumerate(("expert_1", "expert_2")):
        sig = np.clip(true_sig + (rng.integers(-1, 2, n_pairs) if a else 0), 0, None)
        sig = np.where(identical, 0, sig)
        insig = np.where(identical, 0, rng.poisson(1.0, n_pairs))
        cat_sig = np.array(list("abcdef"))[rng.integers(0, 6, n_pairs)]
        cat_insig = np.array(list("abcdef"))[rng.integers(0, 6, n_pairs)]
        for cat, sig_flag, value in ((cat_sig, True, sig), (cat_insig, False, insig)):
            ann_parts.append(pd.DataFrame({"pair_id": pair_ids, "annotator": annotator, "field": "error_count",
                                           "category": cat, "significant": sig_flag,
                                           "value": value.astype(float), "scale_max": np.nan}))
        score = np.where(identical, 5, np.clip(np.rint(5 - sig - 0.3 * insig + rng.normal(0, 0.6, n_pairs)), 0, 5))
        score_parts.append(pd.DataFrame({"pair_id": pair_ids, "annotator": annotator, "field": "score",
                                         "category": None, "significant": None, "value": score.astype(float),
                                         "scale_max": 5.0}))
    annotations = pd.concat(ann_parts + score_parts, ignore_index=True).assign(source="bench")

    with store.write() as conn:
        conn.execute("INSERT INTO datasets (name, kind, source, license, synthetic, version, description) "
                     "VALUES (?, 'error_counts', 'bench/bench_page.py', 'synthetic', TRUE, ?, ?)",
                     [DATASET, f"pairs={n_pairs} runs={n_runs} seed={seed}", "page benchmark corpus"])
        conn.register("p_df", pairs)
        conn.execute("INSERT INTO pairs BY NAME SELECT pair_id, dataset, ext_id, reference, candidate, group_id, "
                     f"system, modality, anatomy, split, meta, content_hash, identical, "
                     f"{new_pair_numbers('pair_id')} AS pair_no FROM p_df")
        conn.unregister("p_df")
        conn.register("a_df", annotations)
        conn.execute("INSERT INTO annotations (pair_id, annotator, field, category, significant, value, "
                     "scale_max, source) SELECT pair_id, annotator, field, category, significant, value, "
                     "scale_max, source FROM a_df")
        conn.unregister("a_df")

    # judges: each run sees the true errors with its own noise level and bias
    for r in range(n_runs):
        run_id = stable_hash("run", DATASET, str(r))
        noise = 0.3 + 1.2 * r / max(1, n_runs - 1)
        found = np.clip(np.rint(true_sig + rng.normal(0, noise, n_pairs)), 0, 12).astype(int)
        matched = np.clip(n_findings - np.minimum(found, n_findings) // 2, 0, None)
        green = np.where(matched > 0, matched / (matched + found), 0.0)
        outputs = pd.DataFrame({"run_id": run_id, "pair_id": pair_ids,
                                "cache_key": [f"{run_id}-{i}" for i in range(n_pairs)],
                                "raw_text": "[Clinically Significant Errors]: ...", "parse_status": "ok"})
        values = pd.concat([
            pd.DataFrame({"run_id": run_id, "pair_id": pair_ids, "metric": "green", "value": green}),
            pd.DataFrame({"run_id": run_id, "pair_id": pair_ids, "metric": "ec_sig", "value": found.astype(float)}),
        ], ignore_index=True)
        with store.write() as conn:
            conn.execute("INSERT INTO judge_runs (run_id, judge_kind, judge_name, model, prompt_id, prompt_hash, "
                         "params, dataset, status, n_requested, n_ok, n_failed, finished_at) VALUES "
                         "(?, 'llm', ?, ?, 'green', 'bench', ?, ?, 'done', ?, ?, 0, current_timestamp)",
                         [run_id, f"bench-model-{r:02d}", f"bench-model-{r:02d}", json.dumps({"noise": noise}),
                          DATASET, n_pairs, n_pairs])
            conn.register("o_df", outputs)
            conn.execute("INSERT INTO judge_outputs (run_id, pair_id, cache_key, raw_text, parse_status) "
                         "SELECT run_id, pair_id, cache_key, raw_text, parse_status FROM o_df")
            conn.unregister("o_df")
            conn.register("v_df", values)
            insert_metric_values(conn, "SELECT run_id, pair_id, metric, value FROM v_df")
            conn.unregister("v_df")
    return store


def bench_store(n_pairs: int, n_runs: int, folder: Path) -> tuple[Store, float]:
    """The benchmark store, built once per (pairs, runs) and reused; returns it and its build time."""
    key = hashlib.sha1(f"{n_pairs}-{n_runs}-v2".encode()).hexdigest()[:8]  # v2: pair_no (migration 005)
    path = folder / f"bench-page-{n_pairs}x{n_runs}-{key}.duckdb"
    if path.exists():
        return Store(path), 0.0
    tmp = path.with_suffix(".tmp")  # data/*.tmp is git-ignored
    for p in (tmp, Path(f"{tmp}.wal")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    build_store(tmp, n_pairs, n_runs)
    tmp.rename(path)
    return Store(path), time.perf_counter() - t0


def demo_store(folder: Path, n_pairs: int = 400) -> Store:
    """The baseline: ``python -m core demo --pairs 400`` plus the rules and lexical judges."""
    from core.ingest.demo import build_demo
    from core.judges import run_judge

    path = folder / f"bench-page-demo-{n_pairs}.duckdb"
    if path.exists():
        return Store(path)
    tmp = path.with_suffix(".tmp")  # data/*.tmp is git-ignored
    tmp.unlink(missing_ok=True)
    store = Store(tmp)
    build_demo(store, n_pairs=n_pairs, seed=3)
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical")
    tmp.rename(path)
    return Store(path)


# -- driving the page ------------------------------------------------------------------------------


def _app(path: Path, page: str = "pages/correlations.py"):
    """An AppTest of app.py on ``page`` (the Correlations page), the way tests/conftest.py builds one."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_steady import keep_steady

    keep_steady()
    os.environ["RADCONCORD_STORE"] = str(path.resolve())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at._bidi_component_manager = component_registry()  # once per process, as a server does at start-up
    at.switch_page(page)
    return at


def component_registry():
    """Streamlit's custom-component registry, discovered once and shared by every AppTest here.

    A server scans the installed packages' metadata for components once, when it starts; AppTest does it
    again for every new AppTest (about 1 s with the ~470 distributions of `make test`'s environment),
    which no browser session pays. Timed once in ``component_registry.seconds``.
    """
    if getattr(component_registry, "shared", None) is None:
        from streamlit.components.v2.component_manager import BidiComponentManager

        t0 = time.perf_counter()
        manager = BidiComponentManager()
        manager.discover_and_register_components(start_file_watching=False)
        component_registry.seconds = time.perf_counter() - t0
        component_registry.shared = manager
    return component_registry.shared


def _timed(action) -> tuple[float, object]:
    t0, c0 = time.perf_counter(), time.process_time()
    out = action()
    _timed.cpu = time.process_time() - c0  # CPU seconds of this process (all threads, DuckDB's too)
    return time.perf_counter() - t0, out


def _check(at, what: str) -> None:
    if at.exception:
        raise SystemExit(f"{what}: the page raised {[e.value for e in at.exception]}")
    if not at.table:
        raise SystemExit(f"{what}: no judge x metric table on the page")


def drive(path: Path, modality: str, ci: bool) -> dict[str, float]:
    """One pass: cold first render, a filter change, back, a new session; optionally CIs on request."""
    import streamlit as st

    st.cache_data.clear()  # a freshly started server: nothing cached (data or resources: the
    st.cache_resource.clear()  # page keeps its big frames as resources)
    at = _app(path)
    out = {}
    out["first"], _ = _timed(at.run)
    out["first_cpu"] = _timed.cpu
    _check(at, "first render")
    out["filter"], _ = _timed(lambda: at.multiselect(key="corr_modality").set_value([modality]).run())
    out["filter_cpu"] = _timed.cpu
    _check(at, "filter change")
    out["back"], _ = _timed(lambda: at.multiselect(key="corr_modality").set_value([]).run())
    out["back_cpu"] = _timed.cpu
    _check(at, "filter removed")
    # one judge metric's detail: a large dataset opens without it (it waits for a choice); pick a judge
    # (on the demo, another judge than the one shown)
    box = at.selectbox(key="corr_judge")
    pick = next(o for o in box.options if o != box.value)
    out["detail"], _ = _timed(lambda: box.set_value(pick).run())
    out["detail_cpu"] = _timed.cpu
    _check(at, "detail")
    if not at.get("plotly_chart"):
        raise SystemExit("detail: no scatter or heatmap after choosing a judge")
    again = _app(path)
    out["revisit"], _ = _timed(again.run)
    out["revisit_cpu"] = _timed.cpu
    _check(again, "revisit")
    out["ci_deferred"] = float(any(b.key and b.key.startswith("corr_boot_go_") for b in again.button))
    if ci:
        buttons = [b for b in again.button if b.key and b.key.startswith("corr_boot_go_")]
        if buttons:
            out["ci"], _ = _timed(lambda: buttons[0].click().run())
            out["ci_cpu"] = _timed.cpu
            _check(again, "CIs on request")
        else:
            out["ci"] = out["ci_cpu"] = math.nan
    return out


def compile_overhead(repeat: int = 5) -> float:
    """Seconds to compile app.py and the page the way Streamlit does (with magic), which AppTest
    repeats on every run and a server does once."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        cache = ScriptCache()
        cache.get_bytecode(str(ROOT / "app.py"))
        cache.get_bytecode(str(ROOT / "pages" / "correlations.py"))
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _fmt(v: float) -> str:
    return "–" if math.isnan(v) else f"{v:.2f}"


def _median(runs: list[dict], key: str) -> float:
    values = [r[key] for r in runs if key in r and not math.isnan(r[key])]
    return statistics.median(values) if values else math.nan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="passes per store (medians reported)")
    parser.add_argument("--no-ci", action="store_true", help="skip timing the CIs computed on request")
    parser.add_argument("--kind", choices=("discrete", "continuous"), default="discrete",
                        help="discrete: this file's store (green / ec_sig as an LLM judge writes them); continuous: "
                             "bench/bigstores.py's (imported scores with 4 decimals, one 0-5 expert score)")
    parser.add_argument("--folder", type=Path, default=ROOT / "data", help="where the stores are kept")
    parser.add_argument("--write", action="store_true",
                        help="replace the Correlations page section of docs/PERFORMANCE.md with the table")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "PERFORMANCE.md")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)

    base = demo_store(args.folder)
    if args.kind == "continuous":
        from bigstores import continuous_store

        path, build_s = continuous_store(args.pairs, args.runs, args.folder)
        big = Store(path)
    else:
        big, build_s = bench_store(args.pairs, args.runs, args.folder)
    n_outputs = big.query_one("SELECT count(*) FROM judge_outputs")
    n_values = big.query_one("SELECT count(*) FROM metric_values")
    print(f"store: {big.path} ({n_outputs:,} judge outputs, {n_values:,} metric values"
          + (f", built in {build_s:.1f} s)" if build_s else ", reused)"), flush=True)

    drive(base.path, "CT", ci=False)  # warm-up: imports (plotly, scipy, ...) are not the page's cost
    load_before = os.getloadavg()[0]
    results: dict[str, list[dict]] = {"demo": [], "bench": []}
    for i in range(args.repeat):  # interleaved, so both stores see the same load on the shared cores
        for name, store, modality in (("demo", base, "CT"), ("bench", big, MODALITIES[0])):
            run = drive(store.path, modality, ci=not args.no_ci and name == "bench" and i == 0)
            results[name].append(run)
            print(f"{name} pass {i + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in run.items()), flush=True)

    rows = [
        ("first render, cold cache (new server)", "first", FIRST_RENDER_BUDGET_S),
        ("filter change (one modality, not cached)", "filter", FILTER_BUDGET_S),
        ("filter removed (cached view)", "back", FILTER_BUDGET_S),
        ("first render, new session, warm cache", "revisit", FIRST_RENDER_BUDGET_S),
        ("one judge metric's detail on choosing a judge (scatter, pairs, heatmap, paired test)", "detail",
         math.nan),
    ]
    if not args.no_ci:
        rows.append(("CIs on request, whole table (the page's 'auto' method: bootstrap, 1,000 resamples, up to "
                     "5,000 pairs, else asymptotic)", "ci", math.nan))
    cmd = ".venv/bin/python bench/bench_page.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"{SECTION if args.kind == 'discrete' else CONTINUOUS_SECTION} {args.pairs:,} pairs x {args.runs} runs = "
        f"{n_outputs:,} judge outputs",
        "",
        f"{when}, {platform.machine()}, Python {platform.python_version()}. Command: `{cmd.strip()}`",
        "",
        f"| step (AppTest, median of {args.repeat}) | demo, 400 pairs, rules + lexical (s) | "
        f"{args.pairs:,} pairs x {args.runs} runs (s) | ratio | target (s) | met | CPU s, large |",
        "| --- | ---: | ---: | ---: | ---: | :---: | ---: |",
    ]
    for label, key, budget in rows:
        a, b = _median(results["demo"], key), _median(results["bench"], key)
        ratio = f"{b / a:.1f}x" if a and not math.isnan(a) and not math.isnan(b) else "–"
        met = "–" if math.isnan(budget) or math.isnan(b) else ("yes" if b < budget else "**no**")
        cpu = _median(results["bench"], f"{key}_cpu")
        lines.append(f"| {label} | {_fmt(a)} | {_fmt(b)} | {ratio} | {_fmt(budget)} | {met} | {_fmt(cpu)} |")
    deferred = _median(results["bench"], "ci_deferred")
    compile_s = compile_overhead()
    load_after = os.getloadavg()[0]
    store_note = (f"Store: {n_values:,} metric values (`green` and `ec_sig` per output: discrete scores, as an LLM "
                  f"judge writes them), 2 annotators (score 0-5 and error counts), {args.pairs // 4:,} reference "
                  "groups of 4 candidates (the bootstrap resamples groups)."
                  if args.kind == "discrete" else
                  f"Store (bench/bigstores.py, built through the CLI): {n_values:,} metric values, one per output, "
                  "continuous (imported scores with 4 decimals: nearly every value distinct), one expert's 0-5 "
                  f"score, {args.pairs // 4:,} reference groups of 4 candidates.")
    lines += [
        "",
        store_note + " Each pass starts with "
        "`st.cache_data.clear()` and `st.cache_resource.clear()` (the page keeps its pairs x series "
        "matrix as a resource), so a first render reads the store as a freshly started server does; demo "
        "and large passes alternate. The filter change picks one of 6 modalities (~1/6 of the pairs). "
        f"Above {DETAIL_PAIRS:,} pairs the page opens without one judge metric's detail (scatter, pairs, "
        "heatmap, paired test) and shows it when the user picks a judge (timed as its own step); on the "
        "demo the best judge metric's detail is part of the first render. "
        f"Bootstrap CIs {'wait for a click at this size' if deferred else 'were computed automatically'} "
        "(more than `BOOT_BUDGET` pair-resamples); the table's |tau|, p and daggers never wait. "
        f"AppTest recompiles app.py and the page on every run (a server compiles them once): "
        f"{compile_s:.2f} s of every step above. Streamlit's component discovery, which a server does once "
        f"at start-up and AppTest for every new AppTest, ran once here ({component_registry.seconds:.2f} s) and "
        "is not in the first renders. The machine's 2 cores are shared with other jobs "
        f"(1-minute load average {load_before:.1f} before the passes, {load_after:.1f} after), so wall "
        "times vary between runs; the CPU column (this process's CPU seconds, all threads) varies less.",
        "",
    ]
    table = "\n".join(lines)
    print()
    print(table)
    if args.write:
        replace_section(args.out, table, SECTION if args.kind == "discrete" else CONTINUOUS_SECTION)
        print(f"wrote the section to {args.out}")
    return 0


SECTION = "### Correlations page:"
CONTINUOUS_SECTION = "### Correlations page, continuous scores:"


def replace_section(path: Path, table: str, section: str = SECTION) -> None:
    """Put ``table`` in place of the file's Correlations page section (up to the next ``### `` or
    ``<!--`` marker), or append it when there is none; the rest of the file is left as it is."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start = text.find(section)
    if start < 0:
        path.write_text(text.rstrip("\n") + "\n\n" + table, encoding="utf-8")
        return
    ends = [i for i in (text.find("\n### ", start + len(section)), text.find("\n<!--", start)) if i >= 0]
    end = min(ends) if ends else -1  # the next section, or another benchmark's marked block
    rest = "" if end < 0 else text[end + 1:]
    path.write_text(text[:start] + table + ("\n" + rest if rest else ""), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
