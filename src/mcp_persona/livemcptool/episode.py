"""One episode over the LiveMCPTool library: its real-server processes, its simulated servers, its sandbox.

::

    async with open_episode(sandbox_dir, clock, servers=["filesystem", "yahoo-finance"]) as ep:
        tools = await ep.list_tools()              # {server: [mcp Tool]}
        result = await ep.call("filesystem", "list_directory", {"path": str(ep.files_dir)})

The sandbox holds ``files/`` (the working folder real servers are pointed at; task input files are
copied in) and ``.state/<server>/`` (each real server's private HOME, state file and stderr log,
outside ``files/`` so no tool can reach another server's state). The folder as a whole is bounded by
the episode's disk quota (:class:`~mcp_persona.livemcptool.real.DiskQuota`). Real servers start side by
side, once; a server that cannot start fails the episode with a message naming it. On exit every process
is stopped and, when the library made the sandbox, the sandbox is removed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.types import CallToolResult, Tool

from mcp_persona import isolation as walls
from mcp_persona import scratch
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.livemcptool.catalogue import catalogue
from mcp_persona.livemcptool.engine import simulated_app
from mcp_persona.livemcptool.real import (
    CALL_TIMEOUT,
    EPISODE_DISK_BYTES,
    REAL_SERVERS,
    DiskQuota,
    RealSession,
    error_result,
)


class EpisodeError(RuntimeError):
    """The episode cannot run (a real server did not start, an unknown server was asked for)."""


class Episode:
    def __init__(self, sandbox: Path, clock: TaskClock, disk_bytes: int = EPISODE_DISK_BYTES) -> None:
        self.sandbox = sandbox
        self.files_dir = sandbox / "files"
        self.state_dir = sandbox / ".state"
        self.clock = clock
        self.quota = DiskQuota(sandbox, disk_bytes)
        self.real: dict[str, RealSession] = {}
        self.simulated: dict[str, Client] = {}
        self.sim_envs: dict[str, Any] = {}
        # under a root harness the episode's real servers run as one fresh unprivileged uid (they share files/)
        self.uid: int | None = walls.fresh_uid() if os.geteuid() == 0 else None

    @property
    def servers(self) -> list[str]:
        return [*self.real, *self.simulated]

    @property
    def setup_seconds(self) -> dict[str, float]:
        """Start-up time of each real server in this episode (launch, initialize, list tools)."""
        return {name: s.setup_seconds for name, s in self.real.items()}

    def add_real(self, name: str, *, call_timeout: float = CALL_TIMEOUT,
                 argv: list[str] | None = None) -> RealSession:
        """Real server ``name`` in this episode (its folders, its clock's time zone, its disk quota), listed in
        :attr:`real`; the caller runs it (:meth:`RealSession.run` in a task)."""
        session = RealSession(REAL_SERVERS[name], self.files_dir, self.state_dir / name, timezone=self.clock.timezone,
                              call_timeout=call_timeout, argv=argv, quota=self.quota, uid=self.uid)
        self.real[name] = session
        return session

    async def list_tools(self, *, catalogue_only: bool = True) -> dict[str, list[Tool]]:
        """Each server's tools. A real server's come from the server itself (its live schemas); by
        default only those LiveMCPTool lists, so the pool matches the benchmark's."""
        out: dict[str, list[Tool]] = {}
        for name, session in self.real.items():
            names = set(catalogue()[name].tool_names)
            out[name] = [t for t in session.tools if not catalogue_only or t.name in names]
        for name, client in self.simulated.items():
            out[name] = list((await client.list_tools()).tools)
        return out

    async def call(self, server: str, tool: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        """Call one tool. Never raises for a tool's or a server's failure: those come back as error results."""
        arguments = arguments or {}
        if server in self.real:
            return await self.real[server].call(tool, arguments)
        if server in self.simulated:
            return await self.simulated[server].call_tool(tool, arguments)
        return error_result(f"unknown server {server!r} in this episode (has: {', '.join(self.servers)})")


@asynccontextmanager
async def open_episode(sandbox_dir: str | Path | None = None, clock: TaskClock = DEFAULT_CLOCK, *,
                       servers: Sequence[str] | None = None, inputs: Iterable[str | Path] = (),
                       call_timeout: float = CALL_TIMEOUT, real_argv: dict[str, list[str]] | None = None,
                       disk_bytes: int = EPISODE_DISK_BYTES) -> AsyncIterator[Episode]:
    """Open an episode over ``servers`` (default: every server of the catalogue).

    ``sandbox_dir``: the episode's folder; it must be empty or absent, and is left in place for
    scoring to read. Without it a temporary folder is made (under the run folder during a run:
    :mod:`mcp_persona.scratch`) and removed at the end. ``inputs``:
    files or folders copied into ``files/``. ``real_argv`` stands a command in for a real server
    (tests use it to run misbehaving servers). ``disk_bytes``: the episode's disk quota.
    """
    names = list(servers) if servers is not None else list(catalogue())
    unknown = [n for n in names if n not in catalogue()]
    if unknown:
        raise EpisodeError(f"unknown LiveMCPTool server(s): {', '.join(unknown)}")
    owned = sandbox_dir is None
    ep: Episode | None = None
    sandbox = scratch.make_dir("livemcptool-") if owned else Path(sandbox_dir).resolve()  # type: ignore[arg-type]
    try:
        if not owned and sandbox.exists() and any(sandbox.iterdir()):
            raise EpisodeError(f"sandbox {sandbox} is not empty")
        ep = Episode(sandbox, clock, disk_bytes)
        ep.files_dir.mkdir(parents=True, exist_ok=True)
        for item in inputs:
            src = Path(item)
            if src.is_dir():
                shutil.copytree(src, ep.files_dir / src.name, dirs_exist_ok=True)
            else:
                shutil.copy2(src, ep.files_dir / src.name)
        ep.quota.seen = ep.quota.used()  # the inputs: no call's doing
        if ep.uid is not None:
            ep.state_dir.mkdir()
            walls.give([ep.files_dir, ep.state_dir], ep.uid)
        failure: EpisodeError | None = None
        async with anyio.create_task_group() as tg, AsyncExitStack() as stack:
            try:
                for name in names:
                    if catalogue()[name].kind == "real":
                        tg.start_soon(ep.add_real(name, call_timeout=call_timeout,
                                                  argv=(real_argv or {}).get(name)).run)
                for session in ep.real.values():
                    await session.wait_ready()
                failed = [s.failure for s in ep.real.values() if s.failure]
                if failed:
                    # Raised once the task group is left, so the caller gets this error, not a group.
                    failure = EpisodeError("; ".join(failed))
                else:
                    for name in names:
                        if catalogue()[name].kind == "simulated":
                            app = simulated_app(name)
                            env = app.env(clock=clock)
                            ep.sim_envs[name] = env
                            ep.simulated[name] = await stack.enter_async_context(Client(app.server(env)))
                    yield ep
            finally:
                with anyio.CancelScope(shield=True):  # every process is stopped, even on cancellation
                    for session in ep.real.values():
                        await session.close()
        if failure is not None:
            raise failure
    finally:
        if ep is not None and ep.uid is not None:
            walls.release_uid(ep.uid)  # and anything of it still running
        if owned:
            shutil.rmtree(sandbox, ignore_errors=True)
