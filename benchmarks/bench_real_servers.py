"""What a real LiveMCPTool server costs through the library, side by side with the bare SDK, in one run.

Run from the repository root after the set-up (``scripts/install-real-servers.sh``)::

    python benchmarks/bench_real_servers.py [--calls N] [--rounds R] [--server memory]

Per call, on one server (default: memory, a stateful npm server; its ``read_graph`` does little work,
so the transport and our layer dominate):

1. ``sdk session``   one ``Client(stdio_client(...))`` kept open, ``call_tool`` N times: the server's own
                     time plus the SDK's stdio round trip, the floor for any client.
2. ``episode.call``  the same calls through ``open_episode(...).call``: our per-call timeout and routing
                     over the episode's one connection. The difference to (1) is what the library adds.
3. ``fresh per call`` a new connection (spawn, initialize, call, stop) for every call: LiveMCPBench's way.

Rounds interleave the variants (round r runs each once, the order rotated by r); the table reports
the median over rounds of each variant's p50 per call. Then the episode set-up time of every real
server (launch, initialize, list tools), each alone and all nine started side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import stdio_client

from mcp_persona.livemcptool import REAL_SERVERS, open_episode
from mcp_persona.livemcptool.real import RealSession

CALL = {"memory": ("read_graph", {}), "calculator": ("calculate", {"expression": "6*7"}),
        "filesystem": ("list_allowed_directories", {}), "time": ("get_current_time", {"timezone": "UTC"})}


def _p50(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


async def _timed(fn: Any, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - t)
    return out


async def main(calls: int, rounds: int, server: str, fresh_calls: int) -> None:
    tool, args = CALL[server]
    spec = REAL_SERVERS[server]
    results: dict[str, list[float]] = {"sdk session": [], "episode.call": [], "fresh per call": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "files").mkdir()
        params = RealSession(spec, base / "files", base / "state")
        (base / "state").mkdir()
        stdio_params = params._params()
        devnull = open(os.devnull, "w")  # noqa: SIM115 -- the servers' stderr, for as long as they run
        async with open_episode(base / "episode", servers=[server]) as ep, \
                Client(stdio_client(stdio_params, errlog=devnull), cache=None) as bare:
            async def sdk() -> None:
                r = await bare.call_tool(tool, args)
                assert not r.is_error

            async def ours() -> None:
                r = await ep.call(server, tool, args)
                assert not r.is_error

            async def fresh() -> None:
                async with Client(stdio_client(stdio_params, errlog=devnull), cache=None) as c:
                    assert not (await c.call_tool(tool, args)).is_error

            for fn in (sdk, ours):  # warm both connections
                await _timed(fn, 20)
            variants = [("sdk session", sdk, calls), ("episode.call", ours, calls), ("fresh per call", fresh,
                                                                                      fresh_calls)]
            for r in range(rounds):
                order = variants[r % 3:] + variants[:r % 3]
                for name, fn, n in order:
                    results[name].append(_p50(await _timed(fn, n)))
    floor = statistics.median(results["sdk session"])
    print(f"\nreal server {server} ({spec.package} {spec.version}), tool {tool}: {calls} calls x {rounds} rounds "
          f"({fresh_calls} for fresh)")
    print(f"{'variant':<16}{'p50 ms (median of rounds)':>28}{'min-max':>18}{'x sdk':>8}")
    for name, xs in results.items():
        med = statistics.median(xs)
        print(f"{name:<16}{med:>28.3f}{f'{min(xs):.3f}-{max(xs):.3f}':>18}{med / floor:>8.2f}")
    added = statistics.median(results["episode.call"]) - floor
    print(f"episode.call adds {added:+.3f} ms p50 over the bare SDK session (budget: 2 ms)")

    print("\nepisode set-up of each real server (launch + initialize + list tools), seconds")
    alone: dict[str, float] = {}
    for name in REAL_SERVERS:
        async with open_episode(servers=[name]) as ep:
            alone[name] = ep.setup_seconds[name]
    started = time.perf_counter()
    async with open_episode(servers=list(REAL_SERVERS)) as ep:
        together = dict(ep.setup_seconds)
    wall = time.perf_counter() - started
    print(f"{'server':<22}{'alone':>8}{'all nine at once':>18}")
    for name in REAL_SERVERS:
        print(f"{name:<22}{alone[name]:>8.2f}{together[name]:>18.2f}")
    print(f"all nine side by side: {max(together.values()):.2f} s to ready, {wall:.2f} s with tear-down")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fresh-calls", type=int, default=5)
    parser.add_argument("--server", choices=sorted(CALL), default="memory")
    a = parser.parse_args()
    anyio.run(main, a.calls, a.rounds, a.server, a.fresh_calls)
