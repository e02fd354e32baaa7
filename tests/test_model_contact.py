"""A real model's first contact: requests a provider accepts, endpoints that fail loudly, the settings
researchers set. Endpoints are loopback servers that answer as the real APIs do (see test_llm_faults)."""

from __future__ import annotations

import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mcp_persona.agents import ModelAgent
from mcp_persona.agents.model import unique_call_ids
from mcp_persona.cli import app as cli
from mcp_persona.llm import ModelSettings, make_client
from mcp_persona.llm.anthropic_client import parse_anthropic_message, to_anthropic_messages
from mcp_persona.llm.base import ChatResponse, ModelError
from mcp_persona.llm.limits import (
    ANTHROPIC,
    COMPATIBLE,
    OPENAI,
    RequestLimitError,
    limits_for,
    message_problems,
)
from mcp_persona.llm.openai_client import parse_chat_completion
from mcp_persona.llm.preflight import PreflightError, preflight
from mcp_persona.llm.retry import RetryPolicy
from mcp_persona.protocols import get_protocol, load_tasks
from mcp_persona.runner import CircuitBreaker, RunStopped, run_episode, run_suite
from mcp_persona.store import RunStore
from mcp_persona.trajectory import RequestedCall
from test_llm_faults import OK, FaultServer, completion, status, tool_call


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def spec(name: str, params: Any = None) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": "",
                                             "parameters": params or {"type": "object", "properties": {}}}}


# --- the limits themselves ---------------------------------------------------------------------------------------


def test_openai_limits_name_each_broken_rule() -> None:
    assert OPENAI.tool_problems([spec(f"t{i}") for i in range(128)]) == []
    assert OPENAI.tool_problems([spec(f"t{i}") for i in range(129)]) == [
        "129 tools, over the OpenAI Chat Completions limit of 128 per request"]
    assert "breaks the OpenAI Chat Completions rule" in OPENAI.tool_problems([spec("has space")])[0]
    assert OPENAI.tool_problems([spec("x" * 65)]) and not OPENAI.tool_problems([spec("x" * 64)])
    assert "type object" in OPENAI.tool_problems([spec("arr", {"type": "array"})])[0]
    # no maximum where the API documents none; a compatible server checks no names
    assert ANTHROPIC.tool_problems([spec(f"t{i}") for i in range(600)]) == []
    assert COMPATIBLE.tool_problems([spec("weird.name"), *(spec(f"t{i}") for i in range(300))]) == []


def test_limits_follow_the_provider_and_url_unless_chosen() -> None:
    assert limits_for("openai", None) is OPENAI
    assert limits_for("openai", "https://api.openai.com/v1") is OPENAI
    assert limits_for("openai", "http://127.0.0.1:8000/v1") is COMPATIBLE  # vLLM, Ollama
    assert limits_for("openai", "https://openrouter.ai/api/v1", "openai") is OPENAI  # a gateway to OpenAI
    assert limits_for("anthropic", None) is ANTHROPIC
    with pytest.raises(ValueError, match="unknown --api-limits"):
        limits_for("openai", None, "azure")


def test_tool_results_must_answer_the_turn_before_them() -> None:
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}, {"id": "b"}]}
    res = lambda i: {"role": "tool", "tool_call_id": i, "content": "x"}  # noqa: E731
    user = {"role": "user", "content": "hi"}
    assert message_problems([user, call, res("a"), res("b"), {"role": "assistant", "content": "done"}]) == []
    assert "did not call" in message_problems([user, res("a")])[0]
    assert "before the results of b" in message_problems([user, call, res("a"), user])[0]
    assert "second tool result" in message_problems([user, call, res("a"), res("a"), res("b")])[0]
    assert "have no results" in message_problems([user, call])[0]
    dup = {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}, {"id": "a"}]}
    assert "one id" in message_problems([user, dup, res("a")])[0]


def test_a_turn_whose_calls_share_an_id_gets_distinct_ids() -> None:
    calls = [RequestedCall(id="call_0", name="a", arguments="{}"), RequestedCall(id="call_0", name="b", arguments="{}"),
             RequestedCall(id="", name="c", arguments="{}")]
    assert [c.id for c in unique_call_ids(calls)] == ["call_0", "call_0_1", "call_2"]


def test_a_request_over_the_limit_is_refused_before_it_is_sent(server: FaultServer) -> None:
    client = make_client("openai:gpt-4o", base_url=server.url, api_limits="openai")
    tools = [spec(f"t{i}") for i in range(140)]
    with pytest.raises(RequestLimitError) as caught:
        anyio.run(lambda: client.complete([{"role": "user", "content": "hi"}], tools))
    assert caught.value.category == "request_limit" and not caught.value.retryable
    assert "140 tools, over the OpenAI Chat Completions limit of 128" in str(caught.value)
    assert server.requests == []  # nothing reached the endpoint
    # the same request to a vLLM-style endpoint goes out
    server.default = OK
    compatible = make_client("openai:qwen", base_url=server.url)
    assert anyio.run(lambda: compatible.complete([{"role": "user", "content": "hi"}], tools)).content == "done"
    assert len(server.requests[0]["tools"]) == 140


# --- every suite, every ablation: requests each provider accepts -----------------------------------------------


def _pool_specs(suite: str, options: dict[str, Any], tools: str = "selected") -> list[tuple[str, list[Any]]]:
    from mcp_persona.agents.tool_schema import openai_tools

    protocol = get_protocol(suite)
    settings = protocol.settings(options)

    async def build() -> list[tuple[str, list[Any]]]:
        out = []
        for task in load_tasks(suite):
            pool = protocol.pool(task, settings, tools)  # type: ignore[arg-type]
            async with protocol.environment(task, tools, pool) as env:  # type: ignore[arg-type]
                out.append((task.id, list(openai_tools(env.pool))))
        return out

    return anyio.run(build)


@pytest.mark.slow
@pytest.mark.parametrize(("suite", "options"), [
    ("persona", {}),
    *(("mcpagentbench", {"candidates": k, "distractors": d}) for k in (10, 20, 30, 40)
      for d in ("uniform", "confusable")),
    *(("livemcp101", {"pool_size": n}) for n in (6, 10, 12, 15)),  # the paper's pool-size ablation
])
def test_every_pool_of_every_suite_fits_every_provider(suite: str, options: dict[str, Any]) -> None:
    for task_id, tools in _pool_specs(suite, options):
        for limits in (OPENAI, ANTHROPIC):
            assert limits.tool_problems(tools) == [], (task_id, limits.key)


def test_livemcp101_pools_stay_within_the_tool_budget_and_seeded() -> None:
    protocol = get_protocol("livemcp101")
    tasks = load_tasks("livemcp101")
    for size in (6, 10, 12, 15, 30):
        settings = protocol.settings({"pool_size": size})
        for task in tasks:
            pool = protocol.pool(task, settings, "selected")
            assert pool.servers[: len(task.server_names)] == task.server_names
            assert pool.description["tools"] == protocol.tool_count(pool) <= 128
            assert len(pool.servers) <= max(size, len(task.server_names))
            assert protocol.pool(task, settings, "selected").servers == pool.servers  # seeded
    sizes = [len(protocol.pool(t, protocol.settings({}), "selected").servers) for t in tasks]
    assert min(sizes) >= 13 and sum(s == 15 for s in sizes) >= 90  # the budget rarely leaves a pool short
    small = protocol.settings({"tool_budget": 60})
    assert all(protocol.tool_count(protocol.pool(t, small, "selected")) <= 60 for t in tasks)
    with pytest.raises(ValueError, match="over the tool budget of 10"):
        protocol.pool(max(tasks, key=lambda t: len(t.server_names)), protocol.settings({"tool_budget": 10}),
                      "selected")


def test_persona_all_tools_is_the_suites_own_servers() -> None:
    protocol = get_protocol("persona")
    task = load_tasks("persona")[0]
    pool = protocol.pool(task, {}, "all")
    used = {s for t in load_tasks("persona") for s in t.server_names}
    assert set(pool.servers) == used and pool.servers[: len(task.server_names)] == task.server_names
    assert not {"github", "mab_travel", "airbnb"} & set(pool.servers)  # other suites' servers stay out
    assert protocol.tool_count(pool) > 128


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["run", *args])


def test_settings_no_request_could_meet_are_refused_up_front(server: FaultServer, tmp_path: Path) -> None:
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:gpt-4o", "--tools", "all",
                  "--limit", "2", "--run-dir", str(tmp_path / "a"))
    assert result.exit_code == 2 and "at most 128" in result.output and "--tools selected" in result.output
    result = _run("--suite", "livemcpbench", "--agent", "model", "--model", "openai:gpt-4o", "--limit", "1",
                  "--run-dir", str(tmp_path / "b"))
    assert result.exit_code == 2 and "527 tools" in result.output and "--agent copilot" in result.output
    result = _run("--suite", "livemcp101", "--agent", "model", "--model", "openai:gpt-4o", "--tool-budget", "300",
                  "--pool-size", "40", "--limit", "1", "--run-dir", str(tmp_path / "c"))
    assert result.exit_code == 2 and "lower --tool-budget" in result.output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert server.requests == []
    # where the provider has no such limit, the same setting runs (a vLLM-style endpoint here)
    server.default = OK
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:qwen", "--base-url", server.url,
                  "--tools", "all", "--limit", "1", "--run-dir", str(tmp_path / "d"))
    assert result.exit_code == 0, result.output
    assert len(server.requests[-1]["tools"]) > 128


def test_a_gold_playing_model_sends_only_requests_openai_accepts(server: FaultServer) -> None:
    """The model agent plays each suite's gold chain against an endpoint held to OpenAI's limits."""
    from mcp_persona.agents import ReferenceAgent
    from mcp_persona.environment import SEP

    for suite, options in (("persona", {}), ("mcpagentbench", {"candidates": 40}), ("livemcp101", {})):
        protocol = get_protocol(suite)
        for task in load_tasks(suite)[:3]:
            gold = anyio.run(partial(run_episode, task, ReferenceAgent(), protocol=protocol, settings=options))
            rounds: dict[int, list[dict[str, Any]]] = {}
            for c in gold.trajectory.tool_calls:
                name = c.tool if protocol.pool(task, protocol.settings(options), "selected").bare_names \
                    else f"{c.server}{SEP}{c.tool}"
                rounds.setdefault(c.round, []).append(
                    tool_call(name, json.dumps(c.arguments), f"call_{c.round}_{len(rounds.get(c.round, []))}"))
            server.script.extend(("json", completion(None, calls)) for calls in rounds.values())
            server.script.append(("json", completion(gold.trajectory.final_answer)))
            client = make_client("openai:gpt-4o", base_url=server.url, api_limits="openai")
            record = anyio.run(partial(run_episode, task, ModelAgent(client), protocol=protocol, settings=options))
            assert record.status == "ok", record.error
            assert record.score is not None and record.score.detail["acc"] == 1.0, task.id
    assert not server.script


# --- endpoints that fail stop the run loudly ---------------------------------------------------------------------


@pytest.mark.parametrize(("action", "words"), [
    (status(401), ["HTTP 401", "API key"]),
    (status(404), ["HTTP 404", "check --model"]),
])
def test_preflight_names_the_cause(server: FaultServer, action: Any, words: list[str]) -> None:
    server.default = action
    client = make_client("openai:gpt-4o", base_url=server.url)
    with pytest.raises(PreflightError) as caught:
        anyio.run(lambda: preflight(client))
    assert all(w in str(caught.value) for w in words), str(caught.value)
    assert len(server.requests) == 1  # neither is worth a second attempt
    assert server.requests[0]["tools"][0]["function"]["name"] == "ping"


@pytest.mark.parametrize("kind", ["dead", "401", "404"])
def test_a_broken_endpoint_stops_the_run_in_seconds(server: FaultServer, tmp_path: Path, kind: str) -> None:
    url = "http://127.0.0.1:9/v1" if kind == "dead" else server.url
    if kind != "dead":
        server.default = status(int(kind))
    start = time.perf_counter()
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:gpt-4o", "--base-url", url,
                  "--run-dir", str(tmp_path / "run"))
    assert time.perf_counter() - start < 30
    assert result.exit_code == 4, result.output
    assert "cannot serve this run" in result.output
    assert not (tmp_path / "run").exists()  # nothing was started


def test_a_hung_endpoint_is_bounded_by_the_request_timeout(server: FaultServer) -> None:
    server.default = ("hang",)
    client = make_client("openai:gpt-4o", base_url=server.url, retry=RetryPolicy(max_attempts=1, timeout_s=1.0))
    start = time.perf_counter()
    with pytest.raises(PreflightError, match="no answer within 1 s"):
        anyio.run(lambda: preflight(client))
    assert time.perf_counter() - start < 5


class FailingClient:
    name = "openai:scripted"

    def __init__(self, category: str) -> None:
        self.category = category
        self.calls = 0

    async def complete(self, messages: list[dict[str, Any]], tools: Any) -> ChatResponse:
        self.calls += 1
        raise ModelError("HTTP 401: bad key", category=self.category)  # type: ignore[arg-type]


def test_the_circuit_breaker_stops_a_run_and_keeps_what_was_stored(tmp_path: Path) -> None:
    tasks = load_tasks("persona")[:8]
    store = RunStore(tmp_path / "run")
    store.begin({"suite": "persona"}, resume=False)
    with pytest.raises(RunStopped, match=r"3 episodes in a row failed on the model endpoint \(\[auth\]\)"):
        anyio.run(lambda: run_suite(tasks, ModelAgent(FailingClient("auth")), store, breaker=CircuitBreaker(3)))
    assert len(store.records()) == 3 and all(r.status == "error" for r in store.records())


def test_the_breaker_counts_only_the_same_endpoint_failure_in_a_row() -> None:
    from mcp_persona.store import EpisodeRecord
    from mcp_persona.trajectory import Trajectory

    def rec(status_: str, category: str | None = None) -> EpisodeRecord:
        t = Trajectory(task_id="t", agent="model", error_category=category)
        return EpisodeRecord(task_id="t", epoch=0, category="c", status=status_, trajectory=t, error="x")  # type: ignore[arg-type]

    b = CircuitBreaker(2)
    assert b.observe(rec("error", "auth")) is None
    assert b.observe(rec("error", "connection")) is None  # another kind starts over
    assert b.observe(rec("error")) is None  # not the endpoint's: neither counts nor resets
    assert b.observe(rec("error", "connection")) is not None
    b = CircuitBreaker(2)
    b.observe(rec("error", "auth"))
    b.observe(rec("ok"))
    assert b.observe(rec("error", "auth")) is None  # a good episode reset the count


def test_errored_episodes_exit_3_with_their_classes(server: FaultServer, tmp_path: Path) -> None:
    server.script.append(OK)  # the preflight passes, then every request is refused
    server.default = status(400)
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:gpt-4o", "--base-url", server.url,
                  "--limit", "2", "--max-consecutive-errors", "0", "--run-dir", str(tmp_path / "run"))
    assert result.exit_code == 3, result.output
    assert "2 of 2 episodes errored (bad_request 2); no episode was scored" in result.output
    assert "--resume" in result.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["n_scored"] == 0 and summary["errors"]["by_class"] == {"bad_request": 2}


def test_the_breaker_stops_the_cli_run_with_exit_4(server: FaultServer, tmp_path: Path) -> None:
    server.script.append(OK)
    server.default = status(401)
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:gpt-4o", "--base-url", server.url,
                  "--limit", "6", "--run-dir", str(tmp_path / "run"))
    assert result.exit_code == 4, result.output
    assert "run stopped: 3 episodes in a row" in result.output and "finish with" in result.output
    assert len(RunStore(tmp_path / "run").records()) == 3


# --- the settings researchers set ---------------------------------------------------------------------------------


def test_generation_settings_reach_the_openai_body(server: FaultServer, tmp_path: Path) -> None:
    server.default = OK
    result = _run("--suite", "persona", "--agent", "model", "--model", "openai:gpt-4o", "--base-url", server.url,
                  "--api-limits", "openai", "--limit", "1", "--temperature", "0.7", "--max-tokens", "1000",
                  "--reasoning-effort", "medium", "--seed", "7", "--top-p", "0.9", "--run-dir", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    body = server.requests[-1]
    assert (body["temperature"], body["max_tokens"], body["reasoning_effort"], body["seed"], body["top_p"]) == (
        0.7, 1000, "medium", 7, 0.9)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["model_settings"] == {"temperature": 0.7, "top_p": 0.9, "max_tokens": 1000, "seed": 7,
                                         "reasoning_effort": "medium"}
    official = make_client("openai:o3", settings=ModelSettings(max_tokens=1000, reasoning_effort="high"))
    req = official.request([], [])  # type: ignore[attr-defined]
    assert req["max_completion_tokens"] == 1000 and "temperature" not in req and req["reasoning_effort"] == "high"


def test_generation_settings_reach_the_anthropic_body(server: FaultServer) -> None:
    server.default = ("json", {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
                               "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn",
                               "usage": {"input_tokens": 5, "output_tokens": 1}})
    client = make_client("anthropic:claude-x", base_url=server.root,
                         settings=ModelSettings(temperature=0.7, max_tokens=1000, reasoning_effort="medium",
                                                top_p=0.9))
    assert anyio.run(lambda: client.complete([{"role": "user", "content": "hi"}], [])).content == "done"
    body = server.requests[-1]
    assert (body["temperature"], body["max_tokens"], body["output_config"], body["top_p"]) == (
        0.7, 1000, {"effort": "medium"}, 0.9)
    thinking = make_client("anthropic:claude-x", base_url=server.root,
                           settings=ModelSettings(max_tokens=8000, thinking_budget=2048))
    anyio.run(lambda: thinking.complete([{"role": "user", "content": "hi"}], []))
    assert server.requests[-1]["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize(("provider", "settings", "words"), [
    ("anthropic", ModelSettings(seed=7), "no seed"),
    ("anthropic", ModelSettings(thinking_budget=512), "at least 1024"),
    ("anthropic", ModelSettings(thinking_budget=4096, max_tokens=4096), "below --max-tokens"),
    ("anthropic", ModelSettings(thinking_budget=2048, temperature=0.5), "cannot be set with --thinking-budget"),
    ("anthropic", ModelSettings(temperature=1.5), "0..1 for Anthropic"),
    ("openai", ModelSettings(thinking_budget=2048), "use --reasoning-effort"),
    ("openai", ModelSettings(reasoning_effort="max"), "none, minimal, low"),
    ("openai", ModelSettings(temperature=3.0), "0..2"),
    ("openai", ModelSettings(top_p=0.0), "(0, 1]"),
])
def test_settings_an_api_cannot_take_are_refused(provider: str, settings: ModelSettings, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]").replace(".", r"\.")):
        settings.check(provider)


def test_thinking_blocks_go_back_with_the_tool_results() -> None:
    answer = parse_anthropic_message({
        "model": "claude-x", "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 9},
        "content": [{"type": "thinking", "thinking": "I should look it up.", "signature": "sig=="},
                    {"type": "tool_use", "id": "tu_1", "name": "lookup", "input": {"q": "x"}}]})
    assert answer.reasoning == "I should look it up."
    assert answer.replay == [{"type": "thinking", "thinking": "I should look it up.", "signature": "sig=="}]
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": None, "replay": answer.replay,
                 "tool_calls": [{"id": "tu_1", "type": "function", "function": {"name": "lookup",
                                                                                "arguments": '{"q": "x"}'}}]},
                {"role": "tool", "tool_call_id": "tu_1", "content": "found"}]
    _, turns = to_anthropic_messages(messages)
    assert [b["type"] for b in turns[1]["content"]] == ["thinking", "tool_use"]
    assert turns[1]["content"][0]["signature"] == "sig=="
    assert turns[2]["content"][0] == {"type": "tool_result", "tool_use_id": "tu_1", "content": "found"}


def test_reasoning_text_is_kept_in_the_trajectory(server: FaultServer) -> None:
    parsed = parse_chat_completion({"model": "deepseek-r1", "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": "42", "reasoning_content": "6*7"}}]})
    assert parsed.reasoning == "6*7"
    reply = completion("done")
    reply["choices"][0]["message"]["reasoning_content"] = "thinking it over"
    server.default = ("json", reply)
    client = make_client("openai:deepseek-r1", base_url=server.url)
    record = anyio.run(lambda: run_episode(load_tasks("persona")[0], ModelAgent(client)))
    assert record.trajectory.model_calls[0].reasoning == "thinking it over"
    assert "reasoning_content" not in server.requests[-1]["messages"][-1]  # never sent back


def test_report_labels_carry_the_settings_that_change_a_score() -> None:
    from mcp_persona.report.load import run_label

    base = {"agent": "model", "model": "openai:gpt-4o", "protocol": "livemcp101",
            "protocol_options": {"pool_size": 15, "tool_budget": 128}}
    assert run_label(base) == "openai:gpt-4o"
    assert run_label({**base, "protocol_options": {"pool_size": 10, "tool_budget": 128}}) == \
        "openai:gpt-4o · pool_size=10"
    assert run_label({**base, "model_settings": {"temperature": 0.7, "reasoning_effort": "high"}}) == \
        "openai:gpt-4o · temperature=0.7 · reasoning_effort=high"


# --- the first hour: interrupted runs, resume with the stored flags, samples, progress lines -----------------


def _start(args: list[str], env_extra: dict[str, str] | None = None) -> Any:
    import os
    import subprocess
    import sys

    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "COLUMNS": "200", **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "mcp_persona", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(2, 130), (15, 143)])
def test_an_interrupted_run_says_how_to_finish_and_that_finishes_it(
        server: FaultServer, tmp_path: Path, signum: int, code: int) -> None:
    server.default = ("slow", 0.4, completion("done"))
    run_dir = tmp_path / "run"
    proc = _start(["--suite", "persona", "--agent", "model", "--model", "openai:fake-model", "--base-url",
                   server.url, "--sample", "8", "--sample-seed", "3", "--temperature", "0.2", "--run-dir",
                   str(run_dir)])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(server.requests) < 4:  # the preflight and three episodes
        time.sleep(0.05)
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert "interrupted:" in stderr and "episodes are saved" in stderr
    finish = stderr.split("finish the run with:")[1].strip().splitlines()[0]
    assert finish == f"mcp-persona run --resume --run-dir {run_dir}"
    saved = len(RunStore(run_dir).finished())
    assert 1 <= saved < 8
    server.default = OK
    before = len(server.requests)
    proc = _start(finish.split()[2:])  # the printed command, as is: the store holds every other flag
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["n_episodes"] == 8 and summary["model_settings"] == {"temperature": 0.2}
    assert len(server.requests) - before == 1 + 8 - saved  # the preflight, then only the unsaved episodes
    assert all(r["temperature"] == 0.2 for r in server.requests[before:])
    assert f"episodes {8 - saved}/{8 - saved}" in err  # a progress line: stderr is a pipe here


def test_a_sample_spreads_over_categories_and_is_seeded() -> None:
    from mcp_persona.cli.run import sample_tasks

    tasks = load_tasks("persona")
    one = sample_tasks(tasks, 14, seed=1)
    assert len(one) == 14 and one == sample_tasks(tasks, 14, seed=1)
    assert len({t.spec.category for t in one}) == len({t.spec.category for t in tasks}) == 7  # two of each
    assert sample_tasks(tasks, 14, seed=2) != one
    assert len(sample_tasks(tasks[:5], 50)) == 5


def test_an_empty_task_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    result = _run("--suite", str(empty), "--run-dir", str(tmp_path / "run"))
    assert result.exit_code == 2 and "holds no task" in result.output


def test_help_and_task_tables_are_readable_at_80_columns() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["run", "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0
    assert all(len(line) <= 80 for line in result.output.splitlines())
    for flag in ("--reasoning-effort", "--max-consecutive-errors", "--preflight / --no-preflight", "--sample-seed"):
        assert flag in result.output  # whole, never cut with an ellipsis
    result = runner.invoke(cli, ["tasks", "--suite", "mcpagentbench"], env={"COLUMNS": "80"}, terminal_width=80)
    ids = [t.id for t in load_tasks("mcpagentbench")]
    assert all(line.count("│") == 0 or len(line) <= 80 for line in result.output.splitlines())
    assert sum(i in result.output for i in ids) == len(ids)


def test_an_ablation_a_protocol_ignores_is_refused(tmp_path: Path) -> None:
    for suite, flags in (("mcpagentbench", ["--skills", "bundled"]), ("livemcp101", ["--context-distractors", "3"]),
                         ("livemcpbench", ["--context-distractors", "2"])):
        result = _run("--suite", suite, "--agent", "model", "--model", "openai:x", "--base-url",
                      "http://127.0.0.1:9/v1", *flags, "--limit", "1", "--run-dir", str(tmp_path / suite))
        assert result.exit_code == 2 and "would change nothing" in result.output, (suite, result.output)
    from mcp_persona.sweep import cells, load_sweep

    sweep = tmp_path / "s.toml"
    sweep.write_text('name = "x"\nsuites = ["persona", "mcpagentbench"]\n[[models]]\nagent = "reference"\n'
                     '[grid]\ncontext_distractors = [0, 5]\n')
    plan = cells(load_sweep(sweep), tmp_path / "out")
    assert [c.suite for c in plan] == ["persona", "persona", "mcpagentbench"]  # the grid only where it does something
