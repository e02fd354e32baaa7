"""``mcp-persona doctor`` against loopback endpoints that behave as real servers do: a good one, one that
writes tool calls as text (vLLM without a tool-call parser), one that makes one call a turn, a small context
window, a dead URL, a refused key and an unknown model."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.cli.doctor import largest_first_request, tool_calls_as_text

Answer = tuple[int, dict[str, Any]]


def message(content: str | None = None, calls: list[tuple[str, str]] | None = None) -> Answer:
    msg: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
                             for i, (n, a) in enumerate(calls)]
    return 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}


def good_model(request: dict[str, Any]) -> Answer:
    """Calls get_weather once per city the last user turn names, all in one turn."""
    if not request.get("tools"):
        return message("OK")
    text = request["messages"][-1]["content"]
    cities = [c for c in ("Paris", "Tokyo") if c in text]
    return message(None, [("get_weather", json.dumps({"city": c})) for c in cities])


def text_calls(request: dict[str, Any]) -> Answer:
    if not request.get("tools"):
        return message("OK")
    return message('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')


def one_a_turn(request: dict[str, Any]) -> Answer:
    if not request.get("tools"):
        return message("OK")
    return message(None, [("get_weather", '{"city": "Paris"}')])


def bad_arguments(request: dict[str, Any]) -> Answer:
    if not request.get("tools"):
        return message("OK")
    return message(None, [("get_weather", '{"town": "Paris"}')])


def error(code: int, text: str) -> Callable[[dict[str, Any]], Answer]:
    return lambda _request: (code, {"error": {"message": text, "type": "invalid_request_error"}})


class Endpoint:
    """A loopback OpenAI-compatible server: POSTs answered by ``model``, GET /v1/models by ``models``."""

    def __init__(self, model: Callable[[dict[str, Any]], Answer], models: dict[str, Any] | None) -> None:
        self.model, self.models = model, models
        self.requests: list[dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def reply(self, code: int, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path == "/v1/models" and endpoint.models is not None:
                    self.reply(200, endpoint.models)
                else:
                    self.reply(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                endpoint.requests.append(request)
                self.reply(*endpoint.model(request))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Endpoint]]:
    made: list[Endpoint] = []

    def start(model: Callable[[dict[str, Any]], Answer], window: int | None = 131_072) -> Endpoint:
        models = {"object": "list", "data": [{"id": "m", "object": "model", "max_model_len": window}]}
        made.append(Endpoint(model, models if window else None))
        return made[-1]

    yield start
    for e in made:
        e.close()


@dataclass
class Printed:
    exit_code: int
    lines: list[str]  # as printed at 80 columns
    output: str  # the same text with its lines joined, to read sentences across a wrap


def doctor(url: str, *extra: str) -> Printed:
    result = CliRunner().invoke(cli, ["doctor", "--model", "openai:m", "--base-url", url, *extra],
                                env={"COLUMNS": "80"})
    lines = result.output.splitlines()
    # the checks' sentences fit 80 columns (a usage error is one line, whatever its length)
    assert result.exit_code == 2 or all(len(line) <= 80 for line in lines), result.output
    return Printed(result.exit_code, lines, "\n".join(
        line if not line.startswith("      ") else " " + line.strip() for line in lines).replace("\n ", " "))


@pytest.mark.slow  # measures the largest request of every suite (~35 s)
def test_a_good_endpoint_passes_every_check(serve: Callable[..., Endpoint]) -> None:
    endpoint = serve(good_model)
    result = doctor(endpoint.url)
    assert result.exit_code == 0, result.output
    assert "the endpoint can serve a run" in result.output
    assert "fail" not in result.output and "warn" not in result.output
    for check in ("answers", "tool calls", "arguments", "parallel calls", *(
            f"context window for {s}" for s in ("persona", "livemcp101", "mcpagentbench", "livemcpbench"))):
        assert check in result.output
    assert "2 calls in one turn" in result.output
    assert "131,072-token window (the endpoint's /models (max_model_len))" in result.output
    # what was asked: a plain request, then one call, then two independent ones, each offering the tool
    assert [bool(r.get("tools")) for r in endpoint.requests] == [False, True, True]


def test_tool_calls_written_as_text_name_the_parser_flags(serve: Callable[..., Endpoint]) -> None:
    result = doctor(serve(text_calls).url, "--suite", "persona")
    assert result.exit_code == 4, result.output
    assert ("tool calls: a tool call in the answer's text" in result.output
            and "the server returned tool calls as text: for vLLM start it with --enable-auto-tool-choice "
                "--tool-call-parser <parser>" in result.output and "for Ollama use a model with tool support"
            in result.output)


def test_a_server_without_a_tool_parser_refusing_tools_gets_the_same_fix(serve: Callable[..., Endpoint]) -> None:
    def vllm(request: dict[str, Any]) -> Answer:
        if request.get("tools"):
            return error(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser '
                              "to be set")(request)
        return message("OK")

    result = doctor(serve(vllm).url, "--suite", "persona")
    assert result.exit_code == 4 and "--tool-call-parser <parser>" in result.output, result.output


def test_one_call_a_turn_is_a_warning_that_says_what_it_costs(serve: Callable[..., Endpoint]) -> None:
    result = doctor(serve(one_a_turn).url, "--suite", "mcpagentbench")
    assert result.exit_code == 0, result.output
    assert "1 call(s) where two independent ones were asked for at once" in result.output
    assert "TEFS" in result.output


def test_arguments_off_the_schema_fail(serve: Callable[..., Endpoint]) -> None:
    result = doctor(serve(bad_arguments).url, "--suite", "persona")
    assert result.exit_code == 4, result.output
    assert "arguments: {\"town\": \"Paris\"} breaks the schema" in result.output


def test_a_small_context_window_names_the_suites_it_cannot_hold(serve: Callable[..., Endpoint]) -> None:
    livemcp101, mcpagentbench = largest_first_request("livemcp101"), largest_first_request("mcpagentbench")
    assert mcpagentbench.tokens + 4096 < 16_384 < livemcp101.tokens  # what the window below tells apart
    result = doctor(serve(good_model, window=16_384).url, "--suite", "livemcp101", "--suite", "mcpagentbench")
    assert result.exit_code == 4, result.output
    assert (f"FAIL  context window for livemcp101: the largest first request of livemcp101 (task "
            f"{livemcp101.task_id}, the largest of") in result.output
    assert f"is about {livemcp101.tokens:,} tokens, and 4,096 are kept for the answer" in result.output
    assert "--max-model-len" in result.output
    lines = [line for line in result.lines if line.startswith("FAIL")]
    assert len(lines) == 1 and "livemcp101" in lines[0]
    assert "PASS  context window for mcpagentbench" in result.output


def test_an_unreported_window_is_probed(serve: Callable[..., Endpoint]) -> None:
    def short(request: dict[str, Any]) -> Answer:
        if len(json.dumps(request["messages"])) > 20_000:
            return error(400, "This model's maximum context length is 4096 tokens.")(request)
        return good_model(request)

    result = doctor(serve(short, window=None).url, "--suite", "persona")
    assert result.exit_code == 4, result.output
    assert "was refused" in result.output and "maximum context length is 4096 tokens" in result.output


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("model", "words"), [
    (error(401, "Incorrect API key provided"), ["answers", "HTTP 401", "check the API key"]),
    (error(404, "The model `m` does not exist"), ["answers", "HTTP 404", "check --model"]),
])
def test_a_refused_key_and_an_unknown_model_are_named(serve: Callable[..., Endpoint],
                                                      model: Callable[[dict[str, Any]], Answer],
                                                      words: list[str]) -> None:
    endpoint = serve(model)
    result = doctor(endpoint.url)
    assert result.exit_code == 4, result.output
    assert all(w in result.output for w in words), result.output
    assert len(endpoint.requests) == 1  # nothing else is tried: the rest is skipped


def test_a_dead_url_is_named() -> None:
    result = doctor(f"http://127.0.0.1:{closed_port()}/v1")
    assert result.exit_code == 4, result.output
    assert "[connection]" in result.output and "is the server running" in result.output


def test_tool_calls_in_text_are_recognised() -> None:
    assert tool_calls_as_text('<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>')
    assert tool_calls_as_text('```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```')
    assert tool_calls_as_text('[TOOL_CALLS] [{"name": "get_weather"}]')
    assert not tool_calls_as_text("It is sunny in Paris.") and not tool_calls_as_text(None)


def test_what_doctor_cannot_check_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["doctor", "--model", "local"])
    assert result.exit_code == 2 and "no endpoint to check" in result.output
    result = doctor(f"http://127.0.0.1:{closed_port()}/v1", "--suite", "nope")
    assert result.exit_code == 2 and "'nope' is not a bundled suite" in result.output
