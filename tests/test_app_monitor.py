"""The system-monitor app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.context_tree import diff_states

APP = get_app("monitor")
GIB = 1024**3

H = AppHarness(APP)
call, ok = H.call_text, H.ok_json
env = H.env_fixture()


@pytest.mark.anyio
async def test_reads_are_stable(env: AppEnv) -> None:
    before = env.tree.hash()
    cpu = await ok(env, "get_cpu_usage")
    procs = APP.load_context("default")["processes"].values()
    assert cpu["cpu_percent"] == round(1.8 + sum(p["cpu_percent"] for p in procs) / 16, 1) == 21.9
    assert len(cpu["per_cpu_percent"]) == cpu["logical_cores"] == 16
    mem = await ok(env, "get_memory_usage")
    used = int(2.4 * GIB) + sum(p["memory_rss"] for p in procs)
    assert mem["virtual_memory"]["used"] == used and mem["virtual_memory"]["total"] == 64 * GIB
    disks = await ok(env, "get_disk_usage")
    assert [p["mountpoint"] for p in disks["partitions"]] == ["/", "/boot/efi", "/data"]
    data = await ok(env, "get_disk_usage", {"path": "/data/datasets/"})
    assert (data["mountpoint"], data["used_percent"]) == ("/data", 91.0)
    assert (await ok(env, "get_disk_usage", {"path": "/home/deploy"}))["mountpoint"] == "/"
    net = await ok(env, "get_network_stats")
    assert [i["name"] for i in net["interfaces"]] == ["lo", "enp3s0", "docker0", "wlp4s0"]
    assert (await ok(env, "get_network_stats", {"interface": "enp3s0"}))["interfaces"][0]["dropin"] == 1284
    top = await ok(env, "get_processes")
    assert top["total_count"] == 25 and top["returned_count"] == 10 and top["sort_by"] == "cpu"
    assert [p["pid"] for p in top["processes"][:3]] == [4312, 6020, 4390]
    by_mem = await ok(env, "get_processes", {"sort_by": "memory", "limit": 2})
    assert [p["name"] for p in by_mem["processes"]] == ["python3", "java"]
    by_name = await ok(env, "get_processes", {"sort_by": "name", "limit": 100})
    assert [p["name"] for p in by_name["processes"]] == sorted(p["name"] for p in by_name["processes"])
    one = await ok(env, "get_processes", {"pid": 6020})
    assert one["name"] == "ffmpeg" and one["ppid"] == 1 and "launch-teaser" in one["cmdline"]
    info = await ok(env, "get_system_info")
    assert info["hostname"] == "orbit-build-02" and info["uptime_seconds"] == 8 * 86400 + 3600 + 16 * 60
    assert info["uptime"] == "8 days, 01:16" and info["procs"] == 25
    assert env.tree.hash() == before


@pytest.mark.anyio
async def test_kill_process_removes_it_and_reparents_children(env: AppEnv) -> None:
    before = json.loads(json.dumps(env.tree.data))
    out = await ok(env, "kill_process", {"pid": 4312})
    assert out == {"success": True, "pid": 4312, "name": "python3", "signal": "SIGTERM",
                   "message": "Process 4312 (python3) terminated with SIGTERM"}
    changes = [(c.op, c.path) for c in diff_states(APP.hierarchy, before, env.tree.data)]
    assert sorted(changes) == [("delete", "processes[4312]"), ("modify", "processes[4390]")]
    assert env.tree.data["processes"]["4390"]["ppid"] == 1
    cpu = await ok(env, "get_cpu_usage")
    assert cpu["cpu_percent"] == round(21.9 - 187.5 / 16, 1)
    assert (await ok(env, "get_processes"))["total_count"] == 24
    forced = await ok(env, "kill_process", {"pid": 6020, "force": True})
    assert forced["signal"] == "SIGKILL" and "6020" not in env.tree.data["processes"]


ERRORS = [
    ("kill_process", {"pid": "python3"}, "invalid arguments", "pid"),
    ("get_processes", {"limit": "all"}, "invalid arguments", "limit"),
    ("get_disk_usage", {"path": 5}, "invalid arguments", "path"),
    ("get_network_stats", {"interface": ["eth0"]}, "invalid arguments", "interface"),
    ("kill_process", {}, "invalid arguments", "pid"),
    ("kill_process", {"force": True}, "invalid arguments", "pid"),
    ("get_processes", {"limit": 0}, "invalid arguments", "greater than or equal to 1"),
    ("get_processes", {"sort_by": "disk"}, "invalid arguments", "sort_by"),
    ("kill_process", {"pid": 0}, "invalid arguments", "greater than or equal to 1"),
    ("get_disk_usage", {"path": "data"}, "must be absolute", "data"),
    ("kill_process", {"pid": 1}, "operation not permitted", "PID 1"),
    ("kill_process", {"pid": 99999}, "process not found", "99999"),
    ("kill_process", {"pid": 1180}, "access denied", "dockerd"),
    ("get_processes", {"pid": 4242}, "process not found", "4242"),
    ("get_disk_usage", {"path": "/nonexistent"}, "no such file or directory", "/nonexistent"),
    ("get_network_stats", {"interface": "eth9"}, "no network interface", "eth9"),
]


@pytest.mark.parametrize(("tool", "args", "head", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], head: str,
                                            needle: str) -> None:
    before = env.tree.hash()
    err, text = await call(env, tool, args)
    assert err and text.startswith("Error: ") and head in text and needle in text, text
    assert env.tree.hash() == before
