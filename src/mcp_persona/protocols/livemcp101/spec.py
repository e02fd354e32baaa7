"""What a LiveMCP-101 task adds to the shared task: its domain and tier, the checkpoints its result score
reads, and the key points its judges check."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from mcp_persona.tasks.models import CheckedSpec, Checkpoint, Task


class LiveMCP101Spec(CheckedSpec):
    category: Literal["travel_lifestyle", "leisure_entertainment", "finance_markets", "web_search_news",
                      "knowledge_research", "software_development", "mathematics", "office"] = Field(
        description="the paper's eight domains")
    difficulty: Literal["easy", "medium", "hard"] = Field(description="the paper's tier")
    checkpoints: list[Checkpoint] = Field(min_length=1, description="what the rules score (one or more)")


LiveMCP101Task = Task[LiveMCP101Spec]
