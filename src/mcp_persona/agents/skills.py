"""Skill documents (paper Table 5): operational guides injected into the agent's system prompt.

``--skills none`` injects nothing; ``--skills bundled`` injects the shipped guide of
each server in the task's pool (``data/skills/<app>.md``); ``--skills FILE`` injects
one document of the user's.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


class SkillsError(ValueError):
    pass


def bundled_skill(app: str) -> str | None:
    path = resources.files("mcp_persona") / "data" / "skills" / f"{app}.md"
    return path.read_text(encoding="utf-8") if path.is_file() else None


class Skills:
    """Resolves the skills setting to the text for one task's servers."""

    def __init__(self, spec: str = "none") -> None:
        self.spec = spec
        self._file_text: str | None = None
        if spec not in ("none", "bundled"):
            path = Path(spec)
            if not path.is_file():
                raise SkillsError(f"--skills {spec!r}: expected 'none', 'bundled' or a path to a skill document")
            self._file_text = path.read_text(encoding="utf-8")

    def for_servers(self, servers: list[str]) -> str | None:
        if self.spec == "none":
            return None
        if self._file_text is not None:
            return self._file_text
        docs = [doc for s in servers if (doc := bundled_skill(s))]
        return "\n\n".join(docs) or None
