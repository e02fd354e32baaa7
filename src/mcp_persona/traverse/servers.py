"""The reference servers this project traverses for real, and where their npm packages live.

They are installed into a project-local folder (not globally)::

    scripts/install-real-servers.sh   (npm packages into .node/, among others)

``$MCP_PERSONA_NODE_PREFIX`` overrides the folder; the default is ``<repo>/.node``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from mcp_persona.traverse.probe import Target

NODE_PREFIX_ENV = "MCP_PERSONA_NODE_PREFIX"


@dataclass(frozen=True)
class ReferenceServer:
    name: str
    package: str
    entry: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    reset: str = "none"
    simulator: str = ""


REFERENCE_SERVERS: dict[str, ReferenceServer] = {
    "memory": ReferenceServer("memory", "@modelcontextprotocol/server-memory", "dist/index.js",
                              env={"MEMORY_FILE_PATH": "{memory_file}"}, reset="memory-file", simulator="memory"),
    "filesystem": ReferenceServer("filesystem", "@modelcontextprotocol/server-filesystem", "dist/index.js",
                                  args=("{root}",), reset="dir", simulator="filesystem"),
}


def node_prefix() -> Path:
    env = os.environ.get(NODE_PREFIX_ENV)
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        if (parent / "pyproject.toml").is_file():
            return parent / ".node"
    return Path.cwd() / ".node"


def entry_point(name: str) -> Path:
    ref = REFERENCE_SERVERS[name]
    return node_prefix() / "node_modules" / ref.package / ref.entry


def missing_reason(name: str) -> str | None:
    """Why the real server cannot start here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    entry = entry_point(name)
    if not entry.is_file():
        ref = REFERENCE_SERVERS[name]
        return (f"{ref.package} is not installed at {entry.parent.parent} "
                f"(npm install --prefix {node_prefix()} {ref.package}, or set ${NODE_PREFIX_ENV})")
    return None


def reference_target(name: str) -> Target:
    ref = REFERENCE_SERVERS[name]
    return Target(command=["node", str(entry_point(name)), *ref.args], env=dict(ref.env))


def installed_version(name: str) -> str:
    import json

    pkg = entry_point(name).parent.parent / "package.json"
    try:
        return str(json.loads(pkg.read_text(encoding="utf-8")).get("version", ""))
    except (OSError, ValueError):
        return ""
