"""How an answer is read into what the store keeps, for every prompt of the table (core.prompts.specs).

A row's ``parser`` names one of the readers here (or its own module's): ``read_green`` (GREEN's format and
its variants: green, vert, formula, rubric, the few-shot prompts), ``read_crimson`` (CRIMSON's JSON, under the
run's category map), and the designed baselines' ``read_radfact`` / ``read_fineradscore``. The readers are
named by the table and resolved on use, so a process parses every prompt's answers the same way whatever it
imported before.
"""

from __future__ import annotations

from core.prompts.specs import prompt_spec, resolve

__all__ = ["answer_reader", "parsed_metrics", "read_crimson", "read_fineradscore", "read_green", "read_radfact",
           "read_result", "read_values"]


def parsed_metrics(result, prompt_id: str | None = None) -> dict[str, float]:
    """Metric values stored for one parsed GREEN-format answer.

    The scores (green, green_f1, formula, ec_sig, ec_total and the overall
    score, named after the prompt that asked for it: vert or rubric, the row's ``overall_metric``) plus the
    counts behind them: ``sig_a``..``sig_f``, ``insig_a``..``insig_f`` and
    ``matched``, which per-category analyses (F1, calibration) read. Unknown
    values (a truncated answer) are left out, never stored as 0.
    """
    spec = prompt_spec(prompt_id or "vert")
    overall = spec.overall_metric if spec is not None else "vert"
    out: dict[str, float] = {}
    for key, value in result.metrics.items():
        if value is None:
            continue
        if key == "vert":
            key = overall
        out[key] = float(value)
    for prefix, counts in (("sig", result.sig), ("insig", result.insig)):
        for cat, n in (counts or {}).items():
            if n is not None:
                out[f"{prefix}_{cat}"] = float(n)
    if result.matched is not None:
        out["matched"] = float(result.matched)
    return out


def read_green(text: str, options: dict | None = None):
    """A GREEN-format answer (any of its variants) as a ParseResult; ``options`` are not read."""
    from core.parse import parse_output

    return parse_output(text)


def read_crimson(text: str, options: dict):
    """A CRIMSON JSON answer as a ParseResult, under the run's category map (``options["crimson_map"]``)."""
    from core.parse.crimson import parse_category_map, parse_crimson

    return parse_crimson(text, parse_category_map(options.get("crimson_map")))


def read_radfact(text: str):
    from core.prompts import parse_radfact_answer

    try:
        r = parse_radfact_answer(text)
    except ValueError as exc:
        return "failed", str(exc)[:300], {}
    values = {"radfact": r["logical_f1"], "radfact_precision": r["logical_precision"],
              "radfact_recall": r["logical_recall"]}
    return ("ok" if r["logical_f1"] is not None else "partial"), "", values


def read_fineradscore(text: str):
    from core.prompts import parse_fineradscore_answer

    try:
        r = parse_fineradscore_answer(text)
    except ValueError as exc:
        return "failed", str(exc)[:300], {}
    return "ok", "", {"fineradscore": r["severity_sum"], "fineradscore_corrections": r["n_corrections"],
                      "fineradscore_max": r["max_severity"]}


def read_values(prompt_id: str | None, text: str):
    """``(status, reason, metric values)`` for a prompt whose row answers ``"values"``; None for the others."""
    spec = prompt_spec(prompt_id)
    if spec is None or spec.answer != "values" or spec.parser is None:
        return None
    return resolve(spec.parser)(text)


def read_result(prompt_id: str | None, text: str, options: dict | None = None):
    """The ParseResult of an answer to a ``"result"`` prompt (GREEN's format for an id the table lacks)."""
    spec = prompt_spec(prompt_id)
    parser = resolve(spec.parser) if spec is not None and spec.parser else read_green
    return parser(text, options or {})


def answer_reader(prompt_id: str | None):
    """How a prompt's own answer format is read into a ParseResult, as ``reader(text, run_params)``, for a
    prompt whose parser reads the run's params (CRIMSON's, its category map); None for the others."""
    spec = prompt_spec(prompt_id)
    return resolve(spec.parser) if spec is not None and spec.options and spec.parser else None
