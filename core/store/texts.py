"""When two report texts count as the same: equal up to whitespace, in Python and as DuckDB SQL (the
importer stores the flag as ``pairs.identical``; readers compute it for rows written without it)."""

from __future__ import annotations

import re


def same_text(a: str, b: str) -> bool:
    """Equal once runs of whitespace are one space and the ends are stripped."""
    return re.sub(r"\s+", " ", a or "").strip() == re.sub(r"\s+", " ", b or "").strip()


# Python's whitespace (``str.isspace``, what ``re``'s ``\s`` and ``str.strip`` use), for the SQL twin
# of :func:`same_text`; tests check the list against Python's own.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
              "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_WS_CLASS = "[" + "".join(f"\\x{{{ord(c):04x}}}" for c in WHITESPACE) + "]+"


def normalised_sql(col: str) -> str:
    """SQL for ``re.sub(r"\\s+", " ", text or "").strip()``."""
    return f"trim(regexp_replace(coalesce({col}, ''), '{_WS_CLASS}', ' ', 'g'), ' ')"


def same_text_sql(reference: str, candidate: str) -> str:
    """SQL for :func:`same_text` of two text columns (the importer stores it as ``pairs.identical``)."""
    return f"({normalised_sql(reference)} = {normalised_sql(candidate)})"
