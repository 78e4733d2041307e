"""CRIMSON's prompt against rajpurkarlab's own file, vendored byte for byte (tests/prompts/upstream_crimson).

The vendored ``prompt_parts.py`` must hash to the SHA-256 published for rajpurkarlab/CRIMSON at 07e3331 (and
jbdel/RadEval at e0a3909), every string constant in it must stand in the project's templates exactly, and every
CRIMSON prompt id must render exactly what its ``build_prompt`` returns. Nothing is downloaded.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from pathlib import Path

import pytest

import core.prompts as P

UPSTREAM_FILE = Path(__file__).parent / "upstream_crimson" / "prompt_parts.py"
PUBLISHED_SHA256 = "e97fe82d4fbb097c1c37bf0d7e96c0551f80b30e5ebf5cf5107c0502527c5a3e"

REF = "Cardiomegaly. Small bilateral pleural effusions. {{reference}} {x}"
CAND = "Normal heart size.\nSmall left pleural effusion. }{"
CONTEXTS = [None, {"age": "82", "indication": "Routine preoperative evaluation"},
            {"age": "25", "sex": "F", "indication": "Chest pain", "history": "Prior CXR 2020: clear.\nSecond line"}]


def _constants() -> dict[str, str]:
    """The module-level string constants of the upstream file, read with ``ast`` (nothing runs)."""
    tree = ast.parse(UPSTREAM_FILE.read_bytes().decode("utf-8"))
    return {node.targets[0].id: node.value.value for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def _upstream_module():
    spec = importlib.util.spec_from_file_location("crimson_upstream_prompt_parts", UPSTREAM_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vendored_file_is_the_published_one():
    assert hashlib.sha256(UPSTREAM_FILE.read_bytes()).hexdigest() == PUBLISHED_SHA256


def test_every_upstream_part_stands_in_the_templates_byte_for_byte():
    parts = _constants()
    assert len(parts) == 13  # OBJECTIVE ... ATTRIBUTE_SEVERITY_GUIDELINES
    full = P.get_template("crimson").body
    noguide = P.get_template("crimson_noguide").body
    guidelines = P.get_template("crimson_context_guidelines").body
    assert guidelines + "\n" == parts["CONTEXT_GUIDELINES"]  # render.py adds the final newline the loader strips
    in_every = {name for name in parts if name not in
                {"CONTEXT_GUIDELINES", "SIGNIFICANCE_EXAMPLES", "ATTRIBUTE_SEVERITY_GUIDELINES"}}
    for name in sorted(parts.keys() - {"CONTEXT_GUIDELINES"}):
        assert parts[name] in full, name
    for name in sorted(in_every):
        assert parts[name] in noguide, name
    for name in ("SIGNIFICANCE_EXAMPLES", "ATTRIBUTE_SEVERITY_GUIDELINES"):
        assert parts[name] not in noguide, name


@pytest.mark.parametrize("pid", sorted(P.CRIMSON_PROMPTS))
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_variant_renders_build_prompts_text(pid, context):
    upstream = _upstream_module()
    guidelines, reads_context = P.CRIMSON_PROMPTS[pid]
    given = {P.CRIMSON_CONTEXT_LABELS[k]: v for k, v in context.items()} if context and reads_context else None
    expected = upstream.build_prompt(REF, CAND, patient_context=given, include_significance_examples=guidelines,
                                     include_attribute_guidelines=guidelines, include_context_guidelines=guidelines)
    assert P.render_messages(pid, REF, CAND, context=context)[1]["content"] == expected
