"""The self-contained HTML report (core/report/html.py): contents, escaping, offline rendering in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from plotly.offline import get_plotlyjs
from scipy import stats as sps

from core.judges import run_judge
from core.reads.frames import correlation_frame
from core.reads.targets import annotator_values, load_annotations
from core.report import build_report, collect, json_for_script
from core.store.db import Store
from tests.chromium import chromium_browser
from tests.cli_inprocess import run_cli
from tests.conftest import copy_store

ROOT = Path(__file__).resolve().parents[2]
N_BOOT = 200
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=2">'


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory) -> Store:
    store = copy_store(demo_store, tmp_path_factory.mktemp("report") / "judged.duckdb")
    run_judge(store, dataset="demo", judge="rules")
    run_judge(store, dataset="demo", judge="lexical")
    return store


@pytest.fixture(scope="module")
def report(judged: Store) -> str:
    return build_report(judged, "demo", n_boot=N_BOOT, seed=0)


@pytest.fixture(scope="module")
def hostile(judged: Store, tmp_path_factory) -> tuple[Store, str]:
    """The judged demo with markup in every candidate report, the rules judge's name and its error texts."""
    store = copy_store(judged, tmp_path_factory.mktemp("hostile") / "hostile.duckdb")
    store.execute("UPDATE pairs SET candidate = candidate || ? WHERE dataset = 'demo'", [f" {SCRIPT} {IMG}"])
    store.execute("UPDATE judge_runs SET judge_name = ? WHERE judge_kind = 'rules'", [f"rules{SCRIPT}"])
    store.execute("UPDATE judge_errors SET text = text || ?", [f" {IMG} {SCRIPT}"])
    return store, build_report(store, "demo", n_boot=50, seed=0)


def _without_bundle(html: str) -> str:
    return html.replace(get_plotlyjs(), "")


# -- contents ---------------------------------------------------------------------------------------------


def test_report_has_every_section_and_the_synthetic_banner(report: str):
    for section in ("summary", "correlations", "calibration", "f1", "green-summary", "methods"):
        assert f'<section id="{section}">' in report
    assert report.count("<table class='corr'>") == 2  # score and significant errors
    assert "SYNTHETIC DATA" in report and "(synthetic data)</title>" in report
    assert "bold = best, underline = second best" in report
    assert re.search(r"<td>0\.\d{3}[^<]*<span class='ci'>CI 0\.\d\d–0\.\d\d<br>n = 120</span>", report)
    assert "<td><strong>" not in report  # rules and lexical report different metrics: no cell is compared
    # provenance: both runs with their params, bootstrap settings, version and command
    assert ">rules<" in report and ">lexical<" in report and "sacrebleu" in report
    assert f"{N_BOOT:,} resamples, seed 0" in report
    assert "RadConcord</th><td>0." in report
    assert "core.report.html.build_report(store, &#x27;demo&#x27;, n_boot=200, seed=0" in report


def test_summary_numbers_match_an_independent_computation(judged: Store, report: str):
    # the best judge on significant errors: rules' ec_sig; tau against the experts' mean count
    frame = correlation_frame(judged, "demo", "sig_errors")
    best = {}
    for (judge, metric), g in frame.groupby(["judge", "metric"]):
        if metric in ("ec_sig", "ec_total", "green", "green_f1", "formula", "bleu4", "rouge_l"):
            sign = 1 if metric.startswith("ec_") else -1
            best[(judge, metric)] = sign * sps.kendalltau(g["value"], g["target"]).statistic
    (judge, metric), tau = max(best.items(), key=lambda kv: kv[1])
    assert (judge, metric) == ("rules", "ec_sig")
    # the headline in words first (core.analysis.headline, as the page and `correlate`), named by whose counts
    # they are; the formula behind the "details" fold
    assert f"<p class='headline'>Closest to the experts: Significant errors (rules counts), τ = {tau:.2f} (95% CI" \
        in report
    assert (f"<strong>{judge} (offline judge: pattern rules that compare the findings of the two reports; no "
            f"model, no key)</strong>, scored by Significant errors (rules counts) — S: sum of clinically significant "
            f"error counts over (a)-(f) (<code>{metric}</code>): Kendall's τ = <strong>{tau:.2f}</strong>") in report
    assert report.index("<p class='headline'>") < report.index("<details><summary>How these figures are computed")
    assert "<section id=\"glossary\"><h2>Glossary</h2>" in report and "<dt>Kendall's τ-b (tau)</dt>" in report
    # the ceiling: Kendall tau between the two experts' counts
    values = annotator_values(load_annotations(judged, "demo"))
    wide = values[values["target"] == "sig_errors"].pivot(index="pair_id", columns="annotator", values="value")
    ceiling = sps.kendalltau(wide["expert_1"], wide["expert_2"]).statistic
    # two experts: leave-one-out (one against the other's "mean") is the pairwise tau itself
    assert f"one expert agrees with the other expert at τ = <strong>{ceiling:.2f}</strong>" in report
    assert f"Two single experts agree at τ = {ceiling:.2f} (mean pairwise)" in report
    assert "(ratio level)" in report
    assert "n = 120 pairs" in report


def test_plotly_is_inlined_once_and_nothing_is_fetched(report: str):
    bundle = get_plotlyjs()
    assert report.count(bundle) == 1
    assert report.count("<script type='application/json' data-chart=") == 2
    assert not re.search(r"(?i)<script[^>]*\bsrc\s*=", report)
    assert not re.search(r"(?i)<link\b|@import|<iframe|<object|<embed", report)
    rest = _without_bundle(report)
    # no URL of any kind outside the plotly.js bundle (its licence comments and map-tile defaults stay inert)
    assert not re.search(r"(?i)https?:|//[a-z0-9-]+\.[a-z]{2,}|\b(?:src|href)\s*=|url\(", rest)
    assert "default-src &#x27;none&#x27;" in report  # the CSP forbids any fetch


def test_chart_data_is_json_that_cannot_end_its_script_block():
    text = json.dumps({"name": "</script><script>alert(1)</script> & <!--"})
    safe = json_for_script(text)
    assert "<" not in safe and ">" not in safe and "&" not in safe
    assert json.loads(safe) == json.loads(text)


def test_report_escapes_report_text_judge_names_and_error_texts(hostile):
    _, html = hostile
    assert SCRIPT not in html and IMG not in html
    assert "onerror=" not in _without_bundle(html).replace("onerror=&quot;", "")
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html  # shown as text
    assert "&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;" in html
    assert "rules&lt;script&gt;" in html  # the judge name, in the tables and the summary
    blocks = re.findall(r"<script type='application/json' data-chart='[^']+'>(.*?)</script>", html, re.S)
    assert len(blocks) == 2 and all("<" not in b for b in blocks)
    assert any("pwned" in b for b in blocks)  # the judge name reached the chart, escaped


def test_a_dataset_without_runs_says_what_to_do(demo_store: Store):
    html = build_report(demo_store, "demo", n_boot=0)
    assert "No judge runs on this dataset yet" in html
    assert "python -m core judge --dataset demo --judge rules" in html
    assert "<script" not in html  # no charts, so no plotly either
    with pytest.raises(ValueError, match="dataset 'nope' not found"):
        collect(demo_store, "nope")


def test_cli_report_writes_the_file_and_records_the_command(judged: Store, tmp_path):
    out = tmp_path / "sub" / "r.html"
    done = run_cli("--store", str(judged.path), "report", "--dataset", "demo",
                           "--out", str(out), "--n-boot", "50", "--seed", "4", "--no-excerpts", "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["path"] == str(out) and info["bytes"] == out.stat().st_size > 1_000_000
    html = out.read_text(encoding="utf-8")
    assert "report --dataset demo --out" in html and "--n-boot 50 --seed 4 --min-n 10 --raters experts --stat tau --no-excerpts" in html
    assert "50 resamples, seed 4" in html
    assert "This report contains no report text." in html and "<b>Candidate</b>" not in html
    failed = run_cli("--store", str(judged.path), "report", "--dataset",
                             "nope", "--out", str(tmp_path / "x.html"))
    assert failed.returncode == 1 and "dataset 'nope' not found" in failed.stderr
    assert not (tmp_path / "x.html").exists()


# -- in a real browser, offline ----------------------------------------------------------------------------


@pytest.fixture
def offline_page():
    """A Chromium page whose every non-file request is aborted and recorded."""
    with chromium_browser() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        attempted, errors = [], []

        def route(r):
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                attempted.append(r.request.url)
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("request", lambda r: None if r.url.startswith("file:") else attempted.append(r.url))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        yield page, attempted, errors


def _open(page, html: str, path: Path) -> None:
    path.write_text(html, encoding="utf-8")
    page.goto(path.as_uri(), wait_until="load")
    for chart in ("chart-calibration", "chart-f1"):
        page.wait_for_selector(f"#{chart}.js-plotly-plot svg.main-svg", timeout=30_000)


@pytest.mark.browser
def test_report_renders_offline_in_chromium(offline_page, report: str, tmp_path):
    page, attempted, errors = offline_page
    _open(page, report, tmp_path / "report.html")
    assert page.locator(".plotly").count() == 2
    for chart in ("chart-calibration", "chart-f1"):
        assert page.locator(f"#{chart} svg.main-svg").count() >= 1
    assert page.locator("#chart-calibration .scatterlayer .trace").count() == 2  # identity line + rules
    assert page.locator("#chart-f1 .barlayer .trace").count() == 1  # rules (lexical has no counts)
    banner = page.locator(".banner")
    assert banner.is_visible() and banner.inner_text().startswith("SYNTHETIC DATA")
    assert attempted == []
    assert errors == []


@pytest.mark.browser
def test_injected_markup_stays_text_in_chromium(offline_page, hostile, tmp_path):
    page, attempted, errors = offline_page
    _, html = hostile
    _open(page, html, tmp_path / "hostile.html")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    body = page.inner_text("body")
    assert SCRIPT in body and IMG in body  # the literal text, shown
    assert f"rules{SCRIPT}" in page.locator("#chart-f1 .legendtext").first.text_content()
    assert page.locator("main img").count() == 0
    assert attempted == []  # not even the img's src=x was requested
    assert errors == []


# -- the Share page --------------------------------------------------------------------------------------


def test_share_page_links_report_button_and_provenance(app_test, judged: Store):
    at = app_test(judged)
    at.switch_page("pages/share.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Share"
    links = at.code[0].value.splitlines()
    # every page under its own address (the root URL only forwards to the home page: app.py landing())
    assert "/correlations?dataset=demo" in links and "/share?dataset=demo" in links and len(links) == 13
    assert not [link for link in links if link.startswith(("/?", "/home"))]
    assert [b.label for b in at.get("download_button") if b.key == "share_report"] == ["Download HTML report"]
    command = [c.value for c in at.code if "report --dataset demo" in c.value]
    assert command == ["python -m core report --dataset demo --out demo-report.html --n-boot 1000 --seed 0 "
                       "--excerpts"]  # synthetic: report text by default, and the command says so
    datasets = [d.value for d in at.dataframe if "origin" in d.value.columns][0]
    assert datasets[["name", "origin", "pairs"]].values.tolist() == [["demo", "synthetic", 120]]
    judges = [d.value for d in at.dataframe if "prompt_hash" in d.value.columns][0]
    assert sorted(judges["judge"]) == ["lexical", "rules"] and judges["params"].str.contains("version").all()

    at.number_input(key="share_seed").set_value(5).run()
    at.checkbox(key="share_excerpts").uncheck().run()
    assert not at.exception
    assert at.query_params["seed"] == "5" and at.query_params["excerpts"] == "0"
    assert any(c.value.endswith("--seed 5 --no-excerpts") for c in at.code)


def test_share_page_reads_its_settings_from_the_url(app_test, judged: Store):
    at = app_test(judged, {"dataset": "demo", "n_boot": "300", "seed": "7", "excerpts": "0"})
    at.switch_page("pages/share.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="share_n_boot").value == 300
    assert at.number_input(key="share_seed").value == 7
    assert at.checkbox(key="share_excerpts").value is False


def test_share_links_start_with_the_public_url_when_one_is_set(app_test, judged: Store, monkeypatch):
    monkeypatch.setenv("RADCONCORD_PUBLIC_URL", "https://radconcord.example.org/team/")
    at = app_test(judged)
    at.switch_page("pages/share.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    links = at.code[0].value.splitlines()
    assert links and all(u.startswith("https://radconcord.example.org/team/") for u in links)
    assert "https://radconcord.example.org/team/share?dataset=demo" in links
    assert not any("RADCONCORD_PUBLIC_URL" in c.value for c in at.caption)
    monkeypatch.delenv("RADCONCORD_PUBLIC_URL")
    at = app_test(judged)
    at.switch_page("pages/share.py")
    at.run()
    assert any("Set `RADCONCORD_PUBLIC_URL`" in c.value.replace("\\", "") for c in at.caption)


def test_report_intervals_follow_the_size_rule_and_say_which(judged: Store, monkeypatch):
    """Above AUTO_BOOTSTRAP_MAX_N pairs the report, like `correlate`, shows asymptotic intervals, says so,
    and its numbers are the CLI's (here the threshold is lowered so the 120-pair demo crosses it)."""
    from core.analysis import stats
    from core.reads.frames import correlation_frame
    from core.report import build_report

    small = build_report(judged, "demo", n_boot=50)
    assert "percentile bootstrap, 50 resamples, seed 0" in small and "asymptotic, cluster-robust" not in small
    monkeypatch.setattr(stats, "AUTO_BOOTSTRAP_MAX_N", 50)
    big = build_report(judged, "demo", n_boot=50)
    # the correlations' intervals switch; the F1 intervals are a bootstrap of their own at any size
    import re

    f1_section = re.search(r'<section id="f1">.*?</section>', big, flags=re.S).group(0)
    rest = big.replace(f1_section, "")
    assert "asymptotic, cluster-robust over reference groups" in rest and "percentile bootstrap" not in rest
    assert "95% percentile bootstrap intervals, 50 resamples, seed 0" in f1_section
    frame = correlation_frame(judged, "demo", "sig_errors", counts=False)
    expected = stats.correlate(frame, n_boot=50, seed=0, cluster_col="group_id", target_name="sig_errors",
                               ci="auto")
    row = expected[(expected["judge"] == "rules") & (expected["metric"] == "ec_sig")].iloc[0]
    assert row["ci_method"] == "asymptotic-cluster"
    lo, hi = sorted((abs(row["ci_low"]), abs(row["ci_high"])))
    assert f"{lo:.2f}" in big and f"{hi:.2f}" in big
