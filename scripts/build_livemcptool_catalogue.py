"""Build ``src/mcp_persona/data/livemcptool/catalogue.json`` from LiveMCPTool's ``tools.json``.

Usage: ``python scripts/build_livemcptool_catalogue.py path/to/tools.json``

What carries over are facts: server keys, categories, tool names and input schemas. Every
description (of a server, a tool, a parameter) is written here from the names, never copied.
Each simulated tool also gets a behaviour kind for the shared engine (``livemcptool.engine``).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "src/mcp_persona/data/livemcptool/catalogue.json"

# The servers that run for real, offline (see livemcptool/real.py for how each is launched).
REAL = {"filesystem", "memory", "sequential-thinking", "time", "git", "calculator", "excel",
        "word-document-server", "ppt"}

KIND_WORDS: list[tuple[str, tuple[str, ...]]] = [
    ("delete", ("delete", "remove", "clear", "cancel", "uninstall")),
    ("update", ("update", "edit", "modify", "rename", "mark", "complete", "approve", "toggle", "set")),
    ("create", ("create", "add", "insert", "save", "write", "new", "post", "upload", "register", "record",
                "append", "start", "store", "put")),
    ("compute", ("generate", "render", "draw", "convert", "calculate", "validate", "analyze", "analyse",
                 "compute", "format", "merge", "split", "extract", "compress", "encode", "decode", "roll",
                 "flip", "random", "check", "make", "export", "transcribe", "summarize", "evaluate", "detect")),
    ("search", ("search", "find", "query", "list", "trending", "top", "popular", "browse", "recommend", "hot",
                "latest", "recent", "lookup", "suggest", "filter", "discover", "explore", "scan", "news")),
    ("lookup", ("get", "fetch", "read", "detail", "details", "info", "open", "retrieve", "show", "download",
                "view", "describe", "load", "status", "price", "quote")),
]


def words(name: str) -> list[str]:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


def behaviour(tool: str, schema: dict[str, Any]) -> str:
    ws = words(tool)
    for kind, marks in KIND_WORDS:
        if any(w in marks for w in ws):
            if kind == "lookup" and not schema.get("required"):
                return "search"  # a "get" with nothing to name lists
            return kind
    return "compute" if schema.get("properties") else "search"


def describe_param(name: str, node: dict[str, Any]) -> str:
    kind = node.get("type") or "value"
    if isinstance(kind, list):
        kind = " or ".join(kind)
    text = " ".join(words(name)) or name
    if "enum" in node:
        return f"{text} ({kind}; one of the listed values)"
    return f"{text} ({kind})"


def rewrite(node: Any, key: str = "") -> Any:
    """The schema with its descriptions replaced by our own and its ``$schema`` marker dropped."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in ("$schema", "title"):
                continue
            if k == "description":
                continue
            if k == "properties" and isinstance(v, dict):
                out[k] = {p: rewrite(sub, p) for p, sub in v.items()}
            else:
                out[k] = rewrite(v, key)
        if key and isinstance(node.get("description"), str):
            out["description"] = describe_param(key, node)
        return out
    if isinstance(node, list):
        return [rewrite(v, key) for v in node]
    return node


VERB = {"search": "Searches", "lookup": "Looks up", "create": "Creates", "update": "Updates", "delete": "Deletes",
        "compute": "Computes"}


def describe_tool(server: str, tool: str, kind: str, schema: dict[str, Any]) -> str:
    params = list(schema.get("properties") or {})
    required = list(schema.get("required") or [])
    phrase = " ".join(words(tool))
    text = f"{phrase[:1].upper()}{phrase[1:]} ({server})."
    if params:
        text += f" Takes {', '.join(params)}"
        text += f"; {', '.join(required)} required." if required else "; all optional."
    return text


def main(src: str) -> None:
    entries = json.loads(Path(src).read_text(encoding="utf-8"))
    servers = []
    for entry in entries:
        for key, block in entry["tools"].items():
            tools = []
            for t in block["tools"]:
                schema = rewrite(t.get("inputSchema") or {"type": "object", "properties": {}})
                schema.setdefault("type", "object")
                schema.setdefault("properties", {})
                kind = behaviour(t["name"], schema)
                tools.append({"name": t["name"], "behaviour": kind,
                              "description": describe_tool(key, t["name"], kind, schema), "input_schema": schema})
            servers.append({"name": key, "category": entry["category"],
                            "kind": "real" if key in REAL else "simulated",
                            "description": f"{entry['category']} server '{key}' with {len(tools)} tools.",
                            "tools": tools})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"source": "LiveMCPTool tools.json (icip-cas/LiveMCPBench)", "servers": servers},
                              indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(servers)} servers, {sum(len(s['tools']) for s in servers)} tools -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
