"""Machine-written candidates on IU references: the development set of issue 32, scored against its own labels.

The set (``bench/machine_written/references.jsonl`` and ``candidates.jsonl``, described in its README) holds, for 105 Open-i Indiana
University chest X-ray reports, a hand-checked list of the findings a radiologist would count and three
candidates written in the styles of today's report generators, each with its errors recorded as it was
written. The IU text itself is not committed: it is read at run time from the torchxrayvision wheel
exactly as ``bench/iu_edits.py`` reads it (:func:`iu_edits.fetch_archive`).

    .venv/bin/python bench/bench_machine_written.py [--json] [--skip-iu] [--write]
"""

from __future__ import annotations

import json
import random
import re
import sys
import tarfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import iu_edits  # noqa: E402  (after the path set-up)

FOLDER = ROOT / "bench" / "machine_written"
REFERENCES, CANDIDATES = FOLDER / "references.jsonl", FOLDER / "candidates.jsonl"
CANDIDATE_EVIDENCE = "acde"  # the categories whose evidence is in the candidate; b and f quote the reference
SEED = 32  # the number: the draw of references and of the held-out split
N_NORMAL, N_ABNORMAL = 35, 70
MAX_XXXX = 2  # de-identification gaps ("XXXX") allowed in a reference: more leave too little to read
HELDOUT_SLOTS = {7, 8, 9}  # draw positions (mod 10) held out within each group: 30%


@dataclass(frozen=True)
class IUReport:
    iu_id: int
    text: str  # "FINDINGS: ...\n\nIMPRESSION: ...", the same text iu_edits.iu_reports() gives
    normal: bool  # the collection's own MeSH coding is the single term "normal"


def iu_reports_by_id(folder: Path = iu_edits.EXTERNAL) -> dict[int, IUReport]:
    """Every IU report with a FINDINGS section, keyed by its number in the collection (``<n>.xml``,
    the ``IUXRId``), with the text in ``iu_edits.iu_reports()``'s form and whether MeSH codes it normal."""
    out = {}
    with tarfile.open(iu_edits.fetch_archive(folder)) as tar:
        for member in tar.getmembers():
            if not member.name.endswith(".xml"):
                continue
            root = ET.fromstring(tar.extractfile(member).read())
            parts = {a.get("Label"): (a.text or "").strip() for a in root.iter("AbstractText")}
            if not parts.get("FINDINGS"):
                continue
            text = f"FINDINGS: {parts['FINDINGS']}"
            if parts.get("IMPRESSION"):
                text += f"\n\nIMPRESSION: {parts['IMPRESSION']}"
            majors = [(m.text or "").strip().lower() for m in root.iter("major")]
            iu_id = int(Path(member.name).stem)
            out[iu_id] = IUReport(iu_id, text, majors == ["normal"])
    return dict(sorted(out.items()))


def choose_references(reports: dict[int, IUReport]) -> list[tuple[int, str, str]]:
    """The set's references as (IU id, group, split): among reports with at most ``MAX_XXXX``
    de-identification gaps, ``N_NORMAL`` coded normal and ``N_ABNORMAL`` coded otherwise, each group drawn
    in id order with ``random.Random(SEED)`` (normal first); within a group, draw positions 7, 8, 9 of every
    ten are the held-out split (30%)."""
    rng = random.Random(SEED)
    eligible = [r for r in reports.values() if r.text.count("XXXX") <= MAX_XXXX]
    out = []
    for group, size in (("normal", N_NORMAL), ("abnormal", N_ABNORMAL)):
        pool = [r.iu_id for r in eligible if r.normal == (group == "normal")]
        for k, iu_id in enumerate(rng.sample(pool, size)):
            out.append((iu_id, group, "heldout" if k % 10 in HELDOUT_SLOTS else "dev"))
    return out


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_references(path: Path = REFERENCES) -> list[dict]:
    """One record per reference (IU id, group, split, hand-checked findings), in draw order."""
    return _jsonl(path)


def load_candidates(path: Path = CANDIDATES) -> list[dict]:
    """One record per candidate (id, IU id, styles, text, findings, errors, not_a_report), by reference."""
    return _jsonl(path)


def is_benign(candidate: dict) -> bool:
    """A report with no recorded error: any error a judge counts in it is a false alarm."""
    return not candidate["not_a_report"] and not candidate["errors"]


def words(text: str) -> str:
    """The normalisation every label check uses: lower case, runs of whitespace as one space."""
    return re.sub(r"\s+", " ", text.lower()).strip()
