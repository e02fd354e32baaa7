"""Benchmark protocols, by name (see :mod:`mcp_persona.protocols.base`).

A new protocol is one package that defines a :class:`Protocol` subclass as ``PROTOCOL``, and one registry
line: in ``_MODULES`` here for a bundled one; for one of your own, an entry point of the
``mcp_persona.protocols`` group in your package's metadata (``toy = "my_package.toy"``) or a call to
:func:`register_protocol`. Nothing else in the platform changes: the CLI's flags, the summary, the console,
the reports and ``compare`` all come from what the protocol declares.
"""

from __future__ import annotations

import importlib
from functools import cache

from mcp_persona.protocols.base import Option, PoolSpec, Protocol
from mcp_persona.run_config import DEFAULT_PROTOCOL
from mcp_persona.tasks import Task, TaskFileError, bundled_suites, read_tasks, suite_info

_MODULES = {"persona": "mcp_persona.protocols.persona", "mcpagentbench": "mcp_persona.protocols.mcpagentbench",
            "livemcpbench": "mcp_persona.protocols.livemcpbench", "livemcp101": "mcp_persona.protocols.livemcp101"}


ENTRY_POINTS = "mcp_persona.protocols"


def _registry() -> dict[str, str]:
    """Bundled protocols, then those installed packages declare as entry points (a bundled name wins)."""
    from importlib.metadata import entry_points

    found = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINTS)}
    return {**found, **_MODULES}


def register_protocol(name: str, module: str) -> None:
    """Make the protocol in ``module`` (its ``PROTOCOL``) available as ``name``, for this process."""
    if name in _MODULES and _MODULES[name] != module:
        raise ValueError(f"protocol {name!r} is already registered (by {_MODULES[name]})")
    _MODULES[name] = module
    get_protocol.cache_clear()


def protocol_module(name: str) -> str:
    """The import path of protocol ``name``'s package (where its own commands and data live)."""
    modules = _registry()
    if name not in modules:
        raise KeyError(f"unknown protocol {name!r} (known: {', '.join(protocol_names())})")
    return modules[name]


def protocol_names() -> list[str]:
    return sorted(_registry())


@cache
def get_protocol(name: str) -> Protocol:
    modules = _registry()
    if name not in modules:
        raise KeyError(f"unknown protocol {name!r} (known: {', '.join(protocol_names())})")
    protocol = getattr(importlib.import_module(modules[name]), "PROTOCOL", None)
    if not isinstance(protocol, Protocol) or protocol.name != name:
        raise TypeError(f"{modules[name]}.PROTOCOL must be the Protocol named {name!r}")
    return protocol


def suite_protocol(source: str) -> Protocol:
    """The protocol a suite's tasks follow: its ``suite.json`` names it (a bundled suite, or the folder of a task
    file); none, the default protocol. TaskFileError for a protocol no module provides."""
    info = suite_info(source)
    name = info.protocol or DEFAULT_PROTOCOL
    if name not in _registry():
        raise TaskFileError(f"{source}: its suite.json names the unknown protocol {name!r} "
                            f"(known: {', '.join(protocol_names())})")
    return get_protocol(name)


def protocol_of(task: Task) -> Protocol:
    """The protocol of the task's bundled suite (a task of no bundled suite: the default protocol)."""
    return suite_protocol(task.suite) if task.suite in bundled_suites() else get_protocol(DEFAULT_PROTOCOL)


def load_suite(source: str) -> tuple[Protocol, list[Task]]:
    """The suite's protocol and its tasks, each read with that protocol's spec and checked against what the
    protocol asks of a task."""
    protocol = suite_protocol(source)
    tasks = read_tasks(source, protocol.spec_model)
    problems = [f"  task {t.id}: {p}" for t in tasks for p in protocol.task_problems(t)]
    if problems:
        more = f"\n  ... and {len(problems) - 8} more" if len(problems) > 8 else ""
        raise TaskFileError(f"{source}: tasks unfit for the {protocol.name} protocol:\n" + "\n".join(problems[:8])
                            + more)
    return protocol, tasks


def load_tasks(source: str) -> list[Task]:
    """The tasks of a suite (bundled, or a task file or folder), read and checked as :func:`load_suite` does."""
    return load_suite(source)[1]


def all_options() -> list[Option]:
    """Every option some protocol declares (the CLI offers them all and checks them per suite)."""
    seen: dict[str, Option] = {}
    for name in protocol_names():
        for opt in get_protocol(name).options:
            seen.setdefault(opt.name, opt)
    return list(seen.values())


__all__ = ["DEFAULT_PROTOCOL", "Option", "PoolSpec", "Protocol", "all_options", "get_protocol", "load_suite",
           "load_tasks", "protocol_module", "protocol_names", "protocol_of", "register_protocol", "suite_protocol"]
