"""What an MCP-Persona task adds to the shared task: its group, the user's personal context and the
checkpoints it is scored by."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mcp_persona.tasks.models import CheckedSpec, Checkpoint, Task


class PersonaSpec(CheckedSpec):
    category: Literal["collaboration", "content", "social", "email", "lark_centric", "rednote_centric",
                      "hodgepodge"] = Field(description="four single-server groups, three cross-server")
    variant: Literal["short", "long"] | None = Field(default=None, description="short or long instruction/chain")
    difficulty: Literal["easy", "medium", "hard"] | None = None
    necessary_context: dict[str, str] = Field(default_factory=dict,
                                              description="facts the user states that the task needs")
    unnecessary_context: list[str] = Field(default_factory=list, description="facts the user states besides")
    implicit_context: list[str] = Field(
        default_factory=list, description="facts the agent must find itself (for analysis; never shown)")
    checkpoints: list[Checkpoint] = Field(min_length=1, description="what is scored (one or more)")

    def given_facts(self) -> dict[str, str]:
        return dict(self.necessary_context)


PersonaTask = Task[PersonaSpec]
