"""The HTML report's checks section: present only with a checks run, every text escaped."""

from __future__ import annotations

import pandas as pd

from core.checks.store import run_checks
from core.ingest.importers import PairColumns, import_pairs
from core.report import build_report

REF = ("FINDINGS: Small left pleural effusion. The lungs are otherwise clear. Normal heart size.\n\n"
       "IMPRESSION:\nSmall left pleural effusion.")


def test_section_appears_with_a_checks_run_and_escapes_user_text(tmp_store):
    hostile = "<script>alert(1)</script>"
    df = pd.DataFrame({"id": ["p0", "p1", "p2"], "ref": [REF] * 3,
                       "cand": [REF, REF.replace("left", "right"), REF + " [insert size]"],
                       "sys": [hostile, hostile, "plain"], "mod": ["XR"] * 3, "anat": ["chest"] * 3})
    import_pairs(tmp_store, df, dataset="d", columns=PairColumns("id", "ref", "cand", system="sys", modality="mod",
                                                                   anatomy="anat"), name="x.csv")
    before = build_report(tmp_store, "d", n_boot=0)
    assert "id='checks'" not in before
    run_checks(tmp_store, "d", "en-US")
    after = build_report(tmp_store, "d", n_boot=0)
    section = after[after.index("<section id='checks'>"):after.index('<section id="methods">')]
    assert "Locale en-US" in section and "every result is degraded" in section
    assert "R02" in section and "Q07" in section  # the failing checks by id
    assert hostile not in after and "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "<script>" not in section  # tables only: the report's CSP is unchanged
