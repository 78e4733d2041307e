"""Chest X-ray wordings of the rules judge beyond the named diseases: descriptive findings, post-surgical changes.

Plain data, read by :mod:`.vocab` (which appends :data:`CHEST_CONCEPTS` to its
observations). Radiologists and report generators often describe what they see
rather than name a disease: "thickening of the interstitial markings",
"elevation of the right hemidiaphragm", "obscuration of the left heart border",
"tortuous aorta", "post-surgical changes of a shoulder arthroplasty",
"vertebroplasty cement at T11". Each is a finding a radiologist counts.

A descriptive wording is only an observation with its abnormal word ("increased
interstitial markings", "the aorta is tortuous"): "the interstitial markings are
normal" names no finding. Clinical weight as in :mod:`.vocab`: a shifted
mediastinum, a widened mediastinum, a cavity or a malignancy always matter;
interstitial and hilar changes from a moderate degree (an ungraded one is
taken to matter); anatomy variants, chronic changes and surgical material
never do. Family ``"postsurgical"`` groups surgical material: a generic
"post-surgical changes" or "surgical clips" stands for a specific one
("cholecystectomy", "arthroplasty") in the other report.
"""

from __future__ import annotations

from core.judges.rules.concept import Concept as C

__all__ = ["AFTER_AORTA_IS", "AGE_CHANGES", "CHEST_CONCEPTS", "DISH", "RIB_DEFORMITY"]

_SIDE = r"(?:(?:right|left|bilateral)\s+)?"
# "the aorta is mildly tortuous", "the left hemidiaphragm remains elevated"
_IS = r"(?=\s+(?:is|are|appears?|remains?)\s+(?:again\s+|still\s+)?(?:\w+ly\s+)?(?:\w+\s+and\s+)?"
# "the aorta is calcified and tortuous": the second adjective (fixed-width look-behinds, one per wording)
# (and after a grade adverb: "the aorta is mildly tortuous and calcified")
AFTER_AORTA_IS = "(?:" + "|".join([f"(?<=aorta {verb} {adj} and )" for verb in ("is", "appears")
                                   for adj in ("calcified", "atherosclerotic", "tortuous", "ectatic")]
                                  + [f"(?<=ly {adj} and )" for adj in ("calcified", "atherosclerotic", "tortuous",
                                                                       "ectatic")]) + ")"
_MARKINGS = r"(?:interstitial|bronchovascular|lung|pulmonary|reticular)\s+markings?"
_ABNORMAL_MARKINGS = r"(?:increased|prominent|coarse(?:ned)?|accentuated|thickened|prominence)"


#: A rib deformity on a chest film is read as an old healed fracture, unqualified too ("right 7th and 8th rib
#: deformities", "deformity of a left rib"), unless it is said to be congenital, developmental or surgical
_NOT_A_FRACTURE = r"(?<!congenital )(?<!developmental )(?<!surgical )(?<!postsurgical )(?<!post-surgical )(?<!bifid )"
RIB_DEFORMITY = (r"(?:(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
                 r"twelfth|posterior|anterior|lateral|and|,)\s*)*" + _NOT_A_FRACTURE + r"rib\s+deformit(?:y|ies)",
                 _NOT_A_FRACTURE + r"(?:old[-\s]appearing\s+)?deformit(?:y|ies)\s+of\s+(?:the\s+|a\s+)?(?:\w+\s+){0,4}ribs?\b")
#: The skeleton's age-related wear named in other words: "skeletal senescent changes", "age-related changes of the
#: spine", "degenerative arthropathy of the shoulder" (the spine's or a joint's degenerative finding)
AGE_CHANGES = (r"(?:skeletal\s+|osseous\s+|bony\s+|(?:vascular\s+and\s+)?skeletal\s+)?senescent\s+changes?",
               r"age[-\s]related\s+(?:degenerative\s+|osseous\s+|skeletal\s+)?changes?",
               r"degenerative\s+(?:joint\s+)?arthropath(?:y|ies)", r"(?:osteo)?arthritic\s+changes?")
#: DISH and its signs (flowing osteophytes, ossification along the anterior spine): the spine's ossifying change,
#: read with the osteophytes that show it as one degenerative finding
DISH = (r"diffuse\s+idiopathic\s+skeletal\s+hyperostosis(?:\s+\((?-i:DISH)\))?", r"(?-i:DISH)", r"forestier(?:'s)?\s+disease",
        r"flowing\s+(?:anterior\s+|anterolateral\s+|right[-\s]sided\s+)?(?:(?:thoracic\s+)?(?:spine\s+)?)?"
        r"(?:osteophytes?|syndesmophytes?|ossification)",
        r"ossification\s+(?:of|along)\s+the\s+anterior\s+(?:longitudinal\s+ligament|(?:aspect\s+of\s+the\s+)?"
        r"(?:thoracic\s+)?spine)")

CHEST_CONCEPTS: tuple[C, ...] = (
    # ---- lungs, described --------------------------------------------------------
    C("interstitial_opacity", "interstitial opacities",
      (r"(?:increased|prominent|coarse(?:ned)?|accentuated|thickened|chronic(?:[-\s]appearing)?)\s+"
       r"(?:(?:bilateral|diffuse|bibasilar|basilar|pulmonary|lung|peripheral|central|perihilar|parenchymal)\s+){0,2}"
       + _MARKINGS,
       r"(?:thickening|prominence|accentuation|coarsening|increase)\s+(?:in\s+|of\s+)(?:the\s+)?" + _MARKINGS,
       _MARKINGS + _IS + _ABNORMAL_MARKINGS + r")",
       r"interstitial\s+(?:opacit(?:y|ies)|prominence|thickening|changes?|pattern|infiltrates?|process|"
       r"abnormalit(?:y|ies)|densit(?:y|ies)|disease)",
       r"reticul(?:ar|onodular)\s+(?:opacit(?:y|ies)|changes?|pattern|densit(?:y|ies)|interstitial\s+\w+)",
       r"reticulonodular", r"reticulation", r"septal\s+(?:lines|thickening)"),
      "graded", level=2, family="opacity"),
    C("bronchial_wall_thickening", "bronchial wall thickening",
      (r"peribronchial\s+(?:cuffing|thickening|opacit(?:y|ies)|markings|infiltrates?)",
       r"bronchial\s+(?:wall\s+)?thickening", r"thicken(?:ed|ing\s+of\s+the)\s+bronchial\s+walls?", r"bronchitis",
       r"bronchial\s+cuffing", r"bronchitic\s+changes", r"airway\s+(?:wall\s+)?thickening"), "never"),
    C("border_obscuration", "opacity obscuring a border",
      (r"(?:obscur(?:ation|ing)|silhouetting|effacement|loss)\s+of\s+the\s+" + _SIDE
       + r"(?:heart|cardiac)\s+borders?",
       r"(?:obscur(?:ation|ing)|silhouetting|effacement)\s+of\s+the\s+" + _SIDE + r"(?:hemi-?)?diaphragms?",
       _SIDE + r"(?:heart|cardiac)\s+borders?" + _IS + r"(?:obscured|silhouetted|indistinct|effaced))"),
      "always", family="opacity"),
    C("cavity", "cavitary lesion",
      (r"cavitary\s+(?:lesions?|masses|mass|nodules?|opacit(?:y|ies)|consolidation|pneumonia)", r"cavitation",
       r"cavitating\s+(?:lesions?|masses|mass|nodules?)"), "always"),
    C("malignancy", "malignancy",
      (r"(?:lung|bronchogenic|breast|esophageal|thyroid)\s+(?:cancer|carcinoma|malignancy)",
       r"malignan(?:cy|cies)", r"malignant\s+(?:lesions?|neoplasms?|tumou?rs?|process)", r"neoplasms?",
       r"neoplastic\s+(?:disease|process)", r"carcinomas?", r"cancers?", r"lymphomas?",
       r"metastatic\s+(?:disease|lesions?|nodules?|deposits?)", r"metastas[ie]s", r"tumou?rs?"),
      "always", family="mass"),
    C("bone_lesion", "osseous lesion",
      (r"(?:lytic|sclerotic|blastic|osteolytic|osteoblastic|destructive|expansile)\s+"
       r"(?:osseous\s+|bone\s+|bony\s+)?(?:lesions?|metastas[ie]s|foci|focus)",
       r"(?:osseous|bone|bony|skeletal)\s+(?:metastas[ie]s|metastatic\s+disease|lesions?)"), "always",
      family="lesion"),
    # signs named beside a diagnosis are findings of their own ("hyperexpansion, flattened diaphragms and an
    # increased AP diameter, consistent with COPD": four)
    C("diaphragm_flattening", "flattened diaphragms",
      (r"flatten(?:ed|ing)\s+(?:of\s+)?(?:the\s+|both\s+)?" + _SIDE + r"(?:hemi-?)?diaphragms?",
       r"(?:hemi-?)?diaphragms?" + _IS + r"flattened)", r"(?<=the )(?:hemi-?)?diaphragms(?=\s+flattened\b)"), "never"),
    C("increased_ap_diameter", "increased AP diameter",
      (r"(?:increased|enlarged)\s+(?:AP|anteroposterior|antero-posterior)\s+(?:chest\s+)?diameter", r"barrel\s+chest",
       # its sign on the lateral view: the retrosternal clear space widened
       r"(?:increased|enlarged|widened|expanded)\s+(?:retrosternal|anterior)\s+(?:clear\s+|air\s*)?(?:space|airspace|lucency)",
       r"retrosternal\s+(?:clear\s+|air\s*)?space" + _IS + r"(?:increased|enlarged|widened|expanded))"),
      "never"),
    C("air_bronchograms", "air bronchograms", (r"air\s+bronchograms?",), "never"),
    C("septal_lines", "Kerley lines", (r"kerley\s+(?:a\s+|b\s+)?lines", r"septal\s+lines"), "graded", level=2),
    C("bronchovascular_crowding", "bronchovascular crowding",
      (r"bronchovascular\s+crowding", r"crowd(?:ing|ed)\s+(?:of\s+)?(?:the\s+)?(?:central\s+)?bronchovascular\s+(?:markings|structures)"),
      "never"),
    C("bulla", "bulla", (r"bullae", r"bulla", r"blebs?", r"bullous\s+(?:changes?|disease)"), "never"),
    C("chronic_lung_disease", "chronic lung disease",
      (r"chronic\s+(?:lung|pulmonary)\s+(?:disease|changes?)", r"chronic\s+(?:interstitial\s+)?lung\s+changes?"),
      "never", family="chronic_lung", generic=True),
    C("calcified_nodes", "calcified lymph nodes",
      (r"calcified\s+(?:(?:right|left|bilateral|mediastinal|hilar|paratracheal|subcarinal|infracarinal|"
       r"aortopulmonary)(?:\s*,\s*|\s+and\s+|\s+)){0,4}"
       r"(?:lymph\s+(?:nodes?|xxxx)|nodes)", r"(?:(?:right|left|bilateral)\s+)?(?:hilar|mediastinal|paratracheal)\s+"
       r"calcifications?",
       # a de-identified noun after a nodal station: "calcified hilar XXXX" are nodes
       r"calcified\s+(?:(?:right|left|bilateral|mediastinal|hilar|paratracheal|subcarinal)\s+){1,3}xxxx",
       r"(?:(?<=granulomas/)|(?<=granulomas /)|(?<=granulomas and )|(?<=granulomas or ))lymph\s+(?:nodes?|xxxx)"), family="calcification", also=("granulomatous",)),
    C("vertical_heart", "narrow vertical heart", (r"(?:narrow\s+)?vertical(?:ly\s+oriented)?\s+heart",
                                                  r"narrow\s+heart"), "never"),
    C("ileus", "distended bowel",
      (r"(?:gas-?\s?)?distended\s+(?:small\s+|large\s+)?bowel(?:\s+loops)?", r"(?:small\s+)?bowel\s+distension",
       r"dilated\s+(?:small\s+|large\s+)?bowel(?:\s+loops)?", r"ileus"), "always"),
    C("hardware_loosening", "hardware loosening",
      (r"(?:periprosthetic|peri-?hardware|perihardware)\s+lucency", r"loosening"), "always"),
    C("external_leads", "external monitoring leads",
      (r"(?:external\s+)?(?:cardiac\s+)?(?:monitor(?:ing)?|ECG|EKG|telemetry)\s+(?:leads?|wires?|electrodes?)",),
      family="device"),
    C("foreign_body", "foreign body",
      (r"(?:radiopaque\s+|metallic\s+|retained\s+)?foreign\s+bod(?:y|ies)",
       # a retained projectile: a bullet, its fragments, shotgun pellets, shrapnel
       r"(?:retained\s+|metallic\s+)*(?:bullets?|bullet\s+fragments?|ballistic\s+fragments?|shrapnel|buckshot|"
       r"(?:birdshot|shotgun)\s+pellets?|(?:metallic\s+)?pellets)")),
    # ---- heart, vessels, mediastinum, hila ----------------------------------------
    C("aortic_tortuosity", "tortuous aorta",
      (r"(?:tortuous|ectatic|unfolded)\s+(?:and\s+\w+\s+)?(?:(?:thoracic|descending|ascending)\s+){0,2}aorta",
       r"(?:tortuosity|unfolding|ectasia)\s+of\s+the\s+(?:\w+\s+){0,2}aorta",
       r"aortic\s+(?:tortuosity|ectasia|unfolding)",
       r"(?:(?:thoracic|descending|ascending)\s+){0,2}aorta" + _IS + r"(?:tortuous|ectatic|unfolded))",
       # "tortuous calcified aorta", "the aorta is calcified and tortuous": the other adjective names the other finding
       r"(?:tortuous|ectatic)(?=\s+(?:and\s+)?(?:calcified|atherosclerotic)\s+(?:(?:thoracic|descending)\s+)?aorta)",
       AFTER_AORTA_IS + r"(?:tortuous|ectatic)"),
      "never"),
    C("mediastinal_shift", "mediastinal shift",
      (r"(?:(?:right|left)ward\s+|(?:right|left)-to-(?:right|left)\s+)?(?:cardio)?mediastinal\s+shift",
       r"shift\s+of\s+the\s+(?:cardio)?mediastinum", r"(?:tracheal|mediastinal)\s+deviation",
       r"deviation\s+of\s+the\s+trachea", r"(?:deviated|displaced|shifted)\s+trachea",
       r"trachea(?:l\s+air\s+column)?" + _IS + r"(?:deviated|displaced|shifted)\s+(?:to(?:wards?)?\s+the\s+)?(?:right|left))"),
      "always"),
    C("mediastinal_widening", "widened mediastinum",
      (r"widen(?:ed|ing)\s+(?:of\s+)?(?:the\s+)?(?:superior\s+)?mediastin(?:um|al\s+(?:silhouette|contours?))",
       r"mediastinal\s+(?:widening|enlargement|masses|mass)",
       r"(?:superior\s+)?mediastinum" + _IS + r"widened)"), "always"),
    C("hilar_enlargement", "hilar enlargement",
      (r"(?:peri)?hilar\s+(?:prominence|enlargement|fullness|masses|mass)",
       r"(?:prominent|enlarged|bulky|full)\s+" + _SIDE + r"(?:hila|hilum|hilar\s+(?:regions?|shadows?|contours?))",
       r"prominence\s+of\s+the\s+" + _SIDE + r"(?:hila|hilum)",
       _SIDE + r"(?:hila|hilum)" + _IS + r"(?:enlarged|prominent|full|bulky))"),
      "graded", level=2),
    C("pulmonary_artery_enlargement", "enlarged pulmonary arteries",
      (r"(?:enlarged|dilated|prominent)\s+(?:(?:main|central|right|left)\s+)?pulmonary\s+arter(?:y|ies)",
       r"(?:pulmonary\s+arter(?:y|ial)|PA)\s+(?:enlargement|dilat(?:ation|ion)|prominence)",
       r"pulmonary\s+(?:arterial\s+)?hypertension",
       r"(?:(?:main|central)\s+)?pulmonary\s+arter(?:y|ies)" + _IS + r"(?:enlarged|dilated|prominent))"),
      "graded", level=2),
    # ---- diaphragm, chest wall, spine ------------------------------------------------
    C("hemidiaphragm_elevation", "elevated hemidiaphragm",
      (r"elevat(?:ed|ion(?:\s+of)?(?:\s+the)?)\s+" + _SIDE + r"(?:hemi-?)?diaphragms?",
       r"eventration(?:\s+of\s+the\s+" + _SIDE + r"hemi-?diaphragm)?",
       r"(?:(?:right|left)\s+)?hemi-?diaphragm(?:atic)?\s+(?:elevation|eventration)",
       r"(?:(?:right|left)\s+)?hemi-?diaphragms?" + _IS + r"elevated)"), "never"),
    C("kyphosis", "kyphosis",
      (r"(?:exaggerated\s+|increased\s+|accentuated\s+)?(?:thoracic\s+)?kyphos[ie]s",
       r"kyphotic\s+(?:curvature|deformity|angulation)"), "never"),
    C("pectus", "pectus deformity", (r"pectus\s+(?:excavatum|carinatum)",), "never"),
    C("azygos_fissure", "azygos fissure", (r"azygo?s\s+(?:lobe|fissure)",), "never"),
    # anatomical variants and contours a radiologist names: a right-sided aortic arch, a prominent cardiac chamber
    # contour (not an enlarged heart), prominent epicardial fat pads
    C("right_aortic_arch", "right aortic arch",
      (r"right[-\s](?:sided\s+)?aortic\s+(?:arch|knob|xxxx)", r"aortic\s+arch\s+(?:is\s+)?(?:on\s+the\s+)?right[-\s]sided"),
      "never"),
    C("ventricular_prominence", "prominent ventricular contour",
      (r"(?:prominent|prominence\s+of\s+the)\s+(?:left|right)\s+ventric(?:le|ular)(?:\s+(?:contour|border))?",
       r"(?:left|right)\s+ventricular\s+(?:contour|border)" + _IS + r"prominent)",
       r"(?:left|right)\s+ventricular\s+prominence"), "never"),
    C("epicardial_fat", "prominent epicardial fat",
      (r"(?:prominent|large|increased|abundant)\s+(?:epi)?(?:pericardial|epicardial|cardiophrenic)\s+fat(?:\s+pads?)?",
       r"(?:epi)?(?:pericardial|epicardial)\s+fat\s+pads?" + _IS + r"prominent)"), "never"),
    # ---- surgery and material ---------------------------------------------------------
    C("postsurgical_changes", "post-surgical changes",
      (r"post-?\s?(?:surgical|operative)(?:\s*/\s*(?:post-?)?(?:biopsy|surgical|operative|radiation))?\s+"
       r"(?:changes?|appearance|state)", r"post-?\s?biopsy\s+changes?", r"surgical\s+(?:changes?|hardware|"
       r"material)", r"(?:orthopedic|fixation|spinal|surgical|postsurgical)\s+hardware", r"hardware",
       r"(?:surgical\s+)?suture\s+(?:material|lines?)", r"(?:surgical\s+)?sutures", r"staple\s+lines?",
       r"surgical\s+staples"), family="postsurgical", generic=True),
    C("surgical_clips", "surgical clips",
      (r"(?:surgical|vascular|metallic|axillary|embolization)\s+clips?", r"clips"),
      family="postsurgical", generic=True),
    C("cholecystectomy", "cholecystectomy", (r"cholecystectomy(?:\s+clips)?",), family="postsurgical"),
    C("arthroplasty", "arthroplasty",
      (r"(?:reverse\s+|total\s+)?(?:(?:shoulder|hip|knee|glenohumeral)\s+)?(?:hemi)?arthroplast(?:y|ies)",
       r"(?:total\s+)?(?:shoulder|hip|knee)\s+(?:replacement|prosthesis)", r"humeral\s+(?:head\s+)?prosthesis"),
      family="postsurgical"),
    C("spinal_fusion", "spinal fusion or vertebral augmentation",
      (r"(?:anterior\s+|posterior\s+)?(?:cervical\s+|thoracic\s+|lumbar\s+|spinal\s+)?fusion(?:\s+hardware)?",
       r"vertebroplast(?:y|ies)(?:\s+cement)?", r"kyphoplast(?:y|ies)(?:\s+cement)?", r"(?:bone\s+)?cement",
       r"pedicle\s+screws?", r"(?:spinal|harrington|fusion)\s+rods?"), family="postsurgical"),
    C("orthopedic_fixation", "orthopedic fixation",
      (r"plates?\s+and\s+screws?", r"screws?\s+and\s+plates?", r"fixation\s+(?:plates?|screws?|hardware)",
       r"(?:open\s+reduction\s+and\s+)?internal\s+fixation", r"ORIF", r"intramedullary\s+(?:nail|rod)s?",
       r"(?:(?:orthopedic|surgical|fixation|metallic|cannulated)\s+)?screw", r"(?:orthopedic\s+)?screws"), family="postsurgical"),
    C("lung_resection", "lung resection",
      (r"(?:(?:right|left)\s+(?:upper|middle|lower)\s+)?lobectom(?:y|ies)", r"pneumonectomy",
       r"wedge\s+resections?", r"segmentectomy", r"(?:lung|pulmonary)\s+resection"), family="postsurgical"),
    C("mastectomy", "mastectomy", (r"mastectom(?:y|ies)",), family="postsurgical"),
    C("breast_implants", "breast implants",
      (r"(?:breast|mammary|silicone|saline|subpectoral|retropectoral)\s+(?:implants?|prosthes[ie]s)",
       r"breast\s+augmentation", r"augmentation\s+mammoplasty",
       r"implants?\s+(?:in|of|within|overlying|projecting\s+over)\s+(?:the\s+|both\s+)?breasts?"), family="postsurgical"),
    C("valve_replacement", "cardiac valve replacement",
      (r"(?:prosthetic|mechanical|bioprosthetic|replaced)\s+(?:(?:aortic|mitral|tricuspid|cardiac|heart)\s+)?"
       r"valves?", r"(?:aortic|mitral|tricuspid|cardiac)\s+valve\s+(?:replacement|prosthesis|repair)",
       r"valve\s+(?:replacement|prosthesis)", r"annuloplasty(?:\s+ring)?", r"TAVR", r"TAVI"),
      family="postsurgical"),
    C("stent", "stent",
      (r"(?:coronary\s+(?:artery\s+)?|vascular\s+|biliary\s+|tracheal\s+|airway\s+|esophageal\s+|endovascular\s+)?"
       r"stents?(?:[-\s]grafts?)?", r"endografts?"), family="postsurgical"),
    # tubes and devices whose tip or position is read like the others (family "device")
    C("tracheostomy", "tracheostomy tube", (r"tracheostomy(?:\s+tube)?", r"trach\s+tube"), family="device"),
    C("ivc_filter", "IVC filter", (r"(?:IVC|inferior\s+vena\s+cava(?:l)?|caval)\s+filter",), family="device"),
    C("stimulator", "stimulator",
      (r"(?:(?:spinal\s+cord|vagal|vagus\s+nerve|neuro|nerve)\s*)?stimulator(?:\s+(?:leads?|wires?|device))?",),
      family="device"),
)
