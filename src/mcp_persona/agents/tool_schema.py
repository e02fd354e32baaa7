"""MCP tool definitions as the model sees them: OpenAI function specs with compact schemas.

Pydantic's schemas carry ``$defs``/``$ref``, titles and ``anyOf [X, null]`` for
optional fields; a model (the small local one above all) reads an inlined, plain
schema more easily and in far fewer tokens. The meaning is unchanged: the server
still validates the full schema.
"""

from __future__ import annotations

from typing import Any

from mcp_persona.environment import PoolTool

_DROP = {"title", "default"}


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
            return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}})
        any_of = node.get("anyOf")
        if isinstance(any_of, list):
            non_null = [o for o in any_of if o != {"type": "null"}]
            if len(non_null) == 1 and len(non_null) < len(any_of):
                rest = {k: v for k, v in node.items() if k != "anyOf"}
                return walk({**non_null[0], **rest})
        return {k: walk(v) for k, v in node.items() if k not in _DROP and k != "$defs"}

    return walk(schema)


def openai_tools(pool: list[PoolTool]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.exposed,
                "description": t.description,
                "parameters": compact_schema(t.input_schema),
            },
        }
        for t in pool
    ]
