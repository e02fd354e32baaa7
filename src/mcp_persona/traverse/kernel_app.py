"""A synthesized simulator as an app: model-written kernels served by the same machinery as every app.

``mcp-persona synthesize`` writes a simulator folder::

    simulator.py    the accepted kernels (KERNELS) and what publishing them takes (SERVER, APP, TOOLS);
                    see :func:`~mcp_persona.traverse.synthesize.module_source`
    manifest.json   the model, each tool's outcome (attempts, agreement and ROUGE-L on the training traces),
                    the train / held-out split (trace ids), the held-out fidelity
    train.jsonl     the traces the prompts were built from (a trace pool)
    heldout.jsonl   the traces kept out of the prompts, for ``mcp-persona fidelity``
    start.json      the Context-Tree a served simulator starts from (the first training trace's pre-call state)

:func:`load_simulator` turns the folder into a :class:`KernelApp`: an :class:`~mcp_persona.apps.base.App`
whose server is an ``MCPServer`` like every app's, publishing the real server's tools (names, descriptions,
input schemas) and answering each call with its kernel over the episode's tree, in a transaction (a rejected
call changes nothing). ``fidelity --simulator DIR`` replays against it, ``serve DIR`` serves it.
"""

from __future__ import annotations

import json
import pickle
import runpy
from functools import cached_property
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent

from mcp_persona.apps.base import App, AppEnv, AppServer, error_result
from mcp_persona.context_tree import Hierarchy
from mcp_persona.traverse.models import Pool
from mcp_persona.traverse.synthesize import Kernel, KernelError, run_kernel

MODULE = "simulator.py"
MANIFEST = "manifest.json"
TRAIN = "train.jsonl"
HELDOUT = "heldout.jsonl"
START = "start.json"
START_CONTEXT = "start"
INTERNAL_ERROR = "internal error in the simulator"  # the prefix run_kernel gives a kernel's crash


class KernelApp(App):
    """Model-written kernels as an app over ``base``'s Context-Tree hierarchy."""

    def __init__(self, server: str, *, base: App, tools: list[dict[str, Any]], kernels: dict[str, Kernel],
                 start: dict[str, Any] | None = None) -> None:
        super().__init__(f"{server}-synthesized", title=f"{server} (synthesized)", category=base.category,
                         personalized=False, real_server=server,
                         description=f"A model-written simulator of the {server} MCP server.")
        missing = sorted(set(kernels) - {t["name"] for t in tools})
        if missing:
            raise KernelError(f"kernels without a published tool: {', '.join(missing)}")
        self.base = base
        self.tools = [t for t in tools if t["name"] in kernels]
        self.kernels = kernels
        self._start = pickle.dumps(start, protocol=pickle.HIGHEST_PROTOCOL) if start is not None else None

    @cached_property
    def hierarchy(self) -> Hierarchy:  # type: ignore[override]
        return self.base.hierarchy

    @property
    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.tools]

    def mutates(self, tool: str) -> bool:
        return True  # what a kernel writes is not declared: assume it may

    def context_ids(self) -> list[str]:
        return [START_CONTEXT] if self._start is not None else []

    def load_context(self, context_id: str) -> dict[str, Any]:
        if context_id not in self.context_ids():
            raise KeyError(f"{self.name} has no context {context_id!r} (has: {', '.join(self.context_ids())})")
        assert self._start is not None
        return pickle.loads(self._start)  # type: ignore[no-any-return]

    @cached_property
    def sdk_tools(self) -> list[Tool]:  # type: ignore[override]
        out = []
        for spec in self.tools:
            tool = Tool.from_function(_sdk_entry(spec["name"]), name=spec["name"],
                                      description=spec.get("description", ""), structured_output=False)
            update: dict[str, Any] = {"parameters": spec.get("inputSchema", {"type": "object"})}
            if spec.get("title"):
                update["title"] = spec["title"]
            out.append(tool.model_copy(update=update))
        return out

    def server(self, env: AppEnv) -> AppServer:
        return KernelServer(self, env)


def _sdk_entry(name: str) -> Any:
    """The function the SDK's tool record requires. The server's ``tools/call`` handler goes to
    :meth:`KernelServer.call_tool`, the one place kernels run; this is reached only by calling the record's
    ``Tool.run`` directly, which cannot pass a kernel its arguments (the record has no argument model)."""

    async def call(ctx: Context) -> CallToolResult:
        raise ToolError(f"{name}: call it through the server (call_tool), which runs its kernel")

    call.__name__ = name
    return call


class KernelServer(AppServer):
    """An app server whose calls run the kernels; the kernel validates its own arguments, as the real server
    does (the published schema is the real one, and the traces showed how it rejects)."""

    app: KernelApp

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
                        ) -> Any:
        kernel = self.app.kernels.get(name)
        if kernel is None:
            return error_result(f"Unknown tool: {name}")
        text, is_error = run_kernel(kernel, self.env.tree, arguments or {})
        if is_error and text.startswith(INTERNAL_ERROR):
            self.env.internal_errors.append(f"{name}: {text}")
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def is_simulator_dir(path: str | Path) -> bool:
    return (Path(path) / MODULE).is_file()


def write_simulator(folder: Path, *, source: str, manifest: dict[str, Any], train: Pool, heldout: Pool,
                    start: dict[str, Any] | None) -> None:
    """Write a simulator folder (see the module's docstring); ``folder`` is made if missing."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MODULE).write_text(source, encoding="utf-8")
    train.dump(folder / TRAIN)
    heldout.dump(folder / HELDOUT)
    if start is not None:
        (folder / START).write_text(json.dumps(start, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    write_manifest(folder, manifest)


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def load_simulator(folder: str | Path) -> KernelApp:
    """The simulator ``mcp-persona synthesize`` wrote into ``folder``, as an app."""
    from mcp_persona.apps import app_names, get_app

    folder = Path(folder)
    module = folder / MODULE
    if not module.is_file():
        raise KernelError(f"{folder} holds no {MODULE}: not a folder written by 'mcp-persona synthesize'")
    try:
        ns = runpy.run_path(str(module))
    except KernelError:
        raise
    except Exception as exc:
        raise KernelError(f"{module} does not load: {type(exc).__name__}: {exc}") from exc
    missing = [k for k in ("SERVER", "APP", "TOOLS", "KERNELS") if k not in ns]
    if missing:
        raise KernelError(f"{module} lacks {', '.join(missing)}: not a module written by 'mcp-persona synthesize'")
    if ns["APP"] not in app_names():
        raise KernelError(f"{module}: APP {ns['APP']!r} is no app of this installation")
    start = None
    if (folder / START).is_file():
        start = json.loads((folder / START).read_text(encoding="utf-8"))
    return KernelApp(ns["SERVER"], base=get_app(ns["APP"]), tools=ns["TOOLS"], kernels=ns["KERNELS"], start=start)
