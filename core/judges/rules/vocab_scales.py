"""Severity scales of the rules judge's vocabulary (read through :mod:`.vocab`, which re-exports them)."""

from __future__ import annotations

# --------------------------------------------------------------------------- #
# Severity scales                                                              #
# --------------------------------------------------------------------------- #

#: Ordinal scales: (regex, level) tried in order at each position, so longer
#: wordings come first.  Levels are comparable only within one scale.
SCALES: dict[str, tuple[tuple[str, float], ...]] = {
    # general severity / amount
    "sev": (
        # the low end is one grade to a reader: "minimal" or "trace" against "mild" or "small" is no severity
        # error, against "moderate" it is (the borderline heart is its own grade, below a mildly enlarged one)
        (r"borderline|upper\s+(?:limits?|end|range)\s+of\s+(?:the\s+)?normal|(?:top|high)[-\s]normal", 0),
        (r"trace|tiny|minimal|minimally|trivial|subtle", 0.5),
        (r"small(?:-sized)?|mild|mildly|slight|slightly", 1),
        (r"moderate(?:-sized)?|moderately|medium", 2),
        (r"large(?:-sized)?|severe|severely|marked|markedly|extensive|massive", 3),
    ),
    # pulmonary embolism extent
    "pe": ((r"subsegmental", 0), (r"segmental", 1), (r"lobar", 2), (r"main|central", 3), (r"saddle", 4)),
    # fracture displacement
    "disp": (
        (r"non-?displaced|undisplaced", 0),
        (r"minimally\s+displaced|mildly\s+displaced|minimally\s+angulated", 1),
        (r"(?:markedly\s+|significantly\s+|severely\s+|widely\s+)?displaced|comminuted", 2),
    ),
    # tendon tear thickness
    "thick": (
        (r"low-?\s*grade\s+partial[-\s]thickness", 0),
        (r"high-?\s*grade\s+partial[-\s]thickness", 1),
        (r"partial[-\s]thickness", 0.5),
        (r"full[-\s]thickness|complete", 2),
    ),
    # ligament tear completeness
    "acl": ((r"partial(?:[-\s]thickness)?|low-?\s*grade|incomplete", 0), (r"complete|full[-\s]thickness", 1)),
    # obstruction grade
    "sbo": ((r"partial|low-?\s*grade|early|incomplete", 0), (r"high-?\s*grade|complete", 1)),
}
#: Scales read by dedicated code: "tirads" (TI-RADS n), "grade" (grade n), "pct" (stenosis percent).
NUMERIC_SCALES = ("tirads", "grade", "pct")
