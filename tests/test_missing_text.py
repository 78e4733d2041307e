"""No "nan", "NaN", "None", "null", "NaT" or "<NA>" in what people read (issue 43, point 2).

One store holds what makes missing values: the demo with the rules judge, a model run through the loopback
server (tests/fake_openai.py, on 20 of the pairs), a batch run (tests/fake_openai_batch.py), an imported score
and a queued dashboard job that nobody started by name. On it every text output is read:

- the CLI's text commands (no ``--json``), and the files ``report``, ``tables --out`` and ``figures --out``
  write for people (HTML, Markdown, LaTeX, the SVGs' words; CSV cells);
- ``methods``;
- every page of the dashboard through AppTest, with its tables, and every download button's file.

Exempt, on purpose: ``--json`` output and JSON text (machines read null); the PDFs (the same words as the
SVGs); a report's own text ("COMPARISON: None." is what a radiologist wrote), removed before reading.
"""

from __future__ import annotations

import csv
import html
import io
import re

import pandas as pd
import pytest

from core.cli.main import main
from core.store.db import Store
from tests.app.test_page_downloads import media  # noqa: F401  (a fixture: the download buttons' files)
from tests.apptest_helpers import FAKE_MODEL, assert_ok

WORD = re.compile(r"(?<![\w-])(nan|NaN|None|null|NaT|<NA>)(?![\w-])")
PAGES = ("pages/correlations.py", "pages/calibration.py", "pages/errortypes.py", "pages/summaries.py",
         "pages/ensembles.py", "pages/data.py", "pages/run.py", "pages/live.py", "pages/checks.py",
         "pages/review.py", "pages/distill.py", "pages/annotate.py", "pages/share.py")
PRICED = "openai/gpt-4o-mini"  # a batch run needs a model with batch prices
N_BOOT = "20"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    from core.jobs import table
    from core.jobs.spec import JobSpec, Task
    from tests.fake_openai import FakeOpenAI
    from tests.fake_openai_batch import FakeBatchServer

    folder = tmp_path_factory.mktemp("missing")
    path = folder / "s.duckdb"
    s = ["--store", str(path)]
    assert main(s + ["demo", "--pairs", "60", "--seed", "3"]) == 0
    assert main(s + ["judge", "--dataset", "demo", "--judge", "rules", "--allow-failures"]) == 0
    with FakeOpenAI() as server:
        assert main(s + ["judge", "--dataset", "demo", "--judge", FAKE_MODEL, "--api-base", server.url,
                         "--limit", "20"]) == 0
    with FakeBatchServer() as server:
        assert main(s + ["judge", "--dataset", "demo", "--judge", PRICED, "--api-base", server.url, "--batch",
                         "--batch-poll", "0.2", "--limit", "20"]) == 0
    store = Store(path)
    chars = store.query_df("SELECT ext_id AS id, length(candidate) AS chars FROM pairs WHERE dataset = 'demo'")
    chars.to_csv(folder / "chars.csv", index=False)
    assert main(s + ["import-outputs", str(folder / "chars.csv"), "--dataset", "demo", "--judge", "my-chars",
                     "--id-col", "id", "--score-col", "chars", "--metric", "char_count"]) == 0
    assert main(s + ["import-preferences", "--dataset", "demo", "--from-annotations"]) == 0
    assert main(s + ["judge", "--dataset", "demo-review", "--judge", "rules"]) == 0
    table.submit(store, JobSpec(dataset="demo", tasks=[Task("rules")]), origin="dashboard", started_by=None)
    return store


@pytest.fixture(scope="module")
def sparse(tmp_path_factory) -> Store:
    """The demo with the rules judge on 5 sampled pairs only: below the minimum n, so every correlation of the
    judge is missing (the review of issue 43.2 found `correlate` printing NaN on such a store)."""
    path = tmp_path_factory.mktemp("sparse") / "s.duckdb"
    s = ["--store", str(path)]
    assert main(s + ["demo", "--pairs", "60", "--seed", "3"]) == 0
    assert main(s + ["judge", "--dataset", "demo", "--judge", "rules", "--sample", "5", "--seed", "3"]) == 0
    return Store(path)


def report_texts(store: Store) -> list[str]:
    """Every report text of the store, longest first: people's words, taken out before reading."""
    texts = store.query_df("SELECT reference AS t FROM pairs UNION SELECT candidate FROM pairs")["t"].tolist()
    return sorted({t for t in texts if t}, key=len, reverse=True)


@pytest.fixture(scope="module")
def reports(store) -> list[str]:
    return report_texts(store)


def found(text: str, reports: list[str]) -> list[str]:
    for report in reports:
        if report in text:
            text = text.replace(report, " ")
    return [text[max(0, m.start() - 70):m.end() + 30].replace("\n", " ") for m in WORD.finditer(text)]


def html_words(page: str) -> str:
    """The words of an HTML page or SVG, without scripts, styles and report excerpts (a report's own text)."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    page = re.sub(r"<div class='excerpt'>.*?</div>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def csv_cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row if WORD.fullmatch(cell.strip())]


def cli_text(store: Store, capsys, *args: str) -> str:
    code = main(["--store", str(store.path), *args])
    out, err = capsys.readouterr()
    assert code == 0, (args, err)
    return out + err


COMMANDS = [
    ["datasets"], ["jobs"], ["jobs", "--all"], ["correlate", "--dataset", "demo", "--n-boot", N_BOOT],
    ["correlate", "--dataset", "demo", "--n-boot", N_BOOT, "--table"], ["agreement", "--dataset", "demo"],
    ["errortypes", "--dataset", "demo", "--n-boot", N_BOOT], ["calibrate", "--dataset", "demo"],
    ["ensemble", "--dataset", "demo"], ["summary", "--dataset", "demo", "--judge", "rules"],
    ["summary", "--dataset", "demo", "--judge", f"{FAKE_MODEL} · green"], ["preference", "--dataset", "demo"],
    ["compare", "--dataset", "demo", "--a", "rules:green", "--b", "my-chars:char_count", "--n-boot", N_BOOT],
    ["tables", "--dataset", "demo", "--format", "markdown"], ["tables", "--dataset", "demo", "--format", "csv"],
    ["tables", "--dataset", "demo"], ["methods", "--dataset", "demo"], ["leaderboard", "--dataset", "demo"],
    ["leaderboard", "--dataset", "demo", "--kind", "systems"], ["ratings", "--dataset", "demo"], ["trash"],
    ["check-store"], ["review-eval", "--dataset", "demo-review"], ["checks", "--dataset", "demo"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:3]) for a in COMMANDS])
def test_cli_text_has_no_missing_value_words(store, reports, capsys, args):
    assert found(cli_text(store, capsys, *args), reports) == []


SPARSE_COMMANDS = [
    ["correlate", "--dataset", "demo", "--n-boot", N_BOOT], ["correlate", "--dataset", "demo", "--n-boot", N_BOOT,
                                                             "--table"],
    ["correlate", "--dataset", "demo", "--n-boot", N_BOOT, "--breakdown", "system"],
    ["errortypes", "--dataset", "demo", "--n-boot", N_BOOT], ["calibrate", "--dataset", "demo"],
    ["tables", "--dataset", "demo"], ["leaderboard", "--dataset", "demo"],
]


@pytest.mark.parametrize("args", SPARSE_COMMANDS, ids=[" ".join(a[:3] + a[5:]) for a in SPARSE_COMMANDS])
def test_cli_text_on_a_sparsely_judged_store_has_no_missing_value_words(sparse, capsys, args):
    text = cli_text(sparse, capsys, *args)
    assert found(text, report_texts(sparse)) == []
    if args[0] == "correlate" and "--table" not in args:  # the judge's rows are there, their values missing
        assert "Significant errors (rules counts)  5" in text or "--breakdown" in args


def test_the_files_written_for_people_have_no_missing_value_words(store, reports, capsys, tmp_path):
    cli_text(store, capsys, "report", "--dataset", "demo", "--out", str(tmp_path / "r.html"), "--n-boot", N_BOOT)
    cli_text(store, capsys, "tables", "--dataset", "demo", "--out", str(tmp_path / "tables"))
    cli_text(store, capsys, "figures", "--dataset", "demo", "--out", str(tmp_path / "figures"))
    files = [tmp_path / "r.html", *sorted((tmp_path / "tables").iterdir()), *sorted((tmp_path / "figures").iterdir())]
    assert len(files) > 20
    problems = {}
    for path in files:
        if path.suffix == ".pdf":
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".csv":
            bad = csv_cells(text)
        else:
            bad = found(html_words(text) if path.suffix in (".html", ".svg") else text, reports)
        if bad:
            problems[path.name] = bad[:3]
    assert problems == {}


def test_methods_names_no_prompt_for_a_judge_without_one(store, capsys):
    text = cli_text(store, capsys, "methods", "--dataset", "demo")
    assert "prompt nan" not in text and "hash nan" not in text
    assert "rules (offline rules judge, version" in text and "my-chars (imported judge" in text


# -- the dashboard ----------------------------------------------------------------------------------------------


def without_reports(frame: pd.DataFrame, reports: list[str]) -> pd.DataFrame:
    """A shown table with its report cells (a report, or the start of one as a preview) blanked."""
    def cell(v):
        if isinstance(v, str) and len(v) > 20 and any(r.startswith(v.rstrip("….")) or v in r for r in reports):
            return ""
        return v

    return frame.astype(object).map(cell)


def page_text(at, reports: list[str]) -> list[str]:
    """Everything a page shows in words: text elements, labels and options, table cells (a missing cell reads
    as the table's placeholder, or "None" when it has none)."""
    out: list[str] = []
    for kind in ("markdown", "caption", "text", "code", "info", "warning", "error", "success", "title", "header",
                 "subheader", "exception", "latex"):
        out += [str(e.value) for e in at.get(kind)]
    for kind in ("metric",):
        out += [f"{e.label} {e.value} {e.proto.delta}" for e in at.get(kind)]
    for kind in ("selectbox", "multiselect", "radio", "select_slider"):
        for e in at.get(kind):
            out += [str(e.label), *map(str, getattr(e, "options", []))]
    for kind in ("button", "checkbox", "toggle", "expander", "tab", "text_input", "number_input"):
        out += [str(getattr(e, "label", "")) for e in at.get(kind)]
    for e in at.get("download_button"):
        out.append(e.proto.label)
    for t in at.table:
        out.append(t.value.to_string())
    for d in at.dataframe:
        frame = d.value if isinstance(d.value, pd.DataFrame) else pd.DataFrame(d.value)
        placeholder = d.proto.placeholder if d.proto.HasField("placeholder") else "None"
        out.append(without_reports(frame.astype(object).where(frame.notna(), placeholder), reports).to_string())
    return out


def download_texts(at, managers) -> dict[str, str]:
    """Each download button's file as text (Markdown, HTML, LaTeX, CSV, SVG; PDFs and archives left out)."""
    files = {}
    for button in at.get("download_button"):
        proto = button.proto
        manager = managers[-1]
        url = manager.execute_deferred(proto.deferred_file_id) if proto.deferred_file_id else proto.url
        data = manager.read_file(url.rsplit("/", 1)[1].split(".")[0])
        name = data.filename or button.key
        if data.mimetype in ("application/pdf", "application/zip") or name.endswith((".pdf", ".zip")):
            continue
        content = data.content if isinstance(data.content, bytes) else str(data.content).encode()
        files[name] = content.decode("utf-8", errors="replace")
    return files


def page_problems(app_test, store: Store, page: str, reports: list[str], media, min_files: int = 0,  # noqa: F811
                  ) -> list[str]:
    """The missing-value words a page and its download buttons' files show."""
    params = {"dataset": "demo-review" if page == "pages/review.py" else "demo", "n_boot": N_BOOT}
    at = app_test(store, params)
    at.switch_page(page)
    at.run(timeout=120)
    assert_ok(at)
    problems = [hit for text in page_text(at, reports) for hit in found(text, reports)]
    files = download_texts(at, media)
    assert len(files) >= min_files, sorted(files)
    for name, text in files.items():
        hits = csv_cells(text) if name.endswith(".csv") else found(
            html_words(text) if name.endswith((".html", ".svg")) else text, reports)
        problems += [f"{name}: {h}" for h in hits]
    return problems


@pytest.mark.parametrize("page", PAGES)
def test_pages_and_their_downloads_have_no_missing_value_words(store, reports, app_test, media, no_models,  # noqa: F811
                                                              page):
    # on Correlations the downloads are read (tables, charts' CSVs and SVGs)
    assert page_problems(app_test, store, page, reports, media, 5 if page == "pages/correlations.py" else 0) == []


@pytest.mark.parametrize("page", ["pages/correlations.py", "pages/errortypes.py", "pages/calibration.py"])
def test_pages_on_a_sparsely_judged_store_have_no_missing_value_words(sparse, app_test, media, no_models,  # noqa: F811
                                                                      page):
    assert page_problems(app_test, sparse, page, report_texts(sparse), media) == []


def test_a_job_nobody_started_by_name_is_not_by_nan(store, app_test, no_models):
    at = app_test(store, {"dataset": "demo"})
    at.switch_page("pages/run.py")
    at.run(timeout=120)
    assert_ok(at)
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "rules on all pairs" in shown and "(from the dashboard)" in shown and " by nan" not in shown
