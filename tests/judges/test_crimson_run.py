"""A CRIMSON judge over the demo through the CLI, against a loopback OpenAI-compatible server answering
CRIMSON JSON: every answer shape's score equals its hand computation, malformed answers are parse failures
with their reason, the server receives each pair's patient context (or none), and the error-type,
calibration and correlation readers work on the run."""

from __future__ import annotations

import json
import re

import pytest

from core.analysis.calibration import count_calibration
from core.cli.main import main
from core.judges.runs import load_pairs
from core.prompts import CRIMSON_CONTEXT_LABELS
from core.reads.context import context_dict
from core.reads.frames import expert_counts, judge_counts
from core.taxonomy import CONTEXT_FIELDS
from tests.fake_openai import FakeOpenAI

MODEL = "openai/x"
N = 16


def F(fid, level, text=""):
    return {"id": fid, "finding": text or f"finding {fid}", "clinical_significance": level}


def evaluation(refs=(), preds=(), matched=(), false=(), missing=(), attrs=()):
    return {"reference_findings": list(refs), "predicted_findings": list(preds),
            "matched_findings": [{"ref_id": r, "pred_id": p} for r, p in matched],
            "errors": {"false_findings": list(false), "missing_findings": list(missing), "attribute_errors": list(attrs)}}


PARTIAL = evaluation(
    [F("R1", "actionable_not_urgent"), F("R2", "urgent"), F("R3", "not_actionable_not_urgent")],
    [F("P1", "actionable_not_urgent"), F("P2", "actionable_not_urgent"), F("P3", "urgent")],
    [("R1", "P1"), ("R1", "P2"), ("R2", "P3")], missing=["R3"],
    attrs=[{"ref_id": "R1", "pred_id": "P1", "severity": "significant", "error_types": ["location"]},
           {"ref_id": "R1", "pred_id": "P2", "severity": "significant", "error_types": ["severity", "temporal"]},
           {"ref_id": "R2", "pred_id": "P3", "severity": "negligible", "error_types": ["descriptor"]}])

# shape -> (answer text, expected crimson or None for a failure, sig a-f, insig a-f, reason of a failure)
SHAPES = {
    # every finding matched, nothing wrong: S = 1.5 / 1.5
    "perfect": (json.dumps(evaluation([F("R1", "urgent"), F("R2", "actionable_not_urgent")],
                                      [F("P1", "urgent"), F("P2", "actionable_not_urgent")],
                                      [("R1", "P1"), ("R2", "P2")])), 1.0, "000000", "000000", None),
    # N_G = 1.75; R1 0.5 * 0.5 / 1.5 = 1/6, R2 1; S = (7/6) / 1.75 = 0.6667; missed R3 (not actionable) insig b;
    # attribute errors: location c, severity d + temporal e (significant), descriptor d (negligible)
    "partial": (json.dumps(PARTIAL), 0.6667, "001110", "010100", None),
    # no reference finding, an urgent false finding: S = -(1 + 0 + 1); x = 1 -> -1/2
    "no_reference": (json.dumps(evaluation(preds=[F("P1", "urgent")], false=["P1"])), -0.5, "100000", "000000",
                     None),
    # N_G = 0.5, two urgent false findings, R1 missed: S = -2 / 0.5 < 0; x = 2 -> -2/3
    "negative": (json.dumps(evaluation([F("R1", "actionable_not_urgent")], [F("P1", "urgent"), F("P2", "urgent")],
                                       missing=["R1"], false=["P1", "P2"])), -0.6667, "210000", "000000", None),
    # the partial answer in a code fence with trailing commas and a sentence before it: the same numbers
    "fenced": ("Here is the evaluation.\n```json\n" + json.dumps(PARTIAL, indent=1).replace("]", ",]") + "\n```",
               0.6667, "001110", "010100", None),
    "truncated": (json.dumps(PARTIAL)[:300], None, None, None, "cut off"),
    "prose": ("Both reports describe the same findings; I see no errors.", None, None, None, "no JSON object"),
    "bad_ids": (json.dumps(evaluation([F("R1", "urgent")], [F("P1", "urgent")], false=[{"id": "P1"}])), None, None,
                None, "false_findings item 1 must be a finding id"),
}
NAMES = list(SHAPES)
_REPORTS = re.compile(r"Reference Findings \(Ground Truth\):\n(.*?)\n\nPredicted Findings \(Candidate\):\n(.*?)"
                      r"\n\nTask:\n", re.S)


def _reports(messages):
    user = next(m["content"] for m in messages if m["role"] == "user")
    m = _REPORTS.search(user)
    return (m.group(1), m.group(2)) if m else None, user


@pytest.fixture
def crimson_demo(demo_store_copy):
    """The demo's first N pairs, one answer shape each (by position), and a third of them without context."""
    store = demo_store_copy
    pairs = load_pairs(store, "demo", limit=N)
    blank = list(pairs["pair_id"][::3])
    store.execute(f"UPDATE pairs SET {', '.join(f'{f} = NULL' for f in CONTEXT_FIELDS)} "
                  "WHERE pair_id IN (SELECT unnest(?::VARCHAR[]))", [blank])
    pairs = load_pairs(store, "demo", limit=N)
    shape_of = {}
    for i, row in enumerate(pairs.itertuples(index=False)):
        shape_of.setdefault((row.reference, row.candidate), NAMES[i % len(NAMES)])
    return store, pairs, shape_of


def _answer(shape_of):
    def answer(messages):
        key, _ = _reports(messages)
        return SHAPES[shape_of[key]][0] if key in shape_of else None
    return answer


def test_crimson_judge_over_the_demo_with_context(crimson_demo, capsys):
    store, pairs, shape_of = crimson_demo
    base = ["--store", str(store.path)]
    with FakeOpenAI(answer=_answer(shape_of)) as server:
        code = main(base + ["judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson", "--limit", str(N),
                            "--api-base", server.url, "--json", "--allow-failures"])
        out = json.loads(capsys.readouterr().out)
        received = list(server.seen_messages)
    assert code == 0 and out["ok"] == N and out["failed"] == 0
    shapes = {r.pair_id: shape_of[(r.reference, r.candidate)] for r in pairs.itertuples(index=False)}
    n_bad = sum(1 for s in shapes.values() if SHAPES[s][1] is None)
    assert n_bad and out["unparsed_total"] == n_bad  # malformed answers are counted as parse failures

    # what the server received: upstream's system message, and each pair's context exactly when it has one
    by_reports = {}
    for messages in received:
        key, user = _reports(messages)
        assert messages[0] == {"role": "system", "content": "You are an expert radiology evaluator that assesses "
                                                            "the accuracy of radiology reports."}
        by_reports[key] = user
    with_context = 0
    for row in pairs.itertuples(index=False):
        user, ctx = by_reports[(row.reference, row.candidate)], context_dict(row)
        if ctx:
            with_context += 1
            block = "Patient Context:\n" + "".join(f"    {CRIMSON_CONTEXT_LABELS[k]}: {v}\n" for k, v in ctx.items())
            assert block + "\n\nReference Findings" in user and "Context guidelines:" in user
        else:
            assert "Patient Context" not in user and "Context guidelines:" not in user
    assert 0 < with_context < N

    run_id = out["run_id"]
    rows = store.query_df("SELECT pair_id, parse_status, parse_reason, raw_text FROM judge_outputs WHERE run_id = ?",
                          [run_id]).set_index("pair_id")
    values = store.query_df("SELECT pair_id, metric, value FROM metric_values WHERE run_id = ?", [run_id])
    errors = store.query_df("SELECT pair_id, category, significant FROM judge_errors WHERE run_id = ?", [run_id])
    for pid, shape in shapes.items():
        text, score, sig, insig, reason = SHAPES[shape]
        mine = values[values["pair_id"] == pid].set_index("metric")["value"]
        assert rows.loc[pid, "raw_text"] == text  # the raw answer is stored as received
        if score is None:
            assert rows.loc[pid, "parse_status"] == "failed" and reason in rows.loc[pid, "parse_reason"]
            assert mine.empty and not (errors["pair_id"] == pid).any()  # never zeros
            continue
        assert rows.loc[pid, "parse_status"] == "ok"
        assert mine["crimson"] == score, (shape, mine["crimson"])
        assert [int(mine[f"sig_{c}"]) for c in "abcdef"] == [int(d) for d in sig], shape
        assert [int(mine[f"insig_{c}"]) for c in "abcdef"] == [int(d) for d in insig], shape
        assert (errors["pair_id"] == pid).sum() == sum(int(d) for d in sig + insig)

    # the Error types and Calibration pages' readers see the run's categories
    counts = judge_counts(store, "demo", [run_id])
    assert set(counts["category"]) == set("abcdef") and counts["pair_id"].nunique() == N - n_bad
    calib = count_calibration(counts, expert_counts(store, "demo"), significant=None, bins=None, n_boot=0)
    assert not calib.empty and (calib["n"] > 0).any()

    # correlate: CRIMSON's score with its built-in orientation (higher is better), never an assumed one
    assert main(base + ["correlate", "--dataset", "demo", "--json", "--n-boot", "0"]) == 0
    table = json.loads(capsys.readouterr().out)
    table = table["rows"] if isinstance(table, dict) else table
    row = next(r for r in table if r["metric"] == "crimson")
    assert row["n"] == N - n_bad and row["expected_sign"] == 1 and not row["orientation_assumed"]


def test_a_category_map_is_its_own_run_and_cached_answers_are_read_again(crimson_demo, capsys):
    store, pairs, shape_of = crimson_demo
    base = ["--store", str(store.path)]
    with FakeOpenAI(answer=_answer(shape_of)) as server:
        url = ["--api-base", server.url, "--json", "--allow-failures", "--limit", str(N)]
        assert main(base + ["judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson", *url]) == 0
        first = json.loads(capsys.readouterr().out)
        sent = server.requests
        assert main(base + ["judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson", *url,
                            "--crimson-map", "temporal=f,severity=none"]) == 0
        second = json.loads(capsys.readouterr().out)
        assert server.requests == sent  # every answer came from the cache
        assert main(base + ["judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "green", *url,
                            "--crimson-map", "temporal=f"]) == 1
        assert "CRIMSON prompts only" in capsys.readouterr().err
    assert second["run_id"] != first["run_id"] and second["cached"] == N
    params = json.loads(store.query_one("SELECT params FROM judge_runs WHERE run_id = ?", [second["run_id"]]))
    assert "temporal=f" in params["crimson_map"] and "severity=none" in params["crimson_map"]
    sums = {}
    for run in (first["run_id"], second["run_id"]):
        sums[run] = store.query_df("SELECT metric, sum(value) AS v FROM metric_values WHERE run_id = ? GROUP BY metric",
                                   [run]).set_index("metric")["v"]
    a, b = sums[first["run_id"]], sums[second["run_id"]]
    n_partial = sum(1 for r in pairs.itertuples(index=False)
                    if shape_of[(r.reference, r.candidate)] in ("partial", "fenced"))
    # each partial answer: its temporal error moves from (e) to (f), its severity error leaves (d)
    assert (a["sig_e"] - b["sig_e"], b["sig_f"] - a["sig_f"], a["sig_d"] - b["sig_d"]) == (n_partial,) * 3
    assert a["crimson"] == b["crimson"]  # the score does not depend on the map


def test_score_command_passes_the_context_to_crimson_and_reads_its_answer(capsys):
    """`python -m core score` (Live scoring's twin): the context reaches CRIMSON's prompt; the rules judge takes the
    same flags and gives the same answer as without them."""
    reference, candidate = "Left pneumothorax. Right effusion.", "Right pneumothorax. Atelectasis."
    partial = SHAPES["partial"][0]
    with FakeOpenAI(answer=lambda messages: partial) as server:
        args = ["score", "--reference", reference, "--candidate", candidate, "--json", "--api-base", server.url]
        assert main([*args, "--judge", MODEL, "--prompt", "crimson", "--age", "82", "--indication", "pre-op"]) == 0
        out = json.loads(capsys.readouterr().out)
        user = server.seen_messages[-1][1]["content"]
        assert main([*args, "--judge", MODEL, "--prompt", "crimson_nocontext", "--age", "82"]) == 0
        capsys.readouterr()
        assert "Patient Context" not in server.seen_messages[-1][1]["content"]
    assert "Patient Context:\n    Age: 82\n    Indication: pre-op\n\n\nReference Findings (Ground Truth):\n" + reference in user
    assert out["scored"] and out["parse_status"] == "ok" and out["prompt"] == "crimson"
    assert list(out["metrics"])[0] == "crimson" and out["metrics"]["crimson"] == 0.6667  # the partial answer's
    assert out["sig"] == {"a": 0, "b": 0, "c": 1, "d": 1, "e": 1, "f": 0}
    rules = ["score", "--reference", reference, "--candidate", candidate, "--judge", "rules", "--json"]
    assert main(rules) in (0, 1)
    plain = json.loads(capsys.readouterr().out)
    assert main([*rules, "--age", "82", "--sex", "F", "--history", "CT 2020"]) in (0, 1)
    with_context = json.loads(capsys.readouterr().out)
    plain.pop("latency_ms"), with_context.pop("latency_ms")
    assert with_context == plain


def test_error_types_and_calibration_pages_show_a_crimson_run(crimson_demo, app_test, capsys):
    from core.analysis.errortypes import f1_per_category
    from tests.apptest_helpers import open_page, tables

    store, pairs, shape_of = crimson_demo
    with FakeOpenAI(answer=_answer(shape_of)) as server:
        assert main(["--store", str(store.path), "judge", "--dataset", "demo", "--judge", MODEL, "--prompt", "crimson",
                     "--limit", str(N), "--api-base", server.url, "--json", "--allow-failures"]) == 0
    capsys.readouterr()
    label = f"{MODEL} · crimson"
    at = open_page(app_test, store, "pages/errortypes.py", {"n_boot": "0"}, via_home=True)
    table = next(t for t in tables(at, "judge", "category", "f1")).set_index(["judge", "category"])
    want = f1_per_category(judge_counts(store, "demo"), expert_counts(store, "demo"), significant=True)
    want = want.set_index(["judge", "category"])
    assert table.loc[(label, "b"), "f1"] == pytest.approx(want.loc[(label, "b"), "f1"], nan_ok=True)
    at = open_page(app_test, store, "pages/calibration.py", {"n_boot": "0", "errors": "both", "range": "0-12"},
                   via_home=True)
    assert any(label in str(v) for t in tables(at, "judge") for v in t["judge"])
