"""Which pairs a run judges: the Run page's selection and ``judge``'s selection flags, one code path.

The pairs of a dataset in external-id order (:func:`pair_index`), narrowed by facet values, groups and an
id search (:func:`filter_pairs`), then all of them, a seeded random sample (:func:`sample_pairs`), or the
pairs a researcher listed (ticked on the page, ``--pairs FILE`` on the command line). The page
(pages/run.py ``choose_pairs``) and the CLI (core/cli/selection.py) both call these functions, so the same
filters and seed give the same pairs (tests/app/test_page_run_selection.py checks it through both).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pandas as pd

from core.reads.frames import pair_facets
from core.store.db import Store
from core.taxonomy import FACETS

#: What a selection may filter on, besides the id search: the facets and the group.
FILTERS: tuple[str, ...] = (*FACETS, "group")


def pair_index(store: Store, dataset: str) -> pd.DataFrame:
    """Every pair of ``dataset`` with its facets, sorted by external id (then pair id): the order a
    seeded sample is drawn from, so it never depends on the order rows come back in."""
    return pair_facets(store, dataset).sort_values(["ext_id", "pair_id"], ignore_index=True)


def filter_pairs(index: pd.DataFrame, filters: Mapping[str, Iterable[str]] | None = None, search: str = "",
                 ext_ids: Iterable[str] | None = None) -> pd.DataFrame:
    """The rows of ``index`` whose facet (or group) is one of the values given for it (no values: any),
    whose external id contains ``search`` (any case), and that are among ``ext_ids`` when given."""
    keep = pd.Series(True, index=index.index)
    for name, values in (filters or {}).items():
        values = [str(v) for v in values or ()]
        if values:
            column = "group_id" if name == "group" else name
            keep &= index[column].astype("string").isin(values).fillna(False).astype(bool)
    search = (search or "").strip()
    if search:
        keep &= index["ext_id"].astype(str).str.contains(search, case=False, regex=False)
    if ext_ids is not None:
        keep &= index["ext_id"].astype(str).isin(set(ext_ids))
    return index[keep]


def sample_pairs(frame: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """A seeded random sample of ``n`` rows of ``frame`` (all of them when it has fewer), in sample order."""
    return frame.sample(n=min(int(n), len(frame)), random_state=int(seed))


def selection_label(how: str, chosen: int, matching: int, seed: int | None = None) -> str:
    """How the pairs were chosen, in words (recorded with the job). ``how``: ``all`` / ``sample`` (of
    ``matching`` pairs) / ``ticked`` (the page's rows) / ``listed`` (``--pairs``: ``matching`` ids listed)."""
    if how == "sample":
        return f"random sample of {chosen:,} of {matching:,} matching pairs, seed {seed}"
    if how == "ticked":
        return f"{chosen:,} ticked pairs"
    if how == "listed":
        return f"{chosen:,} listed pairs" if chosen == matching else \
            f"{chosen:,} of {matching:,} listed pairs (those matching the filters)"
    return f"all {matching:,} matching pairs"


def unknown_ids(index: pd.DataFrame, ext_ids: Iterable[str]) -> list[str]:
    """The ids of ``ext_ids`` that are no pair of the dataset, in the order given."""
    known = set(index["ext_id"].astype(str))
    return [i for i in dict.fromkeys(ext_ids) if i not in known]


def select_pairs(store: Store, dataset: str, *, filters: Mapping[str, Iterable[str]] | None = None,
                 search: str = "", ext_ids: Iterable[str] | None = None, sample: int | None = None,
                 seed: int = 0) -> tuple[list[str], str]:
    """The pair ids a selection means, and its label: the Run page's pick (all / sample / ticked rows) as
    plain values. ``ext_ids`` that are not pairs of the dataset are refused (ValueError naming them)."""
    index = pair_index(store, dataset)
    if index.empty:
        raise ValueError(f"dataset '{dataset}' has no pairs; check the name with `python -m core datasets`")
    if ext_ids is not None:
        ext_ids = list(ext_ids)
        unknown = unknown_ids(index, ext_ids)
        if unknown:
            shown = ", ".join(repr(i) for i in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5
                                                               else "")
            raise ValueError(f"{len(unknown):,} listed id(s) are not pairs of dataset '{dataset}': {shown}")
    for name, values in (filters or {}).items():
        column = "group_id" if name == "group" else name
        have = sorted(index[column].dropna().astype(str).unique())
        unknown = [v for v in values or () if str(v) not in set(have)]
        if unknown:
            listed = ", ".join(have[:12]) + (f" ... ({len(have):,} in all)" if len(have) > 12 else "")
            raise ValueError(f"--{name} {unknown[0]!r}: no pair of dataset '{dataset}' has this {name} "
                             f"({'its values: ' + listed if have else 'no pair has a ' + name})")
    frame = filter_pairs(index, filters, search, ext_ids)
    if frame.empty:
        raise ValueError("no pair matches this selection (filters, id search and listed ids together)")
    if sample is not None:
        if sample < 1:
            raise ValueError("--sample takes a number of pairs, 1 or more")
        taken = sample_pairs(frame, sample, seed)
        return taken["pair_id"].tolist(), selection_label("sample", len(taken), len(frame), seed)
    how = "listed" if ext_ids is not None else "all"
    return frame["pair_id"].tolist(), selection_label(how, len(frame), len(frame) if how == "all" else len(ext_ids))


def pair_texts(store: Store, dataset: str) -> pd.DataFrame:
    """``pair_id, reference, candidate``: the first 160 characters of each pair's texts, so the Run page's
    rows can be ticked by content."""
    return store.query_df("SELECT pair_id, left(reference, 160) AS reference, left(candidate, 160) AS candidate "
                          "FROM pairs WHERE dataset = ?", [dataset])
