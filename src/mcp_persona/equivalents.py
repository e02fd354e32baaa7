"""Equivalence testing of a task: do its checks accept the right answer in any reasonable form?

The mirror of mutation testing (:mod:`mcp_persona.mutants`): from the reference answer and the gold chain we
derive *equivalent* variants, forms a careful reader accepts as the same answer, replay each on a fresh
environment through the suite's own scorers, and require the full score the gold replay gets:

* ``opening``   — a sentence of the agent's own before the answer;
* ``emphasis``  — every number with thousands separators and in bold (``**1,082.68**``, ``**$22,495.55**``);
* ``rounded``   — numbers rounded as a reader would: more than two decimals to two, a figure of 1,000 or
  more to a whole number, said to be approximate (``about 1,083``);
* ``reordered`` — the answer's sentences in reverse order;
* ``dates``     — ISO dates written out (``2026-03-09`` -> ``March 9, 2026``);
* ``files``     — the gold chain's free text written in another layout: ``Label: value`` lines as
  ``**Label:** value``, table rows as ``a: b`` lines, numbers with thousands separators and, where the checks
  read the documents the agent leaves (LiveMCPBench), a number written to a spreadsheet cell as a formula that
  computes it (a derived value's own arithmetic, else ``=value``);
* ``free_text`` — where only the calls are scored (MCPAgentBench), every free-text argument retyped: its first
  letter in the other case and, for a sentence, its closing period added or left out;
* ``facts``     — a *semantic* rewrite: an answer built from the task's facts alone (each checkpoint's values on
  a line of their own, in reverse order, a value with what is said next to it (``beside``) beside it, and each
  comparison's claim in words of its own), sharing no sentence
  with the reference answer: checks that need the reference's wording or layout lose it.

Beside them, *fact-breaking* rewrites of that same answer must lose the score (a check that keeps it cannot
tell a wrong answer from a right one):

* ``value_off``     — one numeric value off (by a tenth and one), a value no gold call passes on (a value the
  agent writes somewhere is checked there, not in the answer);
* ``swapped_claim`` — a comparison's claim turned round: a rival put where the winner should be; and what is said
  next to two values (``beside``) swapped between them.

A variant that does not change anything is not counted. A variant that loses the score fails ``validate``
unless the task carries a written exemption saying why that form is wrong (``equivalence_exemptions``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import CheckedSpec, SearchCheckpoint, Task, checkpoints_of
from mcp_persona.tasks.models import EquivalenceExemption

if TYPE_CHECKING:
    from mcp_persona.protocols.base import Protocol

EquivalentKind = Literal["opening", "emphasis", "rounded", "reordered", "dates", "files", "free_text", "facts",
                         "value_off", "swapped_claim"]
KINDS: tuple[EquivalentKind, ...] = ("opening", "emphasis", "rounded", "reordered", "dates", "files", "free_text",
                                     "facts", "value_off", "swapped_claim")
BREAKING: frozenset[EquivalentKind] = frozenset({"value_off", "swapped_claim"})
OPENING = "Sure, I looked into it. Here is what I found.\n\n"

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
# a plain ISO date (not the date of a timestamp), and a number that is no part of a date, time, id or version
_ISO_DATE = re.compile(r"(?<![\w/-])(\d{4})-(\d{2})-(\d{2})(?![\w:/-]|\.\w)")
_FIGURE = re.compile(r"(?<![\w.,/:#@$£€¥-])([$£€¥]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,:/-]\d)")
_MASKED = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"
                     r"|\d{1,2}:\d{2}(?::\d{2})?|\b[\w.-]+@[\w.-]+|(?:https?://|/)\S+|\bv?\d+(?:\.\d+){2,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(*])")
_LABEL = re.compile(r"^(\s*[-*]?\s*)([A-Za-z][\w /()-]{0,40}):(?=\s)", re.M)
_ROW = re.compile(r"^\|(.+)\|[ \t]*$", re.M)
_FRONTMATTER = re.compile(r"^---\n.*?\n---\n", re.S)


def _outside_masks(text: str, pattern: re.Pattern[str], repl: Callable[[re.Match[str]], str]) -> str:
    """``pattern`` replaced by ``repl`` except inside dates, times, addresses, paths and versions."""
    out, last = [], 0
    for m in _MASKED.finditer(text):
        out.append(pattern.sub(repl, text[last:m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(pattern.sub(repl, text[last:]))
    return "".join(out)


def _is_year(digits: str, decimals: str | None) -> bool:
    return decimals is None and len(digits) == 4 and 1900 <= int(digits) <= 2100


def _grouped(whole: int) -> str:
    """An integer with thousands separators; one of ten digits or more is an id or a phone number, kept whole."""
    return str(whole) if whole >= 10**9 else f"{whole:,}"


def emphasised(text: str) -> str:
    """Every figure with thousands separators and in bold."""
    def repl(m: re.Match[str]) -> str:
        cur, digits, dec = m.group(1), m.group(2).replace(",", ""), m.group(3)
        if _is_year(digits, dec):
            return m.group(0)
        return f"**{cur}{_grouped(int(digits))}{dec or ''}**"
    return _outside_masks(text, _FIGURE, repl)


def rounded(text: str) -> str:
    """Figures rounded as a reader would: more than two decimals to two, and from 1,000 up to a whole number
    said to be approximate (``about 1,083``)."""
    def repl(m: re.Match[str]) -> str:
        cur, digits, dec = m.group(1), m.group(2).replace(",", ""), m.group(3)
        if not dec or (len(dec) <= 3 and float(digits) < 1000):
            return m.group(0)
        value = float(digits + dec)
        if value < 1000:
            return f"{cur}{value:.2f}"
        about = "" if m.string[max(0, m.start() - 6):m.start()].lower().endswith("about ") else "about "
        return f"{about}{cur}{_grouped(round(value))}"
    return _outside_masks(text, _FIGURE, repl)


def written_dates(text: str) -> str:
    return _ISO_DATE.sub(lambda m: f"{_MONTHS[int(m[2]) - 1]} {int(m[3])}, {m[1]}"
                         if 1 <= int(m[2]) <= 12 else m.group(0), text)


def reordered(text: str) -> str:
    parts = [p for p in _SENTENCE.split(text.strip()) if p.strip()]
    return " ".join(reversed(parts)) if len(parts) > 1 else text


ANSWER_VARIANTS: dict[EquivalentKind, Callable[[str], str]] = {
    "opening": lambda a: OPENING + a,
    "emphasis": emphasised,
    "rounded": rounded,
    "reordered": reordered,
    "dates": written_dates,
}


def relaid(text: str) -> str:
    """Free text written in another layout: ``**Label:** value``, table rows as ``a: b`` lines (the header's
    separator row dropped), figures with thousands separators; a leading YAML front matter block is kept."""
    front = _FRONTMATTER.match(text)
    if front is not None:  # a note's metadata block is data, not layout: kept as it is
        return front.group(0) + relaid(text[front.end():])

    def row(m: re.Match[str]) -> str:
        cells = [c.strip() for c in m.group(1).split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            return ""
        return f"- {cells[0]}: " + ", ".join(cells[1:])

    out = _ROW.sub(row, text)
    out = _LABEL.sub(lambda m: f"{m.group(1)}**{m.group(2)}:**", out)

    def figure(m: re.Match[str]) -> str:
        cur, digits, dec = m.group(1), m.group(2).replace(",", ""), m.group(3)
        return m.group(0) if _is_year(digits, dec) else f"{cur}{_grouped(int(digits))}{dec or ''}"
    return _outside_masks(out, _FIGURE, figure)


def _formula(value: float, task: Task) -> str:
    """A formula that computes ``value``: a derived value's own arithmetic where a checkpoint declares one."""
    for cp in checkpoints_of(task):
        if isinstance(cp, SearchCheckpoint):
            for gt, expression in cp.derived.items():
                try:
                    if abs(float(gt) - value) < 0.005 + 1e-9:
                        return "=" + expression.replace("**", "^")
                except ValueError:
                    continue
    return f"={value}"


# arguments that hold what a document says (free text an agent lays out its own way); code, queries and
# expressions are not relaid
CONTENT_KEYS = frozenset({"content", "body", "text", "title", "message", "description", "notes", "markdown",
                          "data", "values", "rows"})


def relaid_arguments(arguments: Any, task: Task, *, formulas: bool, key: str = "") -> Any:
    """The arguments of a call with the free text of its content arguments (:data:`CONTENT_KEYS`) relaid
    (:func:`relaid`) and, with ``formulas``, the numbers of a values grid (a list of rows) written as formulas
    that compute them; anything else as it is."""
    if isinstance(arguments, dict):
        if set(arguments) == {"$ref"}:
            return arguments
        return {k: relaid_arguments(v, task, formulas=formulas, key=k) for k, v in arguments.items()}
    if key not in CONTENT_KEYS:
        return arguments
    if isinstance(arguments, list):
        if formulas and arguments and all(isinstance(r, list) for r in arguments):  # a grid of cells
            return [[_formula(c, task) if isinstance(c, int | float) and not isinstance(c, bool) else c for c in r]
                    for r in arguments]
        return [relaid_arguments(v, task, formulas=formulas, key=key) for v in arguments]
    if isinstance(arguments, str):
        return relaid(arguments)
    return arguments


@dataclass(frozen=True)
class Equivalent:
    kind: EquivalentKind
    answer: str  # the final answer the variant gives
    calls: Any  # the planned calls (a tuple of PlannedCall), the gold chain's or relaid ones

    @property
    def breaking(self) -> bool:
        return self.kind in BREAKING


@dataclass
class EquivalentResult:
    kind: EquivalentKind
    kept: bool  # scored as the gold replay does
    why: str  # what it lost, when it did not keep the score
    exempt: bool = False

    @property
    def breaking(self) -> bool:
        return self.kind in BREAKING

    @property
    def right(self) -> bool:
        """A preserving variant kept the score, a breaking one lost it."""
        return self.kept != self.breaking


@dataclass
class TaskEquivalence:
    task_id: str
    category: str
    results: list[EquivalentResult] = field(default_factory=list)

    @property
    def failures(self) -> list[EquivalentResult]:
        return [r for r in self.results if not r.right and not r.exempt]


def derive_equivalents(task: Task, *, files: bool = True, formulas: bool = False) -> list[Equivalent]:
    """Every variant of the task that changes something (see the module); ``formulas``: the checks read the
    documents the agent leaves (a spreadsheet's formula computes there), so numbers of a grid may be formulas."""
    from mcp_persona.mutants import PlannedCall, gold_plan

    plan = gold_plan(task)
    answer = task.reference_answer
    out = [Equivalent(kind, text, plan) for kind, make in ANSWER_VARIANTS.items()
           if answer and (text := make(answer)) != answer]
    out += semantic_rewrites(task, plan)
    if files:
        calls = tuple(PlannedCall(p.label, p.round, p.call.model_copy(
            update={"arguments": relaid_arguments(p.call.arguments, task, formulas=formulas)})) for p in plan)
        if any(json.dumps(a.call.arguments) != json.dumps(b.call.arguments) for a, b in zip(calls, plan, strict=True)):
            out.append(Equivalent("files", answer, calls))
    return out


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def facts_answer(task: Task, *, off: str | None = None, swap: bool = False) -> str | None:
    """An answer from the task's facts alone (see the module): its checkpoints' values, the value ``off`` put a
    tenth and one off, and, with ``swap``, every comparison's claim turned round. None without search facts."""
    lines: list[str] = []
    for i, cp in enumerate(c for c in checkpoints_of(task) if isinstance(c, SearchCheckpoint)):
        values = [_off(v) if v == off else v for v in cp.gt_value if v not in cp.beside]
        about = f"{cp.about.names[0]}: " if cp.about else ""  # a value stated beside what it is about
        if values:
            lines.append(f"Fact {i + 1}: {about}" + "; ".join(values))
        owners = list(cp.beside)
        if swap and len(owners) > 1:  # what is said of the first two turned round
            owners[0], owners[1] = owners[1], owners[0]
        for v, items in zip(owners, cp.beside.values(), strict=True):  # a value with what is said of it, alone
            said = [_off(w) if w == off else w for w in (it if isinstance(it, str) else it[0] for it in items)]
            lines.append(f"Fact {i + 1}: {_off(v) if v == off else v} ({', '.join(said)})")
        if cp.claim is not None:
            top, below = (cp.claim.rivals[0], [cp.claim.winner, *cp.claim.rivals[1:]]) if swap else \
                (cp.claim.winner, cp.claim.rivals)
            lines.append(f"{top} comes out on top, ahead of {', '.join(below)}." if cp.claim.up
                         else f"{top} is the lowest, below {', '.join(below)}.")
    return "Here is what I found.\n" + "\n".join(reversed(lines)) if lines else None


def _off(value: str) -> str:
    number = float(value.replace(",", ""))
    decimals = len(value.split(".")[1]) if "." in value else 0
    return f"{number * 1.1 + 1:.{decimals}f}"


def semantic_rewrites(task: Task, plan: Any) -> list[Equivalent]:
    """The ``facts`` answer, and the fact-breaking rewrites of it a task admits (see the module)."""
    facts = facts_answer(task)
    if facts is None:
        return []
    out = [Equivalent("facts", facts, plan)]
    passed_on = json.dumps([p.call.arguments for p in plan], ensure_ascii=False)
    said = [it if isinstance(it, str) else it[0] for cp in checkpoints_of(task) if isinstance(cp, SearchCheckpoint)
            for items in cp.beside.values() for it in items]
    numeric = [v for cp in checkpoints_of(task) if isinstance(cp, SearchCheckpoint) for v in cp.gt_value + said
               if _NUMBER.fullmatch(v.replace(",", "")) and not appears_in(v, passed_on)]
    if numeric:
        out.append(Equivalent("value_off", facts_answer(task, off=numeric[0]) or facts, plan))
    if any(isinstance(cp, SearchCheckpoint) and (cp.claim or len(cp.beside) > 1) for cp in checkpoints_of(task)):
        out.append(Equivalent("swapped_claim", facts_answer(task, swap=True) or facts, plan))
    return out


def retyped(text: str) -> str:
    """Free text as another writer types it: first letter in the other case and, for a sentence (four words or
    more: not a name, which nobody ends with a period), the closing period toggled."""
    flipped = text[:1].swapcase() + text[1:]
    if len(text.split()) < 4:
        return flipped
    return flipped[:-1] if flipped.endswith(".") else flipped + "."


def retyped_calls(task: Task) -> Any:
    """The gold chain with every free-text argument :func:`retyped` (how a model words a prompt, a comment)."""
    from mcp_persona.mutants import PlannedCall, gold_plan, is_free_text, replace_argument, string_leaves

    out = []
    for p in gold_plan(task):
        args = p.call.arguments
        for path, value in list(string_leaves(args)):
            if " " in value.strip() and is_free_text(value, ""):
                args = replace_argument(args, path, retyped(value))
        out.append(PlannedCall(p.label, p.round, p.call.model_copy(update={"arguments": args})))
    return tuple(out)


async def equivalence_test(task: Task, protocol: Protocol) -> TaskEquivalence:
    """Replay every variant through ``protocol``'s scorers: each must keep the full score
    (:meth:`~mcp_persona.protocols.base.Protocol.short_of_full`). A protocol that scores calls alone
    (MCPAgentBench: the answer is not scored) is given its free-text arguments retyped instead."""
    from mcp_persona.mutants import ReplayAgent, gold_plan
    from mcp_persona.runner import run_episode

    if protocol.scores_answer:
        variants = derive_equivalents(task, formulas=protocol.reads_documents)
    else:
        calls = retyped_calls(task)
        variants = [Equivalent("free_text", task.reference_answer, calls)] if calls != gold_plan(task) else []
    out = TaskEquivalence(task.id, task.spec.category)
    exempt = {e.kind for e in _exemptions(task)}
    for eq in variants:
        record = await run_episode(task, ReplayAgent(eq.calls, answer=eq.answer), protocol=protocol)
        why = protocol.short_of_full(record.score) if record.score is not None else f"errored: {record.error}"
        out.results.append(EquivalentResult(eq.kind, why is None, why or "", exempt=eq.kind in exempt))
    return out


def _exemptions(task: Task) -> list[EquivalenceExemption]:
    return task.spec.equivalence_exemptions if isinstance(task.spec, CheckedSpec) else []


def equivalence_problems(task: Task, result: TaskEquivalence) -> list[str]:
    """Variants that lost the score without an exemption, and exemptions that excuse nothing."""
    problems = [f"an equivalent answer loses the score ({r.kind}: {r.why}) — accept that form in the checks, or "
                f"add an equivalence exemption for {r.kind!r} saying why it is wrong" for r in result.failures
                if not r.breaking]
    problems += [f"a fact-breaking rewrite keeps the full score ({r.kind}) — the checks cannot tell that wrong "
                 f"answer from the right one" for r in result.failures if r.breaking]
    lost = {r.kind for r in result.results if not r.right}
    problems += [f"equivalence exemption {e.kind!r} excuses no variant" for e in _exemptions(task)
                 if e.kind not in lost]
    return problems


__all__ = [
    "ANSWER_VARIANTS",
    "BREAKING",
    "KINDS",
    "Equivalent",
    "EquivalentResult",
    "TaskEquivalence",
    "derive_equivalents",
    "emphasised",
    "equivalence_problems",
    "equivalence_test",
    "facts_answer",
    "relaid",
    "relaid_arguments",
    "reordered",
    "retyped",
    "rounded",
    "semantic_rewrites",
    "written_dates",
]
