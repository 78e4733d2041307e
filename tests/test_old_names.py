"""The product's old names still work (issue 45): ``RADJUDGE_*`` beside ``RADCONCORD_*``, the secrets
section ``[radjudge]`` beside ``[radconcord]``, the store file ``data/radjudge.duckdb`` beside
``data/radconcord.duckdb``; the new name wins, and an old one prints a one-line notice.

The rename sweep leaves this file as it is: it is about the old names.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import settings
from core.access import roles_from_secrets, team_mode
from core.models import configured_models
from core.serve import models_configured

ROOT = Path(__file__).resolve().parents[1]
ROLES = {"researchers": ["ada@hospital.org"], "viewers": ["@hospital.org"]}
AUTH = {"client_id": "x", "client_secret": "y", "server_metadata_url": "https://id.example/.well-known"}


def cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``python -m core ARGS`` in ``cwd`` with only these RADJUDGE_/RADCONCORD_ variables set."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RADJUDGE_", "RADCONCORD_"))}
    clean.update(env, PYTHONPATH=str(ROOT), LITELLM_LOCAL_MODEL_COST_MAP="True")
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=cwd, env=clean, capture_output=True,
                          text=True, timeout=300)


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "old name" in line]


@pytest.fixture(autouse=True)
def fresh_notices(monkeypatch):
    monkeypatch.setattr(settings, "_NOTICED", set(), raising=False)  # each test sees the once-per-process notice


def test_new_store_variable_is_read(tmp_path):
    done = cli(tmp_path, "demo", "--pairs", "20", RADCONCORD_STORE=str(tmp_path / "new.duckdb"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new.duckdb").exists() and not (tmp_path / "data").exists()
    assert notices(done.stderr) == []


def test_old_store_variable_still_works_with_one_notice(tmp_path):
    done = cli(tmp_path, "demo", "--pairs", "20", RADJUDGE_STORE=str(tmp_path / "old.duckdb"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "old.duckdb").exists()
    assert notices(done.stderr) == ["note: RADJUDGE_STORE is an old name, still read; use RADCONCORD_STORE instead"]


def test_the_new_variable_wins_over_the_old(tmp_path):
    done = cli(tmp_path, "demo", "--pairs", "20", RADCONCORD_STORE=str(tmp_path / "new.duckdb"),
               RADJUDGE_STORE=str(tmp_path / "old.duckdb"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new.duckdb").exists() and not (tmp_path / "old.duckdb").exists()


def test_default_store_file_is_the_new_name(tmp_path):
    done = cli(tmp_path, "demo", "--pairs", "20")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "data").glob("*.duckdb")) == ["radconcord.duckdb"]


def test_an_existing_old_store_file_is_found_and_used_with_a_notice(tmp_path):
    made = cli(tmp_path, "--store", "data/radjudge.duckdb", "demo", "--pairs", "20")
    assert made.returncode == 0, made.stderr
    listed = cli(tmp_path, "datasets")
    assert listed.returncode == 0, listed.stderr
    assert "demo" in listed.stdout
    assert notices(listed.stderr) == [
        "note: data/radjudge.duckdb is an old name, still read; use data/radconcord.duckdb instead"]
    assert not (tmp_path / "data" / "radconcord.duckdb").exists()  # nothing made beside it


def test_when_both_store_files_exist_the_new_one_is_used(tmp_path):
    assert cli(tmp_path, "--store", "data/radjudge.duckdb", "demo", "--pairs", "20").returncode == 0
    assert cli(tmp_path, "--store", "data/radconcord.duckdb", "demo", "--pairs", "30").returncode == 0
    listed = cli(tmp_path, "datasets", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [d["pairs"] for d in json.loads(listed.stdout) if d["name"] == "demo"] == [30] and notices(listed.stderr) == []


def test_secrets_section_new_name_and_old_alias(capsys):
    assert roles_from_secrets({"radconcord": {"roles": ROLES}}).researchers == ("ada@hospital.org",)
    assert team_mode({"auth": AUTH, "radconcord": {"roles": ROLES}})
    assert capsys.readouterr().err == ""
    old = roles_from_secrets({"radjudge": {"roles": ROLES}})
    assert old is not None and old.viewers == ("@hospital.org",)
    assert notices(capsys.readouterr().err) == ["note: [radjudge] in the secrets is an old name, still read; "
                                                "use [radconcord] instead"]
    both = roles_from_secrets({"radconcord": {"roles": {"viewers": ["@new.org"]}}, "radjudge": {"roles": ROLES}})
    assert both.viewers == ("@new.org",) and both.researchers == ()


def test_model_variables_under_either_name(tmp_path, capsys):
    assert models_configured(tmp_path, env={"RADCONCORD_MODELS": "openai/gpt-4o-mini"})
    assert [m.name for m in configured_models(env={}, secrets={"RADCONCORD_MODELS": "openai/a,openai/b"})] == [
        "openai/a", "openai/b"]
    assert settings.local_only(env={"RADCONCORD_LOCAL_ONLY": "true"})
    assert capsys.readouterr().err == ""
    assert settings.local_only(env={"RADJUDGE_LOCAL_ONLY": "true"})
    assert notices(capsys.readouterr().err) == [
        "note: RADJUDGE_LOCAL_ONLY is an old name, still read; use RADCONCORD_LOCAL_ONLY instead"]
    # the environment's old name still beats the secrets' new name (the environment wins, as before)
    assert settings.merged(env={"RADJUDGE_API_BASE": "http://env"},
                           secrets={"RADCONCORD_API_BASE": "http://secret"})["RADCONCORD_API_BASE"] == "http://env"
