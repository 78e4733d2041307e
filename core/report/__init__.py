"""The shareable HTML report: gathered from the store (:mod:`core.report.gather`), rendered section by
section (:mod:`core.report.sections`) and assembled into one offline page (:mod:`core.report.html`)."""

from core.report.gather import ReportData, TargetResult, collect, provenance_tables
from core.report.html import build_report, excerpts_by_default, radconcord_version, render, write_report
from core.report.sections import json_for_script

__all__ = ["ReportData", "TargetResult", "build_report", "collect", "excerpts_by_default", "json_for_script",
           "provenance_tables", "radconcord_version", "render", "write_report"]
