"""Tool-Traverse, the probing half: run seed calls and their perturbations against a real server.

Connect to any MCP server (a stdio command or a streamable-HTTP URL), list its tools, and for
every seed: reset the state to the fixture, capture it, make the call, capture it again, label the
answer; then the same for each adversarial call derived from the seed (:mod:`.perturb`). Every
call is one probe on a fresh state, so a probe's outcome never depends on the probes before it.

The result is a :class:`~mcp_persona.traverse.models.Pool`, written as JSONL.
"""

from __future__ import annotations

import json
import shlex
import tempfile
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_persona.context_tree import canonical_json
from mcp_persona.llm.base import ChatClient
from mcp_persona.traverse.discriminator import classify, judge
from mcp_persona.traverse.models import ErrorClass, Pool, PoolHeader, Seed, SeedFile, Trace
from mcp_persona.traverse.perturb import ModelPerturber, perturb
from mcp_persona.traverse.selffc import SelfFC
from mcp_persona.traverse.state import StateAdapter, fill

DEFAULT_ENV = {"TZ": "UTC"}  # dates in responses (get_file_info) print in the server's time zone
CALL_TIMEOUT = 30.0


@dataclass
class Target:
    """Where the real server is: a command to start over stdio, or a URL."""

    command: list[str] | None = None
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def stdio(cls, command: str | list[str], env: dict[str, str] | None = None) -> Target:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("empty --stdio command")
        return cls(command=argv, env=dict(env or {}))

    def describe(self) -> str:
        return self.url if self.url else shlex.join(self.command or [])

    def connect(self, placeholders: dict[str, str], errlog: TextIO) -> Client:
        if self.url:
            return Client(fill(self.url, placeholders), cache=None)
        assert self.command
        argv = [fill(a, placeholders) for a in self.command]
        env = DEFAULT_ENV | {k: fill(v, placeholders) for k, v in self.env.items()}
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
        return Client(stdio_client(params, errlog=errlog), cache=None)


def response_text(result: Any) -> str:
    """The text of a tool result: text blocks joined; other blocks as their JSON."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else json.dumps(block.model_dump(mode="json", by_alias=True,
                                                                                     exclude_none=True)))
    return "\n".join(parts)


@dataclass
class Call:
    seed: Seed
    tool: str
    arguments: dict[str, Any]
    error_class: ErrorClass | None
    rule: str
    note: str


class Prober:
    """One connection to a real server, with a state adapter that resets and captures its state."""

    def __init__(self, target: Target, state: StateAdapter, *, server: str = "", judge_client: ChatClient | None = None,
                 model: ModelPerturber | None = None, perturbations: bool = True,
                 on_trace: Callable[[Trace], None] | None = None, timeout: float = CALL_TIMEOUT,
                 self_fc: SelfFC | None = None) -> None:
        self.target = target
        self.state = state
        self.server = server
        self.judge_client = judge_client
        self.model = model
        self.perturbations = perturbations
        self.on_trace = on_trace
        self.timeout = timeout
        self.self_fc = self_fc

    async def run(self, seeds: SeedFile, *, workdir: Path | None = None) -> Pool:
        with tempfile.TemporaryDirectory(prefix="mcp-persona-traverse-") as tmp:
            log_dir = Path(workdir or tmp)
            log_dir.mkdir(parents=True, exist_ok=True)
            with (log_dir / "server-stderr.log").open("w", encoding="utf-8") as errlog:
                return await self._run(seeds, errlog)

    async def _run(self, seeds: SeedFile, errlog: TextIO) -> Pool:
        ph = self.state.placeholders()
        self.state.reset(seeds.fixture)
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(self.target.connect(ph, errlog))
            listed = await client.list_tools()
            tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
            by_name = {t["name"]: t for t in tools}
            info = client.server_info
            header = PoolHeader(server=self.server or (info.name if info else "server"),
                                server_info=info.model_dump(mode="json", exclude_none=True) if info else {},
                                target=self.target.describe(), reset=self.state.kind,  # type: ignore[arg-type]
                                tools=tools)
            if self.self_fc is not None:
                seeds = await self._grow(client, seeds, by_name, header.server, ph)
                header.self_fc = self.self_fc.report.counts() | {"model": self.self_fc.report.model}
            traces: list[Trace] = []
            seen: set[str] = set()
            rules_done: set[tuple[str, str]] = set()  # a rule applied once per tool teaches the rest
            for seed in seeds.seeds:
                if seed.tool not in by_name:
                    raise ValueError(f"seed {seed.id}: the server has no tool {seed.tool!r} "
                                     f"(has: {', '.join(by_name)})")
                fixture = seed.fixture if seed.fixture is not None else seeds.fixture
                for call in await self._calls(seed, by_name[seed.tool], fixture, ph):
                    key = call.tool + canonical_json(call.arguments)
                    if key in seen or (call.rule not in ("seed", "model") and (call.tool, call.rule) in rules_done):
                        continue
                    seen.add(key)
                    rules_done.add((call.tool, call.rule))
                    trace = await self._probe(client, call, fixture, len(traces) + 1, header.server,
                                              by_name[call.tool])
                    traces.append(trace)
                    if self.on_trace:
                        self.on_trace(trace)
        return Pool(header=header, traces=traces)

    async def _grow(self, client: Client, seeds: SeedFile, by_name: dict[str, dict[str, Any]], server: str,
                    ph: dict[str, str]) -> SeedFile:
        """Self-FC: the seeds grown with the model's proposals the server accepts, each made from the fixture."""
        assert self.self_fc is not None

        async def execute(seed: Seed) -> Trace:
            call = Call(seed, seed.tool, fill(seed.arguments, ph), None, "self-fc", seed.note)
            return await self._probe(client, call, seeds.fixture, 0, server, by_name[seed.tool])

        written = json.dumps([s.arguments for s in seeds.seeds], ensure_ascii=False)
        used = [key for key in sorted(ph) if "{" + key + "}" in written]  # the placeholders the seeds show
        return await self.self_fc.expand(seeds, by_name, execute, used)

    async def _calls(self, seed: Seed, tool: dict[str, Any], fixture: dict[str, Any] | None,
                     ph: dict[str, str]) -> list[Call]:
        args = fill(seed.arguments, ph)
        calls = [Call(seed, seed.tool, args, None, "seed", seed.note)]
        if self.perturbations:
            known = self.state.known(fill(fixture, ph) if fixture else fixture)
            for p in perturb(tool.get("inputSchema", {}), args, known=known):
                calls.append(Call(seed, seed.tool, p.arguments, p.error_class, p.rule, p.description))
        if self.model is not None:
            for p in await self.model.generate(tool, args):
                calls.append(Call(seed, seed.tool, fill(p.arguments, ph), p.error_class, p.rule, p.description))
        return calls

    async def _probe(self, client: Client, call: Call, fixture: dict[str, Any] | None, n: int, server: str,
                     tool: dict[str, Any]) -> Trace:
        self.state.reset(fixture)
        pre = self.state.capture()
        transport_error = False
        started = time.perf_counter()
        try:
            result = await client.call_tool(call.tool, call.arguments, read_timeout_seconds=self.timeout)
            text, is_error = response_text(result), bool(result.is_error)
        except Exception as exc:  # a protocol error, a dead process, a timeout: recorded, never fatal
            text, is_error, transport_error = f"{type(exc).__name__}: {exc}", True, True
        latency = (time.perf_counter() - started) * 1000
        post = self.state.capture()
        label, source = classify(text, is_error, transport_error=transport_error), "rules"
        if self.judge_client is not None:
            verdict = await judge(self.judge_client, tool=tool, arguments=call.arguments, text=text,
                                  is_error=is_error, transport_error=transport_error)
            label, source = verdict.label, verdict.source
        return Trace(id=f"{server}-{n:04d}", seed_id=call.seed.id, tool=call.tool, arguments=call.arguments,
                     error_class=call.error_class, rule=call.rule, note=call.note, response=text, is_error=is_error,
                     latency_ms=round(latency, 3), transport_error=transport_error, label=label, label_source=source,
                     pre_state=pre if pre.get("kind") != "none" else None,
                     post_state=None if post.get("kind") == "none" or self.state.same(pre, post) else post)


async def traverse(target: Target, seeds: SeedFile, state: StateAdapter, **kwargs: Any) -> Pool:
    """Probe ``target`` with ``seeds`` (and their perturbations); see :class:`Prober` for the options."""
    workdir = kwargs.pop("workdir", None)
    return await Prober(target, state, **kwargs).run(seeds, workdir=workdir)
