"""A pair's patient context (age, sex, indication, comparison/history), as the Data and Annotate pages show it."""

from __future__ import annotations

import streamlit as st

from core.reads.context import CONTEXT_LABELS


def show_context(context: dict[str, str], *, empty: str | None = None) -> None:
    """The fields of ``context`` (``core.reads.context.context_dict``) in one bordered row above the reports;
    ``empty``: the caption shown when the pair has none (None: nothing is drawn)."""
    if not context:
        if empty:
            st.caption(empty)
        return
    with st.container(border=True):
        st.markdown("**Patient context**")
        for col, (name, value) in zip(st.columns(len(context)), context.items(), strict=True):
            with col:
                st.caption(CONTEXT_LABELS[name])
                st.text(value)  # free text from the file: shown as written, never parsed as Markdown
