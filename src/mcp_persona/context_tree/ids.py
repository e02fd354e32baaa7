"""Id generators per field format.

A format is a template such as ``"oc_{hex:32}"`` or ``"{uuid}_0"``. Placeholders:
``{hex:N}`` lowercase hex, ``{digits:N}``, ``{alnum:N}`` lowercase letters and
digits, ``{upper:N}`` uppercase letters and digits, ``{uuid}``. Everything else is
literal. Generation draws from a seeded ``random.Random`` owned by the episode,
so ids are reproducible run to run and never read the clock or the OS entropy.
"""

from __future__ import annotations

import random
import re
import string
import uuid
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator

_PLACEHOLDER = re.compile(r"\{(hex|digits|alnum|upper):(\d+)\}|\{uuid\}")
_ALPHABETS = {
    "hex": "0123456789abcdef",
    "digits": string.digits,
    "alnum": string.ascii_lowercase + string.digits,
    "upper": string.ascii_uppercase + string.digits,
}


def _check_format(fmt: str) -> str:
    if not _PLACEHOLDER.search(fmt):
        raise ValueError(f"id format {fmt!r} has no placeholder such as {{hex:8}} or {{uuid}}")
    leftover = _PLACEHOLDER.sub("", fmt)
    if "{" in leftover or "}" in leftover:
        raise ValueError(f"id format {fmt!r} has an unknown placeholder")
    return fmt


IdFormat = Annotated[str, AfterValidator(_check_format)]


def generate_id(fmt: str, rng: random.Random) -> str:
    out: list[str] = []
    for literal, alphabet, count in _template(fmt):
        out.append(literal)
        if alphabet is None:  # {uuid}
            out.append(str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        elif count:
            out.append(draw(alphabet, count, rng))
    return "".join(out)


@lru_cache(maxsize=512)  # every write generates an id; parsing its format once saves a regex pass per id
def _template(fmt: str) -> tuple[tuple[str, str | None, int], ...]:
    """``fmt`` as (literal text, alphabet or None for a uuid, count) steps, placeholders left to right
    (the order ``generate_id`` draws in); a trailing literal is a step with count 0."""
    steps: list[tuple[str, str | None, int]] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(fmt):
        literal = fmt[pos : m.start()]
        if m.group(0) == "{uuid}":
            steps.append((literal, None, 0))
        else:
            steps.append((literal, _ALPHABETS[m.group(1)], int(m.group(2))))
        pos = m.end()
    steps.append((fmt[pos:], "", 0))
    return tuple(steps)


def draw(alphabet: str, count: int, rng: random.Random) -> str:
    """``count`` characters, exactly as ``count`` calls of ``rng.choice(alphabet)`` would pick them.

    ``choice`` draws ``getrandbits(len(alphabet).bit_length())`` until the value is in range; doing that
    here, without a method call per character, makes an id ~3x cheaper (it is on every write's path)
    and keeps every seeded id unchanged (``tests/test_context_tree.py`` checks it against ``choice``).
    """
    n = len(alphabet)
    k = n.bit_length()
    bits = rng.getrandbits
    out = []
    for _ in range(count):
        r = bits(k)
        while r >= n:
            r = bits(k)
        out.append(alphabet[r])
    return "".join(out)


def matches_format(fmt: str, value: str) -> bool:
    """Whether ``value`` could have been produced by ``fmt`` (used to check context data)."""
    parts: list[str] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(fmt):
        parts.append(re.escape(fmt[pos : m.start()]))
        if m.group(0) == "{uuid}":
            parts.append(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        else:
            parts.append(f"[{re.escape(_ALPHABETS[m.group(1)])}]{{{m.group(2)}}}")
        pos = m.end()
    parts.append(re.escape(fmt[pos:]))
    return re.fullmatch("".join(parts), value) is not None
