"""Build the synthetic ``demo`` dataset in a store (pairs + two annotators).

The corpus comes from :mod:`core.ingest.synth`; this module only moves it into the
store through the same validation and write path as any imported file, in
one transaction, so a demo build is atomic and idempotent like an import.
"""

from __future__ import annotations

import json

from core.ingest.importers import (
    ImportProgress,
    ImportReport,
    PairColumns,
    prepare_annotations,
    prepare_pairs,
    tick_progress,
    write_annotations,
    write_pairs,
)
from core.store.db import Store
from core.taxonomy import CONTEXT_FIELDS

DEMO_DATASET = "demo"
DEFAULT_PAIRS = 400
DEFAULT_SEED = 7


def build_demo(store: Store, n_pairs: int = DEFAULT_PAIRS, seed: int = DEFAULT_SEED,
               progress: ImportProgress | None = None, dataset: str = DEMO_DATASET) -> ImportReport:
    """Generate the seeded demo corpus and store it as a synthetic dataset.

    Pairs carry a synthetic patient context (age, sex, indication, comparison; ``core.ingest.synth.context``,
    drawn from a stream of its own). Re-running with the same ``n_pairs`` and ``seed`` adds nothing (a demo
    built before migration 009 gains its context). The seed
    and size are recorded in the dataset's ``version`` field. ``python -m core demo``
    also builds ``demo-review`` (core.review.demo, same seed).
    """
    from core.ingest.synth import generate_demo  # the generator is only needed here
    from core.ingest.synth.context import demo_context

    if n_pairs < 1:
        raise ValueError("the demo needs at least one pair")
    tick_progress(progress, 0, 4, "generating")
    corpus = generate_demo(n_pairs=n_pairs, seed=seed)
    tick_progress(progress, 1, 4, "validating")
    cols = PairColumns(id="ext_id", reference="reference", candidate="candidate", group="group_id",
                       system="system", modality="modality", anatomy="anatomy", split="split",
                       context={f: f for f in CONTEXT_FIELDS})
    # patient context from its own seeded stream: the corpus's text and annotations do not change
    with_context = corpus.pairs.drop(columns=["meta"]).join(demo_context(corpus.pairs, seed))
    pairs = prepare_pairs(with_context, dataset, cols)
    pairs["meta"] = corpus.pairs["meta"].tolist()  # the generator's JSON, kept as written
    lookup = dict(zip(pairs["ext_id"], pairs["pair_id"], strict=True))
    ann = corpus.annotations
    counts = prepare_annotations(ann[ann["field"] == "error_count"].reset_index(drop=True), dataset, lookup,
                                 id_col="ext_id", category_col="category", significant_col="significant",
                                 count_col="value", annotator_col="annotator", source="synth")
    scores = prepare_annotations(ann[ann["field"] == "score"].reset_index(drop=True), dataset, lookup,
                                 id_col="ext_id", score_col="value", scale_max=5.0,
                                 annotator_col="annotator", source="synth")
    tick_progress(progress, 2, 4, "writing")
    with store.write() as conn:
        added = write_pairs(conn, pairs, dataset=dataset, kind="error_counts", source="core.ingest.synth",
                            license="synthetic (generated, no patient data)", synthetic=True)
        write_annotations(conn, counts)
        write_annotations(conn, scores)
        conn.execute(
            "UPDATE datasets SET version = ?, description = ? WHERE name = ?",
            [json.dumps({"generator": "core.ingest.synth", "seed": seed, "n_pairs": n_pairs}),
             "Synthetic demo corpus: errors injected by construction, two simulated annotators.", dataset],
        )
    tick_progress(progress, 4, 4, "done")
    return ImportReport(dataset=dataset, rows=len(pairs), added=added, skipped=len(pairs) - added)
