"""One kind of observation the rules judge knows (:class:`Concept`): its words and its clinical weight.

Kept apart from the word lists (:mod:`.vocab`, :mod:`.vocab_chest`) so that both can build them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Concept"]


@dataclass(frozen=True)
class Concept:
    """One kind of observation.

    Attributes
    ----------
    key : str
        Stable identifier.
    name : str
        Display name used in explanations ("pleural effusion").
    terms : tuple of str
        Regex fragments naming it (synonyms, plurals).
    sig : str
        ``"always"``, ``"never"`` or ``"graded"`` (see module doc).
    level : float or None
        For ``"graded"``: significant when the severity level, on the first of
        ``scales``, is at least this.
    alt_level : float or None
        The same threshold on the other scales (default: ``level``).
    size_mm : float or None
        For ``"graded"``: significant when the size is at least this.
    scales : tuple of str
        Severity scales (keys of :data:`SCALES`) the finding is graded on, in
        order of preference.
    d_ratio : float
        Size ratio from which a measurement discrepancy is significant.
    family : str or None
        Broader kind ("effusion", "mass", ...): a generic mention ("the
        effusion") can stand for a specific one in the other report.
    generic : bool
        A catch-all of its family (matched last).
    also : tuple of str
        Other families a generic mention of which can stand for it (a calcified granuloma is also a
        "nodule" and a "calcification").
    """

    key: str
    name: str
    terms: tuple[str, ...]
    sig: str = "never"
    level: float | None = None
    alt_level: float | None = None
    size_mm: float | None = None
    scales: tuple[str, ...] = ("sev",)
    d_ratio: float = 1.5
    family: str | None = None
    generic: bool = False
    also: tuple[str, ...] = ()
