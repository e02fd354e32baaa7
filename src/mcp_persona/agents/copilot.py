"""The MCP Copilot agent (LiveMCPBench): a model that reaches a large tool library through two
meta-tools, ``route(query)`` to find tools and ``execute(server_name, tool_name, params)`` to call
one, in the same ReAct loop as :class:`~mcp_persona.agents.model.ModelAgent`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mcp_persona.agents.model import ModelAgent, parse_arguments
from mcp_persona.environment import Environment
from mcp_persona.trajectory import ToolCallEvent

if TYPE_CHECKING:
    from mcp_persona.retrieval import Router

META_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "route",
        "description": "Find tools for a need. Describe what you want to do; returns the best-matching tools "
                       "with their server, description and parameters.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string", "description": "what the tool should do, e.g. 'current stock price'"}},
            "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "execute",
        "description": "Call a tool that route found, with its parameters.",
        "parameters": {"type": "object", "properties": {
            "server_name": {"type": "string"}, "tool_name": {"type": "string"},
            "params": {"type": "object", "description": "the tool's arguments"}},
            "required": ["server_name", "tool_name", "params"]}}},
]

NOTE = """
You have no tools of your own: call route to find tools for each need, then execute to call one of them
(use the server_name and tool_name route returned, and its parameters)."""


class CopilotAgent(ModelAgent):
    name = "copilot"

    def __init__(self, *args: Any, top: int = 3, embeddings_json: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.top = top
        self.embeddings_json = embeddings_json

    def router(self, env: Environment) -> Router:
        from mcp_persona.retrieval import get_router  # numpy and the index load when a copilot first routes

        library = getattr(env, "library", None)
        if library is None:
            raise ValueError("the copilot agent needs a suite whose protocol serves a tool library (livemcpbench)")
        return get_router(library, self.embeddings_json)

    def tool_specs(self, env: Environment) -> Sequence[dict[str, Any]]:
        return META_TOOLS

    def system_prompt(self, given: str, env: Environment) -> str:
        return super().system_prompt(given, env) + "\n" + NOTE

    async def execute(self, env: Environment, name: str, raw: str, rnd: int, call_id: str) -> ToolCallEvent:
        args = parse_arguments(raw)
        if name not in ("route", "execute"):
            return ToolCallEvent(round=rnd, call_id=call_id, tool=name, raw_arguments=raw, is_error=True,
                                 result=f"Error: there is no tool named {name!r}; use route or execute.")
        if isinstance(args, str):
            return ToolCallEvent(round=rnd, call_id=call_id, tool=name, raw_arguments=raw, is_error=True,
                                 result=args, via=name)  # type: ignore[arg-type]
        if name == "route":
            return self._route(env, args, raw, rnd, call_id)
        server, tool, params = args.get("server_name"), args.get("tool_name"), args.get("params", {})
        if isinstance(params, str):  # a model may send the object JSON-encoded; decoding it guesses nothing
            decoded = parse_arguments(params)
            params = decoded if isinstance(decoded, dict) else params
        if not isinstance(server, str) or not isinstance(tool, str) or not isinstance(params, dict):
            return ToolCallEvent(round=rnd, call_id=call_id, tool="execute", raw_arguments=raw, is_error=True,
                                 via="execute",
                                 result="Error: execute needs server_name and tool_name (strings) and params "
                                        "(an object).")
        event = await env.call(server, tool, params, round=rnd, call_id=call_id)
        event.raw_arguments = raw
        event.via = "execute"
        return event

    def _route(self, env: Environment, args: dict[str, Any], raw: str, rnd: int, call_id: str) -> ToolCallEvent:
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return ToolCallEvent(round=rnd, call_id=call_id, tool="route", raw_arguments=raw, is_error=True,
                                 via="route", result="Error: route needs a non-empty 'query' string.")
        from mcp_persona.retrieval import flat_schema

        router = self.router(env)
        found = []
        for hit in router.route(query, top=self.top):
            doc = router.tool(hit.server, hit.tool)
            assert doc is not None
            found.append({"server_name": hit.server, "tool_name": hit.tool, "description": doc.description,
                          "parameters": flat_schema(doc.input_schema), "score": round(hit.score, 4)})
        result = json.dumps(found, ensure_ascii=False) if found else "No tool matches that query; rephrase it."
        return ToolCallEvent(round=rnd, call_id=call_id, tool="route", arguments=args, raw_arguments=raw,
                             result=result, via="route")
