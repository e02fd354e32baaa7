"""The records of Tool-Traverse: seed files, traces, and the trace pool on disk.

A **seed file** (JSON, or JSONL of seeds) holds human-written, valid calls that exercise each
tool's success path, plus the fixture every probe starts from::

    {"server": "memory", "reset": "memory-file",
     "fixture": {"entities": [...], "relations": [...]},
     "seeds": [{"id": "create-person", "tool": "create_entities", "arguments": {...}, "note": "..."}]}

String arguments may hold placeholders that the probe fills in: ``{root}`` (the allowed
directory of a filesystem server) and ``{memory_file}``.

A **trace pool** is JSONL: one header line ``{"kind": "header", ...}`` with the server's tools as
``tools/list`` published them, then one ``{"kind": "trace", ...}`` line per call. States (the
memory file, the directory tree) repeat across probes, so the file keeps each distinct state once,
in the header's ``states`` table, and a trace line holds ``{"$ref": "<key>"}`` in its place;
:func:`load_pool` puts the states back, so a loaded :class:`Trace` always carries them inline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_persona.context_tree import canonical_hash

ErrorClass = Literal["type_mismatch", "schema_violation", "boundary", "semantic_conflict"]
ERROR_CLASSES: tuple[ErrorClass, ...] = ("type_mismatch", "schema_violation", "boundary", "semantic_conflict")
Label = Literal["success", "structured_error", "unexpected_failure"]
ResetKind = Literal["memory-file", "dir", "none"]


class Seed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = ""
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    note: str = ""
    fixture: dict[str, Any] | None = Field(default=None, description="overrides the file's fixture for this seed")


class SeedFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str = ""
    description: str = ""
    reset: ResetKind | None = None
    fixture: dict[str, Any] | None = None
    seeds: list[Seed]


class Trace(BaseModel):
    """One call made against the real server, with what it answered and the state around it."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["trace"] = "trace"
    id: str
    seed_id: str
    tool: str
    arguments: dict[str, Any]
    error_class: ErrorClass | None = Field(None, description="None for the seed call itself")
    rule: str = "seed"
    note: str = ""
    response: str
    is_error: bool
    latency_ms: float = 0.0
    transport_error: bool = False
    label: Label
    label_source: str = "rules"
    pre_state: dict[str, Any] | None = None
    post_state: dict[str, Any] | None = Field(None, description="None when the call left the state unchanged")


class PoolHeader(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: Literal["header"] = "header"
    server: str
    server_info: dict[str, Any] = Field(default_factory=dict)
    target: str = ""
    reset: ResetKind = "none"
    tools: list[dict[str, Any]]
    states: dict[str, dict[str, Any]] = Field(default_factory=dict, description="distinct states, by key")


class Pool(BaseModel):
    header: PoolHeader
    traces: list[Trace]

    def tool(self, name: str) -> dict[str, Any] | None:
        return next((t for t in self.header.tools if t["name"] == name), None)

    @property
    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.header.tools]

    def dump(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        states: dict[str, dict[str, Any]] = {}
        lines: list[dict[str, Any]] = []
        for t in self.traces:
            rec = t.model_dump(mode="json")
            for key in ("pre_state", "post_state"):
                if rec[key] is not None:
                    ref = canonical_hash(rec[key])[:16]
                    states.setdefault(ref, rec[key])
                    rec[key] = {"$ref": ref}
            lines.append(rec)
        header = self.header.model_dump(mode="json") | {"states": states}
        with path.open("w", encoding="utf-8") as fh:
            fh.write(json.dumps(header, ensure_ascii=False) + "\n")
            for rec in lines:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def load_pool(path: str | Path) -> Pool:
    header: PoolHeader | None = None
    records: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: not JSON: {exc}") from exc
        if rec.get("kind") == "header":
            header = PoolHeader.model_validate(rec)
        else:
            records.append((n, rec))
    if header is None:
        raise ValueError(f"{path}: no header line (kind=header) with the server's tools")
    traces: list[Trace] = []
    for n, rec in records:
        for key in ("pre_state", "post_state"):
            value = rec.get(key)
            if isinstance(value, dict) and set(value) == {"$ref"}:
                if value["$ref"] not in header.states:
                    raise ValueError(f"{path}:{n}: {key} refers to unknown state {value['$ref']!r}")
                rec[key] = header.states[value["$ref"]]
        traces.append(Trace.model_validate(rec))
    header.states = {}
    return Pool(header=header, traces=traces)


def load_seeds(path: str | Path) -> SeedFile:
    """A seed file: a JSON object as above, a JSON list of seeds, or JSONL of seeds."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = [json.loads(line) for line in text.splitlines() if line.strip()]
    if isinstance(data, list):
        data = {"seeds": data}
    sf = SeedFile.model_validate(data)
    for i, seed in enumerate(sf.seeds):
        if not seed.id:
            seed.id = f"{seed.tool}-{i + 1}"
    ids = [s.id for s in sf.seeds]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"{path}: duplicate seed ids: {', '.join(dupes)}")
    return sf
