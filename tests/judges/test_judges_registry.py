"""The judge registry (core.judges.registry): every entry resolves, names are checked, no package cycle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from core.judges import OFFLINE_JUDGES, offline_module, run_judge
from core.judges.registry import REGISTRY, by_name, resolve

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", REGISTRY, ids=lambda r: f"{r.on}:{r.key}")
def test_every_registration_resolves_to_a_function(entry):
    assert entry.on in ("dataset_kind", "name", "prefix", "prompt", "model")
    assert callable(resolve(entry.target))
    if entry.on == "name":  # an offline judge's module names its run too
        module = offline_module(entry.key)
        assert module.score_pair is resolve(entry.target)
        spec = module.spec_for("d")
        assert (spec.judge_name, spec.dataset) == (entry.key, "d")


def test_offline_judges_listed_once_in_registry_order():
    assert OFFLINE_JUDGES == ("rules", "lexical", "length")
    assert [r.on for r in REGISTRY].count("model") == 1
    assert by_name("rules").key == "rules" and by_name("distilled:minilm").key == "distilled:"
    assert by_name("gpt-4o-mini") is None and by_name("rules2") is None


@pytest.mark.parametrize("name", ["", " rules", "gpt-4o ", "\tlexical"])
def test_invalid_names_get_the_list_of_valid_ones(name):
    with pytest.raises(ValueError) as err:
        run_judge(object(), dataset="d", judge=name)  # refused before the store is touched
    assert str(err.value) == (f"judge name {name!r} is not valid; use rules, lexical, length, distilled:NAME "
                              "or a model")


def test_offline_module_of_an_unknown_judge_is_a_key_error():
    with pytest.raises(KeyError, match="rules, lexical, length"):
        offline_module("gpt-4o-mini")


def test_importing_core_judges_imports_no_dependent_package():
    code = ("import sys, core.judges, core.judges.registry\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[:2] in "
            "(['core', 'checks'], ['core', 'distill'], ['core', 'review']))\n"
            "heavy = sorted(m for m in ('litellm', 'pandas', 'duckdb', 'torch') if m in sys.modules)\n"
            "print(bad, heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []", out.stdout + out.stderr
