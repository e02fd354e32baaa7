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

import json
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
# A call's arguments, as JSON: the filesystem server dies on a 12 MB message (its stdio reader), taking the
# episode's files tool with it; refused before it is sent, the server and its files are untouched.
MAX_CALL_BYTES = 8 * 1024 * 1024


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
    guard_git: bool = False  # git runs through :data:`GIT_GUARD`: no command a repository configures


# ``git`` inside the git server's sandbox (see the script); bound read-only at GUARD_DIR, first on its PATH.
GIT_GUARD = Path(__file__).with_name("git_guard.sh")
GUARD_DIR = "/run/guard"
# the git settings at the command line's precedence, which no repository's own configuration overrides: no
# system or global file, no fsmonitor, no hooks, no prompt, no transport (the sandbox has no network anyway)
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_ATTR_NOSYSTEM": "1",
           "GIT_TERMINAL_PROMPT": "0", "GIT_PYTHON_GIT_EXECUTABLE": f"{GUARD_DIR}/git",
           "GIT_CONFIG_COUNT": "4",
           "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "false",
           "GIT_CONFIG_KEY_1": "core.hooksPath", "GIT_CONFIG_VALUE_1": "/dev/null",
           "GIT_CONFIG_KEY_2": "protocol.allow", "GIT_CONFIG_VALUE_2": "never",
           "GIT_CONFIG_KEY_3": "commit.gpgSign", "GIT_CONFIG_VALUE_3": "false"}
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


REAL_SERVERS: dict[str, RealSpec] = {s.name: s for s in (
    RealSpec("filesystem", "node", "@modelcontextprotocol/server-filesystem", "dist/index.js", "2026.8.31",
             args=("{files}",)),
    RealSpec("memory", "node", "@modelcontextprotocol/server-memory", "dist/index.js", "2026.8.31",
             env={"MEMORY_FILE_PATH": "{state}/memory.jsonl"}),
    RealSpec("sequential-thinking", "node", "@modelcontextprotocol/server-sequential-thinking", "dist/index.js",
             "2026.8.31", env={"DISABLE_THOUGHT_LOGGING": "true"}),
    RealSpec("excel", "node", "@negokaz/excel-mcp-server", "dist/launcher.js", "0.12.0"),
    RealSpec("time", "python", "time", "mcp-server-time", "2026.10.19", args=("--local-timezone", "{tz}")),
    RealSpec("git", "python", "git", "mcp-server-git", "2026.10.19", guard_git=True),
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
    if spec.guard_git and not os.access(GIT_GUARD, os.X_OK):
        return f"{name}: {GIT_GUARD} is not executable (chmod +x it; the package ships it so)"
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
                 argv: list[str] | None = None, quota: DiskQuota | None = None, uid: int | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.files_dir = files_dir
        self.state_dir = state_dir
        self.quota = quota or DiskQuota(files_dir.parent)  # the episode's, shared by its servers
        self.timezone = timezone
        self.call_timeout = call_timeout
        self.start_timeout = start_timeout
        self.argv = argv  # a test can stand a misbehaving script in for the server
        # the unprivileged uid the server runs as under a root harness (the episode's, shared by its servers;
        # a session started alone takes its own); under a user harness, the harness's own inside a user namespace
        self.uid = uid if uid is not None or os.geteuid() != 0 else walls.fresh_uid()
        self._own_uid = uid is None and self.uid is not None
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
        # Through sh, which records its pid (the process group, as the SDK starts a new session), limits the
        # size of any file to the quota (ulimit -f counts 512-byte blocks; bwrap and the server inherit it) and
        # then becomes bwrap, which runs the server in its walls: after the episode the whole group is killed
        # (the sandbox's pid namespace dies with it), so nothing the server started outlives the episode.
        # sh gets only a PATH to find bwrap by; the server gets only what the sandbox sets (``--clearenv``).
        pidfile = self.state_dir.parent / f".{self.name}.pid"  # outside the server's reach
        blocks = str(-(-self.quota.limit // 512))
        wrapper = ["/bin/sh", "-c", 'echo $$ > "$0"; ulimit -f "$1" && shift && exec "$@"', str(pidfile), blocks,
                   *self._walls(argv), *argv]
        return StdioServerParameters(command=wrapper[0], args=wrapper[1:], env={"PATH": SANDBOX_PATH},
                                     cwd=str(self.files_dir))

    def server_env(self) -> dict[str, str]:
        """The whole environment the server runs with: its private HOME and TMPDIR (its caches and settings stay
        in the episode), the clock's time zone, the system's PATH and what its spec adds; nothing of the
        harness's (its PATH names the harness's virtualenv)."""
        fill = {"files": str(self.files_dir), "state": str(self.state_dir), "tz": self.timezone}
        # USER and LOGNAME name the account: the sandbox's uid has no entry in /etc/passwd (git's default
        # committer is USER@hostname), and one name under every harness keeps what servers write the same
        env = {"HOME": str(self.state_dir), "TMPDIR": str(self.state_dir), "TZ": self.timezone,
               "PATH": SANDBOX_PATH, "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "USER": "sandbox",
               "LOGNAME": "sandbox"}
        if self.spec.guard_git:
            env |= GIT_ENV | {"PATH": f"{GUARD_DIR}:{SANDBOX_PATH}"}
        return env | {k: v.format(**fill) for k, v in self.spec.env.items()}

    def _walls(self, argv: list[str]) -> list[str]:
        """The bwrap command line the server runs under: see the module's docstring."""
        program = Path(argv[0])
        installs = [str(node_prefix())] if self.spec.runtime == "node" else []
        if self.argv is None and self.spec.runtime == "python":
            venv = servers_dir() / self.spec.package
            installs += [str(venv), *filter(None, [walls.venv_base(venv)])]
        elif self.argv is not None:  # a test's stand-in: its script, and its interpreter's installation
            installs += [str(p) for p in argv if Path(p).is_absolute() and Path(p).exists()]
            if not program.is_relative_to("/usr"):
                installs += [sys.prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))]
        made = {"/", "/usr"}
        env = [a for k, v in self.server_env().items() for a in ("--setenv", k, v)]
        guard = [*walls.crossable(GUARD_DIR), "--ro-bind", str(GIT_GUARD), f"{GUARD_DIR}/git"] \
            if self.spec.guard_git else []
        # /dev/shm: a folder of the server's own state, so what it holds counts in the episode's quota
        shm = self.state_dir / ".shm"
        shm.mkdir(parents=True, exist_ok=True)
        if self.uid is not None:
            walls.give([shm], self.uid)
        # under a root harness the server drops to the episode's own uid inside the walls (which root made)
        drop = walls.drop_to(self.uid) if self.uid is not None else []
        return [walls.bwrap(), *walls.namespaces(as_root=self.uid is not None), *walls.system(),
                *(walls.caps_for_drop() if self.uid is not None else []),
                *walls.read_only(installs, made), *walls.writable([self.files_dir, self.state_dir], made),
                "--bind", str(shm), "/dev/shm", *guard, "--clearenv", *env,
                # anything else is read-only: a write outside the episode fails there, visibly to the model
                "--remount-ro", "/", "--remount-ro", "/dev", "--chdir", str(self.files_dir), "--", *drop]

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
        if self.uid is not None:  # the server's own HOME; and, alone, its files too
            walls.give([self.state_dir, *([self.files_dir] if self._own_uid else [])], self.uid)
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
            if self._own_uid:
                walls.release_uid(self.uid)  # type: ignore[arg-type]
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
        size = len(json.dumps(arguments, ensure_ascii=False).encode())
        if size > MAX_CALL_BYTES:
            return error_result(f"{self.name}.{tool}: the arguments take {_mb(size)}; a call may carry at most "
                                f"{_mb(MAX_CALL_BYTES)} (nothing was sent; the server is as it was)")
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
