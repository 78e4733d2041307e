"""The entry point: ``generate_demo`` builds the seeded corpus of pairs and annotations."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.ingest.synth.annotations import annotation_frame, second_rater
from core.ingest.synth.cases import PROFILES, SYSTEMS, make_candidate, make_reference
from core.taxonomy import CATEGORIES

PAIR_COLUMNS = ("ext_id", "reference", "candidate", "group_id", "system", "modality", "anatomy", "split", "meta")
_SPLITS = ("train", "val", "test")
_to_json = json.JSONEncoder(separators=(",", ":")).encode


@dataclass(frozen=True, eq=False)
class DemoCorpus:
    """A generated corpus: ``pairs`` (one row per pair), ``annotations`` (long form), and its ``seed``."""

    pairs: pd.DataFrame
    annotations: pd.DataFrame
    seed: int


def generate_demo(n_pairs: int = 400, seed: int = 7) -> DemoCorpus:
    """Generate the seeded synthetic demo corpus.

    Parameters
    ----------
    n_pairs : int
        Exact number of pairs. References get candidates from 3 or 4 systems
        each; the last reference may get fewer so that the total is exact.
    seed : int
        Same ``(n_pairs, seed)`` gives identical DataFrames, and a smaller
        corpus is a prefix of a larger one with the same seed (row for row).
        Only this seed is used: global ``random`` / ``numpy`` state is untouched.

    Returns
    -------
    DemoCorpus
        ``pairs`` columns: ext_id, reference, candidate, group_id, system,
        modality, anatomy, split, meta (JSON with ``synthetic``, ``errors`` and
        the findings present in each report). ``annotations`` columns: ext_id,
        annotator, field, category, significant, value, scale_max; per pair and
        annotator 12 ``error_count`` rows (categories a-f x significant
        True/False) and one ``score`` row on 0-5 (formula in the module doc).
    """
    if n_pairs < 0:
        raise ValueError("n_pairs must be >= 0")
    rng = random.Random(seed)
    width = max(6, len(str(max(n_pairs - 1, 0))))
    cols: dict[str, list] = {c: [] for c in PAIR_COLUMNS}
    # Plain lists and bound appends: this loop runs once per pair (100k in load tests).
    (ext_ids, references, candidates, group_ids, systems_col, modalities, anatomies, splits,
     metas) = (cols[c] for c in PAIR_COLUMNS)
    cells: list[int] = []  # flat (pair, category, significance) indices of constructed errors
    identical = np.zeros(n_pairs, dtype=bool)
    cell_of = {(c, sig): 2 * j + (0 if sig else 1) for j, c in enumerate(CATEGORIES) for sig in (True, False)}
    i = 0
    g = 0
    while i < n_pairs:
        ref = make_reference(rng)
        exam = ref.exam
        group_id = f"demo-study-{g:0{width}d}"
        r = rng.random()
        split = _SPLITS[0] if r < 0.6 else _SPLITS[1] if r < 0.8 else _SPLITS[2]
        systems = rng.sample(SYSTEMS, 3 if rng.random() < 0.5 else 4)
        ref_keys = [k for k, _ in ref.pos]
        for system in systems:
            if i >= n_pairs:
                break
            text, errors, cand_keys, same = make_candidate(ref, PROFILES[system], rng)
            for err in errors:
                cells.append(12 * i + cell_of[err["category"], err["significant"]])
            identical[i] = same
            meta = {
                "synthetic": True, "generator": "core.ingest.synth", "seed": seed,
                "exam": exam.title, "prior_date": ref.date, "identical": same,
                "ref_findings": ref_keys, "cand_findings": cand_keys, "errors": errors,
            }
            ext_ids.append(f"demo-{i:0{width}d}")
            references.append(ref.report.text)
            candidates.append(text)
            group_ids.append(group_id)
            systems_col.append(system)
            modalities.append(exam.modality)
            anatomies.append(exam.anatomy)
            splits.append(split)
            metas.append(_to_json(meta))
            i += 1
        g += 1
    pairs = pd.DataFrame(cols, columns=list(PAIR_COLUMNS))
    counts1 = np.bincount(np.array(cells, dtype=np.int64), minlength=12 * n_pairs).reshape(n_pairs, 12)
    counts2 = second_rater(counts1, identical, seed)
    annotations = annotation_frame(ext_ids, counts1, counts2)
    return DemoCorpus(pairs=pairs, annotations=annotations, seed=seed)
