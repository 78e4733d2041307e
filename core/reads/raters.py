"""Whose annotations make the expert target: one rule for the CLI, every page and the report.

A dataset's annotators are the imported experts and, once clinicians rate pairs on
the Annotate page, the clinicians (annotators ``rater:NAME``, core/reads/ratings.py). Mixing
them silently moves every number: so every analysis takes the same choice with the
same default, ``experts`` (the imported annotations), and says which it used.

- ``experts``: the imported annotations (all annotators while nobody rated here), without
  published per-pair means (core/ingest/aggregates.py) when single raters' annotations exist;
- ``clinicians``: the ratings given on the Annotate page;
- ``all``: both together;
- ``NAME,NAME,...``: exactly these annotators.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.taxonomy import MEAN_FIELD

RATER_CHOICES = ("experts", "clinicians", "all")
DEFAULT_RATERS = "experts"
RATERS_HELP = ("whose annotations make the expert target: experts (imported annotations, the default, as on "
               "every page), clinicians (ratings given on the Annotate page), all, or NAME,NAME,...")


@dataclass(frozen=True)
class RaterChoice:
    choice: str                   # as given (the default filled in)
    annotators: list[str] | None  # pass as annotators=; None: every annotator of the dataset
    label: str                    # for outputs: "experts (imported annotations)", ...

    def to_json(self) -> dict:
        return {"raters": self.choice, "raters_label": self.label}


def resolve_raters(store, dataset: str, choice: str | None = None) -> RaterChoice:
    """The annotators behind ``choice`` on ``dataset``; a clear error when there are none."""
    from core.access import RESEARCHER
    from core.reads.ratings import (
        expert_annotators,  # here: the CLI's parser imports this module for its help
    )

    choice = (choice or DEFAULT_RATERS).strip()
    groups = expert_annotators(store, dataset, role=RESEARCHER)  # the CLI's user holds the store file
    means = aggregate_annotators(store, dataset)
    singles = [a for a in groups["imported"] if a not in means]
    if choice == "all":
        return RaterChoice("all", None, "all annotators (imported and clinician ratings)")
    if choice == "experts":
        if not groups["clinicians"] and (not means or not singles):
            return RaterChoice("experts", None, "experts (imported annotations)")
        if not groups["imported"]:
            raise ValueError(f"dataset '{dataset}' has only clinician ratings; use --raters clinicians")
        return RaterChoice("experts", singles or list(groups["imported"]), "experts (imported annotations)")
    if choice == "clinicians":
        if not groups["clinicians"]:
            raise ValueError(f"dataset '{dataset}' has no clinician ratings yet (Annotate page)")
        return RaterChoice("clinicians", list(groups["clinicians"]), "clinician ratings (this study)")
    names = [n.strip() for n in choice.split(",") if n.strip()]
    known = groups["imported"] + groups["clinicians"]
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise ValueError(f"--raters {choice!r}: {', '.join(unknown) or 'no name'} not an annotator of '{dataset}'; "
                         f"choose experts, clinicians, all or names among: {', '.join(known) or 'none'}")
    return RaterChoice(",".join(names), names, "annotators " + ", ".join(names))


def aggregate_annotators(store, dataset: str) -> list[str]:
    """The per-pair means over several raters imported for ``dataset`` (core.ingest.aggregates)."""
    return store.query_df("SELECT DISTINCT a.annotator FROM annotations a JOIN pairs p USING (pair_id) "
                          "WHERE p.dataset = ? AND a.field = ? ORDER BY 1", [dataset, MEAN_FIELD])["annotator"].tolist()
