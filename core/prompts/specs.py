"""Every prompt's facts in one table: :data:`PROMPTS`, one frozen :class:`PromptSpec` row per prompt id.

Rendering (``core.prompts.render``), shots (``core.judges.shots``), parsing and storing an answer
(``core.judges.runs``), output budgets (``core.judges.messages``), the cost planner (``core.models``), the
CLI's ``--prompt`` help and the pages' prompt lists all read this table, and nothing adds to it at import or
run time: whether an answer can be parsed does not depend on which modules a process imported.

Code is named, not imported: ``render`` and ``parser`` are ``"module:function"`` strings, resolved on use
(:func:`resolve`), so this module imports nothing and every layer may read it. Adding a prompt family is one
row here plus its own module (docs/ARCHITECTURE.md, "Adding a prompt family").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Literal

__all__ = ["PROMPTS", "PromptSpec", "prompt_ids", "prompt_spec", "resolve"]

CATEGORIES = "abcdef"
#: The category counts a GREEN-format or CRIMSON answer stores beside its scores (core.judges.answers).
COUNTS = (*(f"sig_{c}" for c in CATEGORIES), *(f"insig_{c}" for c in CATEGORIES), "matched")
GREEN_SCORES = ("green", "green_f1", "formula", "ec_sig", "ec_total")
CRIMSON_SCORES = ("crimson", "crimson_false", "crimson_missing", "crimson_attribute", "crimson_location",
                  "crimson_severity", "crimson_descriptor", "crimson_measurement", "crimson_certainty",
                  "crimson_unspecific", "crimson_overinterpretation", "crimson_temporal", "crimson_e_false",
                  "crimson_e_miss", "crimson_e_attr")


@dataclass(frozen=True)
class PromptSpec:
    """One prompt: what it is made of, how it is rendered and read, what it costs and writes.

    ``use``: ``judge`` (a report-pair judge prompt: ``list_prompts()``, the CLI and the Run page),
    ``injection`` (rendered and read by ``core.prompts.injection``, never judged with), or ``runner``
    (rendered by its own runner, e.g. with images or a locale; its answers are still stored through this
    table's parser). ``render(spec, reference, candidate, shots, context) -> messages``; ``parser`` is
    ``(text, run_params) -> ParseResult`` when ``answer`` is ``"result"`` (scores, counts a-f, error texts) or
    ``text -> (status, reason, metric values)`` when it is ``"values"``.
    """

    id: str
    family: str  # green, baseline, fewshot, crimson, injection, review, adversarial, ...
    templates: tuple[str, ...] = ()  # template ids (core/prompts/templates) the prompt is made of, in order
    use: Literal["judge", "injection", "runner"] = "judge"
    render: str | None = "core.prompts.render:render_single"
    parser: str | None = "core.judges.answers:read_green"
    answer: Literal["result", "values"] = "result"
    options: tuple[str, ...] = ()  # run params the parser reads (CRIMSON: its category map)
    overall_metric: str = "vert"  # where a GREEN-format answer's overall score is stored
    metrics: tuple[str, ...] = ()  # the metric names its answers can write
    max_tokens: int = 2048  # output budget when the user sets none (part of the cache key and run id)
    assumed_output: int = 350  # output tokens per answer a plan assumes before any answer is stored
    shots: str | None = None  # few-shot variant (core.prompts.FEWSHOT_VARIANTS); None: zero-shot
    with_shots: str | None = None  # the few-shot prompt this zero-shot one becomes when shots are given
    shot_pool: str = ""  # what a few-shot prompt draws its shots from, and the commands that make it
    guidelines: bool = False  # CRIMSON: with upstream's guidelines
    reads_context: bool = False  # reads the pair's patient context (core.taxonomy.CONTEXT_FIELDS)
    live: bool = False  # offered by Live scoring (zero-shot, an answer read into GREEN's shape)
    cites: tuple[str, ...] = ()  # the works its text comes from (keys of core.paper.citations.REFERENCES)
    local_stop: tuple[str, ...] = ()  # stop sequences a local server gets by default (core.judges.localserver)


_VERT_PAPER = ("bologna2026vert",)
# Stop sequences a local server gets by default (local_stop). Left to run on, SmolLM2-135M restates its prompt,
# section by section (docs/LOCAL_MODELS.md): these are the prompt's own section headings at the start of a line,
# which no answer in the family's format holds. GREEN's sections are VERT's and its few-shot forms' too. A hosted
# API gets none; prompts not measured with a small model (formula, rubric, radfact, fineradscore) none either.
GREEN_HEADINGS = ("\n2. Reference Report:", "\n3. Candidate Report:", "\n4. Reporting Your Assessment:")
CRIMSON_HEADINGS = ("\nReference Findings (Ground Truth):", "\nPredicted Findings (Candidate):", "\nOutput Format:",
                    "\nIMPORTANT NOTES:")


def _green(pid: str, overall: str = "vert", cites: tuple[str, ...] = _VERT_PAPER,
           with_shots: str | None = None, local_stop: tuple[str, ...] = ()) -> PromptSpec:
    return PromptSpec(pid, "green", (pid,), overall_metric=overall, metrics=(*GREEN_SCORES, overall, *COUNTS),
                      live=True, cites=cites, with_shots=with_shots, local_stop=local_stop)


_VERT = (*GREEN_SCORES, "vert", *COUNTS)


def _fewshot(pid: str, variant: str, section: str, pool: str) -> PromptSpec:
    return PromptSpec(pid, "fewshot", ("vert", section, f"fewshot_example_{variant}"),
                      render="core.prompts.render:render_fewshot", metrics=_VERT, shots=variant, shot_pool=pool,
                      cites=_VERT_PAPER, local_stop=GREEN_HEADINGS)


def _crimson(pid: str, guidelines: bool, context: bool) -> PromptSpec:
    parts = ("crimson_system", "crimson" if guidelines else "crimson_noguide")
    parts += ("crimson_context_guidelines",) if guidelines and context else ()
    return PromptSpec(pid, "crimson", parts, render="core.prompts.render:render_crimson",
                      parser="core.judges.answers:read_crimson", options=("crimson_map",),
                      metrics=(*CRIMSON_SCORES, *COUNTS), max_tokens=8192, assumed_output=550,
                      guidelines=guidelines, reads_context=context, live=True, cites=("baharoon2026crimson",),
                      local_stop=CRIMSON_HEADINGS)


def _injection(pid: str, user: str) -> PromptSpec:
    return PromptSpec(pid, "injection", (pid, user), use="injection", render=None, parser=None)


# Output tokens a plan assumes (assumed_output): the count (litellm.token_counter, openai/gpt-4o-mini) of one
# worked answer in the prompt's own format for a chest X-ray pair of four findings a side, rounded up to 50
# (bench/output_tokens.py): CRIMSON's JSON 532 -> 550; GREEN's sections 341-349 -> 350; RadFact's JSON
# 324 -> 350; FineRadScore's 287 -> 300. CRIMSON's budget (max_tokens 8,192) is upstream generate_score.py's
# DEFAULT_MAX_NEW_TOKENS: its JSON answer lists every finding of both reports.
_ROWS = (
    _green("green", cites=("ostmeier2024green", "bologna2026vert"), local_stop=GREEN_HEADINGS),
    _green("green_original", cites=("ostmeier2024green",), local_stop=GREEN_HEADINGS),
    _green("vert", with_shots="vert_random", local_stop=GREEN_HEADINGS),  # vert with shots: D.5, the plain few-shot form
    _green("formula"), _green("rubric", "rubric"),
    PromptSpec("radfact", "baseline", ("radfact",), parser="core.judges.answers:read_radfact", answer="values",
               metrics=("radfact", "radfact_precision", "radfact_recall"), cites=("bannur2024maira2", "bologna2026vert")),
    PromptSpec("fineradscore", "baseline", ("fineradscore",), parser="core.judges.answers:read_fineradscore",
               answer="values", metrics=("fineradscore", "fineradscore_corrections", "fineradscore_max"),
               assumed_output=300, cites=("huang2024fineradscore", "bologna2026vert")),
    _fewshot("vert_random", "random", "fewshot_section_examples",
             "D.5: any dataset with expert scores or error counts; k random pairs"),
    _fewshot("vert_rad_err", "rad_err", "fewshot_section_examples",
             "D.6: a dataset with expert error counts; one pair per error type (a)-(f)"),
    _fewshot("vert_rate_err", "rate_err", "fewshot_section_examples",
             "D.7: a dataset made by `inject` holding single-error injections of both (a) and (b): "
             "python -m core inject --dataset SRC --target POOL --kind false_finding --k 1, then the "
             "same with --kind omission (same --target); shots from POOL"),
    _fewshot("vert_rad_err_10", "rad_err_10", "fewshot_section_rad_err_10",
             "D.8: a dataset with expert error counts; 10 random pairs"),
    _fewshot("vert_rate_err_10", "rate_err_10", "fewshot_section_rate_err_10",
             "D.9: a stored run of a judge's VERT answers (explanation, counts, matched findings, "
             "score) on the shots dataset: python -m core judge --dataset POOL --judge MODEL "
             "--prompt vert, then --shots-dataset POOL --shots-run RUN_ID (its run_id)"),
    _crimson("crimson", True, True), _crimson("crimson_nocontext", True, False),
    _crimson("crimson_noguide", False, True), _crimson("crimson_noguide_nocontext", False, False),
    _injection("inject_false_finding", "inject_user"), _injection("inject_omission", "inject_user"),
    _injection("plausibility", "plausibility_user"),
    # rendered by their own runners (images; a locale); their templates live beside them
    PromptSpec("radar_review", "review", use="runner", render=None, parser="core.review.prompt:parse_for_runs",
               answer="values", metrics=("review_agreement", "review_severity", "review_edit_type")),
    PromptSpec("laias_judge", "adversarial", use="runner", render=None,
               parser="core.checks.adversarial:parse_for_store", answer="values",
               metrics=("laias_adv_crit", "laias_adv_qual", "laias_adv_term", "laias_adv_guide", "laias_adv_rag",
                        "laias_adv_overall", "laias_adv_critical", "laias_adv_missing", "laias_adv_hallucinated")),
)

#: prompt id -> its row, in the order prompts are listed
PROMPTS: dict[str, PromptSpec] = {s.id: s for s in _ROWS}


def prompt_spec(prompt_id: str | None) -> PromptSpec | None:
    """The row of ``prompt_id``; None for an id that is not a prompt (an offline judge's, or None)."""
    return PROMPTS.get(prompt_id) if isinstance(prompt_id, str) else None


def prompt_ids(*uses: str, family: str | None = None) -> list[str]:
    """The ids of the rows with one of ``uses`` (default: judge prompts) and of ``family`` if given, in order."""
    uses = uses or ("judge",)
    return [s.id for s in PROMPTS.values() if s.use in uses and (family is None or s.family == family)]


def resolve(target: str):
    """The function a ``"module:function"`` string names, imported now (ValueError for a malformed one)."""
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"prompt table target {target!r} is not 'module:function'")
    return getattr(importlib.import_module(module), name)
