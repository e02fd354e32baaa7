"""The memory app (a replica of @modelcontextprotocol/server-memory) through the real MCP path.

Every tool's success path, then the four error classes with the state unchanged. Expected texts
are the real server's, as recorded in ``data/traces/memory.jsonl``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.traverse.reconstruct import memory_file

pytestmark = pytest.mark.anyio

APP = get_app("memory")
PREFIX = "MCP error -32602: Input validation error: Invalid arguments for tool "

H = AppHarness(APP, check_internal_errors=False)
call = H.outcome  # (text, is_error); replica=True for the replica server
env = H.env_fixture()


def names(env: AppEnv) -> list[str]:
    return [e["name"] for e in env.tree.list("entities")]


def relations(env: AppEnv) -> list[tuple[str, str, str]]:
    return [(r["from"], r["to"], r["relationType"]) for r in env.tree.list("relations")]


def observations(env: AppEnv, name: str) -> list[str]:
    return next(e["observations"] for e in env.tree.list("entities") if e["name"] == name)


# -- success paths -------------------------------------------------------------------------------------------
async def test_lists_the_real_tools_and_schemas() -> None:
    async with Client(APP.server(APP.env("default"))) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert list(tools) == ["create_entities", "create_relations", "add_observations", "delete_entities",
                           "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"]
    assert tools["create_entities"].input_schema["properties"]["entities"]["items"]["required"] == \
        ["name", "entityType", "observations"]
    assert tools["create_relations"].description == ("Create multiple new relations between entities in the "
                                                     "knowledge graph. Relations should be in active voice")


async def test_create_entities_adds_new_ones_and_skips_existing(env: AppEnv) -> None:
    text, err = await call(env, "create_entities", {"entities": [
        {"observations": ["Founded in 1660"], "entityType": "organization", "name": "Royal Society", "x": 1},
        {"name": "London", "entityType": "city", "observations": ["again"]}]})
    assert not err
    assert json.loads(text) == [{"name": "Royal Society", "entityType": "organization",
                                 "observations": ["Founded in 1660"]}]
    assert text.startswith('[{"name":"Royal Society","entityType"')  # zod's key order, compact
    assert names(env)[-1] == "Royal Society" and names(env).count("London") == 1
    assert observations(env, "London") == ["Home of the Royal Society"]


async def test_create_relations_skips_existing_triples_only(env: AppEnv) -> None:
    text, err = await call(env, "create_relations", {"relations": [
        {"from": "Ada Lovelace", "to": "Analytical Engine", "relationType": "works_on"},
        {"from": "Ada Lovelace", "to": "Nowhere", "relationType": "visits"}]})
    assert not err
    assert json.loads(text) == [{"from": "Ada Lovelace", "to": "Nowhere", "relationType": "visits"}]
    assert relations(env)[-1] == ("Ada Lovelace", "Nowhere", "visits")  # a dangling relation is accepted


async def test_add_observations_dedupes(env: AppEnv) -> None:
    contents = ["Designs the Difference Engine", "Fellow of the Royal Society"]
    text, err = await call(env, "add_observations", {"observations": [{"entityName": "Charles Babbage",
                                                                        "contents": contents}]})
    assert not err
    assert json.loads(text) == [{"entityName": "Charles Babbage", "addedObservations": ["Fellow of the Royal Society"]}]
    assert observations(env, "Charles Babbage") == ["Designs the Difference Engine", "Fellow of the Royal Society"]


async def test_deletes(env: AppEnv) -> None:
    assert await call(env, "delete_entities", {"entityNames": ["London", "Nobody"]}) == \
        ("Entities deleted successfully", False)
    assert "London" not in names(env)
    assert all("London" not in (f, t) for f, t, _ in relations(env))  # its relations went with it
    assert await call(env, "delete_observations", {"deletions": [
        {"entityName": "Analytical Engine", "observations": ["Funding under review"]},
        {"entityName": "Nobody", "observations": ["x"]}]}) == ("Observations deleted successfully", False)
    assert observations(env, "Analytical Engine") == ["Uses punched cards"]
    assert await call(env, "delete_relations", {"relations": [
        {"from": "Ada Lovelace", "to": "Charles Babbage", "relationType": "corresponds_with"}]}) == \
        ("Relations deleted successfully", False)
    assert ("Ada Lovelace", "Charles Babbage", "corresponds_with") not in relations(env)


async def test_reads(env: AppEnv) -> None:
    text, err = await call(env, "read_graph", {})
    graph = json.loads(text)
    assert not err and [e["name"] for e in graph["entities"]] == names(env) and len(graph["relations"]) == 4
    found = json.loads((await call(env, "search_nodes", {"query": "ENGINE"}))[0])
    assert [e["name"] for e in found["entities"]] == ["Ada Lovelace", "Charles Babbage", "Analytical Engine"]
    opened = json.loads((await call(env, "open_nodes", {"names": ["London", "Nobody"]}))[0])
    assert [e["name"] for e in opened["entities"]] == ["London"]
    assert opened["relations"] == [{"from": "Charles Babbage", "to": "London", "relationType": "lives_in"}]


# -- the four error classes, state unchanged ------------------------------------------------------------------
@pytest.mark.parametrize(("tool", "args", "expected"), [
    # type mismatch
    ("create_entities", {"entities": "x"},
     "create_entities: Invalid input: expected array, received string at entities"),
    ("create_entities", {"entities": [{"name": 5, "entityType": None}]},
     "create_entities: Invalid input: expected string, received number at entities[0].name\n"
     "Invalid input: expected string, received null at entities[0].entityType\n"
     "Invalid input: expected array, received undefined at entities[0].observations"),
    ("search_nodes", {"query": 5}, "search_nodes: Invalid input: expected string, received number at query"),
    # schema violation: missing, and (strict server) unknown top-level keys
    ("open_nodes", {}, "open_nodes: Invalid input: expected array, received undefined at names"),
    ("delete_relations", {"relations": [{"from": "a", "to": "b"}]},
     "delete_relations: Invalid input: expected string, received undefined at relations[0].relationType"),
    ("read_graph", {"zz_extra": 1}, 'read_graph: Unrecognized key: "zz_extra"'),
])
async def test_invalid_arguments_are_rejected_like_zod(env: AppEnv, tool: str, args: dict[str, Any],
                                                       expected: str) -> None:
    before = env.tree.hash()
    assert await call(env, tool, args) == (PREFIX + expected, True)
    assert env.tree.hash() == before


async def test_unknown_top_level_keys_are_dropped_in_replica_mode(env: AppEnv) -> None:
    text, err = await call(env, "open_nodes", {"names": ["London"], "zz_extra": 1}, replica=True)
    assert not err and json.loads(text)["entities"][0]["name"] == "London"


async def test_boundaries_are_accepted_as_the_real_server_accepts_them(env: AppEnv) -> None:
    before = env.tree.hash()
    assert await call(env, "create_entities", {"entities": []}) == ("[]", False)  # empty batch: a no-op
    assert await call(env, "delete_entities", {"entityNames": [""]}) == ("Entities deleted successfully", False)
    assert env.tree.hash() == before
    long = "x" * 300
    _, err = await call(env, "create_entities", {"entities": [{"name": long, "entityType": "", "observations": []}]})
    assert not err and names(env)[-1] == long


async def test_semantic_conflict_fails_the_whole_batch(env: AppEnv) -> None:
    before, file_before = env.tree.hash(), memory_file(env.tree.data)
    text, err = await call(env, "add_observations", {"observations": [
        {"entityName": "Ada Lovelace", "contents": ["saved?"]}, {"entityName": "Nobody", "contents": ["x"]}]})
    assert (text, err) == ("Entity with name Nobody not found", True)
    assert env.tree.hash() == before and memory_file(env.tree.data) == file_before  # the first item was undone


async def test_unknown_tool(env: AppEnv) -> None:
    assert await call(env, "no_such_tool", {}) == ("MCP error -32602: Tool no_such_tool not found", True)
