"""Cue words of the rule-based judge's vocabulary (:mod:`core.judges.rules.vocab`, which re-exports every
name): normal-anatomy statements, anatomic site classes, report sections, and the cues for negation,
hedging, limits of the study, history and comparison with a prior study.

Plain data, no logic; every pattern is a case-insensitive regular-expression fragment matched on word
boundaries.
"""

from __future__ import annotations

__all__ = [
    "CHANGES",
    "FINDING_SECTIONS",
    "HEDGES",
    "HISTORY",
    "LIMIT_POST",
    "LIMIT_PRE",
    "MONTHS",
    "NEEDS_TEMPORAL",
    "NEGATION_STOP",
    "NORMAL_ANATOMY",
    "NORMAL_PREDICATE",
    "NORMAL_PREFIX",
    "OTHER_SECTIONS",
    "POST_NEGATION",
    "POST_NORMAL",
    "PRE_NEGATION",
    "PRIOR_OBJECT",
    "SITE_CLASSES",
    "TEMPORAL",
    "WEAK_CHANGE",
]

# --------------------------------------------------------------------------- #
# Normal anatomy: "<anatomy> is normal" states that an observation is absent  #
# --------------------------------------------------------------------------- #

#: (anatomy pattern, concept keys the normal statement rules out)
NORMAL_ANATOMY: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"heart(?:\s+size)?|cardiac\s+silhouette|cardiac\s+size|"
     r"cardiomediastinal(?:\s+and\s+hilar)?\s+(?:silhouettes?|contours?)", ("cardiomegaly",)),
    (r"pulmonary\s+vasculature|pulmonary\s+vascularity", ("pulmonary_edema",)),
    (r"lungs?", ("consolidation",)),
    (r"spleen(?:\s+size)?", ("splenomegaly",)),
    (r"ventricles|ventricular\s+size|ventricular\s+system", ("hydrocephalus",)),
    (r"appendix", ("appendicitis",)),
    (r"common\s+bile\s+duct|CBD|bile\s+ducts|biliary\s+tree", ("biliary_dilation",)),
    (r"bowel(?:\s+loops)?|small\s+bowel", ("bowel_obstruction",)),
    (r"(?:spinal\s+)?cord", ("cord_signal",)),
    (r"anterior\s+cruciate\s+ligament|ACL", ("acl_tear",)),
    (r"medial\s+collateral\s+ligament|MCL", ("mcl_injury",)),
    (r"menisci|meniscus", ("meniscal_tear",)),
    (r"rotator\s+cuff", ("cuff_tear",)),
    (r"labrum", ("labral_tear",)),
    (r"thyroid(?:\s+gland)?", ("goiter",)),
    (r"gallbladder", ("cholecystitis",)),
    (r"(?:abdominal\s+)?aorta", ("aortic_aneurysm",)),
    (r"collecting\s+systems?", ("hydronephrosis",)),
    (r"costophrenic\s+(?:angles?|recess(?:es)?|sulc(?:us|i))", ("pleural_effusion",)),
    (r"mediastinum|mediastinal\s+(?:contours?|silhouette|width)", ("mediastinal_widening",)),
    (r"hila|hilar\s+(?:contours?|structures|regions?)", ("hilar_enlargement",)),
    (r"(?:hemi-?)?diaphragms", ("hemidiaphragm_elevation",)),
    (r"(?:visualized\s+)?(?:osseous|bony|skeletal)\s+(?:structures|thorax)|bones|ribs", ("any_fracture",)),
)

#: Predicates of a normal-anatomy statement.
NORMAL_PREDICATE = (
    r"(?:(?:is|are|appears?|remains?)\s+)?(?:normal|unremarkable|intact|clear|sharp|within\s+normal\s+limits"
    r"|not\s+(?:enlarged|dilated)|of\s+normal\s+(?:size|caliber)|normal\s+in\s+(?:size|caliber|signal|appearance))"
    r"|(?:size|caliber)\s+is\s+(?:normal|within\s+normal\s+limits)"
)
#: "normal appendix", "normal heart size"
NORMAL_PREFIX = r"\bnormal(?:\s+(?:sized?|caliber))?\s+(?:-?\s*)"

# --------------------------------------------------------------------------- #
# Anatomic sites                                                               #
# --------------------------------------------------------------------------- #

#: (site class, regex).  Tried in order; a match is removed before the next
#: class is read, so "right upper lobe" is not also a thyroid "right lobe".
SITE_CLASSES: tuple[tuple[str, str], ...] = (
    ("sinus", r"(?:maxillary|frontal|ethmoid|sphenoid)\s+sinus(?:es)?"),
    ("lung lobe", r"(?:right|left)\s+(?:upper|middle|lower)\s+lobes?|\b(?:RUL|RML|RLL|LUL|LLL)|lingula"),
    ("vessel", r"anterior\s+communicating\s+artery|posterior\s+communicating\s+artery|ACOM|PCOM|"
               r"(?:MCA|middle\s+cerebral\s+artery)\s+bifurcation|basilar\s+(?:tip|artery)|"
               r"(?:supraclinoid|cavernous|petrous)\s+(?:ICA|internal\s+carotid)|vertebral\s+artery|"
               r"ophthalmic\s+artery|carotid\s+(?:bulb|bifurcation)s?"),
    ("aorta", r"ascending\s+(?:thoracic\s+)?aorta|aortic\s+arch|descending\s+(?:thoracic\s+)?aorta|aortic\s+root|"
              r"abdominal\s+aorta|infrarenal\s+aorta"),
    ("bone", r"(?:frontal|parietal|temporal|occipital|sphenoid)\s+bones?"),
    ("brain region", r"(?:frontal|parietal|temporal|occipital)\s+(?:lobes?|convexit(?:y|ies))|basal\s+ganglia|"
                     r"thalam(?:us|i)|corona\s+radiata|centrum\s+semiovale|internal\s+capsule|cerebellum|"
                     r"cerebellar\s+hemispheres?|brainstem|pons|midbrain|insula|sphenoid\s+wing|falx|tentorium"),
    ("gland part", r"(?:right|left)\s+lobe|isthmus|caudate\s+lobe"),
    ("kidney pole", r"(?:upper|lower)\s+poles?|interpolar(?:\s+region)?|mid\s*pole"),
    ("liver segment", r"segments?\s+(?:[1-8]|VIII|VII|VI|IV|V|III|II|I)(?:[ab])?"),
    ("spine level", r"[CTLS]\d{1,2}(?:\s*-\s*[CTLS]?\d{1,2}|\s+on\s+[CTLS]\d{1,2})?"),
    ("rib", r"\d{1,2}(?:st|nd|rd|th)(?:\s+(?:and|through|to|-)\s+\d{1,2}(?:st|nd|rd|th))?"),
    ("nodal station", r"paratracheal|(?:sub|infra)carinal|prevascular|aortopulmonary|AP\s+window|hilar|hil(?:um|a)|"
                      r"paraesophageal|"
                      r"precarinal|supraclavicular|axillary|level\s+(?:VI|V|IV|III|II|I|[1-6])[ab]?"),
    ("colon segment", r"(?:sigmoid|descending|ascending|transverse)\s+colon|cecum|rectum|"
                      r"(?:splenic|hepatic)\s+flexure"),
    ("uterine layer", r"intramural|subserosal|submucosal|pedunculated"),
    ("knee bone", r"(?:medial|lateral)\s+(?:femoral\s+condyle|tibial\s+plateau)|patella|trochlea"),
    ("compartment", r"(?:medial|lateral|patellofemoral)\s+compartments?"),
    ("meniscal horn", r"(?:posterior|anterior)\s+horn|meniscal\s+body"),
    ("tendon", r"supraspinatus|infraspinatus|subscapularis|teres\s+minor|biceps(?:\s+tendon)?"),
    ("hip region", r"femoral\s+neck|intertrochanteric(?:\s+region)?|subtrochanteric(?:\s+region)?|"
                   r"greater\s+trochanter|femoral\s+head"),
    ("breast region", r"(?:upper|lower)\s+(?:outer|inner)\s+quadrant|retroareolar(?:\s+region)?|"
                      r"subareolar(?:\s+region)?|axillary\s+tail"),
    ("clock face", r"\d{1,2}(?::\d\d)?\s*o'?\s*clock"),
    ("curve", r"dextroconvex|levoconvex|dextroscoliosis|levoscoliosis"),
    # where a line or tube ends (read before "right"/"left" give the device a side)
    ("device tip", r"superior\s+vena\s+cava|SVC|cavo-?atrial\s+junction|right\s+atrium|right\s+ventricle|"
                   r"(?:right|left)\s+main-?\s?stem(?:\s+bronchus)?|carina|stomach|esophagus|duodenum|"
                   r"(?:brachiocephalic|subclavian|(?:internal\s+)?jugular|azygos)\s+vein"),
    ("lung zone", r"perihilar|apical|apex|apices|basilar|bases?|bibasilar|mid\s*-?lung|midlung"),
    ("medial/lateral", r"medial|lateral"),
    ("position", r"anteroinferior|posterosuperior|superior|inferior|anterior|posterior"),
)

# --------------------------------------------------------------------------- #
# Report structure, negation, hedging, comparison                              #
# --------------------------------------------------------------------------- #

#: Section headers whose content is read as findings.
FINDING_SECTIONS = ("findings", "impression", "conclusion", "conclusions", "opinion", "summary", "result",
                    "results", "interpretation", "diagnosis", "assessment")
#: Section headers that are not findings (skipped).
OTHER_SECTIONS = ("examination", "exam", "comparison", "comparisons", "indication", "indications",
                  "clinical history", "history", "technique", "procedure", "reason for exam",
                  "reason for examination", "clinical information", "clinical indication", "recommendation",
                  "recommendations", "signed by", "dictated by", "study", "type of study", "contrast")

PRE_NEGATION = (r"no(?:\s+(?:evidence|sign|signs|definite|convincing|suspicious\s+for))?|without|negative\s+for|"
                r"free\s+of|clear\s+of|absence\s+of|resolution\s+of|rules?\s+out\s+for|ruled\s+out|nor|neither|"
                r"not\s+(?:identify|see|visualize)")
POST_NEGATION = (r"(?:is|are|was|were)\s+(?:not\s+(?:seen|identified|visualized|present|demonstrated|detected|"
                 r"appreciated|evident|noted|imaged)|absent|negative)|absent|(?:not|none)\s+(?:seen|identified|visualized|"
                 r"demonstrated|detected|appreciated)|(?:has|have)\s+(?:since\s+)?resolved|ruled\s+out")
#: "<finding> appears within normal limits": a normal predicate right after a finding's words negates it.
POST_NORMAL = (r"(?:is|are|appears?|remains?)\s+(?:to\s+be\s+)?(?:within\s+(?:normal\s+)?limits(?:\s+of\s+normal)?|"
               r"within\s+limits\s+of\s+normal|normal|unremarkable)")
#: Words that end the scope of a negation.
NEGATION_STOP = (r"but|however|although|though|except|aside\s+from|apart\s+from|other\s+than|whereas|while|"
                 r"yet|which|that|there\s+is|there\s+are|and\s+(?:a|an)(?=\s)")

#: (certainty, direction, cue): "back" hedges the finding before the cue (and those joined to it by "or" /
#: "and": "pneumonia or atelectasis cannot be excluded"), "fwd" the finding after it (and those joined to it by
#: "or": "may represent atelectasis or pneumonia"; with none after it, the one before: "pneumonia is likely"),
#: "both" each side ("atelectasis versus pneumonia").
HEDGES: tuple[tuple[str, str, str], ...] = (
    # "not well seen": the text still says the finding is there ("an aneurysm, not well seen on this film")
    ("possible", "back", r"not\s+well\s+(?:seen|visualized|demonstrated|delineated)|poorly\s+(?:seen|visualized)|"
                         r"(?:partially|incompletely)\s+(?:seen|visualized|imaged)|"
                         r"(?:cannot|can\s+not)\s+be\s+(?:entirely\s+|completely\s+)?(?:excluded|ruled\s+out)|"
                         r"not\s+(?:be\s+)?excluded|not\s+ruled\s+out|(?:is|are)\s+(?:also\s+)?possible"),
    ("possible", "both", r"vs\.?|versus"),
    ("possible", "fwd", r"(?:cannot|can\s*not)\s+(?:exclude|rule\s+out)|questionable|possible|possibly|"
                        r"(?:may|might|could)\s+(?:represent|reflect|indicate)|(?:there\s+)?may\s+be(?!\s+(?:\w+ly\s+)?(?:occult|"
                        r"missed|undetected|invisible|inapparent|not\s))|equivocal|"
                        r"indeterminate"),
    ("probable", "fwd", r"probable|probably|(?:most\s+)?likely|suspicious\s+for|concerning\s+for|worrisome\s+for|"
                        r"suggestive\s+of|suggests?|suggesting|presumed|presumably|compatible\s+with|"
                        r"favou?r(?:ed|s|ing)?"),
)

#: A finding the text says it could not judge ("pneumothorax cannot be assessed", "limited evaluation for
#: pneumothorax"): neither present nor absent.  After the finding, scoping back over a list like a post-negation:
LIMIT_POST = (r"(?:cannot|can\s*not|could\s+not)\s+be\s+(?:reliably\s+|adequately\s+|fully\s+|accurately\s+)?"
              r"(?:assessed|evaluated|determined|characterized|commented\s+(?:up)?on)|"
              r"(?:is|are)\s+not\s+(?:assessable|evaluable|(?:well\s+|adequately\s+)?(?:assessed|evaluated))|"
              r"not\s+(?:assessable|evaluable|well\s+(?:assessed|evaluated))|(?:is|are)\s+(?:limited|suboptimal)(?!\s+to)|"
              # generic advice on what radiographs can miss ("small fractures may be radiographically occult")
              r"(?:may|can|could|might|often)\s+(?:be|remain)\s+(?:radiographically\s+|mammographically\s+)?"
              r"(?:occult|missed|undetected|invisible|inapparent)|(?:is|are)\s+(?:often\s+|frequently\s+)?"
              r"(?:radiographically\s+)?occult|(?:may|can|could|might)\s+not\s+be\s+(?:visible|seen|detected|apparent)|"
              # a disease named before "screening" is what a screening programme looks for ("lung cancer screening")
              r"screening(?:\s+(?:program(?:me)?|CT|exam(?:ination)?))?")
#: ... and before it, scoping forward over a list like a pre-negation.
LIMIT_PRE = (r"(?:cannot|can\s*not|could\s+not|unable\s+to|not\s+possible\s+to|impossible\s+to|difficult\s+to)\s+"
             r"(?:reliably\s+|adequately\s+|fully\s+)?(?:assess|evaluate|determine|comment\s+on)(?:\s+for)?|"
             r"(?:limited|suboptimal|nondiagnostic)\s+(?:evaluation|assessment|visualization)\s+for|"
             r"for\s+(?:evaluation|assessment)\s+of|"  # "limited exam, for evaluation of X": what is looked for
             # recommendations name what to look for, not what is seen ("correlate for fluid overload")
             r"(?:clinical(?:ly)?\s+)?correlat(?:e|ion)\s+(?:clinically\s+)?(?:for|with)(?:\s+(?:possible|any))?|"
             r"to\s+(?:evaluate|assess|exclude|rule\s+out)(?:\s+for)?|(?:evaluate|assess)\s+for|"
             r"follow-?up\s+(?:\w+\s+){0,3}for|"
             # "overlapping bone could obscure a small nodule": what might be hidden, not what is seen
             r"(?:could|may|might|can)\s+(?:obscure|mask|hide)|"
             r"(?:radiographs?|x-?rays?|(?:plain\s+)?films?|this\s+(?:study|exam)|chest\s+radiography)\s+"
             r"(?:can|may|might|could|often|does\s+not\s+always)\s+(?:miss|fail\s+to\s+(?:show|detect)|not\s+(?:show|detect|exclude))|"
             r"(?:insensitive|not\s+sensitive|limited\s+sensitivity)\s+(?:for|to)(?:\s+(?:the\s+)?detection\s+of)?")
#: A finding of the patient's history, not one read on this image ("known lung cancer", "history of
#: pneumonia"); scopes forward like a pre-negation.  A finding stated with a comparison ("known nodule,
#: unchanged") is on the image.
HISTORY = (r"(?:(?:a|known|prior|past|clinical|reported)\s+)?history\s+of|h/o|hx\s+of|known|"
           r"with\s+a\s+diagnosis\s+of|previously\s+(?:diagnosed|treated)|in\s+(?:a|this)\s+patient\s+with")

#: Comparison-with-prior cues by kind of change.  Checked in this order.
CHANGES: tuple[tuple[str, str], ...] = (
    ("new", r"not\s+(?:present|seen|visualized|identified|evident)\s+(?:on|in)\s+(?:the\s+)?(?:prior|previous|"
            r"earlier)|interval\s+(?:development|appearance|placement|insertion)|new(?:ly)?(?:\s+since)?|"
            # "consolidation has developed", "developing left upper lobe consolidation"
            r"(?:has|have)\s+(?:since\s+)?developed|developing"),
    ("unchanged", r"not\s+(?:significantly\s+)?changed|no\s+(?:(?:significant|interval|appreciable)\s+){0,2}change|"
                  r"redemonstrat(?:ed|ion|es)|remain(?:s|ed)?|"
                  r"grossly\s+unchanged|unchanged|stable|similar\s+(?:to|in\s+(?:size|appearance)|compared)|"
                  r"persistent|persists|again\s+(?:seen|noted|demonstrated|identified)|"
                  # "there is again mild elevation", "again visualized is", "continued interstitial prominence"
                  r"(?<=there is )again|(?<=there are )again|again\s+(?:visualized|redemonstrated|present|evident)|"
                  r"continu(?:ed|es|ing)"),
    ("resolved", r"(?:has\s+|have\s+)?(?:since\s+)?resolved|no\s+longer\s+(?:seen|visualized|present|identified|"
                 r"evident)|(?:interval\s+|complete\s+)?resolution"),
    ("increased", r"increas(?:e|es|ed|ing)|larger|enlarging|grown|progress(?:ed|ion|ing)|worse(?:ned|ning)?|"
                  r"more\s+(?:prominent|extensive|conspicuous)"),
    ("decreased", r"decreas(?:e|es|ed|ing)|smaller|improv(?:ed|ing|ement)|reduc(?:ed|tion)|diminish(?:ed|ing)|"
                  r"regress(?:ed|ion|ing)|less\s+(?:prominent|extensive|conspicuous)|resolving|shrunk|shrinking"),
)
#: Changes that only count as a comparison when a reference to the past is in the sentence
#: or when they follow the observation ("increased opacity" describes, "opacity, increased" compares).
NEEDS_TEMPORAL = ("increased", "decreased")
#: Comparison words that yield to an explicit one in the same sentence ("an infiltrate has developed ..., increased
#: compared with the prior study" is an increase)
WEAK_CHANGE = r"(?:has|have)\s+(?:since\s+)?developed|developing|continu(?:ed|es|ing)|(?:there\s+(?:is|are)\s+)?again"
TEMPORAL = (r"prior|previous(?:ly)?|preceding|since|compar(?:ed|ison)|interval|before|earlier|last\s+(?:study|exam)|"
            r"then")
#: The object of a comparison ("the prior study of DATE"), masked with it.
PRIOR_OBJECT = (r"(?:(?:compared\s+(?:with|to)|in\s+comparison\s+(?:with|to)|since|from|than\s+(?:on|in)|"
                r"relative\s+to|as\s+of)\s+)?(?:the\s+|a\s+)?(?:prior|previous|preceding|earlier|last|most\s+recent)"
                r"(?:\s+(?:study|studies|exam|examination|imaging|radiograph|film|scan|ct|mri|ultrasound|"
                r"comparison|one))?(?:\s+(?:of|from|dated|on)\s+DATE)?|in\s+the\s+interval|DATE"
                # the earlier measurement: "previously 3.2 cm", "increased from 2 to 3 cm"
                r"|(?:previously|formerly|from|was)\s+(?:measur(?:ed|ing)\s+)?\d+(?:\.\d+)?"
                r"(?:\s*x\s*\d+(?:\.\d+)?)*\s*(?:mm|cm)?(?=\s*(?:to|and|,|;|\.|\)|$))")

MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
