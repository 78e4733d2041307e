"""The edit-review judge: the radar_review prompt through the shared runner, against a real loopback server.

The loopback server (tests/fake_openai.py) answers; this module swaps its
answer function for one that records what arrived (the images included) and
answers in the prompt's JSON. litellm itself is not touched.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tests.fake_openai as fake_openai
from core.judges import run_judge
from core.review.data import evaluation_frame
from core.review.importer import import_review
from core.review.metrics import accuracy_table
from core.review.prompt import parse_for_runs, parse_review_answer, sample_slices, template
from core.store.db import Store
from tests.fake_openai import FakeOpenAI

MODEL = "openai/fake-vlm"
PNG_HEAD = bytes.fromhex("89504e470d0a1a0a")


def _slices(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True)
    paths = []
    for i in range(n):
        p = folder / f"slice{i:03d}.png"
        p.write_bytes(PNG_HEAD + f"{folder.name}-{i}".encode())  # distinct contents per slice
        paths.append(p)
    return paths


@pytest.fixture
def review_store(tmp_path: Path) -> tuple[Store, dict[str, list[Path]]]:
    series = {"c1": _slices(tmp_path / "c1", 30), "c2": _slices(tmp_path / "c2", 5)}
    rows = []
    for case, edits in (("c1", ["Free air under the diaphragm.", "The appendix is normal, not dilated.",
                                "BADJSON edit"]),
                        ("c2", ["Clarify that the cyst is simple.", "Small hiatal hernia."])):
        for j, edit in enumerate(edits, start=1):
            rows.append({"id": f"{case}_{j}", "case": case, "preliminary": f"FINDINGS for {case}.", "edit": edit,
                         "agreement": "agree", "severity": "critical", "edit_type": "addition",
                         "subset": "synthetic" if "hernia" in edit else "natural",
                         "images": ";".join(str(p) for p in series[case])})
    f = tmp_path / "edits.csv"
    pd.DataFrame(rows).to_csv(f, index=False)
    store = Store(tmp_path / "s.duckdb")
    import_review(store, f, dataset="rv")
    return store, series


@pytest.fixture
def server(monkeypatch):
    seen: list[list[dict]] = []

    def answer(messages):
        seen.append(messages)
        content = messages[0]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        if "BADJSON" in text:
            return "I am not sure about this one."
        return ('Here is my review.\n```json\n{"agreement": "Agree", "severity": "critical", '
                '"suggested_edit_type": "addition", "explanation": "seen on {slice} images"}\n```')

    monkeypatch.setattr(fake_openai, "task_answer", answer)
    with FakeOpenAI() as srv:
        srv.seen = seen
        yield srv


def _images(messages: list[dict]) -> list[bytes]:
    parts = messages[0]["content"]
    assert isinstance(parts, list) and parts[0]["type"] == "text"
    urls = [p["image_url"]["url"] for p in parts[1:]]
    assert all(p["type"] == "image_url" for p in parts[1:])
    assert all(u.startswith("data:image/png;base64,") for u in urls)
    return [base64.b64decode(u.split(",", 1)[1]) for u in urls]


def test_the_server_receives_k_uniformly_sampled_slices_as_image_messages(review_store, server):
    store, series = review_store
    summary = run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=20, concurrency=4)
    assert (summary.status, summary.sent, summary.ok) == ("done", 5, 5)
    assert len(server.seen) == 5
    for messages in server.seen:
        text = messages[0]["content"][0]["text"]
        case = "c1" if "FINDINGS for c1" in text else "c2"
        want = [p.read_bytes() for p in sample_slices(series[case], 20)]
        got = _images(messages)
        assert got == want  # in order, first and last slice included
        assert len(got) == (20 if case == "c1" else 5)  # a series shorter than k is sent whole
        assert f"The {len(got)} images attached after this text" in text

    run = store.query_df("SELECT * FROM judge_runs").iloc[0]
    params = json.loads(run["params"])
    assert (params["slices"], params["setting"]) == (20, "20 slices") and "uniform" in params["sampling"]
    assert (run["prompt_id"], run["prompt_hash"]) == ("radar_review", template().hash)

    frame, runs, _ = evaluation_frame(store, "rv")
    out = store.query_df("SELECT p.ext_id, o.parse_status FROM judge_outputs o JOIN pairs p USING (pair_id)")
    assert dict(out.itertuples(index=False)) == {"c1_1": "ok", "c1_2": "ok", "c1_3": "failed", "c2_1": "ok",
                                                  "c2_2": "ok"}
    acc = accuracy_table(frame).set_index("eval_set")
    # gold is agree / critical / addition everywhere and the answers say so, except the unparsed one
    assert (acc.loc["Mixed", "n"], acc.loc["Mixed", "n_answered"], acc.loc["Mixed", "composite_correct"]) == (5, 4, 4)
    assert (acc.loc["Natural", "n"], acc.loc["Natural", "composite_correct"]) == (4, 3)


def test_reruns_send_nothing_and_each_slice_setting_is_its_own_run(review_store, server):
    store, _ = review_store
    run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=10)
    again = run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=10)
    assert again.sent == 0 and again.skipped == 5  # the unparsed answer is an answer, not a failure
    assert len(server.seen) == 5
    assert {len(_images(m)) for m in server.seen} == {10, 5}

    text_only = run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=0)
    assert text_only.sent == 5
    assert all(isinstance(m[0]["content"], str) for m in server.seen[5:])
    assert "No images are attached" in server.seen[5][0]["content"]
    settings = store.query_df("SELECT params FROM judge_runs")["params"].map(lambda p: json.loads(p)["setting"])
    assert sorted(settings) == ["10 slices", "text only"]


def test_bad_settings_are_refused_before_anything_is_sent(review_store, server, tmp_path):
    store, series = review_store
    with pytest.raises(ValueError, match="slices must be 0"):
        run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=7)
    series["c2"][0].unlink()
    with pytest.raises(ValueError, match="image file"):
        run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=10)
    with pytest.raises(ValueError, match="cannot judge edits"):
        run_judge(store, dataset="rv", judge="lexical")
    with pytest.raises(ValueError, match="radar_review"):
        run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, prompt_id="vert")
    assert server.seen == [] and store.query_one("SELECT count(*) FROM judge_outputs") == 0


def test_text_only_dataset_refuses_slices_and_defaults_to_text(tmp_store: Store, server):
    from core.review.demo import build_review_demo

    build_review_demo(tmp_store, n_cases=2, seed=1)
    with pytest.raises(ValueError, match="no image slices"):
        run_judge(tmp_store, dataset="demo-review", judge=MODEL, api_base=server.url, slices=10)
    summary = run_judge(tmp_store, dataset="demo-review", judge=MODEL, api_base=server.url)
    assert summary.sent == summary.requested > 0
    assert all(isinstance(m[0]["content"], str) for m in server.seen)


def test_rules_baseline_runs_offline_through_run_judge(tmp_store: Store):
    from core.review.demo import build_review_demo

    build_review_demo(tmp_store, n_cases=5, seed=1)
    summary = run_judge(tmp_store, dataset="demo-review", judge="rules")
    n = tmp_store.query_one("SELECT count(*) FROM pairs")
    assert (summary.status, summary.ok) == ("done", n)
    metrics = tmp_store.query_df("SELECT metric, count(*) AS n FROM metric_values GROUP BY metric")
    assert dict(metrics.itertuples(index=False)) == {"review_agreement": n, "review_severity": n,
                                                      "review_edit_type": n}
    assert run_judge(tmp_store, dataset="demo-review", judge="rules").skipped == n


@pytest.mark.parametrize("text,expected", [
    ('{"agreement": "agree", "severity": "moderate", "edit_type": "correction"}',
     ("agree", "moderate", "correction")),
    ('```json\n{"agreement": "Partially Agree", "severity": "Negligible", "suggested_edit_type": "Clarification",'
     ' "explanation": "a {brace} inside"}\n```', ("partially agree", "negligible", "clarification")),
    ('Thinking {not json}. Final: {"agreement": "partial", "severity": "critical", "edit_type": "addition"}',
     ("partially agree", "critical", "addition")),
    ("Agreement: disagree\nSeverity: critical\nEdit type: correction", ("disagree", "critical", "correction")),
    ("Agreement: partially agree\nSeverity: catastrophic\nEdit type: addition",
     ("partially agree", None, "addition")),
    ("no labels here", (None, None, None)),
])
def test_parser_is_robust_and_never_guesses(text, expected):
    got = parse_review_answer(text)
    assert (got["agreement"], got["severity"], got["edit_type"]) == expected
    status, _, values = parse_for_runs(text)
    assert status == ("ok" if None not in expected else "failed" if expected == (None,) * 3 else "partial")
    assert len(values) == sum(v is not None for v in expected)


def test_uniform_sampling_includes_both_ends():
    paths = [str(i) for i in range(100)]
    assert sample_slices(paths, 10) == [str(round(i * 99 / 9)) for i in range(10)]
    assert sample_slices(paths, 10)[0] == "0" and sample_slices(paths, 10)[-1] == "99"
    assert sample_slices(paths[:7], 10) == paths[:7]
    assert len(sample_slices(paths, 50)) == 50 and len(set(sample_slices(paths, 50))) == 50


# -- DICOM slices ---------------------------------------------------------------------------------


def _ct_slice(path: Path, hu: np.ndarray, instance: int, photometric: str = "MONOCHROME2") -> Path:
    """A CT slice as pydicom writes it: stored = HU + 1024, RescaleIntercept -1024, a soft-tissue window."""
    from pydicom.dataset import FileDataset, FileMetaDataset
    from pydicom.uid import CTImageStorage, ExplicitVRLittleEndian, generate_uid

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = CTImageStorage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = FileDataset(str(path), {}, file_meta=meta, preamble=b"\0" * 128)
    ds.SOPClassUID, ds.SOPInstanceUID = CTImageStorage, meta.MediaStorageSOPInstanceUID
    ds.Modality, ds.InstanceNumber = "CT", instance
    ds.Rows, ds.Columns = hu.shape
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, photometric
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 16, 15, 1
    ds.RescaleSlope, ds.RescaleIntercept = 1, -1024
    ds.WindowCenter, ds.WindowWidth = 40, 400
    ds.PixelData = (hu + 1024).astype(np.int16).tobytes()
    ds.save_as(str(path), enforce_file_format=True)
    return path


def test_dicom_slices_reach_the_server_as_windowed_png(tmp_path: Path, server):
    from PIL import Image

    hu = np.array([[-1000, 40], [1000, -160]])  # air, soft tissue at the window centre, bone, fat
    folder = tmp_path / "ct"
    folder.mkdir()
    paths = [_ct_slice(folder / f"s{i}.dcm", hu + i, instance=i + 1) for i in range(3)]
    f = tmp_path / "edits.csv"
    pd.DataFrame([{"id": "e1", "case": "c1", "preliminary": "FINDINGS: normal.", "edit": "Free air.",
                   "images": ";".join(f"ct/{p.name}" for p in paths)}]).to_csv(f, index=False)
    store = Store(tmp_path / "s.duckdb")
    import_review(store, f, dataset="rv")
    summary = run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=10)
    assert (summary.status, summary.ok) == ("done", 1)
    pngs = _images(server.seen[0])
    assert len(pngs) == 3 and all(p.startswith(PNG_HEAD) for p in pngs)
    first = np.asarray(Image.open(io.BytesIO(pngs[0])))
    # window 40 / 400 (PS3.3 C.11.2.1.2.1): below -160 black, above 240 white, the centre mid-grey
    assert first.shape == (2, 2) and first.dtype == np.uint8
    assert first[0, 0] == 0 and first[1, 0] == 255 and first[0, 1] == 128 and first[1, 1] == 0


def test_dicom_window_falls_back_to_min_max_and_inverts_monochrome1(tmp_path: Path):
    from PIL import Image

    from core.review.dicom import dicom_png, window_to_uint8

    assert window_to_uint8(np.array([[0, 50], [100, 100]]), None, None).tolist() == [[0, 128], [255, 255]]
    assert window_to_uint8(np.full((2, 2), 7), None, None).tolist() == [[0, 0], [0, 0]]
    path = _ct_slice(tmp_path / "m1.dcm", np.array([[-1000, 1000]]), instance=1, photometric="MONOCHROME1")
    assert np.asarray(Image.open(io.BytesIO(dicom_png(path)))).tolist() == [[255, 0]]
    bad = tmp_path / "bad.dcm"
    bad.write_bytes(b"not a dicom file")
    with pytest.raises(ValueError, match="cannot read DICOM slice"):
        dicom_png(bad)


def test_an_unreadable_slice_fails_its_pair_with_the_reason_and_the_run_goes_on(tmp_path: Path, server):
    folder = tmp_path / "ct"
    folder.mkdir()
    good = _ct_slice(folder / "good.dcm", np.array([[0, 40]]), instance=1)
    (folder / "broken.dcm").write_bytes(b"DICM? no")
    f = tmp_path / "edits.csv"
    pd.DataFrame([{"id": "ok", "case": "c1", "preliminary": "A.", "edit": "One.", "images": f"ct/{good.name}"},
                  {"id": "bad", "case": "c2", "preliminary": "B.", "edit": "Two.", "images": "ct/broken.dcm"}]
                 ).to_csv(f, index=False)
    store = Store(tmp_path / "s.duckdb")
    import_review(store, f, dataset="rv")
    summary = run_judge(store, dataset="rv", judge=MODEL, api_base=server.url, slices=10)
    assert (summary.ok, summary.failed) == (1, 1)
    assert len(server.seen) == 1  # the broken pair never reached the server
    out = store.query_df("SELECT p.ext_id, o.error FROM judge_outputs o JOIN pairs p USING (pair_id)")
    errors = dict(out.itertuples(index=False))
    assert pd.isna(errors["ok"]) and "cannot read DICOM slice" in errors["bad"] and "broken.dcm" in errors["bad"]
