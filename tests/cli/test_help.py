"""Every help works: `python -m core`, `python -m core --help` and each `python -m core CMD --help`.

The first command a newcomer types must list every command (grouped like the documentation's pages) and never
end in a traceback (a "95% CIs" in a help string once did: argparse formats help with %).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from core.cli.groups import GROUPS
from core.cli.main import build_parser, main
from tests.cli_inprocess import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


@pytest.mark.parametrize("argv", [["--help"], []], ids=["--help", "bare"])
def test_top_level_help_lists_every_command_grouped(argv):
    done = run_cli(*argv)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    out = done.stdout
    for name in _commands():
        assert f"\n  {name} " in out, name
    positions = [out.index(title) for title, _ in GROUPS]
    assert positions == sorted(positions)  # the documentation's order


def test_every_command_is_in_exactly_one_group():
    grouped = [n for _, names in GROUPS for n in names]
    assert len(grouped) == len(set(grouped))
    assert sorted(set(_commands())) == sorted(n for n in grouped if n in _commands())
    assert not set(_commands()) - set(grouped)


@pytest.mark.parametrize("command", _commands())
def test_each_command_help_exits_zero(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m core") and command in out
