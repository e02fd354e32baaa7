"""The code tool: one sandboxed run per call."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection
from mcp_persona.apps._live.sandbox import Limits, run_python
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "code_interpreter",
    title="Code Interpreter",
    category="utility",
    personalized=False,
    description="Run a Python 3 program in a sandbox (no network, no files kept) and get its output.",
    real_server="Python code-interpreter MCP servers (execute_python_code)",
)


def _limits(env: AppEnv) -> Limits:
    values = {k: v["value"] for k, v in collection(env, "limits").items()}
    return Limits(**{k: v for k, v in values.items() if k in Limits.__dataclass_fields__})


@APP.tool()
async def execute_python_code(env: AppEnv, code: str = Field(min_length=1, max_length=20000, description=(
        "A complete Python 3 program; print what you need to see. Standard library only; no network; "
        "files may be written in the working directory but are discarded after the run"))) -> dict[str, Any]:
    """Run Python code and return its stdout, stderr and exit code."""
    if not code.strip():
        raise ToolFailure("code is blank", kind="range")
    limits = _limits(env)
    result = await run_python(code, limits)  # awaited: other calls and episodes go on meanwhile
    out = {"stdout": result.stdout, "stderr": result.stderr, "exit_code": result.exit_code,
           "files_created": result.files, "output_truncated": result.truncated}
    if result.error is not None:
        tail = result.stderr.strip().splitlines()[-1:] or [""]
        raise ToolFailure(f"execution stopped: {result.error}. stdout so far: {result.stdout[-500:]!r}; "
                          f"last stderr line: {tail[0][:300]!r}", kind="range")
    return out
