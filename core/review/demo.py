"""The synthetic ``demo-review`` dataset: text-only abdominal CT cases with candidate edits.

Seeded and deterministic (the seed and size are recorded in the dataset's
``version``). No patient data: reports are assembled from the phrase lists
below. Modelled on RADAR's setting (``seeds/radar.txt`` sec. 4): each case
has a preliminary report, a final report, and candidate edits with gold
agreement / severity / edit type, labelled by construction:

- *natural* edits (the real-revision subset): additions of findings the
  preliminary report missed, corrections of wrong statements (including
  laterality), clarifications of imprecise ones; mostly ``agree``, some
  ``partially agree`` (the edit restates what the report already says) and a
  few ``disagree`` (the edit contradicts the final report);
- *synthetic* edits: plausible but unsupported modifications, all
  ``disagree`` (the paper's balancing set), so Natural and Mixed differ.

Severity follows the finding (a fixed severity per finding below).
"""

from __future__ import annotations

import json
import random

import pandas as pd

from core.ingest.importers import ImportProgress, ImportReport, tick_progress, write_annotations, write_pairs
from core.review.importer import ReviewColumns, prepare_review
from core.store.db import Store

DEMO_REVIEW_DATASET = "demo-review"
DEFAULT_CASES = 40
DEFAULT_SEED = 7

INDICATIONS = (
    "abdominal pain, evaluate for appendicitis", "trauma, motor vehicle collision", "fever and leukocytosis",
    "left flank pain, hematuria", "right upper quadrant pain", "nausea and vomiting, evaluate for obstruction",
    "fall from standing, abdominal tenderness", "weight loss, evaluate for malignancy",
)
NORMAL = {
    "liver": "The liver is normal in size without focal lesion.",
    "gallbladder": "The gallbladder is unremarkable.",
    "pancreas": "The pancreas is unremarkable.",
    "spleen": "The spleen is normal in size.",
    "kidneys": "The kidneys enhance symmetrically without hydronephrosis.",
    "bowel": "No bowel obstruction. The appendix is normal.",
    "vessels": "The abdominal aorta is normal in caliber.",
    "peritoneum": "No free air or free fluid.",
    "bones": "No acute osseous abnormality.",
}
# (organ, statement, severity): a finding a case may have.
FINDINGS = (
    ("peritoneum", "Small volume free intraperitoneal air is present anterior to the liver.", "critical"),
    ("spleen", "Splenic laceration with active contrast extravasation.", "critical"),
    ("vessels", "Dissection flap in the infrarenal abdominal aorta.", "critical"),
    ("bowel", "Dilated small bowel loops with a transition point in the right lower quadrant.", "critical"),
    ("bowel", "The appendix is dilated to 12 mm with periappendiceal fat stranding.", "critical"),
    ("kidneys", "A 2.3 cm enhancing solid lesion in the right kidney, indeterminate.", "moderate"),
    ("bowel", "Sigmoid diverticulitis without abscess.", "moderate"),
    ("gallbladder", "Cholelithiasis with gallbladder wall thickening and pericholecystic fluid.", "moderate"),
    ("bones", "Nondisplaced fracture of the left tenth rib.", "moderate"),
    ("kidneys", "A 5 mm stone at the left ureterovesical junction with mild hydronephrosis.", "moderate"),
    ("liver", "A 1.1 cm hypodense liver lesion, too small to characterize.", "negligible"),
    ("kidneys", "A 1.4 cm simple cyst in the lower pole of the left kidney.", "negligible"),
    ("bones", "Mild degenerative changes of the lumbar spine.", "negligible"),
    ("bowel", "Colonic diverticulosis without inflammation.", "negligible"),
    ("vessels", "Atherosclerotic calcification of the abdominal aorta.", "negligible"),
    ("peritoneum", "Small fat-containing umbilical hernia.", "negligible"),
)
# Wrong statements a preliminary report can make, and the correction: (organ, wrong, right, severity).
CORRECTIONS = (
    ("kidneys", "A 5 mm stone at the right ureterovesical junction.",
     "The stone is at the left ureterovesical junction, not the right.", "moderate"),
    ("bowel", "The appendix is normal.",
     "The appendix is not normal: it is dilated to 11 mm with surrounding fat stranding, consistent with "
     "acute appendicitis.", "critical"),
    ("spleen", "The spleen is intact.",
     "The spleen is not intact: there is a splenic laceration with a perisplenic hematoma.", "critical"),
    ("bones", "Fracture of the right ninth rib.",
     "The rib fracture involves the left ninth rib rather than the right.", "moderate"),
    ("liver", "A 3 cm hemangioma in the right hepatic lobe.",
     "The right hepatic lobe lesion is a simple cyst, not a hemangioma.", "negligible"),
    ("gallbladder", "Acute cholecystitis.",
     "Replace acute cholecystitis with cholelithiasis without signs of acute cholecystitis.", "moderate"),
)
# Imprecise statements and their clarification: (organ, vague, clarification, severity).
CLARIFICATIONS = (
    ("kidneys", "A small left renal lesion.",
     "Clarify that the small left renal lesion is a 1.4 cm simple cyst requiring no follow-up.", "negligible"),
    ("liver", "Liver lesion noted.",
     "Specify that the liver lesion measures 1.1 cm and is too small to characterize.", "negligible"),
    ("bowel", "Some bowel wall thickening.",
     "Clarify that the wall thickening involves the sigmoid colon over 8 cm, concerning for colitis.", "moderate"),
    ("peritoneum", "Some free fluid.",
     "Specify that there is a small amount of simple free fluid in the pelvis.", "negligible"),
)
# Unsupported edits for the synthetic subset: (text, severity, edit type); gold agreement is always disagree.
SYNTHETIC = (
    ("Pneumoperitoneum is present beneath the right hemidiaphragm.", "critical", "addition"),
    ("There is active extravasation of contrast from the left kidney.", "critical", "addition"),
    ("Portal venous gas is present in the left hepatic lobe.", "critical", "addition"),
    ("The aortic dissection extends into the superior mesenteric artery.", "critical", "addition"),
    ("A 4 cm mass in the pancreatic head with biliary dilatation.", "moderate", "addition"),
    ("The liver lesion is a hemangioma, not a cyst.", "moderate", "correction"),
    ("The kidney stone is on the right, not on the left.", "moderate", "correction"),
    ("The bowel is obstructed, not normal.", "critical", "correction"),
    ("Clarify that the spleen is enlarged to 16 cm.", "moderate", "clarification"),
    ("Specify that the hernia contains a loop of small bowel.", "moderate", "clarification"),
    ("Small hiatal hernia.", "negligible", "addition"),
)


def _report(indication: str, statements: dict[str, str], extra: list[str]) -> str:
    lines = ["CT ABDOMEN AND PELVIS WITH IV CONTRAST", f"INDICATION: {indication}", "FINDINGS:"]
    lines += [statements[organ] for organ in NORMAL]
    lines += extra
    return "\n".join(lines)


def generate_review_demo(n_cases: int = DEFAULT_CASES, seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """The demo edits as a table in the importer's layout (one row per edit)."""
    if n_cases < 1:
        raise ValueError("the review demo needs at least one case")
    rng = random.Random(seed)
    rows = []
    for c in range(1, n_cases + 1):
        case = f"case{c:03d}"
        indication = rng.choice(INDICATIONS)
        prelim = dict(NORMAL)
        final = dict(NORMAL)
        edits: list[tuple[str, str, str, str, str]] = []  # text, agreement, severity, type, subset
        organs = list(NORMAL)
        rng.shuffle(organs)
        # A correction: the preliminary report says something wrong about one organ.
        if rng.random() < 0.6:
            organ, wrong, right, sev = rng.choice(CORRECTIONS)
            prelim[organ] = wrong
            final[organ] = right
            agreement = rng.choices(["agree", "partially agree", "disagree"], [0.86, 0.10, 0.04])[0]
            edits.append((right, agreement, sev, "correction", "natural"))
        # Additions: findings in the final report that the preliminary report missed.
        for organ, statement, sev in rng.sample(FINDINGS, k=rng.randint(1, 3)):
            if prelim[organ] != NORMAL[organ]:
                continue
            final[organ] = final[organ] + " " + statement if final[organ] == NORMAL[organ] else final[organ]
            roll = rng.random()
            if roll < 0.10:  # already said in other words: a redundant edit
                prelim[organ] = statement
                edits.append((statement, "partially agree", "negligible", "addition", "natural"))
            elif roll < 0.14:  # the attending did not confirm it
                final[organ] = NORMAL[organ]
                edits.append((statement, "disagree", sev, "addition", "natural"))
            else:
                edits.append((statement, "agree", sev, "addition", "natural"))
        # A clarification of an imprecise statement.
        if rng.random() < 0.4:
            organ, vague, clarification, sev = rng.choice(CLARIFICATIONS)
            if prelim[organ] == NORMAL[organ]:
                prelim[organ] = vague
                final[organ] = clarification.split(" that ", 1)[-1].capitalize()
                agreement = rng.choices(["agree", "partially agree"], [0.8, 0.2])[0]
                edits.append((clarification, agreement, sev, "clarification", "natural"))
        # Synthetic unsupported edits (disagree by construction).
        for text, sev, typ in rng.sample(SYNTHETIC, k=rng.choice([0, 1, 1, 2])):
            edits.append((text, "disagree", sev, typ, "synthetic"))
        prelim_text = _report(indication, prelim, [])
        final_text = _report(indication, final, [])
        split = "eval" if c <= max(1, round(n_cases * 0.4)) else "test"
        for j, (text, agreement, sev, typ, subset) in enumerate(edits, start=1):
            rows.append({"id": f"{case}_{j:02d}", "case": case, "preliminary": prelim_text, "edit": text,
                         "final": final_text, "indication": indication, "agreement": agreement,
                         "severity": sev, "edit_type": typ, "subset": subset, "split": split})
    return pd.DataFrame(rows)


def build_review_demo(store: Store, n_cases: int = DEFAULT_CASES, seed: int = DEFAULT_SEED,
                      progress: ImportProgress | None = None, dataset: str = DEMO_REVIEW_DATASET) -> ImportReport:
    """Generate the demo edits and store them as a synthetic ``edit_review`` dataset, atomically.

    Re-running with the same size and seed adds nothing.
    """
    tick_progress(progress, 0, 3, "generating review demo")
    table = generate_review_demo(n_cases, seed)
    tick_progress(progress, 1, 3, "validating")
    pairs, ann = prepare_review(table, dataset, ReviewColumns(images=None), annotator="expert",
                                source="core.review.demo")
    tick_progress(progress, 2, 3, "writing")
    with store.write() as conn:
        added = write_pairs(conn, pairs, dataset=dataset, kind="edit_review", source="core.review.demo",
                            license="synthetic (generated, no patient data)", synthetic=True)
        write_annotations(conn, ann)
        conn.execute("UPDATE datasets SET version = ?, description = ? WHERE name = ?",
                     [json.dumps({"generator": "core.review.demo", "seed": seed, "n_cases": n_cases}),
                      "Synthetic report-edit review cases (RADAR-style): text only, labels by construction.",
                      dataset])
    tick_progress(progress, 3, 3, "done")
    return ImportReport(dataset=dataset, rows=len(pairs), added=added, skipped=len(pairs) - added)
