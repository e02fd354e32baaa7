"""A scripted OpenAI-compatible chat completions endpoint on loopback, for agents the harness does not run itself.

``gold`` mode plays each task's gold chain: keyed by the request's user message (the task's instruction as the
protocol words it), the n-th request of a conversation (n = the assistant turns it already holds) gets the gold
chain's n-th round of calls as ``tool_calls``, and the request after the last round the reference answer.
``notool`` mode answers every request at once, calling nothing.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcp_persona.agents import ReferenceAgent
from mcp_persona.environment import SEP
from mcp_persona.protocols.base import Protocol
from mcp_persona.protocols.livemcpbench.environment import WORKDIR
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

NO_TOOL_ANSWER = "I cannot do that."


async def gold_script(task: Task, protocol: Protocol, settings: dict[str, Any]) -> list[Any]:
    """The replies that walk ``task``'s gold chain: each round's calls (exposed name, JSON arguments) as the
    reference agent made them, then its answer. A working folder in the arguments (LiveMCPBench's files) is
    left as the placeholder, filled with the folder the episode's system prompt names."""
    spec = protocol.pool(task, protocol.settings(settings), "selected")
    trajectory = Trajectory(task_id=task.id, agent="reference")
    async with protocol.environment(task, "selected", spec) as env:
        await ReferenceAgent().run(task, env, trajectory)
        workdir = str(getattr(env, "workdir", "")) or None
    rounds: dict[int, list[tuple[str, str]]] = {}
    for call in trajectory.tool_calls:
        assert not call.is_error, call.result
        name = call.tool if spec.bare_names else f"{call.server}{SEP}{call.tool}"
        args = json.dumps(call.arguments)
        rounds.setdefault(call.round, []).append((name, args.replace(workdir, WORKDIR) if workdir else args))
    return [*rounds.values(), trajectory.final_answer]


class GoldEndpoint:
    def __init__(self) -> None:
        self.mode = "gold"
        self.scripts: dict[str, list[Any]] = {}  # user message -> replies
        self.requests = 0
        self.last: dict[str, list[dict[str, Any]]] = {}  # user message -> the messages of its latest request
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                payload = json.dumps(endpoint.reply(body)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests += 1
        messages = request.get("messages") or []
        message: dict[str, Any] = {"role": "assistant", "content": NO_TOOL_ANSWER}
        user = next((text(m.get("content")) for m in messages if m.get("role") == "user"), "")
        self.last[user] = messages
        if self.mode == "gold":
            script = self.scripts.get(user) or ["no script for this task"]
            turn = sum(1 for m in messages if m.get("role") == "assistant")
            step = script[min(turn, len(script) - 1)]
            system = next((text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")), "")
            folder = re.search(r"Your working folder is (.+?);", system)
            if isinstance(step, list):
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{turn}_{i}", "type": "function", "function": {
                        "name": name, "arguments": args.replace(WORKDIR, folder.group(1)) if folder else args}}
                    for i, (name, args) in enumerate(step)]}
            else:
                message["content"] = step
        return {"id": "chatcmpl-gold", "object": "chat.completion", "created": 0, "model": request.get("model", ""),
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def text(content: Any) -> str:
    """A message's text, whether a string or a list of content parts."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""
