"""Commands that fail say so on one line and exit non-zero: ``route`` against an endpoint without embeddings,
``gen tasks`` that made no candidate."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app
from mcp_persona.persona_gen.pipeline import GenStats


class NoEmbeddings(BaseHTTPRequestHandler):
    """A chat-only server: 404 on ``/v1/embeddings``; under ``/html/`` a 200 page that is not embeddings."""

    def do_POST(self) -> None:  # http.server calls it by this name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/html/"):
            body, status, kind = b"<html>welcome</html>", 200, "text/html"
        else:
            body, status, kind = b'{"error": {"message": "Not Found"}}', 404, "application/json"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def no_embeddings() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), NoEmbeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_route_against_an_endpoint_without_embeddings_is_one_clear_line(no_embeddings: str) -> None:
    url = f"{no_embeddings}/v1"
    done = subprocess.run([sys.executable, "-m", "mcp_persona", "route", "stock price of AAPL",
                           "--embeddings-url", url, "--embeddings-model", "bag"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert f"{url}/embeddings" in lines[0] and "HTTP 404" in lines[0]  # which URL, what failed
    assert "--embeddings-url" in lines[0] and "BM25" in lines[0]  # what to do


@pytest.mark.parametrize("where", ["html", "closed"])
def test_route_names_an_endpoint_that_is_not_embeddings_or_not_there(no_embeddings: str, where: str) -> None:
    if where == "html":
        url, why = f"{no_embeddings}/html", "did not answer with embeddings"
    else:
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            url, why = f"http://127.0.0.1:{s.getsockname()[1]}/v1", "cannot be reached"
    result = CliRunner().invoke(app, ["route", "stock price", "--embeddings-url", url])
    assert result.exit_code == 2, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    assert url in result.output and why in result.output


# -- gen tasks ---------------------------------------------------------------------------------------------
def test_gen_tasks_that_samples_no_chain_exits_non_zero_and_says_why(tmp_path: Path) -> None:
    out = tmp_path / "review.jsonl"
    # weather has no personalized tool: no chain can be sampled, no model request is made
    result = CliRunner().invoke(app, ["gen", "tasks", "--model", "local", "--servers", "weather", "--n", "2",
                                      "--out", str(out), "--quiet"])
    assert result.exit_code == 1, result.output
    assert "no candidate task" in result.output and "no chain" in result.output
    assert "--cross-server" in result.output  # what to try
    assert not out.exists()


def _generated(monkeypatch: pytest.MonkeyPatch, candidates: list[Any], stats: GenStats) -> None:
    async def generate(*args: Any, **kwargs: Any) -> tuple[list[Any], GenStats]:
        return candidates, stats

    monkeypatch.setattr("mcp_persona.persona_gen.pipeline.generate", generate)
    monkeypatch.setattr("mcp_persona.persona_gen.graph.load_graph", lambda *a, **k: None)


def test_gen_tasks_whose_chains_all_fell_out_names_the_causes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "review.jsonl"
    out.write_text('{"kept": "an earlier review"}\n')
    _generated(monkeypatch, [], GenStats(chains=6, prototyped=2, dropped=Counter(
        {"malformed prototype": 2, "model error: connection": 4})))
    result = CliRunner().invoke(app, ["gen", "tasks", "--model", "local", "--servers", "obsidian",
                                      "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "no candidate task: all 6 sampled chains were dropped" in result.output
    assert "model error: connection (4)" in result.output and "mcp-persona doctor" in result.output
    assert out.read_text() == '{"kept": "an earlier review"}\n'  # an earlier review file is not emptied


def test_gen_tasks_valid_only_with_none_valid_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    invalid = SimpleNamespace(problems=["the gold chain fails"])
    _generated(monkeypatch, [invalid, invalid], GenStats(chains=2, prototyped=2, enriched=2, candidates=2))
    result = CliRunner().invoke(app, ["gen", "tasks", "--model", "local", "--servers", "obsidian", "--valid-only",
                                      "--out", str(tmp_path / "review.jsonl")])
    assert result.exit_code == 1, result.output
    assert "2 were made but none passes validation" in result.output and "drop --valid-only" in result.output
