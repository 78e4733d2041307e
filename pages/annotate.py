"""Annotate: clinicians rate pairs in the browser; their ratings become expert annotations.

Three sections, one shown at a time. **Rate**: a rater (signed-in identity when
Streamlit's OIDC login is configured, else a typed name or initials) works through a queue one pair
at a time - reference and candidate side by side, an overall 0-5 score and/or
error counts per category a-f (significant / insignificant), a note - and each
Save is written at once (``core.reads.ratings.save_rating``: one short transaction,
mirrored into ``annotations`` as ``rater:<name>``). Blinded by default: no
judge outputs and no other raters' ratings unless the researcher unblinds the
queue; the pair's patient context (age, sex, indication, comparison/history), when stored, is shown
above the reports, as a radiologist reads it. **Queues**: a researcher makes a queue (filters, a
seeded sample, or the pairs the judges disagree on most). **Agreement**: Kendall tau and
Krippendorff's alpha between raters, the disagreement list, adjudication.

Who sees what is :func:`core.access.allowed`'s answer for the visitor's role, applied by the reads
and writes of ``core.reads.ratings`` themselves: a viewer of a team deployment sees no other
rater's rating given in a blinded queue (nor its agreement, disagreements or CSVs), and neither
adjudicates nor reads adjudications, nor makes, blinds or unblinds queues.

Keyboard: Tab / Shift+Tab move between fields, Enter in any field saves the
form (``st.form``). URL: ``dataset`` (app.py), ``view``, ``queue``, ``rater``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.access import (
    ADJUDICATE,
    MANAGE_QUEUES,
    READ_BLINDED_RATINGS,
    NotAllowed,
    allowed,
    researcher_contacts,
    sign_in_configured,
)
from core.reads import ratings
from core.reads.queries import CATEGORY_NAMES
from core.store.db import Store
from ui.access import current_role, secrets, signed_in_identity
from ui.context import show_context
from ui.shared import (
    cached,
    download_csv,
    escape_md,
    load_facets,
    load_pair,
    page_start,
    set_url,
    show_table,
    url_value,
)

METHOD_LABELS = {"sample": "Seeded random sample", "filters": "All pairs matching the filters",
                 "disagree": "Pairs where the judges disagree most"}
SCHEME_LABELS = {"both": "Overall score and error counts", "score": "Overall 0-5 score only",
                 "counts": "Error counts only"}
VIEWS = {"rate": "Rate", "queues": "Queues", "agreement": "Agreement"}
FLASH_KEY = "ann_flash"
RATER_KEY = "ann_rater_name"  # the typed name, kept while the Rate section (and its widget) is not shown  # the message shown after a save / skip


# -- cached reads (keyed on the store's data version) ------------------------------


@cached(max_entries=32)
def _queues(store: Store, dataset: str) -> pd.DataFrame:
    return ratings.list_queues(store, dataset)


@cached(max_entries=64)
def _status(store: Store, queue_id: str, rater: str) -> pd.DataFrame:
    return ratings.rater_status(store, queue_id, rater)


@cached(max_entries=64)
def _history(store: Store, pair_id: str, role: str | None, reader: str) -> pd.DataFrame:
    return ratings.history(store, pair_id, role=role, reader=reader)


@cached(max_entries=32)
def _progress(store: Store, queue_id: str) -> pd.DataFrame:
    return ratings.progress(store, queue_id)


@cached(max_entries=32)
def _agreement(store: Store, dataset: str, queue_id: str | None, role: str | None):
    summary, pairwise = ratings.agreement(store, dataset, queue_id, role=role)
    return (summary, pairwise, ratings.disagreements(store, dataset, queue_id, role=role),
            ratings.adjudicated_values(store, dataset, role=role))


# -- who is rating -------------------------------------------------------------------


def _current_rater() -> str | None:
    """Who is acting (ratings, adjudications, queue records).

    With sign-in configured, only the signed-in identity: never a typed name or the URL's ``rater``
    (anyone can edit a URL), so a visitor who is not signed in cannot write at all. Without sign-in,
    the name typed under Rate (or carried in the URL).
    """
    if _login_configured():
        return signed_in_identity()
    return st.session_state.get(RATER_KEY) or url_value("rater") or None


SIGN_IN_TO_WRITE = "Sign in with your organisation's account first: with sign-in configured, only signed-in users write."


def _login_configured() -> bool:
    """Whether Streamlit's OIDC login is set up (an ``[auth]`` section in .streamlit/secrets.toml)."""
    return sign_in_configured(secrets())


def _rater() -> str | None:
    signed_in = signed_in_identity() if _login_configured() else None
    if signed_in:
        st.caption(f"Rating as **{escape_md(signed_in)}** (signed in).")
        return signed_in
    if _login_configured():
        st.info("Sign in with your organisation's account to rate; your ratings carry that identity.",
                icon=":material/login:")
        if st.button("Sign in", key="ann_login", type="primary"):
            st.login()
        return None
    if "ann_rater" not in st.session_state:  # the widget's state is dropped while another section shows
        st.session_state["ann_rater"] = st.session_state.get(RATER_KEY) or url_value("rater", "")
    name = st.text_input("Your name or initials", key="ann_rater", max_chars=64,
                         help="Recorded with every rating (no password is stored). Ask the researcher "
                              "to put the dashboard behind your organisation's sign-in (docs/ANNOTATE.md).")
    name = name.strip()
    st.session_state[RATER_KEY] = name
    set_url("rater", name or None)
    if not name:
        return None
    try:
        return ratings.clean_rater(name)
    except ValueError as exc:
        st.error(escape_md(exc))
        return None


# -- the Rate tab ----------------------------------------------------------------------


def _pick_queue(queues: pd.DataFrame, key: str, *, allow_all: bool = False) -> str | None:
    # "all ratings" is a string, not None: a selectbox whose value is None shows an empty box
    options = ([ALL_RATINGS] if allow_all else []) + queues["queue_id"].tolist()
    labels = {r.queue_id: f"{r.name} · {r.n_pairs} pairs · {METHOD_LABELS[r.method].lower()}"
              for r in queues.itertuples()} | {ALL_RATINGS: "all ratings on this dataset"}
    if key not in st.session_state or st.session_state[key] not in options:
        wanted = url_value("queue")
        st.session_state[key] = wanted if wanted in options else options[0]
    choice = st.selectbox("Queue" if not allow_all else "Ratings of", options, key=key, format_func=labels.get)
    return None if choice == ALL_RATINGS else choice


ALL_RATINGS = "__all__"


def _previous(history: pd.DataFrame, rater: str) -> pd.Series | None:
    mine = history[(history["rater"] == rater) & ~history["skipped"]]
    return None if mine.empty else mine.sort_values("revision").iloc[-1]


def _count_inputs(prefill: pd.Series | None, key: str) -> dict[str, int | None]:
    values: dict[str, int | None] = {}
    head = st.columns([3, 1, 1])
    head[1].caption("significant")
    head[2].caption("insignificant")
    for cat, label in CATEGORY_NAMES.items():
        row = st.columns([3, 1, 1], vertical_alignment="center")
        row[0].markdown(f"({cat}) {label}")
        for col, sig in ((row[1], "sig"), (row[2], "insig")):
            field = f"{sig}_{cat}"
            old = None if prefill is None or pd.isna(prefill[field]) else int(prefill[field])
            values[field] = col.number_input(f"{field}", min_value=0, max_value=99, step=1, value=old,
                                             key=f"{key}_{field}", label_visibility="collapsed",
                                             placeholder="0")
    return values


def _rating_form(store: Store, queue: pd.Series, pair: dict, rater: str, history: pd.DataFrame) -> None:
    prefill = _previous(history, rater)
    revision = int(history[history["rater"] == rater]["revision"].max()) if (history["rater"] == rater).any() else 0
    key = f"ann_{pair['pair_id']}_{revision}"
    with st.form(key, border=True):
        score = None
        if queue["scheme"] in ("score", "both"):
            old = None if prefill is None or pd.isna(prefill["score"]) else float(prefill["score"])
            score = st.number_input("Overall score (0 = unacceptable ... 5 = as good as the reference)",
                                    min_value=0.0, max_value=5.0, step=1.0, value=old, key=f"{key}_score",
                                    placeholder="0-5", format="%g")
        counts: dict[str, int | None] = {}
        if queue["scheme"] in ("counts", "both"):
            st.markdown("**Errors in the candidate, by category** (blank counts as 0"
                        + (" once any count is entered" if queue["scheme"] == "both" else "") + ")")
            counts = _count_inputs(prefill, key)
        old_note = "" if prefill is None or pd.isna(prefill["note"]) else str(prefill["note"])
        note = st.text_input("Note (optional)", value=old_note, key=f"{key}_note", max_chars=2000)
        left, right = st.columns(2)
        saved = left.form_submit_button("Save and next (Enter)", type="primary", width="stretch")
        skipped = right.form_submit_button("Skip for now", width="stretch")
    if not (saved or skipped):
        return
    given = {k: v for k, v in counts.items() if v is not None}
    count_arg = None
    if queue["scheme"] == "counts" or given:
        count_arg = {k: int(given.get(k, 0)) for k in ratings.COUNT_FIELDS}
    try:
        number = ratings.save_rating(store, pair["pair_id"], rater, score=score, counts=count_arg, note=note,
                                     queue_id=queue["queue_id"], skipped=bool(skipped and not saved))
    except ValueError as exc:
        st.error(escape_md(exc))
        return
    verb = "Skipped" if skipped and not saved else "Saved"
    st.session_state[FLASH_KEY] = f"{verb} pair {pair['ext_id']} (revision {number})."
    st.session_state.pop(_pos_key(queue["queue_id"], rater), None)  # go to the next pair to rate
    st.rerun()


def _pos_key(queue_id: str, rater: str) -> str:
    return f"ann_pos::{queue_id}::{rater}"


def _unblinded_panel(store: Store, pair_id: str, rater: str, history: pd.DataFrame) -> None:
    with st.expander("Unblinded: judges and other raters on this pair"):
        others = history[history["rater"] != rater]
        if others.empty:
            st.caption("No other rater has rated this pair.")
        else:
            show_table(others[["rater", "revision", "score", "sig_a", "sig_b", "sig_c", "sig_d", "sig_e", "sig_f",
                                 "note", "created_at"]], hide_index=True)
        judged = ratings.pair_judge_values(store, pair_id)
        if judged.empty:
            st.caption("No judge has scored this pair.")
        else:
            show_table(judged, hide_index=True)


def _no_queue_screen(dataset: str) -> None:
    """A clinician's first screen before any queue exists: what rating is, what to do now and whom to ask
    (the researchers of the team's settings, when configured); a researcher is sent to Queues."""
    if allowed(current_role(), MANAGE_QUEUES):
        st.info(f"**No rating queue on {escape_md(dataset)} yet.** Make one under **Queues** above (a seeded "
                "sample, filtered pairs, or the pairs the judges disagree on most); clinicians then find it "
                "here.", icon=":material/playlist_add:")
        return
    contacts = researcher_contacts(secrets())
    ask = (f"Ask {', '.join(escape_md(c) for c in contacts)} (the researchers of this dashboard)" if contacts
           else "Ask the researcher who sent you this link")
    st.info(f"**Nothing to rate on {escape_md(dataset)} yet.** You will rate pairs of reports here: a reference "
            "report and a candidate report for the same study, side by side; you give an overall score from 0 "
            "to 5 and/or count the candidate's errors by category, then **Save**, one pair at a time.\n\n"
            f"**What to do now:** {ask} to create a rating queue for you on this dataset. Once they have, "
            "open this page again: your first pair appears here.", icon=":material/inbox:")


def _rate_tab(store: Store, dataset: str, queues: pd.DataFrame) -> None:
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    if queues.empty:  # the first screen: nothing to rate, so no name to type yet
        _no_queue_screen(dataset)
        return
    rater = _rater()
    queue_id = _pick_queue(queues, "ann_queue")
    set_url("queue", queue_id)
    queue = queues.set_index("queue_id").loc[queue_id]
    queue["queue_id"] = queue_id
    if rater is None:
        st.info("Type your name or initials above to start rating.", icon=":material/badge:")
        return
    status = _status(store, queue_id, rater)
    n, done = len(status), int((status["status"] == "rated").sum())
    skipped = int((status["status"] == "skipped").sum())
    st.progress(done / n if n else 0.0, text=f"{done} of {n} pairs rated by {escape_md(rater)}"
                + (f" · {skipped} skipped (they come back at the end)" if skipped else ""))
    pos_key = _pos_key(queue_id, rater)
    if pos_key not in st.session_state:
        nxt = ratings.next_pair(store, queue_id, rater)
        if nxt is None:
            st.success("You have rated every pair of this queue. Thank you! Use **Back** to revise a rating.",
                       icon=":material/task_alt:")
            st.session_state[pos_key] = n - 1
        else:
            st.session_state[pos_key] = int(status.loc[status["pair_id"] == nxt, "position"].iloc[0])
    pos = int(st.session_state[pos_key])
    nav = st.columns([1, 1, 4])
    if nav[0].button("Back", disabled=pos <= 0, key="ann_back", icon=":material/arrow_back:"):
        st.session_state[pos_key] = pos - 1
        st.rerun()
    if nav[1].button("Forward", disabled=pos >= n - 1, key="ann_forward", icon=":material/arrow_forward:"):
        st.session_state[pos_key] = pos + 1
        st.rerun()
    pair = load_pair(store, str(status.iloc[pos]["pair_id"]))
    if pair is None:
        st.warning("This pair is no longer in the store (its dataset was deleted).")
        return
    nav[2].markdown(f"Pair **{pos + 1}** of {n} · {escape_md(pair['ext_id'])} · "
                    f"{status.iloc[pos]['status']}")
    show_context(pair["context"])  # the patient as the referrer described it (never a judge's output)
    left, right = st.columns(2)
    with left:
        st.markdown("**Reference report**")
        st.text(pair["reference"])
    with right:
        st.markdown("**Candidate report**")
        st.text(pair["candidate"])
    history = _history(store, pair["pair_id"], role, rater)
    mine = history[history["rater"] == rater]
    _rating_form(store, queue, pair, rater, history)
    if len(mine):
        with st.expander(f"Your history on this pair ({len(mine)} revision{'s' if len(mine) != 1 else ''}; "
                         "saving again adds a revision, nothing is overwritten)"):
            cols = ["revision", "created_at", "skipped", "score", *ratings.COUNT_FIELDS, "note"]
            show_table(mine[cols], hide_index=True)
            if (mine["content_hash"] != pair["content_hash"]).any():
                st.warning("The pair's text changed since an earlier revision.")
    if not bool(queue["blinded"]):
        _unblinded_panel(store, pair["pair_id"], rater, history)


# -- the Queues tab ------------------------------------------------------------------------


def _queues_tab(store: Store, dataset: str, queues: pd.DataFrame, synthetic: bool) -> None:
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    researcher = allowed(role, MANAGE_QUEUES)
    if not researcher:
        st.caption("Queues are created and managed by the researchers who run this dashboard.")
    if researcher:
        _new_queue_form(store, dataset)
    if queues.empty:
        st.caption("No queues yet.")
        return
    shown = queues[["queue_id", "name", "method", "scheme", "blinded", "n_pairs", "params", "created_by",
                    "created_at"]]
    show_table(shown, hide_index=True)
    download_csv(shown, dataset, synthetic, "rating-queues", key="ann_dl_queues")
    queue_id = _pick_queue(queues, "ann_manage_queue")
    row = queues.set_index("queue_id").loc[queue_id]
    blind = st.toggle("Blinded", value=bool(row["blinded"]), key=f"ann_blind_{queue_id}", disabled=not researcher,
                      help="Unblinding shows raters the judges' values and the other raters' ratings.")
    if researcher and blind != bool(row["blinded"]):
        ratings.set_blinded(store, queue_id, blind, role=role)
        st.rerun()
    prog = _progress(store, queue_id)
    if prog.empty:
        st.caption("Nobody has rated this queue yet.")
    else:
        show_table(prog, hide_index=True)
        download_csv(prog, dataset, synthetic, "rating-progress", key="ann_dl_progress")


def _new_queue_form(store: Store, dataset: str) -> None:
    facets = load_facets(store, dataset)
    with st.form("ann_new_queue", enter_to_submit=False):  # Enter in a field must not create a queue
        st.markdown("**New rating queue**")
        name = st.text_input("Name", key="ann_q_name", placeholder="e.g. pilot round 1")
        method = st.radio("Pairs", list(METHOD_LABELS), format_func=METHOD_LABELS.get, key="ann_q_method",
                          horizontal=True)
        cols = st.columns(4)
        filters = {f: cols[i].multiselect(f.capitalize(), facets.get(f, []), key=f"ann_q_{f}")
                   for i, f in enumerate(("modality", "anatomy", "system", "split"))}
        c1, c2, c3 = st.columns(3)
        n = c1.number_input("Number of pairs", min_value=1, max_value=100_000, value=50, step=1, key="ann_q_n",
                            help="The sample size; for 'all pairs matching', the first n by id.")
        seed = c2.number_input("Seed", min_value=0, value=0, step=1, key="ann_q_seed",
                               help="Recorded with the queue: the same seed gives the same sample.")
        scheme = c3.selectbox("Raters give", list(SCHEME_LABELS), format_func=SCHEME_LABELS.get,
                              key="ann_q_scheme")
        blinded = st.checkbox("Blinded (raters see no judge outputs and no other raters' ratings)", value=True,
                              key="ann_q_blinded")
        st.caption("'Judges disagree most': each judge run's headline metric is rank-normalised over the "
                   "dataset (0 = its worst pair, 1 = its best); a pair's disagreement is the largest minus "
                   "the smallest of these across runs. Needs two judge runs.")
        made = st.form_submit_button("Create queue", type="primary")
    if made and _login_configured() and _current_rater() is None:
        st.error(SIGN_IN_TO_WRITE)
    elif made:
        try:
            queue_id = ratings.create_queue(store, dataset, name, method, filters=filters, n=int(n),
                                            seed=int(seed), scheme=scheme, blinded=blinded,
                                            created_by=_current_rater(), role=current_role())
        except (ValueError, NotAllowed) as exc:
            st.error(escape_md(exc))
        else:
            st.session_state["ann_queue"] = queue_id
            st.session_state[FLASH_KEY] = f"Queue '{name.strip()}' created; raters find it under Rate."
            st.rerun()


# -- the Agreement tab ---------------------------------------------------------------------


def _agreement_tab(store: Store, dataset: str, queues: pd.DataFrame, synthetic: bool) -> None:
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    queue_id = _pick_queue(queues, "ann_agree_queue", allow_all=True) if not queues.empty else None
    blinded = queue_id is not None and bool(queues.set_index("queue_id").loc[queue_id, "blinded"])
    if blinded and not allowed(role, READ_BLINDED_RATINGS):
        st.info("This queue is blinded: its raters' ratings, their agreement and the disagreements are for the "
                "researchers who run this dashboard.", icon=":material/visibility_off:")
        return
    summary, pairwise, disagree, adjudicated = _agreement(store, dataset, queue_id, role)
    if not allowed(role, READ_BLINDED_RATINGS):
        st.caption("Ratings given in a blinded queue are left out: researchers see them.")
    if summary.empty:
        st.info("Agreement needs two raters on the same pairs. Ask a second rater to work through the same "
                "queue under **Rate**.", icon=":material/group:")
        return
    st.markdown("**Krippendorff's alpha and mean Kendall tau-b between raters**")
    st.caption("n_units: pairs rated by two or more raters. alpha is ordinal for the 0-5 score and ratio for "
               "error counts; NaN when the ratings do not vary.")
    show_table(summary, hide_index=True)
    download_csv(summary, dataset, synthetic, "rater-agreement", key="ann_dl_summary")
    st.markdown("**Pairwise Kendall tau-b** (n: pairs both raters rated)")
    show_table(pairwise, hide_index=True)
    download_csv(pairwise, dataset, synthetic, "rater-pairwise", key="ann_dl_pairwise")
    st.markdown(f"**Disagreements** ({len(disagree)}: score differs by 2 or more points, a count by 1 or more)")
    if disagree.empty:
        st.caption("The raters agree on every pair within these margins.")
    else:
        show_table(disagree.drop(columns=["pair_id"]), hide_index=True)
        download_csv(disagree, dataset, synthetic, "rater-disagreements", key="ann_dl_disagree")
        if allowed(role, ADJUDICATE):
            _adjudication_form(store, disagree)
    if not adjudicated.empty:
        st.markdown("**Adjudicated values**")
        show_table(adjudicated.drop(columns=["pair_id"]), hide_index=True)
        download_csv(adjudicated, dataset, synthetic, "adjudications", key="ann_dl_adjudicated")


def _adjudication_form(store: Store, disagree: pd.DataFrame) -> None:
    role = current_role()  # what the visitor may read and write (core.access.allowed)
    options = list(range(len(disagree)))
    with st.form("ann_adjudicate", enter_to_submit=False):
        st.markdown("**Record an adjudicated value**")
        row_i = st.selectbox("Disagreement", options, key="ann_adj_row",
                             format_func=lambda i: f"{disagree.iloc[i]['ext_id']} · {disagree.iloc[i]['field']} · "
                                                   f"{disagree.iloc[i]['values']}")
        value = st.number_input("Adjudicated value", min_value=0.0, max_value=99.0, step=1.0, key="ann_adj_value",
                                format="%g")
        note = st.text_input("Note", key="ann_adj_note")
        done = st.form_submit_button("Save adjudication")
    if done and _login_configured() and _current_rater() is None:
        st.error(SIGN_IN_TO_WRITE)
    elif done:
        who = _current_rater() or ""
        row = disagree.iloc[int(row_i)]
        try:
            ratings.adjudicate(store, row["pair_id"], row["field"], value, who, note=note, role=role)
        except NotAllowed as exc:
            st.error(escape_md(exc))
        except ValueError as exc:
            st.error(escape_md(exc) + (" (type your name under Rate first)" if not who else ""))
        else:
            st.session_state[FLASH_KEY] = f"Adjudicated {row['field']} of {row['ext_id']}."
            st.rerun()


# -- the page ------------------------------------------------------------------------------

def main() -> None:
    store, dataset, synthetic = page_start(
        "Annotate", boxed=True, icon=":material/inbox:",
        empty="Import or build a dataset first (Data page); then researchers make a rating queue here.",
        intro="Clinicians rate pairs here; each save becomes an expert annotation (`rater:<name>`) that every "
              "page can use as the target (\"clinician ratings (this study)\").")
    queues = _queues(store, dataset)
    flash = st.session_state.pop(FLASH_KEY, None)
    if flash:
        st.success(escape_md(flash), icon=":material/check:")
    # One section at a time (not st.tabs, which runs every tab): a save on Rate does not recompute agreement.
    if st.session_state.get("ann_view") not in VIEWS:
        st.session_state["ann_view"] = url_value("view", "rate") if url_value("view") in VIEWS else "rate"
    section = st.radio("Section", list(VIEWS), format_func=VIEWS.get, key="ann_view", horizontal=True,
                       label_visibility="collapsed")
    set_url("view", None if section == "rate" else section)
    if section == "rate":
        _rate_tab(store, dataset, queues)
    elif section == "queues":
        _queues_tab(store, dataset, queues, synthetic)
    else:
        _agreement_tab(store, dataset, queues, synthetic)


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
