"""Normalized matching of expected values against text and state.

Deterministic and explainable: Unicode NFKC, case-folded, whitespace collapsed,
thousands separators dropped from numbers. A value "appears" in a text when its
normalized form is a substring of the text's normalized form; JSON strings inside
the text (such as a Lark message's ``{"text": ...}`` content) are decoded first.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

_WS = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")


def normalize(text: Any) -> str:
    s = unicodedata.normalize("NFKC", str(text)).casefold()
    s = _THOUSANDS.sub("", s)
    return _WS.sub(" ", s).strip()


def decoded(text: str) -> str:
    """``text`` plus the string values of any JSON object it holds (escapes undone)."""
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text
    parts: list[str] = [text]

    def walk(o: Any) -> None:
        if isinstance(o, str):
            parts.append(o)
            if o.strip().startswith(("{", "[")):
                walk(_try_json(o))
        elif isinstance(o, dict):
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(obj)
    return "\n".join(parts)


def _try_json(s: str) -> Any:
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        return None


def appears_in(value: Any, text: str) -> bool:
    needle = normalize(value)
    return bool(needle) and needle in normalize(decoded(text))


_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")


def looks_like_id(value: str) -> bool:
    """A value an agent cannot invent: an id, an email, a phone number, a file path. Free text (with
    spaces), bare numbers (timestamps, sizes) and plain words (enum values) are not."""
    if value.lstrip("-").isdigit():
        return len(value.lstrip("-")) >= 15  # snowflakes and long numeric ids; not timestamps or counts
    if len(value) < 4 or "\n" in value or _DATETIME.fullmatch(value.strip()):
        return False
    if re.search(r"\.[A-Za-z0-9]{1,5}$", value) and len(value) < 200:  # a file name or path, spaces or not
        return True
    if any(ch.isspace() for ch in value):
        return False
    has_digit, has_alpha = any(ch.isdigit() for ch in value), any(ch.isalpha() for ch in value)
    return (has_digit and has_alpha) or "@" in value or "/" in value or value.startswith("+")
