"""Code-as-Simulation (paper §3.1.2, appendix B.3.2): a model writes each tool's simulator.

For one tool the prompt holds the tool's schema and description, its traces from the pool
(successes and errors, with the arguments, the state before the call and the real response) and
the Context-Tree API of the app's hierarchy. The model answers with a Python function::

    def simulate(tree, arguments):
        ...
        return {"is_error": False, "text": "..."}

over a :class:`~mcp_persona.context_tree.ContextTree` holding the reconstructed pre-call state.
The function is accepted only after it replays the tool's traces within the fidelity threshold
(behavioural agreement, and optionally mean ROUGE-L of the responses); otherwise the mismatches
are sent back and the model tries again, up to ``max_attempts``.

Model-written code runs in this process. Its imports are limited to a small list of standard
modules and it sees no file or network helpers, but that is a guard rail, not a sandbox: run
synthesis only with models and prompts you trust, or inside a container.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_persona.apps.base import App
from mcp_persona.context_tree import ContextTree, Hierarchy
from mcp_persona.llm.base import ChatClient, ModelError
from mcp_persona.traverse.discriminator import classify
from mcp_persona.traverse.models import Pool, Trace
from mcp_persona.traverse.reconstruct import deconstruct, reconstruct
from mcp_persona.traverse.similarity import rouge_l

Kernel = Callable[[ContextTree, dict[str, Any]], Any]
ALLOWED_IMPORTS = frozenset({"json", "re", "math", "datetime", "copy", "itertools", "collections", "fnmatch",
                             "posixpath", "base64", "difflib", "string", "functools", "decimal", "urllib.parse",
                             "unicodedata", "codecs", "secrets"})

SYSTEM = (
    "You are a Python code generator for API tool simulation with a dynamic context. Write one Python "
    "function that reproduces the behaviour of a real MCP tool over a Context-Tree: same decisions "
    "(which calls succeed, which fail), same response texts, same error texts, same state changes."
)

CONTEXT_TREE_API = """\
`tree` is a ContextTree over the hierarchy above (the state the real tool saw before the call). Its methods:
- tree.data: the raw state (a dict; collections are dicts mapping id -> entity dict, in insertion order)
- tree.list(path, filters=None, limit=None) -> list of entities ('entities', 'calendars[c1].events', '[*]' wildcards)
- tree.get(path) -> entity (path ends in an id: 'entities[ent_1]'); raises NotFoundError
- tree.try_get(path) -> entity or None; tree.top(entity_type, id) -> top-level entity or None
- tree.exists(entity_type, id) -> bool; tree.find(entity_type, id) -> (path, entity) or None
- tree.create(collection_path, entity, entity_id=None) -> entity (id generated from the type's id_format when omitted)
- tree.update(path, changes) -> entity (a None value removes a field)
- tree.delete(path) -> the removed entity with its subtree
Ids with '[' or ']' are quoted in paths: notes["a [draft].md"]. Every call runs in a transaction: a call whose
result has is_error=True is rolled back, so change the tree only on the success path."""

REQUIREMENTS = """\
REQUIREMENTS:
1. Define exactly `def simulate(tree, arguments):` (helpers may be defined above it).
2. Return {"is_error": bool, "text": str}: text is the full response text, byte for byte as the examples show
   (JSON indentation, key order, error prefixes included).
3. Validate the arguments the way the real server does (the error examples show its messages), then check the
   state (entities that must or must not exist) before changing anything.
4. Do not raise: every failure is a returned error. Only these imports are available: """ + \
    ", ".join(sorted(ALLOWED_IMPORTS)) + """.
OUTPUT RULES: answer with the Python code only, no explanation (a ```python fence is tolerated)."""


def _hierarchy_text(h: Hierarchy) -> str:
    lines = []
    for name, ent in h.entities.items():
        lines.append(f"- {name}: path {h.wildcard_path(name)}, id field {ent.id_field!r}, "
                     f"id format {ent.id_format or 'given by the caller'}, parent {ent.parent or 'root'}"
                     + (f", references {ent.references}" if ent.references else "")
                     + (f" — {ent.description}" if ent.description else ""))
    return "\n".join(lines)


def _example(t: Trace, *, with_state: bool) -> str:
    out = {"arguments": t.arguments, "is_error": t.is_error, "response": t.response}
    if with_state and t.pre_state is not None:
        out["state_before"] = t.pre_state
    if t.post_state is not None and with_state:
        out["state_after"] = t.post_state
    return json.dumps(out, ensure_ascii=False)


def build_prompt(*, server: str, tool: dict[str, Any], traces: list[Trace], hierarchy: Hierarchy,
                 max_examples: int = 16) -> list[dict[str, Any]]:
    """The kernel-generation prompt for one tool (paper appendix B.3.2, adapted to the Context-Tree)."""
    ok = [t for t in traces if t.label == "success"][: max_examples // 2]
    bad = [t for t in traces if t.label != "success"][: max_examples - len(ok)]
    shown_state = False

    def ex(t: Trace) -> str:
        nonlocal shown_state
        text = _example(t, with_state=not shown_state)
        shown_state = shown_state or t.pre_state is not None
        return text

    user = "\n".join([
        "TOOL INFORMATION:",
        f"- Tool name: {tool['name']}",
        f"- MCP server: {server}",
        f"- Description: {tool.get('description', '')}",
        f"- Input schema: {json.dumps(tool.get('inputSchema', {}), ensure_ascii=False)}",
        "",
        f"SUCCESS EXAMPLES ({len(ok)}; the first shows the state before and after the call):",
        *[ex(t) for t in ok],
        "",
        f"ERROR EXAMPLES ({len(bad)}):",
        *[ex(t) for t in bad],
        "",
        "CONTEXT-TREE HIERARCHY:",
        _hierarchy_text(hierarchy),
        "",
        "CONTEXT-TREE API:",
        CONTEXT_TREE_API,
        "",
        REQUIREMENTS,
    ])
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


# -- loading model-written code ---------------------------------------------------------------------------
class KernelError(Exception):
    """The model's answer is not a usable ``simulate`` function."""


def extract_code(text: str) -> str:
    fenced = re.findall(r"```(?:python|py)?\s*\n(.*?)```", text, re.DOTALL)
    return (max(fenced, key=len) if fenced else text).strip() + "\n"


def _guarded_import(name: str, globals_: Any = None, locals_: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    if level != 0 or name not in ALLOWED_IMPORTS:
        raise ImportError(f"import of {name!r} is not allowed in a simulation kernel")
    return builtins.__import__(name, globals_, locals_, fromlist, level)


_SAFE_BUILTINS = {k: getattr(builtins, k) for k in dir(builtins)
                  if k not in {"open", "exec", "eval", "compile", "input", "breakpoint", "__import__", "exit", "quit",
                               "help", "globals", "locals", "vars", "memoryview"}}


def load_kernel(code: str, name: str = "simulate") -> Kernel:
    namespace: dict[str, Any] = {"__builtins__": {**_SAFE_BUILTINS, "__import__": _guarded_import},
                                 "__name__": "mcp_persona_kernel"}
    try:
        exec(compile(code, "<kernel>", "exec"), namespace)
    except Exception as exc:
        raise KernelError(f"the code does not load: {type(exc).__name__}: {exc}") from exc
    fn = namespace.get(name)
    if not callable(fn):
        raise KernelError(f"the code defines no function {name}(tree, arguments)")
    return fn  # type: ignore[no-any-return]


def run_kernel(kernel: Kernel, tree: ContextTree, arguments: dict[str, Any]) -> tuple[str, bool]:
    """Run one call in a transaction; a failure or a crash leaves the tree as it was."""

    class _Rollback(Exception):
        pass

    outcome: tuple[str, bool] = ("", True)
    try:
        with tree.transaction():
            result = kernel(tree, json.loads(json.dumps(arguments)))
            if not isinstance(result, dict) or not isinstance(result.get("text"), str):
                raise TypeError(f"simulate returned {type(result).__name__}, not {{'is_error': bool, 'text': str}}")
            outcome = (result["text"], bool(result.get("is_error")))
            if outcome[1]:
                raise _Rollback
    except _Rollback:
        pass
    except Exception as exc:
        outcome = (f"internal error in the simulator: {type(exc).__name__}: {exc}", True)
    return outcome


class KernelSimulator:
    """Synthesized kernels as a simulator for :func:`~mcp_persona.traverse.fidelity.evaluate`."""

    note = "model-written kernels over the Context-Tree"

    def __init__(self, kernels: dict[str, Kernel], app: App, *, name: str = "Synthesized") -> None:
        self.kernels = kernels
        self.app = app
        self.name = name

    def tree_for(self, trace: Trace) -> ContextTree:
        data = reconstruct(trace.pre_state, app=self.app) or {}
        return ContextTree(self.app.hierarchy, data, seed=1)

    async def call(self, trace: Trace) -> tuple[str, bool, dict[str, Any] | None]:
        kernel = self.kernels.get(trace.tool)
        if kernel is None:
            return f"no simulator for {trace.tool}", True, None
        tree = self.tree_for(trace)
        text, is_error = run_kernel(kernel, tree, trace.arguments)
        post = deconstruct(trace.pre_state["kind"], tree.data) if trace.pre_state else None
        return text, is_error, post


# -- the accept / retry loop --------------------------------------------------------------------------------
@dataclass
class Mismatch:
    trace_id: str
    arguments: dict[str, Any]
    expected_error: bool
    expected: str
    got_error: bool
    got: str


@dataclass
class Attempt:
    code: str
    agreement: float
    rouge: float
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str = ""


@dataclass
class SynthesisResult:
    tool: str
    accepted: bool
    code: str
    attempts: list[Attempt]

    @property
    def kernel(self) -> Kernel:
        return load_kernel(self.code)


def replay(kernel: Kernel, traces: list[Trace], app: App) -> tuple[float, float, list[Mismatch]]:
    """(behavioural agreement, mean ROUGE-L, mismatches) of a kernel on a tool's traces."""
    sim = KernelSimulator({}, app)
    agree, rouge, mismatches = 0, 0.0, []
    for t in traces:
        text, is_error = run_kernel(kernel, sim.tree_for(t), t.arguments)
        same = (t.label == "success") == (classify(text, is_error) == "success")
        agree += same
        rouge += rouge_l(t.response, text)[0]
        if not same or text != t.response:
            mismatches.append(Mismatch(t.id, t.arguments, t.is_error, t.response, is_error, text))
    n = len(traces) or 1
    return agree / n, rouge / n, mismatches


def feedback(attempt: Attempt, total: int, limit: int = 8) -> str:
    if attempt.error:
        return f"Your code could not be used: {attempt.error}\nReturn the complete corrected code."
    lines = [f"Your simulator disagrees with the real server on {len(attempt.mismatches)} of {total} traces "
             f"(behavioural agreement {attempt.agreement:.2f}, mean ROUGE-L {attempt.rouge:.2f}). Mismatches:"]
    for m in attempt.mismatches[:limit]:
        lines.append(json.dumps({"arguments": m.arguments, "expected": {"is_error": m.expected_error,
                                                                        "text": m.expected[:800]},
                                 "got": {"is_error": m.got_error, "text": m.got[:800]}}, ensure_ascii=False))
    lines.append("Return the complete corrected code.")
    return "\n".join(lines)


async def synthesize_tool(client: ChatClient, pool: Pool, tool: str, app: App, *, threshold: float = 0.95,
                          rouge_threshold: float = 0.0, max_attempts: int = 3) -> SynthesisResult:
    spec = pool.tool(tool)
    if spec is None:
        raise ValueError(f"the pool has no tool {tool!r}")
    traces = [t for t in pool.traces if t.tool == tool and t.label != "unexpected_failure"]
    messages = build_prompt(server=pool.header.server, tool=spec, traces=traces, hierarchy=app.hierarchy)
    attempts: list[Attempt] = []
    for _ in range(max_attempts):
        try:
            reply = await client.complete(messages, [])
        except ModelError as exc:  # recorded for this tool; another tool's prompt may still fit and succeed
            attempts.append(Attempt("", 0.0, 0.0, error=f"the model request failed: {exc}"))
            break
        code = extract_code(reply.content or "")
        try:
            kernel = load_kernel(code)
        except KernelError as exc:
            attempt = Attempt(code, 0.0, 0.0, error=str(exc))
        else:
            agreement, rouge, mismatches = replay(kernel, traces, app)
            attempt = Attempt(code, agreement, rouge, mismatches)
        attempts.append(attempt)
        if not attempt.error and attempt.agreement >= threshold and attempt.rouge >= rouge_threshold:
            return SynthesisResult(tool, True, code, attempts)
        messages = [*messages, {"role": "assistant", "content": reply.content or ""},
                    {"role": "user", "content": feedback(attempt, len(traces))}]
    best = max(attempts, key=lambda a: (a.agreement, a.rouge))
    return SynthesisResult(tool, False, best.code, attempts)


async def synthesize(client: ChatClient, pool: Pool, app: App, *, tools: list[str] | None = None,
                     **kwargs: Any) -> dict[str, SynthesisResult]:
    """A kernel per tool of the pool (or of ``tools``)."""
    return {t: await synthesize_tool(client, pool, t, app, **kwargs) for t in (tools or pool.tool_names)}


def split_pool(pool: Pool, share: float, *, seed: int = 0) -> tuple[Pool, Pool]:
    """(training, held-out) pools: of every tool's successes and of its errors, ``round(n * share)`` traces are
    held out (chosen by a hash of ``seed`` and the trace id, so a split is reproducible and independent of the
    pool's order), never all of them: each tool keeps an example of each outcome it has in the training pool."""
    if not 0.0 < share < 1.0:
        raise ValueError(f"the held-out share must be between 0 and 1 (exclusive), got {share}")
    groups: dict[tuple[str, bool], list[Trace]] = {}
    for t in pool.traces:
        groups.setdefault((t.tool, t.label == "success"), []).append(t)
    held: set[str] = set()
    for traces in groups.values():
        n = min(len(traces) - 1, round(len(traces) * share))
        ranked = sorted(traces, key=lambda t: hashlib.sha256(f"{seed}:{t.id}".encode()).hexdigest())
        held.update(t.id for t in ranked[:n])
    train = [t for t in pool.traces if t.id not in held]
    heldout = [t for t in pool.traces if t.id in held]
    return Pool(header=pool.header, traces=train), Pool(header=pool.header, traces=heldout)


def module_source(results: dict[str, SynthesisResult], *, server: str, app: str, tools: list[dict[str, Any]]) -> str:
    """One Python module holding every accepted kernel, as ``KERNELS = {tool: simulate}``, with what serving them
    as an app takes: the server's name, the app whose Context-Tree hierarchy they work on, and the tools as the
    real server published them. Each kernel keeps its own namespace (helpers of different tools never collide)
    and loads through :func:`load_kernel`, with its import guard."""
    sources = {tool: r.code for tool, r in results.items() if r.accepted}
    published = [t for t in tools if t["name"] in sources]
    return "\n".join([
        f'"""Simulation kernels for {server}, written by a model and accepted on replay of its traces."""',
        "",
        "from mcp_persona.traverse.synthesize import load_kernel",
        "",
        f"SERVER = {server!r}",
        f"APP = {app!r}  # the app whose Context-Tree hierarchy the kernels work on",
        f"TOOLS = {published!r}",
        f"SOURCES = {sources!r}",
        "",
        "KERNELS = {tool: load_kernel(code) for tool, code in SOURCES.items()}",
        "",
    ])
