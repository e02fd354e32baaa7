"""Episodes as Ray tasks: a run (or a sweep's cells) spread over a Ray cluster.

The driver (``mcp-persona run/sweep --executor ray``) stays the single writer of every run store: a worker
runs one episode (task, trial) from plain data (the task's JSON, the agent's recipe, the protocol's name and
settings) and returns the episode's record; the driver stores it. A worker that dies has its episode run
again by Ray (``max_retries``) and, since only returned records are stored, nothing is lost or stored twice.

Model endpoints keep one request limit for the whole cluster: one ``EndpointLimits`` actor holds a
semaphore per endpoint, and every worker's clients hold it around each request (``share_limits``).

Ray is an optional extra (``pip install -e ".[ray]"``); every node needs this package installed the same way.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from mcp_persona.agents.recipe import AgentRecipe
from mcp_persona.store import EpisodeRecord
from mcp_persona.tasks import Task

LIMITS_ACTOR = "mcp_persona_endpoint_limits"  # one per cluster namespace: every driver and worker finds it
NAMESPACE = "mcp_persona"
MAX_RETRIES = 3  # a worker that dies (or its node) has its episode run again, this many times at most
# An episode mostly waits on its model: a quarter of a CPU each lets a node run four at once (four worker
# processes per CPU). Measured with benchmarks/bench_sweep.py.
EPISODE_CPUS = 0.25


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached; the message says what to do."""


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable("the Ray executor needs Ray: pip install -e \".[ray]\"") from exc
    return ray


def connect(address: str | None) -> Any:
    """Join the cluster at ``address`` (``auto``: the one ``ray start`` made on this machine; None: a local
    one started for this process). Returns the ``ray`` module."""
    ray = _ray()
    if not ray.is_initialized():
        try:
            ray.init(address=address, namespace=NAMESPACE, logging_level="ERROR", log_to_driver=False,
                     include_dashboard=False, configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"cannot join the Ray cluster at {address or 'a new local one'}: {exc}") from exc
    return ray


def _limits_actor(ray: Any) -> Any:
    @ray.remote(num_cpus=0, max_concurrency=1000)
    class EndpointLimits:
        """A semaphore per model endpoint, for the whole cluster; it also notes the most requests ever held."""

        def __init__(self) -> None:
            self.semaphores: dict[str, asyncio.Semaphore] = {}
            self.held: dict[str, int] = {}
            self.peak: dict[str, int] = {}

        async def acquire(self, key: str, limit: int) -> None:
            semaphore = self.semaphores.setdefault(key, asyncio.Semaphore(limit))
            await semaphore.acquire()
            self.held[key] = self.held.get(key, 0) + 1
            self.peak[key] = max(self.peak.get(key, 0), self.held[key])

        async def release(self, key: str) -> None:
            self.held[key] -= 1
            self.semaphores[key].release()

        async def peaks(self) -> dict[str, int]:
            return dict(self.peak)

    return EndpointLimits.options(name=LIMITS_ACTOR, lifetime="detached", get_if_exists=True).remote()


class _SharedLimit:
    """An endpoint's cluster-wide limit, held around one request (an async context manager)."""

    def __init__(self, actor: Any, key: str, limit: int) -> None:
        self.actor, self.key, self.limit = actor, key, limit

    async def __aenter__(self) -> None:
        await self.actor.acquire.remote(self.key, self.limit)

    async def __aexit__(self, *exc: object) -> None:
        await self.actor.release.remote(self.key)


def _episode(task_json: str, epoch: int, recipe: dict[str, Any], protocol: str, settings: dict[str, Any],
             tools: str, context_distractors: int) -> str:
    """One episode in a worker: the agent built from its recipe, under the cluster's endpoint limits."""
    import anyio

    from mcp_persona.agents.skills import Skills
    from mcp_persona.llm.retry import share_limits
    from mcp_persona.protocols import get_protocol
    from mcp_persona.runner import run_episode

    ray = _ray()
    actor = ray.get_actor(LIMITS_ACTOR, namespace=NAMESPACE)
    share_limits(lambda key, limit: _SharedLimit(actor, key, limit))
    chosen = get_protocol(protocol)
    task = chosen.task_model.model_validate_json(task_json)
    built = AgentRecipe(**recipe)
    record = anyio.run(functools.partial(run_episode, task, built.build(), tools=tools,  # type: ignore[arg-type]
                                         epoch=epoch, protocol=chosen, settings=settings,
                                         skills=Skills(built.skills), context_distractors=context_distractors))
    return record.model_dump_json()


class RayExecutor:
    """Runs a run's episodes on the cluster; :meth:`episode` is what :func:`mcp_persona.runner.run_suite` calls
    for each (task, trial) in place of running it here."""

    def __init__(self, address: str | None, recipe: AgentRecipe, protocol: str, settings: dict[str, Any],
                 tools: str, context_distractors: int = 0) -> None:
        self.ray = connect(address)
        self.actor = _limits_actor(self.ray)
        self.remote = self.ray.remote(max_retries=MAX_RETRIES, num_cpus=EPISODE_CPUS)(_episode)
        self.args = (asdict(recipe), protocol, settings, tools, context_distractors)

    async def episode(self, task: Task, epoch: int) -> EpisodeRecord:
        ref = self.remote.remote(task.model_dump_json(), epoch, *self.args)
        return EpisodeRecord.model_validate_json(await ref)

    def peaks(self) -> dict[str, int]:
        """The most requests each endpoint ever had in flight across the cluster (what the limit bounds)."""
        return dict(self.ray.get(self.actor.peaks.remote()))


EpisodeFn = Callable[[Task, int], Awaitable[EpisodeRecord]]
