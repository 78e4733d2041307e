"""A pair's patient context (issue 33): age, sex, indication, comparison/history, free text each.

The store keeps them as four nullable columns of ``pairs`` (migration 009, named by
``core.taxonomy.CONTEXT_FIELDS``). Readers turn a row (or a form's fields) into a dict holding only
the fields that have a value, which is what context-aware prompts take as ``context=`` and what the
pages show; the rules judge reads it for its significance levels (``core.judges.rules.significance``), the
lexical and length judges never do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from core.store.db import Store
from core.taxonomy import CONTEXT_FIELDS

__all__ = ["CONTEXT_LABELS", "context_dict", "context_line", "pair_context"]

#: How the pages and the report name each field.
CONTEXT_LABELS: dict[str, str] = {"age": "Age", "sex": "Sex", "indication": "Indication",
                                  "history": "Comparison / history"}


def context_dict(values: Mapping | object) -> dict[str, str]:
    """The patient context of ``values`` (a mapping, a pandas row or a namedtuple of ``load_pairs``) as
    {field: text}, in ``CONTEXT_FIELDS`` order, with only the fields that hold non-blank text (stripped).
    Other keys are ignored."""
    out: dict[str, str] = {}
    for f in CONTEXT_FIELDS:
        v = values.get(f) if isinstance(values, Mapping | pd.Series) else getattr(values, f, None)
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            continue
        text = str(v).strip()
        if text:
            out[f] = text
    return out


def context_line(context: Mapping[str, str]) -> str:
    """One line for a table or an excerpt: ``Age 82 · Sex F · Indication pre-op`` ('' when empty)."""
    return " · ".join(f"{CONTEXT_LABELS[f]} {context[f]}" for f in CONTEXT_FIELDS if context.get(f))


def pair_context(store: Store, pair_ids: list[str]) -> dict[str, dict[str, str]]:
    """{pair_id: its context dict} for the pairs given that carry any context (others are left out)."""
    if not pair_ids:
        return {}
    cols = ", ".join(CONTEXT_FIELDS)  # fixed names (core.taxonomy)
    df = store.query_df(f"SELECT pair_id, {cols} FROM pairs WHERE pair_id IN (SELECT unnest(?::VARCHAR[])) "
                        f"AND coalesce({cols}) IS NOT NULL", [list(pair_ids)])
    found = {row["pair_id"]: context_dict(row) for _, row in df.iterrows()}
    return {k: v for k, v in found.items() if v}
