"""The pt-BR locale pack (Brazilian Portuguese radiology reports): data only.

From LAIas Bench (Sec. 1, 4.1 and 5): the contrast terms *realce*,
*impregnação*, *wash-out* and phase terms (C01); the umbrella phrase *demais
estruturas sem alterações* (C02); the forbidden term pairs *colônico* ->
*cólico*, *patente* -> *pérvia*, *linfadenopatia* -> *linfonodomegalia*; the
forbidden openers *Presença de*, *Observa-se*; the modality vocabulary rules
(no *atenuação* / *hipersinal* in ultrasound, no *ecogenicidade* in MRI,
*atenuação* not *densidade* in CT); no measurements in the conclusion (C05)
and no technique section in ultrasound (Q09); the section names *Análise*,
*Achados*, *Descrição*. The paper has 14 term pairs and 9 openers but names
only those; the other entries here are RadConcord's and marked ``# added``.
"""

from __future__ import annotations

from core.checks.localespec import LocaleSpec

_FIGADO = r"f[íi]gado|hep[áa]tic[oa]s?"
_RINS = r"rins|rim|renal|renais"
_LINFONODOS = r"linfonod\w*"
_PULMOES = r"pulm[õo]es|pulm[ãa]o|pulmonar(?:es)?"
_PLEURA = r"pleura[ls]?|pleurais|seios?\s+costofr[êe]nicos?"
_CORACAO = r"cora[çc][ãa]o|card[íi]ac[oa]|peric[áa]rdi\w*|cardiomegalia|[áa]rea\s+card[íi]aca"
_MEDIASTINO = r"mediastin\w*|hilos?|hilar(?:es)?"

PT_BR = LocaleSpec(
    code="pt-BR",
    name="Português (Brasil)",
    language="Brazilian Portuguese",
    sections={
        "technique": r"t[ée]cnica|m[ée]todo",
        "analysis": r"an[áa]lise|achados|descri[çc][ãa]o|relat[óo]rio",
        "conclusion": r"conclus[ãa]o|conclus[õo]es|impress[ãa]o(?:\s+diagn[óo]stica)?|opini[ãa]o",
        "other": r"indica[çc][ãa]o(?:\s+cl[íi]nica)?|hist[óo]ria\s+cl[íi]nica|compara[çc][ãa]o|exame|"
                 r"informa[çc][õo]es\s+cl[íi]nicas|recomenda[çc][õo]es",
    },
    contrast_terms=(
        r"realces?|realçad[oa]s?|realça(?:m)?", r"impregna[çc][ãa]o|impregna(?:m|ção)?|impregnad[oa]s?",
        r"wash-?out", r"fase\s+(?:arterial|portal|venosa|tardia|de\s+equil[íi]brio|nefrogr[áa]fica)",
        r"p[óo]s-?contraste", r"ap[óo]s\s+(?:a\s+)?(?:injeção|administração|infusão)\s+(?:endovenosa\s+|intravenosa\s+)?"
        r"(?:de|do|da)\s+(?:meio\s+de\s+)?contraste", r"hiper-?realce|hipo-?realce"),  # phase terms added
    exam_with_contrast=r"com\s+contraste|cc|angio\w*|contrastad[oa]|p[óo]s-?contraste|com\s+e\s+sem\s+contraste",
    exam_without_contrast=r"sem\s+contraste|sc|n[ãa]o\s+contrastad[oa]",
    umbrella_terms=(
        r"demais\s+estruturas\s+(?:sem\s+altera[çc][õo]es|preservadas|normais|de\s+aspecto\s+habitual)",
        r"restante\s+do\s+exame\s+(?:sem\s+altera[çc][õo]es|normal|dentro\s+da\s+normalidade)",  # added
        r"sem\s+outras\s+altera[çc][õo]es"),  # added
    banned_phrases=(  # added: text that never belongs in a report
        r"como\s+(?:um\s+)?modelo\s+de\s+linguagem", r"como\s+(?:uma\s+)?(?:ia|intelig[êe]ncia\s+artificial)",
        r"n[ãa]o\s+(?:posso|consigo)\s+(?:fornecer|ajudar|emitir)", r"desculpe", r"consulte\s+(?:seu|um)\s+m[ée]dico",
        r"gerado\s+por\s+(?:ia|intelig[êe]ncia\s+artificial)", r"aviso\s+legal"),
    placeholders=(
        r"\[[^\]\n]{0,40}\]", r"_{3,}", r"X{2,}", r"\?{2,}", r"\{\{?[^}\n]{0,40}\}?\}",
        r"(?:inserir|preencher)\s+(?:aqui|\w+)", r"a\s+definir", r"lorem\s+ipsum", r"[xX](?:[.,][xX])?\s*(?:mm|cm)"),
    normal_conclusion=(r"exame\s+(?:dentro\s+dos\s+limites\s+da\s+normalidade|sem\s+altera[çc][õo]es|normal)|"
                       r"estudo\s+(?:dentro\s+dos\s+limites\s+da\s+normalidade|sem\s+altera[çc][õo]es|normal)|"
                       r"aus[êe]ncia\s+de\s+altera[çc][õo]es|sem\s+altera[çc][õo]es\s+significativas"),
    forbidden_terms=(
        (r"col[ôo]nic[oa]s?", "cólico"), (r"patentes?", "pérvia"), (r"linfadenopatias?", "linfonodomegalia"),
        (r"infiltrados?", "opacidade"),  # added (Fleischner glossary, as in en-US)
        (r"a\s+n[íi]vel\s+d[eoa]s?", "no nível de"),  # added (grammar)
    ),
    forbidden_openers=(r"presen[çc]a\s+de", r"observa-se", r"observam-se",
                       r"nota-se", r"notam-se", r"evidencia-se", r"evidenciam-se", r"visualiza-se",
                       r"visualizam-se"),  # the last seven added: the same impersonal form
    modality_vocabulary={
        "US": ((r"atenua[çc][ãa]o|hiperatenuant\w*|hipoatenuant\w*", "CT term (atenuação) in an ultrasound report"),
               (r"hipersinal|hipossinal", "MRI term (sinal) in an ultrasound report")),
        "MR": ((r"ecogenicidade|hiperecog[êe]nic\w*|hipoecog[êe]nic\w*|anecoic\w*", "ultrasound term in an MRI report"),
               (r"atenua[çc][ãa]o", "CT term (atenuação) in an MRI report")),  # added
        "CT": ((r"densidade|hiperdens\w*|hipodens\w*", "CT uses atenuação, not densidade"),
               (r"ecogenicidade|hiperecog[êe]nic\w*|hipoecog[êe]nic\w*", "ultrasound term in a CT report"),  # added
               (r"hipersinal|hipossinal", "MRI term (sinal) in a CT report")),  # added
        "XR": ((r"ecogenicidade|hiperecog[êe]nic\w*|hipoecog[êe]nic\w*", "ultrasound term in a radiograph report"),
               (r"hipersinal|hipossinal", "MRI term in a radiograph report")),  # added
    },
    coverage={
        ("CT", "abdomen"): (("fígado", _FIGADO), ("vesícula biliar", r"ves[íi]cula(?:\s+biliar)?|colecist\w*"),
                            ("pâncreas", r"p[âa]ncreas|pancre[áa]tic[oa]"), ("baço", r"ba[çc]o|espl[êe]nic[oa]"),
                            ("rins", _RINS), ("adrenais", r"adrenais|adrenal|suprarrenais|suprarrenal"),
                            ("aorta", r"aorta|a[óo]rtic[oa]"), ("linfonodos", _LINFONODOS)),
        ("CT", "chest"): (("pulmões", _PULMOES), ("pleura", _PLEURA), ("coração", _CORACAO),
                          ("mediastino", _MEDIASTINO)),
        ("XR", "chest"): (("pulmões", _PULMOES), ("pleura", _PLEURA + r"|pneumot[óo]rax"), ("coração", _CORACAO)),
        ("CT", "head"): (("hemorragia", r"hemorragia|hemorr[áa]gic[oa]|hematoma|sangramento"),
                         ("ventrículos", r"ventr[íi]culos?|ventricular(?:es)?|hidrocefalia"),
                         ("linha média", r"linha\s+m[ée]dia|efeito\s+de\s+massa"),
                         ("espaços extra-axiais", r"extra-?axia(?:l|is)|subdura(?:l|is)|epidura(?:l|is)")),
        ("MR", "head"): (("parênquima", r"par[êe]nquima|subst[âa]ncia\s+(?:branca|cinzenta)|infartos?"),
                         ("ventrículos", r"ventr[íi]culos?|ventricular(?:es)?|hidrocefalia"),
                         ("linha média", r"linha\s+m[ée]dia|efeito\s+de\s+massa")),
        ("MR", "spine"): (("alinhamento", r"alinhamento|listese|lordose|cifose"),
                          ("corpos vertebrais", r"corpos?\s+vertebra(?:l|is)|medular\s+[óo]ssea|fraturas?"),
                          ("discos", r"discos?|discais|discal"), ("canal", r"canal|estenose|forames|foraminal"),
                          ("medula ou cone", r"medula|cone\s+medular|cauda\s+equina")),
        ("US", "abdomen"): (("fígado", _FIGADO), ("vesícula biliar", r"ves[íi]cula(?:\s+biliar)?|colelit\w*"),
                            ("vias biliares", r"vias\s+biliares|col[ée]doco|biliar(?:es)?"), ("rins", _RINS)),
        ("US", "pelvis"): (("útero", r"[úu]tero|uterin[oa]|endom[ée]tri\w*"), ("ovários", r"ov[áa]ri\w*|anexia\w*")),
    },
    findings=(
        ("pneumothorax", r"pneumot[óo]rax|hidropneumot[óo]rax"),
        ("pleural_effusion", r"derrames?\s+pleura(?:l|is)|l[íi]quido\s+(?:no\s+espa[çc]o|na\s+cavidade)\s+pleural"),
        ("consolidation", r"consolida[çc](?:[ãa]o|[õo]es)|pneumonias?|opacidades?\s+alveolar(?:es)?"),
        ("atelectasis", r"atelectasias?|atelect[áa]sic[oa]s?"),
        ("lung_nodule", r"n[óo]dulos?\s+pulmonar(?:es)?"),
        ("pericardial_effusion", r"derrames?\s+peric[áa]rdic[oa]s?"),
        ("lymphadenopathy", r"linfonodomegalias?|linfonodos?\s+(?:aumentados|suspeitos)|linfadenopatias?"),
        ("pulmonary_embolism", r"tromboembolismo\s+pulmonar|embolia\s+pulmonar|TEP"),
        ("emphysema", r"enfisema"),
        ("cardiomegaly", r"cardiomegalia|aumento\s+da\s+[áa]rea\s+card[íi]aca"),
        ("steatosis", r"esteatose(?:\s+hep[áa]tica)?|infiltra[çc][ãa]o\s+gordurosa\s+hep[áa]tica"),
        ("liver_lesion", r"(?:n[óo]dulos?|les[ãa]o|les[õo]es)\s+hep[áa]tic[oa]s?"),
        ("renal_cyst", r"cistos?\s+rena(?:l|is)|cistos?\s+(?:simples\s+)?(?:no|do)\s+rim"),
        ("cholelithiasis", r"colelit[íi]ase|c[áa]lculos?\s+(?:na\s+)?ves[íi]cula(?:\s+biliar)?"),
        ("nephrolithiasis", r"nefrolit[íi]ase|c[áa]lculos?\s+rena(?:l|is)|litíase\s+renal"),
        ("hydronephrosis", r"hidronefrose|dilata[çc][ãa]o\s+pielocalicinal"),
        ("appendicitis", r"apendicite"),
        ("diverticulitis", r"diverticulite"),
        ("ascites", r"ascite|l[íi]quido\s+livre"),
        ("splenomegaly", r"esplenomegalia"),
        ("hepatomegaly", r"hepatomegalia"),
        ("aneurysm", r"aneurismas?"),
        ("dissection", r"disse[cç][çc][ãa]o"),
        ("hemorrhage", r"hemorragias?|hematomas?"),
        ("infarct", r"infartos?|isquemias?|acidente\s+vascular"),
        ("mass", r"massas?|forma[çc][ãa]o\s+expansiva|tumora[çc][ãa]o"),
        ("fracture", r"fraturas?"),
        ("disc_herniation", r"h[ée]rnias?\s+disca(?:l|is)|protrus[ãa]o\s+discal|protrus[õo]es\s+discais|abaulamentos?\s+discais?"),
        ("canal_stenosis", r"estenose\s+(?:do\s+canal|foraminal)|redu[çc][ãa]o\s+(?:da\s+amplitude\s+)?do\s+canal"),
        ("cyst", r"cistos?"),
    ),
    negation_pre=(r"n[ãa]o(?:\s+(?:h[áa]|se\s+(?:observa|observam|identifica|identificam|caracteriza|caracterizam|"
                  r"evidencia|evidenciam)))?|sem(?:\s+sinais\s+de|\s+evid[êe]ncias?\s+de)?|aus[êe]ncia\s+de|"
                  r"nenhum[a]?|nem|descartad[oa]"),
    negation_post=(r"(?:n[ãa]o\s+(?:foi|foram|[ée]|s[ãa]o)\s+(?:identificad|observad|caracterizad|visualizad|"
                   r"evidenciad)\w*)|ausentes?"),
    negation_stop=r"mas|por[ée]m|entretanto|contudo|exceto|embora|que",
    laterality={"right": r"direit[oa]s?", "left": r"esquerd[oa]s?", "bilateral": r"bilatera(?:l|is)|ambos|ambas"},
    modality_aliases={"CT": r"tc|tomografia(?:\s+computadorizada)?|angiotomografia|angio-?tc|ct|cta",
                      "MR": r"rm|rnm|resson[âa]ncia(?:\s+magn[ée]tica)?|angio-?rm|mri?|mra",
                      "US": r"us|usg|ultrassom|ultrassonografia|ecografia|doppler",
                      "XR": r"rx|raio-?x|radiografia|xr", "MG": r"mamografia|mmg|mg"},
    regions=(
        ("spine", r"coluna|vertebra|lombar|cervical|tor[áa]cica|sacr|spine|lumbar"),
        ("head", r"cr[âa]nio|enc[ée]falo|cerebr|cabe[çc]a|[óo]rbitas?|seios\s+da\s+face|head|brain"),
        ("neck", r"pesco[çc]o|tire[óo]ide|cervical\s+partes|neck|thyroid"),
        ("breast", r"mama|mamas|mam[áa]ri|breast"),
        ("chest", r"t[óo]rax|tor[áa]cic|pulm|chest|thorax"),
        ("pelvis", r"pelve|p[ée]lvic|[úu]tero|ov[áa]ri|pr[óo]stata|bexiga|pelvis"),
        ("abdomen", r"abdome|abdominal|abd|f[íi]gado|rins|renal|vias\s+biliares|abdomen|liver|kidney"),
        ("vascular", r"aorta|car[óo]tidas?|vascular|venos|arterial|aortic"),
        ("msk", r"ombro|joelho|quadril|tornozelo|punho|cotovelo|m[ãa]o|p[ée]|shoulder|knee|hip"),
    ),
    decimal_comma=True,
    measurements_in_conclusion=False,
    us_technique_forbidden=True,
    judge_instructions=(
        "The reports are written in Brazilian Portuguese. Judge terminology by the Brazilian College of Radiology "
        "(CBR) conventions: e.g. 'cólico' not 'colônico', 'pérvia' not 'patente', 'linfonodomegalia' not "
        "'linfadenopatia'; no impersonal openers such as 'Presença de' or 'Observa-se'; 'atenuação' (not "
        "'densidade') for CT, 'sinal' for MRI, 'ecogenicidade' only for ultrasound; no measurements in the "
        "conclusion; no technique section in ultrasound reports. Write your own text in English."),
    notes=("Terms named in LAIas Bench Secs. 1, 4.1, 5; entries marked '# added' in the source are RadConcord's.",),
)
