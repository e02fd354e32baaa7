"""Self-FC against the real memory server: scripted proposals, and exactly the calls the server accepts are kept."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.llm.base import ChatResponse
from mcp_persona.traverse.models import Seed, SeedFile, load_pool, load_seeds
from mcp_persona.traverse.probe import traverse
from mcp_persona.traverse.selffc import SelfFC
from mcp_persona.traverse.servers import missing_reason, reference_target
from mcp_persona.traverse.state import MemoryFileState
from test_llm_faults import FaultServer, completion
from test_traverse import TRACES

pytestmark = pytest.mark.anyio

GRACE = {"entities": [{"name": "Grace Hopper", "entityType": "person", "observations": ["Wrote the first compiler"]}]}
SEEDS = [Seed(id="mary", tool="create_entities", arguments={"entities": [
             {"name": "Mary Somerville", "entityType": "person", "observations": ["Mentor of Ada Lovelace"]}]}),
         Seed(id="engine", tool="search_nodes", arguments={"query": "engine"})]
PROPOSALS = {
    "create_entities": json.dumps([
        {"arguments": GRACE, "note": "a new person"},                                       # accepted
        {"arguments": {"entities": [{"name": "Alan Turing", "observations": []}]}},         # no entityType
        {"arguments": SEEDS[0].arguments},                                                  # the seed again
        "create someone",                                                                   # not an object
    ]),
    "add_observations": json.dumps([
        {"arguments": {"observations": [{"entityName": "London", "contents": ["On the Thames"]}]}},  # accepted
        {"arguments": {"observations": [{"entityName": "Nobody", "contents": ["x"]}]}},     # no such entity
    ]),
    "search_nodes": "```json\n" + json.dumps([
        {"arguments": {"query": "London"}, "note": "a city"},                               # accepted
        {"arguments": {"query": 7}},                                                        # not a string
        {"args": {"query": "x"}},                                                           # no "arguments"
    ]) + "\n```",
    "open_nodes": "Here are some calls you could make: open_nodes(['London'])",             # no JSON list
}
# tools not listed answer [] (nothing to propose)


def skip_without_memory() -> None:
    why = missing_reason("memory")
    if why:
        pytest.skip(f"real memory server unavailable: {why}")


class ByTool:
    """A ChatClient test double answering each Self-FC request with the proposals scripted for its tool."""

    name = "scripted"

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies
        self.prompts: list[tuple[str, str]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        content = messages[-1]["content"]
        match = re.search(r"^TOOL: (\S+)$", content, re.MULTILINE)
        assert match, content
        self.prompts.append((match.group(1), content))
        return ChatResponse(content=self.replies.get(match.group(1), "[]"))


async def test_self_fc_keeps_exactly_the_calls_the_real_server_accepts(tmp_path: Path) -> None:
    skip_without_memory()
    fixture = load_seeds(TRACES / "memory.seeds.json").fixture
    seeds = SeedFile(server="memory", reset="memory-file", fixture=fixture, seeds=SEEDS)
    client = ByTool(PROPOSALS)
    expander = SelfFC(client, rounds=2, per_tool=4)
    pool = await traverse(reference_target("memory"), seeds, MemoryFileState(tmp_path / "m.jsonl"), server="memory",
                          workdir=tmp_path, self_fc=expander, perturbations=False)

    report = expander.report
    assert report.requests == 18  # two rounds, nine tools
    first = [p for p in report.proposals if p.round == 1]
    assert [(p.tool, p.status, p.reason) for p in first] == [
        ("create_entities", "accepted", None), ("create_entities", "rejected", "server_error"),
        ("create_entities", "rejected", "duplicate"), ("create_entities", "rejected", "malformed"),
        ("add_observations", "accepted", None), ("add_observations", "rejected", "server_error"),
        ("search_nodes", "accepted", None), ("search_nodes", "rejected", "server_error"),
        ("search_nodes", "rejected", "malformed")]
    assert "Entity with name Nobody not found" in first[5].detail
    assert "expected string, received number at query" in first[7].detail
    # round two proposes the same calls: every one is now known (tried, kept or not), or still malformed
    assert {p.reason for p in report.proposals if p.round == 2} == {"duplicate", "malformed"}
    assert report.unusable == [f"open_nodes: {PROPOSALS['open_nodes']}"] * 2  # kept to be read, never guessed at
    counts = report.counts()
    assert counts == {"requests": 18, "unusable_replies": 2, "failed_requests": 0, "proposed": 18, "accepted": 3,
                      "rejected": 15, "rejected_by_reason": {"malformed": 4, "duplicate": 8, "server_error": 3}}

    # the second round's prompt shows the call accepted in the first, and not the rejected ones
    second = [text for tool, text in client.prompts if tool == "create_entities"][1]
    assert json.dumps(GRACE) in second and "Alan Turing" not in second

    grown = expander.grown
    assert grown is not None
    assert [(s.id, s.tool) for s in grown.seeds] == [
        ("mary", "create_entities"), ("engine", "search_nodes"), ("create_entities-fc1", "create_entities"),
        ("add_observations-fc2", "add_observations"), ("search_nodes-fc3", "search_nodes")]
    assert grown.seeds[2].arguments == GRACE and grown.seeds[2].note == "self-fc: a new person"

    # the pool grew: every grown seed probed, each a success on the real server
    assert [(t.seed_id, t.label) for t in pool.traces] == [(s.id, "success") for s in grown.seeds]
    assert pool.header.self_fc["accepted"] == 3  # type: ignore[attr-defined]


@pytest.fixture
def endpoint(server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> FaultServer:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    server.default = ("json", completion("[]"))
    return server


def write_seeds(tmp_path: Path) -> Path:
    fixture = load_seeds(TRACES / "memory.seeds.json").fixture
    path = tmp_path / "seeds.json"
    path.write_text(SeedFile(server="memory", reset="memory-file", fixture=fixture, seeds=SEEDS).model_dump_json())
    return path


@pytest.mark.slow  # starts node and the whole command line
def test_cli_self_fc_writes_the_grown_seeds_and_the_report(endpoint: FaultServer, tmp_path: Path) -> None:
    skip_without_memory()
    endpoint.script.append(("json", completion(PROPOSALS["create_entities"])))  # the first tool the server lists
    seeds, out = write_seeds(tmp_path), tmp_path / "pool.jsonl"
    result = CliRunner().invoke(cli, ["traverse", "--reference", "memory", "--seeds", str(seeds), "--out", str(out),
                                      "--no-perturb", "--self-fc", "--model", "openai:scripted", "--base-url",
                                      endpoint.url, "--per-tool", "3"])
    assert result.exit_code == 0, result.output
    assert ("Self-FC: 3 calls proposed in 9 requests, 1 accepted, 2 rejected (duplicate 1, server_error 1); "
            "0 unusable replies, 0 failed requests; seeds 2 -> 3") in result.output
    assert len(endpoint.requests) == 9
    assert "Self-FC round 1, create_entities: 3 proposed, 1 accepted" in result.output  # progress, tool by tool
    grown = load_seeds(tmp_path / "pool.seeds.json")
    assert [s.id for s in grown.seeds] == ["mary", "engine", "create_entities-fc1"] and grown.fixture is not None
    report = json.loads((tmp_path / "pool.self-fc.json").read_text())
    assert [(p["status"], p["reason"]) for p in report["proposals"]] == [
        ("accepted", None), ("rejected", "server_error"), ("rejected", "duplicate")]
    pool = load_pool(out)
    assert [t.seed_id for t in pool.traces] == ["mary", "engine", "create_entities-fc1"]
    assert pool.header.self_fc["proposed"] == 3  # type: ignore[attr-defined]


@pytest.mark.parametrize(("args", "message"), [
    (["--self-fc"], "--self-fc needs --model"),
    (["--model", "local"], "--model applies to Self-FC: add --self-fc"),
    (["--rounds", "2"], "--rounds applies to Self-FC: add --self-fc"),
    (["--self-fc", "--model", "openai:scripted", "--seeds-out", "{seeds}"], "would overwrite --seeds"),
    (["--self-fc", "--model", "gpt-4o"], "unknown model provider"),
])
def test_bad_self_fc_flags_exit_2(endpoint: FaultServer, tmp_path: Path, args: list[str], message: str) -> None:
    skip_without_memory()  # the reference server is checked before the model
    seeds = write_seeds(tmp_path)
    args = [a.replace("{seeds}", str(seeds)) for a in args]
    result = CliRunner().invoke(cli, ["traverse", "--reference", "memory", "--seeds", str(seeds), "--out",
                                      str(tmp_path / "pool.jsonl"), "--base-url", endpoint.url, *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert endpoint.requests == [] and not (tmp_path / "pool.jsonl").exists()
