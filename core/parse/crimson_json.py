"""The JSON object of a CRIMSON answer, read as leniently as is safe.

:func:`read_crimson_json` returns the object and the names of the repairs it needed, or raises
:class:`CrimsonAnswerError` whose message says why there is no object (empty, no JSON, cut off, invalid).

What is tried, in order (the first text that parses to an object wins, so valid JSON is never altered):

1. the answer as given;
2. the repairs upstream's ``parse_json_response`` (rajpurkarlab/CRIMSON ``CRIMSON/utils.py``) makes before
   parsing: curly double quotes become escaped quotes, a ``["": [`` array-object hybrid becomes ``[``, a key
   missing its opening quote gets it;
3. the object alone: the content of a Markdown code fence, else the text from the first ``{`` to the last
   ``}`` (prose around the JSON);
4. then, one after the other and kept: trailing commas removed; invalid backslash escapes (``\\_``)
   doubled; bare strings inside an object (a key without a value) removed; unescaped quotes inside string
   values escaped, one at a time (at most 50);
5. the first complete object anywhere in the text.

Duplicate keys keep their first value, as upstream's parser does. A truncated answer (brackets still open at
its end) is never completed: the lists it lost would raise the score, so it is reported as cut off.
Differences from upstream, on purpose: upstream's bare-string removal is a regular expression that also drops
the middle items of a string list (``["P1", "P2", "P3"]`` loses ``"P2"``); here only strings directly inside
an object are removed. Upstream turns curly single quotes into ``\\'``; here they become ``'``.
"""

from __future__ import annotations

import json
import re

__all__ = ["CrimsonAnswerError", "read_crimson_json"]

MAX_QUOTE_FIXES = 50


class CrimsonAnswerError(ValueError):
    """A CRIMSON answer that cannot be scored; the message is the reason recorded with it."""


def _keep_first(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        out.setdefault(key, value)
    return out


def _loads(text: str) -> object:
    return json.loads(text, object_pairs_hook=_keep_first)


_HYBRID = re.compile(r'\[""\s*:\s*\[')
# a key whose opening quote is missing, after a value and a comma or right after "{"
_KEY_WITHOUT_OPEN_QUOTE = re.compile(r'((?:[\]}"\d]\s*,|\{)\s*)([A-Za-z_]\w*")')
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_BAD_ESCAPE = re.compile(r'\\(?![\\"/bfnrtu])')
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def _upstream_prefixes(text: str) -> str:
    text = text.replace("\u201c", '\\"').replace("\u201d", '\\"').replace("\u2018", "'").replace("\u2019", "'")
    text = _HYBRID.sub("[", text)
    return _KEY_WITHOUT_OPEN_QUOTE.sub(r'\1"\2', text)


def _object_span(text: str) -> str:
    fenced = _FENCE.search(text)
    if fenced and "{" in fenced.group(1):
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start:end + 1] if 0 <= start < end else text.strip()


def _without_orphan_strings(text: str) -> str:
    """Remove strings standing alone inside an object (``{"a": 1, "orphan", "b": 2}``)."""
    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(text)
    expecting_key = False
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            token = text[i:j + 1]
            k = j + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if stack and stack[-1] == "{" and expecting_key and k < n and text[k] in ",}":
                while out and out[-1] in " \t\r\n":
                    out.pop()
                if out and out[-1] == ",":
                    out.pop()  # the comma before the orphan
                elif k < n and text[k] == ",":
                    k += 1  # an orphan right after "{": drop the comma after it
                i = k
                continue
            out.append(token)
            expecting_key = False
            i = j + 1
            continue
        if ch not in " \t\r\n":
            if ch in "{[":
                stack.append(ch)
            elif ch in "}]" and stack:
                stack.pop()
            expecting_key = ch in "{," and bool(stack) and stack[-1] == "{"
        out.append(ch)
        i += 1
    return "".join(out)


def _structural_quote(text: str, i: int) -> bool:
    """Is the quote at ``i`` a JSON delimiter rather than a quote inside a string value?"""
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if before in ":[{" or after in ":]}":
        return True
    if before == ",":
        return i >= 2 and (text[i - 2] in '"]}' or text[i - 2].isdigit())
    if after == ",":
        nxt = text[i + 2] if i + 2 < len(text) else ""
        return nxt in '"[{' or nxt.isdigit()
    return False


def _escape_inner_quotes(text: str) -> object:
    """Parse, escaping one stray quote before each error position, up to :data:`MAX_QUOTE_FIXES` times."""
    for _ in range(MAX_QUOTE_FIXES):
        try:
            return _loads(text)
        except json.JSONDecodeError as exc:
            for i in range(min(exc.pos, len(text) - 1), max(0, exc.pos - 5) - 1, -1):
                if text[i] == '"' and (i == 0 or text[i - 1] != "\\") and not _structural_quote(text, i):
                    text = text[:i] + '\\"' + text[i + 1:]
                    break
            else:
                raise
    raise json.JSONDecodeError("too many stray quotes", text, 0)


def _open_brackets(text: str) -> int:
    """Brackets opened and never closed, outside strings (> 0: the text was cut off)."""
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            esc, in_str = (False, in_str) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth + (1 if in_str else 0)


def _first_object(text: str) -> dict | None:
    decoder = json.JSONDecoder(object_pairs_hook=_keep_first)
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(obj, dict) and {"errors", "matched_findings", "reference_findings"} & set(obj):
            return obj
    return None


def read_crimson_json(text: object) -> tuple[dict, list[str]]:
    """The answer's JSON object and the repairs it needed (see the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise CrimsonAnswerError("empty answer: expected CRIMSON's JSON evaluation")
    steps: list[tuple[str, object]] = [("", text)]
    fixed = _upstream_prefixes(text)
    if fixed != text:
        steps.append(("quotes and keys fixed as upstream does", fixed))
    span = _object_span(fixed)
    if span != fixed.strip():
        steps.append(("prose or code fence around the JSON", span))
    for name, fix in (("trailing commas", lambda t: _TRAILING_COMMA.sub(r"\1", t)),
                      ("invalid backslash escapes", lambda t: _BAD_ESCAPE.sub(r"\\\\", t)),
                      ("keys without a value", _without_orphan_strings)):
        repaired = fix(span)
        if repaired != span:
            span = repaired
            steps.append((name, span))
    done: list[str] = []
    for name, candidate in steps:
        if name:
            done.append(name)
        try:
            obj = _loads(candidate)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(obj, dict):
            return obj, done
        raise CrimsonAnswerError(f"the answer is JSON but not an object (a {type(obj).__name__})")
    try:
        obj = _escape_inner_quotes(span)
        if isinstance(obj, dict):
            return obj, [*done, "unescaped quotes inside strings"]
    except (json.JSONDecodeError, RecursionError):
        pass
    obj = _first_object(text)
    if obj is not None:
        return obj, ["first complete JSON object of several"]
    if "{" not in text:
        raise CrimsonAnswerError("no JSON object in the answer")
    depth = _open_brackets(text[text.find("{"):])  # the answer itself: a repair may unbalance quotes
    if depth > 0:
        raise CrimsonAnswerError(f"the JSON answer is cut off ({len(text):,} characters, {depth} bracket(s) or "
                                 "string never closed): a truncated evaluation is not scored")
    try:
        _loads(span)
    except json.JSONDecodeError as exc:
        raise CrimsonAnswerError(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    raise CrimsonAnswerError("not valid JSON")  # pragma: no cover - every failing path raised above
