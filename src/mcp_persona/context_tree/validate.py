"""Integrity checks for a whole state: run on every context file when it is loaded."""

from __future__ import annotations

from typing import Any

from mcp_persona.context_tree.hierarchy import Hierarchy
from mcp_persona.context_tree.path import PathError, parse_path


def check_state(h: Hierarchy, data: Any) -> list[str]:
    """Problems with ``data`` under ``h``: empty when it is a valid Context-Tree."""
    if not isinstance(data, dict):
        return ["the state must be a JSON object"]
    problems: list[str] = []
    ids: dict[str, set[str]] = {t: set() for t in h.entities}
    entities = []
    for collection in h.child_types(None):
        if collection in data and not isinstance(data[collection], dict):
            problems.append(f"{collection}: must be an object mapping id -> entity")
    for etype, path, entity in h.iter_entities(data):
        decl = h.entities[etype]
        if not isinstance(entity, dict):
            problems.append(f"{path}: must be an object")
            continue
        try:  # the entity's key, read back from its path (quoted ids may hold '[', ']', '"')
            key = parse_path(path)[-1].selector
        except PathError:
            problems.append(f"{path}: an id must be a non-empty string")
            continue
        if entity.get(decl.id_field) != key:
            problems.append(f"{path}: {decl.id_field} is {entity.get(decl.id_field)!r}, must equal its key")
        for collection in h.child_types(etype):
            if collection in entity and not isinstance(entity[collection], dict):
                problems.append(f"{path}.{collection}: must be an object mapping id -> entity")
        ids[etype].add(key)
        entities.append((etype, path, entity))
    for etype, path, entity in entities:
        for fieldname, target in h.entities[etype].references.items():
            value = entity.get(fieldname)
            if value is None:
                continue
            for ref in value if isinstance(value, list) else [value]:
                if not isinstance(ref, str) or ref not in ids[target]:
                    problems.append(f"{path}.{fieldname}: no {target} with id {ref!r}")
    return problems
