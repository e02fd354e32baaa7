"""What a LiveMCPBench task adds to the shared task: its domain, the key points its judge checks, the files
it hands the agent and the rule checks on the answer, the files the agent leaves and the library's state."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcp_persona.tasks.models import ASKS, CheckedSpec, Claim, Task

Domain = Literal["office", "lifestyle", "leisure", "finance", "travel", "shopping"]
DOMAINS: tuple[str, ...] = get_args(Domain)
_STRICT = ConfigDict(extra="forbid")


class FileCheck(BaseModel):
    """A file the agent must leave in the episode's working folder (LiveMCPBench's office tasks).

    The file is read with the library of its format (openpyxl, python-docx, python-pptx; csv and
    text as text). ``contains``: values that must all appear in its text (read as answers are: numbers as
    numbers, markdown emphasis dropped); ``together``: groups of values that must each share one line, row or
    slide (the facts of one item, in whatever layout: ``["North", "342.2"]``); ``absent``: none of these may
    appear; ``cells``: spreadsheet cells (``Sheet1!B2`` or ``B2`` on the first sheet) and the value each must hold
    (a formula counts as what it computes); ``claim``: the choice the document must state (the region with the
    highest figure), read as an answer's claim is (:mod:`mcp_persona.scoring.claims`), so a document that names
    another region the highest and pastes the whole table below fails.
    """

    model_config = _STRICT
    path: str = Field(min_length=1, description="relative to the working folder")
    summary: str = Field(min_length=1)
    asks: str | None = Field(default=None, min_length=2, description=ASKS)
    contains: list[str] = Field(default_factory=list)
    together: list[list[str]] = Field(default_factory=list, description="values that must share one line / row / slide")
    absent: list[str] = Field(default_factory=list, description="values that must not appear (a sloppy filter)")
    cells: dict[str, Any] = Field(default_factory=dict)
    min_slides: int | None = Field(default=None, ge=1, description="pptx: at least this many slides")
    claim: Claim | None = Field(default=None, description="the entity the document must put on top (or at the bottom)")

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.split("/"):
            raise ValueError("a file check's path is relative to the working folder and stays inside it")
        return value


class StateCheck(BaseModel):
    """A record the agent must leave on a simulated library server (LiveMCPBench): one that ``tool``
    created on ``server``, whose fields hold every ``contains`` value (normalized; ``{"$in": [...]}`` for names
    written more than one way: "Stir-fry", "Stir Fry") and whose ``fields`` each match (the folder a note was
    asked for: ``{"folder": {"$in": ["meals", "meals/"]}}``, :func:`mcp_persona.scoring.match.value_matches`)."""

    model_config = _STRICT
    server: str
    tool: str
    summary: str = Field(min_length=1)
    asks: str | None = Field(default=None, min_length=2, description=ASKS)
    contains: list[str | dict[str, list[str]]] = Field(min_length=1)
    fields: dict[str, Any] = Field(default_factory=dict, description="a field of the record and what it must match")

    @field_validator("contains")
    @classmethod
    def _spellings(cls, value: list[str | dict[str, list[str]]]) -> list[str | dict[str, list[str]]]:
        for item in value:
            if isinstance(item, dict) and (set(item) != {"$in"} or not item["$in"]):
                raise ValueError(f"a state check's value is a string or {{'$in': [spellings]}}, not {item!r}")
        return value


class LiveMCPBenchSpec(CheckedSpec):
    category: Domain = Field(description="the paper's six domains")
    difficulty: Literal["easy", "medium", "hard"] | None = None
    key_points: list[str] = Field(min_length=1, description="the key-point judge's checklist")
    input_files: list[str] = Field(default_factory=list,
                                   description="files of the suite's files/ folder copied into the working folder")
    file_checks: list[FileCheck] = Field(default_factory=list)
    state_checks: list[StateCheck] = Field(default_factory=list)

    @model_validator(mode="after")
    def _a_rule_check(self) -> LiveMCPBenchSpec:
        if not self.checkpoints and not self.file_checks and not self.state_checks:
            raise ValueError("a livemcpbench task needs a rule check (a GT value, a file or a state check)")
        return self


LiveMCPBenchTask = Task[LiveMCPBenchSpec]
