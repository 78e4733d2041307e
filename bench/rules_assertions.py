"""Hand-labelled sentences: is each named finding present, absent, possible, history or not assessed?

Written for issue 32 in the styles of radiologists and of report generators (lists, evidence chains,
hedges, limits, history, refusals), with the label a radiologist would give each named finding. Each
finding is named by the words of the sentence (a substring), never by the rules judge's vocabulary, so
the labels do not depend on what the judge knows. Used by ``bench/bench_rules_context.py`` (the judge's
negation / uncertainty / history scope against medspacy's ConText) and by
``tests/judges/test_rules_machine_written.py``.

Statuses: ``present``; ``absent`` (negated); ``possible`` (hedged, still said to be there: "cannot be
excluded", "may represent", "likely", "not well seen"); ``history`` (the patient's history, not read on
this image: "known lung cancer"); ``unassessed`` (the text says it could not judge: "cannot be assessed",
"limited evaluation for pneumothorax").
"""

from __future__ import annotations

STATUSES = ("present", "absent", "possible", "history", "unassessed")

#: (sentence, {finding words: status})
SENTENCES: tuple[tuple[str, dict[str, str]], ...] = (
    # plain statements and lists
    ("No pleural effusion, pneumothorax or focal consolidation.",
     {"pleural effusion": "absent", "pneumothorax": "absent", "focal consolidation": "absent"}),
    ("There is no evidence of pneumothorax, pleural effusion, or pulmonary edema.",
     {"pneumothorax": "absent", "pleural effusion": "absent", "pulmonary edema": "absent"}),
    ("Pleural effusion, pneumothorax, and consolidation are not seen.",
     {"Pleural effusion": "absent", "pneumothorax": "absent", "consolidation": "absent"}),
    ("Mild cardiomegaly with small bilateral pleural effusions.",
     {"cardiomegaly": "present", "pleural effusions": "present"}),
    ("The lungs are clear without focal consolidation, effusion, or pneumothorax.",
     {"focal consolidation": "absent", "effusion": "absent", "pneumothorax": "absent"}),
    ("Small left pleural effusion. No pneumothorax.", {"pleural effusion": "present", "pneumothorax": "absent"}),
    ("No pneumothorax, but there is a small right pleural effusion.",
     {"pneumothorax": "absent", "pleural effusion": "present"}),
    ("Neither pneumothorax nor pleural effusion is identified.",
     {"pneumothorax": "absent", "pleural effusion": "absent"}),
    ("Negative for pneumothorax.", {"pneumothorax": "absent"}),
    ("There is a large right pneumothorax with mediastinal shift to the left.",
     {"pneumothorax": "present", "mediastinal shift": "present"}),
    ("Bibasilar atelectasis and a small hiatal hernia are noted.",
     {"atelectasis": "present", "hiatal hernia": "present"}),
    ("The heart is enlarged; no pulmonary edema.", {"heart is enlarged": "present", "pulmonary edema": "absent"}),
    ("Without evidence of acute fracture or dislocation.", {"fracture": "absent", "dislocation": "absent"}),
    ("No acute osseous abnormality. Degenerative changes of the thoracic spine.",
     {"Degenerative changes": "present"}),
    ("There is no focal airspace disease, however mild interstitial prominence is present.",
     {"airspace disease": "absent", "interstitial prominence": "present"}),
    ("Free of pneumothorax.", {"pneumothorax": "absent"}),
    ("Pneumothorax has resolved.", {"Pneumothorax": "absent"}),
    ("Interval resolution of the left pleural effusion.", {"pleural effusion": "absent"}),
    # descriptive findings, devices, surgery
    ("Thickening of the interstitial markings with peribronchial cuffing.",
     {"interstitial markings": "present", "peribronchial cuffing": "present"}),
    ("Increased density projecting over both perihilar regions.", {"density": "present"}),
    ("Elevation of the right hemidiaphragm with rightward mediastinal shift, in keeping with volume loss.",
     {"hemidiaphragm": "present", "mediastinal shift": "present", "volume loss": "present"}),
    ("Obscuration of the left heart border, suggesting lingular consolidation.",
     {"heart border": "present", "consolidation": "possible"}),
    ("Subtle reticular changes at the bases.", {"reticular changes": "present"}),
    ("Post-surgical changes of a right shoulder arthroplasty.", {"arthroplasty": "present"}),
    ("Vertebroplasty cement at T11.", {"Vertebroplasty": "present"}),
    ("Cholecystectomy clips in the right upper quadrant.", {"Cholecystectomy": "present"}),
    ("The thoracic aorta is tortuous and calcified.", {"aorta is tortuous": "present"}),
    ("Blunting of the left costophrenic angle.", {"Blunting": "present"}),
    ("Calcified right hilar lymph nodes, compatible with prior granulomatous disease.",
     {"lymph nodes": "present", "granulomatous disease": "possible"}),
    ("Median sternotomy wires and mediastinal surgical clips.", {"sternotomy": "present", "clips": "present"}),
    ("Right internal jugular central venous catheter with tip in the superior vena cava.",
     {"central venous catheter": "present"}),
    ("Endotracheal tube terminates 4 cm above the carina. Enteric tube courses below the diaphragm.",
     {"Endotracheal tube": "present", "Enteric tube": "present"}),
    # evidence chains
    ("Congestive heart failure, evidenced by cardiomegaly, vascular congestion and Kerley B lines.",
     {"heart failure": "present", "cardiomegaly": "present", "vascular congestion": "present",
      "Kerley B lines": "present"}),
    ("Hyperinflation with flattening of the hemidiaphragms, consistent with emphysema.",
     {"Hyperinflation": "present", "flattening": "present", "emphysema": "present"}),
    ("Right lower lobe consolidation, as evidenced by air bronchograms and silhouetting of the right hemidiaphragm.",
     {"consolidation": "present", "air bronchograms": "present", "silhouetting": "present"}),
    # hedges
    ("A small pneumothorax cannot be excluded.", {"pneumothorax": "possible"}),
    ("Cannot exclude early pneumonia in the right lower lobe.", {"pneumonia": "possible"}),
    ("Patchy opacity in the left lower lobe may represent atelectasis or pneumonia.",
     {"opacity": "present", "atelectasis": "possible", "pneumonia": "possible"}),
    ("Likely atelectasis at the left base.", {"atelectasis": "possible"}),
    ("Findings are suspicious for pulmonary edema.", {"pulmonary edema": "possible"}),
    ("Possible small left pleural effusion.", {"pleural effusion": "possible"}),
    ("Questionable nodular opacity in the right upper lobe.", {"nodular opacity": "possible"}),
    ("Probable right middle lobe pneumonia.", {"pneumonia": "possible"}),
    ("The appearance is concerning for a right upper lobe mass.", {"mass": "possible"}),
    ("An abdominal aortic aneurysm is not well seen on this chest film.", {"aortic aneurysm": "possible"}),
    ("Mild cardiomegaly, possibly accentuated by the AP technique.", {"cardiomegaly": "present"}),
    ("There may be a trace left pleural effusion.", {"pleural effusion": "possible"}),
    ("No definite pneumothorax.", {"pneumothorax": "absent"}),
    # limits
    ("This image does not appear to be a chest radiograph; pneumonia, pneumothorax, effusion or fractures "
     "cannot be assessed.", {"pneumonia": "unassessed", "pneumothorax": "unassessed", "effusion": "unassessed",
                             "fractures": "unassessed"}),
    ("Limited evaluation for pneumothorax on this supine film.", {"pneumothorax": "unassessed"}),
    ("Evaluation for pneumothorax is limited by overlying hardware.", {"pneumothorax": "unassessed"}),
    ("Pleural effusion cannot be assessed on this single view.", {"Pleural effusion": "unassessed"}),
    ("Unable to assess for pneumothorax.", {"pneumothorax": "unassessed"}),
    ("Rib fractures are not well evaluated on this study.", {"Rib fractures": "unassessed"}),
    ("Consolidation is limited to the right lower lobe.", {"Consolidation": "present"}),
    ("Limited evaluation of the spine; no fracture is seen.", {"fracture": "absent"}),
    # history
    ("Known lung cancer.", {"lung cancer": "history"}),
    ("History of pneumonia, now resolved; the lungs are clear.", {"pneumonia": "history"}),
    ("In a patient with known COPD, the lungs are hyperinflated.", {"COPD": "history", "hyperinflated": "present"}),
    ("History of right upper lobectomy.", {"lobectomy": "history"}),
    ("Known right lower lobe nodule, unchanged in size.", {"nodule": "present"}),
    ("Patient with a history of congestive heart failure; mild pulmonary edema.",
     {"heart failure": "history", "pulmonary edema": "present"}),
    ("Status post median sternotomy.", {"sternotomy": "present"}),
    ("Prior granulomatous disease with calcified granulomas.", {"granulomas": "present"}),
)
