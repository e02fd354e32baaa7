"""The system-monitor tools over one fixed machine snapshot (see ``data/hierarchies/monitor.json``).

Aggregates are computed from the processes, so killing one shows in the CPU and memory figures:
CPU percent = system overhead + sum(process cpu_percent) / logical cores; memory used = base_used +
sum(process RSS). Uptime is the task clock's "now" minus the boot time.
"""

from __future__ import annotations

import posixpath
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json


class MonitorApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return f"Error: {failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return "Error: invalid arguments: " + "; ".join(f"{v.field}: {v.message}" for v in violations)


APP = MonitorApp(
    "monitor",
    title="System Monitor",
    category="information",
    personalized=False,
    description="CPU, memory, disk, network, host and process information of the server, and process termination.",
    real_server="seekrays/mcp-monitor",
)


def _procs(env: AppEnv) -> list[dict[str, Any]]:
    return sorted((env.tree.data.get("processes") or {}).values(), key=lambda p: p["pid"])


def _mem_total(env: AppEnv) -> int:
    return env.tree.data["memory"]["total"]


def cpu_percent(env: AppEnv) -> float:
    cpu = env.tree.data["cpu"]
    return round(cpu["system_overhead_percent"] + sum(p["cpu_percent"] for p in _procs(env)) / cpu["logical_cores"],
                 1)


def _gib(n: int) -> float:
    return round(n / 1024**3, 2)


@APP.tool()
def get_cpu_usage(env: AppEnv) -> dict[str, Any]:
    """CPU usage: total and per-core percent, core counts, frequency and load averages."""
    cpu = env.tree.data["cpu"]
    total = cpu_percent(env)
    per = [round(min(100.0, total * w), 1) for w in cpu["core_weights"]]
    load1 = round(sum(p["cpu_percent"] for p in _procs(env)) / 100, 2)
    return {"cpu_percent": total, "per_cpu_percent": per, "physical_cores": cpu["physical_cores"],
            "logical_cores": cpu["logical_cores"], "model_name": cpu["model_name"], "vendor": cpu["vendor"],
            "frequency_mhz": {"current": cpu["mhz_current"], "min": cpu["mhz_min"], "max": cpu["mhz_max"]},
            "load_avg": [load1, round(load1 * 0.92, 2), round(load1 * 0.85, 2)]}


@APP.tool()
def get_memory_usage(env: AppEnv) -> dict[str, Any]:
    """Virtual memory and swap usage in bytes (and GiB) with percentages."""
    mem = env.tree.data["memory"]
    used = mem["base_used"] + sum(p["memory_rss"] for p in _procs(env))
    available = mem["total"] - used
    free = available - mem["buffers"] - mem["cached"]
    return {"virtual_memory": {"total": mem["total"], "available": available, "used": used, "free": free,
                               "buffers": mem["buffers"], "cached": mem["cached"],
                               "used_percent": round(used / mem["total"] * 100, 1),
                               "total_gib": _gib(mem["total"]), "used_gib": _gib(used),
                               "available_gib": _gib(available)},
            "swap_memory": {"total": mem["swap_total"], "used": mem["swap_used"],
                            "free": mem["swap_total"] - mem["swap_used"],
                            "used_percent": round(mem["swap_used"] / mem["swap_total"] * 100, 1)}}


def _usage(p: dict[str, Any]) -> dict[str, Any]:
    return {"device": p["device"], "mountpoint": p["mountpoint"], "fstype": p["fstype"], "total": p["total"],
            "used": p["used"], "free": p["free"], "used_percent": round(p["used"] / p["total"] * 100, 1),
            "total_gib": _gib(p["total"]), "free_gib": _gib(p["free"])}


@APP.tool()
def get_disk_usage(
    env: AppEnv,
    path: str | None = Field(None, min_length=1, description="An absolute path; omitted: every mounted partition"),
) -> dict[str, Any]:
    """Disk usage of the partition holding ``path`` (like ``df <path>``), or of every partition."""
    parts = sorted((env.tree.data.get("partitions") or {}).values(), key=lambda p: p["mountpoint"])
    if path is None:
        return {"partitions": [_usage(p) for p in parts]}
    if not path.startswith("/"):
        raise ToolFailure(f"path must be absolute, got '{path}'", kind="range")
    norm = posixpath.normpath(path)
    if norm not in env.tree.data.get("directories", []):
        raise ToolFailure(f"stat {norm}: no such file or directory", kind="not_found")
    part = max((p for p in parts if norm == p["mountpoint"] or norm.startswith(p["mountpoint"].rstrip("/") + "/")),
               key=lambda p: len(p["mountpoint"]))
    return {"path": norm, **_usage(part)}


@APP.tool()
def get_network_stats(
    env: AppEnv,
    interface: str | None = Field(None, min_length=1, description="One interface name, e.g. 'enp3s0'; omitted: all"),
) -> dict[str, Any]:
    """Network interfaces: addresses, state and I/O counters since boot."""
    ifaces = env.tree.data.get("interfaces") or {}
    if interface is not None:
        if interface not in ifaces:
            raise ToolFailure(f"no network interface named '{interface}' (have: {', '.join(ifaces)})",
                              kind="not_found")
        return {"interfaces": [ifaces[interface]]}
    return {"interfaces": list(ifaces.values()),
            "total": {k: sum(i[k] for i in ifaces.values()) for k in ("bytes_sent", "bytes_recv", "packets_sent",
                                                                        "packets_recv")}}


def _row(env: AppEnv, p: dict[str, Any]) -> dict[str, Any]:
    return {"pid": p["pid"], "name": p["name"], "username": p["username"], "status": p["status"],
            "cpu_percent": p["cpu_percent"], "mem_percent": round(p["memory_rss"] / _mem_total(env) * 100, 2),
            "memory_rss": p["memory_rss"]}


@APP.tool()
def get_processes(
    env: AppEnv,
    sort_by: Literal["cpu", "memory", "pid", "name"] = Field("cpu", description="Sort field (default cpu)"),
    limit: int = Field(10, ge=1, le=100, description="How many processes to return (default 10)"),
    pid: int | None = Field(None, ge=1, description="One process ID: its details instead of the list"),
) -> dict[str, Any]:
    """Running processes sorted by CPU or memory (descending), PID or name (ascending); or one process's details."""
    if pid is not None:
        p = env.tree.top("process", str(pid))
        if p is None:
            raise ToolFailure(f"Failed to get process information: process not found (pid={pid})", kind="not_found")
        return {**_row(env, p), "ppid": p["ppid"], "cmdline": p["cmdline"], "create_time": p["create_time"],
                "num_threads": p["num_threads"], "memory": {"rss": p["memory_rss"], "vms": p["memory_vms"]}}
    procs = _procs(env)
    key = {"cpu": lambda p: (-p["cpu_percent"], p["pid"]), "memory": lambda p: (-p["memory_rss"], p["pid"]),
           "pid": lambda p: p["pid"], "name": lambda p: (p["name"], p["pid"])}[sort_by]
    chosen = sorted(procs, key=key)[:limit]
    return {"total_count": len(procs), "returned_count": len(chosen), "sort_by": sort_by,
            "processes": [_row(env, p) for p in chosen]}


@APP.tool()
def get_system_info(env: AppEnv) -> dict[str, Any]:
    """Host information: hostname, OS, kernel, boot time, uptime, users and process count."""
    host = env.tree.data["host"]
    tz = ZoneInfo(host["timezone"])
    boot = datetime.strptime(host["boot_time"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=tz)
    now = env.clock.current().astimezone(tz)
    uptime = max(0, int((now - boot).total_seconds()))
    return {"hostname": host["hostname"], "os": host["os"], "platform": host["platform"],
            "platform_family": host["platform_family"], "platform_version": host["platform_version"],
            "kernel_version": host["kernel_version"], "kernel_arch": host["kernel_arch"],
            "boot_time": host["boot_time"], "uptime_seconds": uptime,
            "uptime": f"{uptime // 86400} days, {uptime % 86400 // 3600:02d}:{uptime % 3600 // 60:02d}",
            "procs": len(_procs(env)), "users": host["users"], "timezone": host["timezone"]}


@APP.tool(mutates=True)
def kill_process(
    env: AppEnv,
    pid: int = Field(ge=1, description="The process ID to terminate"),
    force: bool = Field(False, description="Send SIGKILL instead of SIGTERM"),
) -> dict[str, Any]:
    """Terminate a process by PID (SIGTERM, or SIGKILL with force). Its children are re-parented to PID 1."""
    if pid == 1:
        raise ToolFailure("operation not permitted: refusing to kill PID 1 (systemd, the init process)",
                          kind="permission")
    proc = env.tree.top("process", str(pid))
    if proc is None:
        raise ToolFailure(f"process not found (pid={pid})", kind="not_found")
    me = env.tree.data["host"]["monitor_user"]
    if proc["username"] != me:
        raise ToolFailure(f"access denied (pid={pid}, name={proc['name']}): the process belongs to "
                          f"{proc['username']}, the monitor runs as {me}", kind="permission")
    for child in _procs(env):
        if child["ppid"] == pid:
            env.tree.update(f"processes[{child['id']}]", {"ppid": 1})
    env.tree.delete(f"processes[{proc['id']}]")
    signal = "SIGKILL" if force else "SIGTERM"
    return {"success": True, "pid": pid, "name": proc["name"], "signal": signal,
            "message": f"Process {pid} ({proc['name']}) terminated with {signal}"}
