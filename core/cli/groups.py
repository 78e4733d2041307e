"""How ``python -m core --help`` lists the commands: grouped and ordered like the documentation's
pages (docs/; each group names the page that describes its commands).

Every command belongs to exactly one group (tests/cli/test_help.py checks it), so a new command
must be placed here to appear in the help.
"""

from __future__ import annotations

import textwrap

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("The dashboard (docs/INSTALL.md)", ("serve",)),
    ("The demo and your data (docs/getting-started.md, docs/importing.md)",
     ("demo", "datasets", "import-pairs", "import-annotations", "import-outputs", "import-preset",
      "import-preferences", "delete-dataset", "restore-dataset", "trash")),
    ("Running judges (docs/judges.md)",
     ("judge", "score", "jobs", "cancel", "resume", "worker", "inject", "parse")),
    ("Analysis (docs/analysis.md)",
     ("correlate", "agreement", "errortypes", "calibrate", "ensemble", "summary", "preference", "compare",
      "simulate", "report")),
    ("Paper-ready results (docs/paper.md)", ("tables", "methods", "figures", "bundle", "reproduce")),
    ("Report-edit review (docs/edit-review.md)", ("import-review", "review-judge", "review-eval")),
    ("Report checks and leaderboards (docs/report-checks.md)", ("checks", "leaderboard")),
    ("Distilled scorer (docs/distilled-scorer.md)", ("distill", "export-finetune")),
    ("Clinician annotation (docs/clinician-annotation.md)", ("ratings", "rating-queue", "ratings-report")),
    ("The store (docs/store.md)", ("check-store", "export-store", "backup", "restore", "merge")),
)


def command_listing(helps: dict[str, str]) -> str:
    """The epilog of the top-level help: each group's commands that exist, with their one-line help."""
    width = max((len(name) for name in helps), default=10) + 2
    lines = ["commands (python -m core COMMAND --help for each one's options):"]
    for title, names in GROUPS:
        present = [n for n in names if n in helps]
        if not present:
            continue
        lines.append("")
        lines.append(f"{title}:")
        for name in present:
            text = textwrap.wrap(helps[name].replace("%%", "%"), 100 - width - 2) or [""]
            lines.append(f"  {name.ljust(width)}{text[0]}")
            lines += [" " * (width + 2) + more for more in text[1:]]
    grouped = {n for _, names in GROUPS for n in names}
    rest = sorted(set(helps) - grouped)
    if rest:
        lines += ["", "other:"] + [f"  {name.ljust(width)}{helps[name]}" for name in rest]
    return "\n".join(lines)
