"""Scoring an MCPAgentBench episode and a run.

**Finished**: the agent's calls, as a multiset, equal the gold calls: same tool names and arguments,
compared after :func:`normalize_arguments`. Every call counts, so a repeated or an extra call (even a
failed one) means not finished. A gold argument ``{"$ref": "S.C:path"}`` takes its value from the
agent's own result of the call that matched gold call (S, C).

**Efficiently finished**: finished, and the agent's assistant turns are the gold steps: the calls of
one gold step in one turn (parallel), the steps in order, one turn per step.

Normalisation of arguments: an argument left out and one given as its declared default (or null) are
the same; strings compare case-insensitively with runs of whitespace collapsed and closing punctuation
dropped (a prompt or a comment typed with or without its final period is the same text); a numeric string
and the number are equal (``"3"`` = ``3`` = ``3.0``); lists keep their order; objects compare by keys.

TFS / TEFS weight each task by its number of gold calls. ``tfs_paper`` is the peer code's rule: the
set of tool names equal, and the *set* of (tool, {key: str(value)}) equal, with no normalisation.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from mcp_persona.agents.reference import GoldReplayError, resolve_refs
from mcp_persona.protocols.mcpagentbench.library import library
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent, Trajectory

UNPARSED = "<arguments not valid JSON>"
_CLOSING = " .!?;:,。！？；："  # punctuation that closes a phrase; a value of only these stays as it is


def normalize_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else float(value)
    if isinstance(value, str):
        text = " ".join(value.split()).casefold()
        text = text.rstrip(_CLOSING) or text  # "...in #platform." = "...in #platform": one sentence, typed twice
        try:
            return normalize_value(float(text)) if text and text not in ("nan", "inf", "-inf") else text
        except ValueError:
            return text
    if isinstance(value, list):
        return [normalize_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize_value(v) for k, v in sorted(value.items())}
    return str(value)


def normalize_arguments(tool: str, arguments: dict[str, Any] | None) -> str:
    """A canonical text of the arguments (see the module doc); equal texts mean equal calls."""
    if arguments is None:
        return UNPARSED
    spec = library().get(tool)
    defaults = {k: normalize_value(v) for k, v in (spec.defaults if spec else {}).items()}
    kept = {}
    for key, value in arguments.items():
        norm = normalize_value(value)
        if norm is None or (key in defaults and defaults[key] == norm):
            continue
        kept[key] = norm
    return json.dumps(kept, sort_keys=True, ensure_ascii=False)


def call_key(tool: str, arguments: dict[str, Any] | None) -> tuple[str, str]:
    return tool, normalize_arguments(tool, arguments)


def score_calls(task: Task, calls: Sequence[ToolCallEvent]) -> dict[str, Any]:
    """Finished / efficiently finished / the paper's rule, for one episode's tool calls."""
    keys = [call_key(c.tool, c.arguments) for c in calls]
    used: set[int] = set()
    matched: dict[tuple[int, int], ToolCallEvent] = {}
    match_index: dict[tuple[int, int], int] = {}
    missing: list[str] = []
    for si, step in enumerate(task.gold):
        for ci, gold in enumerate(step.calls):
            try:
                args = resolve_refs(gold.arguments, matched)
            except GoldReplayError:  # the call it depends on was never made (or failed)
                missing.append(f"{gold.tool} (needs the result of gold call {si}.{ci})")
                continue
            want = call_key(gold.tool, args)
            hit = next((i for i, k in enumerate(keys) if i not in used and k == want), None)
            if hit is None:
                missing.append(f"{gold.tool} {want[1]}")
                continue
            used.add(hit)
            matched[(si, ci)] = calls[hit]
            match_index[(si, ci)] = hit
    extra = [f"{keys[i][0]} {keys[i][1]}" for i in range(len(calls)) if i not in used]
    finished = not missing and not extra
    efficient = finished and _same_turns(task, calls, match_index)
    return {"finished": finished, "efficient": efficient, "missing": missing, "extra": extra,
            "paper_finished": paper_finished(task, calls, matched), "turns": _turns(calls)}


def _turns(calls: Sequence[ToolCallEvent]) -> list[list[str]]:
    by_round: dict[int, list[str]] = defaultdict(list)
    for c in calls:
        by_round[c.round].append(c.tool)
    return [by_round[r] for r in sorted(by_round)]


def _same_turns(task: Task, calls: Sequence[ToolCallEvent], match_index: dict[tuple[int, int], int]) -> bool:
    """Each gold step's calls share one turn, and the steps' turns are distinct and in step order."""
    rounds = []
    for si, step in enumerate(task.gold):
        step_rounds = {calls[match_index[(si, ci)]].round for ci in range(len(step.calls))}
        if len(step_rounds) != 1:
            return False
        rounds.append(step_rounds.pop())
    return all(a < b for a, b in pairwise(rounds))


def paper_finished(task: Task, calls: Sequence[ToolCallEvent], matched: dict[tuple[int, int], ToolCallEvent]) -> bool:
    """The peer code's TFS rule: name sets equal and (tool, {k: str(v)}) sets equal; unparseable -> {}.
    Gold references resolve as far as the agent's calls allow (else the raw reference is compared)."""
    def frozen(tool: str, args: dict[str, Any] | None) -> tuple[str, frozenset[tuple[str, str]]]:
        return tool, frozenset((k, str(v)) for k, v in (args or {}).items())

    gold = []
    for step in task.gold:
        for call in step.calls:
            try:
                args = resolve_refs(call.arguments, matched)
            except GoldReplayError:
                args = call.arguments
            gold.append(frozen(call.tool, args))
    got = [frozen(c.tool, c.arguments) for c in calls]
    return {g[0] for g in gold} == {g[0] for g in got} and set(gold) == set(got)


def score_episode(task: Task, trajectory: Trajectory) -> dict[str, Any]:
    result = score_calls(task, trajectory.tool_calls)
    return {"acc": 1.0 if result["finished"] else 0.0, "exec_acc": None, "weight": len(task.gold_calls), **result}


# -- a run ---------------------------------------------------------------------------------------------
def weighted(items: Sequence[tuple[int, bool]]) -> float:
    total = sum(w for w, _ in items)
    return sum(w for w, ok in items if ok) / total if total else 0.0


def run_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """rows: one per episode with weight, finished, efficient, paper_finished, output_tokens, elapsed_s.

    Token efficiency = TEFS total score (sum of weights of efficiently finished episodes) per 1k output
    tokens; time efficiency = the same score per minute of episode time (None when nothing was spent)."""
    score = sum(r["weight"] for r in rows if r["efficient"])
    tokens = sum(r["output_tokens"] for r in rows)
    minutes = sum(r["elapsed_s"] for r in rows) / 60
    return {
        "n": len(rows),
        "tfs": weighted([(r["weight"], r["finished"]) for r in rows]),
        "tefs": weighted([(r["weight"], r["efficient"]) for r in rows]),
        "tfs_paper": weighted([(r["weight"], r["paper_finished"]) for r in rows]),
        "total_score": score,
        "token_efficiency": score / (tokens / 1000) if tokens else None,
        "time_efficiency": score / minutes if minutes else None,
    }


def grouped(rows: Sequence[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    return {k: run_metrics(v) for k, v in sorted(groups.items())}


def trial_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """avg@k: TFS / TEFS of each trial (epoch) and their mean, over the tasks every trial has."""
    epochs = sorted({r["epoch"] for r in rows})
    per = [run_metrics([r for r in rows if r["epoch"] == e]) for e in epochs]
    k = len(epochs)
    if not k:
        return {"trials": 0}
    return {"trials": k, "tfs_per_trial": [p["tfs"] for p in per], "tefs_per_trial": [p["tefs"] for p in per],
            f"tfs_avg@{k}": sum(p["tfs"] for p in per) / k, f"tefs_avg@{k}": sum(p["tefs"] for p in per) / k}

