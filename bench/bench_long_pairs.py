"""Long reports through the ordinary path: ``import-pairs`` of a CSV, then ``judge --judge J``, timed.

For each size ``REF:CAND`` (characters) one pair of report-like text (chest X-ray sentences drawn at random,
seeded) is written to a CSV with one short pair beside it, imported into a new store, and judged by a child
``python -m core`` under an address-space ceiling (``RLIMIT_AS``, ``--limit-gb``) and a wall-clock limit
(``--timeout``). Printed per judge and size: wall seconds, the child's peak RSS (``os.wait4``), its exit status
and what the run recorded for the long pair (scored, or the failure). ``--code DIR`` runs another checkout's
``core`` (e.g. the code before a change: ``git archive COMMIT | tar -x -C DIR``) with this interpreter.

    .venv/bin/python bench/bench_long_pairs.py --sizes 50000:50000,100000:100000,100000:300000 --judges lexical
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = ("Heart size is normal.", "Lungs are clear.", "No pleural effusion or pneumothorax.",
             "Small left pleural effusion.", "Mild cardiomegaly.", "Stable right lower lobe opacity.",
             "No focal consolidation.", "Degenerative changes of the thoracic spine.",
             "Mediastinal contours are unremarkable.", "Interval increase in bibasilar atelectasis.")


def report(chars: int, seed: int) -> str:
    """``chars`` characters of report sentences, drawn at random (seeded)."""
    rng = random.Random(seed)
    out, size = ["FINDINGS:"], 9
    while size < chars:
        s = rng.choice(SENTENCES)
        out.append(s)
        size += len(s) + 1
    return " ".join(out)[:chars]


def write_pairs_csv(path: Path, ref_chars: int, cand_chars: int) -> None:
    """A CSV of two pairs: ``long-1`` (the sizes given) and ``short-1``."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "reference", "candidate"])
        w.writerow(["long-1", report(ref_chars, 1), report(cand_chars, 2)])
        w.writerow(["short-1", "FINDINGS: Heart size is normal. Lungs are clear.",
                    "FINDINGS: Mild cardiomegaly. Lungs are clear."])


# The child is started by a small launcher process, not by the caller: a process forked from a large parent (a
# pytest process after a thousand tests holds over 1 GB) reports the parent's resident pages as its own peak RSS
# (``ru_maxrss`` counts the forked copy before ``exec``), which measured the caller instead of the command.
_LAUNCH = """
import json, os, resource, subprocess, sys, time
spec = json.loads(sys.argv[1])
def ceiling():
    resource.setrlimit(resource.RLIMIT_AS, (spec["limit"], spec["limit"]))
t0 = time.monotonic()
with open(spec["out"], "wb") as out, open(spec["err"], "wb") as err:
    child = subprocess.Popen(spec["argv"], cwd=spec["cwd"], stdout=out, stderr=err, preexec_fn=ceiling)
    status, usage = None, None
    while time.monotonic() - t0 < spec["timeout"]:
        pid, raw, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            status = os.waitstatus_to_exitcode(raw)
            break
        time.sleep(0.05)
    if status is None:
        child.kill()
        _, raw, usage = os.wait4(child.pid, 0)
        status = "timeout"
    child.returncode = -1  # reaped here: Popen must not wait again
print(json.dumps({"wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
                  "peak_rss_mb": round(usage.ru_maxrss / 1024), "status": status}))
"""


def run_limited(argv: list[str], *, cwd: Path, limit_bytes: int, timeout: float) -> dict:
    """Run ``argv`` under ``RLIMIT_AS`` = ``limit_bytes``: wall seconds, CPU seconds, peak RSS (MB), exit status,
    output; killed after ``timeout`` seconds (status "timeout"). Measured by a small launcher process (above)."""
    env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True")
    with tempfile.TemporaryDirectory() as tmp:
        out, err = Path(tmp) / "out", Path(tmp) / "err"
        spec = {"argv": [str(a) for a in argv], "cwd": str(cwd), "limit": int(limit_bytes), "timeout": timeout,
                "out": str(out), "err": str(err)}
        done = subprocess.run([sys.executable, "-c", _LAUNCH, json.dumps(spec)], env=env, capture_output=True,
                              text=True, timeout=timeout + 60)
        if done.returncode != 0:
            raise RuntimeError(f"the launcher failed: {done.stderr[-2000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["stdout"] = out.read_bytes().decode("utf-8", "replace")
        result["stderr"] = err.read_bytes().decode("utf-8", "replace")
        return result


def outcome(stdout: str) -> str:
    """What ``judge --json`` says of the long pair: scored, or its failure."""
    try:
        out = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return "no summary"
    for f in out.get("failures", []):
        if f["ext_id"] == "long-1":
            return f"failure: {f['error'][:90]}"
    return "scored" if out.get("ok") == out.get("requested") else f"ok {out.get('ok')}/{out.get('requested')}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="50000:50000,100000:100000,100000:300000")
    ap.add_argument("--judges", default="lexical")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout whose core runs (default: this one)")
    ap.add_argument("--limit-gb", type=float, default=4.0)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    limit = int(args.limit_gb * 2**30)
    print(f"code: {args.code}  ceiling: {args.limit_gb} GB address space, {args.timeout:.0f} s")
    print(f"{'judge':<8} {'size (chars)':<16} {'wall s':>7} {'cpu s':>7} {'peak MB':>8} {'exit':>7}  long pair")
    for size in args.sizes.split(","):
        ref, cand = (int(x) for x in size.split(":"))
        with tempfile.TemporaryDirectory() as tmp:
            data, store = Path(tmp) / "pairs.csv", Path(tmp) / "s.duckdb"
            write_pairs_csv(data, ref, cand)
            core = [sys.executable, "-m", "core", "--store", str(store)]
            imported = run_limited([*core, "import-pairs", str(data), "--dataset", "long", "--id-col", "id",
                                    "--reference-col", "reference", "--candidate-col", "candidate"],
                                   cwd=args.code, limit_bytes=limit, timeout=args.timeout)
            if imported["status"] != 0:
                print(f"import failed: {imported['stderr'].strip().splitlines()[-1:]}")
                continue
            for judge in args.judges.split(","):
                r = run_limited([*core, "judge", "--dataset", "long", "--judge", judge, "--json"], cwd=args.code,
                                limit_bytes=limit, timeout=args.timeout)
                what = outcome(r["stdout"]) if r["status"] in (0, 4) else \
                    (r["stderr"].strip().splitlines() or ["killed"])[-1][:90]
                print(f"{judge:<8} {size:<16} {r['wall_s']:>7} {r['cpu_s']:>7} {r['peak_rss_mb']:>8} "
                      f"{r['status']!s:>7}  {what}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
