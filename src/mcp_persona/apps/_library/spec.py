"""The tool-library file format: ``data/library/<server>.json`` declares a server's tools as data.

Each tool names its typed parameters and one operation over the server's tables (its user context):
``search`` filters a table by the arguments, ``get`` looks records up by a key, ``create`` / ``update``
write a record, ``compute`` runs a named function of :mod:`mcp_persona.apps._library.compute`. The
engine (:mod:`mcp_persona.apps._library.engine`) turns each into a typed tool function, so the input
schema the agent sees is exact and bad input is rejected before the operation runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_STRICT = ConfigDict(extra="forbid", frozen=True)
ParamType = Literal["string", "integer", "number", "boolean", "string[]", "integer[]", "number[]", "object"]
_UNSET = object()


class ParamSpec(BaseModel):
    model_config = _STRICT
    type: ParamType
    description: str = Field(min_length=1)
    required: bool = True
    default: Any = None
    enum: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    unordered: bool = Field(False, description="a list that is a set (domains to monitor): its order does not "
                            "count, the server takes it sorted, and its schema says uniqueItems")
    free_text: bool = Field(False, description="free wording (a question, a situation): the server answers what it "
                            "means (the records it matches), so its reply does not echo the words")

    @model_validator(mode="after")
    def _kinds(self) -> ParamSpec:
        if self.unordered and not self.type.endswith("[]"):
            raise ValueError("only a list parameter can be unordered")
        if self.free_text and self.type != "string":
            raise ValueError("only a string parameter can be free text")
        return self


class Match(BaseModel):
    """How an argument selects records: ``eq`` (case-insensitive), ``contains`` (the argument inside the
    field), ``words`` (every word of the argument somewhere in the field), ``any`` (one of the listed
    values; a list field holding the value), ``gte`` / ``lte`` (numeric bound), ``from`` / ``to`` (an ISO
    date or time bound, inclusive)."""

    model_config = _STRICT
    field: str
    how: Literal["eq", "contains", "words", "any", "gte", "lte", "from", "to"] = "eq"


class Check(BaseModel):
    """The argument must name an existing record of ``table`` (by ``field``); the record is handed on."""

    model_config = _STRICT
    table: str
    field: str


class ToolDef(BaseModel):
    model_config = _STRICT
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    description: str = Field(min_length=10)
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    op: Literal["search", "get", "create", "update", "compute"]
    table: str | None = None
    match: dict[str, Match] = Field(default_factory=dict, description="search filters; get: its one key")
    limit: str | None = Field(None, description="the parameter capping the number of results")
    sort: str | None = Field(None, description="field to sort results by; '-field' for descending")
    fields: list[str] | None = Field(None, description="the fields a search returns (default: all)")
    checks: dict[str, Check] = Field(default_factory=dict)
    store: dict[str, str] = Field(default_factory=dict, description="create/update: parameter -> field")
    fixed: dict[str, Any] = Field(default_factory=dict, description="create: constant fields (a status)")
    compute: str | None = Field(None, description="a function adding computed fields (or the whole result)")

    @model_validator(mode="after")
    def _shape(self) -> ToolDef:
        names = set(self.params)
        used = set(self.match) | set(self.checks) | set(self.store) | ({self.limit} if self.limit else set())
        if used - names:
            raise ValueError(f"{self.name}: names undeclared parameters {sorted(used - names)}")
        if self.op != "compute" and not self.table:
            raise ValueError(f"{self.name}: a {self.op} tool needs a table")
        if self.op == "get" and len(self.match) != 1:
            raise ValueError(f"{self.name}: a get tool has exactly one key in match")
        if self.op == "compute" and not self.compute:
            raise ValueError(f"{self.name}: a compute tool names its function")
        if self.op == "update" and "key" not in self.fixed and not self.match:
            raise ValueError(f"{self.name}: an update tool names the record by one match entry")
        return self


class TableSpec(BaseModel):
    model_config = _STRICT
    id_field: str
    id_prefix: str | None = Field(None, description="records the tools create get ids PREFIX-<digits>")
    description: str = Field(min_length=1)


class LibraryFile(BaseModel):
    """One server of the library."""

    model_config = _STRICT
    server: str
    title: str
    domain: Literal["daily", "professional"]
    description: str = Field(min_length=1)
    tables: dict[str, TableSpec]
    tools: list[ToolDef] = Field(min_length=1)

    @model_validator(mode="after")
    def _refs(self) -> LibraryFile:
        seen: set[str] = set()
        for t in self.tools:
            if t.name in seen:
                raise ValueError(f"tool {t.name!r} declared twice")
            seen.add(t.name)
            tables = {t.table} | {c.table for c in t.checks.values()}
            unknown = {x for x in tables if x is not None} - set(self.tables)
            if unknown:
                raise ValueError(f"{t.name}: unknown tables {sorted(unknown)}")
            if t.op == "create" and not self.tables[t.table or ""].id_prefix:
                raise ValueError(f"{t.name}: table {t.table!r} has no id_prefix for created records")
        return self
