"""Is an answer honest? Its values must come from the episode's tools, and it must not paste their output.

Shared by every protocol that reads GT values out of a final answer:

* A call *shows* a value when it succeeded and its output holds the value (normalised as the answer match
  is, :func:`~mcp_persona.scoring.normalize.appears_in`) while its arguments do not: a tool that echoes what
  it was handed (a note written, a cell set) shows nothing the agent did not already have (unless the
  caller lets echoes count, below).
* A GT value is *grounded* when some call of the episode shows it. A value the agent works out from others
  (a sum, a difference, a price times a quantity) is declared with its arithmetic on the checkpoint
  (``derived``); it is grounded when every number of that expression was shown by a call or is stated in the
  instruction. The agent may do the arithmetic itself or with a tool; either way a calculator fed numbers
  nobody fetched grounds nothing, so a derived value never counts as grounded merely because a tool printed it.
* An answer of more than max(1500, 4 x the reference answer) characters is a *dump*: tool output pasted
  instead of an answer.

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

from mcp_persona.scoring.normalize import decoded, normalize
from mcp_persona.trajectory import ToolCallEvent

# An answer longer than this pastes tool output instead of answering (see ``answer_dump``).
DUMP_MIN_CHARS = 1500
DUMP_FACTOR = 4

# unsigned: a minus sign in "2026-05-08" is not a negative number; not glued to a word ("Q4", "G1", "memo_1")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")


def answer_dump(answer: str, reference: str) -> bool:
    """An answer of more than max(1500, 4 x the reference answer) characters: pasted output, not an answer.

    The paper's Acc still reads GT values out of it; the strict pass does not accept it."""
    return len(answer) > max(DUMP_MIN_CHARS, DUMP_FACTOR * len(reference))


def numbers(text: str) -> list[float]:
    """The numbers ``text`` states (normalised first: thousands separators dropped, JSON strings decoded)."""
    return [float(m) for m in _NUMBER.findall(normalize(decoded(text)))]


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


def derivation_problem(value: str, expression: str) -> str | None:
    """Why ``expression`` is no derivation of ``value`` (None when it is): it must be arithmetic over numbers
    that evaluates to the value to two decimals, or to the value's own precision when it states more
    (``8666.67`` for ``26000/3``; a coarser value says so: ``round(26000/3)``)."""
    from mcp_persona.apps._live.calc import CalcError, evaluate

    try:
        target = float(normalize(value))
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
        self.output = normalize(decoded(call.result))
        self.arguments = normalize(decoded(args or ""))
        self.output_numbers = [float(m) for m in _NUMBER.findall(self.output)]
        self.argument_numbers = [float(m) for m in _NUMBER.findall(self.arguments)]

    def handed(self, needle: str) -> bool:
        """Whether the call's arguments held the (normalised) value."""
        try:
            x = float(needle)
        except ValueError:
            return needle in self.arguments
        return self.handed_number(x)  # a number only as a number: not as digits of a folder name in a path

    def handed_number(self, x: float) -> bool:
        return any(_same(x, n) for n in self.argument_numbers)


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
        return bool(needle) and any(needle in s.output and (self.echoes or not s.handed(needle)) for s in self.seen)

    def shows_number(self, x: float) -> bool:
        return any(any(_same(x, n) for n in s.output_numbers) and (self.echoes or not s.handed_number(x))
                   for s in self.seen)

    def why_ungrounded(self, value: str, expression: str | None = None) -> str | None:
        """None when ``value`` is grounded (see the module), else why not, naming what no tool output held."""
        if expression is None:
            return None if self.shows(value) else f"{value} was not found in any tool output"
        missing = [x for x in operands(expression)
                   if not (any(_same(x, g) for g in self.given_numbers) or self.shows_number(x))]
        if not missing:
            return None
        return (f"{value} = {expression}, but no tool output nor the instruction holds "
                f"{', '.join(_show(x) for x in missing)}")


__all__ = ["DUMP_FACTOR", "DUMP_MIN_CHARS", "Evidence", "answer_dump", "derivation_problem", "numbers", "operands"]
