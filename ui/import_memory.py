"""What the import wizard's settings hold when a file is uploaded again (issue 43, item 7).

Every setting of the wizard (dataset kind and name, the column pickers, the annotation layout, scales)
has one key for every file. Before a widget is drawn, :func:`remember` fills its state: what the user
chose stays for the next file (when that file still offers it), and what the wizard guessed is guessed
again from the new file. A copy outlives runs without the widget (a removed upload draws none, and
Streamlit drops the state of widgets not drawn), so removing a file and uploading the fixed one keeps
the settings too.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

KEPT = "data_imp_kept"  # widget key -> its last value (survives runs that do not draw the widget)
GUESSED = "data_imp_guessed"  # widget key -> the wizard's last guess for it
_UNSET = object()


def remember(key: str, guess, options: Sequence | None = None) -> None:
    """Fill widget ``key``'s state before it is drawn (draw it with no default of its own): the user's
    choice when there is one and ``options`` (if given) still hold it, else ``guess``."""
    state = st.session_state
    kept = state.setdefault(KEPT, {})
    guessed = state.setdefault(GUESSED, {})
    current = state[key] if key in state else kept.get(key, _UNSET)
    chosen = current is not _UNSET and key in guessed and current != guessed[key]
    if chosen and (options is None or current in options):
        value = current
    else:
        value = guess
    state[key] = kept[key] = value
    guessed[key] = guess
