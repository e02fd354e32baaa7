"""An episode over a whole tool library (LiveMCPTool): its sandbox, real and simulated servers.

It stands where :class:`~mcp_persona.environment.Environment` stands for the persona apps, so
agents, runner and scorers use it unchanged: ``pool`` lists every tool, ``call`` runs one.
Task input files are copied into the working folder; the folder stays until scoring is done.

Simulated servers open with the episode (in-process, cheap). A real server is a process that
takes seconds to start, so each starts on its first call, in the episode's sandbox, and
stops with the episode; until then the pool lists its catalogue tools.
"""

from __future__ import annotations

import re
import time
from contextlib import AsyncExitStack
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from mcp.types import TextContent

from mcp_persona.environment import Environment, PoolSpec, PoolTool, ToolPool
from mcp_persona.livemcptool import Episode, catalogue, open_episode
from mcp_persona.tasks import Task
from mcp_persona.trajectory import ToolCallEvent

WORKDIR = "$WORKDIR"  # gold arguments name the episode's working folder this way
_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]+")


def suite_files(task: Task) -> Path:
    """The folder a bundled suite keeps its input files in."""
    return Path(str(resources.files("mcp_persona") / "data" / "tasks" / task.suite / "files"))


def exposed_name(server: str, tool: str) -> str:
    """``server__tool`` in the characters function-calling APIs accept (server keys hold spaces)."""
    return _NAME_BAD.sub("_", f"{server}__{tool}")[:64]


def _fill(value: Any, workdir: str) -> Any:
    if isinstance(value, str):
        return value.replace(WORKDIR, workdir)
    if isinstance(value, dict):
        return {k: _fill(v, workdir) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, workdir) for v in value]
    return value


class LibraryEnvironment(Environment):
    def __init__(self, task: Task, *, tools: ToolPool, library: str, pool: PoolSpec) -> None:
        # Not Environment.__init__: there are no persona apps or context trees here.
        self.library = library
        self.task = task
        self.pool_kind = tools
        self.spec = pool
        self.apps = {}
        self.initial = {}
        self.clients = {}
        self.pool: list[PoolTool] = []
        self._by_exposed: dict[str, PoolTool] = {}
        self._stack = AsyncExitStack()
        self._episode: Episode | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._starting: dict[str, anyio.Event] = {}

    @property
    def episode(self) -> Episode:
        if self._episode is None:
            raise RuntimeError("the library environment is not open")
        return self._episode

    @property
    def workdir(self) -> Path:
        return self.episode.files_dir

    async def __aenter__(self) -> LibraryEnvironment:
        inputs = [suite_files(self.task) / name for name in self.task.spec.input_files]
        missing = [str(p) for p in inputs if not p.exists()]
        if missing:
            raise FileNotFoundError(f"task {self.task.id}: input files missing: {', '.join(missing)}")
        simulated = [n for n in self.spec.servers if catalogue()[n].kind == "simulated"]
        try:
            self._episode = await self._stack.enter_async_context(
                open_episode(None, self.task.clock, servers=simulated, inputs=inputs))
            self._tg = await self._stack.enter_async_context(anyio.create_task_group())
            self._stack.push_async_callback(self._stop_real)  # runs before the task group is left
            listed = await self.episode.list_tools()
            for server in self.spec.servers:
                if server in listed:
                    tools = [(t.name, t.description or "", t.input_schema) for t in listed[server]]
                else:
                    tools = [(t.name, t.description, t.input_schema) for t in catalogue()[server].tools]
                for name, description, schema in tools:
                    tool = PoolTool(exposed_name(server, name), server, name, description, schema)
                    self._by_exposed[tool.exposed] = tool
            self.pool = list(self._by_exposed.values())
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _real(self, name: str) -> None:
        """Start real server ``name`` in this episode unless it runs (or failed) already."""
        if name in self._starting:
            await self._starting[name].wait()
            return
        self._starting[name] = started = anyio.Event()
        ep = self.episode
        session = ep.add_real(name)
        assert self._tg is not None
        self._tg.start_soon(session.run)
        await session.wait_ready()
        started.set()

    async def _stop_real(self) -> None:
        with anyio.CancelScope(shield=True):  # every process is stopped, even on cancellation
            for session in self.episode.real.values():
                await session.close()

    def gold_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return _fill(arguments, str(self.workdir))

    async def call(self, server: str, tool: str, arguments: dict[str, Any], *, round: int,
                   call_id: str = "") -> ToolCallEvent:
        if server in self.spec.servers and catalogue()[server].kind == "real":
            await self._real(server)
        if server not in self.episode.servers:
            return ToolCallEvent(round=round, call_id=call_id, server=None, tool=tool, arguments=arguments,
                                 result=f"Error: there is no server named {server!r}.", is_error=True)
        start = time.perf_counter()
        result = await self.episode.call(server, tool, arguments)
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        return ToolCallEvent(round=round, call_id=call_id, server=server, tool=tool, arguments=arguments, result=text,
                             is_error=bool(result.is_error), latency_s=time.perf_counter() - start)

    def final_states(self) -> dict[str, dict[str, Any]]:
        return {}  # the library's state is its working folder (scored directly) and simulated records

    def records(self) -> dict[str, list[dict[str, Any]]]:
        """Each simulated server's records as the episode left them."""
        return {name: env.tree.data["records"] for name, env in self.episode.sim_envs.items()}

    def internal_errors(self) -> list[str]:
        errs = [f"{name}: {e}" for name, env in self.episode.sim_envs.items() for e in env.internal_errors]
        return errs + [s.failure for s in self.episode.real.values() if s.failure]
