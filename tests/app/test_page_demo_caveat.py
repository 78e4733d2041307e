"""The synthetic demo's caveat wherever the rules judge's near-ceiling numbers show (issue 43, point 3, found again
in review): Correlations, ``correlate`` and the report had it; the Error types and Calibration pages and ``tables``
did not (these tests failed on that code). Imported data gets no caveat."""

from __future__ import annotations

import pandas as pd
import pytest

from core.cli.main import main
from core.glossary import DEMO_CAVEAT
from core.ingest.importers import PairColumns, import_pairs
from core.store.db import Store
from tests.apptest_helpers import judged_copy, open_page

PAGES = ("pages/errortypes.py", "pages/calibration.py", "pages/correlations.py")


@pytest.fixture(scope="module")
def judged(demo_store: Store, tmp_path_factory) -> Store:
    store = judged_copy(demo_store, tmp_path_factory, "caveat", "rules")
    frame = pd.DataFrame({"id": ["a", "b"], "ref": ["Lungs clear.", "No effusion."], "cand": ["Lungs clear.", "Small "
                                                                                            "effusion."]})
    import_pairs(store, frame, dataset="mine", columns=PairColumns("id", "ref", "cand"), name="mine.csv")
    return store


def _warnings(at) -> list[str]:
    return [str(w.value).replace("\\", "") for w in at.warning]  # escape_md's backslashes


@pytest.mark.parametrize("page", PAGES)
def test_the_page_shows_the_demos_caveat_and_none_on_imported_data(judged, app_test, page):
    at = open_page(app_test, judged, page, {"dataset": "demo", "n_boot": "20"})
    assert DEMO_CAVEAT in _warnings(at)
    at = open_page(app_test, judged, page, {"dataset": "mine", "n_boot": "20"})
    assert not any("Synthetic" in w for w in _warnings(at))


def test_tables_notes_the_caveat_beside_the_tables_not_inside(judged, capsys, tmp_path):
    store = ["--store", str(judged.path)]
    assert main([*store, "tables", "--dataset", "demo", "--format", "csv"]) == 0
    got = capsys.readouterr()
    assert got.err.splitlines()[0] == f"note: {DEMO_CAVEAT}" and "Synthetic demo" not in got.out
    assert main([*store, "tables", "--dataset", "demo", "--out", str(tmp_path / "t.tex")]) == 0
    assert f"note: {DEMO_CAVEAT}" in capsys.readouterr().err
