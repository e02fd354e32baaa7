"""The documentation-only baseline (the paper's *Vanilla*): a simulator built from the schema alone.

It knows what ``tools/list`` says and nothing a traversal would teach: arguments that satisfy the
published JSON schema get a generic success, arguments that break it a generic error, and there
are no state semantics at all (nothing is looked up, nothing is stored). Unknown properties are
allowed when the schema does not close the object, as JSON Schema says.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft7Validator

from mcp_persona.traverse.models import Trace


class VanillaSimulator:
    name = "Vanilla"
    note = "documentation only: schema-valid -> generic success, schema-invalid -> generic error, no state"

    def __init__(self, tools: list[dict[str, Any]]) -> None:
        self.tools = {t["name"]: t for t in tools}
        self._validators = {name: Draft7Validator(t.get("inputSchema") or {"type": "object"})
                            for name, t in self.tools.items()}

    def respond(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        validator = self._validators.get(tool)
        if validator is None:
            return f"Error: unknown tool {tool}", True
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
        if errors:
            where = ".".join(str(p) for p in errors[0].absolute_path) or "arguments"
            return f"Error: invalid arguments for {tool}: {where}: {errors[0].message}", True
        title = self.tools[tool].get("title") or tool
        return json.dumps({"status": "success", "message": f"{title} completed", "result": arguments},
                          ensure_ascii=False), False

    async def call(self, trace: Trace) -> tuple[str, bool, dict[str, Any] | None]:
        text, is_error = self.respond(trace.tool, trace.arguments)
        return text, is_error, None
