"""The dashboard offers the paper outputs: the Correlations page's LaTeX table."""

from __future__ import annotations

from core.store.db import Store
from tests.apptest_helpers import assert_ok, open_page


def test_correlations_offers_the_table_as_latex(app_test, paper_demo):
    at = open_page(app_test, Store(paper_demo), "pages/correlations.py")
    assert_ok(at)
    buttons = {b.proto.label: b for b in at.get("download_button")}
    assert "Table LaTeX" in buttons, sorted(buttons)
    latex = buttons["Table LaTeX"].proto
    assert latex.deferred_file_id and latex.ignore_rerun  # made on click, without rerunning the page


def test_share_offers_the_bundle_without_report_text_for_imported_data(app_test, three_rater):
    from tests.paper.conftest import THREE

    at = app_test(Store(three_rater), {"dataset": THREE})
    at.switch_page("pages/share.py")
    at.run()
    assert_ok(at)
    assert [b.proto.label for b in at.get("download_button") if b.key == "share_bundle"] == ["Download bundle (.zip)"]
    assert at.checkbox(key="share_bundle_text").value is False  # imported: ids and hashes only
    command = [c.value for c in at.code if " bundle --dataset" in c.value]
    assert command == [f"python -m core bundle --dataset {THREE} --out {THREE}-bundle.zip --n-boot 1000 --seed 0 "
                       "--ci auto --min-n 10 --stat tau --with-ci"]
    at.checkbox(key="share_bundle_text").check().run()
    assert any("report text" in w.value for w in at.warning)
    assert [c.value for c in at.code if " bundle --dataset" in c.value][0].endswith("--with-ci --with-text")
    at.checkbox(key="share_bundle_figures").check().run()
    assert [c.value for c in at.code if " bundle --dataset" in c.value][0].endswith("--with-text --with-figures")


def test_share_bundle_of_the_synthetic_demo_includes_text_by_default(app_test, paper_demo):
    at = app_test(Store(paper_demo), {"dataset": "demo"})
    at.switch_page("pages/share.py")
    at.run()
    assert_ok(at)
    assert at.checkbox(key="share_bundle_text").value is True
    assert not [w for w in at.warning if "imported dataset's report text" in w.value]
