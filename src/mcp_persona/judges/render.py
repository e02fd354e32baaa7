"""What a judge is shown: sections of a prompt, each cut to a character budget the prompt states.

A long trajectory never silently overflows the judge's context, and the judge is
told which sections were cut and by how much (the marker carries the count), so it
does not mistake a cut for an omission by the agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

CUT_MARK = "[... {n} characters cut ...]"


@dataclass(frozen=True)
class Budgets:
    """Character budgets per prompt section (content characters; a cut adds its marker)."""

    instruction: int = 3000
    context: int = 2000
    checkpoint: int = 2000
    tool_calls: int = 12000  # the whole tool-call section
    tool_output: int = 1500  # one output relevant to what is judged
    other_output: int = 300  # one output not relevant to it
    arguments: int = 1000  # one call's arguments
    final_answer: int = 4000
    reference: int = 4000  # a reference answer or a reference plan
    state_changes: int = 3000
    key_points: int = 3000
    tool_descriptions: int = 6000
    scores: int = 2000

    def __post_init__(self) -> None:
        for f in fields(self):
            if getattr(self, f.name) < 50:
                raise ValueError(f"budget {f.name} must be at least 50 characters")


LABELS = {
    "instruction": "user request",
    "context": "user context",
    "checkpoint": "checkpoint",
    "tool_calls": "tool-call section (all calls together)",
    "tool_output": "each relevant tool output",
    "other_output": "each other tool output",
    "arguments": "each call's arguments",
    "final_answer": "final answer",
    "reference": "reference",
    "state_changes": "state changes",
    "key_points": "key points",
    "tool_descriptions": "tool descriptions",
    "scores": "rule-based scores",
}


def budget_note(budgets: Budgets, names: Sequence[str]) -> str:
    """The paragraph that tells the judge the budgets of the sections it is shown."""
    parts = ", ".join(f"{LABELS[n]} {getattr(budgets, n)}" for n in names)
    return (
        "Some evidence below may be truncated to fit fixed character budgets "
        f"({parts} characters). A cut keeps the beginning and the end and is marked "
        f"{CUT_MARK.format(n='N')}. Text that was cut is unknown to you: do not count it for or against "
        "the agent; judge on what is shown."
    )


def clip(text: str, budget: int) -> str:
    """``text`` cut to ``budget`` characters (two thirds from the start, one third from the end) with a marker."""
    if len(text) <= budget:
        return text
    head = (2 * budget) // 3
    tail = budget - head
    cut = len(text) - head - tail
    return text[:head] + CUT_MARK.format(n=cut) + (text[-tail:] if tail else "")


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=False, default=str)


def render_arguments(call: ToolCallEvent, budget: int) -> str:
    if call.arguments is None:
        return clip(call.raw_arguments or "", budget) + "  (arguments were not valid JSON)"
    return clip(compact_json(call.arguments), budget)


def qualified(call: ToolCallEvent) -> str:
    return f"{call.server}:{call.tool}" if call.server else f"{call.tool} (no such tool)"


def render_tool_calls(
    trajectory: Trajectory,
    budgets: Budgets,
    relevant: Callable[[ToolCallEvent], bool] | None = None,
) -> str:
    """One entry per tool call: round, tool, arguments, outcome and output.

    Outputs of relevant calls (all calls, if ``relevant`` is None) get ``tool_output`` characters each,
    the others ``other_output``; the whole section is then cut to ``tool_calls``.
    """
    calls = trajectory.tool_calls
    if not calls:
        return "(the agent made no tool call)"
    lines = []
    for i, call in enumerate(calls, 1):
        rel = relevant is None or relevant(call)
        out_budget = budgets.tool_output if rel else budgets.other_output
        status = "ERROR" if call.is_error else "ok"
        lines.append(
            f"#{i} (round {call.round + 1}) {qualified(call)}\n"
            f"  arguments: {render_arguments(call, budgets.arguments)}\n"
            f"  result ({status}): {clip(call.result, out_budget)}"
        )
    return clip("\n".join(lines), budgets.tool_calls)


def render_request(task: Task, budget: int) -> str:
    """The instruction, and when it was given (the agent was told the same time; "tomorrow" means by it)."""
    return f"{clip(task.instruction, budget)}\n(The request was made at {task.clock.describe()}.)"


def render_context(task: Task, budget: int) -> str:
    facts = task.spec.given_facts()
    if not facts:
        return "(none)"
    return clip("\n".join(f"- {k}: {v}" for k, v in facts.items()), budget)


def _readable_refs(value: Any) -> Any:
    """``{"$ref": "S.C:path"}`` → ``"<result of step S+1, call C+1: path>"`` (1-based, as the plan is shown)."""
    if isinstance(value, dict):
        if set(value) == {"$ref"} and isinstance(value["$ref"], str):
            where, _, path = value["$ref"].partition(":")
            step, _, call = where.partition(".")
            try:
                return f"<result of step {int(step) + 1}, call {int(call) + 1}: {path}>"
            except ValueError:
                return f"<{value['$ref']}>"
        return {k: _readable_refs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_readable_refs(v) for v in value]
    return value


def render_gold_plan(task: Task, budget: int) -> str:
    """The gold chain as numbered steps (calls in one step may run in parallel)."""
    if not task.gold:
        return "(no reference plan)"
    lines = []
    for si, step in enumerate(task.gold, 1):
        for ci, call in enumerate(step.calls, 1):
            tag = f"step {si}" + (f".{ci}" if len(step.calls) > 1 else "")
            lines.append(f"{tag}: {call.qualified} {compact_json(_readable_refs(call.arguments))}")
    return clip("\n".join(lines), budget)


def render_executed_plan(trajectory: Trajectory, budgets: Budgets) -> str:
    """A reference run's calls as numbered steps (a step is a round) with concrete arguments and the start of
    each result; the results are left out when they would push steps past the ``reference`` budget."""
    calls = trajectory.tool_calls
    if not calls:
        return "(the reference execution made no tool call)"
    step = {r: i for i, r in enumerate(sorted({c.round for c in calls}), 1)}
    per_step = {r: sum(c.round == r for c in calls) for r in step}

    def lines(with_results: bool) -> str:
        out, seen = [], dict.fromkeys(step, 0)
        for call in sorted(calls, key=lambda c: c.round):
            seen[call.round] += 1
            tag = f"step {step[call.round]}" + (f".{seen[call.round]}" if per_step[call.round] > 1 else "")
            out.append(f"{tag}: {qualified(call)} {render_arguments(call, budgets.arguments)}")
            if with_results:
                status = "ERROR" if call.is_error else "ok"
                out.append(f"  result ({status}): {clip(call.result, budgets.other_output)}")
        return "\n".join(out)

    full = lines(with_results=True)
    return clip(full if len(full) <= budgets.reference else lines(with_results=False), budgets.reference)


def render_list(items: Iterable[str], budget: int) -> str:
    lines = [f"{i}. {item}" for i, item in enumerate(items, 1)]
    return clip("\n".join(lines), budget) if lines else "(none)"


def section(title: str, body: str) -> str:
    return f"## {title}\n{body.strip() or '(empty)'}"


__all__ = [
    "CUT_MARK",
    "Budgets",
    "budget_note",
    "clip",
    "render_context",
    "render_executed_plan",
    "render_gold_plan",
    "render_list",
    "render_request",
    "render_tool_calls",
    "section",
]
