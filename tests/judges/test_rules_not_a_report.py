"""Text that is not a report, as chat models and VLMs write it, against real reports that only sound like it.

A probe written for this file (issue 32, failure class 3), not taken from ``bench/machine_written``:
``NON_REPORTS`` are made-up answers in which a model produces no report (refusals and safety disclaimers,
remarks that the image is something else or cannot be opened, unfilled or half-filled templates, questions
back to the user, descriptions of what it would need, chatty preambles with nothing after them); each must be
refused with a recorded "not a report" reason and never scored. ``REPORTS`` are made-up real reports,
including the ones that borrow a refusal's words (appended AI disclaimers, "cannot exclude", "not well
visualized", "limited evaluation", "please consult", one-line impressions, numbered lists, a chatty preamble
followed by a report); each must be scored.
"""

from __future__ import annotations

import pytest

from core.judges.rules import not_a_report, parse_report, score_pair, screen_pair
from core.judges.rules.extract import clear_caches
from core.judges.rules.screen import ASIDE, DECLINE, OTHER_IMAGE, may_hold_a_cue

REFERENCE = "No acute cardiopulmonary abnormality."

NON_REPORTS: list[str] = [
    # --- refusals, first person
    "I can't help with reading medical images. A radiologist should review this X-ray.",
    "I'm not able to interpret radiographs or give a diagnosis.",
    "Sorry, I cannot analyze this image for you.",
    "I won't be able to provide a radiology report for this picture, since I'm not a medical professional.",
    "I am not qualified to read X-rays. If you are worried about pneumonia or a collapsed lung, please see a "
    "doctor as soon as possible.",
    "I'm unable to give you an interpretation of this chest film. If you have concerns about your heart size or "
    "fluid around the lungs, your physician can go over the images with you.",
    "Unfortunately I do not have the ability to view or read images, so I can't say whether there is a fracture "
    "or an effusion.",
    "I must decline to interpret this study; diagnostic interpretation of imaging should be done by a "
    "board-certified radiologist.",
    "We are unable to offer a reading of this radiograph.",
    "I apologize, but reading chest X-rays is outside what I can do.",
    "My apologies, interpreting medical imaging is beyond my capabilities.",
    # --- refusals, impersonal or passive, "this assistant"
    "This assistant cannot provide medical diagnoses or interpret X-ray images.",
    "This AI tool is not designed to interpret medical images and must not be used for diagnosis.",
    "A diagnostic reading of this image cannot be provided here.",
    "Interpretation of medical images is beyond the scope of this service.",
    "It is not possible for me to generate a radiology report from this image.",
    "No interpretation can be offered for this upload.",
    "Providing a diagnosis from medical images is not something this model can do.",
    # --- safety disclaimers standing alone
    "This tool is not a substitute for a radiologist. Please consult a qualified healthcare professional for "
    "any questions about this image.",
    "I cannot provide medical advice. Please consult your doctor about the results of your chest X-ray.",
    "For your safety, any chest X-ray should be interpreted by a licensed radiologist. Please talk to your "
    "healthcare provider.",
    "Medical images need to be read by a trained professional; please seek medical advice from your physician.",
    "I'm an AI language model and not a doctor, so I can't tell you what this X-ray shows.",
    "As an artificial intelligence, I am not permitted to offer diagnostic opinions on radiographs.",
    # --- image-type remarks
    "This appears to be an X-ray of a hand, not a chest radiograph, so a chest report cannot be written.",
    "The uploaded image shows a knee radiograph. I can only comment on chest X-rays.",
    "This looks like a single axial CT slice of the abdomen rather than a chest X-ray.",
    "The image provided is an abdominal film (KUB), not a chest radiograph; the lungs are not included.",
    "This is a photograph of a person, not a medical image.",
    "The attached file seems to be a screenshot of a web page rather than a radiograph.",
    "This is an ECG tracing, not a chest X-ray. I cannot produce a radiology report from it.",
    "The image is completely black; no anatomy is visible.",
    "The image appears to be blank.",
    "The image failed to load, so I can't describe it.",
    "It seems no image was attached to your message.",
    "I don't see any image in your message. Could you upload the chest X-ray again?",
    "The file could not be opened. Please re-upload the radiograph.",
    "This picture is a dental panoramic radiograph, which is outside the scope of a chest X-ray report.",
    "The image shows an MRI of the brain, not the chest.",
    "This is a lateral view of the lumbar spine rather than a chest film; the lungs cannot be assessed.",
    # --- unfilled or half-filled templates
    "FINDINGS: [insert findings]\nIMPRESSION: [insert impression]",
    "Findings: <findings>\nImpression: <impression>",
    "FINDINGS: N/A\nIMPRESSION: N/A",
    "FINDINGS: ____\nIMPRESSION: ____",
    "EXAMINATION: Chest X-ray, PA and lateral\nFINDINGS: [Describe findings]\nIMPRESSION: [Summary]",
    "Heart: [normal/enlarged]\nLungs: [clear/consolidation/effusion]\nBones: [intact/fracture]",
    "Radiology report template\nLungs: {lungs}\nPleura: {pleura}\nHeart: {heart}\nImpression: {impression}",
    "FINDINGS: [Enter the findings here.]\nIMPRESSION: [Enter the impression here.]\n"
    "Replace the placeholders with the appropriate findings.",
    # --- questions back to the user
    "Could you please share the chest X-ray image? I don't see it attached.",
    "Would you like me to write a normal chest X-ray report template that you can fill in?",
    "Can you tell me which view this is and why the X-ray was taken, so I can help better?",
    "Do you have the original DICOM file? The compressed image is too small for me to read.",
    # --- what the model would need
    "To write a radiology report, I would need the actual image and the patient's clinical history.",
    "I need a frontal chest radiograph to produce a report; please provide one.",
    "To give an accurate interpretation, I'd require the full-resolution images and any prior studies for "
    "comparison.",
    "An interpretation requires the original images; only the file name was received.",
    # --- chatty meta-text with nothing after it
    "Sure! Here is a report:",
    "Certainly, here's the radiology report you asked for:\n\n",
    "Of course! I'd be happy to help you with that chest X-ray. Let me know if you have any other questions.",
    "Here is my analysis of the image.\n\nI hope this helps!",
    # --- remarks about the image only
    "This is a chest X-ray.",
    "The image shows a frontal chest radiograph of an adult.",
    "The image shows the rib cage, both lungs and the heart in the middle of the chest.",
    # --- what such an image can show in general, or how the writer would read it
    "A chest X-ray can show pneumonia, an enlarged heart or fluid around the lungs. A radiologist will compare "
    "it with your symptoms.",
    "Radiologists usually look for consolidation, effusion, pneumothorax and cardiomegaly on a chest film.",
    "To read this image, I would first look at the airway, then the lungs, the heart and the bones.",
    "Let me analyze this step by step. First, the image quality should be checked.",
    # --- other machine answers: text-only models, quality too low, an echoed prompt, errors, an empty JSON
    "I can only process text, so the attached radiograph could not be read.",
    "The resolution is too low to generate a meaningful report.",
    "You are an expert radiologist. Write the findings and impression for this chest X-ray.",
    "Error: the request timed out before a response was generated.",
    'The response was blocked by the content filter.',
    '{"findings": "", "impression": ""}',
]

REPORTS: list[str] = [
    # --- reports with disclaimers appended
    "The lungs are clear. The heart is normal in size. No pleural effusion or pneumothorax.\n\n"
    "This AI-generated report should be reviewed by a radiologist.",
    "Findings: Mild cardiomegaly. Small left pleural effusion.\nImpression: Cardiomegaly with a small left "
    "effusion.\n\nDisclaimer: I am an AI model and this is not a substitute for a radiologist's interpretation.",
    "No acute cardiopulmonary process. Please consult a radiologist for a definitive reading.",
    "Right lower lobe consolidation concerning for pneumonia. As an AI, I cannot provide a diagnosis; please "
    "have these findings confirmed by your physician.",
    "Note: this is not medical advice.\nFINDINGS: Heart size is normal. Lungs are clear.\n"
    "IMPRESSION: Normal chest.",
    "Lungs are hyperinflated with flattened diaphragms, consistent with emphysema. This report is for "
    "informational purposes only.",
    "IMPRESSION: No acute disease. Please discuss these results with your healthcare provider.",
    "Small right pneumothorax. Findings should be verified by a qualified radiologist before clinical use.",
    # --- hedges and limits
    "I cannot exclude a small left apical pneumothorax.",
    "A small right pleural effusion cannot be excluded.",
    "The left costophrenic angle is not well visualized. No pneumothorax.",
    "Limited evaluation due to patient rotation. No focal consolidation.",
    "Limited study. The lung bases are not well visualized due to low lung volumes.",
    "Retrocardiac opacity, atelectasis versus pneumonia. Correlate clinically.",
    "Possible early right lower lobe pneumonia; consult clinically and consider follow-up radiograph.",
    "Mild cardiomegaly; please compare with prior studies when available.",
    "No radiograph-visible fracture. If symptoms persist, CT could be considered.",
    "Suboptimal inspiration. Heart size is difficult to assess. No definite consolidation.",
    "Portable technique limits evaluation of the mediastinum. No pneumothorax.",
    "Nondiagnostic lateral view due to motion. On the frontal view the lungs are clear.",
    "Patient rotation limits assessment; repeat the examination if clinically indicated. No large effusion.",
    "Poor inspiratory effort. Bibasilar atelectasis.",
    # --- terse one-liners and impressions only
    "No acute disease.",
    "No acute cardiopulmonary abnormality.",
    "Normal chest.",
    "Unremarkable chest radiograph.",
    "Stable chest.",
    "No change from prior.",
    "Negative chest X-ray.",
    "Lungs clear.",
    "Heart normal, lungs clear.",
    "IMPRESSION: Normal chest radiograph.",
    "Impression: Stable mild cardiomegaly without acute process.",
    "Findings: none.",
    "Cardiomegaly.",
    "Left lower lobe pneumonia.",
    # --- numbered lists and sections
    "1. No acute cardiopulmonary process.\n2. Stable mild cardiomegaly.",
    "IMPRESSION:\n1. Right upper lobe opacity, likely pneumonia.\n2. Small right pleural effusion.\n"
    "3. No pneumothorax.",
    "Findings:\n- Lungs: clear.\n- Pleura: no effusion or pneumothorax.\n- Heart: normal size.\n"
    "- Bones: degenerative changes of the thoracic spine.",
    "FINDINGS: N/A\nIMPRESSION: No acute disease.",
    "TECHNIQUE: PA and lateral views.\nFINDINGS: Clear lungs. Normal heart size.\nIMPRESSION: Normal.",
    "EXAMINATION: Chest, two views.\nCOMPARISON: None.\nFINDINGS: The heart and mediastinum are normal. The "
    "lungs are clear.",
    # --- chatty preamble followed by a report
    "Sure! Here is a report:\n\nFINDINGS: The lungs are clear. No effusion.\nIMPRESSION: Normal chest X-ray.",
    "Certainly. Here's the radiology report for this chest X-ray:\nFindings: Mild cardiomegaly. Otherwise "
    "normal.\n\nLet me know if you need anything else!",
    "Here is my interpretation of the image: there is a moderate left pleural effusion with adjacent "
    "atelectasis. I hope this helps.",
    "Of course. The image shows a frontal chest radiograph. The lungs are clear and the heart is not "
    "enlarged.",
    "This is a PA chest radiograph. There is a right-sided chest tube with a small residual pneumothorax.",
    "The image shows an AP portable chest X-ray with an endotracheal tube 4 cm above the carina.",
    # --- first person and "you" in real readings
    "I have personally reviewed the images. There is a small left pleural effusion.",
    "Findings discussed with Dr. Smith by telephone. Large right pneumothorax.",
    "I would recommend a CT of the chest to further evaluate the right upper lobe nodule.",
    "Your lungs look clear and your heart is a normal size. There is no sign of pneumonia.",
    "There is no pneumothorax, I do not see an effusion, and the heart is normal.",
    # --- other body parts and devices in chest reports
    "Left shoulder arthroplasty partially imaged. Lungs clear.",
    "Cholecystectomy clips in the right upper quadrant. No acute cardiopulmonary abnormality.",
    "The visualized upper abdomen is unremarkable. The lungs are clear.",
    "Cervical spine fusion hardware is partially visualized. Heart size is normal.",
    "EKG leads overlie the chest. No focal consolidation.",
    "Degenerative changes of both shoulders. No acute osseous abnormality.",
    "Dual-chamber pacemaker with leads in the right atrium and ventricle. No edema.",
    "A right PICC terminates in the SVC. Lungs are clear. Correlation with CT of the abdomen is suggested for "
    "the dilated bowel loops.",
    "The study is limited by motion. No large pleural effusion.",
    "Image quality is degraded by overlying soft tissue. No pneumothorax.",
    # --- sentences that borrow the new families' words
    "Right lower lobe pneumonia. Chest radiographs are recommended in 6 weeks to document resolution.",
    "Retrocardiac opacity. A repeat radiograph may help to evaluate for resolution.",
    '{"findings": "Lungs are clear. No effusion.", "impression": "Normal chest."}',
    "Let me describe the findings. The heart is enlarged and there is mild pulmonary edema.",
    "The image shows clear lungs and a normal heart.",
    # a finding named in a sentence that declines ("concerns regarding", "questions about", "if you") does not
    # hide the report's own statement of it
    "Clinical concerns regarding pneumothorax. No pneumothorax.",
    "No pneumothorax. Dr. Smith had questions about a pneumothorax and was called.",
    "No pneumothorax. If you see a pneumothorax clinically, call us.",
    "History: concern about pneumonia. Findings: No pneumonia.",
]


def test_the_probe_is_large_enough():
    assert len(NON_REPORTS) >= 60 and len(REPORTS) >= 60
    assert len(set(NON_REPORTS)) == len(NON_REPORTS) and len(set(REPORTS)) == len(REPORTS)


@pytest.mark.parametrize("text", NON_REPORTS)
def test_text_that_is_not_a_report_is_refused(text):
    why = not_a_report(text)
    assert why, text
    reason = screen_pair(REFERENCE, text)
    assert reason == f"not a report: the candidate is {why}"
    rec = score_pair(REFERENCE, text)
    assert rec.error == reason and rec.metrics is None and rec.raw_text is None


@pytest.mark.parametrize("text", REPORTS)
def test_a_real_report_is_scored(text):
    assert not_a_report(text) is None, not_a_report(text)
    assert screen_pair(REFERENCE, text) is None
    rec = score_pair(REFERENCE, text)
    assert rec.error is None and rec.raw_text


def test_a_refused_reference_is_named_as_the_reference():
    reason = screen_pair("I'm sorry, I cannot read this image.", "No acute disease.")
    assert reason and reason.startswith("not a report: the reference is")


@pytest.mark.parametrize("text", NON_REPORTS + REPORTS)
def test_the_word_prefilter_lets_every_cue_through(text):
    """The fast test before the patterns never hides a text that one of them matches."""
    if any(rx.search(text) for rx in (DECLINE, ASIDE, OTHER_IMAGE)):
        assert may_hold_a_cue(text)


def test_the_screen_parses_a_text_once():
    text = "I'm not able to read images. For questions about possible rib fractures, please consult your doctor."
    clear_caches()
    assert not_a_report(text)
    info = parse_report.cache_info()
    assert (info.hits, info.misses) == (0, 1)
