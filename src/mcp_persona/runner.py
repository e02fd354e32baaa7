"""Run episodes: task → environment → agent → trajectory → scores → store.

Episodes run concurrently up to a limit, each in its own environment; each is
stored the moment it ends. A resumed run skips the episodes already stored.
A protocol may ask for a reference execution beside the agent
(``Protocol.reference_agent``): it runs in the same task group, in an
environment of its own, and is kept with the episode.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any

import anyio

from mcp_persona import scratch
from mcp_persona.agents import Agent
from mcp_persona.agents.skills import Skills
from mcp_persona.context_tree import diff_states
from mcp_persona.environment import Environment
from mcp_persona.protocols import Protocol, protocol_of
from mcp_persona.protocols.base import PoolSpec, ReferenceExecution, ToolPool
from mcp_persona.run_config import Judging, RunConfig
from mcp_persona.store import EpisodeRecord, ReferenceRun, RunStore, RunStoreError
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

__all__ = ["Judging", "RunConfig", "run_episode", "run_suite"]  # a run's settings live below the protocols


def brief(trajectory: Trajectory, protocol: Protocol, task: Task, env: Environment, skills: Skills | None) -> None:
    """The messages the agent is given, written on its trajectory before it acts: the agent never sees the
    protocol, only what the protocol tells it (with the run's skill guides for the servers it can use)."""
    guides = skills.for_servers(sorted(env.apps)) if skills is not None else None
    trajectory.system_prompt = protocol.system_prompt(task, env, guides)
    trajectory.user_prompt = protocol.user_prompt(task)


async def run_episode(
    task: Task, agent: Agent, *, tools: ToolPool = "selected", epoch: int = 0, judging: Judging | None = None,
    protocol: Protocol | None = None, settings: dict[str, Any] | None = None, skills: Skills | None = None,
    context_distractors: int = 0,
) -> EpisodeRecord:
    """One episode; when the protocol asks for a reference execution, it runs concurrently with ``agent`` in an
    environment of its own (same pool, same start state), and is scored against and stored with the episode.
    ``protocol``: default, the task's suite's. ``skills`` and ``context_distractors``: what the run adds to the
    agent's prompts (a protocol that does not take them refuses them)."""
    protocol = protocol or protocol_of(task)
    if context_distractors:
        task = protocol.with_context_distractors(task, context_distractors)
    trajectory = Trajectory(task_id=task.id, agent=agent.name, model=agent.model)
    start = time.perf_counter()
    if epoch:  # another trial: other generated ids, same start state
        task = task.model_copy(update={"seed": task.seed + 7919 * epoch})
    try:
        spec = protocol.pool(task, protocol.settings(settings or {}), tools, epoch)
        environment = protocol.environment(task, tools, spec)
    except (KeyError, ValueError) as exc:  # an app or context the task needs is missing: this episode errs
        trajectory.stop_reason = "error"
        trajectory.error = f"environment: {exc}"
        return EpisodeRecord(task_id=task.id, epoch=epoch, category=task.spec.category, status="error",
                             trajectory=trajectory, error=trajectory.error)
    reference_agent = protocol.reference_agent(task)
    reference: ReferenceExecution | None = None
    async with AsyncExitStack() as stack:  # both environments stay open until the episode is scored
        env = await stack.enter_async_context(environment)
        brief(trajectory, protocol, task, env, skills)
        opening = 0.0
        if reference_agent is not None:
            opened = time.perf_counter()
            reference = await open_reference(stack, protocol, task, tools, spec, reference_agent)
            opening = time.perf_counter() - opened  # the reference's set-up is not the agent's time
        async with anyio.create_task_group() as tg:  # the agent and the reference run side by side
            tg.start_soon(act, agent, task, env, trajectory, start, opening)
            if reference is not None and reference.env is not None:
                assert reference_agent is not None
                tg.start_soon(run_reference, reference_agent, task, reference)
        internal = env.internal_errors()
        kept = reference_record(reference) if reference is not None else None
        if trajectory.stop_reason == "error":
            return EpisodeRecord(task_id=task.id, epoch=epoch, category=task.spec.category, status="error",
                                 trajectory=trajectory, internal_errors=internal, error=trajectory.error,
                                 reference=kept)
        score = await protocol.score(task, trajectory, env, reference)
        diff = state_changes(env)
    record = EpisodeRecord(task_id=task.id, epoch=epoch, category=task.spec.category, status="ok",
                           trajectory=trajectory, score=score, diff=diff, internal_errors=internal,
                           pool=spec.description, reference=kept)
    return await protocol.judge(task, record, judging)


async def run_agent(agent: Agent, task: Task, env: Environment, trajectory: Trajectory) -> str | None:
    """Run ``agent``; a crash (a broken agent or gold chain) is recorded on the trajectory and returned, never
    fatal to the run."""
    try:
        await agent.run(task, env, trajectory)
    except Exception as exc:
        trajectory.stop_reason = "error"
        trajectory.error = f"{type(exc).__name__}: {exc}"
    return trajectory.error if trajectory.stop_reason == "error" else None


async def act(agent: Agent, task: Task, env: Environment, trajectory: Trajectory, start: float,
              excluded: float) -> None:
    await run_agent(agent, task, env, trajectory)
    trajectory.elapsed_s = time.perf_counter() - start - excluded


async def open_reference(stack: AsyncExitStack, protocol: Protocol, task: Task, tools: ToolPool, spec: PoolSpec,
                         agent: Agent) -> ReferenceExecution:
    """The reference run's own environment over the same pool, opened on ``stack``; a failure to open it is
    the reference run's error, not the episode's."""
    reference = ReferenceExecution(Trajectory(task_id=task.id, agent=agent.name, model=agent.model))
    start = time.perf_counter()
    try:
        reference.env = await stack.enter_async_context(protocol.environment(task, tools, spec))
    except Exception as exc:
        reference.trajectory.stop_reason = "error"
        reference.error = reference.trajectory.error = f"environment: {type(exc).__name__}: {exc}"
    reference.trajectory.elapsed_s = time.perf_counter() - start
    return reference


async def run_reference(agent: Agent, task: Task, reference: ReferenceExecution) -> None:
    assert reference.env is not None
    trajectory = reference.trajectory
    start = time.perf_counter()
    # a crash is kept with the episode as the reference's error; the agent's episode goes on
    if (crash := await run_agent(agent, task, reference.env, trajectory)) is not None:
        reference.error = crash
    else:
        failed = [c for c in trajectory.tool_calls if c.is_error]
        if failed:  # a reference whose own call failed has no end state to score against
            first = failed[0]
            reference.error = (f"{len(failed)} reference call(s) failed, first {first.server}:{first.tool}: "
                               f"{first.result[:200]}")
    trajectory.elapsed_s += time.perf_counter() - start


def reference_record(reference: ReferenceExecution) -> ReferenceRun:
    env = reference.env
    return ReferenceRun(status="ok" if reference.ok else "error", trajectory=reference.trajectory,
                        diff=state_changes(env) if env is not None else [],
                        internal_errors=env.internal_errors() if env is not None else [], error=reference.error)


def state_changes(env: Environment) -> list[str]:
    final = env.final_states()
    return [f"{name}: {change.describe()}" for name in sorted(final)
            for change in diff_states(env.apps[name].app.hierarchy, env.initial[name], final[name])]


class RunStopped(RuntimeError):
    """The run was stopped before its end (the circuit breaker tripped); what was stored stays stored."""


class CircuitBreaker:
    """Stops a run whose model endpoint keeps failing: the same kind of endpoint failure (after the client's
    own retries) ending ``limit`` episodes in a row. An episode that ends well resets the count; errors that
    are not the endpoint's (an environment that cannot open, a broken agent) neither count nor reset."""

    def __init__(self, limit: int = 3) -> None:
        if limit < 1:
            raise ValueError("the circuit breaker's limit must be at least 1")
        self.limit = limit
        self.category: str | None = None
        self.count = 0
        self.last_error: str | None = None

    def observe(self, record: EpisodeRecord) -> str | None:
        """Note a finished episode; return why the run must stop, or None."""
        category = record.trajectory.error_category if record.status == "error" else None
        if record.status != "error":
            self.category, self.count = None, 0
            return None
        if category is None:
            return None
        self.count = self.count + 1 if category == self.category else 1
        self.category, self.last_error = category, record.error
        if self.count >= self.limit:
            return (f"{self.count} episodes in a row failed on the model endpoint ([{category}]); "
                    f"last: {self.last_error}")
        return None


async def run_suite(
    tasks: Sequence[Task],
    agent: Agent,
    store: RunStore,
    *,
    tools: ToolPool = "selected",
    concurrency: int = 1,
    context_distractors: int = 0,
    skills: Skills | None = None,
    trials: int = 1,
    judging: Judging | None = None,
    protocol: Protocol | None = None,
    settings: dict[str, Any] | None = None,
    on_start: Callable[[Task, int], None] | None = None,
    on_done: Callable[[EpisodeRecord], None] | None = None,
    breaker: CircuitBreaker | None = None,
    executor: Callable[[Task, int], Awaitable[EpisodeRecord]] | None = None,
) -> int:
    """Run every (task, trial) not yet finished in ``store``; return how many episodes ran now.

    With ``breaker``, RunStopped when it trips: the episodes in flight are cancelled (not stored, so
    ``--resume`` runs them), every finished one is stored. ``executor``: runs an episode elsewhere (a Ray
    cluster) and returns its record, in place of running it here; the store is still written here only."""
    if concurrency < 1 or trials < 1:
        raise ValueError("concurrency and trials must be at least 1")
    todo = pending(tasks, store, trials)
    limiter = anyio.CapacityLimiter(concurrency)
    stopped: list[str] = []

    async def one(task: Task, epoch: int) -> None:
        async with limiter:
            if on_start is not None:
                on_start(task, epoch)
            if executor is not None:
                record = await executor(task, epoch)
            else:
                record = await run_episode(task, agent, tools=tools, epoch=epoch, judging=judging, protocol=protocol,
                                           settings=settings, skills=skills, context_distractors=context_distractors)
            try:
                store.write(record)
            except RunStoreError as exc:  # a full disk, say: nothing more can be kept, so nothing more runs
                unwritable.append(exc)
                tg.cancel_scope.cancel()
                return
            if on_done is not None:
                on_done(record)
            if breaker is not None and (why := breaker.observe(record)) is not None and not stopped:
                stopped.append(why)
                tg.cancel_scope.cancel()

    unwritable: list[RunStoreError] = []
    # episodes' temporary folders under the run folder (local episodes; a Ray worker's are its machine's): what a
    # killed harness left there is swept now
    with scratch.under(store.path.parent / scratch.SCRATCH):
        async with anyio.create_task_group() as tg:
            for task, epoch in todo:
                tg.start_soon(one, task, epoch)
    if unwritable:
        raise unwritable[0]
    if stopped:
        raise RunStopped(stopped[0])
    return len(todo)


def pending(tasks: Sequence[Task], store: RunStore, trials: int = 1) -> list[tuple[Task, int]]:
    done = store.finished()
    return [(t, e) for e in range(trials) for t in tasks if (t.id, e) not in done]
