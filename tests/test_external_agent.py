"""--agent external: an agent outside the harness plays episodes over MCP.

The example agent on the OpenAI Agents SDK runs against a scripted loopback endpoint that plays the gold chain
(full score on every suite) or calls no tool (zero); a crashing and a hanging command are recorded errors; the
pool server itself: token, names, recorded calls and their rounds; what the command is given.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2 as httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from typer.testing import CliRunner

from gold_endpoint import NO_TOOL_ANSWER, GoldEndpoint, gold_script
from mcp_persona.cli import app
from mcp_persona.cli.run import sample_tasks
from mcp_persona.environment import Environment
from mcp_persona.pool_server import PoolServer, serve_pool
from mcp_persona.protocols import get_protocol, load_tasks, suite_protocol

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = f"{sys.executable} {ROOT / 'examples' / 'agents' / 'openai_agents_sdk.py'}"
PLAIN = f"{sys.executable} {ROOT / 'examples' / 'agents' / 'plain_mcp.py'}"
SUITES = ["persona", "mcpagentbench", "livemcp101", "livemcpbench"]


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[GoldEndpoint]:
    server = GoldEndpoint()
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    yield server
    server.close()


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["run", *args])


def records(run_dir: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(run_dir / "run.sqlite")
    try:
        return [json.loads(r[0]) for r in db.execute("SELECT record FROM episodes ORDER BY task_id")]
    finally:
        db.close()


def script_suite(endpoint: GoldEndpoint, suite: str, n: int) -> list[str]:
    """``n`` tasks of ``suite`` drawn across categories, each scripted on the endpoint; their ids."""
    protocol = suite_protocol(suite)
    tasks = sample_tasks(load_tasks(suite), n, 1)

    async def script() -> None:
        for task in tasks:
            endpoint.scripts[protocol.user_prompt(task)] = await gold_script(task, protocol, {})

    anyio.run(script)
    return [t.id for t in tasks]


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
def test_the_agents_sdk_example_scores_full_with_the_gold_endpoint(
        suite: str, endpoint: GoldEndpoint, tmp_path: Path) -> None:
    ids = script_suite(endpoint, suite, 5)
    run_dir = tmp_path / "run"
    result = run_cli("--suite", suite, "--tasks", ",".join(ids), "--agent", "external", "--agent-cmd", EXAMPLE,
                     "--concurrency", "5", "--run-dir", str(run_dir))
    assert result.exit_code == 0, result.output
    stored = records(run_dir)
    assert [r["task_id"] for r in stored] == sorted(ids)
    for record in stored:
        assert record["status"] == "ok", record["error"]
        assert record["score"]["values"]["acc"] == 1.0, (record["task_id"], record["score"])
        calls = record["trajectory"]["events"]
        assert calls and all(c["kind"] == "tool" and not c["is_error"] for c in calls)
        rounds = [c["round"] for c in calls]
        assert rounds == sorted(rounds) and rounds[0] == 0  # in the order they ran
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["agent"] == "external"
    # the calls are the trajectory the HTML report shows
    html = tmp_path / "report.html"
    assert CliRunner().invoke(app, ["report", str(run_dir), "--html", str(html)]).exit_code == 0
    first = stored[0]["trajectory"]["events"][0]
    assert first["tool"] in html.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
def test_the_plain_mcp_example_scores_full_and_sends_a_turns_calls_at_once(
        suite: str, endpoint: GoldEndpoint, tmp_path: Path) -> None:
    """examples/agents/plain_mcp.py (the mcp 2.x client and openai, no framework): full score, and each gold
    round's calls, sent together with gather, recorded as one round."""
    protocol = suite_protocol(suite)
    ids = script_suite(endpoint, suite, 4)
    if suite == "mcpagentbench":  # and a task whose gold calls run in parallel
        ids += [script_suite_task(endpoint, suite, "day_parallel_01")]
    run_dir = tmp_path / "run"
    result = run_cli("--suite", suite, "--tasks", ",".join(ids), "--agent", "external", "--agent-cmd", PLAIN,
                     "--concurrency", "4", "--run-dir", str(run_dir))
    assert result.exit_code == 0, result.output
    tasks = {t.id: t for t in load_tasks(suite)}
    parallel: list[bool] = []  # per task with a parallel turn: whether some round held several calls
    for record in records(run_dir):
        assert record["status"] == "ok", record["error"]
        assert record["score"]["values"]["acc"] == 1.0, (record["task_id"], record["score"])
        gold_rounds = endpoint.scripts[protocol.user_prompt(tasks[record["task_id"]])][:-1]
        rounds = [e["round"] for e in record["trajectory"]["events"]]
        turn = [i for i, calls in enumerate(gold_rounds) for _ in calls]  # the model turn of each call, in order
        assert rounds == sorted(rounds) and len(rounds) == len(turn)
        # a round never mixes two turns' calls; a turn's calls, in flight together, share rounds (the pool server
        # reads rounds off timing: on a loaded machine a fast call may be answered before the last is sent)
        assert all(len({t for t, r in zip(turn, rounds, strict=True) if r == rnd}) == 1 for rnd in set(rounds))
        if any(len(calls) > 1 for calls in gold_rounds):
            parallel.append(len(set(rounds)) < len(rounds))
    assert not parallel or any(parallel)


def script_suite_task(endpoint: GoldEndpoint, suite: str, task_id: str) -> str:
    protocol = suite_protocol(suite)
    task = next(t for t in load_tasks(suite) if t.id == task_id)
    endpoint.scripts[protocol.user_prompt(task)] = anyio.run(gold_script, task, protocol, {})
    return task_id


@pytest.mark.slow
@pytest.mark.parametrize("suite", SUITES)
def test_a_model_that_calls_no_tool_scores_zero(suite: str, endpoint: GoldEndpoint, tmp_path: Path) -> None:
    endpoint.mode = "notool"
    ids = script_suite(endpoint, suite, 2)
    run_dir = tmp_path / "run"
    result = run_cli("--suite", suite, "--tasks", ",".join(ids), "--agent", "external", "--agent-cmd", EXAMPLE,
                     "--concurrency", "2", "--run-dir", str(run_dir))
    assert result.exit_code == 0, result.output
    for record in records(run_dir):
        assert record["status"] == "ok"
        primary = {"livemcp101": "result_score", "livemcpbench": "success"}.get(suite, "acc")
        assert not record["score"]["values"][primary], (record["task_id"], primary)  # the suite's own score: 0
        assert record["trajectory"]["events"] == []
        assert record["trajectory"]["final_answer"] == NO_TOOL_ANSWER


def test_a_crashing_command_is_a_recorded_error(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    start = time.monotonic()
    result = run_cli("--suite", "persona", "--limit", "2", "--agent", "external", "--run-dir", str(run_dir),
                     "--agent-cmd", f"{sys.executable} -c \"import sys; sys.exit('agent broke')\"")
    assert time.monotonic() - start < 60
    assert result.exit_code == 3  # a run with errored episodes
    stored = records(run_dir)
    assert len(stored) == 2
    for record in stored:
        assert record["status"] == "error"
        assert "exited with code 1" in record["error"] and "agent broke" in record["error"]


def test_a_failure_shows_the_last_lines_of_stderr_and_where_the_rest_is(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    script = tmp_path / "agent.py"
    script.write_text("import sys\n"
                      "for i in range(400):\n"
                      "    print(f'  File \"/site-packages/httpx/_client.py\", line {i}, in send', file=sys.stderr)\n"
                      "sys.exit('openai.APIConnectionError: Connection error.')\n")
    result = run_cli("--suite", "persona", "--limit", "1", "--agent", "external", "--run-dir", str(run_dir),
                     "--agent-cmd", f"{sys.executable} {script}")
    assert result.exit_code == 3
    (record,) = records(run_dir)
    first, rest = record["error"].split("\n", 1)
    assert first.startswith("ExternalAgentError: the agent command exited with code 1; its stderr ends: ")
    assert first.endswith("line 399, in send | openai.APIConnectionError: Connection error.")
    assert "the last 8,000 characters of stderr" in rest and rest.endswith("Connection error.")
    assert "agent: ExternalAgentError: the agent command exited with code 1; its stderr ends:" in result.output
    assert "APIConnectionError: Connection error." in result.output
    assert f"each episode's whole error is kept in {run_dir / 'run.sqlite'}" in result.output
    # the command's model calls are its own: unknown, never a measured 0
    assert "tokens unknown · cost unknown" in result.output and "$0.0000" not in result.output


def test_a_hanging_command_is_killed_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    run_dir = tmp_path / "run"
    start = time.monotonic()
    result = run_cli("--suite", "persona", "--limit", "1", "--agent", "external", "--run-dir", str(run_dir),
                     "--agent-timeout", "1", "--agent-cmd", f"sleep 300 & echo $! > {pid_file}; wait")
    assert time.monotonic() - start < 30
    assert result.exit_code == 3
    (record,) = records(run_dir)
    assert record["status"] == "error" and "did not finish within 1 s" in record["error"]
    child = int(pid_file.read_text())
    for _ in range(50):  # the orphaned sleep is reaped by init a moment later
        if not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the command's child outlived the timeout")


def test_the_command_reads_its_episode_from_files_and_variables(tmp_path: Path) -> None:
    """The prompts, an mcpServers config and the server's address; the answer read from stdout when the answer
    file is left empty."""
    dump = tmp_path / "seen.json"
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, os, pathlib\n"
        "env = {k: v for k, v in os.environ.items() if k.startswith('MCP_PERSONA_')}\n"
        "files = {k: pathlib.Path(v).read_text() for k, v in env.items() if k.endswith(('_FILE', 'CONFIG'))\n"
        "         and pathlib.Path(v).is_file()}\n"
        f"pathlib.Path({str(dump)!r}).write_text(json.dumps({{'env': env, 'files': files}}))\n"
        "print('my final answer')\n")
    run_dir = tmp_path / "run"
    result = run_cli("--suite", "persona", "--tasks", "collab_lark_001", "--agent", "external",
                     "--agent-cmd", f"{sys.executable} {script}", "--run-dir", str(run_dir))
    assert result.exit_code == 0, result.output
    seen = json.loads(dump.read_text())
    env, files = seen["env"], seen["files"]
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_001")
    protocol = get_protocol("persona")
    assert files["MCP_PERSONA_INSTRUCTION_FILE"] == protocol.user_prompt(task)
    assert files["MCP_PERSONA_SYSTEM_PROMPT_FILE"].startswith("You are a personal assistant")
    config = json.loads(files["MCP_PERSONA_MCP_CONFIG"])
    assert config == {"mcpServers": {"persona": {"type": "http", "url": env["MCP_PERSONA_MCP_URL"], "headers": {
        "Authorization": f"Bearer {env['MCP_PERSONA_MCP_TOKEN']}"}}}}
    assert env["MCP_PERSONA_MCP_URL"].startswith("http://127.0.0.1:") and len(env["MCP_PERSONA_MCP_TOKEN"]) >= 32
    assert env["MCP_PERSONA_TASK_ID"] == "collab_lark_001" and env["MCP_PERSONA_MAX_ROUNDS"] == "20"
    assert not Path(env["MCP_PERSONA_EPISODE_DIR"]).exists()  # removed after the episode
    (record,) = records(run_dir)
    assert record["trajectory"]["final_answer"] == "my final answer"


def test_external_options_are_checked() -> None:
    out = run_cli("--suite", "persona", "--agent", "external")
    assert out.exit_code == 2 and "--agent external needs --agent-cmd" in out.output
    out = run_cli("--suite", "persona", "--agent", "noop", "--agent-cmd", "true")
    assert out.exit_code == 2 and "--agent-cmd is the command of --agent external" in out.output


def test_the_pool_server_checks_the_token_and_records_calls_with_rounds() -> None:
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_001")

    async def main() -> tuple[PoolServer, list[str], int, list[Any]]:
        async with Environment(task) as env:
            server = PoolServer(env)
            async with serve_pool(server, "secret") as url:
                async with httpx.AsyncClient() as plain:
                    refused = (await plain.post(url, json={})).status_code
                async with httpx.AsyncClient(headers={"Authorization": "Bearer secret"}) as http, \
                        streamable_http_client(url, http_client=http) as streams, \
                        ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    names = [t.name for t in (await session.list_tools()).tools]
                    # one turn's two calls sent together, then a call of the next turn, then an unknown tool
                    together = await asyncio.gather(session.call_tool("lark__im_v1_chat_list", {}),
                                                    session.call_tool("lark__contact_v3_user_batchGetId", {}))
                    await session.call_tool("lark__im_v1_chat_list", {"page_size": 1})
                    unknown = await session.call_tool("lark__nope", {})
            return server, names, refused, [*together, unknown]

    server, names, refused, results = anyio.run(main)
    assert refused == 401
    assert "lark__im_v1_chat_list" in names
    assert [(e.round, e.tool) for e in server.events] == [
        (0, "im_v1_chat_list"), (0, "contact_v3_user_batchGetId"), (1, "im_v1_chat_list"), (2, "lark__nope")]
    assert server.events[2].arguments == {"page_size": 1} and server.events[2].server == "lark"
    assert results[-1].is_error and server.events[3].is_error and server.events[3].server is None
    assert results[0].content[0].text == server.events[0].result


def test_the_pool_server_lists_the_pool_under_the_exposed_names() -> None:
    task = next(t for t in load_tasks("persona") if t.id == "collab_lark_001")

    async def main() -> tuple[list[str], list[str]]:
        async with Environment(task) as env:
            server = PoolServer(env)
            return [t.name for t in await server.list_tools()], [t.exposed for t in env.pool]

    listed, pool = anyio.run(main)
    assert listed == pool and "lark__im_v1_chat_list" in listed


def test_an_external_agents_tokens_and_cost_read_unknown_everywhere(tmp_path: Path) -> None:
    """Unknown is shown as unknown, never 0 or $0: the report's leaderboard (Markdown and HTML), the episode view's
    data and the export; a run that measured them shows its figures."""
    script = tmp_path / "agent.py"
    script.write_text("print('done')\n")
    ext, ref = tmp_path / "ext", tmp_path / "ref"
    assert run_cli("--tasks", "collab_lark_001", "--agent", "external", "--agent-cmd",
                   f"{sys.executable} {script}", "--run-dir", str(ext), "--label", "mine").exit_code == 0
    assert run_cli("--tasks", "collab_lark_001", "--run-dir", str(ref), "--label", "gold").exit_code == 0
    md = CliRunner().invoke(app, ["report", str(ext), str(ref)]).output
    board = [[c.strip() for c in line.split("|")[1:-1]]
             for line in md.split("## Leaderboard")[1].split("##")[0].splitlines() if line.startswith("| ")]
    rows = {row[0]: dict(zip(board[0], row, strict=True)) for row in board[2:]}
    mine, gold = rows["mine (external)"], rows["gold (reference)"]
    assert [mine[c] for c in ("Tokens in/task", "Tokens out/task", "Cost")] == ["unknown"] * 3
    assert [gold[c] for c in ("Tokens in/task", "Tokens out/task", "Cost")] == ["0", "0", "$0"]  # measured: none

    from mcp_persona.report.html import report_data
    from mcp_persona.report.load import load_run

    data = report_data([load_run(ext)])
    assert data["runs"][0]["stats"]["cost_usd"] is None and data["runs"][0]["stats"]["avg_input_tokens"] is None
    (episode,) = data["episodes"]
    assert episode["tokens_in"] is None and episode["cost_usd"] is None
    assert CliRunner().invoke(app, ["export", str(ext)]).exit_code == 0
    (row,) = [json.loads(line) for line in (ext / "episodes.jsonl").read_text().splitlines()]
    assert row["input_tokens"] is None and row["output_tokens"] is None and row["cost_usd"] is None
    from mcp_persona.report.summary import figure

    assert figure(None, "money") == "unknown" and figure(0.0, "money") == "$0.0000"
