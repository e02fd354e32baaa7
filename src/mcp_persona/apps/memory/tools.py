"""The memory tools over the knowledge-graph Context-Tree (see ``data/hierarchies/memory.json``).

Written from the trace pool ``data/traces/memory.jsonl`` (the real server traversed with
``mcp-persona traverse``). What the traces show, and what is kept here:

* every write tool is a batch; ``create_entities`` / ``create_relations`` skip items that already
  exist in the graph (by name / by the full triple) but not repeats inside the batch, and answer
  with the items actually added (``[]`` when none);
* relations may name entities that do not exist; deleting what does not exist succeeds;
* ``add_observations`` is the one semantic check: an unknown entity name fails the whole batch
  with ``Entity with name <name> not found`` and nothing is saved; observations already present
  are skipped, and the answer lists what was added per entity;
* reads answer ``{"entities": [...], "relations": [...]}``; ``search_nodes`` matches name, type
  and observations case-insensitively, ``open_nodes`` matches names exactly, and both add every
  relation with at least one end among the matched entities;
* texts are ``JSON.stringify(x, null, 2)``; deletes answer a fixed sentence.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp_persona.apps._reference import ReferenceApp, js_json, pick
from mcp_persona.apps.base import AppEnv, ToolFailure
from mcp_persona.apps.memory.specs import TOOL_SPECS
from mcp_persona.context_tree import Segment

ENTITY_KEYS = ("name", "entityType", "observations")
RELATION_KEYS = ("from", "to", "relationType")


class MemoryApp(ReferenceApp):
    pass


APP = MemoryApp(
    "memory",
    title="Knowledge Graph Memory",
    category="utility",
    personalized=False,
    description="A persistent knowledge graph of entities, observations and relations.",
    real_server="@modelcontextprotocol/server-memory",
    tool_specs=TOOL_SPECS,
)


def _arg(tool: str, name: str) -> Any:
    return APP.arg(tool, name)


# -- the graph as the real server sees it -------------------------------------------------------------
def graph_entities(env: AppEnv) -> list[dict[str, Any]]:
    return env.tree.list("entities")


def graph_relations(env: AppEnv) -> list[dict[str, Any]]:
    return env.tree.list("relations")


def public_entity(e: dict[str, Any]) -> dict[str, Any]:
    return {"name": e.get("name"), "entityType": e.get("entityType"), "observations": list(e.get("observations", []))}


def public_relation(r: dict[str, Any]) -> dict[str, Any]:
    return {"from": r.get("from"), "to": r.get("to"), "relationType": r.get("relationType")}


def _first_named(env: AppEnv, name: str) -> dict[str, Any] | None:
    return next((e for e in graph_entities(env) if e.get("name") == name), None)


def _new_id(env: AppEnv, entity_type: str, collection: str) -> str:
    """A fresh generated id (the generator is seeded per episode, so skip any already taken)."""
    taken = env.tree.data.get(collection) or {}
    while (eid := env.tree.new_id(entity_type)) in taken:
        pass
    return eid


def _path(collection: str, key: str) -> str:
    return str(Segment(collection, key))


def _subgraph(env: AppEnv, keep: list[dict[str, Any]]) -> str:
    names = {e.get("name") for e in keep}
    relations = [public_relation(r) for r in graph_relations(env) if r.get("from") in names or r.get("to") in names]
    return js_json({"entities": [public_entity(e) for e in keep], "relations": relations})


# -- tools --------------------------------------------------------------------------------------------
@APP.tool(mutates=True)
def create_entities(env: AppEnv, entities: Annotated[Any, _arg("create_entities", "entities")]) -> str:
    """Create multiple new entities in the knowledge graph"""
    existing = {e.get("name") for e in graph_entities(env)}
    added = [pick(e, ENTITY_KEYS) for e in entities if e["name"] not in existing]
    for e in added:
        env.tree.create("entities", {**e, "observations": list(e["observations"])},
                        entity_id=_new_id(env, "entity", "entities"))
    return js_json(added)


@APP.tool(mutates=True)
def create_relations(env: AppEnv, relations: Annotated[Any, _arg("create_relations", "relations")]) -> str:
    """Create multiple new relations between entities in the knowledge graph. Relations should be in active voice"""
    existing = {(r.get("from"), r.get("to"), r.get("relationType")) for r in graph_relations(env)}
    added = [pick(r, RELATION_KEYS) for r in relations if (r["from"], r["to"], r["relationType"]) not in existing]
    for r in added:
        env.tree.create("relations", dict(r), entity_id=_new_id(env, "relation", "relations"))
    return js_json(added)


@APP.tool(mutates=True)
def add_observations(env: AppEnv, observations: Annotated[Any, _arg("add_observations", "observations")]) -> str:
    """Add new observations to existing entities in the knowledge graph"""
    results = []
    for item in observations:
        entity = _first_named(env, item["entityName"])
        if entity is None:  # the whole batch fails; the transaction undoes earlier items
            raise ToolFailure(f"Entity with name {item['entityName']} not found", kind="not_found")
        current = list(entity.get("observations", []))
        new = [c for c in item["contents"] if c not in current]
        env.tree.update(_path("entities", entity["entity_id"]), {"observations": current + new})
        results.append({"entityName": item["entityName"], "addedObservations": new})
    return js_json(results)


@APP.tool(mutates=True)
def delete_entities(env: AppEnv, entityNames: Annotated[Any, _arg("delete_entities", "entityNames")]) -> str:
    """Delete multiple entities and their associated relations from the knowledge graph"""
    doomed = set(entityNames)
    for e in graph_entities(env):
        if e.get("name") in doomed:
            env.tree.delete(_path("entities", e["entity_id"]))
    for r in graph_relations(env):
        if r.get("from") in doomed or r.get("to") in doomed:
            env.tree.delete(_path("relations", r["relation_id"]))
    return "Entities deleted successfully"


@APP.tool(mutates=True)
def delete_observations(env: AppEnv, deletions: Annotated[Any, _arg("delete_observations", "deletions")]) -> str:
    """Delete specific observations from entities in the knowledge graph"""
    for d in deletions:
        entity = _first_named(env, d["entityName"])
        if entity is None:  # silently skipped, as the real server does
            continue
        kept = [o for o in entity.get("observations", []) if o not in d["observations"]]
        if kept != entity.get("observations", []):
            env.tree.update(_path("entities", entity["entity_id"]), {"observations": kept})
    return "Observations deleted successfully"


@APP.tool(mutates=True)
def delete_relations(env: AppEnv, relations: Annotated[Any, _arg("delete_relations", "relations")]) -> str:
    """Delete multiple relations from the knowledge graph"""
    doomed = {(r["from"], r["to"], r["relationType"]) for r in relations}
    for r in graph_relations(env):
        if (r.get("from"), r.get("to"), r.get("relationType")) in doomed:
            env.tree.delete(_path("relations", r["relation_id"]))
    return "Relations deleted successfully"


@APP.tool()
def read_graph(env: AppEnv) -> str:
    """Read the entire knowledge graph"""
    return js_json({"entities": [public_entity(e) for e in graph_entities(env)],
                    "relations": [public_relation(r) for r in graph_relations(env)]})


@APP.tool()
def search_nodes(env: AppEnv, query: Annotated[str, _arg("search_nodes", "query")]) -> str:
    """Search for nodes in the knowledge graph based on a query"""
    q = query.lower()
    hits = [e for e in graph_entities(env)
            if q in str(e.get("name", "")).lower() or q in str(e.get("entityType", "")).lower()
            or any(q in str(o).lower() for o in e.get("observations", []))]
    return _subgraph(env, hits)


@APP.tool()
def open_nodes(env: AppEnv, names: Annotated[Any, _arg("open_nodes", "names")]) -> str:
    """Open specific nodes in the knowledge graph by their names"""
    wanted = set(names)
    return _subgraph(env, [e for e in graph_entities(env) if e.get("name") in wanted])
