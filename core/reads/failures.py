"""The recorded failures of judge runs (``judge_outputs.error``), by external pair id: what the Run page
lists under a finished job's results."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from core.store.db import Store


def run_failures(store: Store, run_ids: Iterable[str]) -> pd.DataFrame:
    """``run_id, id, error``: every failed answer of the runs ``run_ids``, ordered by external id."""
    return store.query_df("SELECT o.run_id, p.ext_id AS id, o.error FROM judge_outputs o JOIN pairs p USING (pair_id) "
                          "WHERE o.run_id IN (SELECT unnest(?::VARCHAR[])) AND o.error IS NOT NULL ORDER BY p.ext_id",
                          [list(run_ids)])
