"""Clinical vocabulary of the rule-based judge (:mod:`core.judges.rules`).

Plain data, no logic: observations with their synonyms and clinical weight,
ordinal severity scales, anatomic site classes, normal-anatomy statements and
the cue words for negation, hedging and comparison with a prior study (the last
four in :mod:`core.judges.rules.vocab_cues`, re-exported here).

Every pattern is a case-insensitive regular-expression fragment matched on
word boundaries.  Within one concept, list the longer wording first.

Clinical weight (``Concept.sig``) is what decides whether an error about the
finding is clinically significant (see the module documentation of
:mod:`core.judges.rules.match`):

* ``"always"`` -- critical or actionable whatever its size (pneumothorax,
  pulmonary embolism, fractures, acute infarcts, masses suspicious for
  malignancy, acute inflammatory processes, ...);
* ``"never"`` -- degenerative, chronic or incidental (atelectasis, granulomas,
  diverticulosis, osteoarthritis, simple cysts, ...);
* ``"graded"`` -- significant from a severity level (``level``, on the scale
  the finding is graded on) and/or from a size (``size_mm``): a moderate
  pleural effusion, severe canal stenosis, a >= 6 mm lung nodule (Fleischner),
  a TI-RADS 4 thyroid nodule, a full-thickness rotator cuff tear.
"""

from __future__ import annotations

from core.judges.rules.concept import Concept
from core.judges.rules.vocab_chest import AFTER_AORTA_IS, AGE_CHANGES, CHEST_CONCEPTS, DISH, RIB_DEFORMITY
from core.judges.rules.vocab_cues import *  # noqa: F403 - the cue words (its __all__): callers read them as vocab.X
from core.judges.rules.vocab_scales import NUMERIC_SCALES as NUMERIC_SCALES
from core.judges.rules.vocab_scales import SCALES as SCALES

# --------------------------------------------------------------------------- #
# Observations                                                                 #
# --------------------------------------------------------------------------- #


C = Concept

_MASS = r"mass(?:es)?"
_LESION = r"lesions?"
_NODE = r"lymph\s+nodes?"
# "the heart is mildly enlarged": the organ names the finding, the rest is read as usual
_IS_ENLARGED = (r"(?=\s+(?:is|are|appears?|remains?)\s+(?:again\s+|still\s+)?(?:\w+ly\s+|borderline\s+)?"
                # ("heart size is prominent left ventricular contour": the chamber's contour, not the heart's size)
                r"(?:enlarged|dilated|prominent(?!\s+(?:left|right)\s+ventric)|large|borderline\s+(?:in\s+)?size))")
# "blunting of the left costophrenic angle" (IU reports write "costophrenic XXXX" where a word was removed)
_CP = r"costophrenic\s+(?:angles?|recess(?:es)?|sulc(?:us|i)|xxxx)"

CONCEPTS: tuple[Concept, ...] = (
    # ---- chest ---------------------------------------------------------------
    C("pneumothorax", "pneumothorax", (r"hydropneumothora(?:x|ces)", r"pneumothora(?:x|ces)", r"PTX",
                                       r"pleural\s+air(?:\s+collections?)?", r"(?:thin\s+)?(?:visceral\s+)?pleural\s+line",
                                       r"(?:thin\s+)?lucent\s+line(?=\s+(?:along|at|over|in)\b)"), "always"),
    C("pleural_effusion", "pleural effusion",
      (r"pleural\s+fluid\s+collections?", r"pleural\s+effusions?", r"pleural\s+fluid",
       r"fluid\s+(?:(?:is|are)\s+)?(?:(?:present|seen|noted)\s+)?(?:with)?in\s+the\s+(?:(?:left|right|bilateral)\s+)?pleural\s+spaces?", r"hydrothora(?:x|ces)",
       r"blunt(?:ing|ed)\s+(?:of\s+)?(?:the\s+)?(?:(?:right|left|bilateral|both)\s+)?(?:(?:lateral|posterior)\s+)?" + _CP,
       r"costophrenic\s+(?:(?:angle|recess|sulcus|xxxx)\s+)?blunting", _CP + r"(?=\s+(?:is|are|remains?)\s+"
       r"(?:\w+ly\s+)?blunted)"),
      "graded", level=2, family="effusion"),
    C("consolidation", "consolidation",
      (r"air[-\s]?space\s+(?:opacit(?:y|ies)|opacifications?)", r"air[-\s]?space\s+disease", r"consolidations?",
       r"consolidative\s+opacit(?:y|ies)", r"pneumonias?", r"infiltrates?", r"air[-\s]?space\s+densit(?:y|ies)"),
      "always", family="opacity"),
    C("pulmonary_edema", "pulmonary edema",
      (r"pulmonary\s+(?:interstitial\s+)?edema", r"interstitial\s+edema", r"alveolar\s+edema",
       r"fluid\s+overload", r"(?:congestive\s+)?heart\s+failure", r"CHF"),
      "graded", level=2, family="edema"),
    C("vascular_congestion", "pulmonary vascular congestion",
      (r"(?:pulmonary\s+)?(?:vascular|venous)\s+(?:congestion|engorgement|prominence|redistribution)",
       r"pulmonary\s+venous\s+hypertension",
       r"cephalization", r"(?:prominent|engorged|congested|indistinct)\s+(?:pulmonary\s+)?(?:vasculature|vessels)",
       r"(?:pulmonary\s+)?vascularity" + r"(?=\s+(?:is|are|appears?)\s+(?:\w+ly\s+)?(?:increased|accentuated|"
       r"prominent|engorged))"), "graded", level=2),
    C("cardiomegaly", "cardiomegaly",
      (r"enlargement\s+of\s+the\s+cardiac\s+silhouette", r"enlarged\s+cardiac\s+silhouette",
       r"cardiac\s+enlargement", r"enlarged\s+heart", r"cardiomegaly",
       r"enlarged\s+(?:cardiomediastinal|cardiac)\s+(?:silhouette|contours?|shadow)",
       r"enlargement\s+of\s+the\s+(?:heart|cardiomediastinal\s+silhouette)",
       r"borderline\s+(?:enlarged\s+)?(?:heart\s+size|cardiac\s+size|heart|cardiac\s+silhouette)",
       # "heart size at the upper limits of normal" is the borderline heart in other words
       r"(?:heart|cardiac\s+silhouette|cardiac)(?:\s+size)?(?=\s+(?:(?:is|appears?|remains?)\s+)?(?:at\s+|near\s+)?(?:the\s+)?"
       r"(?:upper\s+(?:limits?|end|range)\s+of\s+(?:the\s+)?normal|(?:top|high)[-\s]normal))",
       r"(?:heart|cardiac\s+silhouette|cardiomediastinal\s+silhouette)(?:\s+size)?" + _IS_ENLARGED,
       # "interval increase in heart size", "the heart has increased in size": an enlarged heart, compared
       r"(?<=increase in )(?:the\s+)?(?:(?:heart|cardiac)\s+size|size\s+of\s+the\s+(?:heart|cardiac\s+silhouette))",
       r"(?:heart|cardiac\s+silhouette)(?:\s+size)?(?=\s+(?:has\s+)?increased(?:\s+in\s+size)?)"),
      "graded", level=3),
    C("atelectasis", "atelectasis", (r"(?:linear\s+|plate-?like\s+|discoid\s+)?atelectas[ie]s", r"atelectatic\s+changes?", r"subsegmental\s+collapse",
                                   r"volume\s+loss", r"atelectatic")),  # bare "volume loss": the lung's (cerebral is qualified)
    C("lung_nodule", "pulmonary nodule",
      (r"(?:pulmonary|lung|noncalcified|non-calcified|solid|part-solid|subsolid|ground[-\s]glass|spiculated)"
       r"\s+(?:pulmonary\s+)?nodules?", r"suspicious\s+pulmonary\s+nodules?"),
      "graded", size_mm=6, family="nodule"),
    C("rib_fracture", "rib fracture", (r"rib\s+fractures?", r"fractures?\s+(?:of|involving)\s+the\s+(?:\w+\s+){1,4}ribs?",
                                       # a rib deformity read as old or healed is an old fracture
                                       r"(?:(?<=old )|(?<=healed )|(?<=remote ))(?:(?:right|left|bilateral)(?:-sided)?\s+)?(?:[a-z]+\s+)?rib\s+deformit(?:y|ies)",
                                       r"(?:(?<=old )|(?<=healed )|(?<=remote ))deformit(?:y|ies)\s+of\s+(?:the\s+)?(?:\w+\s+){0,3}ribs?",
                                       *RIB_DEFORMITY),
      "always",
      scales=("disp",), family="fracture"),
    C("granuloma", "calcified granuloma", (r"calcified\s+granulom(?:as?|ata)", r"granulom(?:as?|ata)",
                                           r"calcified\s+(?:(?:bilateral|right|left|hilar|perihilar)\s+){0,2}nodules?",
                                           r"granulomatous\s+calcifications?"),
      family="calcification", also=("nodule", "granulomatous")),
    # the disease read from calcified granulomas or nodes: either can stand for it
    C("granulomatous_disease", "granulomatous disease",
      (r"(?:prior\s+|old\s+|healed\s+|remote\s+)?granulomatous\s+(?:disease|infection|sequela[e]?|changes?|"
       r"process|exposure)",), family="granulomatous", generic=True, also=("calcification",)),
    C("hiatal_hernia", "hiatal hernia", (r"hiatal\s+hernias?", r"hiatus\s+hernias?")),
    C("emphysema", "emphysema", (r"(?:centrilobular|paraseptal|panlobular|bullous)\s+emphysema", r"emphysema",
                                 r"emphysematous\s+(?:changes?|disease|lungs?)", r"COPD",
                                 r"chronic\s+obstructive\s+(?:pulmonary|lung|airways?)\s+disease"),
      "graded", level=3, also=("chronic_lung",)),
    C("lymphadenopathy", "lymphadenopathy",
      (r"(?:enlarged|abnormal|suspicious|pathologic(?:ally\s+enlarged)?|prominent)\s+(?:(?:mediastinal|hilar|"
       r"axillary|cervical|supraclavicular|retroperitoneal|mesenteric|pelvic)\s+)?" + _NODE,
       r"(?:mediastinal|hilar|paratracheal|subcarinal)\s+lymph\s+(?:nodes?|xxxx)",
       r"(?:mediastinal|hilar|axillary|cervical|supraclavicular|retroperitoneal|mesenteric|pelvic)\s+"
       r"(?:lymphadenopathy|adenopathy)", r"lymphadenopathy", r"adenopathy"), "always"),
    C("pericardial_effusion", "pericardial effusion", (r"pericardial\s+effusions?", r"pericardial\s+fluid"),
      "graded", level=2, family="effusion"),
    C("coronary_calcification", "coronary artery calcification",
      (r"coronary\s+(?:artery\s+)?(?:atherosclerotic\s+)?calcifications?", r"coronary\s+atherosclerosis")),
    C("pulmonary_embolism", "pulmonary embolism",
      (r"pulmonary\s+(?:arterial\s+)?(?:emboli|embolus|embolism|thromboembolism|thromboemboli)",
       r"filling\s+defects?\s+(?:with)?in\s+the\s+pulmonary\s+arter(?:y|ies)", r"saddle\s+embol(?:us|ism)",
       ), "always", scales=("pe",)),
    C("aortic_dissection", "aortic dissection",
      (r"aortic\s+dissections?", r"dissection\s+flaps?", r"intimal\s+flaps?", r"intramural\s+hematoma"), "always"),
    # ---- abdomen -------------------------------------------------------------
    C("liver_lesion", "hepatic lesion",
      (r"(?:echogenic\s+|hypoechoic\s+|hypoattenuating\s+|hypervascular\s+|focal\s+)?(?:hepatic|liver)\s+"
       r"(?:lesions?|masses|mass|hypodensit(?:y|ies)|nodules?)",), "graded", size_mm=10, family="lesion"),
    C("steatosis", "hepatic steatosis",
      (r"hepatic\s+steatosis", r"fatty\s+infiltration\s+of\s+the\s+liver", r"fatty\s+liver",
       r"steatosis")),
    C("cirrhosis", "cirrhosis", (r"cirrhotic\s+(?:liver\s+)?morphology", r"cirrhotic\s+liver", r"cirrhosis"),
      "always"),
    C("splenomegaly", "splenomegaly", (r"splenomegaly", r"enlarged\s+spleen", r"spleen" + _IS_ENLARGED),
      "graded", level=3),
    C("gallstones", "cholelithiasis", (r"gallstones?", r"cholelithiasis")),
    C("gb_wall_thickening", "gallbladder wall thickening",
      (r"gallbladder\s+wall\s+thickening", r"thickened\s+gallbladder\s+wall"), "graded", size_mm=6),
    C("cholecystitis", "acute cholecystitis", (r"(?:acute\s+)?cholecystitis",), "always"),
    C("biliary_dilation", "biliary ductal dilation",
      (r"(?:common\s+bile\s+duct|biliary(?:\s+ductal)?|bile\s+duct|CBD)\s+dilat(?:ation|ion)",
       r"dilat(?:ed|ation\s+of\s+the)\s+(?:common\s+bile\s+duct|bile\s+ducts?|biliary\s+(?:tree|ducts?))",
       r"(?:common\s+bile\s+duct|CBD|bile\s+ducts|biliary\s+tree)" + _IS_ENLARGED), "always"),
    C("appendicitis", "acute appendicitis", (r"(?:acute\s+)?appendicitis",), "always"),
    C("pancreatitis", "acute pancreatitis", (r"(?:acute\s+|interstitial\s+edematous\s+)?pancreatitis",),
      "always"),
    C("adrenal_nodule", "adrenal nodule", (r"adrenal\s+(?:nodules?|adenomas?|masses|mass|lesions?)",)),
    C("kidney_stone", "renal calculus",
      (r"(?:renal|kidney)\s+(?:calculus|calculi|stones?)", r"nephrolithiasis", r"urolithiasis"),
      "graded", size_mm=8, family="stone"),
    C("ureteral_stone", "ureteral calculus", (r"(?:ureteral|ureteric)\s+(?:calculus|calculi|stones?)",),
      "always", family="stone"),
    C("hydronephrosis", "hydronephrosis",
      (r"hydroureteronephrosis", r"hydronephrosis", r"pelvicaliectasis", r"pelviectasis", r"caliectasis"),
      "graded", level=2),
    C("renal_cyst", "renal cyst", (r"(?:simple\s+)?(?:renal|kidney)\s+cysts?",), family="cyst"),
    C("renal_mass", "solid renal mass",
      (r"(?:solid\s+)?(?:renal|kidney)\s+(?:masses|mass|lesions?|tumou?rs?)", r"renal\s+cell\s+carcinoma"),
      "always", family="mass"),
    C("renal_cortical_thinning", "renal cortical thinning",
      (r"(?:renal\s+)?cortical\s+thinning", r"renal\s+atrophy")),
    C("bladder_wall_thickening", "bladder wall thickening",
      (r"bladder\s+wall\s+thickening", r"thickened\s+bladder\s+wall")),
    # Fluid confined to the pelvis (cul-de-sac, pouch of Douglas) is not ascites: named for where it is.
    C("pelvic_free_fluid", "pelvic free fluid",
      (r"(?:pelvic\s+)?free\s+fluid\s+in\s+the\s+(?:pelvis|cul-de-sac|pouch\s+of\s+douglas|rectouterine\s+pouch)",
       r"pelvic\s+free\s+fluid", r"free\s+pelvic\s+fluid"), "graded", level=2, family="free_fluid"),
    C("ascites", "ascites",
      (r"ascites", r"free\s+(?:intraperitoneal|peritoneal|abdominal)\s+fluid", r"intraperitoneal\s+fluid"),
      "graded", level=2, family="free_fluid"),
    C("bowel_obstruction", "small bowel obstruction",
      (r"small[-\s]bowel\s+obstruction", r"(?:large\s+)?bowel\s+obstruction", r"SBO"), "always",
      scales=("sbo",)),
    C("diverticulitis", "acute diverticulitis", (r"(?:acute\s+)?diverticulitis",), "always"),
    C("diverticulosis", "diverticulosis", (r"diverticulosis", r"diverticula")),
    C("hernia_wall", "abdominal wall hernia",
      (r"(?:fat-containing\s+)?(?:umbilical|inguinal|ventral|incisional|paraumbilical)\s+hernias?",)),
    # ---- vessels -------------------------------------------------------------
    C("aortic_aneurysm", "aortic aneurysm",
      (r"(?:abdominal\s+|infrarenal\s+|thoracic\s+)?aortic\s+aneurysms?", r"AAA",
       r"aneurysmal\s+dilat(?:ation|ion)\s+of\s+the\s+(?:abdominal\s+)?aorta"), "always", d_ratio=1.2,
      family="aneurysm"),
    C("iliac_aneurysm", "iliac artery aneurysm",
      (r"(?:common\s+|internal\s+|external\s+)?iliac\s+(?:artery\s+)?aneurysms?",), "always", family="aneurysm"),
    C("renal_artery_stenosis", "renal artery stenosis", (r"renal\s+artery\s+stenosis",), "graded", level=2,
      alt_level=1, scales=("sev", "pct"), family="stenosis"),
    C("aortic_atherosclerosis", "aortic atherosclerosis",
      (r"atherosclerotic\s+calcification\s+of\s+the\s+aorta", r"aortic\s+atherosclerosis",
       r"atherosclerosis\s+of\s+the\s+aort(?:a|ic\s+(?:arch|knob|xxxx))",
       r"aortic\s+(?:xxxx\s+)?(?:atherosclerotic\s+)?(?:vascular\s+)?calcifications?",
       r"calcifications?\s+of\s+the\s+(?:\w+\s+)?aort(?:a|ic\s+(?:arch|knob|xxxx))",
       r"atherosclerotic\s+(?:calcifications?|changes?|disease)", r"atherosclerosis",
       r"atherosclerotic\s+(?:changes?|disease|calcifications?|plaques?)\s+(?:of|in|within)\s+the\s+(?:\w+\s+)?"
       r"aort(?:a|ic\s+(?:arch|knob|xxxx))", r"(?:atherosclerotic|calcified|calcific)\s+(?:thoracic\s+)?aorta",
       r"calcified\s+aortic\s+(?:arch|knob|xxxx)",
       # plaque, calcification or atheroma placed in the aorta ("calcified plaque is seen in the aortic arch")
       r"(?:(?:calcified|calcific|atherosclerotic|atheromatous|vascular)\s+){0,2}(?:plaques?|calcifications?|atheroma)"
       r"\s+(?:(?:is|are)\s+)?(?:(?:seen|noted|present|identified|demonstrated)\s+)?(?:in|within|of|along|at|involving)"
       r"\s+the\s+(?:(?:thoracic|descending|ascending|transverse)\s+){0,2}aort(?:a|ic\s+(?:arch|knob|wall|xxxx))",
       r"aortic\s+(?:arch\s+|knob\s+|wall\s+)?(?:atherosclerotic\s+|calcified\s+)?(?:plaques?|atheroma)",
       # vascular calcification placed in the aorta or its wall ("calcification in the wall of the thoracic aorta",
       # the dictated "vascular calcifications aorta"): the aorta's atherosclerosis, not a benign calcification
       r"(?:vascular\s+|mural\s+)?calcifications?\s+(?:(?:is|are)\s+)?(?:(?:seen|noted|present|identified)\s+)?"
       r"(?:(?:in|within|of|along|involving)\s+)?(?:the\s+)?(?:wall\s+of\s+the\s+)?"
       r"(?:(?:thoracic|descending|ascending|transverse)\s+){0,2}aorta\b",
       r"aortic\s+wall\s+calcifications?",
       # "degenerative and atherosclerotic changes of the thoracic aorta": the aorta's wall, not the spine
       r"degenerative\s+changes\s+of\s+the\s+(?:thoracic\s+)?aorta", r"aortic\s+(?:arch|knob)\s+calcifications?",
       r"(?:thoracic\s+)?aorta(?=\s+(?:is|appears?)\s+(?:\w+ly\s+)?(?:calcified|atherosclerotic))",
       r"calcified(?=\s+(?:and\s+)?(?:(?:tortuous|ectatic)\s+)?(?:(?:thoracic|descending)\s+)?aorta)", AFTER_AORTA_IS + r"(?:calcified|atherosclerotic)")),
    C("carotid_stenosis", "internal carotid artery stenosis",
      (r"(?:internal\s+carotid\s+artery|internal\s+carotid|ICA|carotid\s+artery|carotid)\s+stenosis",
       r"stenosis\s+of\s+the\s+(?:left\s+|right\s+)?(?:internal\s+carotid\s+artery|ICA)"),
      "graded", level=1, alt_level=2, scales=("pct", "sev"), family="stenosis"),
    C("plaque", "atherosclerotic plaque",
      (r"(?:atherosclerotic|calcified|soft|mixed|noncalcified)\s+plaques?", r"plaques?")),
    C("flow_reversal", "reversal of flow",
      (r"reversal\s+of\s+(?:vertebral\s+)?flow", r"reversed\s+flow", r"retrograde\s+flow", r"subclavian\s+steal"),
      "always"),
    C("intracranial_aneurysm", "intracranial aneurysm",
      (r"(?:saccular|intracranial|cerebral|berry)\s+aneurysms?",), "always", family="aneurysm"),
    C("mca_stenosis", "middle cerebral artery stenosis", (r"(?:middle\s+cerebral\s+artery|MCA)\s+stenosis",),
      "graded", level=2, alt_level=1, scales=("sev", "pct"), family="stenosis"),
    C("fetal_pca", "fetal-type posterior cerebral artery",
      (r"fetal[-\s](?:type|origin)\s+posterior\s+cerebral\s+arter(?:y|ies)", r"fetal\s+PCA",
       r"fetal\s+origin\s+of\s+the\s+posterior\s+cerebral\s+arter(?:y|ies)")),
    # ---- pelvis --------------------------------------------------------------
    C("ovarian_cyst", "ovarian cyst",
      (r"(?:simple\s+|hemorrhagic\s+|functional\s+)?(?:ovarian|adnexal)\s+cysts?",), "graded", size_mm=50,
      family="cyst"),
    C("adnexal_mass", "adnexal mass", (r"(?:ovarian|adnexal)\s+(?:masses|mass)",), "always", family="mass"),
    C("fibroid", "uterine fibroid", (r"(?:uterine\s+)?fibroids?", r"leiomyomas?", r"leiomyomata", r"myomas?")),
    C("endometrial_thickening", "endometrial thickening",
      (r"endometrial\s+thickening", r"thickened\s+endometrium"), "graded", size_mm=15),
    C("adenomyosis", "adenomyosis", (r"adenomyosis",)),
    # ---- brain ---------------------------------------------------------------
    C("ich", "intraparenchymal hemorrhage",
      (r"(?:intraparenchymal|intracerebral|parenchymal)\s+(?:hemorrhages?|hematomas?|haemorrhages?)",),
      "always", family="hemorrhage"),
    C("sdh", "subdural hematoma",
      (r"subdural\s+(?:hematomas?|hemorrhages?|collections?|hygromas?)",
       r"extra-?axial\s+(?:fluid\s+)?(?:collections?|hematomas?|hemorrhages?)", r"epidural\s+hematomas?"),
      "always", family="hemorrhage"),
    C("sah", "subarachnoid hemorrhage", (r"subarachnoid\s+(?:hemorrhage|blood)",), "always", family="hemorrhage"),
    C("acute_infarct", "acute infarct",
      (r"acute\s+(?:ischemic\s+)?(?:infarcts?|infarctions?|strokes?)", r"acute\s+ischemia"), "always",
      family="infarct"),
    C("chronic_infarct", "chronic lacunar infarct",
      (r"(?:chronic|old|remote)\s+(?:lacunar\s+)?infarcts?", r"lacunar\s+infarcts?", r"lacunes?",
       r"encephalomalacia"), family="infarct"),
    C("small_vessel", "chronic small vessel ischemic disease",
      (r"(?:chronic\s+)?(?:small\s+vessel|microvascular)\s+(?:ischemic\s+)?(?:disease|changes?)",
       r"white\s+matter\s+(?:hyperintensit(?:y|ies)|disease|changes)", r"leukoaraiosis",
       r"microangiopathy")),
    C("hydrocephalus", "hydrocephalus",
      (r"hydrocephalus", r"ventriculomegaly", r"ventricular\s+enlargement", r"enlarged\s+ventricles",
       r"ventricles" + _IS_ENLARGED),
      "graded", level=2),
    C("midline_shift", "midline shift", (r"midline\s+shift", r"shift\s+of\s+(?:the\s+)?midline\s+structures",
                                         r"subfalcine\s+herniation"), "always"),
    C("skull_fracture", "skull fracture",
      (r"(?:skull|calvarial)\s+fractures?", r"fractures?\s+of\s+the\s+(?:skull|calvarium)"), "always",
      scales=("disp",), family="fracture"),
    C("sinus_disease", "paranasal sinus mucosal thickening",
      (r"mucosal\s+thickening", r"sinus\s+disease", r"sinusitis")),
    C("volume_loss", "cerebral volume loss",
      (r"(?:generalized|diffuse|cerebral|parenchymal|brain)\s+volume\s+loss",
       r"(?:cerebral|brain|generalized|cortical)\s+atrophy")),
    C("brain_mass", "enhancing brain mass",
      (r"(?:ring-)?enhancing\s+(?:masses|mass|lesions?)", r"intra-?axial\s+(?:masses|mass|lesions?)",
       r"(?:brain|intracranial)\s+(?:masses|mass|tumou?rs?)"), "always", family="mass"),
    C("meningioma", "meningioma", (r"meningiomas?", r"extra-?axial\s+(?:masses|mass)"), "graded",
      size_mm=30, family="mass"),
    # ---- spine ---------------------------------------------------------------
    C("disc_herniation", "disc herniation",
      (r"(?:disc|disk)\s+(?:herniations?|extrusions?|protrusions?)", r"herniated\s+(?:disc|disk)s?",
       r"herniated\s+nucleus\s+pulposus"), "graded", level=2),
    C("canal_stenosis", "spinal canal stenosis",
      (r"(?:spinal|central)\s+canal\s+(?:stenosis|narrowing)", r"stenosis\s+of\s+the\s+(?:spinal|central)\s+canal",
       r"spinal\s+stenosis", r"canal\s+(?:stenosis|narrowing)", r"thecal\s+sac\s+(?:narrowing|compression)"),
      "graded", level=3, family="stenosis"),
    C("foraminal_narrowing", "neural foraminal narrowing",
      (r"(?:neural\s+)?foraminal\s+(?:narrowing|stenosis)", r"narrowing\s+of\s+the\s+neural\s+foram(?:en|ina)"),
      "graded", level=3, family="stenosis"),
    C("facet_arthropathy", "facet arthropathy",
      (r"facet\s+(?:joint\s+)?(?:arthropathy|arthrosis|hypertrophy|osteoarthritis|degenerative\s+changes?)",)),
    C("disc_degeneration", "degenerative disc disease",
      (r"degenerative\s+disc\s+disease", r"(?:disc|disk)\s+(?:space\s+)?(?:narrowing|degeneration|desiccation)"),
      family="degenerative"),
    C("compression_fracture", "vertebral compression fracture",
      (r"compression\s+(?:fractures?|deformit(?:y|ies))", r"vertebral\s+(?:body\s+)?(?:compression\s+)?fractures?",
       r"(?:wedge|burst)\s+fractures?", r"(?:mild\s+|partial\s+)?loss\s+of\s+(?:vertebral\s+(?:body\s+)?)?height",
       r"(?:vertebral\s+(?:body\s+)?)?height\s+loss"), "always", scales=("sev", "pct"), family="fracture"),
    C("spondylolisthesis", "spondylolisthesis",
      (r"(?:antero|retro|spondylo)listhes[ie]s", r"anterolistheses"), "graded", level=2, scales=("grade", "sev")),
    C("cord_signal", "spinal cord signal abnormality",
      (r"(?:abnormal\s+)?cord\s+signal(?:\s+(?:abnormality|abnormalities|change))?",
       r"abnormal\s+(?:T2\s+)?signal\s+(?:with)?in\s+the\s+(?:spinal\s+)?cord", r"cord\s+(?:edema|compression)",
       r"myelomalacia", r"myelopathy"), "always"),
    C("scoliosis", "scoliosis", (r"(?:dextro|levo)?scoliosis", r"scoliotic\s+curvature",
                                 r"(?:dextro|levo)-?convex\s+(?:\w+\s+)?curvature", r"lateral\s+curvature",
                                 r"(?:dextro|levo)-?curvature", r"(?:right|left)(?:ward|[-\s]convex)\s+(?:\w+\s+)?curvature",
                                 r"curvature(?=\s+(?:of\s+the\s+(?:\w+\s+){0,2}spine,?\s+)?convex\s+to(?:ward)?\s+the\s+(?:right|left))")),
    # ---- knee ----------------------------------------------------------------
    C("acl_tear", "anterior cruciate ligament tear",
      (r"(?:anterior\s+cruciate\s+ligament|ACL)\s+(?:tears?|ruptures?|disruption)",
       r"tears?\s+of\s+the\s+(?:anterior\s+cruciate\s+ligament|ACL)"), "always", scales=("acl",)),
    C("meniscal_tear", "meniscal tear",
      (r"menisc(?:al|us)\s+tears?", r"tears?\s+of\s+the\s+(?:posterior\s+horn\s+of\s+the\s+)?(?:(?:medial|lateral)\s+)?"
       r"menisc(?:us|i)"), "always"),
    C("joint_effusion", "joint effusion", (r"(?:knee\s+|shoulder\s+|hip\s+|elbow\s+|ankle\s+)?joint\s+effusions?",
                                           r"suprapatellar\s+effusion"), family="effusion"),
    C("bone_contusion", "bone contusion", (r"bone\s+(?:contusions?|bruises?)", r"(?:bone\s+)?marrow\s+edema")),
    C("chondral_loss", "chondral thinning",
      (r"chondral\s+(?:thinning|loss|defects?)", r"cartilage\s+(?:loss|thinning)", r"chondromalacia")),
    C("baker_cyst", "popliteal cyst", (r"(?:baker'?s?|popliteal)\s+cysts?",), family="cyst"),
    C("mcl_injury", "medial collateral ligament sprain",
      (r"(?:MCL|medial\s+collateral\s+ligament)\s+(?:sprain|injury|tear)",), "graded", level=3,
      scales=("grade", "sev")),
    C("osteoarthritis", "osteoarthritis",
      (r"osteoarthritis", r"degenerative\s+joint\s+disease", r"osteoarthrosis", r"degenerative\s+arthritis")),
    C("tibial_plateau_fracture", "tibial plateau fracture",
      (r"tibial\s+plateau\s+fractures?", r"fractures?\s+of\s+the\s+(?:medial\s+|lateral\s+)?tibial\s+plateau"),
      "always", scales=("disp",), family="fracture"),
    C("chondrocalcinosis", "chondrocalcinosis", (r"chondrocalcinosis",)),
    # ---- shoulder ------------------------------------------------------------
    C("cuff_tear", "rotator cuff tear",
      (r"(?:rotator\s+)?cuff\s+tears?", r"tears?\s+of\s+the\s+rotator\s+cuff",
       r"(?:supraspinatus|infraspinatus|subscapularis|teres\s+minor)\s+(?:tendon\s+)?tears?"),
      "graded", level=2, scales=("thick",)),
    C("calcific_tendinitis", "calcific tendinitis",
      (r"calcific\s+(?:tendinitis|tendinopathy|tendinosis|tendonitis)", r"calcific\s+deposits?")),
    C("cuff_tendinosis", "rotator cuff tendinosis",
      (r"(?:rotator\s+cuff\s+)?(?:tendinosis|tendinopathy)(?:\s+of\s+the\s+rotator\s+cuff)?",)),
    C("labral_tear", "labral tear", (r"labral\s+tears?", r"tears?\s+of\s+the\s+(?:glenoid\s+)?labrum",
                                     r"SLAP\s+(?:tear|lesion)"), "always"),
    C("ac_arthropathy", "acromioclavicular joint arthropathy",
      (r"(?:acromioclavicular|AC)\s+joint\s+(?:arthropathy|arthrosis|osteoarthritis|degenerative\s+changes?)",)),
    C("bursitis", "bursitis",
      (r"(?:subacromial[-\s]subdeltoid\s+|subacromial\s+|subdeltoid\s+|trochanteric\s+|prepatellar\s+)?bursitis",)),
    C("dislocation", "dislocation",
      (r"(?:glenohumeral|shoulder|hip|elbow|joint)\s+(?:dislocations?|subluxations?)", r"dislocations?", r"dislocated",
       r"subluxations?"), "always"),
    C("humeral_fracture", "proximal humeral fracture",
      (r"(?:proximal\s+)?humer(?:al|us)\s+(?:neck\s+)?fractures?", r"fractures?\s+of\s+the\s+(?:proximal\s+)?humerus"),
      "always", scales=("disp",), family="fracture"),
    # ---- hip -----------------------------------------------------------------
    C("hip_fracture", "hip fracture",
      (r"(?:hip|proximal\s+femur|proximal\s+femoral|femoral\s+neck|intertrochanteric|subtrochanteric)\s+fractures?",
       r"fractures?\s+of\s+the\s+(?:proximal\s+femur|femoral\s+neck|hip)"), "always", scales=("disp",),
      family="fracture"),
    C("avn", "avascular necrosis", (r"avascular\s+necrosis", r"osteonecrosis", r"AVN"), "always"),
    # ---- breast --------------------------------------------------------------
    C("suspicious_mass", "suspicious mass",
      (r"(?:irregular|suspicious|spiculated|indistinct)\s+(?:masses|mass)",), "always", family="mass"),
    C("microcalcifications", "suspicious microcalcifications",
      (r"(?:grouped|clustered|pleomorphic|suspicious|fine\s+linear|amorphous)\s+(?:micro)?calcifications?",
       r"microcalcifications?"), "always"),
    C("benign_calcifications", "benign calcifications",
      (r"(?:scattered\s+)?benign(?:-appearing)?\s+calcifications", r"vascular\s+calcifications?",
       r"dystrophic\s+calcifications"), family="calcification"),
    C("asymmetry", "focal asymmetry", (r"(?:focal|developing|global)\s+asymmetr(?:y|ies)", r"asymmetr(?:y|ies)"),
      "always"),
    C("distortion", "architectural distortion", (r"architectural\s+distortions?",), "always"),
    C("circumscribed_mass", "circumscribed mass",
      (r"circumscribed\s+(?:oval\s+|round\s+)?(?:masses|mass)", r"oval\s+(?:circumscribed\s+)?(?:masses|mass)",
       r"fibroadenomas?"), family="mass"),
    # ---- thyroid / neck --------------------------------------------------------
    C("thyroid_nodule", "thyroid nodule",
      (r"(?:solid\s+|cystic\s+|spongiform\s+|mixed\s+)?thyroid\s+nodules?",), "graded", level=4,
      scales=("tirads",), family="nodule"),
    C("goiter", "thyromegaly", (r"thyromegaly", r"goiter", r"(?:diffuse\s+)?thyroid\s+enlargement",
                                r"enlarged\s+thyroid(?:\s+gland)?")),
    C("thyroiditis", "heterogeneous thyroid echotexture",
      (r"heterogeneous\s+(?:thyroid\s+)?(?:parenchymal\s+)?echotexture", r"thyroiditis")),
    # ---- other common observations --------------------------------------------
    C("pneumoperitoneum", "pneumoperitoneum",
      (r"pneumoperitoneum", r"free\s+(?:intraperitoneal\s+|subdiaphragmatic\s+)?air",
       r"extraluminal\s+(?:free\s+)?air", r"subdiaphragmatic\s+(?:free\s+)?air"), "always"),
    C("pneumomediastinum", "pneumomediastinum", (r"pneumomediastinum",), "always"),
    C("subcutaneous_emphysema", "subcutaneous emphysema",
      (r"subcutaneous\s+(?:emphysema|gas|air)", r"soft\s+tissue\s+(?:emphysema|gas)"), "always"),
    C("perforation", "perforation", (r"perforations?", r"perforated"), "always"),
    C("abscess", "abscess", (r"abscess(?:es)?",), "always"),
    C("fluid_collection", "fluid collection", (r"(?:fluid\s+)?collections?",), "always"),
    C("thrombus", "thrombus", (r"(?:deep\s+(?:venous|vein)\s+)?thrombos[ie]s", r"thrombus", r"thrombi", r"DVT"),
      "always"),
    C("cerebral_edema", "cerebral edema", (r"(?:cerebral|vasogenic|cytotoxic)\s+edema", r"mass\s+effect"),
      "always", family="edema"),
    C("brain_herniation", "brain herniation",
      (r"(?:uncal|tonsillar|transtentorial|downward)\s+herniation",), "always"),
    C("hemoperitoneum", "hemoperitoneum", (r"hemoperitoneum", r"hemothorax"), "always"),
    C("interstitial_lung_disease", "interstitial lung disease",
      (r"interstitial\s+(?:lung\s+)?disease", r"(?:pulmonary|interstitial)\s+fibrosis", r"honeycombing",
       r"fibrotic\s+lung\s+disease",
       r"usual\s+interstitial\s+pneumonia"),
      "always", also=("chronic_lung",)),
    C("scarring", "scarring", (r"(?:apical\s+|pleural-?parenchymal\s+)?scarring", r"fibrotic\s+changes?",
                               r"linear\s+opacit(?:y|ies)", r"scars?")),
    C("bronchiectasis", "bronchiectasis", (r"bronchiectasis",)),
    C("pleural_thickening", "pleural thickening", (r"pleural\s+thickening", r"pleural\s+plaques?",
                                                   r"pleural\s+retraction", r"apical\s+(?:pleural\s+)?cap")),
    C("hyperinflation", "hyperinflation", (r"hyperinflat(?:ion|ed)(?:\s+lungs)?", r"hyperexpan(?:ded|sion)(?:\s+lungs)?",
                                           r"hyperaerat(?:ed|ion)", r"hyperlucen(?:t|cy)(?:\s+lungs)?",
                                          r"over-?(?:inflat|expan|aerat|disten)(?:ion|ed|ded|sion)(?:\s+lungs)?")),
    C("low_lung_volumes", "low lung volumes",
      (r"(?:low|decreased|diminished|reduced)\s+(?:lung\s+)?volumes?", r"hypoinflat(?:ion|ed)",
       r"hypoventilat(?:ion|ed)", r"(?:poor|shallow|suboptimal)\s+inspirat(?:ion|ory\s+(?:effort|level))",
       r"lung\s+volumes(?=\s+(?:are|remain)\s+(?:\w+ly\s+)?(?:low|decreased|diminished|reduced))")),
    C("colitis", "colitis", (r"colitis", r"enteritis", r"bowel\s+wall\s+thickening"), "always"),
    C("osteopenia", "osteopenia", (r"osteopenia", r"osteoporosis", r"demineralization")),
    C("degenerative_changes", "degenerative changes",
      (r"degenerative\s+(?:endplate\s+)?changes?", r"osteophytes?", r"osteophytosis", r"spondylotic\s+changes?",
       r"(?:degenerative\s+)?endplate\s+(?:changes?|sclerosis|spurring)", r"arthritic\s+changes?", r"spurring",
       r"degenerative\s+disease", r"(?:thoracic\s+|lumbar\s+|cervical\s+|multilevel\s+)?spondylosis",
       r"degenerative\s+(?:thoracic\s+|lumbar\s+|cervical\s+)?spine",
       r"degeneration\s+(?:of|in)\s+the\s+(?:\w+\s+)?spine",
       *DISH, *AGE_CHANGES), family="degenerative", generic=True),
    C("hernia", "hernia", (r"hernias?",)),
    # support devices: their presence is not an error of clinical weight; their position is read as a size
    C("endotracheal_tube", "endotracheal tube", (r"endotracheal\s+tube", r"ET\s+tube", r"ETT"), family="device"),
    C("enteric_tube", "enteric tube",
      (r"(?:nasogastric|orogastric|enteric|feeding|NG|OG|Dobhoff)\s+tube", r"NGT"), family="device"),
    C("venous_catheter", "central venous catheter",
      (r"(?:central\s+venous|venous|dialysis)\s+catheter", r"central\s+(?:venous\s+)?line", r"PICC(?:\s+line)?",
       r"(?:port-?a-?cath|chest\s+port|port\s+catheter)", r"Swan-?Ganz\s+catheter",
       # "chest XXXX catheter tip is at the lower SVC": a catheter ending in a central vein
       r"catheter(?=\s+tip\s+(?:is\s+|projects\s+)?(?:at|in|over|within)\s+(?:the\s+)?(?:\w+\s+)?(?:SVC|superior\s+"
       r"vena\s+cava|cavoatrial))",
       r"(?:chest\s+)?xxxx(?=\s+tip\b)",
       r"(?:IJ|internal\s+jugular|jugular|subclavian|femoral|tunnell?ed|hickman|triple[-\s]lumen|hemodialysis)\s+"
       r"(?:(?:central\s+)?(?:venous\s+)?)(?:catheter|line)s?",
       # a line, port or de-identified device whose tip is placed in a central vein or the right atrium
       r"(?:catheter|line|port|(?:chest\s+)?xxxx)(?=(?:,?\s+[\w/-]+){0,6}?,?\s+(?:its\s+)?(?:distal\s+)?tip\s+(?:is\s+)?"
       r"(?:projecting\s+|projects\s+|terminating\s+|lies\s+|located\s+)?(?:at|in|over|within|into|near)\s+"
       r"(?:the\s+)?(?:[\w-]+\s+){0,2}(?:SVC|superior\s+vena\s+cava|cavo-?atrial|right\s+atrium|atrium|"
       r"(?:brachiocephalic|innominate)\s+vein))"), family="device"),
    C("chest_tube", "chest tube", (r"chest\s+tubes?", r"pleural\s+(?:drain|catheter|pigtail)s?", r"thoracostomy\s+tubes?"),
      family="device"),
    C("cardiac_device", "cardiac device",
      (r"(?:dual-?chamber\s+)?pacemaker", r"(?:pacer|pacing|ICD)\s+(?:leads?|wires?|device)", r"AICD",
       r"defibrillator", r"loop\s+recorder", r"(?:cardiac|chest)\s+(?:\w+\s+)?generator(?=\s+with\s+(?:\w+\s+){0,2}leads)", r"ICD", r"pacer", r"(?:transvenous|pacemaker|epicardial)\s+(?:pacing\s+)?(?:leads?|wires?)",
       r"(?:atrial\s+)?septal\s+(?:defect\s+)?(?:occluder|closure\s+device)"), family="device"),
    # the procedure, its hardware and what marks it are one finding, a post-surgical change of its own
    C("sternotomy", "median sternotomy", (r"(?:median\s+)?sternotomy(?:\s+wires)?", r"sternal\s+(?:wires|sutures)",
                                          r"CABG", r"(?:coronary\s+(?:artery\s+)?)?bypass\s+grafting"),
      family="device", also=("postsurgical",)),
    # ---- generic catch-alls (matched only when nothing specific is) ------------
    C("any_fracture", "fracture", (r"fractures?",), "always", scales=("disp",), family="fracture", generic=True),
    C("any_effusion", "effusion", (r"effusions?",), "graded", level=2, family="effusion", generic=True),
    C("any_free_fluid", "free fluid", (r"free\s+fluid",), "graded", level=2, family="free_fluid", generic=True),
    C("any_nodule", "nodule",
      (r"(?:nodular|round(?:ed)?|circular)\s+(?:densit(?:y|ies)|opacit(?:y|ies)|thickening)", r"nodules?"), "graded",
      size_mm=6, family="nodule", generic=True),
    C("any_mass", "mass", (_MASS,), "always", family="mass", generic=True, also=("nodule",)),
    C("any_cyst", "cyst", (r"(?:simple\s+|anechoic\s+|complicated\s+|complex\s+)?cysts?",), family="cyst",
      generic=True),
    C("any_lesion", "lesion",
      (r"(?:focal\s+)?" + _LESION, r"hypo(?:dens|attenuat)it(?:y|ies)", r"hypoattenuating\s+(?:focus|foci|area)",
       r"(?:hypo|hyper)echoic\s+(?:focus|foci|area)"), "graded", size_mm=10, family="lesion", generic=True),
    C("any_stone", "calculus", (r"stones?", r"calcul(?:us|i)"), "graded", size_mm=8, family="stone", generic=True),
    C("any_aneurysm", "aneurysm", (r"aneurysms?",), "always", family="aneurysm", generic=True),
    C("any_hemorrhage", "hemorrhage", (r"hemorrhages?", r"hematomas?"), "always", family="hemorrhage",
      generic=True),
    C("any_infarct", "infarct", (r"infarcts?", r"infarctions?"), "always", family="infarct", generic=True),
    C("any_stenosis", "stenosis",
      (r"(?:hemodynamically\s+significant|flow[-\s]limiting|significant)\s+stenos[ie]s", r"stenos[ie]s"),
      "graded", level=2, alt_level=1, scales=("sev", "pct"), family="stenosis", generic=True),
    C("any_opacity", "opacity",
      (r"opacit(?:y|ies)", r"opacifications?", r"haziness", r"ground[-\s]glass(?:\s+(?:attenuation|densit(?:y|ies)))?",
       r"(?:increased|hazy|patchy|ill-defined|focal|confluent|streaky|retrocardiac|perihilar|basilar|bibasilar|"
       r"parenchymal|airspace|vague|soft\s+tissue)\s+(?:area\s+of\s+)?densit(?:y|ies)",
       r"(?:area|areas|region)\s+of\s+(?:increased\s+)?densit(?:y|ies)"),
      "always", family="opacity", generic=True),
    C("any_calcification", "calcification", (r"calcifications?",), family="calcification", generic=True),
    C("any_edema", "edema", (r"edema",), family="edema", generic=True),
)

CONCEPTS += CHEST_CONCEPTS  # descriptive chest X-ray wordings, surgical material (vocab_chest.py)
CONCEPT_BY_KEY: dict[str, Concept] = {c.key: c for c in CONCEPTS}
