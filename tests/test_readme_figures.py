"""The documentation's results table (docs/offline-judges.md, moved there from the README) is what its own
commands give on a fresh demo: every figure is recomputed through the CLI (demo, the three offline judges,
correlate --n-boot 0, agreement) and compared at the printed precision, and so is the checks paragraph
(docs/report-checks.md), so a change to a judge or to the demo cannot leave the docs stale."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
HEADER = "| judge · metric | tau vs expert score | tau vs significant errors |"
TABLE_PAGE = ROOT / "docs" / "offline-judges.md"
CHECKS_PAGE = ROOT / "docs" / "report-checks.md"


def _readme_rows() -> dict[str, tuple[str, str]]:
    lines = TABLE_PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index(HEADER) + 2  # skip the header's separator line
    rows = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        label, score, sig = (cell.strip() for cell in line.strip("|").split("|"))
        rows[label] = (score, sig)
    return rows


def _cli_json(capsys, *args: str):
    assert main(list(args)) in (0, None)
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def readme_demo(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("readme") / "demo.duckdb"
    assert main(["--store", str(store), "demo"]) in (0, None)  # the README's defaults: 400 pairs, seed 7
    for judge in ("rules", "lexical", "length"):
        assert main(["--store", str(store), "judge", "--dataset", "demo", "--judge", judge]) in (0, None)
    return store


def test_readme_results_table_matches_a_fresh_demo(readme_demo: Path, capsys):
    capsys.readouterr()
    rows = _readme_rows()
    assert len(rows) >= 6
    computed: dict[str, dict[str, float]] = {}
    for target in ("score", "sig_errors"):
        for rec in _cli_json(capsys, "--store", str(readme_demo), "correlate", "--dataset", "demo", "--target",
                             target, "--n-boot", "0", "--json"):
            computed.setdefault(f"{rec['judge']} · {rec['metric']}", {})[target] = abs(rec["tau"])
        agreement = _cli_json(capsys, "--store", str(readme_demo), "agreement", "--dataset", "demo", "--target",
                              target, "--json")
        computed.setdefault("ceiling", {})[target] = agreement["loo_tau"]
    for label, printed in rows.items():
        key = "ceiling" if "ceiling" in label else label
        assert key in computed, f"docs row {label!r} names no judge metric of the demo"
        for target, text in zip(("score", "sig_errors"), printed, strict=True):
            decimals = len(text.split(".")[1])
            assert f"{computed[key][target]:.{decimals}f}" == text, (label, target, computed[key][target])


def test_readme_table_rows_are_ranked_as_printed_within_each_judge():
    rows = _readme_rows()
    for judge in {label.split(" · ")[0] for label in rows if " · " in label}:
        values = [float(score) for label, (score, _) in rows.items() if label.startswith(f"{judge} · ")]
        assert values == sorted(values, reverse=True), judge
    assert re.fullmatch(r"0\.\d{3}", rows[next(iter(rows))][0])


def test_readme_checks_figures_match_a_fresh_demo(readme_demo: Path, tmp_path, capsys):
    """The checks paragraph's verdict counts and tau come from the commands it names, on a copy of the demo."""
    import shutil

    store = tmp_path / "checks.duckdb"
    shutil.copy(readme_demo, store)
    capsys.readouterr()
    out = _cli_json(capsys, "--store", str(store), "checks", "--dataset", "demo", "--json")
    verdicts = {v["verdict"]: v["n"] for v in out["verdicts"]}
    board = _cli_json(capsys, "--store", str(store), "leaderboard", "--dataset", "demo", "--kind", "judges", "--json")
    row = next(r for r in board if r["judge"] == "checks:en-US" and r["metric"] == "laias_overall")
    text = " ".join(CHECKS_PAGE.read_text(encoding="utf-8").split())
    printed = (f"{verdicts['PASS']} PASS / {verdicts['PARTIAL']} PARTIAL / {verdicts['FAIL']} FAIL (all degraded); "
               f"tau of the overall score with the expert score {row['tau']:.3f} (95% CI "
               f"{row['ci_low']:.3f}-{row['ci_high']:.3f}, n = {row['n']})")
    assert printed in text, printed
