"""Code-as-Simulation end to end: ``mcp-persona synthesize`` against a scripted model endpoint whose code is known.

The memory pool's tools ``search_nodes`` (5 successes, 3 errors) and ``open_nodes`` (6 successes, 4 errors) are
split with a held-out share of 0.3: round(n * 0.3) of each tool's successes and of its errors, so 2 + 1 of
search_nodes and 2 + 1 of open_nodes are held out (6), and 12 traces build the prompts. The model writes an exact
search_nodes (it agrees with every trace) and an open_nodes that accepts everything: it agrees with the 4 of 7
training traces that succeed (0.57, accepted at --threshold 0.5), and on the held-out ones it accepts the error
too. Held out: TP 2 + 2, TN 1 + 0, FP 0 + 1, FN 0, so accuracy 5/6, precision 4/5, recall 1, F1 8/9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from typer.testing import CliRunner

from mcp_persona.cli import app as cli
from mcp_persona.traverse.kernel_app import KernelServer, load_simulator
from mcp_persona.traverse.models import load_pool
from mcp_persona.traverse.synthesize import split_pool
from test_llm_faults import FaultServer, completion, status
from test_traverse import ALWAYS_OK, SEARCH_NODES, TRACES

POOL = TRACES / "memory.jsonl"
TOOLS = ("search_nodes", "open_nodes")


@pytest.fixture
def endpoint(server: FaultServer, monkeypatch: pytest.MonkeyPatch) -> FaultServer:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    return server


def synthesize(endpoint: FaultServer, out: Path, *extra: str) -> Any:
    return CliRunner().invoke(cli, ["synthesize", "--pool", str(POOL), "--model", "openai:scripted", "--base-url",
                                    endpoint.url, "--out", str(out), *extra])


def test_the_split_holds_out_a_share_of_each_tools_outcomes_reproducibly() -> None:
    pool = load_pool(POOL)
    train, heldout = split_pool(pool, 0.3)
    assert sorted(t.id for t in train.traces + heldout.traces) == sorted(t.id for t in pool.traces)
    assert not {t.id for t in train.traces} & {t.id for t in heldout.traces}
    for tool in pool.tool_names:
        for success in (True, False):
            n = sum(1 for t in pool.traces if t.tool == tool and (t.label == "success") == success)
            held = sum(1 for t in heldout.traces if t.tool == tool and (t.label == "success") == success)
            assert held == (min(n - 1, round(n * 0.3)) if n else 0), (tool, success)
    read_graph = [t for t in heldout.traces if t.tool == "read_graph"]
    assert len(read_graph) == 1  # 2 successes: one held out, one kept to learn from
    assert [t.id for t in split_pool(pool, 0.3)[1].traces] == [t.id for t in heldout.traces]
    assert [t.id for t in split_pool(pool, 0.3, seed=1)[1].traces] != [t.id for t in heldout.traces]
    with pytest.raises(ValueError, match="between 0 and 1"):
        split_pool(pool, 1.0)


def test_synthesize_writes_a_simulator_that_loads_serves_and_scores_on_held_out_traces(
        endpoint: FaultServer, tmp_path: Path) -> None:
    endpoint.script.extend([("json", completion(SEARCH_NODES)), ("json", completion(ALWAYS_OK))])
    out = tmp_path / "sim"
    result = synthesize(endpoint, out, "--tools", ",".join(TOOLS), "--threshold", "0.5", "--attempts", "1", "--json")
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    assert len(endpoint.requests) == 2  # one answer per tool, each accepted
    prompt = endpoint.requests[0]["messages"][-1]["content"]
    assert "- Tool name: search_nodes" in prompt and "tree.list(" in prompt
    split = manifest["split"]
    assert (split["method"], split["share"], len(split["train"]), len(split["heldout"])) == ("share", 0.3, 12, 6)
    assert {t: v["accepted"] for t, v in manifest["tools"].items()} == {"search_nodes": True, "open_nodes": True}
    assert manifest["tools"]["open_nodes"]["attempts"][0]["agreement"] == pytest.approx(4 / 7)
    fid = manifest["heldout_fidelity"]
    assert (fid["n"], fid["tp"], fid["tn"], fid["fp"], fid["fn"]) == (6, 4, 1, 1, 0)
    assert (fid["accuracy"], fid["precision"], fid["recall"]) == (pytest.approx(5 / 6), pytest.approx(0.8), 1.0)
    assert fid["f1"] == pytest.approx(8 / 9) and fid["state_match"] == 1.0
    assert [m["tool"] for m in fid["mismatches"]] == ["open_nodes"]  # the held-out error it accepted
    written = load_pool(out / "heldout.jsonl")
    assert [t.id for t in written.traces] == split["heldout"]
    assert [t.id for t in load_pool(out / "train.jsonl").traces] == split["train"]

    # fidelity scores the folder against its held-out traces: the same numbers
    result = CliRunner().invoke(cli, ["fidelity", "--pool", str(out / "heldout.jsonl"), "--simulator", str(out),
                                      "--baseline", "none", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["reports"][0]
    assert report["simulator"] == "Synthesized"
    assert (report["tp"], report["tn"], report["fp"], report["fn"]) == (4, 1, 1, 0)

    # the folder is an app: the real server's tools and schemas, answers from the start state
    sim = load_simulator(out)
    pool = load_pool(POOL)
    start_trace = next(t for t in pool.traces if t.tool == "search_nodes" and t.label == "success"
                       and t.pre_state == pool.traces[0].pre_state)

    async def talk() -> tuple[dict[str, Any], Any, Any]:
        env = sim.env(sim.context_ids()[0])
        async with Client(sim.server(env)) as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            answer = await client.call_tool("search_nodes", start_trace.arguments)
            unknown = await client.call_tool("read_graph", {})
        return listed, answer, unknown

    listed, answer, unknown = anyio.run(talk)
    assert listed == {t: pool.tool(t)["inputSchema"] for t in TOOLS}  # type: ignore[index]
    assert (answer.content[0].text, answer.is_error) == (start_trace.response, False)
    assert unknown.is_error and unknown.content[0].text == "Unknown tool: read_graph"  # not synthesized


def test_serve_builds_the_synthesized_simulator(endpoint: FaultServer, tmp_path: Path) -> None:
    from mcp_persona.cli.serve import build_server, resolve_app
    from mcp_persona.clock import DEFAULT_CLOCK

    endpoint.script.append(("json", completion(SEARCH_NODES)))
    out = tmp_path / "sim"
    assert synthesize(endpoint, out, "--tools", "search_nodes").exit_code == 0
    server = build_server(resolve_app(str(out)), None, DEFAULT_CLOCK)
    assert isinstance(server, KernelServer)
    names = sorted(e["name"] for e in server.env.tree.list("entities"))
    first = load_pool(POOL).traces[0].pre_state
    assert first is not None
    assert names == sorted(json.loads(line)["name"] for line in first["text"].splitlines()
                           if json.loads(line)["type"] == "entity")


def test_a_separate_holdout_pool_is_scored_whole(endpoint: FaultServer, tmp_path: Path) -> None:
    endpoint.script.append(("json", completion(SEARCH_NODES)))
    out = tmp_path / "sim"
    result = synthesize(endpoint, out, "--tools", "search_nodes", "--holdout", str(TRACES / "memory.holdout.jsonl"),
                        "--json")
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    held = [t for t in load_pool(TRACES / "memory.holdout.jsonl").traces if t.tool == "search_nodes"]
    assert manifest["split"]["method"] == "pool" and manifest["split"]["heldout"] == [t.id for t in held]
    assert len(manifest["split"]["train"]) == 8  # every search_nodes trace of the pool builds the prompt
    assert manifest["heldout_fidelity"]["n"] == len(held)


def test_broken_code_is_a_clear_error_and_writes_nothing(endpoint: FaultServer, tmp_path: Path) -> None:
    endpoint.script.extend([("json", completion("def simulate(tree, arguments) return {}")),
                            ("json", completion("```python\nimport os\ndef simulate(tree, arguments):\n"
                                                "    return {}\n```"))])
    out = tmp_path / "sim"
    result = synthesize(endpoint, out, "--tools", "read_graph", "--attempts", "2")
    assert result.exit_code == 1
    assert "no tool's code was accepted, nothing written: read_graph: the code does not load: ImportError: " \
           "import of 'os' is not allowed" in result.output
    retry = endpoint.requests[1]["messages"][-1]["content"]
    assert retry.startswith("Your code could not be used: the code does not load: SyntaxError")
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--holdout-share", "0.2", "--holdout", str(POOL)], "--holdout or --holdout-share, not both"),
    (["--split-seed", "3", "--holdout", str(POOL)], "--holdout or --split-seed, not both"),
    (["--holdout-share", "1.5"], "--holdout-share must be between 0 and 1"),
    (["--tools", "search_nodes,no_such_tool"], "--tools: no traces of no_such_tool"),
    (["--app", "nothing"], "no app 'nothing' for the Context-Tree hierarchy"),
    (["--holdout", str(TRACES / "filesystem.holdout.jsonl")], "--holdout is a pool of 'filesystem'"),
    (["--model", "gpt-4o"], "unknown model provider"),
])
def test_bad_flags_exit_2_before_any_model_request(endpoint: FaultServer, tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    result = synthesize(endpoint, tmp_path / "sim", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert endpoint.requests == [] and not (tmp_path / "sim").exists()


def test_an_existing_folder_is_not_overwritten(endpoint: FaultServer, tmp_path: Path) -> None:
    (tmp_path / "sim").mkdir()
    (tmp_path / "sim" / "keep.txt").write_text("mine")
    result = synthesize(endpoint, tmp_path / "sim")
    assert result.exit_code == 2 and "exists and is not an empty folder" in result.output
    assert (tmp_path / "sim" / "keep.txt").read_text() == "mine" and endpoint.requests == []


def test_fidelity_refuses_what_is_neither_an_app_nor_a_simulator(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["fidelity", "--pool", str(POOL), "--simulator", str(tmp_path)])
    assert result.exit_code == 2 and "neither an app" in result.output
    (tmp_path / "simulator.py").write_text("SERVER = 'memory'\n")
    result = CliRunner().invoke(cli, ["fidelity", "--pool", str(POOL), "--simulator", str(tmp_path)])
    assert result.exit_code == 2 and "lacks APP, TOOLS, KERNELS" in result.output


def test_the_module_reloads_its_kernels_through_the_import_guard(endpoint: FaultServer, tmp_path: Path) -> None:
    endpoint.script.append(("json", completion(SEARCH_NODES)))
    out = tmp_path / "sim"
    assert synthesize(endpoint, out, "--tools", "search_nodes").exit_code == 0
    module = (out / "simulator.py").read_text()
    (out / "simulator.py").write_text(module.replace("import json", "import subprocess"))
    result = CliRunner().invoke(cli, ["fidelity", "--pool", str(out / "heldout.jsonl"), "--simulator", str(out)])
    assert result.exit_code == 2 and "import of 'subprocess' is not allowed" in result.output


def test_a_failing_endpoint_is_each_tools_reason(endpoint: FaultServer, tmp_path: Path) -> None:
    endpoint.default = status(401)
    result = synthesize(endpoint, tmp_path / "sim", "--tools", "read_graph,search_nodes")
    assert result.exit_code == 1
    assert len(endpoint.requests) == 2  # one per tool: a failed request is not retried as a wrong answer
    message = " ".join(result.output.split())
    assert "read_graph: the model request failed: [auth]" in message
    assert "search_nodes: the model request failed: [auth]" in message
    assert not (tmp_path / "sim").exists()
