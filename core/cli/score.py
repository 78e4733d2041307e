"""``python -m core score``: one pair judged now, from a terminal (the CLI twin of Live scoring).

The same functions as the Live scoring page (``core.judges.live``): the same
judges, the same numbers, the same language check and "not a report" check.
Nothing is written to the store. Registered by :func:`add_commands` from
core.cli.main (``COMMAND_MODULES``).

Exit status: 0 scored; 1 not scored (the judge refused the pair: another
language, not a report, a report over ``core.judges.bounds.MAX_REPORT_CHARS``; or the model call failed or was refused); 2 bad
arguments (an unreadable ``@FILE``, an unknown prompt).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli.common import add_api_base_flag, add_stop_flag, api_key
from core.prompts.specs import PROMPTS
from core.taxonomy import MISSING

_TEXT_HELP = "the report text, or @FILE to read it from a file (@- reads standard input)"


def read_text(value: str) -> str:
    """``TEXT`` as given, ``@FILE``'s content (UTF-8), ``@-`` standard input; ``@@...`` is the text ``@...``."""
    if value.startswith("@@"):
        return value[1:]
    if not value.startswith("@"):
        return value
    if value == "@-":
        return sys.stdin.read()
    path = Path(value[1:])
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc


def judge_pair(judge: str, reference: str, candidate: str, *, prompt: str = "green", api_base: str | None = None,
               key: str | None = None, timeout: float = 120.0, context: dict[str, str] | None = None,
               max_tokens: int | None = None, stop: tuple[str, ...] = ()) -> dict:
    """The answer of ``judge`` on one pair as :func:`core.judges.live.answer_json` gives it.

    ``context`` (age, sex, indication, history) reaches context-aware prompts and the rules judge (how much
    each finding matters); the lexical and length judges ignore it.
    """
    from core.judges import live

    if judge == "rules":
        r = live.score_rules_live(reference, candidate, context=context)
        return live.answer_json("rules", parsed=r.parsed, raw=r.raw_text, latency_ms=r.latency_ms, errors=r.errors,
                                matched=r.matched_findings, failure=r.failure)
    if judge in live.BASELINES:
        b = live.score_baseline_live(judge, reference, candidate)
        return live.answer_json(judge, metrics=b.metrics, latency_ms=b.latency_ms, failure=b.failure)
    from core.judges.llm import EndpointRefused, GenParams, ModelNotUsable
    from core.judges.messages import default_max_tokens

    # None: the prompt's default budget and no stop sequence
    params = GenParams(max_tokens=max_tokens or default_max_tokens(prompt), stop=stop) if max_tokens or stop else None
    try:
        raw, parsed, latency, cost = live.score_live(reference, candidate, judge, prompt, api_base, key, params,
                                                     timeout=timeout, context=context)
    except (EndpointRefused, ModelNotUsable, live.LiveCallFailed) as exc:
        return live.answer_json(judge, failure=f"model call failed: {exc}", prompt=prompt, cost_usd=None)
    return live.answer_json(judge, parsed=parsed, raw=raw, latency_ms=latency, cost_usd=cost, prompt=prompt)


def _fmt(value) -> str:
    if value is None:
        return MISSING
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def print_answer(out: dict) -> None:
    from core.analysis.naming import display_name
    from core.judges.live import MEANINGS
    from core.reads.queries import CATEGORY_NAMES
    from core.taxonomy import CATEGORIES

    title = out["judge"] + (f" · {out['prompt']}" if out.get("prompt") else "")
    cost = "cost unknown" if out["cost_usd"] is None else f"${out['cost_usd']:.4f}"
    print(f"judge: {title} · {out['latency_ms']:,.0f} ms · {cost}")
    if not out["scored"]:
        print(f"not scored: {out['failure']}")
        return
    if "sig" not in out:  # a baseline: its own metrics
        for name, value in out["metrics"].items():
            label = display_name(out["judge"], name)
            print(f"  {label:<18} {_fmt(value)}")
        return
    for name, value in out["metrics"].items():
        print(f"  {display_name(out['judge'], name):<18} {_fmt(value):>6}  {MEANINGS[name]}")
    print("errors per category (significant / insignificant):")
    for c in CATEGORIES:
        print(f"  ({c}) {CATEGORY_NAMES[c]}: {_fmt(out['sig'].get(c))} / {_fmt(out['insig'].get(c))}")
    for e in out["errors"]:
        print(f"  error ({e['category']}) {'significant' if e['significant'] else 'insignificant'}: {e['text']}")
    print(f"matched findings: {_fmt(out['matched'])}")
    for finding in out["matched_findings"]:
        print(f"  {finding}")
    if out["parse_status"] != "ok":
        print(f"parse: {out['parse_status']}")


def cmd_score(args) -> int:
    from core.judges import live, localserver
    from core.judges.live import LIVE_PROMPTS
    from core.taxonomy import CONTEXT_FIELDS

    try:
        reference, candidate = read_text(args.reference), read_text(args.candidate)
        if args.prompt not in LIVE_PROMPTS:
            raise ValueError(f"--prompt {args.prompt}: live scoring uses a zero-shot GREEN-format or CRIMSON "
                             f"prompt: {', '.join(LIVE_PROMPTS)}")
        key = api_key(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    context = {name: getattr(args, name) for name in CONTEXT_FIELDS if getattr(args, name, None)}
    offline = args.judge in ("rules", *live.BASELINES)
    if not offline:  # a llama.cpp server answers any model name with its own model: said before the call
        note = localserver.name_note(args.judge, args.api_base)
        if note:
            print(note, file=sys.stderr)
    _, timeout = localserver.call_defaults(None if offline else args.api_base, 1, args.timeout)
    out = judge_pair(args.judge, reference, candidate, prompt=args.prompt, api_base=args.api_base, key=key,
                     timeout=timeout, context=context or None, max_tokens=args.max_tokens,
                     stop=() if offline else localserver.stop_defaults(args.api_base, args.prompt, args.stop))
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print_answer(out)
    return 0 if out["scored"] else 1


def add_commands(add) -> None:
    """Register ``score`` with the CLI's ``add(name, func, help)``."""
    from core.judges.bounds import MAX_REPORT_CHARS
    from core.judges.language import languages_of

    epilog = ("languages each judge reads (another language is not scored; the reason is printed):\n  "
              + "\n  ".join(languages_of(j) for j in ("rules", "lexical", "length", "MODEL"))
              + f"\nthe rules, lexical and length judges read reports of at most {MAX_REPORT_CHARS:,} characters "
              "(a longer one is not scored; the reason is printed)"
              + "\nexit status: 0 scored, 1 not scored (the reason is printed), 2 bad arguments")
    p = add("score", cmd_score, "judge one reference/candidate pair now, nothing stored (the CLI twin of Live "
            "scoring)", epilog)
    p.add_argument("--reference", required=True, metavar="TEXT|@FILE", help=_TEXT_HELP)
    p.add_argument("--candidate", required=True, metavar="TEXT|@FILE", help=_TEXT_HELP)
    p.add_argument("--judge", required=True, metavar="rules|lexical|length|MODEL",
                   help="an offline judge, or a litellm model name (e.g. openai/NAME on a local server)")
    p.add_argument("--prompt", default="green", help="a model judge's prompt (zero-shot: GREEN format, or CRIMSON's "
                   "with the context given below; default green): " + ", ".join(
                       s.id for s in PROMPTS.values() if s.live))
    add_api_base_flag(p)
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the key for --api-base")
    p.add_argument("--timeout", type=float, default=None, help="seconds for the model call (default: 600 for a "
                   "server on loopback or a private network, else 120)")
    p.add_argument("--max-tokens", type=int, default=None, help="output tokens of the answer (default: 8192 for "
                   "the CRIMSON prompts, 2048 for the others; a small local model may need fewer)")
    add_stop_flag(p)
    for name, what in (("age", "age"), ("sex", "sex"), ("indication", "indication (why the exam was done)"),
                       ("history", "comparison / history")):
        p.add_argument(f"--{name}", metavar="TEXT", help=f"the patient's {what}, for context-aware prompts (crimson) "
                       "and the rules judge's significance levels; the lexical and length judges and the "
                       "GREEN-format prompts ignore it")
