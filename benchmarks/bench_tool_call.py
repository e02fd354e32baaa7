"""Per-call cost of a simulated app's tool call, next to the MCP SDK's own floor.

Run from the repository root (after ``pip install -e .``; no network, no API keys)::

    .venv/bin/python benchmarks/bench_tool_call.py [--calls N] [--rounds R] [--episodes E] [--json-dir D]
    .venv/bin/python benchmarks/bench_tool_call.py --profile [--calls N]   # cProfile of variant 3 instead

All variants run in ONE process on one event loop, each through the official SDK's in-process
``Client(server)``. In mcp 2.3 that is the SDK's direct dispatcher: no JSON text and no streams, but
every other layer a real session has (request/result pydantic models on both sides, the server runner,
request context, tool lookup, argument validation, result conversion). Over stdio or HTTP each call
would add its (de)serialization and transport on top, the same for every variant. Rounds are
interleaved — round r runs every variant once, in an order rotated by r — and the table reports the
median of the per-round means, the min-max over rounds, and the median process-CPU time per call
(``time.process_time``), which other load on the machine does not inflate.

Variants:

1. ``sdk floor``       a bare ``MCPServer`` with ``async def echo(x: int) -> str`` (unstructured output,
                       as our tools are) — what any MCP tool call costs before doing anything.
2. ``ours read``       Lark ``contact_v3_user_get`` of the signed-in user on an ``AppServer``.
3. ``ours write``      Lark ``im_v1_message_create`` into a chat of the context: a state change
                       through nested-model validation, the tree transaction and the Lark envelope.
4. ``ours rejected``   ``im_v1_message_list`` with ``page_size: "abc"``: the validation-error envelope.
5. ``json read/write`` the public release's design: every call reads the context JSON file from disk,
                       builds a ``ContextTree``, runs the same tool, and writes the JSON back.
6. ``episode set-up``  a fresh env + ``AppServer`` + ``Client`` connect (initialize) + the app's tools
                       (``environment.app_tools``: listed through MCP once per app and process, then
                       shared) + close: what every episode pays once.

Stateful variants are reset to the stored context every ``EPISODE_LEN`` calls (outside the timed
region), so state never grows past what a long episode would write; otherwise the JSON file of the
write variant would grow by ~300 bytes per call and its cost would drift upward with --calls.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer

from mcp_persona.apps import App, AppEnv, AppServer, get_app
from mcp_persona.clock import DEFAULT_CLOCK
from mcp_persona.context_tree import ContextTree
from mcp_persona.environment import app_tools

APP_NAME = "lark"
CONTEXT_ID = "chen_yu"
EPISODE_LEN = 25  # calls between state resets (an episode's worth of tool calls)

READ_TOOL = "contact_v3_user_get"
WRITE_TOOL = "im_v1_message_create"
REJECT_TOOL = "im_v1_message_list"

Call = Callable[[], Awaitable[Any]]


class JsonFileServer(AppServer):
    """The public release's design: the whole context lives in a JSON file, loaded and saved on every call.

    Included in each call, on top of exactly the path ``AppServer`` runs (same SDK tool definitions,
    argument validation, transaction and envelope): opening and ``json.load``-ing the file, building a
    ``ContextTree`` over it, and ``json.dump``-ing the whole state back (1-space indent, as the stored
    contexts are written) — on reads too, as the public release saved after every call.
    Not included: re-reading the hierarchy or re-validating the context on each call (both stay cached
    here, so this is a lower bound for the file design), and any fsync. Without fsync the write lands in the page
    cache, but rewriting a file in place (truncate + write + close) on ext4 also starts its writeback
    at close (``auto_da_alloc``), so wall time there exceeds CPU time by a disk-dependent amount; pass
    ``--json-dir /dev/shm`` to see the variant on tmpfs, with no disk at all.
    The episode's id generator and write clock persist across calls, as a long-lived process would
    keep them; otherwise every write would generate the same message id.
    """

    def __init__(self, app: App, path: Path) -> None:
        self.path = path
        super().__init__(app, self._load_env(AppEnv(app, ContextTree(app.hierarchy, {}), DEFAULT_CLOCK, CONTEXT_ID)))

    def _load_env(self, env: AppEnv) -> AppEnv:
        rng = env.tree.rng
        with self.path.open(encoding="utf-8") as f:
            data = json.load(f)
        env.tree = ContextTree(env.app.hierarchy, data)
        env.tree.rng = rng
        return env

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None) -> Any:
        self._load_env(self.env)
        result = await super().call_tool(name, arguments, context)
        with self.path.open("w", encoding="utf-8") as f:
            json.dump(self.env.tree.data, f, ensure_ascii=False, indent=1)
        return result


def floor_server() -> MCPServer:
    server = MCPServer("floor", log_level="WARNING")

    @server.tool(structured_output=False)
    async def echo(x: int) -> str:
        """Echo x."""
        return str(x)

    return server


async def timed(call: Call, n: int, reset: Callable[[], None] | None) -> tuple[float, float]:
    """Mean (wall, process-CPU) microseconds per call over ``n`` sequential calls.

    ``reset`` runs untimed every EPISODE_LEN calls. The CPU figure (``time.process_time``, user + system)
    is the one to trust on a busy machine: other processes stealing the core inflate wall time only.
    """
    wall = cpu = 0.0
    done = 0
    while done < n:
        k = min(EPISODE_LEN, n - done)
        if reset is not None:
            reset()
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(k):
            await call()
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        done += k
    return wall / n * 1e6, cpu / n * 1e6


async def episode_setup(app: App) -> dict[str, float]:
    """One episode's fixed cost in wall seconds, split into its phases, plus its process-CPU seconds."""
    c0, t0 = time.process_time(), time.perf_counter()
    env = app.env(CONTEXT_ID)
    t1 = time.perf_counter()
    server = app.server(env)
    t2 = time.perf_counter()
    async with Client(server) as client:
        t3 = time.perf_counter()
        tools = await app_tools(app, client)  # as an episode gets them: listed through MCP once per app
        t4 = time.perf_counter()
    t5, c5 = time.perf_counter(), time.process_time()
    if len(tools) != len(app.tool_names):
        raise RuntimeError(f"list_tools returned {len(tools)} tools, expected {len(app.tool_names)}")
    return {"env": t1 - t0, "server": t2 - t1, "connect": t3 - t2, "list_tools": t4 - t3, "close": t5 - t4,
            "total": t5 - t0, "cpu": c5 - c0}


def _check(result: Any, *, error: bool, what: str) -> None:
    if bool(result.is_error) != error:
        raise RuntimeError(f"{what}: expected is_error={error}, got {result.content[0].text[:300]}")


FLOOR = "sdk floor (echo)"
SETUP = "episode set-up"
RATIOS = [  # (label, numerator, denominator)
    ("ours read / floor", "ours read", FLOOR),
    ("ours write / floor", "ours write", FLOOR),
    ("ours rejected / floor", "ours rejected", FLOOR),
    ("json load/save read / ours read", "json load/save read", "ours read"),
    ("json load/save write / ours write", "json load/save write", "ours write"),
    ("episode set-up / ours write", SETUP, "ours write"),
]


def _table(wall: dict[str, list[float]], cpu: dict[str, list[float]], ratios: dict[str, tuple[float, float]],
           phases: dict[str, float]) -> str:
    out = io.StringIO()
    w = max(len(n) for n in wall) + len(" (per episode)")
    out.write(f"{'variant':<{w}}  {'wall us/call':>12}  {'min':>8}  {'max':>8}  {'cpu us/call':>11}\n")
    out.write(f"{'-' * w}  {'(median)':>12}  {'-' * 8}  {'-' * 8}  {'(median)':>11}\n")
    for name, v in wall.items():
        label = f"{name} (per episode)" if name == SETUP else name
        out.write(f"{label:<{w}}  {statistics.median(v):>12.1f}  {min(v):>8.1f}  {max(v):>8.1f}"
                  f"  {statistics.median(cpu[name]):>11.1f}\n")
    rw = max(len(k) for k in ratios)
    out.write(f"\n{'ratio (of medians)':<{rw}}  {'wall':>7}  {'cpu':>7}\n")
    for k, (rwall, rcpu) in ratios.items():
        out.write(f"{k:<{rw}}  {rwall:>6.2f}x  {rcpu:>6.2f}x\n")
    out.write("\nepisode set-up phases, median wall us: ")
    out.write(", ".join(f"{k} {v:.0f}" for k, v in phases.items()) + "\n")
    return out.getvalue()


async def run(calls: int, rounds: int, episodes: int, profile: bool, json_dir: str | None) -> dict[str, Any]:
    app = get_app(APP_NAME)
    env = app.env(CONTEXT_ID)
    ours = app.server(env)
    me = env.tree.data["me"]
    chat_id = next(c["chat_id"] for c in env.tree.data["chats"].values() if me in c.get("members", {}))
    read_args = {"path": {"user_id": me}}
    write_args = {"params": {"receive_id_type": "chat_id"},
                  "data": {"receive_id": chat_id, "msg_type": "text", "content": '{"text":"hi"}'}}
    reject_args = {"params": {"container_id_type": "chat", "container_id": chat_id, "page_size": "abc"}}

    with tempfile.TemporaryDirectory(prefix="bench_tool_call_", dir=json_dir) as tmp:
        path = Path(tmp) / f"{CONTEXT_ID}.json"
        original = json.dumps(app.load_context(CONTEXT_ID), ensure_ascii=False, indent=1)
        path.write_text(original, encoding="utf-8")
        file_server = JsonFileServer(app, path)

        def reset_ours() -> None:
            ours.env = app.env(CONTEXT_ID)

        def reset_file() -> None:
            path.write_text(original, encoding="utf-8")

        def n_messages() -> int:
            return len(json.loads(path.read_text(encoding="utf-8"))["chats"][chat_id].get("messages", {}))

        async with Client(floor_server()) as floor, Client(ours) as client, Client(file_server) as fclient:
            variants: dict[str, tuple[Call, Callable[[], None] | None]] = {
                FLOOR: (lambda: floor.call_tool("echo", {"x": 1}), None),
                "ours read": (lambda: client.call_tool(READ_TOOL, read_args), reset_ours),
                "ours write": (lambda: client.call_tool(WRITE_TOOL, write_args), reset_ours),
                "ours rejected": (lambda: client.call_tool(REJECT_TOOL, reject_args), reset_ours),
                "json load/save read": (lambda: fclient.call_tool(READ_TOOL, read_args), reset_file),
                "json load/save write": (lambda: fclient.call_tool(WRITE_TOOL, write_args), reset_file),
            }

            # Sanity: each variant does what its name says (and the JSON file really gains the message).
            _check(await floor.call_tool("echo", {"x": 1}), error=False, what="floor")
            _check(await client.call_tool(READ_TOOL, read_args), error=False, what="ours read")
            _check(await client.call_tool(WRITE_TOOL, write_args), error=False, what="ours write")
            _check(await client.call_tool(REJECT_TOOL, reject_args), error=True, what="ours rejected")
            _check(await fclient.call_tool(READ_TOOL, read_args), error=False, what="json read")
            before = n_messages()
            _check(await fclient.call_tool(WRITE_TOOL, write_args), error=False, what="json write")
            if n_messages() != before + 1:
                raise RuntimeError("the json load/save write did not persist its message")

            if profile:
                prof = cProfile.Profile()
                for done in range(0, calls, EPISODE_LEN):
                    reset_ours()  # outside the profile, as outside the timing
                    prof.enable()
                    for _ in range(min(EPISODE_LEN, calls - done)):
                        await client.call_tool(WRITE_TOOL, write_args)
                    prof.disable()
                out = io.StringIO()
                out.write(f"cProfile of {calls} x 'ours write' (times include profiler overhead)\n")
                stats = pstats.Stats(prof, stream=out)
                stats.sort_stats("tottime").print_stats(20)
                stats.sort_stats("cumulative").print_stats(30)
                return {"table": out.getvalue()}

            warm = max(10, min(200, calls // 5))
            for call, reset in variants.values():
                await timed(call, warm, reset)
            for _ in range(min(5, episodes)):
                await episode_setup(app)

            names = [*variants, SETUP]
            wall: dict[str, list[float]] = {name: [] for name in names}
            cpu: dict[str, list[float]] = {name: [] for name in names}
            phase_samples: dict[str, list[float]] = {}
            for r in range(rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:  # rotated, to spread drift evenly
                    if name == SETUP:
                        runs = [await episode_setup(app) for _ in range(episodes)]
                        wall[name].append(statistics.fmean(x["total"] for x in runs) * 1e6)
                        cpu[name].append(statistics.fmean(x["cpu"] for x in runs) * 1e6)
                        for x in runs:
                            for k, v in x.items():
                                if k != "cpu":
                                    phase_samples.setdefault(k, []).append(v * 1e6)
                    else:
                        call, reset = variants[name]
                        w, c = await timed(call, calls, reset)
                        wall[name].append(w)
                        cpu[name].append(c)

    med_wall = {n: statistics.median(v) for n, v in wall.items()}
    med_cpu = {n: statistics.median(v) for n, v in cpu.items()}
    ratios = {label: (med_wall[a] / med_wall[b], med_cpu[a] / med_cpu[b]) for label, a, b in RATIOS}
    phases = {k: statistics.median(v) for k, v in phase_samples.items()}
    return {"wall_us": med_wall, "cpu_us": med_cpu, "samples_wall_us": wall, "samples_cpu_us": cpu,
            "ratios": ratios, "setup_phases_us": phases, "table": _table(wall, cpu, ratios, phases)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Parse ``argv``, run, print the table; return the numbers (medians, samples, ratios) for callers."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=800, help="timed calls per variant per round (default 800)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported (default 5)")
    parser.add_argument("--episodes", type=int, default=50, help="episode set-ups timed per round (default 50)")
    parser.add_argument("--profile", action="store_true", help="instead, cProfile --calls calls of 'ours write'")
    parser.add_argument("--json-dir", default=None,
                        help="where the json load/save variant keeps its file (default: the system temp dir)")
    args = parser.parse_args(argv)
    if min(args.calls, args.rounds, args.episodes) < 1:
        parser.error("--calls, --rounds and --episodes must be >= 1")
    t0 = time.perf_counter()
    result = anyio.run(run, args.calls, args.rounds, args.episodes, args.profile, args.json_dir)
    if not args.profile:
        print(f"{APP_NAME}/{CONTEXT_ID}, Python {sys.version.split()[0]}, mcp {version('mcp')}, "
              f"{args.rounds} rounds x {args.calls} calls per variant (state reset every {EPISODE_LEN} calls), "
              f"{args.episodes} episode set-ups per round, json file in {args.json_dir or tempfile.gettempdir()}; "
              f"{time.perf_counter() - t0:.1f} s\n")
    print(result["table"], end="")
    return result


if __name__ == "__main__":
    main()
