"""Synthetic patient context for the demo's pairs (issue 33): age, sex, indication, comparison/history.

Drawn per study (group) from its own seeded stream, never from the generator's: the demo's report text
and annotations are the same with or without it. Candidates of one reference share their patient's
context. Nothing here describes a real patient.
"""

from __future__ import annotations

import json
import random

import pandas as pd

from core.taxonomy import CONTEXT_FIELDS

# Indications a referrer might write, by anatomy (a few per exam's body part).
_INDICATIONS: dict[str, tuple[str, ...]] = {
    "chest": ("shortness of breath", "cough and fever", "chest pain", "pre-operative assessment",
              "follow-up of pulmonary nodule", "trauma"),
    "abdomen": ("abdominal pain", "weight loss", "follow-up of known malignancy", "fever after surgery"),
    "kidney": ("flank pain", "elevated creatinine", "hematuria"),
    "liver": ("abnormal liver function tests", "right upper quadrant pain", "follow-up of liver lesion"),
    "pelvis": ("pelvic pain", "abnormal uterine bleeding", "follow-up of ovarian cyst"),
    "brain": ("headache", "fall with head injury", "new confusion", "dizziness", "suspected stroke"),
    "lumbar spine": ("low back pain", "back pain radiating to the left leg", "trauma"),
    "cervical spine": ("neck pain", "numbness of the right arm"),
    "knee": ("knee pain after a twisting injury", "knee pain and swelling"),
    "shoulder": ("shoulder pain", "reduced range of motion", "fall on an outstretched hand"),
    "hip": ("hip pain", "fall"),
    "breast": ("screening", "palpable lump"),
    "thyroid": ("palpable neck nodule", "follow-up of thyroid nodule"),
    "carotid": ("transient ischaemic attack", "carotid bruit"),
    "aorta": ("follow-up of abdominal aortic aneurysm", "pulsatile abdominal mass"),
}
_FEMALE_ONLY = frozenset({"breast", "pelvis"})  # the demo's pelvis findings are uterine and ovarian


def demo_context(pairs: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The context of each row of the demo corpus's ``pairs`` (columns ``CONTEXT_FIELDS``, same index).

    One draw per group (reference) in order of first appearance, from ``random.Random("context:<seed>")``:
    a smaller corpus's context is a prefix of a larger one's, as its pairs are. ``history`` names the prior
    study the reference compares with (its ``prior_date`` in ``meta``), empty when there is none.
    """
    rng = random.Random(f"context:{seed}")
    drawn: dict[str, tuple] = {}
    rows = []
    for group, modality, anatomy, meta in zip(pairs["group_id"], pairs["modality"], pairs["anatomy"],
                                              pairs["meta"], strict=True):
        if group not in drawn:
            if anatomy == "breast" and modality == "MG":
                age = rng.randint(40, 74)
            else:
                age = rng.randint(18, 92)
            sex = "F" if anatomy in _FEMALE_ONLY else rng.choice(("F", "M"))
            indication = rng.choice(_INDICATIONS.get(anatomy, ("routine follow-up",)))
            prior = json.loads(meta).get("prior_date")
            history = f"Prior {modality} {anatomy}, {prior}" if prior else None
            drawn[group] = (str(age), sex, indication, history)
        rows.append(drawn[group])
    return pd.DataFrame(rows, columns=list(CONTEXT_FIELDS), index=pairs.index)
