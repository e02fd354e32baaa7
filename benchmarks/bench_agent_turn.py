"""What a model turn costs the harness, and how episodes scale with concurrency.

Run from the repository root (after ``pip install -e .``; no network, no API keys)::

    .venv/bin/python benchmarks/bench_agent_turn.py [--tasks N] [--tools selected|all] [--latency S]
        [--levels 1,8,32,64] [--waves W] [--profile]

One run, the real ``ModelAgent`` loop and the real MCP servers, against a scripted OpenAI-compatible
endpoint on loopback. The endpoint runs in a child process (asyncio, HTTP/1.1 keep-alive), so the
harness's process CPU (``time.process_time``) excludes it. It prints:

(a) harness CPU per model turn, median and p95: the whole persona suite (or ``--tasks N``) at
    concurrency 1, the endpoint replaying each task's gold chain (one turn per gold step, the calls
    as the reference agent made them, then the reference answer) with no latency. A turn runs from
    one model request to the next (the last to the end of the agent's loop): building and sending
    the request, reading the answer, the tool calls through MCP, the trajectory.
(b) episodes/s at each concurrency level (default 1, 8, 32, 64) and the ratio to level 1: the endpoint
    answers every request after ``--latency`` seconds (default 0.5) with a final answer, so one episode
    is one request and a level of c runs ``--waves`` x c episodes that keep its c slots full. Episodes
    go through ``run_suite`` with a run store, as ``mcp-persona run`` does, and the agent's client may
    have c requests in flight (``--max-requests`` follows ``--concurrency``).
(c) resident memory per concurrent episode: the peak RSS during a level, over the RSS before it, per slot;
    next to it the harness CPU per episode (set-up, the turn, scoring, the store): a level whose slots times
    this exceeds the cores the machine gives the process is CPU-bound, not slot-bound.
(d) request bytes per turn (p50, max) over (a)'s requests, as the endpoint received them; the task of the
    largest request and the part of it that is tool definitions (the rest is the conversation: prompts, calls
    and the tools' answers), the largest tool definitions of any task, and the tasks with a request over the
    budget of 60,000 bytes.
(e) the gold replay the strict pass compares end states with: CPU per task, cold. It is paid once per task
    and process (memoised on the task's content, so trials and re-runs reuse it); (a) computes it for every
    task, so the episodes of (b) — copies of those tasks — find it done, as the trials of a real run do.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import io
import itertools
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from mcp_persona.agents import ModelAgent, ReferenceAgent
from mcp_persona.environment import SEP, Environment, ToolPool
from mcp_persona.llm.base import ChatClient, ChatResponse
from mcp_persona.llm.openai_client import OpenAIChatClient
from mcp_persona.protocols import load_tasks
from mcp_persona.protocols.persona import gold_changes
from mcp_persona.protocols.persona.prompts import user_prompt
from mcp_persona.runner import run_episode, run_suite
from mcp_persona.store import RunStore
from mcp_persona.tasks import Task
from mcp_persona.trajectory import Trajectory

# The most one request may carry (tool definitions and the whole conversation), in bytes.
BUDGET = 60_000

# --- the scripted endpoint (runs in a child process) ---------------------------------------------------------------


class Endpoint:
    """OpenAI chat completions on loopback. ``POST /script`` sets the mode: ``answer`` (a final answer to every
    request) or ``replay`` (per task, keyed by its user message: the turn-th scripted reply); ``GET /stats``
    returns and clears the request body sizes."""

    def __init__(self) -> None:
        self.mode = "answer"
        self.latency = 0.0
        self.replies: dict[str, list[Any]] = {}
        self.sizes: list[int] = []

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request.get("messages") or []
        message: dict[str, Any] = {"role": "assistant", "content": "Done."}
        if self.mode == "replay":
            user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
            script = self.replies.get(task_key(user)) or ["Done."]
            turn = sum(1 for m in messages if m.get("role") == "assistant")
            step = script[min(turn, len(script) - 1)]
            if isinstance(step, list):
                message = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": name, "arguments": args}}
                    for i, (name, args) in enumerate(step)]}
            else:
                message["content"] = step
        return {"id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "scripted",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}

    async def route(self, method: str, path: str, body: bytes) -> bytes:
        if method == "GET" and path == "/stats":
            sizes, self.sizes = self.sizes, []
            return json.dumps({"sizes": sizes}).encode()
        if path == "/script":
            config = json.loads(body)
            self.mode, self.latency = config["mode"], float(config["latency"])
            self.replies = config.get("replies") or {}
            return b"{}"
        self.sizes.append(len(body))
        answer = self.reply(json.loads(body))
        if self.latency:
            await asyncio.sleep(self.latency)
        return json.dumps(answer).encode()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                method, path, _ = line.decode("latin-1").split(" ", 2)
                length = 0
                while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = header.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                payload = await self.route(method, path, await reader.readexactly(length))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(payload), payload))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def serve(self) -> None:
        server = await asyncio.start_server(self.handle, "127.0.0.1", 0, backlog=512)
        print(server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()


def task_key(user_message: str) -> str:
    return hashlib.sha1(user_message.encode()).hexdigest()


class EndpointProcess:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}"

    def script(self, mode: str, latency: float, replies: dict[str, list[Any]] | None = None) -> None:
        body = json.dumps({"mode": mode, "latency": latency, "replies": replies or {}}).encode()
        urllib.request.urlopen(urllib.request.Request(f"{self.url}/script", data=body), timeout=30).close()

    def sizes(self) -> list[int]:
        with urllib.request.urlopen(f"{self.url}/stats", timeout=30) as r:
            return json.loads(r.read())["sizes"]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# --- the harness side ----------------------------------------------------------------------------------------------


async def gold_script(task: Task, tools: ToolPool) -> list[Any]:
    """The replies that make a model agent walk the task's gold chain: each round's calls, then the answer."""
    record = await run_episode(task, ReferenceAgent(), tools=tools)
    rounds: dict[int, list[tuple[str, str]]] = {}
    for call in record.trajectory.tool_calls:
        rounds.setdefault(call.round, []).append((f"{call.server}{SEP}{call.tool}", json.dumps(call.arguments)))
    return [*rounds.values(), record.trajectory.final_answer or "Done."]


class MeteredClient:
    """A chat client that notes the process CPU time as each request starts, and the CPU the request took
    (building and sending it, reading the answer: the provider SDK and its HTTP stack)."""

    def __init__(self, inner: ChatClient) -> None:
        self.inner = inner
        self.name = inner.name
        self.marks: list[float] = []
        self.inside: list[float] = []

    async def complete(self, messages: list[dict[str, Any]], tools: Sequence[dict[str, Any]]) -> ChatResponse:
        start = time.process_time()
        self.marks.append(start)
        try:
            return await self.inner.complete(messages, tools)
        finally:
            self.inside.append(time.process_time() - start)


class MeteredAgent(ModelAgent):
    """The model agent, with the process CPU of each of its turns (run at concurrency 1)."""

    def __init__(self, client: ChatClient, **kwargs: Any) -> None:
        self.meter = MeteredClient(client)
        super().__init__(self.meter, **kwargs)
        self.turns: list[float] = []
        self.client_cpu: list[float] = []  # per turn, the part spent inside the model client

    async def run(self, task: Task, env: Environment, trajectory: Trajectory) -> None:
        self.meter.marks = [time.process_time()]
        self.meter.inside = []
        await super().run(task, env, trajectory)
        marks = [*self.meter.marks, time.process_time()]
        # turn i: from its request to the next one; the first turn also holds the loop's set-up
        bounds = [marks[0], *marks[2:]]
        self.turns.extend(b - a for a, b in itertools.pairwise(bounds))
        self.client_cpu.extend(self.meter.inside)


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRss:
    """The highest resident set size seen while ``watch`` runs (sampled every 20 ms), and the size before."""

    def __init__(self) -> None:
        self.base = self.peak = rss_bytes()
        self.running = True

    async def watch(self) -> None:
        while self.running:
            self.peak = max(self.peak, rss_bytes())
            await anyio.sleep(0.02)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def gold_replay_costs(tasks: list[Task], tools: ToolPool) -> list[float]:
    """CPU ms of each task's first (cold) gold replay for the strict pass, the apps already loaded (a first
    pass replays copies under another seed, which the memo keys apart)."""
    for task in tasks:
        await gold_changes(task.model_copy(update={"seed": task.seed + 1}), tools)
    costs = []
    for task in tasks:
        c0 = time.process_time()
        await gold_changes(task, tools)
        costs.append((time.process_time() - c0) * 1e3)
    return costs


async def turn_costs(tasks: list[Task], endpoint: EndpointProcess, client: OpenAIChatClient, tools: ToolPool,
                     profile: cProfile.Profile | None) -> dict[str, Any]:
    replies = {task_key(user_prompt(task)): await gold_script(task, tools) for task in tasks}
    endpoint.script("replay", 0.0, replies)
    client.max_concurrency = 1
    agent = MeteredAgent(client, max_rounds=50)
    await run_episode(tasks[0], agent, tools=tools)  # warm: imports, SDK client, first listings
    agent.turns.clear()
    agent.client_cpu.clear()
    endpoint.sizes()
    answered = 0
    largest: dict[str, int] = {}  # per task, its largest request
    tool_chars: dict[str, int] = {}  # per task, the tool definitions every one of its requests carries
    sizes: list[int] = []
    for task in tasks:
        if profile is not None:
            profile.enable()
        record = await run_episode(task, agent, tools=tools)
        if profile is not None:
            profile.disable()
        answered += record.trajectory.stop_reason == "answered"
        own = endpoint.sizes()
        sizes += own
        largest[task.id] = max(own, default=0)
        tool_chars[task.id] = record.trajectory.tool_def_chars or 0
    ms = [t * 1e3 for t in agent.turns]
    client_ms = [t * 1e3 for t in agent.client_cpu]
    own_ms = [t - c for t, c in zip(ms, client_ms, strict=True)]
    top = max(largest, key=lambda t: largest[t])
    return {"turns": len(ms), "episodes": len(tasks), "answered": answered, "cpu_ms_median": statistics.median(ms),
            "cpu_ms_p95": pct(ms, 0.95), "cpu_ms_mean": statistics.fmean(ms),
            "client_cpu_ms_median": statistics.median(client_ms), "own_cpu_ms_median": statistics.median(own_ms),
            "request_bytes_p50": pct(sizes, 0.5), "request_bytes_max": max(sizes), "requests": len(sizes),
            "request_bytes_max_task": top, "request_bytes_max_tool_chars": tool_chars[top],
            "tool_chars_max": max(tool_chars.values()),
            "tasks_over_budget": {t: b for t, b in sorted(largest.items()) if b > BUDGET}}


async def scaling(tasks: list[Task], endpoint: EndpointProcess, client: OpenAIChatClient, levels: list[int],
                  waves: int, latency: float, tools: ToolPool) -> dict[int, dict[str, float]]:
    endpoint.script("answer", latency)
    out: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench_agent_turn_") as tmp:
        for i, c in enumerate(levels):
            n = waves * c
            batch = [tasks[i % len(tasks)] for i in range(n)]
            client.max_concurrency = c  # the endpoint's limiter follows the latest limit
            agent = ModelAgent(client)
            store = RunStore(Path(tmp) / f"{i}-c{c}")
            store.begin({"bench": c}, resume=False)
            rss = PeakRss()
            async with anyio.create_task_group() as tg:
                tg.start_soon(rss.watch)
                t0, c0 = time.perf_counter(), time.process_time()
                ran = await run_suite(_unique(batch), agent, store, tools=tools, concurrency=c)
                elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
                rss.running = False
            errors = sum(1 for r in store.records() if r.status != "ok")
            store.close()
            out[c] = {"episodes": ran, "errors": errors, "seconds": elapsed, "eps": ran / elapsed,
                      "cpu_ms_per_episode": cpu / ran * 1e3, "rss_mb_per_episode": (rss.peak - rss.base) / c / 2**20}
    base_eps = out[levels[0]]["eps"]
    for c in levels:
        out[c]["ratio"] = out[c]["eps"] / base_eps
    return out


def _unique(batch: list[Task]) -> list[Task]:
    """The batch with distinct ids, so the run store keeps every episode (a task may repeat in a big level)."""
    return [t.model_copy(update={"id": f"{t.id}#{i}"}) for i, t in enumerate(batch)]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tasks", type=int, default=None, help="the first N persona tasks for (a)/(d) (default all)")
    parser.add_argument("--tools", choices=["selected", "all"], default="selected", help="the tool pool")
    parser.add_argument("--latency", type=float, default=0.5, help="endpoint latency for (b), seconds (default 0.5)")
    parser.add_argument("--levels", default="1,8,32,64", help="concurrency levels for (b) (default 1,8,32,64)")
    parser.add_argument("--waves", type=int, default=3, help="episodes per slot at each level (default 3)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of (a)'s episodes too")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        asyncio.run(Endpoint().serve())
        return {}
    levels = [int(x) for x in args.levels.split(",") if x.strip()]
    if not levels or min(levels) < 1 or args.waves < 1 or args.latency < 0:
        parser.error("--levels, --waves must be >= 1 and --latency >= 0")
    tasks = load_tasks("persona")[: args.tasks]
    endpoint = EndpointProcess()
    profile = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not wall: the machine may be busy
    t0 = time.perf_counter()
    try:
        async def both() -> tuple[list[float], dict[str, Any], dict[int, dict[str, float]]]:
            # One client (one connection pool) for the whole run, as ``mcp-persona run`` has.
            client = OpenAIChatClient("scripted", base_url=f"{endpoint.url}/v1")
            return (await gold_replay_costs(tasks, args.tools),
                    await turn_costs(tasks, endpoint, client, args.tools, profile),
                    await scaling(tasks, endpoint, client, levels, args.waves, args.latency, args.tools))

        replays, turns, scale = anyio.run(both)
    finally:
        endpoint.close()
    out = io.StringIO()
    out.write(f"persona suite, --tools {args.tools}: {turns['episodes']} episodes ({turns['answered']} answered), "
              f"{turns['turns']} model turns; {time.perf_counter() - t0:.1f} s\n\n")
    out.write(f"(a) harness CPU per model turn: median {turns['cpu_ms_median']:.2f} ms, "
              f"p95 {turns['cpu_ms_p95']:.2f} ms, mean {turns['cpu_ms_mean']:.2f} ms\n"
              f"    inside the model client (the provider SDK and HTTP: build, send, read): median "
              f"{turns['client_cpu_ms_median']:.2f} ms; the rest (agent loop, tool calls through MCP, trajectory): "
              f"median {turns['own_cpu_ms_median']:.2f} ms\n")
    out.write(f"(b,c) endpoint latency {args.latency:g} s, one request per episode, {args.waves} episodes per slot\n")
    out.write(f"    {'concurrency':>11}  {'episodes':>8}  {'errors':>6}  {'episodes/s':>10}  {'vs 1':>6}"
              f"  {'RSS MB/episode':>14}  {'CPU ms/episode':>14}\n")
    for c, row in scale.items():
        out.write(f"    {c:>11}  {row['episodes']:>8.0f}  {row['errors']:>6.0f}  {row['eps']:>10.2f}"
                  f"  {row['ratio']:>5.1f}x  {row['rss_mb_per_episode']:>14.2f}  {row['cpu_ms_per_episode']:>14.1f}\n")
    over = ", ".join(f"{t} {b:,}" for t, b in turns["tasks_over_budget"].items()) or "none"
    out.write(f"(d) request bytes per turn: p50 {turns['request_bytes_p50']:,}, max {turns['request_bytes_max']:,} "
              f"({turns['request_bytes_max_task']}, its tool definitions {turns['request_bytes_max_tool_chars']:,} "
              f"chars) ({turns['requests']} requests); tool definitions of a task at most "
              f"{turns['tool_chars_max']:,} chars\n    tasks over {BUDGET:,}: {over}\n")
    out.write(f"(e) gold replay per task (cold, once per task and process): "
              f"median {statistics.median(replays):.1f} ms, "
              f"p95 {pct(replays, 0.95):.1f} ms, total {sum(replays) / 1e3:.2f} s for {len(replays)} tasks\n")
    if profile is not None:
        stats = pstats.Stats(profile, stream=out)
        stats.sort_stats("cumulative").print_stats(40)
        stats.sort_stats("tottime").print_stats(25)
    print(out.getvalue(), end="")
    return {"turns": turns, "scaling": scale, "table": out.getvalue()}


if __name__ == "__main__":
    main()
