"""``python -m core parse [FILE] [--prompt P] [--json]``: one judge answer read as a run would read it.

GREEN's format (and its VERT / Formula / Rubric variants) by default, as ``core.parse.parse_output`` reads
it; ``--prompt crimson`` (or any CRIMSON prompt id) reads CRIMSON's JSON answer and scores it
(``core.parse.crimson``, under ``--crimson-map``). Nothing is stored. Registered by :func:`add_commands`
from core.cli.main (``COMMAND_MODULES``).

``--json`` prints ``sig``, ``insig``, ``matched``, ``overall_score``, ``status``, ``reason`` and ``metrics``
(GREEN's scores) for a GREEN-format answer, as always; for a CRIMSON answer ``metrics`` holds CRIMSON's
score, counts and weighted counts, and ``errors`` and ``matched_findings`` are added. Exit status: 0 read
(whatever the parse status: a failure is reported in ``status`` and ``reason``); 2 a prompt whose answers
this command does not read, or a bad ``--crimson-map``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.prompts.specs import PROMPTS, prompt_spec


def read_answer(text: str, prompt: str = "green", crimson_map: str | None = None) -> dict:
    """``text`` (one answer to ``prompt``) read into the JSON that ``parse --json`` prints.

    ValueError for a prompt whose answers are neither GREEN-format nor CRIMSON's, or for a bad map.
    """
    from core.judges.runs import answer_reader, crimson_map_param
    from core.parse import parse_output

    spec = prompt_spec(prompt)
    if spec is None or spec.use != "judge" or spec.answer != "result":
        raise ValueError(f"--prompt {prompt}: parse reads GREEN-format answers (green, vert, formula, rubric, ...) "
                         "and CRIMSON's (crimson, crimson_nocontext, crimson_noguide, crimson_noguide_nocontext)")
    crimson_map_param(prompt, crimson_map)  # a bad map, or a map for a prompt that is not CRIMSON's
    reader = answer_reader(prompt)  # CRIMSON's JSON; None: GREEN's format
    if reader is None:
        return parse_output(text).to_json()
    parsed = reader(text, {"crimson_map": crimson_map})
    # CRIMSON's own scores in place of GREEN's, and the errors behind its categories (a)-(f)
    return parsed.to_json() | {
        "metrics": dict(parsed.metrics), "matched_findings": list(parsed.matched_findings),
        "errors": [{"category": e.category, "significant": e.significant, "text": e.text} for e in parsed.errors]}


def cmd_parse(args) -> int:
    raw = sys.stdin.buffer.read() if args.file in (None, "-") else Path(args.file).read_bytes()
    try:
        result = read_answer(raw.decode("utf-8", errors="replace"), args.prompt, args.crimson_map)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for k, v in result.items():
            print(f"{k}: {v}")
    return 0


def add_commands(add) -> None:
    p = add("parse", cmd_parse, "parse one judge output (GREEN format and variants, or CRIMSON's JSON) from FILE "
                                "or stdin")
    p.add_argument("file", nargs="?", default="-")
    p.add_argument("--prompt", default="green",
                   help="the prompt answered: green (default) or another GREEN-format one, or a CRIMSON prompt for "
                        "its JSON answer: " + ", ".join(
                            s.id for s in PROMPTS.values() if s.use == "judge" and s.answer == "result"))
    p.add_argument("--crimson-map", metavar="SPEC",
                   help="CRIMSON prompts: overrides of the ReXVal category map, as on judge (e.g. temporal=f)")
