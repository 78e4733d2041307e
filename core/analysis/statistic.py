"""The three correlation statistics, described once: keys, short names, symbols, columns and wording.

Every module that names Kendall / Spearman / Pearson reads :data:`STATISTICS` (or :func:`statistic`)
instead of keeping its own table. ``key`` is the long name (``kendall``), ``short`` the name the CLI and
the ceiling use (``tau``); both find the same record. The column names are those of the correlate table
(``core.analysis.stats.correlate``).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statistic:
    key: str          # kendall / spearman / pearson
    short: str        # tau / rho / r: the estimate column and the CLI's name
    symbol: str       # τ / ρ / r
    family: str       # Kendall / Spearman / Pearson
    variant: str      # τ-b / ρ / r: the symbol with Kendall's tie correction named
    ascii: str        # tau-b / rho / r: the variant in plain ASCII
    p_col: str        # p / rho_p / r_p
    ci_prefix: str    # ci / rho_ci / r_ci

    @property
    def ci_low(self) -> str:
        return f"{self.ci_prefix}_low"

    @property
    def ci_high(self) -> str:
        return f"{self.ci_prefix}_high"

    @property
    def abs_col(self) -> str:
        return f"abs_{self.short}"

    @property
    def name(self) -> str:
        """``Kendall τ-b``: a table's or a chart's label."""
        return f"{self.family} {self.variant}"

    @property
    def symbol_words(self) -> str:
        """``Kendall's τ``: the statistic in a sentence, by its symbol alone."""
        return f"{self.family}'s {self.symbol}"

    @property
    def words(self) -> str:
        """``Kendall's τ-b``: the statistic in a sentence."""
        return f"{self.family}'s {self.variant}"

    @property
    def ascii_words(self) -> str:
        """``Kendall's tau-b``: the statistic in a sentence, ASCII only (paper text)."""
        return f"{self.family}'s {self.ascii}"


STATISTICS: tuple[Statistic, ...] = (
    Statistic("kendall", "tau", "τ", "Kendall", "τ-b", "tau-b", "p", "ci"),
    Statistic("spearman", "rho", "ρ", "Spearman", "ρ", "rho", "rho_p", "rho_ci"),
    Statistic("pearson", "r", "r", "Pearson", "r", "r", "r_p", "r_ci"),
)
BY_NAME: dict[str, Statistic] = {**{s.key: s for s in STATISTICS}, **{s.short: s for s in STATISTICS}}
#: Statistic keys in output order.
KEYS: tuple[str, ...] = tuple(s.key for s in STATISTICS)
#: short name -> key (tau -> kendall), the CLI's choices.
SHORT_TO_KEY: dict[str, str] = {s.short: s.key for s in STATISTICS}
#: Each statistic's estimate and p-value columns, in output order: tau, p, rho, rho_p, r, r_p.
ESTIMATE_P_COLUMNS: tuple[str, ...] = tuple(c for s in STATISTICS for c in (s.short, s.p_col))

#: The score-like metrics (0-1, higher is better): the reliability views' metrics.
SCORE_LIKE_METRICS: tuple[str, ...] = ("green", "green_f1", "formula", "vert", "rubric", "bleu4", "rouge_l",
                                       "radfact")


def statistic(name: str) -> Statistic:
    """The record for any name of a statistic (``kendall`` or ``tau``); ValueError otherwise."""
    if name not in BY_NAME:
        raise ValueError(f"unknown statistic {name!r}; valid: tau, rho, r (or kendall, spearman, pearson)")
    return BY_NAME[name]


def table(field: str) -> dict[str, object]:
    """key -> one field of every record, e.g. ``table("symbol") == {"kendall": "τ", ...}``."""
    return {s.key: getattr(s, field) for s in STATISTICS}
