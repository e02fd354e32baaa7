"""Is an answer honest? Its values must come from the episode's tools, and it must not paste their output.

Shared by every protocol that reads GT values out of a final answer:

* A call *shows* a value when it succeeded and its output holds the value (read as the answer is,
  :func:`~mcp_persona.scoring.normalize.appears_in`: a number as a number) while its arguments do not: a tool
  that echoes what it was handed (a note written, a cell set) shows nothing the agent did not already have (unless the
  caller lets echoes count, below).
* A GT value is *grounded* when some call of the episode shows it. A value the agent works out from others
  (a sum, a difference, a price times a quantity) is declared with its arithmetic on the checkpoint
  (``derived``); it is grounded when every number of that expression was shown by a call or is stated in the
  instruction. The agent may do the arithmetic itself or with a tool; either way a calculator fed numbers
  nobody fetched grounds nothing, so a derived value never counts as grounded merely because a tool printed it.
* An answer is a *dump* (tool output pasted instead of an answer) when it is more than max(1500, 4 x the
  reference answer) characters long, or when, whatever its length, it is mostly copied tool output
  (:class:`Paste`). Texts are compared in one form (:func:`verbatim_form`: JSON and URL escapes undone,
  normalised as the answer match is, whitespace dropped, so re-indenting a paste changes nothing). Copied text is
  a verbatim run of at least 40 characters common to the answer and a successful call's output, or a whole
  output of 16 to 39 characters; a run the call's own arguments hold is the agent's text echoed back (a
  message it sent), not copied. The answer is a dump when copied text is at least 75% of it (and 40 characters
  or more), or when it repeats at least half of all the text the calls returned (and at least 80 characters of
  it): the second catches outputs pasted whole inside a sentence or two of the agent's own. Characters are
  counted without whitespace.

  Measured on the gold replays of every task of persona, livemcpbench and livemcp101 (424): no reference answer
  is more than 64% copied (a URL an image tool built, names quoted) nor repeats more than 9% of the outputs;
  the gold calls' outputs pasted verbatim as the answer are at least 84% copied and repeat at least 99%, and
  with a sentence before and after they still repeat 99%. Runs shorter than 40 characters are quotes (a name,
  a title, an address, an id). Not caught: a paste padded with as much text of the agent's own (then the
  length rule may be), or a paste of all the tools returned when that is a line or two (under 80 characters:
  quoting a confirmation is answering).

Which calls may ground a value is the caller's choice (``Evidence.of(..., counts=...)``): a protocol whose
library marks pure computations leaves those out, since their output is a function of their arguments. So is
whether echoes count (``echoes=True``): MCP-Persona keeps counting them, since its agents rightly rewrite a
found value before writing it (a time put in the user's zone, a duration in minutes) and the write's echo is
where that form shows; its validation checks separately that gold reads return every GT value.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import unquote

from mcp_persona.scoring.normalize import decoded, mentioned, normalize, quantity, stated_numbers
from mcp_persona.trajectory import ToolCallEvent

# An answer longer than this pastes tool output instead of answering (see ``answer_dump``).
DUMP_MIN_CHARS = 1500
DUMP_FACTOR = 4
# Copied tool output (see the module and ``Paste``), measured on the bundled suites' gold replays.
PASTE_RUN = 40  # shorter common runs are quotes: a name, a title, an address, a date
PASTE_WHOLE = 16  # a whole output this long quoted entire is copied too (a short output has no 40-char run)
PASTE_ANSWER_SHARE = 0.75  # reference answers copy at most 64% of themselves, pasted outputs 84% and more
PASTE_OUTPUT_SHARE = 0.5  # reference answers repeat at most 9% of the outputs, pasted ones 99% and more
PASTE_MIN_REPEATED = 2 * PASTE_RUN  # under this, repeating "all" the outputs is quoting a line or two

# unsigned: a minus sign in "2026-05-08" is not a negative number; not glued to a word ("Q4", "G1", "memo_1")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")


def answer_dump(answer: str, reference: str, evidence: Evidence) -> str | None:
    """Why ``answer`` is pasted output rather than an answer (None when it is an answer): longer than
    max(1500, 4 x the reference answer) characters, or mostly copied from the ``evidence``'s calls (see
    :class:`Paste`).

    The paper's Acc still reads GT values out of it; the strict pass and LiveMCPBench's success do not accept
    it."""
    limit = max(DUMP_MIN_CHARS, DUMP_FACTOR * len(reference))
    if len(answer) > limit:
        return f"answer is {len(answer)} characters, over max({DUMP_MIN_CHARS}, {DUMP_FACTOR} x the reference's)"
    return evidence.pasted(answer).why_dump()


_ESCAPE = re.compile(r'\\+(u[0-9a-fA-F]{4}|["\\/bfnrt])')  # any depth: JSON inside a JSON string
_UNESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", '"': '"', "/": "/", "\\": "\\"}


def verbatim_form(text: str) -> str:
    """``text`` as copying is measured on: JSON and URL escapes undone, normalised as the answer match is, and
    without whitespace, so an output pasted raw, with its strings unescaped, re-indented, re-serialised with
    other separators or re-cased is the same text."""
    unescaped = _ESCAPE.sub(lambda m: chr(int(m[1][1:], 16)) if m[1][0] == "u" else _UNESCAPED[m[1]], text)
    return normalize(unquote(unescaped)).replace(" ", "")


@dataclass(frozen=True)
class Paste:
    """How much of an answer is copied from an episode's tool outputs (counts of characters in
    :func:`verbatim_form`, so whitespace is not counted)."""

    answer: int  # the answer's characters
    copied: int  # of those, characters inside text copied from some output
    output: int  # the outputs' characters, echoes of a call's own arguments left out
    repeated: int  # of those, characters the answer repeats

    @property
    def answer_share(self) -> float:
        return self.copied / self.answer if self.answer else 0.0

    @property
    def output_share(self) -> float:
        return self.repeated / self.output if self.output else 0.0

    def why_dump(self) -> str | None:
        """Why these counts make a dump (None when they do not), with the share that decides."""
        if self.copied >= PASTE_RUN and self.answer_share >= PASTE_ANSWER_SHARE:
            return f"answer is {self.answer_share:.0%} pasted tool output ({self.copied} of {self.answer} characters)"
        if self.repeated >= PASTE_MIN_REPEATED and self.output_share >= PASTE_OUTPUT_SHARE:
            return (f"answer repeats {self.output_share:.0%} of what the tools returned "
                    f"({self.repeated} of {self.output} characters)")
        return None


def numbers(text: str) -> list[float]:
    """The numbers ``text`` states (normalised first: thousands separators dropped, JSON strings decoded), with
    a scale word both ways: ``45k`` states 45 and 45000."""
    return _numbers(normalize(decoded(text)))


def _numbers(plain: str) -> list[float]:
    """The numbers a normalised text states: its digits, and each with its scale word (``45k``: 45 and 45000)."""
    return [float(m) for m in _NUMBER.findall(plain)] + [q.value for q in stated_numbers(plain)]


def operands(expression: str) -> list[float]:
    """The numbers an arithmetic expression is made of (its constants), in order."""
    tree = ast.parse(expression.strip().replace("^", "**"), mode="eval")
    found = [n for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, int | float) and not isinstance(n.value, bool)]
    return [float(n.value) for n in sorted(found, key=lambda n: n.col_offset)]  # walk order is breadth-first


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _show(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e15 else str(x)


# small counts as words: a derived count written so ("three rows") is grounded as its number is
CARDINALS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
             "twelve")


def derivation_problem(value: str, expression: str) -> str | None:
    """Why ``expression`` is no derivation of ``value`` (None when it is): it must be arithmetic over numbers
    that evaluates to the value to two decimals, or to the value's own precision when it states more
    (``8666.67`` for ``26000/3``; a coarser value says so: ``round(26000/3)``). A count may be written as a word
    (``three`` rows: an alternative of ``3``)."""
    from mcp_persona.apps._live.calc import CalcError, evaluate

    try:
        target = float(CARDINALS.index(normalize(value).strip()) if normalize(value).strip() in CARDINALS
                       else normalize(value))
    except ValueError:
        return f"derived value {value!r} is not a number"
    try:
        got = float(evaluate(expression))
        parts = operands(expression)
    except (CalcError, SyntaxError) as exc:
        return f"derivation of {value!r}: {exc}"
    if not parts:
        return f"derivation of {value!r}: {expression!r} holds no number"
    decimals = max(2, len(normalize(value).partition(".")[2]))
    if abs(got - target) > 0.5 * 10 ** -decimals + 1e-9:
        return f"derivation of {value!r}: {expression} = {got:g}, not {value}"
    return None


class _Seen:
    """One successful call as grounding reads it: normalised output and arguments, and their numbers."""

    def __init__(self, call: ToolCallEvent) -> None:
        args = json.dumps(call.arguments, ensure_ascii=False) if call.arguments is not None else call.raw_arguments
        self.result = call.result
        self.raw_arguments = args or ""
        self.output = normalize(decoded(call.result))
        self.arguments = normalize(decoded(args or ""))
        self.output_numbers = _numbers(self.output)
        self.argument_numbers = _numbers(self.arguments)

    @cached_property
    def verbatim(self) -> tuple[str, str, frozenset[str]]:
        """The :func:`verbatim_form` of the output and of the arguments, and the arguments' ``PASTE_RUN``-character
        runs (what of the output is an echo)."""
        own = verbatim_form(self.raw_arguments)
        runs = frozenset(own[i:i + PASTE_RUN] for i in range(len(own) - PASTE_RUN + 1))
        return verbatim_form(self.result), own, runs

    def handed(self, needle: str) -> bool:
        """Whether the call's arguments held the (normalised) value."""
        number = quantity(needle)
        if number is None:
            return needle in self.arguments
        return self.handed_number(number.value)  # a number only as a number: not as digits of a folder name

    def handed_number(self, x: float) -> bool:
        return any(_same(x, n) for n in self.argument_numbers)


# Conversion factors a careful solver knows without a tool (metres to feet, km to miles, kg to pounds and back):
# a derived value's expression may use them as if the instruction had stated them.
UNIT_FACTORS = (3.28084, 0.3048, 0.621371, 1.60934, 1.609344, 2.20462, 0.453592, 0.45359237)


@dataclass(frozen=True)
class Evidence:
    """What an episode's tools showed the agent, and what the task told it (its instruction)."""

    seen: tuple[_Seen, ...]
    given_numbers: tuple[float, ...] = ()
    echoes: bool = False  # whether a call's output counts for a value its own arguments held

    @classmethod
    def of(cls, calls: Iterable[ToolCallEvent], *, given: str = "",
           counts: Callable[[ToolCallEvent], bool] | None = None, echoes: bool = False) -> Evidence:
        """The successful ``calls`` (those ``counts`` accepts) and the numbers ``given`` states."""
        seen = tuple(_Seen(c) for c in calls if not c.is_error and (counts is None or counts(c)))
        return cls(seen, tuple(numbers(given)), echoes)

    def shows(self, value: str) -> bool:
        needle = normalize(value)
        return any(mentioned(needle, s.output) and (self.echoes or not s.handed(needle)) for s in self.seen)

    def shows_number(self, x: float) -> bool:
        return any(any(_same(x, n) for n in s.output_numbers) and (self.echoes or not s.handed_number(x))
                   for s in self.seen)

    def pasted(self, answer: str) -> Paste:
        """How much of ``answer`` is copied from these calls' outputs (see the module). Echoes are never copied
        text here, whatever ``echoes`` says: a value may be grounded by an echo, but text the agent wrote is its
        own. Linear in the outputs' length: each output is scanned once against the answer's runs."""
        text = verbatim_form(answer)
        if len(text) < PASTE_WHOLE:  # too short to hold anything copied
            return Paste(len(text), 0, 0, 0)
        k = PASTE_RUN
        at: dict[str, list[int]] = {}  # every k-character run of the answer, and where it starts
        for i in range(len(text) - k + 1):
            at.setdefault(text[i:i + k], []).append(i)
        copied = bytearray(len(text))
        marked: set[str] = set()  # runs already marked in the answer: a run repeated on both sides costs once
        output = repeated = 0
        for s in self.seen:
            out, own, echoed = s.verbatim
            hit, echo = bytearray(len(out)), bytearray(len(out))
            for i in range(len(out) - k + 1):
                run = out[i:i + k]
                if run in echoed:
                    echo[i:i + k] = b"\1" * k
                elif run in at:
                    hit[i:i + k] = b"\1" * k
                    if run not in marked:
                        marked.add(run)
                        for j in at[run]:
                            copied[j:j + k] = b"\1" * k
            if PASTE_WHOLE <= len(out) < k and out not in own and (j := text.find(out)) >= 0:
                hit[:] = b"\1" * len(out)
                while j >= 0:
                    copied[j:j + len(out)] = b"\1" * len(out)
                    j = text.find(out, j + 1)
            # characters of the output that are an echo and not repeated: one bit per byte, counted at C speed
            echo_only = int.from_bytes(echo, "little") & ~int.from_bytes(hit, "little")
            output += len(out) - echo_only.bit_count()
            repeated += hit.count(1)
        return Paste(len(text), copied.count(1), output, repeated)

    def why_ungrounded(self, value: str, expression: str | None = None) -> str | None:
        """None when ``value`` is grounded (see the module), else why not, naming what no tool output held."""
        if expression is None:
            return None if self.shows(value) else f"{value} was not found in any tool output"
        missing = [x for x in operands(expression)
                   if not (any(_same(x, g) for g in (*self.given_numbers, *UNIT_FACTORS)) or self.shows_number(x))]
        if not missing:
            return None
        return (f"{value} = {expression}, but no tool output nor the instruction holds "
                f"{', '.join(_show(x) for x in missing)}")


__all__ = ["DUMP_FACTOR", "DUMP_MIN_CHARS", "PASTE_ANSWER_SHARE", "PASTE_MIN_REPEATED", "PASTE_OUTPUT_SHARE",
           "PASTE_RUN", "PASTE_WHOLE",
           "UNIT_FACTORS", "Evidence", "Paste", "answer_dump", "derivation_problem", "numbers",
           "operands", "verbatim_form"]
