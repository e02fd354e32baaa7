"""What a model is sent for the tools: small, never larger than the MCP schema, built once per app."""

from __future__ import annotations

import json
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client

from mcp_persona.agents import ModelAgent, ReferenceAgent
from mcp_persona.agents.tool_schema import (
    ToolSpecs,
    compact_schema,
    estimate_tokens,
    function_spec,
    openai_tools,
    spec_chars,
)
from mcp_persona.apps import app_names, get_app
from mcp_persona.environment import SEP, Environment, PoolTool, app_tools
from mcp_persona.llm.base import ChatResponse, wire_json
from mcp_persona.protocols import load_tasks
from mcp_persona.report.summary import build_summary
from mcp_persona.runner import RunConfig, run_episode

# Ceilings on what one request carries for the tools (compact JSON characters; tokens ~ chars / 3), just
# above today's sizes: the largest tool is notion_append_block_children (5,026: its blocks' children are cut
# at the first repetition), the largest app Notion (39,237), --tools all 203,220 (41 servers, ~300 tools).
MAX_TOOL_CHARS = 5_200
MAX_APP_CHARS = 40_000
MAX_ALL_CHARS = 205_000


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


async def _listed(name: str) -> tuple[PoolTool, ...]:
    app = get_app(name)
    async with Client(app.server(app.env(app.context_ids()[0]))) as client:
        return await app_tools(app, client)


@pytest.fixture(scope="module")
def listed() -> dict[str, tuple[PoolTool, ...]]:
    async def all_apps() -> dict[str, tuple[PoolTool, ...]]:
        return {name: await _listed(name) for name in app_names()}

    return anyio.run(all_apps)


def test_every_app_sends_small_specs_never_larger_than_its_schemas(listed: dict[str, tuple[PoolTool, ...]]) -> None:
    total = 0
    for name, tools in listed.items():
        specs = openai_tools(list(tools))
        for tool, spec in zip(tools, specs, strict=True):
            assert size(spec["function"]["parameters"]) <= size(tool.input_schema), tool.exposed
            assert spec_chars([spec]) <= MAX_TOOL_CHARS, (tool.exposed, spec_chars([spec]))
        chars = spec_chars(specs)
        assert chars <= MAX_APP_CHARS, (name, chars, estimate_tokens(chars))
        assert estimate_tokens(chars) <= MAX_APP_CHARS / 3 + 1
        total += chars if get_app(name).library is None else 0  # a protocol's tool library is never in "all"
    assert total <= MAX_ALL_CHARS, total


def _facts(schema: Any) -> tuple[set[str], set[str]]:
    """Every property name, and every required list, enum and const (as JSON), anywhere in a schema."""
    names: set[str] = set()
    values: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for n in node:
                walk(n)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k in ("properties", "$defs") and isinstance(v, dict):
                    names.update(v if k == "properties" else ())
                    walk(list(v.values()))
                elif k in ("required", "enum", "const"):
                    values.add(json.dumps([k, v], sort_keys=True))
                else:
                    walk(v)

    walk(schema)
    return names, values


def test_every_property_required_field_enum_and_const_reaches_the_model(
        listed: dict[str, tuple[PoolTool, ...]]) -> None:
    for tools in listed.values():
        for tool in tools:
            spec = function_spec(tool)["function"]["parameters"]
            jsonschema.Draft202012Validator.check_schema(spec)
            assert _facts(spec) == _facts(tool.input_schema), tool.exposed
            assert spec.get("required", []) == tool.input_schema.get("required", []), tool.exposed
            assert list(spec.get("properties", {})) == list(tool.input_schema.get("properties", {})), tool.exposed


def test_the_gold_arguments_of_notion_tasks_fit_the_cut_specs() -> None:
    # Notion's specs are the ones cut (nested blocks): what the reference agent sends must still fit them.
    tasks = [t for t in load_tasks("persona") if "notion" in t.server_names]

    async def calls() -> list[tuple[dict[str, Any], dict[str, Any]]]:
        out = []
        for task in tasks:
            async with Environment(task) as env:
                specs = {t.exposed: function_spec(t)["function"]["parameters"] for t in env.pool}
            record = await run_episode(task, ReferenceAgent())
            out += [(specs[f"{c.server}{SEP}{c.tool}"], c.arguments or {}) for c in record.trajectory.tool_calls]
        return out

    checked = anyio.run(calls)
    assert len(checked) > len(tasks)
    for spec, arguments in checked:
        jsonschema.validate(arguments, spec, cls=jsonschema.Draft202012Validator)


def test_the_tools_all_pool_fits_and_is_the_sum_of_its_apps() -> None:
    task = load_tasks("persona")[0]

    async def pool() -> ToolSpecs:
        from mcp_persona.protocols import get_protocol

        async with Environment(task, tools="all", pool=get_protocol("persona").pool(task, {}, "all")) as env:
            return openai_tools(env.pool)

    specs = anyio.run(pool)
    from mcp_persona.protocols.persona import suite_servers

    # the paper's "all tools": every server of the persona suite (not the other suites' servers)
    assert {s["function"]["name"].split("__")[0] for s in specs} == set(suite_servers("persona"))
    assert spec_chars(specs) <= MAX_ALL_CHARS
    # the encoded form a request splices in is the list's own encoding, tool by tool
    assert specs.json == wire_json(list(specs)) and spec_chars(specs) == spec_chars(list(specs))


def test_specs_are_built_once_per_app_and_shared_by_episodes() -> None:
    task = load_tasks("persona")[0]

    async def two_pools() -> tuple[list[PoolTool], list[PoolTool]]:
        async with Environment(task) as a, Environment(task) as b:
            return a.pool, b.pool

    first, second = anyio.run(two_pools)
    assert first and all(x is y for x, y in zip(first, second, strict=True))
    assert function_spec(first[0]) is function_spec(second[0])


def test_shared_definitions_stay_references_and_recursion_is_cut_by_a_reference() -> None:
    leaf = {"title": "Leaf", "type": "object", "properties": {"text": {"type": "string", "title": "Text"}}}
    # "Mid" uses Leaf ten times and is used ten times by the root: inlined, that is 100 copies of Leaf.
    mid = {"type": "object", "properties": {f"k{i}": {"$ref": "#/$defs/Leaf"} for i in range(10)}}
    node = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                                             "once": {"$ref": "#/$defs/Once"}}}
    schema = {"type": "object", "title": "Args",
              "properties": {**{f"m{i}": {"$ref": "#/$defs/Mid"} for i in range(10)},
                             "tree": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}], "default": None}},
              "$defs": {"Leaf": leaf, "Mid": mid, "Node": node, "Once": {"type": "integer", "title": "Once"},
                        "Unused": {"type": "string"}}}
    out = compact_schema(schema)
    assert size(out) < size(schema)
    assert out["properties"]["m0"] == {"$ref": "#/$defs/Mid"}
    assert out["properties"]["tree"] == {"$ref": "#/$defs/Node"}  # nullable unwrapped, null default dropped
    assert set(out["$defs"]) == {"Leaf", "Mid", "Node"}  # Once inlined (used once), Unused dropped
    assert out["$defs"]["Node"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Node"}
    assert out["$defs"]["Node"]["properties"]["once"] == {"type": "integer"}
    assert out["$defs"]["Leaf"] == {"type": "object", "properties": {"text": {"type": "string"}}}


def test_a_recursion_unrolled_into_levels_is_cut_at_its_first_repetition() -> None:
    # Notion's shape: a block's content has children blocks, three levels deep, the last without children.
    def block(content: str, doc: str) -> dict[str, Any]:
        return {"type": "object", "description": doc, "required": ["type"], "properties": {
            "type": {"enum": ["p", "h"], "type": "string"}, "p": {"$ref": content}, "h": {"$ref": content}}}

    def content(children: str | None = None) -> dict[str, Any]:
        props: dict[str, Any] = {"text": {"type": "array", "items": {"$ref": "#/$defs/Text"}},
                                 "color": {"type": "string"}}
        if children:
            props["children"] = {"type": "array", "items": {"$ref": children}}
        return {"type": "object", "properties": props}

    schema = {"type": "object", "title": "Args", "required": ["children"],
              "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Block"}}},
              "$defs": {"Block": block("#/$defs/TopContent", "A block."),
                        "Nested": block("#/$defs/NestedContent", "A nested block."),
                        "Leaf": block("#/$defs/LeafContent", "A leaf block."),
                        "TopContent": content("#/$defs/Nested"), "NestedContent": content("#/$defs/Leaf"),
                        "LeafContent": content(),
                        "Text": {"type": "object", "properties": {"content": {"type": "string"}},
                                 "required": ["content"]}}}
    out = compact_schema(schema)
    assert size(out) < size(schema)
    top = out["properties"]["children"]["items"]
    assert top["required"] == ["type"] and top["properties"]["type"]["enum"] == ["p", "h"]
    assert top["properties"]["p"] == top["properties"]["h"] == {"$ref": "#/$defs/TopContent"}
    assert set(out["$defs"]) == {"TopContent"}  # the deeper levels are gone; Text, now used once, inlined
    content_fields = out["$defs"]["TopContent"]["properties"]
    assert content_fields["text"]["items"]["required"] == ["content"]
    assert content_fields["children"]["items"] == {"type": "object", "description": (
        "A nested block. Same fields as the `children` item it is nested in; at most 1 more level of nesting.")}


def test_a_true_recursion_is_not_cut_but_stays_a_reference() -> None:
    node = {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"},
                                             "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    schema = {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}}
    assert compact_schema(schema) == schema


def test_a_subschema_repeated_under_one_name_is_sent_once() -> None:
    color = {"enum": [f"colour_{i}" for i in range(19)], "type": "string"}
    code = {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 code, e.g. USD"}
    schema = {"type": "object", "properties": {
        "text": {"type": "object", "properties": {"color": dict(color), "bold": {"type": "boolean"}}},
        "block": {"type": "object", "properties": {"color": dict(color), "kind": {"type": "string"}}},
        "base": dict(code), "target": dict(code)}}
    out = compact_schema(schema)
    assert out["$defs"] == {"color": color}
    assert out["properties"]["text"]["properties"]["color"] == {"$ref": "#/$defs/color"}
    assert out["properties"]["block"]["properties"]["color"] == {"$ref": "#/$defs/color"}
    # under two names a shared entry would read as one argument standing for the other: both stay
    assert out["properties"]["base"] == out["properties"]["target"] == code


def test_properties_named_like_keywords_are_kept() -> None:
    schema = {"type": "object", "title": "Args", "required": ["title"], "properties": {
        "title": {"type": "string", "title": "Title"}, "default": {"type": "integer", "title": "Default"},
        "properties": {"type": "object", "additionalProperties": True, "title": "Properties"}}}
    assert compact_schema(schema) == {"type": "object", "required": ["title"], "properties": {
        "title": {"type": "string"}, "default": {"type": "integer"}, "properties": {"type": "object"}}}


def test_a_meaningful_default_is_kept() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "default": 20, "title": "N"}}}
    assert compact_schema(schema) == {"type": "object", "properties": {"n": {"type": "integer", "default": 20}}}


class OneAnswer:
    name = "scripted"

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ChatResponse:
        return ChatResponse(content="Done.")


def test_the_summary_records_tool_definition_tokens_per_request() -> None:
    task = load_tasks("persona")[0]
    record = anyio.run(lambda: run_episode(task, ModelAgent(OneAnswer())))

    async def expected() -> int:
        async with Environment(task) as env:
            return spec_chars(openai_tools(env.pool))

    chars = anyio.run(expected)
    assert record.trajectory.tool_def_chars == chars > 0
    assert record.trajectory.tool_def_tokens == estimate_tokens(chars)
    summary = build_summary(RunConfig(suite="persona", agent="model", model="scripted"), [task], [record])
    assert summary["metrics"]["tool_def_tokens_per_request"] == estimate_tokens(chars)
    assert summary["metrics"]["tool_def_chars_per_request"] == chars
