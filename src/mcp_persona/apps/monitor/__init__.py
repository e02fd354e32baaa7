"""System Monitor: one machine's metrics and processes, after seekrays/mcp-monitor (interface adapted).

seekrays/mcp-monitor (gopsutil) exposes get_cpu_info, get_memory_info, get_disk_info, get_network_info,
get_host_info and get_process_info {pid?, limit?, sort_by?}; this simulator names them as the benchmark
asks — ``get_cpu_usage``, ``get_memory_usage``, ``get_disk_usage {path?}``, ``get_network_stats
{interface?}``, ``get_processes {sort_by?, limit?, pid?}``, ``get_system_info`` — with the same gopsutil
field names and upstream's process listing (``total_count``, ``returned_count``, ``sort_by``,
``processes``; sort by cpu or memory descending, pid or name ascending; default limit 10; a ``pid``
gives one process's details), and adds ``kill_process {pid, force?}`` (invented, the one write).
Results are compact JSON (upstream indents it); failures are plain text ``Error: ...`` (upstream uses MCP
error results with plain text such as ``Failed to get process information: ...``).

The machine is a fixed, realistic snapshot (orbit-build-02, Ubuntu 22.04, 16 logical cores, 64 GiB, an
NVMe root disk and a nearly full /data disk, a training job and an ffmpeg encode hogging the CPU, an
Elasticsearch JVM holding 6 GiB, a zombie backup script). Nothing reads the real machine or the wall
clock: uptime is the task clock minus the boot time; total CPU percent and used memory are computed from
the processes (overhead + sum of cpu_percent / logical cores; base + sum of RSS), so a kill shows up in
them. ``kill_process`` refuses PID 1 and processes of other users (the monitor runs as ``deploy``, like
psutil's AccessDenied), fails on unknown PIDs, and re-parents the victim's children to PID 1 as Linux
does. ``get_disk_usage`` knows the machine's directories and answers for the partition holding the
path, like ``df``.
"""

from mcp_persona.apps.monitor.tools import APP

__all__ = ["APP"]
