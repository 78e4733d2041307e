"""The prompt table (core.prompts.specs): one row per prompt, read by every consumer, never added to at run time.

- every prompt's messages for two demo pairs equal, byte for byte, those the code before the table rendered,
  and every consumer answers what it answered (tests/prompts/fixtures/, written by make_rendered_fixture.py
  at 507060c);
- an answer to every prompt parses the same in a fresh process that imports only core.judges.runs as in one
  that imported everything (before the table, the review and adversarial parsers were added to a dict when
  their modules were imported, and a fresh process read their answers as GREEN's format);
- every prompt id written anywhere in core/ and pages/ is a row;
- adding a prompt family is one row plus its own module (docs/ARCHITECTURE.md, "Adding a prompt family").
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import core.checks.adversarial  # noqa: F401  (everything imported: the process the fresh one is compared with)
import core.review.judge  # noqa: F401
from core.judges.runs import OutputRecord, parsed_rows
from core.prompts.specs import PROMPTS
from tests.fake_openai import task_answer
from tests.judges.test_crimson_run import PARTIAL
from tests.prompts.make_rendered_fixture import FACTS, FIXTURE, facts, rendered

ROOT = Path(__file__).resolve().parents[2]


def test_every_prompt_renders_the_messages_the_code_before_the_table_rendered():
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    new = json.loads(json.dumps(rendered(), ensure_ascii=False))
    assert len(old) == 16 and set(old) <= set(new) == {s.id for s in PROMPTS.values() if s.use == "judge"}
    for pid in old:
        assert new[pid]["hash"] == old[pid]["hash"], pid
        assert new[pid]["messages"] == old[pid]["messages"], pid


def test_every_consumer_answers_what_it_answered_before_the_table():
    """Lists, few-shot pools, output budgets, the planner's assumptions, citations, which ids parse reads and
    the order Live shows scores in, for every prompt id: as the code before the table answered
    (fixtures/prompt_facts.json, written at 507060c)."""
    old = json.loads(FACTS.read_text(encoding="utf-8"))
    new = json.loads(json.dumps(facts(), ensure_ascii=False))
    assert old["per_id"]["crimson"]["max_tokens"] == 8192 and old["per_id"]["laias_judge"]["parse_accepts"] is False
    for key in old:
        assert new[key] == old[key], key


def _answers() -> dict[str, str]:
    """One answer to every prompt the store parses, in the prompt's own format."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    out = {pid: task_answer(v["messages"][0]) for pid, v in fixture.items()}  # GREEN's format, the baselines' JSON
    out.update({pid: json.dumps(PARTIAL) for pid, s in PROMPTS.items() if s.family == "crimson"})
    out["radar_review"] = ('```json\n{"agreement": "Agree", "severity": "critical", "suggested_edit_type": '
                           '"addition", "explanation": "seen"}\n```')
    out["laias_judge"] = ('```json\n{"scores": {"CRIT": 4, "QUAL": 5, "TERM": 4, "GUIDE": 5, "RAG": 3},\n'
                          '"critical_failures": [], "missing_findings": ["a"], "hallucinated_findings": []}\n```')
    return out


_FRESH = """
import json, sys
from core.judges.runs import OutputRecord, parsed_rows
assert not [m for m in sys.modules if m.startswith(("core.review", "core.checks"))], "imported more than runs"
answers = json.load(sys.stdin)
rows = {pid: parsed_rows("run", OutputRecord("pair", raw_text=text), pid, {}) for pid, text in answers.items()}
print(json.dumps({pid: [r[0][4:6], sorted(r[1]), sorted(r[2])] for pid, r in rows.items()}))
"""


def test_an_answer_to_every_prompt_parses_the_same_in_a_process_that_imported_only_runs():
    answers = _answers()
    assert set(answers) == {pid for pid, s in PROMPTS.items() if s.parser}
    here = {}
    for pid, text in answers.items():
        out, metrics, errors = parsed_rows("run", OutputRecord("pair", raw_text=text), pid, {})
        here[pid] = [list(out[4:6]), sorted(list(m) for m in metrics), sorted(list(e) for e in errors)]
        assert out[4] in ("ok", "partial"), (pid, out[4:6])  # every answer is read as its prompt's format
        assert {m[2] for m in metrics} <= set(PROMPTS[pid].metrics), pid  # and writes only the row's metrics
    fresh = subprocess.run([sys.executable, "-c", _FRESH], input=json.dumps(answers), capture_output=True,
                           text=True, cwd=ROOT, check=True)
    there = json.loads(fresh.stdout)
    assert there == json.loads(json.dumps(here))
    assert there["laias_judge"][0] == ["ok", ""] and there["radar_review"][0] == ["ok", ""]


# Where a prompt id is written: PROMPT_ID = "...", prompt_id="..." / prompt="..." arguments (not those of an
# offline judge's RunSpec, whose prompt_id names its rules version), prompt_id == "...", and SQL's
# prompt_id = '...' / prompt_id IN ('...', ...).
_SQL = re.compile(r"prompt_id\s*(?:=|IN\s*\()\s*((?:'[a-z_0-9]+'\s*,?\s*)+)", re.I)


def _names_prompt(node: ast.AST) -> bool:
    return getattr(node, "id", getattr(node, "attr", "")) in ("prompt_id", "prompt")


def _written_prompt_ids(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PROMPT_ID" for t in node.targets):
            found.add(node.value.value)
        elif isinstance(node, ast.Call):
            offline = (getattr(node.func, "id", "") == "RunSpec" and node.args
                       and isinstance(node.args[0], ast.Constant) and node.args[0].value != "llm")
            found |= {k.value.value for k in node.keywords if k.arg in ("prompt_id", "prompt")
                      and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str) and not offline}
            if node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "--prompt":
                found |= {k.value.value for k in node.keywords if k.arg == "default"}  # add_argument's default
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.args[len(node.args.args) - len(node.args.defaults):] + node.args.kwonlyargs
            defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            found |= {d.value for a, d in zip(args, defaults, strict=False) if a.arg in ("prompt_id", "prompt")
                      and isinstance(d, ast.Constant) and isinstance(d.value, str)}
        elif isinstance(node, ast.BoolOp) and _names_prompt(node.values[0]):  # prompt_id or "green"
            found |= {v.value for v in node.values[1:] if isinstance(v, ast.Constant) and isinstance(v.value, str)}
        elif isinstance(node, ast.Compare) and _names_prompt(node.left):
            found |= {c.value for c in node.comparators if isinstance(c, ast.Constant) and isinstance(c.value, str)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            for group in _SQL.findall(node.value):
                found |= set(re.findall(r"'([a-z_0-9]+)'", group))
    return {pid for pid in found if pid}  # prompt_id or "": no prompt


def test_every_prompt_id_written_in_the_code_is_a_row():
    files = [*sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]
    written = {pid: str(f.relative_to(ROOT)) for f in files for pid in _written_prompt_ids(f)}
    assert {"laias_judge", "radar_review", "vert", "green"} <= set(written)  # the scan sees them
    assert not {pid: f for pid, f in written.items() if pid not in PROMPTS}


def test_the_scan_finds_a_prompt_id_that_is_not_a_row(tmp_path):
    f = tmp_path / "m.py"
    f.write_text('PROMPT_ID = "a"\nrun(prompt_id="b")\nRunSpec("rules", prompt_id="c")\nif prompt_id == "d": pass\n'
                 'SQL = "WHERE prompt_id IN (\'e\', \'f\') AND prompt_id = \'g\'"\nx = task.prompt_id or "h"\n'
                 'def f(a, prompt_id="i", *, prompt="j"): pass\np.add_argument("--prompt", default="k")\n',
                 encoding="utf-8")
    assert _written_prompt_ids(f) == {"a", "b", "d", "e", "f", "g", "h", "i", "j", "k"}


def test_every_row_names_code_and_templates_that_exist():
    from core.prompts import list_templates
    from core.prompts.loader import get_template
    from core.prompts.specs import resolve

    for spec in PROMPTS.values():
        for target in (spec.render, spec.parser):
            assert target is None or callable(resolve(target)), (spec.id, target)
        assert set(spec.templates) <= set(list_templates()), spec.id
        # a local server's stop sequences are the prompt's own section headings, each at a line start in its text
        text = "\n" + "\n".join(get_template(t).body for t in spec.templates)
        assert all(h.startswith("\n") and h in text for h in spec.local_stop), (spec.id, spec.local_stop)
    with pytest.raises(ValueError, match="module:function"):
        resolve("core.prompts.render")


def test_the_families_own_modules_agree_with_their_rows():
    """The few-shot variants and the injection kinds keep their section and system templates in their own
    modules (what their builders need); each names the same prompt and templates as its row."""
    from core.prompts import FEWSHOT_VARIANTS
    from core.prompts.injection import INJECTION_KINDS

    assert {v.prompt_id: ("vert", v.section_template, v.example_template) for v in FEWSHOT_VARIANTS.values()} == {
        s.id: s.templates for s in PROMPTS.values() if s.family == "fewshot"}
    assert {v.prompt_id: v.name for v in FEWSHOT_VARIANTS.values()} == {
        s.id: s.shots for s in PROMPTS.values() if s.shots}
    assert {tid: PROMPTS[tid].templates for tid, _ in INJECTION_KINDS.values()} == {
        "inject_false_finding": ("inject_false_finding", "inject_user"),
        "inject_omission": ("inject_omission", "inject_user")}
