"""Context reconstruction (paper §4.3): the real server's pre-call state, loaded into a Context-Tree.

A simulator can only be judged on its logic if it starts from exactly the state the real tool saw.
Each trace carries that state as the prober captured it (the memory file's text, or the directory
tree with contents and metadata); :func:`reconstruct` turns it into Context-Tree data for the
simulated app, and :func:`deconstruct` turns a tree back into the server's own form, so that a
round trip is lossless and a simulator's post-call tree can be compared with the real post-call
state.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_persona.apps.base import App, AppEnv
from mcp_persona.clock import DEFAULT_CLOCK, TaskClock
from mcp_persona.context_tree import ContextTree, canonical_json

Data = dict[str, Any]


# -- memory: the JSONL memory file <-> entities / relations ---------------------------------------------------
def memory_tree(text: str | None, *, seed: int = 0, app: App | None = None) -> Data:
    """The knowledge graph of a memory file, as the memory app's tree (ids drawn from ``seed``)."""
    from mcp_persona.apps import get_app

    hierarchy = (app or get_app("memory")).hierarchy
    tree = ContextTree(hierarchy, {"entities": {}, "relations": {}}, seed=seed)
    for line in (text or "").split("\n"):
        if not line.strip():
            continue
        item = json.loads(line)
        if item.get("type") == "entity":
            tree.create("entities", {"name": item.get("name"), "entityType": item.get("entityType"),
                                     "observations": list(item.get("observations") or [])})
        elif item.get("type") == "relation":
            tree.create("relations", {"from": item.get("from"), "to": item.get("to"),
                                      "relationType": item.get("relationType")})
    return tree.data


def memory_file(data: Data) -> str | None:
    """The memory file the real server would write for this tree (None: an empty graph, no file)."""
    lines = [json.dumps({"type": "entity", "name": e.get("name"), "entityType": e.get("entityType"),
                         "observations": e.get("observations", [])}, ensure_ascii=False, separators=(",", ":"))
             for e in (data.get("entities") or {}).values()]
    lines += [json.dumps({"type": "relation", "from": r.get("from"), "to": r.get("to"),
                          "relationType": r.get("relationType")}, ensure_ascii=False, separators=(",", ":"))
              for r in (data.get("relations") or {}).values()]
    return "\n".join(lines) if lines else None


def memory_graph(text: str | None) -> dict[str, list[dict[str, Any]]]:
    """The graph a memory file holds, in file order: what two states are compared on."""
    graph: dict[str, list[dict[str, Any]]] = {"entities": [], "relations": []}
    for line in (text or "").split("\n"):
        if line.strip():
            item = json.loads(line)
            kind = item.pop("type", None)
            if kind == "entity":
                graph["entities"].append(item)
            elif kind == "relation":
                graph["relations"].append(item)
    return graph


# -- filesystem: the captured directory tree <-> nodes ---------------------------------------------------------
def fs_tree(capture: dict[str, Any]) -> Data:
    """The filesystem app's tree for a captured directory (``kind: dir``)."""
    root = str(capture["root"]).rstrip("/") or "/"
    nodes: Data = {}
    for e in capture.get("entries", []):
        rel = e.get("path", "")
        path = f"{root}/{rel}" if rel else root
        node: Data = {"path": path, "type": e["type"], "mode": e.get("mode", "644"),
                      "mtime": e.get("mtime", 0.0), "atime": e.get("atime", e.get("mtime", 0.0)),
                      "birthtime": e.get("birthtime", e.get("mtime", 0.0))}
        if rel:
            node["parent"] = path.rpartition("/")[0] or "/"
        if e["type"] == "directory":
            node["size"] = e.get("size", 4096)
        elif "content_b64" in e:
            node["content_b64"] = e["content_b64"]
            node["content"] = ""
        else:
            node["content"] = e.get("content", "")
        nodes[path] = node
    return {"allowed_directories": {root: {"path": root}}, "nodes": nodes}


def fs_capture(data: Data) -> dict[str, Any]:
    """The capture (``kind: dir``) of the first allowed directory of a filesystem tree."""
    root = next(iter(data.get("allowed_directories") or {}), "/")
    nodes = data.get("nodes") or {}
    entries: list[dict[str, Any]] = []

    def add(path: str, rel: str) -> None:
        n = nodes[path]
        entry: dict[str, Any] = {"path": rel, "type": n["type"],
                                 "size": n.get("size", 4096) if n["type"] == "directory"
                                 else len(str(n.get("content", "")).encode("utf-8", "surrogatepass")),
                                 "mode": n.get("mode", "644"), "mtime": n.get("mtime", 0.0),
                                 "atime": n.get("atime", n.get("mtime", 0.0))}
        if n["type"] != "directory":
            if "content_b64" in n:
                entry["content_b64"] = n["content_b64"]
            else:
                entry["content"] = n.get("content", "")
        entries.append(entry)
        if n["type"] == "directory":
            kids = sorted((p for p, c in nodes.items() if c.get("parent") == path),
                          key=lambda p: p.rpartition("/")[2].encode("utf-8", "surrogatepass"))
            for k in kids:
                add(k, f"{rel}/{k.rpartition('/')[2]}" if rel else k.rpartition("/")[2])

    if root in nodes:
        add(root, "")
    return {"kind": "dir", "root": root, "entries": entries}


def fs_view(capture: dict[str, Any] | None) -> list[tuple[str, str, str]]:
    """What two directory states are compared on: (path, type, content) of every entry."""
    if not capture:
        return []
    return [(e["path"], e["type"], e.get("content", e.get("content_b64", ""))) for e in capture.get("entries", [])]


# -- dispatch ---------------------------------------------------------------------------------------------------
def reconstruct(pre_state: dict[str, Any] | None, *, app: App | None = None) -> Data | None:
    """Context-Tree data for a captured state, or None when nothing was captured."""
    if not pre_state:
        return None
    kind = pre_state.get("kind")
    if kind == "memory-file":
        return memory_tree(pre_state.get("text"), app=app)
    if kind == "dir":
        return fs_tree(pre_state)
    if kind == "tree":  # already Context-Tree data
        return json.loads(json.dumps(pre_state["data"]))
    raise ValueError(f"cannot reconstruct a state of kind {kind!r}")


def deconstruct(kind: str, data: Data) -> dict[str, Any]:
    """The inverse of :func:`reconstruct`: the server's own form of a tree's state."""
    if kind == "memory-file":
        return {"kind": "memory-file", "text": memory_file(data)}
    if kind == "dir":
        return fs_capture(data)
    return {"kind": "tree", "data": data}


def state_view(state: dict[str, Any] | None) -> str:
    """A canonical rendering of what a state means (times and ids left out), for equality checks."""
    if not state:
        return ""
    if state.get("kind") == "memory-file":
        return canonical_json(memory_graph(state.get("text")))
    if state.get("kind") == "dir":
        return canonical_json(fs_view(state))
    return canonical_json(state)


def load_env(app: App, data: Data, *, clock: TaskClock = DEFAULT_CLOCK, seed: int = 0) -> AppEnv:
    """An episode env of ``app`` over reconstructed ``data`` (validated like a stored context)."""
    from mcp_persona.context_tree.validate import check_state

    problems = check_state(app.hierarchy, data)
    if problems:
        raise ValueError(f"reconstructed state is not a valid {app.name} tree: " + "; ".join(problems[:5]))
    return AppEnv(app, ContextTree(app.hierarchy, data, seed=seed), clock, "reconstructed")
