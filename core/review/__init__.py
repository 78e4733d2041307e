"""Report-edit review (RADAR, Sun et al., ``seeds/radar.txt``).

A dataset of kind ``edit_review`` holds one pair per candidate edit:
``pairs.reference`` is the preliminary report, ``pairs.candidate`` the
proposed edit, and ``pairs.meta`` (JSON) the rest of the case: the subset
(``natural`` or ``synthetic``), the final report, the clinical indication and
the image slice paths. Gold labels are annotation rows (``field`` =
``agreement`` / ``severity`` / ``edit_type``, ``value`` = the label's index
in :data:`LABELS`), so deletion, trash and restore work as for any dataset.

Modules: :mod:`.labels` (the three label sets), :mod:`.importer` (the CSV
layout), :mod:`.demo` (dataset ``demo-review``), :mod:`.rules` (offline
baseline), :mod:`.prompt` and :mod:`.judge` (the LLM judge through the shared
runner, with sampled slices), :mod:`.data` (store -> tidy frame),
:mod:`.metrics` (accuracy, composite score, confusion matrices, RADAR table)
and :mod:`.report` (the HTML report section).
"""

from core.review.labels import (
    AGREEMENT,
    EDIT_TYPE,
    LABELS,
    SEVERITY,
    SUBSETS,
    label_code,
    label_name,
    metric_name,
    normalize_label,
)

REVIEW_KIND = "edit_review"

__all__ = ["AGREEMENT", "EDIT_TYPE", "LABELS", "REVIEW_KIND", "SEVERITY", "SUBSETS", "label_code", "label_name",
           "metric_name", "normalize_label"]
