"""A model error as one readable line, with the raw text in an expander (Run judges, Live scoring)."""

from __future__ import annotations

import streamlit as st

from core.judges.errors import explain_error
from ui.shared import escape_md


def show_error(prefix: str, raw: str) -> None:
    """``prefix`` + the plain sentence for ``raw`` (core.judges.errors), and the raw text on request."""
    st.error(escape_md(prefix + explain_error(raw)))
    with st.expander("Error details"):
        st.code(raw, language=None, wrap_lines=True)
