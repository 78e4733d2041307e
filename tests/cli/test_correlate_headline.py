"""The answer in words (issue 43, point 4) and the demo's caveat (point 3), said alike by `correlate`, the
Correlations page and the report: the closest judge with its CI and n, the experts' ceiling in the same
statistic, the paired test against the runner-up; CIs with n in the page's main table."""

from __future__ import annotations

import html
import json
import re

import pytest

from core.cli.main import main
from core.glossary import DEMO_CAVEAT
from core.report import build_report
from core.store.db import Store
from core.taxonomy import MISSING
from tests.apptest_helpers import judged_copy, open_page

#: correlate --json's fields before the headline (issue 43 adds `name`, removes nothing)
OLD_FIELDS = {"judge", "metric", "target", "n", "n_missing", "n_clusters", "tau", "p", "ci_low", "ci_high", "rho",
              "rho_p", "rho_ci_low", "rho_ci_high", "r", "r_p", "r_ci_low", "r_ci_high", "abs_tau", "abs_rho", "abs_r",
              "tau_oriented", "expected_sign", "sign_ok", "dagger", "too_few", "reason", "seed", "n_boot",
              "level", "resampling", "ci_method", "raters", "drop_identical"}


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory) -> Store:
    return judged_copy(demo_store, tmp_path_factory, "headline", "rules", "lexical")


def _run(capsys, *args: str) -> tuple[str, str]:
    assert main(list(args)) == 0
    got = capsys.readouterr()
    return got.out, got.err


def test_correlate_says_the_answer_in_words_from_the_products_own_numbers(judged: Store, capsys):
    store = ["--store", str(judged.path)]
    out, _ = _run(capsys, *store, "correlate", "--dataset", "demo", "--n-boot", "300")
    lines = out.splitlines()
    rows, err = _run(capsys, *store, "correlate", "--dataset", "demo", "--n-boot", "300", "--json")
    rows = json.loads(rows)
    assert OLD_FIELDS <= set(rows[0]) and "name" in rows[0]  # add, don't break
    assert err.startswith("note: Synthetic demo")  # the caveat beside machine output, not inside it

    best = max(rows, key=lambda r: r["tau_oriented"])
    assert best["judge"] == "rules" and best["metric"].startswith("ec_")
    lo, hi = sorted((-best["ci_high"], -best["ci_low"]))  # error counts run against the score: sign-corrected
    assert lines[1] == (f"Closest to the experts: {best['name']}, τ = {best['tau_oriented']:.2f} "
                        f"(95% CI {lo:.2f} to {hi:.2f}; n = {best['n']:,} pairs).")

    loo, _ = _run(capsys, *store, "agreement", "--dataset", "demo", "--json")
    ceiling = json.loads(loo)["loo"]
    assert lines[2].startswith(f"Ceiling: one expert agrees with the other expert at τ = {ceiling:.2f} (n = 120 pairs)")

    runner = max((r for r in rows if r["judge"] != "rules"), key=lambda r: r["tau_oriented"])
    test, _ = _run(capsys, *store, "compare", "--dataset", "demo", "--a", f"rules:{best['metric']}", "--b",
                   f"lexical:{runner['metric']}", "--n-boot", "300", "--json")
    paired = json.loads(test)[0]
    verdict = "significantly better than" if paired["ci_low"] > 0 else "not significantly better than"
    assert lines[3] == (f"It is {verdict} the runner-up, {runner['name']} (τ = {runner['tau_oriented']:.2f}): "
                        f"difference {paired['diff']:+.2f} (95% CI {paired['ci_low']:+.2f} to "
                        f"{paired['ci_high']:+.2f}, paired bootstrap, p = {paired['p_boot']:.2g}, n = 120 pairs).")
    assert lines[4] == DEMO_CAVEAT
    # the table: closest to the experts first, not sorted by judge name
    table = lines[5:]
    assert table[1].strip().startswith(best["name"])

    # the report says the same sentences (one function computes and words them)
    report = html.unescape(build_report(judged, "demo", n_boot=300, seed=0))
    for line in lines[1:4]:
        assert line in report
    assert DEMO_CAVEAT in report


def test_the_page_heads_its_table_with_the_same_words_and_puts_ci_and_n_in_every_cell(judged: Store, capsys,
                                                                                      app_test):
    out, _ = _run(capsys, "--store", str(judged.path), "correlate", "--dataset", "demo", "--json")
    rows = {(r["judge"], r["metric"]): r for r in json.loads(out)}
    words, _ = _run(capsys, "--store", str(judged.path), "correlate", "--dataset", "demo")
    closest = words.splitlines()[1].split(": ", 1)[1]

    at = open_page(app_test, judged, "pages/correlations.py")
    (said,) = [s.value for s in at.success if "Closest to the experts" in s.value]
    said = said.replace("\\", "")  # escape_md's backslashes
    assert closest in said and "Ceiling: one expert agrees" in said and "runner-up" in said
    assert any(DEMO_CAVEAT.split(":")[0] in w.value for w in at.warning)

    shown = at.table[0].value
    rules = rows[("rules", "ec_sig")]
    lo, hi = sorted((-rules["ci_high"], -rules["ci_low"]))
    assert shown.loc["rules", "Significant errors (rules counts)"] == \
        f"{abs(rules['tau']):.3f} · CI {lo:.2f}–{hi:.2f} · n={rules['n']}"
    assert all(re.search(r"· n=\d+$", c) for c in shown.to_numpy().ravel() if c != MISSING)
