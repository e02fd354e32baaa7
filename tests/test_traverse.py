"""Tool-Traverse: probing a real server, perturbations, the discriminator, context reconstruction,
synthesis with a scripted model, the vanilla baseline and the fidelity metrics.

The real memory server runs under node from ``$MCP_PERSONA_NODE_PREFIX`` (default ``<repo>/.node``);
without node or the package those tests skip and say why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_persona.apps import get_app
from mcp_persona.context_tree import canonical_json
from mcp_persona.llm.base import ChatResponse
from mcp_persona.traverse import discriminator, perturb, reconstruct, similarity, synthesize
from mcp_persona.traverse.fidelity import AppSimulator, confusion, evaluate, rates
from mcp_persona.traverse.models import ERROR_CLASSES, Pool, PoolHeader, SeedFile, Trace, load_pool, load_seeds
from mcp_persona.traverse.servers import installed_version, missing_reason, reference_target
from mcp_persona.traverse.state import DirState, MemoryFileState
from mcp_persona.traverse.vanilla import VanillaSimulator

pytestmark = pytest.mark.anyio

TRACES = Path(__file__).resolve().parents[1] / "src" / "mcp_persona" / "data" / "traces"
POOL_VERSION = "2026.8.31"  # the npm version the committed pools were traversed with
MEMORY_TOOLS = {"create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations",
                "delete_relations", "read_graph", "search_nodes", "open_nodes"}


def _pool(name: str) -> Pool:
    return load_pool(TRACES / f"{name}.jsonl")


def _schema(name: str, tool: str) -> dict[str, Any]:
    spec = _pool(name).tool(tool)
    assert spec is not None
    return spec["inputSchema"]


# -- the real memory server ------------------------------------------------------------------------------
async def test_traverse_real_memory_server(tmp_path: Path) -> None:
    why = missing_reason("memory")
    if why:
        pytest.skip(f"real memory server unavailable: {why}")
    from mcp_persona.traverse.probe import traverse

    full = load_seeds(TRACES / "memory.seeds.json")
    one_per_tool: dict[str, Any] = {}
    for seed in full.seeds:
        one_per_tool.setdefault(seed.tool, seed)
    seeds = SeedFile(server="memory", reset="memory-file", fixture=full.fixture, seeds=list(one_per_tool.values()))
    state = MemoryFileState(tmp_path / "memory.jsonl")
    pool = await traverse(reference_target("memory"), seeds, state, server="memory", workdir=tmp_path)

    assert {t["name"] for t in pool.header.tools} == MEMORY_TOOLS
    assert {t.tool for t in pool.traces} == MEMORY_TOOLS  # every tool probed
    assert {t.error_class for t in pool.traces if t.error_class} == set(ERROR_CLASSES)
    labels = {t.label for t in pool.traces}
    assert labels == {"success", "structured_error"}  # every error is a specific one, none a crash
    for t in pool.traces:
        assert t.pre_state is not None and t.pre_state["kind"] == "memory-file"
        if t.rule == "seed":
            assert t.label == "success", t.response
        if t.label == "structured_error":
            assert t.is_error and t.post_state is None  # a rejected call leaves the memory file alone
    by_rule = {(t.tool, t.rule): t for t in pool.traces}
    bad_type = by_rule[("create_entities", "type:top:entities")]
    assert bad_type.response == ("MCP error -32602: Input validation error: Invalid arguments for tool "
                                 "create_entities: Invalid input: expected array, received string at entities")
    assert by_rule[("add_observations", "dangling:observations[0].entityName")].response == \
        "Entity with name Nonexistent Entity not found"
    # the committed pool is reproducible: the same call gets the same answer (from the version it was made with)
    if installed_version("memory") != POOL_VERSION:
        return
    committed = {(t.tool, canonical_json(t.arguments)): t for t in _pool("memory").traces}
    for t in pool.traces:
        old = committed.get((t.tool, canonical_json(t.arguments)))
        if old is not None:
            assert (old.response, old.is_error) == (t.response, t.is_error), t.rule


# -- perturbations ---------------------------------------------------------------------------------------
def test_perturbations_are_deterministic_and_cover_the_four_classes() -> None:
    schema = _schema("memory", "create_relations")
    seed = {"relations": [{"from": "Ada Lovelace", "to": "London", "relationType": "visits"}]}
    known = {"name": ["Ada Lovelace", "London"]}
    first = perturb.perturb(schema, seed, known=known)
    again = perturb.perturb(json.loads(json.dumps(schema)), json.loads(json.dumps(seed)), known=known)
    assert first == again
    assert {p.error_class for p in first} == set(ERROR_CLASSES)
    assert len({canonical_json(p.arguments) for p in first}) == len(first)  # no duplicates
    assert all(canonical_json(p.arguments) != canonical_json(seed) for p in first)
    assert seed == {"relations": [{"from": "Ada Lovelace", "to": "London", "relationType": "visits"}]}  # untouched
    rules = {p.rule: p.arguments for p in first}
    assert rules["type:top:relations"] == {"relations": "not-a-list"}
    assert rules["missing:relations"] == {}
    assert rules["missing:nested:relations[0].from"] == {"relations": [{"to": "London", "relationType": "visits"}]}
    assert rules["extra:top"]["unexpectedField"] == "surprise"
    assert rules["empty-array:relations"] == {"relations": []}
    assert rules["dangling:relations[0].to"]["relations"][0]["to"] == perturb.UNKNOWN_NAME
    assert rules["same-value:relations[0].to=relations[0].from"]["relations"][0]["to"] == "Ada Lovelace"


def test_path_perturbations_use_the_fixture() -> None:
    schema = _schema("filesystem", "move_file")
    root = "/srv/ws"
    known = {"file": [f"{root}/a.txt"], "dir": [root, f"{root}/docs"], "root": [root]}
    out = {p.rule: p.arguments for p in
           perturb.perturb(schema, {"source": f"{root}/a.txt", "destination": f"{root}/docs/a.txt"}, known=known)}
    assert out["outside:absolute:source"]["source"] == "/etc/a.txt"
    assert out["outside:traversal:source"]["source"] == f"{root}/../a.txt"
    assert out["dangling:source"]["source"] == f"{root}/missing-dir/a.txt"
    assert out["kind-swap:source"]["source"] == f"{root}/docs"  # a directory where a file was
    assert out["collision:destination"]["destination"] == f"{root}/a.txt"  # a new path that exists
    assert "same-value:destination=source" not in out  # the same call as the collision: not repeated
    head_tail = perturb.perturb(_schema("filesystem", "read_text_file"), {"path": f"{root}/a.txt", "head": 2})
    both = next(p for p in head_tail if p.rule == "all-optional-numbers")
    assert both.arguments == {"path": f"{root}/a.txt", "head": 1, "tail": 1}
    assert both.error_class == "semantic_conflict"
    assert {p.rule for p in head_tail} >= {"number:negative:head", "number:zero:head", "number:huge:head",
                                           "number:fraction:head", "oversized-string:path", "empty-string:path"}


def test_model_perturber_parses_strictly() -> None:
    mp = perturb.ModelPerturber(client=None, per_seed=3)  # type: ignore[arg-type]
    good = mp.parse('```json\n[{"error_class": "boundary", "arguments": {"query": ""}, "rationale": "empty"}, '
                    '{"error_class": "nonsense", "arguments": {}}, {"error_class": "type_mismatch"}]\n```')
    assert [(p.error_class, p.arguments, p.rule) for p in good] == [("boundary", {"query": ""}, "model")]
    assert mp.rejected == 2
    assert mp.parse("not json") == [] and mp.rejected == 3


# -- the discriminator -------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "is_error", "transport", "label"), [
    ('{"entities": [], "relations": []}', False, False, "success"),
    ("Entities deleted successfully", False, False, "success"),
    ("Entity with name X not found", True, False, "structured_error"),
    ("MCP error -32602: Input validation error: Invalid arguments for tool t: Invalid input", True, False,
     "structured_error"),
    ('{"code": 99992402, "msg": "field validation failed"}', False, False, "structured_error"),
    ('{"success": false, "error": "nope"}', False, False, "structured_error"),
    ("", True, False, "unexpected_failure"),
    ("TypeError: Cannot read properties of undefined (reading 'name')", True, False, "unexpected_failure"),
    ("MCP error -32603: Internal error", True, False, "unexpected_failure"),
    ("ClosedResourceError: ", True, True, "unexpected_failure"),
])
def test_discriminator_rules(text: str, is_error: bool, transport: bool, label: str) -> None:
    assert discriminator.classify(text, is_error, transport_error=transport) == label


async def test_judge_falls_back_to_rules_on_unparseable_output() -> None:
    judged = await discriminator.judge(Scripted(['{"label": "structured_error", "reason": "not found"}']),
                                       tool={"name": "t"}, arguments={}, text="gone", is_error=True)
    assert (judged.label, judged.source) == ("structured_error", "judge")
    fallback = await discriminator.judge(Scripted(["I think it failed"]), tool={"name": "t"}, arguments={},
                                         text="ok", is_error=False)
    assert (fallback.label, fallback.source, fallback.raw) == ("success", "rules-fallback", "I think it failed")


# -- context reconstruction --------------------------------------------------------------------------------
def test_memory_reconstruction_round_trip() -> None:
    text = ('{"type":"entity","name":"A [x]","entityType":"t","observations":["o1","o2"]}\n'
            '{"type":"entity","name":"A [x]","entityType":"t","observations":[]}\n'
            '{"type":"relation","from":"A [x]","to":"ghost","relationType":"haunts"}')
    data = reconstruct.reconstruct({"kind": "memory-file", "text": text})
    assert data is not None
    assert [e["name"] for e in data["entities"].values()] == ["A [x]", "A [x]"]  # duplicate names survive
    assert reconstruct.deconstruct("memory-file", data) == {"kind": "memory-file", "text": text}
    assert reconstruct.reconstruct({"kind": "memory-file", "text": None}) == {"entities": {}, "relations": {}}
    assert reconstruct.deconstruct("memory-file", {"entities": {}, "relations": {}})["text"] is None


def test_directory_reconstruction_round_trip(tmp_path: Path) -> None:
    state = DirState(tmp_path / "ws")
    fixture = {"mtime": "2026-03-10T09:30:00+00:00",
               "tree": {"b.txt": "two\n", "A.md": "# one\n", "docs": {"x [1].md": "x", "empty": {}}}}
    state.reset(fixture)
    capture = state.capture()
    assert [e["path"] for e in capture["entries"]] == ["", "A.md", "b.txt", "docs", "docs/empty", "docs/x [1].md"]
    assert {e["mtime"] for e in capture["entries"]} == {1773135000.0}
    assert state.capture() == capture  # capturing does not touch access times
    data = reconstruct.reconstruct(capture)
    assert data is not None
    env = reconstruct.load_env(get_app("filesystem"), data)  # a valid filesystem Context-Tree
    assert env.tree.data["nodes"][f"{tmp_path}/ws/docs/x [1].md"]["parent"] == f"{tmp_path}/ws/docs"
    assert reconstruct.deconstruct("dir", data) == capture


def test_committed_pools_reconstruct_losslessly() -> None:
    for name in ("memory", "filesystem"):
        pool = _pool(name)
        for pre in {canonical_json(t.pre_state): t.pre_state for t in pool.traces if t.pre_state}.values():
            data = reconstruct.reconstruct(pre)
            assert data is not None
            assert reconstruct.deconstruct(pre["kind"], data) == pre


# -- synthesis with a scripted model -------------------------------------------------------------------------
class Scripted:
    """A ChatClient test double: answers with fixed texts, in order, and records what it was sent."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.sent: list[list[dict[str, Any]]] = []

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        self.sent.append(messages)
        return ChatResponse(content=self.replies.pop(0))


ALWAYS_OK = '''
def simulate(tree, arguments):
    return {"is_error": False, "text": "{}"}
'''

SEARCH_NODES = '''```python
import json


def simulate(tree, arguments):
    query = arguments.get("query")
    if not isinstance(query, str):
        got = "undefined" if "query" not in arguments else {type(None): "null", bool: "boolean", int: "number",
            float: "number", list: "array", dict: "object"}.get(type(query), "string")
        return {"is_error": True, "text": "MCP error -32602: Input validation error: Invalid arguments for tool "
                "search_nodes: Invalid input: expected string, received " + got + " at query"}
    q = query.lower()
    hits = [e for e in tree.list("entities") if q in e["name"].lower() or q in e["entityType"].lower()
            or any(q in o.lower() for o in e["observations"])]
    names = {e["name"] for e in hits}
    rels = [{"from": r["from"], "to": r["to"], "relationType": r["relationType"]} for r in tree.list("relations")
            if r["from"] in names or r["to"] in names]
    ents = [{"name": e["name"], "entityType": e["entityType"], "observations": e["observations"]} for e in hits]
    return {"is_error": False, "text": json.dumps({"entities": ents, "relations": rels}, indent=2)}
```'''


async def test_synthesis_retries_with_mismatches_then_accepts() -> None:
    pool, app = _pool("memory"), get_app("memory")
    client = Scripted([ALWAYS_OK, SEARCH_NODES])
    result = await synthesize.synthesize_tool(client, pool, "search_nodes", app, threshold=1.0, rouge_threshold=1.0)
    assert result.accepted and len(result.attempts) == 2
    first, second = result.attempts
    assert first.agreement < 1.0 and first.mismatches
    assert second.agreement == 1.0 and second.rouge == 1.0 and not second.mismatches
    prompt = client.sent[0][-1]["content"]
    assert "search_nodes" in prompt and '"query"' in prompt and "tree.list(" in prompt  # schema, traces, API
    retry = client.sent[1][-1]["content"]
    assert retry.startswith("Your simulator disagrees with the real server on") and "expected" in retry
    kernels = synthesize.KernelSimulator({"search_nodes": result.kernel}, app)
    traces = [t for t in pool.traces if t.tool == "search_nodes"]
    report = await evaluate(Pool(header=pool.header, traces=traces), kernels)
    assert report.f1 == 1.0 and report.state_match == 1.0


async def test_synthesis_gives_up_after_max_attempts_and_guards_imports() -> None:
    pool, app = _pool("memory"), get_app("memory")
    client = Scripted(["import os\ndef simulate(tree, arguments):\n    return {}", "x = 1  # no function"])
    result = await synthesize.synthesize_tool(client, pool, "read_graph", app, max_attempts=2)
    assert not result.accepted and len(result.attempts) == 2
    assert "not allowed" in result.attempts[0].error
    assert "defines no function simulate" in result.attempts[1].error
    assert "could not be used" in client.sent[1][-1]["content"]


# -- the vanilla baseline ------------------------------------------------------------------------------------
def test_vanilla_knows_the_schema_and_nothing_else() -> None:
    pool = _pool("memory")
    vanilla = VanillaSimulator(pool.header.tools)
    text, is_error = vanilla.respond("add_observations", {"observations": [{"entityName": "Nobody", "contents": []}]})
    assert not is_error and json.loads(text)["status"] == "success"  # no state: an unknown entity is fine
    text, is_error = vanilla.respond("add_observations", {"observations": "x"})
    assert is_error and text.startswith("Error: invalid arguments for add_observations: observations")
    assert not vanilla.respond("read_graph", {"anything": 1})[1]  # open schema: extra keys allowed
    assert vanilla.respond("no_such_tool", {})[1]


# -- the metrics ---------------------------------------------------------------------------------------------
def test_confusion_matrix_and_rates_by_hand() -> None:
    pairs = [(True, True), (True, True), (True, False), (False, True), (False, False)]
    assert confusion(pairs) == (2, 1, 1, 1)
    acc, prec, rec, f1 = rates(2, 1, 1, 1)
    assert (acc, prec, rec) == (3 / 5, 2 / 3, 2 / 3)
    assert f1 == pytest.approx(2 / 3)
    assert rates(0, 3, 0, 0) == (1.0, 0.0, 0.0, 0.0)  # no positives: precision and recall are 0, not NaN
    assert rates(3, 0, 1, 0)[3] == pytest.approx(2 * 0.75 / 1.75)


def test_identical_responses_score_one_and_different_ones_less() -> None:
    same = similarity.similarity('{"a": [1, 2]}', '{"a":[1,2]}')  # same canonical JSON
    assert (same.tfidf, same.rouge, same.bleu, same.meteor) == (1.0, 1.0, 1.0, 1.0)
    assert similarity.canonical('{"b": 1, "a": 2}') == '{"a":2,"b":1}'
    assert similarity.canonical("plain text") == "plain text"
    scorer = similarity.Scorer([("ENOENT: no such file or directory, open '/w/a.txt'",
                                 "ENOENT: no such file or directory, open '/w/b.txt'"),
                                ("Access denied", "Entity created")])
    near, far = scorer.all()
    assert 0.5 < near.tfidf < 1.0 and 0.5 < near.rouge < 1.0 and 0.0 < near.bleu < 1.0
    assert far.tfidf == 0.0 and far.rouge == 0.0
    r = similarity.rouge_l("a b c d", "a b x d")
    assert r[0] == pytest.approx(0.75) and r[1] == pytest.approx(0.75)  # LCS a b d: 3 of 4 tokens


async def test_evaluate_on_a_tiny_pool() -> None:
    header = PoolHeader(server="toy", tools=[{"name": "t", "inputSchema": {"type": "object"}}])

    def trace(i: int, label: str, response: str) -> Trace:
        return Trace(id=f"toy-{i}", seed_id="s", tool="t", arguments={"i": i}, response=response,
                     is_error=label != "success", label=label)  # type: ignore[arg-type]

    pool = Pool(header=header, traces=[trace(1, "success", "ok"), trace(2, "success", "ok"),
                                       trace(3, "structured_error", "bad"), trace(4, "structured_error", "bad"),
                                       trace(5, "unexpected_failure", "TypeError: x")])

    class Toy:
        name, note = "toy", ""

        async def call(self, t: Trace) -> tuple[str, bool, None]:
            i = t.arguments["i"]
            return ("ok", False, None) if i in (1, 3) else ("bad", True, None)

    report = await evaluate(pool, Toy())
    assert (report.n, report.excluded) == (4, 1)
    assert (report.tp, report.tn, report.fp, report.fn) == (1, 1, 1, 1)
    assert (report.accuracy, report.precision, report.recall, report.f1) == (0.5, 0.5, 0.5, 0.5)
    assert report.tfidf == pytest.approx(0.5) and report.rouge == pytest.approx(0.5)
    assert report.state_match is None


@pytest.mark.slow  # loads WordNet for METEOR (several seconds)
@pytest.mark.parametrize("name", ["memory", "filesystem"])
async def test_traversal_simulators_reproduce_their_pools(name: str) -> None:
    pool = _pool(name)
    assert len(pool.traces) >= 60
    failing = sum(1 for t in pool.traces if t.label != "success") / len(pool.traces)
    assert 0.35 <= failing <= 0.70
    vanilla = await evaluate(pool, VanillaSimulator(pool.header.tools))
    traversal = await evaluate(pool, AppSimulator(get_app(name)))
    assert traversal.f1 >= 0.95 and traversal.state_match is not None and traversal.state_match >= 0.95
    for metric in ("tfidf", "rouge", "bleu", "meteor"):
        assert getattr(traversal, metric) >= getattr(vanilla, metric) + 0.3, metric
    if name == "filesystem":  # the memory server has almost no semantic checks for a baseline to miss
        assert traversal.f1 >= vanilla.f1 + 0.3


# -- the command line ----------------------------------------------------------------------------------------
@pytest.mark.slow  # starts node, and the CLI imports every command and the metric libraries (> 5 s here)
def test_cli_traverse_and_fidelity(tmp_path: Path) -> None:
    why = missing_reason("memory")
    if why:
        pytest.skip(f"real memory server unavailable: {why}")
    from typer.testing import CliRunner

    from mcp_persona.cli import app
    from mcp_persona.traverse.servers import entry_point

    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text("\n".join(json.dumps(s) for s in [
        {"id": "c", "tool": "create_entities", "arguments": {"entities": [{"name": "A", "entityType": "t",
                                                                           "observations": ["o"]}]}},
        {"id": "s", "tool": "search_nodes", "arguments": {"query": "a"}}]))
    out = tmp_path / "pool.jsonl"
    runner = CliRunner()
    result = runner.invoke(app, ["traverse", "--stdio", f"node {entry_point('memory')}", "--env",
                                 "MEMORY_FILE_PATH={memory_file}", "--reset", "memory-file", "--seeds", str(seeds),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    pool = load_pool(out)
    assert [t.seed_id for t in pool.traces if t.rule == "seed"] == ["c", "s"]
    assert {t.error_class for t in pool.traces} >= {None, "type_mismatch", "schema_violation"}
    result = runner.invoke(app, ["fidelity", "--pool", str(out), "--simulator", "memory", "--baseline", "none",
                                 "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)["reports"][0]
    assert report["simulator"] == "Tool-Traversal" and report["f1"] == 1.0 and report["mismatches"] == []
    result = runner.invoke(app, ["traverse", "--seeds", str(seeds), "--out", str(out)])
    assert result.exit_code == 2 and "exactly one of --stdio, --url, --reference" in result.output
