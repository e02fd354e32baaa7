"""Normalized matching of expected values against text and state.

Deterministic and explainable: Unicode NFKC, case-folded, whitespace collapsed, thousands separators dropped
from numbers, markdown emphasis (``**bold**``, ``*italic*``, ``__bold__``, ``code``) dropped. JSON strings
inside the text (such as a Lark message's ``{"text": ...}`` content) are decoded first. A value "appears" in a
text when

* it is a number (optionally with a currency sign before or a unit after it: ``$439``, ``6.0``, ``12.0 °C``,
  ``31200000``): the text states a number that agrees with it (:func:`agrees`): the same number, or the same
  number rounded or cut to the precision either states, within :data:`TOLERANCE`; a scale word counts
  (``31.2 million``), units and currency signs around the text's number do not matter, and digits inside a
  date, a time or a version are no number of their own (``23.5万`` is 235,000: 万 and 亿 are scale words too); or
  the text holds the value as written, not inside a longer number (``518`` in ``天目山路518号``);
* a number in scientific notation (``2.55e-08``, ``2.55 × 10⁻⁸``) is that number written out, in the value and
  in the text;
* it is a date (``2026-03-09``): the text holds it, or writes it out (``March 9, 2026``, ``9 Mar 2026``);
* it is a clock time (``00:00``): the text holds it as a time, on the 24-hour or 12-hour clock (``12:00 AM``),
  the start of a range included (``1-5pm`` holds ``13:00``);
* otherwise: its normalized form is a substring of the text's normalized form.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_WS = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# bold / italic / code marks of markdown; a lone * between two words or numbers (2*3) is arithmetic, kept
_EMPHASIS = re.compile(r"\*\*+|__+|`+|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")


# "Hot & Sour Soup" is "Hot and Sour Soup"; an ampersand inside a word (AT&T, R&D) is kept
_AMPERSAND = re.compile(r"\s+&\s+")


def normalize(text: Any) -> str:
    s = unicodedata.normalize("NFKC", str(text)).casefold()
    s = _AMPERSAND.sub(" and ", s)
    s = _EMPHASIS.sub("", s)
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
    if not needle and str(value).strip():  # the markup itself is what is asked for (``**``: a bold title)
        return str(value).strip() in decoded(text)
    return mentioned(needle, _normalized(text))


def appears_as_word(value: Any, text: str) -> bool:
    """:func:`appears_in`, and the value stands as a word of its own there: ``MIT`` in ``MIT-licensed`` or
    ``(MIT)``, not in ``commits``."""
    needle = normalize(value)
    return appears_in(value, text) and re.search(rf"(?<![^\W_]){re.escape(needle)}(?![^\W_])",
                                                 _normalized(text)) is not None


@lru_cache(maxsize=512)
def _normalized(text: str) -> str:
    """A text as values are looked for in it (a tool output is searched once per GT value: kept)."""
    return normalize(decoded(text))


# -- numbers, dates and times as a reader reads them ---------------------------------------------------------
# How far a number the text states may be from the expected one when either is rounded (1083 for 1082.68 is
# 0.03% off; 31 million for 31.2 million 0.6%): a reader's rounding, never another figure.
TOLERANCE = 0.01
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
           "trillion": 1e12, "tn": 1e12, "t": 1e12, "万": 1e4, "亿": 1e8}
_CURRENCY = r"(?:[$£€¥₩₹]|us\$|s\$|hk\$|a\$|c\$|usd|gbp|eur|jpy|cny|rmb|krw|inr|hkd|sgd|aud|cad|chf)"
_UNIT = (r"(?:%|°\s?[cf]?|degrees?(?: [cf]| celsius| fahrenheit)?|[cf]|km|mi|miles?|ft|feet|foot|m|meters?|metres?|"
         r"cm|mm|kg|g|lbs?|pounds?|min|minutes?|h|hrs?|hours?|days?|nights?|mph|km/h|kmh|points?|pts|"
         r"usd|gbp|eur|jpy|cny|rmb|krw|inr|hkd|sgd|aud|cad|chf|dollars?|euros?|yen|won|rupees?|x)")
_QUANTITY = re.compile(rf"{_CURRENCY}?\s?(?P<sign>[-−])?\s?{_CURRENCY}?\s?(?P<int>\d+)(?:\.(?P<dec>\d+))?"
                       rf"(?:\s?(?P<scale>(?:thousand|million|billion|trillion|k|mn|m|bn|b|tn|t)\b|万|亿))?\s?{_UNIT}?")
# digits that are no number of their own: dates, clock times, versions (1.8.3)
_NOT_NUMBERS = re.compile(r"\d{4}[-/]\d{1,2}[-/]\d{1,2}(?:t\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?)?"
                          r"|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}:\d{2}(?::\d{2})?|\d+(?:\.\d+){2,}")
# a number glued to Latin letters is no number of its own (v2, A2); one after a CJK character is (请在3天内)
_NUMBER_IN_TEXT = re.compile(r"(?<![a-z0-9_.\u00c0-\u024f])(?P<sign>[-−](?=\d))?(?P<int>\d+)(?:\.(?P<dec>\d+))?"
                             r"(?![\d]|\.\d|[a-z]+\d)"
                             r"(?:\s?(?P<word>thousand|million|billion|trillion)\b|(?P<abbr>k|mn|m|bn|b|tn|t)\b|(?P<cjk>万|亿))?")


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its value and the place of its last digit (0.01 for ``1082.68``, 1 for ``1083``,
    100000 for ``31.2 million``)."""

    value: float
    unit: float


def quantity(needle: str) -> Quantity | None:
    """The number a (normalized) expected value is, when it is one (with a currency sign or a unit around it)."""
    m = _QUANTITY.fullmatch(needle)
    if m is None:
        return None
    return _quantity(m["sign"], m["int"], m["dec"], _SCALES[m["scale"]] if m["scale"] else 1.0)


def _quantity(sign: str | None, whole: str, dec: str | None, scale: float) -> Quantity:
    value = float(f"{whole}.{dec}" if dec else whole) * scale
    return Quantity(-value if sign else value, 10.0 ** -len(dec or "") * scale)


# A change stated in words: "fell 0.76%", "down $3.20", "declined by about 2%" is the number negative, as
# "-0.76%" writes it. Not a level: "fell to 150" (the word "to" after the verb) reads plainly.
_DECLINE = re.compile(r"\b(?:fell|falls?|fallen|falling|down|dropped|drops?|dropping|declined?|declines|declining|"
                      r"decreased?|decreases|lost|loses|slipped|slid|sank|tumbled|plunged|shed|lower by)"
                      r"\s+(?:by\s+)?(?:(?:about|around|roughly|nearly|almost|some|just|only|over|under)\s+)?"
                      rf"(?={_CURRENCY}?\s?\d)")


@lru_cache(maxsize=512)
def stated_numbers(text: str) -> tuple[Quantity, ...]:
    """Every number a (normalized) text states, read both plainly and with the scale word after it (``31.2m``
    may be metres or millions); an unsigned number right after a word of decline ("fell 0.76%") as negative
    only."""
    out: list[Quantity] = []
    plain = _NOT_NUMBERS.sub(" ", text)
    falls = {m.end() for m in _DECLINE.finditer(plain)}
    for m in _NUMBER_IN_TEXT.finditer(plain):
        sign = m["sign"]
        if sign is None and _after_decline(plain, m.start(), falls):
            sign = "-"
        out.append(_quantity(sign, m["int"], m["dec"], 1.0))
        word = m["word"] or m["abbr"] or m["cjk"]
        if word:
            out.append(_quantity(sign, m["int"], m["dec"], _SCALES[word]))
    return tuple(out)


def _after_decline(text: str, start: int, falls: set[int]) -> bool:
    """Whether the number at ``start`` follows a word of decline, a currency sign between them allowed."""
    return any(f <= start and not text[f:start].strip(" $£€¥₩₹") for f in falls)


def agrees(expected: Quantity, stated: Quantity, tolerance: float = TOLERANCE) -> bool:
    """Whether a stated number is the expected one as a reader reads it: equal, or, within ``tolerance``
    (relative), the more precise of the two rounded or cut to the other's last digit (``1083`` or ``1082``
    for 1082.68, ``1082.6772`` for 1082.68, ``9.32`` for 9.3; never 1038 for 1083 nor 31 for 31 million)."""
    e, s = expected.value, stated.value
    if math.isclose(e, s, rel_tol=1e-12, abs_tol=1e-12):
        return True
    if abs(e - s) > tolerance * abs(e):
        return False
    fine, coarse = (stated, expected) if stated.unit <= expected.unit else (expected, stated)
    steps = fine.value / coarse.unit
    nudge = math.copysign(1e-9, steps)
    return any(math.isclose(f * coarse.unit, coarse.value, rel_tol=1e-9, abs_tol=coarse.unit * 1e-6)
               for f in (math.floor(steps + 0.5 + nudge), math.trunc(steps + nudge)))


_MONTHS = {name: i + 1 for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")]) for name in names}
_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_WRITTEN_DATES = (re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(?P<year>\d{{4}})\b"),
                  re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b"),
                  re.compile(r"\b(?P<year>\d{4})/(?P<month>\d{1,2})/(?P<day>\d{1,2})\b"))
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME = re.compile(r"(\d{1,2}):(\d{2})")


def _dates(text: str) -> set[tuple[int, int, int]]:
    out = set()
    for pattern in _WRITTEN_DATES:
        for m in pattern.finditer(text):
            month = m["month"]
            out.add((int(m["year"]), int(month) if month.isdigit() else _MONTHS[month], int(m["day"])))
    return out


_YEARLESS = (re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?!:|,?\s+\d{{4}})"),
             re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?![a-z]|,?\s+\d{{4}})"))


def _month_day(needle: str) -> tuple[int, int] | None:
    """(month, day) of a date written without a year ("march 20", "20 march"), else None."""
    for pattern in _YEARLESS:
        if (m := pattern.fullmatch(needle)) is not None:
            return _MONTHS[m["month"]], int(m["day"])
    return None


def _month_days(text: str, *, yearless_only: bool = False) -> set[tuple[int, int]]:
    """(month, day) of every date the text writes, with its year or without (``yearless_only``: only those
    written without one, never "March 9, 2025")."""
    out: set[tuple[int, int]] = set()
    if not yearless_only:
        out = {(m, d) for _, m, d in _dates(text)} | {(int(m[2]), int(m[3])) for m in _ISO_DATE.finditer(text)}
    for pattern in _YEARLESS:
        out |= {(_MONTHS[m["month"]], int(m["day"])) for m in pattern.finditer(text)}
    return {(m, d) for m, d in out if 1 <= m <= 12 and 1 <= d <= 31}


def _times(text: str) -> set[tuple[int, int]]:
    """Clock times on the 24-hour clock (``9:05``, ``09:05``) and the 12-hour one (``9:05 pm``, ``12 am``)."""
    out = set()
    for m in re.finditer(r"(?<![\d:])(\d{1,2})(?::(\d{2}))?(?::\d{2})?\s?([ap])\.?m\b\.?", text):
        hour = int(m[1]) % 12 + (12 if m[3] == "p" else 0)
        out.add((hour, int(m[2] or 0)))
    for m in re.finditer(r"(?<![\d:])(\d{1,2}):(\d{2})(?!\d)(?!\s?[ap]\.?m\b)", text):
        out.add((int(m[1]), int(m[2])))
    # a range with one meridiem ("1-5pm", "between 1 and 5 pm"): its start is on the same half of the day,
    # unless it runs across noon ("11-1pm")
    for m in re.finditer(r"(?<![\d:])(\d{1,2})(?::(\d{2}))?\s?(?:-|–|—|~|to|and|until|till)\s?"
                         r"(\d{1,2})(?::\d{2})?\s?([ap])\.?m\b", text):
        start, end = int(m[1]), int(m[3])
        if start > 12 or end > 12:
            continue
        across = m[4] == "p" and start % 12 > end % 12
        out.add((start % 12 + (12 if m[4] == "p" and not across else 0), int(m[2] or 0)))
    return out


def _digits_in(needle: str, hay: str) -> bool:
    """The expected number's own text, not inside a longer number: ``518`` in ``天目山路518号`` or ``2.1`` in
    ``v2.1`` (a number glued to letters is no number of its own to :func:`stated_numbers`), or a change's
    size in ``-0.83`` (a GT without a sign asks for the magnitude); never ``72`` in ``1720`` nor ``1082`` in
    ``1082.68`` (that one agrees as a number, when it does). A GT with a sign keeps it: ``-5`` is not in ``5``."""
    return re.search(rf"(?<![\d.])(?<!\d\.){re.escape(needle)}(?!\d|\.\d)", hay) is not None


# a number in scientific notation: 2.55e-08, 2.55 × 10^-8, 2.55×10⁻⁸ (NFKC: 10−8), 2.55 x 10^(-8), 2.55·10⁻⁸
_SCI = re.compile(r"(?<![\w.])(?P<int>\d+)(?:\.(?P<dec>\d+))?(?:e(?=[-+−]|\d+(?![\w.]))"
                  r"|\s?(?:×|x|\*|·)\s?10(?:\^(?=\(?[-+−]?\d)|(?=[-−]\d)))"
                  r"\(?(?P<sign>[-+−]?)(?P<exp>\d{1,3})\)?(?![\w.])")


@lru_cache(maxsize=512)
def decimal_notation(text: str) -> str:
    """``text`` with its numbers in scientific notation written out (``2.55e-08`` -> ``0.0000000255``), to the
    precision their mantissa is stated with, so they compare as numbers."""
    def repl(m: re.Match[str]) -> str:
        exp = int(m["exp"]) * (-1 if m["sign"] in ("-", "−") else 1)
        mantissa = f"{m['int']}.{m['dec']}" if m["dec"] else m["int"]
        places = max(0, len(m["dec"] or "") - exp)
        return f"{float(mantissa) * 10.0 ** exp:.{places}f}"
    return _SCI.sub(repl, text) if ("e" in text or "10" in text) else text


def mentioned(needle: str, hay: str) -> bool:
    """Whether the normalized text ``hay`` holds the normalized value ``needle`` (see the module)."""
    if not needle:
        return False
    needle, hay = decimal_notation(needle), decimal_notation(hay)
    number = quantity(needle)
    if number is not None:
        return any(agrees(number, s) for s in stated_numbers(hay)) or _digits_in(needle, hay)
    if needle in hay:
        return True
    if (d := _ISO_DATE.fullmatch(needle)) is not None:
        # with its year, or without one (the task's own days: "March 9" is 2026-03-09 in a 2026 episode)
        return (int(d[1]), int(d[2]), int(d[3])) in _dates(hay) or \
            (int(d[2]), int(d[3])) in _month_days(hay, yearless_only=True)
    if (md := _month_day(needle)) is not None:  # "march 20" is also "20 march", "2026-03-20", "march 20, 2026"
        return md in _month_days(hay)
    if (t := _TIME.fullmatch(needle)) is not None:
        return (int(t[1]), int(t[2])) in _times(hay)
    return False


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
