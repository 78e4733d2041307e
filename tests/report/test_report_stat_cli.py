"""`report --stat` and `agreement --stat` quote the experts' ceiling in the same statistic (issue 30, item 3)."""

from __future__ import annotations

import json

import pytest

from core.cli.main import main


@pytest.mark.parametrize("stat,symbol", [("rho", "ρ"), ("r", "r")])
def test_report_and_agreement_give_the_ceiling_in_the_chosen_statistic(stat, symbol, demo_store_copy, tmp_path,
                                                                       capsys):
    store = str(demo_store_copy.path)
    assert main(["--store", store, "judge", "--dataset", "demo", "--judge", "rules"]) == 0
    capsys.readouterr()
    assert main(["--store", store, "agreement", "--dataset", "demo", "--stat", stat, "--json"]) == 0
    agreement = json.loads(capsys.readouterr().out)
    assert agreement["stat"] == stat and agreement["loo"] != agreement["loo_tau"]
    out = tmp_path / "r.html"
    assert main(["--store", store, "report", "--dataset", "demo", "--out", str(out), "--stat", stat,
                 "--n-boot", "20"]) == 0
    html = out.read_text(encoding="utf-8")
    assert f"Expert–expert ceiling: one expert agrees with the other expert at {symbol} = " \
           f"<strong>{agreement['loo']:.2f}</strong>" in html
    assert f"--stat {stat}" in html  # the command that re-makes it
