"""Judge answers as JSON: strict, lenient (trailing commas, Python quoting) or cut off.

:func:`parse_json_answer` finds the answer object in the text, reads its keys (aliases, case- and
punctuation-insensitive) into a :class:`core.parse.values.Draft`; the accepted shapes are in its docstring.
"""

from __future__ import annotations

import ast
import json
import re

from core.parse import values


def _norm_key(key: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


_JSON_KEYS = {
    "sig": {
        "clinically_significant_errors", "significant_errors", "significant",
        "clinically_significant", "sig", "sig_errors",
    },
    "insig": {
        "clinically_insignificant_errors", "insignificant_errors", "insignificant",
        "clinically_insignificant", "insig", "insig_errors", "non_significant_errors",
    },
    "matched": {
        "matched_findings", "matched", "matched_findings_count", "n_matched",
        "num_matched_findings", "number_of_matched_findings",
    },
    "overall": {
        "overall_score", "overall_accuracy_score", "accuracy_score", "score",
        "vert_score", "final_score", "overall",
    },
    "explanation": {"explanation", "rationale", "reasoning", "summary"},
}


def _json_kind(key: object) -> str | None:
    k = _norm_key(key)
    for kind, names in _JSON_KEYS.items():
        if k in names:
            return kind
    return None


def _json_count(value: object) -> tuple[int | None, list[str], str | None]:
    """Count from a JSON value: int, numeric/word string, list, or {"count": n}."""
    if isinstance(value, bool):
        return None, [], f"boolean {value} is not a count"
    if isinstance(value, int):
        if 0 <= value <= values.MAX_COUNT:
            return value, [], None
        return None, [], f"implausible count {value}"
    if isinstance(value, float):
        if value.is_integer() and 0 <= value <= values.MAX_COUNT:
            return int(value), [], None
        return None, [], f"count {value} is not a non-negative integer"
    if value is None:
        return None, [], "null count"
    if isinstance(value, str):
        count, rest, problem = values.read_count(value)
        if count is not None and not rest:
            return count, [], None
        if count is not None:
            return count, values.split_texts(rest), None
        return None, [], problem or f"count {value[:30]!r} not readable"
    if isinstance(value, list):
        texts = [str(_json_text(v)) for v in value]
        return len(value), [t for t in texts if t], None
    if isinstance(value, dict):
        count_value = None
        texts: list[str] = []
        for k, v in value.items():
            nk = _norm_key(k)
            if nk in {"count", "n", "number", "total", "num"}:
                count_value = v
            elif isinstance(v, list):
                texts.extend(str(_json_text(x)) for x in v)
            elif isinstance(v, str) and nk not in {"type", "name", "label", "category"}:
                texts.extend(values.split_texts(v))
        if count_value is None:
            if texts:
                return len(texts), texts, None
            return None, [], "no count in object"
        count, _, problem = _json_count(count_value)
        return count, (texts if count else []), problem
    return None, [], f"unsupported value {type(value).__name__}"


def _json_text(v: object) -> str:
    if isinstance(v, dict):
        for k in ("text", "error", "description", "finding", "explanation"):
            if k in v:
                return str(v[k]).strip()
        return json.dumps(v, sort_keys=True)
    return str(v).strip()


def _json_category(key: object) -> str | None:
    k = _norm_key(key)
    if re.fullmatch(r"[a-f]", k):
        return k
    if re.fullmatch(r"[1-6]", k):
        return values.CATEGORIES[int(k) - 1]
    m = re.match(r"^([a-f])_", k)
    if m and values.label_category(k.replace("_", " ")) in (None, m.group(1)):
        return m.group(1)
    return values.label_category(k.replace("_", " "))


def _json_error_section(
    value: object, significant: bool, cut_depth: int
) -> tuple[dict[str, int | None], list[values.ErrorItem], list[str]]:
    """Counts of one JSON error section.

    ``cut_depth`` > 0 when the answer was cut off inside this section: 2 means
    inside its object (later categories unknown), 3+ means inside the value of
    its last category (that count is unknown too).
    """
    name = "sig" if significant else "insig"
    cut = cut_depth > 0
    counts: dict[str, int | None] = {c: None for c in values.CATEGORIES}
    errors: list[values.ErrorItem] = []
    problems: list[str] = []
    if isinstance(value, str) and values.NONE_PHRASE.match(value.strip()):
        return {c: 0 for c in values.CATEGORIES}, [], []
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        # a list of error objects: [{"category": "a", "text": "..."}]
        if cut:
            return counts, [], [f"{name}: cut off inside its list of errors"]
        tallies = {c: 0 for c in values.CATEGORIES}
        for v in value:
            cat = None
            for k in ("category", "type", "error_type", "cat"):
                if k in v:
                    cat = _json_category(v[k])
                    break
            if cat is None:
                problems.append(f"{name}: error object without a category")
                return counts, [], problems
            tallies[cat] += 1
            errors.append(values.ErrorItem(cat, significant, _json_text(v)))
        return dict(tallies), errors, problems
    if not isinstance(value, dict):
        problems.append(f"{name}: expected an object per category, got {type(value).__name__}")
        return counts, [], problems
    listed: list[str] = []
    for k, v in value.items():
        cat = _json_category(k)
        if cat is None:
            if _norm_key(k) in {"total", "count", "sum"}:
                continue
            problems.append(f"{name}: unknown category key {str(k)[:30]!r}")
            continue
        count, texts, problem = _json_count(v)
        counts[cat] = count
        listed.append(cat)
        if cut_depth > 2 and k == list(value)[-1] and isinstance(v, (list, dict)):
            counts[cat], texts, problem = None, [], "cut off"
        if problem or count is None:
            problems.append(f"{name} ({cat}): {problem or 'count not readable'}")
        elif count:
            errors.extend(values.ErrorItem(cat, significant, t) for t in texts)
    unreadable = [c for c in listed if counts[c] is None]
    if not cut and not unreadable and listed:
        for c in values.CATEGORIES:
            if counts[c] is None:
                counts[c] = 0
    elif listed:
        missing = [c for c in values.CATEGORIES if counts[c] is None and c not in unreadable]
        if missing:
            problems.append(f"{name}: cut off, ({')('.join(missing)}) unknown")
    elif not listed and not problems:
        if cut:
            problems.append(f"{name}: cut off")
        else:
            return {c: 0 for c in values.CATEGORIES}, [], []
    return counts, errors, problems


def _find_json_objects(text: str) -> list[dict]:
    """Outermost JSON objects holding answer keys, in order of appearance."""
    decoder = json.JSONDecoder()
    found: list[dict] = []
    attempts = 0
    skip_until = 0
    for m in re.finditer(r"\{\s*[\"}]", text):
        if m.start() < skip_until:
            continue  # inside an answer object already taken
        attempts += 1
        if attempts > 100:
            break
        try:
            obj, end = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and _has_answer_keys(obj):
            found.append(obj)
            skip_until = end
    return found


def _has_answer_keys(obj: dict) -> bool:
    kinds = {_json_kind(k) for k in obj}
    if {"sig", "insig", "matched", "overall"} & kinds:
        return True
    nested = obj.get("errors")
    return isinstance(nested, dict) and bool({"sig", "insig"} & {_json_kind(k) for k in nested})


def _repair_truncated_json(s: str) -> tuple[dict | None, int]:
    """Close a JSON object cut off mid-way.  Returns (object, depth_at_cut)."""
    stack: list[str] = []
    in_str = esc = False
    cuts: list[tuple[int, tuple[str, ...]]] = []
    for i, ch in enumerate(s):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
                cuts.append((i + 1, tuple(stack)))
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(ch)
            cuts.append((i + 1, tuple(stack)))
        elif ch in "}]":
            if stack:
                stack.pop()
            cuts.append((i + 1, tuple(stack)))
            if not stack:
                return None, 0  # not truncated after all
        elif ch == ",":
            cuts.append((i, tuple(stack)))
        elif ch not in " \t\n" and i + 1 < len(s) and s[i + 1] in ",}] \t\n":
            cuts.append((i + 1, tuple(stack)))
    for pos, st in reversed(cuts[-300:]):
        if not st:
            continue
        candidate = s[:pos].rstrip().rstrip(",")
        closing = "".join("}" if c == "{" else "]" for c in reversed(st))
        try:
            obj = json.loads(candidate + closing)
        except (ValueError, RecursionError):
            continue
        if isinstance(obj, dict):
            return obj, len(st)
    return None, 0


_ANSWER_KEY_HINT = re.compile(
    r"[\"']\s*[^\"'\n]*(?:significant|matched|score)[^\"'\n]*[\"']\s*:", re.I
)


def _lenient_object(window: str) -> dict | None:
    """A complete object with trailing commas or Python-style quoting."""
    end = window.rfind("}")
    if end < 0:
        return None
    candidate = window[: end + 1]
    attempts = (
        lambda: json.loads(re.sub(r",\s*([}\]])", r"\1", candidate)),
        lambda: ast.literal_eval(candidate),
    )
    for attempt in attempts:
        try:
            obj = attempt()
        except Exception:  # noqa: BLE001 - any failure just means "not this form"
            continue
        if isinstance(obj, dict) and _has_answer_keys(obj):
            return obj
    return None


def parse_json_answer(text: str) -> values.Draft | None:
    """Read a JSON answer.

    Accepted shape (keys case/punctuation-insensitive; aliases in
    ``_JSON_KEYS``)::

        {
          "explanation": "...",
          "clinically_significant_errors": {"a": 1, "b": 0, ..., "f": 0},
          "clinically_insignificant_errors": {"a": 0, ...},
          "matched_findings": 3,
          "overall_score": 0.7
        }

    A category value may also be ``{"count": n, "errors": [...]}``, a list of
    error strings (counted), a numeric or word string; categories may be keyed
    ``"a"``, ``"(a)"``, ``"1"`` or by their label.  An error section may be a
    list of ``{"category": ..., "text": ...}`` objects.  ``matched_findings``
    may be a number, a list of findings, or ``{"count": n, "findings": [...]}``.
    Both error sections may sit under an ``"errors"`` object.  A JSON answer
    that was cut off is closed at its last complete value and read as partial.
    """
    objs = _find_json_objects(text)
    cut = False
    depth = 0
    lenient = False
    if objs:
        obj = objs[-1]
    else:
        start = None
        for k, m in enumerate(re.finditer(r"\{", text)):
            if k >= 200:
                break
            head = text[m.start(): m.start() + 400]
            if _ANSWER_KEY_HINT.search(head):
                start = m.start()
                break
        if start is None:
            return None
        # a judge answer is short; bound the work spent on junk input
        window = text[start: start + 50_000]
        obj = _lenient_object(window)
        if obj is not None:
            lenient = True
        else:
            obj, depth = _repair_truncated_json(window)
            if obj is None or not _has_answer_keys(obj):
                return None
            cut = True
    d = values.Draft(fmt="json")
    if isinstance(obj.get("errors"), dict):
        obj = {**obj["errors"], **{k: v for k, v in obj.items() if k != "errors"}}
    keys = list(obj)
    cut_key = keys[-1] if cut and depth > 1 and keys else None
    seen: set[str] = set()
    for k, v in obj.items():
        kind = _json_kind(k)
        if kind is None or kind in seen:
            continue
        seen.add(kind)
        this_cut = k == cut_key
        if kind in ("sig", "insig"):
            counts, errs, problems = _json_error_section(
                v, kind == "sig", depth if this_cut else 0
            )
            setattr(d, kind, counts)
            d.errors.extend(errs)
            d.problems.extend(problems)
            d.found_any = d.found_any or any(x is not None for x in counts.values())
        elif kind == "matched":
            count, texts, problem = _json_count(v)
            if this_cut and isinstance(v, (list, dict)):
                count, problem = None, "cut off"
            d.matched = count
            d.matched_findings = texts if count else []
            if problem or count is None:
                d.problems.append(f"matched findings: {problem or 'not readable'}")
            d.found_any = d.found_any or count is not None
        elif kind == "overall":
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                d.problems.append(f"overall score: unreadable value {str(v)[:30]!r}")
                continue
            value, problem = values.parse_score_value(str(v))
            d.overall = value
            if problem:
                d.problems.append(problem)
            d.found_any = d.found_any or value is not None
        elif kind == "explanation":
            d.explanation = v.strip() if isinstance(v, str) else json.dumps(v)
    missing = [k for k in ("sig", "insig", "matched") if k not in seen]
    if missing:
        names = ", ".join(values.SECTION_LABEL[k] for k in missing)
        d.problems.append(f"{'cut off: ' if cut else ''}missing {names}")
    if cut:
        d.problems.insert(0, "JSON answer cut off")
    if lenient:
        d.notes.append("non-strict JSON (trailing commas or Python quoting) accepted")
    return d
