"""Reading a judge's answer: scores, error counts and matched findings from its text."""

from core.parse.result import ErrorItem, ParseResult, parse_output
from core.parse.text import MAX_INPUT_CHARS
from core.parse.values import CATEGORIES

__all__ = ["CATEGORIES", "MAX_INPUT_CHARS", "ErrorItem", "ParseResult", "parse_output"]
