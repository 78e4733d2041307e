"""Significance probe (issue 44): does the rules judge weigh an error as a radiologist would?

Made-up pairs, written for this file before the judge was changed, each with the outcome a radiologist
would give and why (a comment per pair). The level of the finding in question is the CRIMSON scale
(urgent 1.0, actionable non-urgent 0.5, non-actionable 0.25, benign or expected 0); an error is
clinically significant when its finding is urgent or actionable (>= 0.5), or when an attribute error
(side, severity, precision) would change management.

Outcomes:

* ``M``  -- no error at all (a paraphrase, or a difference no reader counts);
* ``S``  -- at least one clinically significant error;
* ``I``  -- one or more errors, none of them significant;
* ``PS`` -- a partial match: the finding is matched (no missing and no false finding), with an
  attribute error that is significant (a vaguer or different reading that changes the work-up);
* ``PI`` -- a partial match whose attribute error is negligible.

Patient context (age, sex, indication, history) is given as the pairs carry it
(``core.taxonomy.CONTEXT_FIELDS``); ``None`` is a pair without context, judged as before.
The whole probe must pass at >= 90% (the issue's bar), and every group must pass at least half of its pairs.
Written before the judge was changed: ``rules-17`` agreed on 61 of 77 (79%), ``rules-18`` on 77 of 77.
"""

from __future__ import annotations

import inspect

import pytest

from core.judges.rules import judge_pair

NO_FINDING = "No acute cardiopulmonary abnormality."
NO_ABDOMEN = "No acute abnormality in the abdomen or pelvis."
OLD_PREOP = {"age": "82", "sex": "F", "indication": "preoperative evaluation before hip replacement"}
YOUNG_PAIN = {"age": "25", "sex": "M", "indication": "chest pain"}

# (group, reference, candidate, context, expected outcome)
CASES: list[tuple[str, str, str, dict | None, str]] = [
    # ---------------------------------------------------------------- wrong side
    # a small effusion on the wrong side is a wrong-side report: it sends the work-up (or a tap) to the other
    # hemithorax; CRIMSON: wrong lung is a significant location error, the effusion itself actionable (0.5)
    ("side", "Small left pleural effusion.", "Small right pleural effusion.", None, "S"),
    # moderate effusion on the wrong side: actionable (0.5), a thoracentesis on the wrong side
    ("side", "Moderate right pleural effusion.", "Moderate left pleural effusion.", None, "S"),
    # large effusion, wrong side: actionable, drainage planned on the wrong side
    ("side", "Large left pleural effusion.", "Large right pleural effusion.", None, "S"),
    # pneumothorax is urgent (1.0): a chest tube on the wrong side
    ("side", "Small right pneumothorax.", "Small left pneumothorax.", None, "S"),
    # pneumonia in the other lung: actionable, and the follow-up film is read against the wrong side
    ("side", "Right lower lobe consolidation.", "Left lower lobe consolidation.", None, "S"),
    # a 9 mm nodule needs CT follow-up (Fleischner): the follow-up looks at the wrong lung
    ("side", "9 mm nodule in the right upper lobe.", "9 mm nodule in the left upper lobe.", None, "S"),
    # an acute rib fracture is actionable (pain control, look for complications) on its side
    ("side", "Acute fracture of the left sixth rib.", "Acute fracture of the right sixth rib.", None, "S"),
    # new hydronephrosis is actionable (obstruction): the urologist decompresses one kidney
    ("side", "Mild right hydronephrosis.", "Mild left hydronephrosis.", None, "S"),
    # basal atelectasis is non-actionable (0.25): the side does not change what anyone does
    ("side", "Left basilar atelectasis.", "Right basilar atelectasis.", None, "I"),
    # a calcified granuloma is benign: wrong side is a negligible location error
    ("side", "Calcified granuloma in the right upper lobe.", "Calcified granuloma in the left upper lobe.", None,
     "I"),
    # a simple renal cyst is benign (Bosniak I, ACR: no follow-up)
    ("side", "Simple cyst in the left kidney.", "Simple cyst in the right kidney.", None, "I"),
    # an elevated hemidiaphragm is non-actionable on its own
    ("side", "Elevation of the right hemidiaphragm.", "Elevation of the left hemidiaphragm.", None, "I"),
    # a trace effusion is non-actionable (CRIMSON: trace effusion): its side is negligible
    ("side", "Trace left pleural effusion.", "Trace right pleural effusion.", None, "I"),
    # apical pleural thickening is chronic and non-actionable
    ("side", "Right apical pleural thickening.", "Left apical pleural thickening.", None, "I"),
    # ---------------------------------------------------------------- severity steps
    # small -> large effusion: observation becomes drainage (CRIMSON's example of a significant severity error)
    ("severity", "Small right pleural effusion.", "Large right pleural effusion.", None, "S"),
    # mild -> severe edema: outpatient diuretic vs urgent treatment
    ("severity", "Mild pulmonary edema.", "Severe pulmonary edema.", None, "S"),
    # mild vs moderate cardiomegaly: one step, no change in management
    ("severity", "Mild cardiomegaly.", "Moderate cardiomegaly.", None, "I"),
    # trace vs small: one grade to a reader, no error
    ("severity", "Trace left pleural effusion.", "Small left pleural effusion.", None, "M"),
    # mild vs moderate degenerative change: never actionable
    ("severity", "Mild degenerative changes of the thoracic spine.",
     "Moderate degenerative changes of the thoracic spine.", None, "I"),
    # mild vs severe canal stenosis: severe stenosis goes to a surgeon
    ("severity", "Mild central canal stenosis at L4-L5.", "Severe central canal stenosis at L4-L5.", None, "S"),
    # mild vs severe hydronephrosis: severe obstruction is decompressed urgently
    ("severity", "Mild right hydronephrosis.", "Severe right hydronephrosis.", None, "S"),
    # small vs large pneumothorax: observation vs chest tube
    ("severity", "Small right pneumothorax.", "Large right pneumothorax.", None, "S"),
    # mild vs moderate atelectasis: non-actionable either way
    ("severity", "Mild bibasilar atelectasis.", "Moderate bibasilar atelectasis.", None, "I"),
    # moderate vs severe emphysema on a radiograph: management follows lung function, not the film
    ("severity", "Moderate emphysema.", "Severe emphysema.", None, "I"),
    # mild vs moderate scoliosis on a chest film: no action
    ("severity", "Mild thoracic scoliosis.", "Moderate thoracic scoliosis.", None, "I"),
    # 4 mm -> 12 mm nodule: no follow-up (Fleischner < 6 mm, low risk) vs CT at 3 months / PET
    ("severity", "4 mm nodule in the right lower lobe.", "12 mm nodule in the right lower lobe.", None, "S"),
    # 3 mm vs 4 mm nodule: within the measurement margin (CRIMSON: 2 mm for nodules < 6 mm), same management
    ("severity", "3 mm nodule in the left upper lobe.", "4 mm nodule in the left upper lobe.", None, "I"),
    # small vs large hiatal hernia: incidental either way
    ("severity", "Small hiatal hernia.", "Large hiatal hernia.", None, "I"),
    # mild vs moderate edema: both treated with diuretics, the step does not change management
    ("severity", "Mild pulmonary edema.", "Moderate pulmonary edema.", None, "I"),
    # ---------------------------------------------------------------- patient context
    # aortic atherosclerosis in an 82-year-old before surgery: expected for age (CRIMSON: benign_expected)
    ("context", "Aortic atherosclerosis. " + NO_FINDING, NO_FINDING, OLD_PREOP, "I"),
    # the same finding in a 25-year-old with chest pain: premature atherosclerosis, actionable
    ("context", "Aortic atherosclerosis. " + NO_FINDING, NO_FINDING, YOUNG_PAIN, "S"),
    # no context: judged as before (an incidental finding)
    ("context", "Aortic atherosclerosis. " + NO_FINDING, NO_FINDING, None, "I"),
    # coronary calcification in a 44-year-old with chest pain: it answers the clinical question
    ("context", "Coronary artery calcifications. " + NO_FINDING, NO_FINDING,
     {"age": "44", "indication": "chest pain"}, "S"),
    # coronary calcification in an 86-year-old with a cough: expected for age
    ("context", "Coronary artery calcifications. " + NO_FINDING, NO_FINDING,
     {"age": "86", "indication": "cough"}, "I"),
    # a 5 mm nodule in a 45-year-old without risk: Fleischner, no routine follow-up
    ("context", "5 mm nodule in the right upper lobe.", NO_FINDING, {"age": "45", "indication": "cough"}, "I"),
    # the same nodule with a known cancer: Fleischner does not apply, a possible metastasis is followed
    ("context", "5 mm nodule in the right upper lobe.", NO_FINDING,
     {"age": "45", "history": "colon cancer", "indication": "staging"}, "S"),
    # a small effusion two days after CABG: an expected post-operative reaction (CRIMSON context guideline)
    ("context", "Small left pleural effusion.", NO_FINDING,
     {"age": "67", "indication": "status post CABG, postoperative day 2"}, "I"),
    # a small effusion in a young patient with palpitations: unexpected, needs work-up
    ("context", "Small left pleural effusion.", NO_FINDING, {"age": "24", "indication": "palpitations"}, "S"),
    # a small effusion in heart failure with dyspnea: still actionable (CRIMSON: expected course, actionable)
    ("context", "Small right pleural effusion.", NO_FINDING,
     {"age": "77", "history": "congestive heart failure", "indication": "dyspnea"}, "S"),
    # osteopenia in an 84-year-old: expected for age
    ("context", "Osteopenia. " + NO_FINDING, NO_FINDING, {"age": "84", "sex": "F"}, "I"),
    # degenerative spine in a 78-year-old: expected
    ("context", "Mild degenerative changes of the thoracic spine.", NO_FINDING, {"age": "78"}, "I"),
    # degenerative spine in a 30-year-old: unusual but still not actionable on a chest film
    ("context", "Mild degenerative changes of the thoracic spine.", NO_FINDING, {"age": "30"}, "I"),
    # a hiatal hernia in a patient sent for dysphagia: it answers the clinical question
    ("context", "Small hiatal hernia. " + NO_FINDING, NO_FINDING, {"age": "58", "indication": "dysphagia"}, "S"),
    # a hiatal hernia after a fall: incidental
    ("context", "Small hiatal hernia. " + NO_FINDING, NO_FINDING, {"age": "58", "indication": "trauma, fall"}, "I"),
    # a tortuous aorta in an 80-year-old: age-appropriate tortuosity
    ("context", "Tortuous thoracic aorta. " + NO_FINDING, NO_FINDING, {"age": "80"}, "I"),
    # pneumomediastinum after a recent sternotomy: expected, but still needs follow-up (actionable)
    ("context", "Pneumomediastinum. ", NO_FINDING, {"age": "70", "indication": "post sternotomy day 1"}, "S"),
    # ---------------------------------------------------------------- missing or invented actionable findings
    # a 2 cm indeterminate liver lesion needs characterisation (ACR incidental findings: >= 1 cm)
    ("missing", "2 cm hypodense lesion in the right hepatic lobe.", NO_ABDOMEN, None, "S"),
    # new hydronephrosis on CT: an obstruction until shown otherwise
    ("missing", "New mild left hydronephrosis.", NO_ABDOMEN, None, "S"),
    # a missed pneumothorax: urgent
    ("missing", "Small right apical pneumothorax.", NO_FINDING, None, "S"),
    # a missed pneumonia: actionable
    ("missing", "Right lower lobe pneumonia.", "The lungs are clear.", None, "S"),
    # a missed moderate effusion: actionable
    ("missing", "Moderate left pleural effusion.", NO_FINDING, None, "S"),
    # a missed acute rib fracture: actionable
    ("missing", "Acute fracture of the left fifth rib.", NO_FINDING, None, "S"),
    # a missed 8 mm nodule: Fleischner follow-up
    ("missing", "8 mm nodule in the left lower lobe.", NO_FINDING, None, "S"),
    # a missed renal mass: suspicious for malignancy
    ("missing", "3 cm mass in the right kidney.", NO_ABDOMEN, None, "S"),
    # a missed mild edema: actionable (CRIMSON: pulmonary edema, actionable non-urgent)
    ("missing", "Mild pulmonary edema.", NO_FINDING, None, "S"),
    # a missed abdominal aortic aneurysm: surveillance or repair
    ("missing", "4 cm infrarenal abdominal aortic aneurysm.", NO_ABDOMEN, None, "S"),
    # an invented pneumothorax: urgent, a needless chest tube
    ("missing", NO_FINDING, "Small right pneumothorax.", None, "S"),
    # invented mild atelectasis: non-actionable
    ("missing", NO_FINDING, "Mild bibasilar atelectasis.", None, "I"),
    # a missed simple renal cyst: benign, no follow-up (ACR, Bosniak I)
    ("missing", "2 cm simple cyst in the left kidney.", NO_ABDOMEN, None, "I"),
    # ---------------------------------------------------------------- benign or expected findings
    # a calcified granuloma: benign
    ("benign", "Calcified granuloma in the left lower lobe. " + NO_FINDING, NO_FINDING, None, "I"),
    # cholecystectomy clips: post-surgical, expected
    ("benign", "Cholecystectomy clips. " + NO_FINDING, NO_FINDING, None, "I"),
    # scarring at an apex: chronic, non-actionable
    ("benign", "Scarring in the right upper lobe. " + NO_FINDING, NO_FINDING, None, "I"),
    # mild tortuosity of the aorta: age-related
    ("benign", "Mild tortuosity of the thoracic aorta. " + NO_FINDING, NO_FINDING, None, "I"),
    # an invented granuloma: benign
    ("benign", NO_FINDING, "Calcified granuloma in the left lower lobe.", None, "I"),
    # ---------------------------------------------------------------- diagnostic precision
    # a vaguer reading: "opacity" for "pneumonia" in the same place is a match with an attribute error,
    # significant (CRIMSON: pneumonia vs opacity changes the work-up)
    ("precision", "Right lower lobe pneumonia.", "Opacity in the right lower lobe.", None, "PS"),
    # pneumonia vs consolidation in the same lobe: interchangeable (CRIMSON: negligible) -- a paraphrase
    ("precision", "Right lower lobe pneumonia.", "Right lower lobe consolidation.", None, "M"),
    # infiltrate vs pneumonia: interchangeable
    ("precision", "Right lower lobe infiltrate.", "Right lower lobe pneumonia.", None, "M"),
    # airspace opacity vs airspace disease: interchangeable
    ("precision", "Airspace opacity in the left lower lobe.", "Airspace disease in the left lower lobe.", None, "M"),
    # a vaguer "nodule" for a calcified granuloma: prompts a CT a granuloma does not need (CRIMSON: nodule vs
    # granuloma is significant)
    ("precision", "Calcified granuloma in the right upper lobe.", "Nodule in the right upper lobe.", None, "PS"),
    # a more specific wrong diagnosis: scarring called a malignant mass (a false cancer)
    ("precision", "Scarring in the left upper lobe.", "Mass in the left upper lobe concerning for malignancy.",
     None, "S"),
    # over-interpretation: "opacity" read as pneumonia (antibiotics started on an unsupported diagnosis)
    ("precision", "Opacity in the right lower lobe.", "Right lower lobe pneumonia.", None, "PS"),
    # consolidation called a mass: a different and more serious diagnosis
    ("precision", "Left lower lobe consolidation.", "Left lower lobe mass.", None, "S"),
    # a vaguer "opacity" for a mass: the mass would no longer be worked up
    ("precision", "Right upper lobe mass.", "Right upper lobe opacity.", None, "PS"),
    # paraphrase: enlarged cardiac silhouette is cardiomegaly
    ("precision", "Enlarged cardiac silhouette.", "Cardiomegaly.", None, "M"),
    # paraphrase: interstitial edema is pulmonary edema of the same grade
    ("precision", "Mild pulmonary edema.", "Mild interstitial edema.", None, "M"),
    # paraphrase: the same effusions in other words
    ("precision", "Small bilateral pleural effusions.", "Small pleural effusions on both sides.", None, "M"),
    # paraphrase: venous congestion for vascular congestion, enlarged heart for cardiomegaly
    ("precision", "Cardiomegaly with pulmonary vascular congestion.",
     "Enlarged heart with pulmonary venous congestion.", None, "M"),
]

_TAKES_CONTEXT = "context" in inspect.signature(judge_pair).parameters


def _judge(reference: str, candidate: str, context: dict | None):
    # the judge as it was before issue 44 read no context: the probe still runs on it (and fails)
    if _TAKES_CONTEXT:
        return judge_pair(reference, candidate, context=context)
    return judge_pair(reference, candidate)


def outcome(reference: str, candidate: str, context: dict | None) -> str:
    """The probe's reading of the judge's errors (module docstring)."""
    errors = _judge(reference, candidate, context).errors
    if not errors:
        return "M"
    sig = any(e.significant for e in errors)
    if not any(e.category in "ab" for e in errors) and any(e.category in "cd" for e in errors):
        return "PS" if sig else "PI"
    return "S" if sig else "I"


def _agrees(got: str, want: str) -> bool:
    # a partial match with a significant attribute error is a significant outcome too, but the probe asks
    # for the exact shape: a partial match is not a miss plus a false finding
    if want in ("S", "I") and got in ("PS", "PI"):
        return got[1] == want  # a side or severity error on a matched finding is the expected shape
    return got == want


def _results() -> list[tuple[str, str, str, str, str]]:
    return [(group, ref, cand, want, outcome(ref, cand, ctx)) for group, ref, cand, ctx, want in CASES]


def test_the_probe_has_enough_pairs_of_each_kind():
    groups = {g for g, *_ in CASES}
    assert len(CASES) >= 60
    assert groups == {"side", "severity", "context", "missing", "benign", "precision"}
    assert all(sum(g == k for g, *_ in CASES) >= 5 for k in groups)


def test_significance_probe_passes_at_90_percent():
    results = _results()
    wrong = [(g, r, c, want, got) for g, r, c, want, got in results if not _agrees(got, want)]
    rate = 1 - len(wrong) / len(results)
    listing = "\n".join(f"  [{g}] {r!r} vs {c!r}: want {want}, got {got}" for g, r, c, want, got in wrong)
    assert rate >= 0.90, f"{len(results) - len(wrong)}/{len(results)} ({rate:.0%}) agree; disagreements:\n{listing}"


@pytest.mark.parametrize("group", ["side", "severity", "context", "missing", "benign", "precision"])
def test_each_group_passes_at_least_half(group):
    results = [(want, got) for g, _, _, want, got in _results() if g == group]
    ok = sum(_agrees(got, want) for want, got in results)
    assert ok * 2 >= len(results), f"{group}: {ok}/{len(results)}"
