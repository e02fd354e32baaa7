"""An agent outside the harness: any command that can speak MCP over streamable HTTP.

Per episode the harness serves the episode's tool pool on loopback (:mod:`mcp_persona.pool_server`), guarded by
a fresh bearer token, writes what the command needs into a folder of its own, runs the command (a shell command
line) there with a timeout, and reads its final answer. What the command finds:

* ``MCP_PERSONA_MCP_URL``, ``MCP_PERSONA_MCP_TOKEN``: the server and its token (``Authorization: Bearer ...``);
* ``MCP_PERSONA_MCP_CONFIG``: ``mcp.json``, the same server in the ``mcpServers`` convention of Claude Code,
  Cursor and pydantic-ai's ``load_mcp_toolsets``;
* ``MCP_PERSONA_INSTRUCTION_FILE``, ``MCP_PERSONA_SYSTEM_PROMPT_FILE``: the user message and the system prompt a
  model agent would get;
* ``MCP_PERSONA_ANSWER_FILE``: where to write the final answer (else its standard output is the answer);
* ``MCP_PERSONA_EPISODE_DIR`` (the folder of those files, removed after the episode), ``MCP_PERSONA_TASK_ID``,
  ``MCP_PERSONA_MAX_ROUNDS``.

The command runs in the harness's working directory, with the harness's environment plus these variables.

Every call the server received goes into the trajectory, in order; the episode is then scored as any other.
A command that exits non-zero or outlives its timeout (its whole process group is killed) is the episode's
recorded error; the calls it made are kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import anyio

from mcp_persona.environment import Environment
from mcp_persona.pool_server import PoolServer, new_token, serve_pool
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

DEFAULT_TIMEOUT_S = 600.0
SERVER_NAME = "persona"  # the server's key in mcp.json
TAIL = 8000  # characters of the command's stderr an error keeps (its end: where a traceback says what failed)
LAST_LINES = 3  # the lines of stderr the error's first line quotes


class ExternalAgentError(RuntimeError):
    """The command failed: it exited non-zero, or did not finish in time."""


def mcp_config(url: str, token: str) -> dict[str, Any]:
    """The client configuration of the episode's server: ``type`` ``http`` is Claude Code's name for streamable
    HTTP; Cursor and pydantic-ai infer the transport from the URL and ignore the key."""
    return {"mcpServers": {SERVER_NAME: {"type": "http", "url": url,
                                         "headers": {"Authorization": f"Bearer {token}"}}}}


class ExternalAgent:
    name = "external"

    model = None  # the command's model is its own business: the harness never sees its model calls

    def __init__(self, command: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_rounds: int = 20) -> None:
        if not command.strip():
            raise ValueError("--agent external needs --agent-cmd, the command that runs the agent")
        if timeout_s <= 0:
            raise ValueError("--agent-timeout must be positive")
        self.command = command
        self.timeout_s = timeout_s
        self.max_rounds = max_rounds

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        server = PoolServer(env)
        token = new_token()
        folder = Path(tempfile.mkdtemp(prefix="mcp-persona-episode-"))
        try:
            async with serve_pool(server, token) as url:
                try:
                    answer = await self._play(task, env, trajectory, folder, url, token)
                finally:
                    trajectory.events.extend(server.events)  # kept however the command ended
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        trajectory.final_answer = answer
        trajectory.stop_reason = "answered"

    async def _play(self, task: Task, env: Environment, trajectory: Trajectory, folder: Path, url: str,
                    token: str) -> str:
        if not trajectory.user_prompt:
            raise ValueError("the agent has no messages: an episode's runner writes them on the trajectory "
                             "(mcp_persona.runner.run_episode)")
        files = {
            "MCP_PERSONA_MCP_CONFIG": ("mcp.json", json.dumps(mcp_config(url, token), indent=2)),
            "MCP_PERSONA_INSTRUCTION_FILE": ("instruction.txt", trajectory.user_prompt),
            "MCP_PERSONA_SYSTEM_PROMPT_FILE": ("system_prompt.txt", trajectory.system_prompt),
        }
        environ = dict(os.environ)
        for var, (name, text) in files.items():
            (folder / name).write_text(text, encoding="utf-8")
            environ[var] = str(folder / name)
        answer_file = folder / "answer.txt"
        environ.update(MCP_PERSONA_MCP_URL=url, MCP_PERSONA_MCP_TOKEN=token, MCP_PERSONA_ANSWER_FILE=str(answer_file),
                       MCP_PERSONA_EPISODE_DIR=str(folder), MCP_PERSONA_TASK_ID=task.id,
                       MCP_PERSONA_MAX_ROUNDS=str(self.max_rounds))
        stdout, stderr = folder / "stdout.txt", folder / "stderr.txt"
        with stdout.open("wb") as out, stderr.open("wb") as errs:
            # a session of its own: on timeout the whole group goes, children included
            process = await anyio.open_process(self.command, stdin=subprocess.DEVNULL, stdout=out, stderr=errs,
                                               env=environ, start_new_session=True)
            try:
                with anyio.fail_after(self.timeout_s):
                    code = await process.wait()
            except TimeoutError:
                raise ExternalAgentError(f"the agent command did not finish within {self.timeout_s:g} s "
                                         f"(killed){_tail(stderr)}") from None
            finally:
                _kill_group(process.pid)  # what it left running, or all of it on timeout or cancellation
                with anyio.CancelScope(shield=True):
                    await process.wait()
        if code != 0:
            raise ExternalAgentError(f"the agent command exited with code {code}{_tail(stderr)}")
        if answer_file.is_file() and answer_file.read_text(encoding="utf-8", errors="replace").strip():
            return answer_file.read_text(encoding="utf-8", errors="replace").strip()
        return stdout.read_text(encoding="utf-8", errors="replace").strip()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(pid, signal.SIGKILL)


def _tail(path: Path) -> str:
    """The command's stderr for an error: its last lines on the error's first line (what a summary shows),
    then its last :data:`TAIL` characters, kept with the episode in the run store."""
    text = path.read_text(encoding="utf-8", errors="replace").strip() if path.is_file() else ""
    if not text:
        return "; its stderr is empty"
    last = [line.strip()[:200] for line in text.splitlines() if line.strip()][-LAST_LINES:]
    kept = "the whole stderr" if len(text) <= TAIL else f"the last {TAIL:,} characters of stderr"
    return (f"; its stderr ends: {' | '.join(last)}\n--- {kept}, as the command wrote it ---\n"
            f"{text[-TAIL:]}")
