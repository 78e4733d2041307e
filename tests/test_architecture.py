"""The shape of the code (docs/ARCHITECTURE.md), checked: layers import only downwards, no module takes
another's private name, files stay short, one place reads the environment, core/ has few loose modules.

Everything is read as source (ast), nothing is imported, so a violation is named with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
MAX_LINES = 700

# What each part of core/ may import from core/ (besides itself). A top-level module is named by its
# stem. Pages, app.py and serve.py sit above all of it.
ALLOWED: dict[str, set[str]] = {
    "taxonomy": set(),
    "settings": set(),
    "store": {"settings", "taxonomy"},
    "analysis": {"taxonomy"},
    "prompts": {"taxonomy"},
    "parse": {"analysis", "taxonomy"},
    "reads": {"store", "analysis", "parse", "settings", "taxonomy", "access"},
    "judges": {"store", "reads", "parse", "prompts", "analysis", "settings", "taxonomy"},
    "ingest": {"store", "reads", "analysis", "parse", "prompts", "judges", "settings", "taxonomy"},
    "review": {"store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "settings", "taxonomy"},
    "checks": {"store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "settings", "taxonomy"},
    "distill": {"store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "settings", "taxonomy"},
    "glossary": {"analysis", "taxonomy"},
    "access": {"settings"},
    "serve": {"access", "settings"},
    "models": {"store", "judges", "prompts", "settings", "taxonomy"},
    "jobs": {"store", "reads", "judges", "models", "settings", "taxonomy"},
    "report": {"access", "store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "review", "checks",
               "glossary", "settings", "taxonomy"},
    "cli": {"store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "review", "checks",
            "distill", "report", "models", "glossary", "access", "jobs", "settings", "taxonomy", "paper"},
    "paper": {"access", "store", "reads", "analysis", "parse", "prompts", "judges", "ingest", "settings", "taxonomy"},
    "__init__": {"settings"},
    "__main__": {"cli"},
}


def _sources(*folders: Path) -> list[Path]:
    return sorted(p for folder in folders for p in folder.rglob("*.py") if ".venv" not in p.parts)


def _part(module: str) -> str | None:
    """core.reads.frames -> 'reads'; core.settings -> 'settings'; not core -> None."""
    bits = module.split(".")
    return bits[1] if bits[0] == "core" and len(bits) > 1 else None


def _imports(path: Path):
    """(line, module, [names]) of every absolute import in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []


def test_every_part_of_core_has_a_layer_rule():
    parts = {p.stem for p in CORE.glob("*.py")} | {p.name for p in CORE.iterdir() if (p / "__init__.py").exists()}
    assert parts <= set(ALLOWED), f"no rule in ALLOWED (and docs/ARCHITECTURE.md) for {parts - set(ALLOWED)}"


def test_layers_import_only_what_they_may():
    wrong = []
    for path in _sources(CORE):
        rel = path.relative_to(CORE)
        me = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        for line, module, names in _imports(path):
            targets = [_part(f"{module}.{n}") for n in names] if module == "core" else [_part(module)]
            for target in targets:
                if target and target != me and target not in ALLOWED[me]:
                    wrong.append(f"core/{rel}:{line} ({me}) imports {module} ({target})")
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_another_modules_private_name():
    wrong = []
    for path in _sources(CORE, ROOT / "pages", ROOT / "tests") + [ROOT / "app.py", ROOT / "serve.py"]:
        for line, module, names in _imports(path):
            if not (module.startswith(("core", "pages")) or module in {"app", "serve"}):
                continue
            if module == "pages":  # pages/_name.py are the pages' helper modules (Streamlit lists no page)
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private or any(part.startswith("_") and not part.startswith("__")
                              for part in module.split(".")[1:] if module.startswith("core")):
                wrong.append(f"{path.relative_to(ROOT)}:{line} from {module} import {', '.join(private or names)}")
    assert not wrong, "\n".join(wrong)


def test_no_source_file_is_over_the_limit():
    long = [f"{p.relative_to(ROOT)}: {n}" for p in _sources(CORE, ROOT / "pages") + [ROOT / "app.py"]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, f"over {MAX_LINES} lines:\n" + "\n".join(long)


def test_core_has_few_loose_modules():
    loose = sorted(p.name for p in CORE.glob("*.py"))
    assert len(loose) <= 8, loose


@pytest.mark.parametrize("folder", ["core", "pages"])
def test_only_settings_reads_the_environment(folder):
    readers = []
    for path in _sources(ROOT / folder) + ([ROOT / "app.py", ROOT / "serve.py"] if folder == "pages" else []):
        if path == CORE / "settings.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"} \
                    and isinstance(node.value, ast.Name) and node.value.id == "os":
                readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not readers, "read os.environ through core.settings instead:\n" + "\n".join(readers)
