"""Exam types of the synthetic demo (``EXAMS``): modality, anatomy, finding pool, report conventions."""

from __future__ import annotations

from dataclasses import dataclass

from core.ingest.synth.findings import FINDINGS, FindingSpec
from core.ingest.synth.vocabulary import SITES


@dataclass(frozen=True)
class Exam:
    """An imaging exam type: modality, anatomy, its finding pool and report conventions.

    ``pool`` is in anatomic reading order; the reference report follows it.
    ``scales`` maps site placeholders (``LEVEL`` ...) to concrete site scales.
    ``normal_impression`` is used when no finding warrants the impression.
    ``tail_abnormal`` / ``tail_normal`` close the impression (BI-RADS lines).
    """

    modality: str
    anatomy: str
    title: str
    pool: tuple[str, ...]
    normal_impression: tuple[str, ...]
    weight: float = 1.0
    scales: tuple[tuple[str, str], ...] = ()
    tail_abnormal: tuple[str, ...] = ()
    tail_normal: tuple[str, ...] = ()


_NO_ACUTE = ("No acute abnormality.", "No acute findings.")
_BIRADS_ABN = ("BI-RADS 4: Suspicious abnormality. Tissue sampling is recommended.",
               "BI-RADS 0: Incomplete. Additional imaging evaluation is needed.")
_BIRADS_OK = ("BI-RADS 1: Negative.", "BI-RADS 2: Benign.")
_LUMBAR_SCALES = (("LEVEL", "lumbar"), ("LISTH", "listh_l"))
EXAMS: tuple[Exam, ...] = (
    Exam("XR", "chest", "Chest radiograph, PA and lateral",
         ("pneumothorax", "pleural_effusion", "consolidation", "pulmonary_edema", "pulmonary_nodule", "granuloma",
          "atelectasis", "cardiomegaly", "hiatal_hernia", "rib_fracture"),
         ("No acute cardiopulmonary process.", "No acute cardiopulmonary abnormality."), weight=6),
    Exam("CT", "chest", "CT chest with contrast",
         ("pulmonary_nodule", "consolidation", "emphysema", "atelectasis", "pleural_effusion", "pneumothorax",
          "lymphadenopathy", "pericardial_effusion", "coronary_calcification", "hiatal_hernia", "rib_fracture"),
         ("No acute intrathoracic abnormality.",), weight=3),
    Exam("CTA", "chest", "CT angiography of the chest",
         ("pulmonary_embolism", "aortic_dissection", "consolidation", "pulmonary_nodule", "atelectasis",
          "pleural_effusion", "pericardial_effusion", "lymphadenopathy"),
         ("No acute abnormality in the chest.",), weight=2),
    Exam("CT", "abdomen", "CT abdomen and pelvis with contrast",
         ("liver_lesion", "hepatic_steatosis", "gallstones", "splenomegaly", "pancreatitis", "adrenal_nodule",
          "kidney_stone", "hydronephrosis", "renal_cyst", "sbo", "appendicitis", "diverticulitis", "diverticulosis",
          "ascites", "umbilical_hernia"),
         ("No acute abnormality in the abdomen or pelvis.",), weight=4),
    Exam("US", "kidney", "Renal ultrasound",
         ("hydronephrosis", "kidney_stone", "renal_cyst", "renal_mass", "renal_cortical_thinning",
          "bladder_wall_thickening"), _NO_ACUTE, weight=1.5),
    Exam("US", "liver", "Right upper quadrant ultrasound",
         ("hepatic_steatosis", "liver_lesion_us", "gallstones", "gb_wall_thickening", "cholecystitis",
          "cbd_dilation", "ascites"), _NO_ACUTE, weight=1.5),
    Exam("MRI", "liver", "MRI abdomen, liver protocol",
         ("cirrhosis", "liver_lesion", "hepatic_steatosis", "splenomegaly", "ascites", "cbd_dilation"), _NO_ACUTE),
    Exam("US", "pelvis", "Pelvic ultrasound, transabdominal and transvaginal",
         ("fibroid", "endometrial_thickening", "ovarian_cyst", "pelvic_free_fluid"), _NO_ACUTE),
    Exam("MRI", "pelvis", "MRI pelvis with and without contrast",
         ("fibroid", "adenomyosis", "endometrial_thickening", "ovarian_cyst", "pelvic_free_fluid"), _NO_ACUTE, 0.7),
    Exam("CT", "brain", "CT head without contrast",
         ("ich", "sdh", "acute_infarct", "midline_shift", "hydrocephalus", "small_vessel", "volume_loss",
          "skull_fracture", "sinus_disease"),
         ("No acute intracranial abnormality.", "No acute intracranial process."), weight=3),
    Exam("MRI", "brain", "MRI brain with and without contrast",
         ("acute_infarct", "chronic_infarct", "brain_mass", "meningioma", "small_vessel", "hydrocephalus",
          "volume_loss", "sinus_disease"),
         ("No acute intracranial abnormality.",), weight=2),
    Exam("MRA", "brain", "MR angiography of the head",
         ("intracranial_aneurysm", "mca_stenosis", "fetal_pca"), ("No intracranial vascular abnormality.",), 0.8),
    Exam("MRI", "lumbar spine", "MRI lumbar spine without contrast",
         ("compression_fracture", "spondylolisthesis", "disc_herniation", "canal_stenosis", "foraminal_narrowing",
          "facet_arthropathy", "disc_degeneration"), _NO_ACUTE, 1.5, _LUMBAR_SCALES),
    Exam("XR", "lumbar spine", "Lumbar spine radiographs, 3 views",
         ("scoliosis", "compression_fracture", "spondylolisthesis", "disc_degeneration", "facet_arthropathy"),
         ("No acute osseous abnormality.",), 1.0, _LUMBAR_SCALES),
    Exam("MRI", "cervical spine", "MRI cervical spine without contrast",
         ("spondylolisthesis", "cord_signal", "disc_herniation", "canal_stenosis", "foraminal_narrowing",
          "disc_degeneration"), _NO_ACUTE, 1.0, (("LEVEL", "cervical"), ("LISTH", "listh_c"))),
    Exam("MRI", "knee", "MRI knee without contrast",
         ("acl_tear", "mcl_sprain", "meniscal_tear", "joint_effusion", "bone_contusion", "chondral_loss",
          "baker_cyst"), ("No internal derangement.",), weight=1.5),
    Exam("XR", "knee", "Knee radiographs, 3 views",
         ("tibial_plateau_fracture", "knee_oa", "joint_effusion", "chondrocalcinosis"),
         ("No acute osseous abnormality.",)),
    Exam("MRI", "shoulder", "MRI shoulder without contrast",
         ("rotator_cuff_tear", "cuff_tendinosis", "labral_tear", "bursitis", "ac_arthropathy", "joint_effusion"),
         _NO_ACUTE),
    Exam("XR", "shoulder", "Shoulder radiographs, 3 views",
         ("shoulder_dislocation", "humeral_fracture", "ac_arthropathy", "calcific_tendinitis"),
         ("No acute osseous abnormality.",)),
    Exam("XR", "hip", "Hip and pelvis radiographs",
         ("hip_fracture", "avn", "hip_oa"), ("No acute osseous abnormality.",)),
    Exam("MG", "breast", "Bilateral screening mammogram",
         ("breast_mass", "microcalcifications", "focal_asymmetry", "architectural_distortion",
          "benign_calcifications", "axillary_node"),
         ("No mammographic evidence of malignancy.",), 1.5, (), _BIRADS_ABN, _BIRADS_OK),
    Exam("US", "breast", "Targeted breast ultrasound",
         ("breast_mass", "breast_cyst", "oval_mass", "axillary_node"),
         ("No sonographic evidence of malignancy.",), 1.0, (), _BIRADS_ABN, _BIRADS_OK),
    Exam("US", "thyroid", "Thyroid ultrasound",
         ("thyroid_nodule", "goiter", "thyroiditis", "cervical_node"), _NO_ACUTE),
    Exam("US", "carotid", "Carotid duplex ultrasound",
         ("carotid_plaque", "ica_stenosis", "vertebral_reversal"), ("No hemodynamically significant abnormality.",)),
    Exam("CTA", "aorta", "CT angiography of the abdominal aorta and iliac arteries",
         ("aaa", "aortic_dissection", "iliac_aneurysm", "renal_artery_stenosis", "aortic_atherosclerosis",
          "renal_cyst"), ("No acute aortic abnormality.",)),
    Exam("US", "aorta", "Abdominal aorta ultrasound",
         ("aaa", "iliac_aneurysm", "aortic_atherosclerosis"), ("No acute abnormality.",), 0.7),
)
_SITE_SCALES: dict[tuple[str, str], tuple[str, ...]] = {
    (e.title, FINDINGS[k].site): SITES[dict(e.scales).get(FINDINGS[k].site, FINDINGS[k].site)]
    for e in EXAMS for k in e.pool if FINDINGS[k].site
}


def site_scale(f: FindingSpec, exam: Exam) -> tuple[str, ...]:
    return _SITE_SCALES[exam.title, f.site]
