"""How long the language check takes on one report (core.judges.language), cold and warm.

    .venv/bin/python bench/bench_language.py [--iu]

Prints the detector's first call (its models load), then the time per report of the detector itself
(lingua, high accuracy) and of the whole check (:func:`detect`, whose English-words rule skips the
detector), over the demo's distinct reports and over a French report. With ``--iu``, also how many
of the IU reports (bench/iu_edits.py) and of their distinct sentences, taken one by one, are not read as
English (each one refused would be a false refusal).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from core.ingest.synth import generate
    from core.judges import language

    t0 = time.perf_counter()
    language._ask("Petit épanchement pleural gauche. Pneumothorax droit.")
    print(f"detector first call (models load): {time.perf_counter() - t0:.2f} s")
    frame = generate.generate_demo(400, 7).pairs
    texts = sorted(set(frame["reference"]) | set(frame["candidate"]))
    words = sum(len(t.split()) for t in texts) / len(texts)
    t0 = time.perf_counter()
    for t in texts:
        language._ask(t)
    per = (time.perf_counter() - t0) / len(texts) * 1000
    print(f"detector on {len(texts)} demo reports ({words:.0f} words on average): {per:.2f} ms per report")
    language.detect.cache_clear()
    t0 = time.perf_counter()
    for t in texts:
        language.detect(t)
    print(f"whole check (detect), uncached: {(time.perf_counter() - t0) / len(texts) * 1000:.3f} ms per report")
    french = "Épanchement pleural droit modéré. Pas de pneumothorax. Silhouette cardiaque normale. " * 3
    t0 = time.perf_counter()
    for _ in range(200):
        language._ask(french)
    print(f"detector on a French report ({len(french.split())} words): "
          f"{(time.perf_counter() - t0) / 200 * 1000:.2f} ms per report")
    if "--iu" in sys.argv:
        import re

        from bench.iu_edits import iu_reports

        reports = iu_reports()
        sentences = sorted({x.strip() for r in reports for x in re.split(r"(?<=\.)\s+", r) if x.strip()})
        for name, items in (("IU reports", reports), ("distinct IU sentences", sentences)):
            refused = [t for t in items if language.detect(t).code not in ("en", None)]
            print(f"{name}: {len(refused)} of {len(items)} not read as English {refused[:3]}")


if __name__ == "__main__":
    main()
