"""The documentation: the MkDocs site (mkdocs.yml over docs/) builds with ``--strict`` and no warning, a
broken link, anchor or image in a scratch copy fails that build, and the README stays a short front page
(at most 250 lines) whose links and anchors resolve."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README_MAX_LINES = 250
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's banner about MkDocs 2, not a build warning
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          cwd=config.parent, env=env, capture_output=True, text=True, timeout=600)


def _nav_pages(config: Path) -> list[str]:
    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from walk(value)

    return list(walk(yaml.safe_load(config.read_text(encoding="utf-8"))["nav"]))


def test_the_site_builds_strict_with_no_warning(tmp_path):
    done = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    built = [p for p in _nav_pages(ROOT / "mkdocs.yml") if (DOCS / p).exists()]
    assert len(built) >= 20
    for page in built:
        assert (tmp_path / "site" / page.replace(".md", ".html")).is_file(), page
    # Read offline: no page loads a script, stylesheet, font or image from outside (theme.font: false).
    outside = {url for html in (tmp_path / "site").glob("*.html")
               for url in re.findall(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]+)"',
                                     html.read_text(encoding="utf-8"))}
    assert outside == set()


def test_every_nav_entry_is_a_page_and_every_page_is_in_the_nav():
    nav = _nav_pages(ROOT / "mkdocs.yml")
    assert not [p for p in nav if not (DOCS / p).is_file()]
    assert sorted(p.name for p in DOCS.glob("*.md") if p.name not in nav) == []


def test_a_broken_link_anchor_or_image_fails_the_build(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    assert _build(copy / "mkdocs.yml", tmp_path / "ok").returncode == 0  # the copy itself builds
    page = copy / "docs" / "tour.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[a page](no-such-page.md) [an anchor](store.md#no-such-heading)"
                    " [here](#nowhere-on-this-page) ![a figure](img/no-such-figure.png)\n", encoding="utf-8")
    done = _build(copy / "mkdocs.yml", tmp_path / "broken")
    assert done.returncode != 0
    for named in ("no-such-page.md", "no-such-heading", "nowhere-on-this-page", "img/no-such-figure.png"):
        assert named in done.stderr, (named, done.stderr[-4000:])


def _anchors(page: Path) -> set[str]:
    anchors, fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and (m := re.match(r"#{1,6} (.+)", line)):
            anchors.add(slugify(m.group(1).strip(), "-"))
    return anchors


def readme_problems(readme: Path) -> list[str]:
    """What is wrong with a README: too long, or a relative link, image or anchor that does not resolve."""
    text = readme.read_text(encoding="utf-8")
    problems = []
    if len(text.splitlines()) > README_MAX_LINES:
        problems.append(f"{len(text.splitlines())} lines, more than {README_MAX_LINES}")
    for target in LINK.findall(text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        file = (readme.parent / path).resolve() if path else readme
        if not file.is_file():
            problems.append(f"{target}: no such file")
        elif anchor and anchor not in _anchors(file):
            problems.append(f"{target}: no such heading in {path or readme.name}")
    return problems


def test_the_readme_is_short_and_its_links_resolve():
    assert readme_problems(ROOT / "README.md") == []
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make run" in text and "make test" in text
    assert len(re.findall(r"!\[[^\]]*\]\(docs/img/[\w-]+\.png\)", text)) == 5  # the tour in five screenshots


def test_the_readme_check_finds_a_broken_link_a_broken_anchor_and_a_long_readme(tmp_path):
    shutil.copytree(DOCS, tmp_path / "docs")
    readme = tmp_path / "README.md"
    readme.write_text((ROOT / "README.md").read_text(encoding="utf-8")
                      + "\n[gone](docs/no-such-page.md) [gone too](docs/store.md#no-such-heading)\n"
                      + "\n" * README_MAX_LINES, encoding="utf-8")
    problems = readme_problems(readme)
    assert any(p.startswith("docs/no-such-page.md: no such file") for p in problems), problems
    assert any(p.startswith("docs/store.md#no-such-heading: no such heading") for p in problems), problems
    assert any("more than 250" in p for p in problems), problems
    assert len(problems) == 3


def test_the_cli_help_names_documentation_pages_that_exist():
    from core.cli.groups import GROUPS

    named = [re.findall(r"docs/[\w-]+\.md", title) for title, _ in GROUPS]
    assert all(named), [title for (title, _), pages in zip(GROUPS, named, strict=True) if not pages]
    assert [p for pages in named for p in pages if not (ROOT / p).is_file()] == []
