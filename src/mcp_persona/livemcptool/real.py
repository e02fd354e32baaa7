"""The LiveMCPTool servers that run for real, offline: how each is installed and launched, and one
episode's stdio session with it.

``scripts/install-real-servers.sh`` installs them pinned, beside the project's environment: npm
packages into the ``.node/`` prefix (``$MCP_PERSONA_NODE_PREFIX``), each PyPI package into its own
venv under ``.servers/`` (``$MCP_PERSONA_SERVERS_DIR``), since their ``mcp`` pins clash with ours
and with each other.

A :class:`RealSession` starts its server once per episode and keeps the connection open. The server
runs inside a bubblewrap sandbox (:mod:`mcp_persona.isolation`): it sees the system read-only, its own
installation read-only, the episode's files folder and its private state folder (memory file, HOME)
writable, and nothing else: not the checkout (the tasks and their answers), the run folder, other
episodes or the home directory; no network. Every call has a timeout; a server that hangs, dies or
stops answering sensibly fails that call with a clear message and is stopped, and the episode goes on.

What an episode's servers may write is bounded by its disk quota (:class:`DiskQuota`): no file may grow
beyond it (``RLIMIT_FSIZE``, set before the sandbox starts, so the write itself fails), and a call during
which the episode's folder grows beyond it is cut short and its server stopped, with an error saying so.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import signal
import sys
import time
from collections import deque
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, CallToolResult, TextContent, Tool

from mcp_persona import isolation as walls

NODE_PREFIX_ENV = "MCP_PERSONA_NODE_PREFIX"
SERVERS_DIR_ENV = "MCP_PERSONA_SERVERS_DIR"
INSTALL_HINT = "run scripts/install-real-servers.sh"
CALL_TIMEOUT = 60.0  # office servers write whole documents; a hang is still caught
START_TIMEOUT = 60.0
EPISODE_DISK_BYTES = 256 * 1024 * 1024  # an episode's documents are a few MB; generous, yet bounded
QUOTA_POLL = 0.2  # seconds between measurements of the episode's folder while a call runs


@dataclass(frozen=True)
class RealSpec:
    """How to launch one real server. ``args``/``env`` may hold ``{files}``, ``{state}``, ``{tz}``."""

    name: str
    runtime: Literal["node", "python"]
    package: str  # npm package, or the venv folder under .servers/
    entry: str  # node: the script inside the package; python: the venv's console script
    version: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)


REAL_SERVERS: dict[str, RealSpec] = {s.name: s for s in (
    RealSpec("filesystem", "node", "@modelcontextprotocol/server-filesystem", "dist/index.js", "2026.8.31",
             args=("{files}",)),
    RealSpec("memory", "node", "@modelcontextprotocol/server-memory", "dist/index.js", "2026.8.31",
             env={"MEMORY_FILE_PATH": "{state}/memory.jsonl"}),
    RealSpec("sequential-thinking", "node", "@modelcontextprotocol/server-sequential-thinking", "dist/index.js",
             "2026.8.31", env={"DISABLE_THOUGHT_LOGGING": "true"}),
    RealSpec("excel", "node", "@negokaz/excel-mcp-server", "dist/launcher.js", "0.12.0"),
    RealSpec("time", "python", "time", "mcp-server-time", "2026.10.19", args=("--local-timezone", "{tz}")),
    RealSpec("git", "python", "git", "mcp-server-git", "2026.10.19"),
    RealSpec("calculator", "python", "calculator", "mcp-server-calculator", "0.2.1"),
    RealSpec("word-document-server", "python", "word", "word_mcp_server", "1.1.11"),
    RealSpec("ppt", "python", "ppt", "ppt_mcp_server", "2.0.7"),
)}


class _BannerFilter(logging.Filter):
    """Office servers print a start-up banner on stdout; the SDK skips such lines but logs each with a
    traceback. Those lines are harmless, so their records are dropped; a server that writes garbage
    instead of an answer is caught by the call's timeout and reported on the call."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Failed to parse JSONRPC message")


logging.getLogger("mcp.client.stdio").addFilter(_BannerFilter())


def _project_root() -> Path:
    for parent in Path(__file__).resolve().parents:
        if (parent / "pyproject.toml").is_file():
            return parent
    return Path.cwd()


def node_prefix() -> Path:
    return Path(os.environ.get(NODE_PREFIX_ENV) or _project_root() / ".node")


def servers_dir() -> Path:
    return Path(os.environ.get(SERVERS_DIR_ENV) or _project_root() / ".servers")


def command(spec: RealSpec) -> list[str]:
    if spec.runtime == "node":
        return [shutil.which("node") or "node", str(node_prefix() / "node_modules" / spec.package / spec.entry)]
    return [str(servers_dir() / spec.package / "bin" / spec.entry)]


def missing_reason(name: str) -> str | None:
    """Why the real server cannot start here, or None when it can."""
    spec = REAL_SERVERS[name]
    if spec.runtime == "node" and shutil.which("node") is None:
        return "node is not on PATH"
    program = Path(command(spec)[-1])
    if not program.is_file():
        return f"{name} is not installed ({program} is missing; {INSTALL_HINT})"
    if spec.runtime == "python":
        # A venv made from a Python in another account's home (a root install under /root/.pyenv) cannot run
        # as this account, and the sandbox cannot bind it: say so rather than fail at start.
        python = os.path.realpath(servers_dir() / spec.package / "bin" / "python")
        if not os.access(python, os.X_OK):
            return (f"{name} cannot run as this user: its venv was made from {python}, which this user may not "
                    f"run ({INSTALL_HINT} with PYTHON set to a Python every user can run, e.g. /usr/bin/python3)")
    return None


def error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


class DiskQuota:
    """How much an episode's real servers may write: the episode's folder (``files/`` with the task's inputs,
    and every server's ``.state/``) may hold ``limit`` bytes, and no single file may be larger.

    The folders are shared by the episode's servers, each in a sandbox of its own, so no one size-limited
    mount can hold them all; the folder is measured instead (allocated blocks, like ``du``) every
    :data:`QUOTA_POLL` seconds while a call runs and after it. The per-file limit bounds what one write can
    add between two measurements; a call that takes the folder over the limit is cut short and its server
    stopped. The folder holds at most the limit plus what that last call wrote (these servers write a file
    or two per call). Measured in the event loop: an episode's folder holds a few dozen entries (~0.1 ms).
    """

    def __init__(self, folder: Path, limit: int = EPISODE_DISK_BYTES) -> None:
        if limit < 512:
            raise ValueError(f"disk quota of {limit} bytes: must be at least 512")
        self.folder = folder
        self.limit = limit
        self.seen = 0  # the size last measured: after the episode's latest call

    def used(self) -> int:
        """Bytes the folder takes on disk now."""
        total, todo = 0, [self.folder]
        while todo:
            try:
                with os.scandir(todo.pop()) as entries:
                    for entry in entries:
                        try:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                            if entry.is_dir(follow_symlinks=False):
                                todo.append(Path(entry.path))
                        except OSError:
                            continue  # removed while measured
            except OSError:
                continue
        return total

    def grew_over(self, before: int) -> int | None:
        """The folder's size when it is over the limit and larger than ``before``; else None."""
        self.seen = now = self.used()
        return now if now > self.limit and now > before else None

    def describe(self, used: int) -> str:
        return f"the episode's disk quota of {_mb(self.limit)} is used up (its folder holds {_mb(used)})"


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.2f} MB" if size % (1024 * 1024) else f"{size // (1024 * 1024)} MB"


class RealSession:
    """One real server for one episode: started once, called many times, stopped at the end.

    The connection lives in its own task (the SDK's stdio transport must be entered and left in one
    task), so several servers start side by side and an episode's calls share one connection each.
    """

    def __init__(self, spec: RealSpec, files_dir: Path, state_dir: Path, *, timezone: str = "UTC",
                 call_timeout: float = CALL_TIMEOUT, start_timeout: float = START_TIMEOUT,
                 argv: list[str] | None = None, quota: DiskQuota | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.files_dir = files_dir
        self.state_dir = state_dir
        self.quota = quota or DiskQuota(files_dir.parent)  # the episode's, shared by its servers
        self.timezone = timezone
        self.call_timeout = call_timeout
        self.start_timeout = start_timeout
        self.argv = argv  # a test can stand a misbehaving script in for the server
        self.tools: list[Tool] = []
        self.setup_seconds = 0.0
        self.failure: str | None = None  # set once the server is unusable; every later call says why
        self.pid: int | None = None
        self._client: Client | None = None
        self._ready = anyio.Event()
        self._closing = anyio.Event()
        self._done = anyio.Event()
        self._calls: dict[anyio.CancelScope, list[int | None]] = {}  # calls in flight: [size before, size over]

    # -- lifecycle ------------------------------------------------------------------------------
    def _params(self) -> StdioServerParameters:
        fill = {"files": str(self.files_dir), "state": str(self.state_dir), "tz": self.timezone}
        argv = self.argv or [*command(self.spec), *(a.format(**fill) for a in self.spec.args)]
        # A private HOME and TMPDIR: a server's caches and settings stay inside this episode.
        env = {"HOME": str(self.state_dir), "TMPDIR": str(self.state_dir), "TZ": self.timezone,
               "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
        env |= {k: v.format(**fill) for k, v in self.spec.env.items()}
        # Through sh, which records its pid (the process group, as the SDK starts a new session), limits the
        # size of any file to the quota (ulimit -f counts 512-byte blocks; bwrap and the server inherit it) and
        # then becomes bwrap, which runs the server in its walls: after the episode the whole group is killed
        # (the sandbox's pid namespace dies with it), so nothing the server started outlives the episode.
        pidfile = self.state_dir.parent / f".{self.name}.pid"  # outside the server's reach
        blocks = str(-(-self.quota.limit // 512))
        wrapper = ["/bin/sh", "-c", 'echo $$ > "$0"; ulimit -f "$1" && shift && exec "$@"', str(pidfile), blocks,
                   *self._walls(argv), *argv]
        return StdioServerParameters(command=wrapper[0], args=wrapper[1:], env=env, cwd=str(self.files_dir))

    def _walls(self, argv: list[str]) -> list[str]:
        """The bwrap command line the server runs under: see the module's docstring."""
        program = Path(argv[0])
        installs = [str(node_prefix())] if self.spec.runtime == "node" else []
        if self.argv is None and self.spec.runtime == "python":
            venv = servers_dir() / self.spec.package
            installs += [str(venv), *filter(None, [walls.venv_base(venv)])]
        elif not program.is_relative_to("/usr"):  # a test's stand-in: its script and interpreter
            installs += [str(p) for p in argv if Path(p).is_absolute() and Path(p).exists()]
            installs += [sys.prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))]
        made = {"/", "/usr"}
        return [walls.bwrap(), *walls.namespaces(as_root=os.geteuid() == 0), *walls.system(),
                *(["--cap-drop", "ALL"] if os.geteuid() == 0 else []),
                *walls.read_only(installs, made), *walls.writable([self.files_dir, self.state_dir], made),
                # anything else is read-only: a write outside the episode fails there, visibly to the model
                "--remount-ro", "/", "--chdir", str(self.files_dir), "--"]

    def _kill_group(self) -> None:
        try:
            self.pid = int((self.state_dir.parent / f".{self.name}.pid").read_text().strip())
            os.killpg(self.pid, signal.SIGKILL)
        except (OSError, ValueError):
            pass  # never started, or the whole group is gone already

    async def run(self) -> None:
        """The owner task: start, serve until :meth:`close`, stop. Never raises."""
        started = time.perf_counter()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        errlog_path = self.state_dir / "stderr.log"
        try:
            if self.argv is None and (reason := missing_reason(self.name)):
                raise RuntimeError(reason)
            # One scope around the whole connection (the transport's task groups must nest inside it):
            # its deadline bounds the start, then is lifted while the server serves.
            with errlog_path.open("w", encoding="utf-8") as errlog, \
                    anyio.CancelScope(deadline=anyio.current_time() + self.start_timeout) as scope:
                async with AsyncExitStack() as stack:
                    client = Client(stdio_client(self._params(), errlog=errlog), cache=None)
                    self._client = await stack.enter_async_context(client)
                    self.tools = list((await self._client.list_tools()).tools)
                    scope.deadline = math.inf
                    self.setup_seconds = time.perf_counter() - started
                    self._ready.set()
                    await self._watch_quota()
            if scope.cancelled_caught and not self._ready.is_set():
                raise TimeoutError
        except BaseException as exc:  # reported on the episode/call; cancellation is re-raised below
            if self.failure is None:
                what = "did not start" if not self._ready.is_set() else "stopped"
                self.failure = f"real server {self.name} {what}: {_describe(exc, self.start_timeout)}" + \
                    _stderr_tail(errlog_path)
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise
        finally:
            self._client = None
            self._kill_group()
            self._ready.set()
            self._done.set()

    async def wait_ready(self) -> None:
        await self._ready.wait()

    async def close(self) -> None:
        self._closing.set()
        await self._done.wait()

    # -- calls ------------------------------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        client = self._client
        if self.failure or client is None:
            return error_result(self.failure or f"real server {self.name} is not running")
        try:
            with anyio.fail_after(self.call_timeout):
                result, over = await self._within_quota(client, tool, arguments, self.quota.seen)
            if over is None:
                assert result is not None
                return result
            self.failure = f"{self.name}.{tool}: {self.quota.describe(over)}; real server {self.name} was stopped"
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:  # the server answered with a protocol error: it is still fine
                return error_result(f"{self.name}.{tool}: {exc.message}")
            self.failure = f"real server {self.name} failed during {tool}: the connection closed"
            self.failure += _stderr_tail(self.state_dir / "stderr.log")
        except TimeoutError:
            self.failure = (f"real server {self.name} did not answer {tool} within {self.call_timeout:g} s; "
                            "it was stopped")
        except Exception as exc:  # the connection broke: the process died or wrote what is not MCP
            self.failure = f"real server {self.name} failed during {tool}: {_describe(exc, self.call_timeout)}"
            self.failure += _stderr_tail(self.state_dir / "stderr.log")
        # Stop the process now, not at the episode's end, and at once: the SDK's own shutdown gives it seconds,
        # in which a server cut short at the quota would go on writing.
        self._kill_group()
        self._closing.set()
        return error_result(self.failure)

    async def _within_quota(self, client: Client, tool: str, arguments: dict[str, Any],
                            before: int) -> tuple[CallToolResult | None, int | None]:
        """The call's result, or, when the episode's folder grew over its quota while it ran or by it (from
        ``before``, its size after the episode's previous call), its size (the call cut short where it was:
        :meth:`_watch_quota` cancels it)."""
        scope = anyio.CancelScope()
        self._calls[scope] = [before, None]
        result: CallToolResult | None = None
        try:
            with scope:
                result = await client.call_tool(tool, arguments)
        finally:
            over = self._calls.pop(scope)[1]
        if over is not None:
            return None, over
        return result, self.quota.grew_over(before)  # the call's last write, after the last measurement

    async def _watch_quota(self) -> None:
        """Until the session closes: every :data:`QUOTA_POLL` seconds while calls run, measure the episode's
        folder and cut short each call it grew over the quota (one loop per session, none per call)."""
        while not self._closing.is_set():
            with anyio.move_on_after(QUOTA_POLL):
                await self._closing.wait()
            for scope, watched in list(self._calls.items()):
                if watched[1] is None and (over := self.quota.grew_over(watched[0])) is not None:
                    watched[1] = over
                    scope.cancel()


def _describe(exc: BaseException, timeout: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e, timeout) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _stderr_tail(path: Path, lines: int = 3) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            tail = [x.rstrip() for x in deque(f, lines) if x.strip()]
    except OSError:
        return ""
    return f" (stderr: {' | '.join(tail)[:400]})" if tail else ""
