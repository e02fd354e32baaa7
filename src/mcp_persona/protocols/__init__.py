"""Benchmark protocols, by name (see :mod:`mcp_persona.protocols.base`).

A new protocol is a module or package here that defines a :class:`Protocol` subclass and is listed
in ``_MODULES``; nothing else in the platform changes.
"""

from __future__ import annotations

import importlib
from functools import cache

from mcp_persona.protocols.base import Option, PoolSpec, Protocol
from mcp_persona.tasks import Task, TaskFileError, bundled_suites, load_tasks, suite_info

DEFAULT_PROTOCOL = "persona"
_MODULES = {"persona": "mcp_persona.protocols.persona", "mcpagentbench": "mcp_persona.protocols.mcpagentbench",
            "livemcpbench": "mcp_persona.protocols.livemcpbench", "livemcp101": "mcp_persona.protocols.livemcp101"}


def protocol_names() -> list[str]:
    return sorted(_MODULES)


@cache
def get_protocol(name: str) -> Protocol:
    if name not in _MODULES:
        raise KeyError(f"unknown protocol {name!r} (known: {', '.join(protocol_names())})")
    protocol = importlib.import_module(_MODULES[name]).PROTOCOL
    if not isinstance(protocol, Protocol) or protocol.name != name:
        raise TypeError(f"{_MODULES[name]}.PROTOCOL must be the Protocol named {name!r}")
    return protocol


def suite_protocol(source: str) -> Protocol:
    """The protocol a suite's tasks follow: its ``suite.json`` names it (a bundled suite, or the folder of a task
    file); none, the default protocol. TaskFileError for a protocol no module provides."""
    info = suite_info(source)
    name = info.protocol or DEFAULT_PROTOCOL
    if name not in _MODULES:
        raise TaskFileError(f"{source}: its suite.json names the unknown protocol {name!r} "
                            f"(known: {', '.join(protocol_names())})")
    return get_protocol(name)


def protocol_of(task: Task) -> Protocol:
    """The protocol of the task's bundled suite (a task of no bundled suite: the default protocol)."""
    return suite_protocol(task.suite) if task.suite in bundled_suites() else get_protocol(DEFAULT_PROTOCOL)


def load_suite(source: str) -> tuple[Protocol, list[Task]]:
    """The suite's protocol and its tasks, each checked against what that protocol asks of a task."""
    protocol = suite_protocol(source)
    tasks = load_tasks(source)
    problems = [f"  task {t.id}: {p}" for t in tasks for p in protocol.task_problems(t)]
    if problems:
        more = f"\n  ... and {len(problems) - 8} more" if len(problems) > 8 else ""
        raise TaskFileError(f"{source}: tasks unfit for the {protocol.name} protocol:\n" + "\n".join(problems[:8])
                            + more)
    return protocol, tasks


def all_options() -> list[Option]:
    """Every option some protocol declares (the CLI offers them all and checks them per suite)."""
    seen: dict[str, Option] = {}
    for name in protocol_names():
        for opt in get_protocol(name).options:
            seen.setdefault(opt.name, opt)
    return list(seen.values())


__all__ = ["DEFAULT_PROTOCOL", "Option", "PoolSpec", "Protocol", "all_options", "get_protocol", "load_suite",
           "protocol_names", "protocol_of", "suite_protocol"]
