"""The rules judge on reading rules that generalise beyond one set's wordings (issue 32, dev2 and dev3, round 2).

Each test states one reading rule a radiologist applies, in made-up sentences (not the machine-written set's),
so that it proves the family of wordings, not one item.
"""

from __future__ import annotations

from tests.judges.rules_probe import counts, present_concepts


def test_a_density_and_its_reading_in_the_other_section_are_one_finding():
    for reference in ("FINDINGS: Hazy opacity in the left lower lobe. Heart normal.\n\nIMPRESSION: Left lower lobe "
                      "atelectasis.",
                      "FINDINGS: Scarring at the right apex. Heart normal.\n\nIMPRESSION: Stable opacity at the "
                      "right apex."):
        assert len(present_concepts(reference)) == 1, reference
    # the candidate that states the reading once, with its density in the same sentence, lacks nothing
    assert counts("FINDINGS: Hazy opacity in the left lower lobe. Heart normal.\n\nIMPRESSION: Left lower lobe "
                  "atelectasis.", "FINDINGS: Opacity in the left lower lobe, compatible with atelectasis. Normal "
                                  "heart.") == {}
    # a reading at another place is another observation
    assert len(present_concepts("FINDINGS: Hazy opacity in the left lower lobe.\n\nIMPRESSION: Right upper lobe "
                        "atelectasis.")) == 2
    # and in the same section the two stay apart (a density and a reading stated side by side)
    assert len(present_concepts("FINDINGS: Hazy opacity in the left lower lobe. Left lower lobe atelectasis.")) == 2


def test_a_long_description_of_a_density_still_ends_in_its_reading():
    text = ("FINDINGS: Faint streaky opacities are seen in the right upper lobe and along the left lower lobe, which "
            "may reflect scarring.")
    assert present_concepts(text) == ["scarring"]
    # a named pattern read far away is kept: "interstitial opacities" are a finding of their own
    named = ("FINDINGS: Coarse interstitial opacities, greatest in both lower zones and around the hila, with "
             "thickened septa and blurred vessels, most suggestive of pulmonary edema.")
    assert {"interstitial_opacity", "pulmonary_edema"} <= set(present_concepts(named))


def test_a_sternotomy_is_a_post_surgical_change_and_its_summary_adds_nothing():
    reference = "FINDINGS: Median sternotomy. Lungs clear. No effusion."
    for candidate in ("FINDINGS: Intact sternal wires. Lungs clear. No effusion.\n\nIMPRESSION: Postoperative "
                      "changes of the chest.",
                      "FINDINGS: Post-surgical changes: sternotomy wires and surgical clips in the mediastinum. "
                      "Lungs clear. No effusion.",
                      "FINDINGS: Lungs clear. No effusion.\n\nIMPRESSION: Changes of prior coronary artery bypass "
                      "grafting."):
        assert counts(reference, candidate) == {}, candidate
    # surgical material placed elsewhere in the same section is another operation's
    assert counts(reference, "FINDINGS: Median sternotomy. Surgical clips over the right axilla. Lungs clear. "
                             "No effusion.") == {"a": 1}
