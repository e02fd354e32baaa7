"""The HTTP model clients against a misbehaving endpoint: a scripted fault-injecting server on loopback.

The server speaks the OpenAI chat-completions wire format and answers each request with
the next scripted action (a status with headers, a hang, a cut-off or unparseable body,
a dropped connection, or a valid completion). Requests are counted at the server; waits
go through a fake sleep injected into the retry policy, so nothing here sleeps for real
except the short per-call timeouts.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.agents import ModelAgent
from mcp_persona.agents.tool_schema import openai_tools
from mcp_persona.cli import app as cli
from mcp_persona.environment import Environment
from mcp_persona.llm import make_client
from mcp_persona.llm.base import ModelError
from mcp_persona.llm.openai_client import OpenAIChatClient
from mcp_persona.llm.retry import RetryPolicy, parse_retry_after
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode

TOOL = "lark__calendar_v4_calendar_list"  # a tool of load_tasks("persona")[0]
BAD_ARGS = '{"page_size": 10,'  # a tool call whose arguments are not JSON


# --- the fault-injecting endpoint -------------------------------------------------------------------------------


def completion(content: str | None = "done", tool_calls: list[dict[str, Any]] | None = None, *, prompt: int = 120,
               output: int = 7, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-fault", "object": "chat.completion", "created": 0, "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output,
                  "prompt_tokens_details": {"cached_tokens": cached},
                  "completion_tokens_details": {"reasoning_tokens": reasoning}},
    }


def tool_call(name: str, arguments: str, call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


OK = ("json", completion("done"))


def status(code: int, headers: dict[str, str] | None = None) -> tuple[Any, ...]:
    return ("status", code, headers or {}, {"error": {"message": f"scripted {code}", "type": "scripted"}})


HANG = ("hang",)
TRUNCATED = ("truncate", completion("this body is cut off half-way"))
NOT_JSON = ("raw", b'{"id": "chatcmpl-fault", "choices": [{"index": 0, "message": {"role": "assis')
RESET = ("reset",)


class FaultServer:
    """A threaded HTTP server; each POST takes the next action from ``script`` (``default`` once it is empty)."""

    def __init__(self) -> None:
        self.script: deque[tuple[Any, ...]] = deque()
        self.default: tuple[Any, ...] = OK
        self.requests: list[dict[str, Any]] = []
        self.bodies: list[tuple[str, bytes]] = []  # (content type, bytes) as received
        self.paths: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.in_flight_by_model: dict[str, int] = {}
        self.max_in_flight_by_model: dict[str, int] = {}
        self.lock = threading.Lock()
        self.stop = threading.Event()
        fault = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = json.loads(body)
                model = str(request.get("model"))
                with fault.lock:
                    fault.requests.append(request)
                    fault.bodies.append((self.headers.get("Content-Type") or "", body))
                    fault.paths.append(self.path)
                    action = fault.script.popleft() if fault.script else fault.default
                    fault.in_flight += 1
                    fault.max_in_flight = max(fault.max_in_flight, fault.in_flight)
                    fault.in_flight_by_model[model] = fault.in_flight_by_model.get(model, 0) + 1
                    fault.max_in_flight_by_model[model] = max(fault.max_in_flight_by_model.get(model, 0),
                                                              fault.in_flight_by_model[model])
                try:
                    self.act(action)
                except OSError:
                    pass  # the client gave up first: fine
                finally:
                    with fault.lock:
                        fault.in_flight -= 1
                        fault.in_flight_by_model[model] -= 1

            def send(self, code: int, payload: bytes, headers: dict[str, str] | None = None,
                     length: int | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload) if length is None else length))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()

            def act(self, action: tuple[Any, ...]) -> None:
                kind = action[0]
                if kind == "json":
                    self.send(200, json.dumps(action[1]).encode())
                elif kind == "slow":
                    time.sleep(action[1])
                    self.send(200, json.dumps(action[2]).encode())
                elif kind == "status":
                    self.send(action[1], json.dumps(action[3]).encode(), action[2])
                elif kind == "hang":  # bounded: the test's teardown (or 10 s) ends it
                    fault.stop.wait(10)
                elif kind == "truncate":  # promises the whole body, sends half, hangs up
                    full = json.dumps(action[1]).encode()
                    self.send(200, full[: len(full) // 2], length=len(full))
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                elif kind == "raw":  # a complete HTTP answer whose body is not the JSON it claims to be
                    self.send(200, action[1])
                elif kind == "reset":  # hangs up without a word
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                else:  # pragma: no cover
                    raise AssertionError(kind)

        class Server(ThreadingHTTPServer):
            request_queue_size = 64  # the default 5 would hold back a burst of concurrent connections

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeSleep:
    """Records the waits the policy asks for; waits for none of them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await anyio.lowlevel.checkpoint()


NOW = 1_800_000_000.0  # the fake wall clock, for Retry-After dates


# Long enough that a loaded CI machine answers a scripted reply in time; hangs wait it out for real.
TIMEOUT_S = 2.0


def policy(sleep: FakeSleep, *, attempts: int = 6, timeout_s: float = TIMEOUT_S) -> RetryPolicy:
    return RetryPolicy(max_attempts=attempts, base_delay_s=1.0, max_delay_s=8.0, jitter=0.5, timeout_s=timeout_s,
                       max_retry_after_s=60.0, rng=random.Random(7), sleep=sleep, clock=lambda: NOW)


def client(server: FaultServer, sleep: FakeSleep, **kw: Any) -> OpenAIChatClient:
    return OpenAIChatClient("fake-model", base_url=server.url, retry=policy(sleep, **kw))


def complete(c: OpenAIChatClient, messages: list[dict[str, Any]] | None = None):
    msgs = messages or [{"role": "user", "content": "hi"}]
    return anyio.run(lambda: c.complete(msgs, []))


def category_of(fn: Any) -> ModelError:
    with pytest.raises(ModelError) as info:
        fn()
    return info.value


# --- the client alone --------------------------------------------------------------------------------------------


def test_every_fault_in_a_row_then_success(server: FaultServer) -> None:
    """429 (Retry-After) → 500 → hang → cut-off body → unparseable body → dropped connection → success."""
    server.script.extend([status(429, {"Retry-After": "7"}), status(500), HANG, TRUNCATED, NOT_JSON, RESET, OK])
    sleep = FakeSleep()
    start = time.perf_counter()
    resp = complete(client(server, sleep, attempts=8))
    elapsed = time.perf_counter() - start
    assert resp.content == "done" and resp.attempts == 7
    assert len(server.requests) == 7  # one request per attempt, no SDK retries behind our back
    assert len(sleep.waits) == 6
    assert sleep.waits[0] == 7.0  # Retry-After honoured exactly (the backoff, ≤1 s, was shorter)
    for n, wait in enumerate(sleep.waits[1:], start=2):  # then exponential backoff with jitter in [d/2, d]
        d = min(8.0, 2.0 ** (n - 1))
        assert d / 2 <= wait <= d
    assert elapsed < TIMEOUT_S + 4.0  # only the hang's timeout was waited for real
    assert resp.usage.input_tokens == 120 and resp.usage_detail is not None
    assert resp.latency_s is not None and 0 <= resp.latency_s < 2.0


@pytest.mark.parametrize(
    ("script", "category", "requests"),
    [
        ([status(401)], "auth", 1),
        ([status(403)], "auth", 1),
        ([status(400)], "bad_request", 1),
        ([status(422)], "bad_request", 1),
        ([status(404)], "bad_request", 1),
        ([status(429)] * 3, "rate_limit", 3),
        ([status(503)] * 3, "server_error", 3),
        ([status(408)] * 3, "timeout", 3),
        ([status(409)] * 3, "server_error", 3),
        ([HANG] * 3, "timeout", 3),
        ([TRUNCATED] * 3, "malformed_response", 3),
        ([NOT_JSON] * 3, "malformed_response", 3),
        ([RESET] * 3, "connection", 3),
        ([("json", {"id": "x", "object": "chat.completion", "choices": []})] * 3, "malformed_response", 3),
    ],
)
def test_each_failure_has_its_category_and_bounded_retries(
    server: FaultServer, script: list[tuple[Any, ...]], category: str, requests: int
) -> None:
    server.script.extend(script)
    sleep = FakeSleep()
    err = category_of(lambda: complete(client(server, sleep, attempts=3)))
    assert err.category == category
    assert str(err).startswith(f"[{category}]")
    assert len(server.requests) == requests == err.attempts  # 4xx auth/validation: never retried
    assert len(sleep.waits) == requests - 1


def test_a_refused_connection_is_a_connection_error() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleep = FakeSleep()
    c = OpenAIChatClient("fake-model", base_url=f"http://127.0.0.1:{port}/v1", retry=policy(sleep, attempts=2))
    err = category_of(lambda: complete(c))
    assert err.category == "connection" and err.attempts == 2


def test_retry_after_as_an_http_date_and_over_the_limit(server: FaultServer) -> None:
    when = datetime.fromtimestamp(NOW, UTC) + timedelta(seconds=30)
    server.script.extend([status(503, {"Retry-After": format_datetime(when, usegmt=True)}), OK])
    sleep = FakeSleep()
    assert complete(client(server, sleep)).content == "done"
    assert sleep.waits == [30.0]

    server.requests.clear()
    server.script.extend([status(429, {"Retry-After": "3600"}), OK])  # an hour: over the 60 s limit
    sleep = FakeSleep()
    err = category_of(lambda: complete(client(server, sleep)))
    assert err.category == "rate_limit" and "3600" in str(err) and len(server.requests) == 1 and sleep.waits == []


def test_retry_after_ms_is_read_too(server: FaultServer) -> None:
    server.script.extend([status(429, {"retry-after-ms": "2500"}), OK])
    sleep = FakeSleep()
    assert complete(client(server, sleep)).content == "done"
    assert sleep.waits == [2.5]


def test_parse_retry_after() -> None:
    assert parse_retry_after("12", NOW) == 12.0
    assert parse_retry_after(" 1.5 ", NOW) == 1.5
    assert parse_retry_after("-3", NOW) == 0.0
    assert parse_retry_after(None, NOW) is None and parse_retry_after("soon", NOW) is None
    past = format_datetime(datetime.fromtimestamp(NOW - 100, UTC), usegmt=True)
    assert parse_retry_after(past, NOW) == 0.0


def test_backoff_is_seeded_and_bounded() -> None:
    a = [RetryPolicy(rng=random.Random(3), max_delay_s=10).backoff(n) for n in range(1, 8)]
    b = [RetryPolicy(rng=random.Random(3), max_delay_s=10).backoff(n) for n in range(1, 8)]
    assert a == b
    for n, wait in enumerate(a, start=1):
        d = min(10.0, 2.0 ** (n - 1))
        assert d / 2 <= wait <= d


def test_malformed_tool_call_arguments_reach_the_caller_verbatim(server: FaultServer) -> None:
    server.script.append(("json", completion(None, [tool_call(TOOL, BAD_ARGS)])))
    resp = complete(client(server, FakeSleep()))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [(TOOL, BAD_ARGS)]
    assert resp.attempts == 1 and len(server.requests) == 1  # a valid answer: not an error, not retried


def test_the_request_is_the_bytes_the_sdk_would_send(server: FaultServer) -> None:
    """The client encodes the body itself and splices in the pool's tool definitions, encoded once per tool:
    the endpoint receives exactly what the SDK's own encoder makes of the same request."""
    from openai._utils._json import openapi_dumps

    async def main() -> tuple[Any, ...]:
        async with Environment(load_tasks("persona")[0]) as env:
            return openai_tools(env.pool)

    specs = anyio.run(main)
    assert len(specs) > 1 and isinstance(specs, tuple)  # immutable: its encoded form cannot go stale
    c = client(server, FakeSleep())
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "日程 ✓ \"quoted\"\n"}]
    for tools in (specs, list(specs), []):
        anyio.run(c.complete, messages, tools)
        content_type, body = server.bodies[-1]
        assert content_type == "application/json"
        assert body == openapi_dumps(c.request(messages, list(tools)))
    assert server.requests[0]["tools"] == list(specs) and "tools" not in server.requests[-1]


def test_one_client_serves_several_event_loops(server: FaultServer) -> None:
    """A client made once (as the CLI does) and used by successive anyio.run calls: pooled connections of a
    closed loop are never reused."""
    c = client(server, FakeSleep())
    assert [complete(c).content for _ in range(3)] == ["done"] * 3
    assert len(server.requests) == 3


def test_a_bug_is_not_an_endpoint_failure() -> None:
    """An exception that is no endpoint failure propagates as it is, after one attempt."""
    sleep = FakeSleep()
    calls = []

    async def attempt() -> None:
        calls.append(1)
        raise TypeError("a bug of ours")

    with pytest.raises(TypeError):
        anyio.run(lambda: policy(sleep).call(attempt, classify=lambda e: None))
    assert calls == [1] and sleep.waits == []


def test_the_per_endpoint_concurrency_limit_holds(server: FaultServer) -> None:
    server.default = ("slow", 0.15, completion("done"))

    async def main() -> list[str | None]:
        # two clients of the same endpoint share one limiter
        clients = [OpenAIChatClient("fake-model", base_url=server.url, max_concurrency=2) for _ in range(2)]
        results: list[str | None] = []

        async def one(i: int) -> None:
            resp = await clients[i % 2].complete([{"role": "user", "content": f"q{i}"}], [])
            results.append(resp.content)

        async with anyio.create_task_group() as tg:
            for i in range(8):
                tg.start_soon(one, i)
        return results

    start = time.perf_counter()
    results = anyio.run(main)
    elapsed = time.perf_counter() - start
    assert results == ["done"] * 8 and len(server.requests) == 8
    assert server.max_in_flight == 2  # never more than the limit, and the limit was used
    assert elapsed >= 4 * 0.15


@pytest.mark.parametrize(("flags", "expected"), [((), 12), (("--max-requests", "3"), 3)])
def test_requests_in_flight_follow_the_run_flags(
    server: FaultServer, tmp_path: Path, flags: tuple[str, ...], expected: int
) -> None:
    server.default = ("slow", 0.5, completion("done"))  # every episode: one request, held long enough to overlap
    result = CliRunner().invoke(cli, ["run", "--agent", "model", "--model", "openai:fake-model", "--base-url",
                                      server.url, "--limit", "12", "--concurrency", "12", "--run-dir",
                                      str(tmp_path / "run"), *flags])
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 1 + 12  # the preflight request, then one per episode
    assert "connectivity check" in server.requests[0]["messages"][0]["content"]
    assert server.max_in_flight == expected  # more than the old fixed 8 when asked; never more than asked


def test_the_judge_has_a_limit_of_its_own_on_the_same_endpoint(server: FaultServer) -> None:
    server.default = ("slow", 0.3, completion("done"))

    async def main() -> None:
        agent = make_client("openai:agent-model", base_url=server.url, max_concurrency=2)
        judge = make_client("openai:judge-model", base_url=server.url, max_concurrency=5, scope="judge")
        async with anyio.create_task_group() as tg:
            for i in range(8):
                tg.start_soon(agent.complete, [{"role": "user", "content": f"a{i}"}], [])
                tg.start_soon(judge.complete, [{"role": "user", "content": f"j{i}"}], [])

    anyio.run(main)
    assert len(server.requests) == 16
    # each at its own limit, and the limit used: neither starves the other nor takes its slots
    assert server.max_in_flight_by_model == {"agent-model": 2, "judge-model": 5}


def test_the_anthropic_client_shares_the_policy(server: FaultServer) -> None:
    answer = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": TOOL, "input": {"page_size": 3}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 900,
                  "cache_creation_input_tokens": 0},
    }
    server.script.extend([status(529), status(429, {"Retry-After": "5"}), ("json", answer)])
    sleep = FakeSleep()
    c = make_client("anthropic:claude-haiku-4-5", base_url=server.root, retry=policy(sleep))
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Calendars?"}]
    tools = [{"type": "function", "function": {"name": TOOL, "description": "List.", "parameters": {"type": "object"}}}]
    resp = anyio.run(lambda: c.complete(messages, tools))
    assert len(server.requests) == 3 and server.paths[-1] == "/v1/messages" and resp.attempts == 3
    assert sleep.waits[1] == 5.0
    body = server.requests[-1]
    assert body["system"] == "Be brief." and body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Calendars?"}]}]
    assert body["tools"][0]["name"] == TOOL and body["tools"][0]["input_schema"]["type"] == "object"
    assert [(t.name, json.loads(t.arguments)) for t in resp.tool_calls] == [(TOOL, {"page_size": 3})]
    assert resp.usage.input_tokens == 1_000 and resp.usage_detail is not None
    assert resp.usage_detail.cached_tokens == 900
    assert resp.cost_usd == pytest.approx((100 * 1.0 + 900 * 0.10 + 20 * 5.0) / 1e6)

    server.script.append(status(401))
    err = category_of(lambda: anyio.run(lambda: c.complete(messages, tools)))
    assert err.category == "auth" and len(server.requests) == 4


# --- the agent loop over the faulty endpoint -----------------------------------------------------------------------


def episode(server: FaultServer, sleep: FakeSleep, *, attempts: int = 6, max_rounds: int = 4):
    c = make_client("openai:fake-model", base_url=server.url, retry=policy(sleep, attempts=attempts))
    task = load_tasks("persona")[0]
    return anyio.run(lambda: run_episode(task, ModelAgent(c, max_rounds=max_rounds)))


def test_an_episode_survives_every_fault(server: FaultServer) -> None:
    server.script.extend([
        # first model call: four attempts, the last a tool call whose arguments do not parse
        status(429, {"Retry-After": "4"}), status(500), HANG, ("json", completion(None, [tool_call(TOOL, BAD_ARGS)])),
        # second model call: a cut-off body, then the final answer
        TRUNCATED, ("json", completion("All done.")),
    ])
    sleep = FakeSleep()
    record = episode(server, sleep)
    traj = record.trajectory
    assert record.status == "ok", record.error
    assert traj.stop_reason == "answered" and traj.final_answer == "All done."
    assert len(server.requests) == 6 and len(sleep.waits) == 4 and sleep.waits[0] == 4.0
    assert len(traj.model_calls) == 2 and all(m.error is None for m in traj.model_calls)
    (bad,) = traj.tool_calls  # recorded, not executed, never guessed into {}
    assert (bad.server, bad.tool) == ("lark", TOOL.split("__", 1)[1]) and bad.is_error
    assert bad.arguments is None and bad.raw_arguments == BAD_ARGS and "not valid JSON" in bad.result
    # the model was told: the second request carries the tool's error
    tool_msgs = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 1 and "not valid JSON" in tool_msgs[0]["content"]


@pytest.mark.parametrize(
    ("script", "category", "requests"),
    [
        ([status(401)], "auth", 1),
        ([status(400)], "bad_request", 1),
        ([status(429, {"Retry-After": "1"})] * 3, "rate_limit", 3),
        ([status(502)] * 3, "server_error", 3),
        ([HANG] * 3, "timeout", 3),
        ([TRUNCATED] * 3, "malformed_response", 3),
        ([RESET] * 3, "connection", 3),
    ],
)
def test_a_failing_episode_records_why(
    server: FaultServer, script: list[tuple[Any, ...]], category: str, requests: int
) -> None:
    server.script.extend(script)
    record = episode(server, FakeSleep(), attempts=3)
    traj = record.trajectory
    assert record.status == "error" and traj.stop_reason == "error"
    assert f"[{category}]" in (record.error or "") and f"[{category}]" in (traj.error or "")
    (call,) = traj.model_calls
    assert call.error is not None and call.error.startswith(f"[{category}]")
    assert len(server.requests) == requests


def test_a_failure_after_progress_keeps_the_progress(server: FaultServer) -> None:
    server.script.extend([("json", completion(None, [tool_call(TOOL, "{}")])), status(503), status(503)])
    record = episode(server, FakeSleep(), attempts=2)
    traj = record.trajectory
    assert record.status == "error" and "[server_error]" in (record.error or "")
    assert len(traj.tool_calls) == 1 and not traj.tool_calls[0].is_error  # the first round ran for real
    assert [m.error is None for m in traj.model_calls] == [True, False]
