"""MCP-Persona's checks of a task (``mcp-persona validate``): what makes a task usable, before its
checkpoints are mutation-tested.

A task passes when its servers, contexts and gold tools exist; each operate checkpoint is *not* already
satisfied by the start state (else any agent passes); its search GT values are not given away by the
instruction; every literal of the gold chain is discoverable (:mod:`mcp_persona.literals`); its gold chain
replays without a tool error; every search GT value appears in the gold tool outputs (so the ground truth
agrees with the context it came from); and the replay scores Acc = Exec-Acc = 1 with no collateral damage.
"""

from __future__ import annotations

from mcp_persona.apps import app_names, get_app
from mcp_persona.context_tree import ContextTree, PathError, TreeError
from mcp_persona.literals import ListingReference, literal_problems
from mcp_persona.protocols.base import Protocol
from mcp_persona.runner import run_episode
from mcp_persona.scoring.checkpoints import check_operate
from mcp_persona.scoring.normalize import appears_in
from mcp_persona.tasks import OperateCheckpoint, SearchCheckpoint, Task


def static_problems(task: Task) -> list[str]:
    problems: list[str] = []
    for sc in task.servers:
        if sc.server not in app_names():
            problems.append(f"unknown server {sc.server!r}")
        elif sc.context_id not in get_app(sc.server).context_ids():
            problems.append(f"{sc.server} has no context {sc.context_id!r}")
    if problems:
        return problems
    given = task.instruction + "\n" + "\n".join(task.spec.given_facts().values())
    for i, cp in enumerate(task.spec.checkpoints):
        if isinstance(cp, SearchCheckpoint):
            # a comparison's winner is named by the question itself: its claim is the fact checked
            leaked = [v for v in cp.gt_value if appears_in(v, given) and not (cp.claim and v == cp.claim.winner)]
            if leaked:
                problems.append(f"checkpoint {i}: GT {leaked} already stated in the instruction or context")
    for call in task.gold_calls:
        if call.tool not in get_app(call.server).tool_names:
            problems.append(f"gold call {call.qualified}: no such tool")
    for i, cp in enumerate(task.spec.checkpoints):
        if not isinstance(cp, OperateCheckpoint):
            continue
        app = get_app(cp.server)
        if cp.tool not in app.tool_names:
            problems.append(f"checkpoint {i}: {cp.server} has no tool {cp.tool!r}")
        if cp.entity is not None and cp.entity not in app.hierarchy.entities:
            problems.append(f"checkpoint {i}: {cp.server} has no entity type {cp.entity!r}")
            continue
        start = app.load_context(task.context_of(cp.server) or "")
        if cp.target is not None:
            try:
                ContextTree(app.hierarchy, start).get(cp.target)
            except (PathError, TreeError) as exc:
                problems.append(f"checkpoint {i}: target {cp.target!r} not in the start state ({exc})")
                continue
        if check_operate(i, cp, app.hierarchy, start, start).score == 1.0:
            problems.append(f"checkpoint {i}: already satisfied by the start state")
    return problems


async def check_task(task: Task, protocol: Protocol | None = None) -> list[str]:
    """``protocol``: the one whose prompts the agent is told (what makes a literal discoverable; by default the
    task's suite's); the replay itself is scored by the persona rules."""
    problems = static_problems(task)
    if problems:
        return problems
    if protocol is None:
        from mcp_persona.protocols import protocol_of

        protocol = protocol_of(task)
    agent = ListingReference(protocol)
    record = await run_episode(task, agent)
    if record.status == "error":
        return [f"gold replay failed: {record.error}"]
    for e in record.trajectory.tool_calls:
        if e.is_error:
            problems.append(f"gold call {e.server}:{e.tool} returned an error: {e.result[:160]}")
    problems.extend(literal_problems(task, record.trajectory.tool_calls, agent.listing))
    outputs = [e.result for e in record.trajectory.tool_calls]
    for i, cp in enumerate(task.spec.checkpoints):
        if isinstance(cp, SearchCheckpoint):
            # a derived value is worked out from shown numbers (grounding checks those), not shown itself
            missing = [v for v in cp.gt_value if v not in cp.derived and not any(appears_in(v, o) for o in outputs)]
            if missing:
                problems.append(f"checkpoint {i}: GT {missing} not in any gold tool output")
    assert record.score is not None
    for c in record.score.detail["checkpoints"]:
        if c["score"] is not None and c["score"] < 1.0:
            problems.append(f"checkpoint {c['index']} ({c['type']}) scores {c['score']} on replay: {c['reason']}")
    for c in record.score.detail["collateral"]:
        problems.append(f"gold replay causes collateral damage: {c}")
    if record.internal_errors:
        problems.extend(f"simulator crash: {e}" for e in record.internal_errors)
    return problems
