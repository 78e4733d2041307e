"""A mistyped dataset or judge name gets a did-you-mean (issue 43, point 10): the CLI refuses it in one line
naming the close names and the known ones; a link naming one the store does not hold says so on the page."""

from __future__ import annotations

import pytest

from core.cli.main import main
from core.reads.names import close_names, did_you_mean
from tests.apptest_helpers import assert_ok, judged_copy, open_page


@pytest.fixture(scope="module")
def judged(demo_store, tmp_path_factory):
    return judged_copy(demo_store, tmp_path_factory, "dym", "rules", "lexical")


def _run(store, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["--store", str(store.path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_close_names_ignore_case_and_say_nothing_when_nothing_is_close():
    assert close_names("Demo", ["demo", "demo-review"]) == ["demo"]
    assert close_names("dmeo", ["demo", "rexval"]) == ["demo"]
    assert did_you_mean("zzzz", ["demo"]) == "" and did_you_mean("rulse", ["rules"]) == "; did you mean 'rules'?"


@pytest.mark.parametrize("args", [["correlate", "--dataset", "dmeo"], ["tables", "--dataset", "dmeo"],
                                  ["methods", "--dataset", "dmeo"], ["import-annotations", "x.csv", "--dataset",
                                                                     "dmeo", "--id-col", "id", "--score-col", "s"],
                                  ["delete-dataset", "dmeo", "--yes"], ["errortypes", "--dataset", "dmeo"]])
def test_a_mistyped_dataset_is_refused_with_the_close_name(judged, capsys, args):
    code, out, err = _run(judged, capsys, *args)
    assert code == (2 if args[0].startswith("import-") else 1) and out == ""  # an import's refused input: 2
    assert err.strip().splitlines() == ["error: dataset 'dmeo' not found; did you mean 'demo'? (datasets: demo)"]


def test_a_mistyped_judge_is_refused_with_the_close_name(judged, capsys):
    code, _, err = _run(judged, capsys, "judge", "--dataset", "demo", "--judge", "rulse")
    assert code == 1 and "did you mean 'rules'?" in err and "openai/rulse" in err
    code, _, err = _run(judged, capsys, "summary", "--dataset", "demo", "--judge", "rulse")
    assert code == 1 and err.startswith("error: judge 'rulse' not run on 'demo'; did you mean 'rules'?"), err
    code, _, err = _run(judged, capsys, "compare", "--dataset", "demo", "--a", "lexcal:bleu4", "--b", "rules:ec_sig")
    assert code == 1 and "did you mean 'lexical'?" in err and "(judges: lexical, rules)" in err, err
    code, _, err = _run(judged, capsys, "compare", "--dataset", "demo", "--a", "lexical", "--b", "rules:ec_sig")
    assert code == 1 and "give JUDGE:METRIC" in err  # was a Python unpacking error
    # the right names still run, and a new dataset's name is not checked where a command makes it
    assert _run(judged, capsys, "summary", "--dataset", "demo", "--judge", "rules")[0] == 0


def test_a_link_naming_a_missing_dataset_or_judge_says_so(app_test, judged):
    at = open_page(app_test, judged, "pages/correlations.py", {"dataset": "dmeo", "judge": "rulse"})
    warnings = " ".join(w.value for w in at.warning)
    assert "dataset 'dmeo', which is not here; did you mean 'demo'? Showing 'demo' instead." in warnings
    assert "judge 'rulse', which is not here; did you mean 'rules'?" in warnings
    assert_ok(at)
    at = open_page(app_test, judged, "pages/errortypes.py", {"dataset": "demo", "judges": ["rules", "rulez"]})
    assert "judge 'rulez', which is not here; did you mean 'rules'?" in " ".join(w.value for w in at.warning)
