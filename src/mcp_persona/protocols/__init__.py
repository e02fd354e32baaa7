"""Benchmark protocols, by name (see :mod:`mcp_persona.protocols.base`).

A new protocol is a module or package here that defines a :class:`Protocol` subclass and is listed
in ``_MODULES``; nothing else in the platform changes.
"""

from __future__ import annotations

import importlib
from functools import cache

from mcp_persona.protocols.base import Option, PoolSpec, Protocol

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


def all_options() -> list[Option]:
    """Every option some protocol declares (the CLI offers them all and checks them per suite)."""
    seen: dict[str, Option] = {}
    for name in protocol_names():
        for opt in get_protocol(name).options:
            seen.setdefault(opt.name, opt)
    return list(seen.values())


__all__ = ["DEFAULT_PROTOCOL", "Option", "PoolSpec", "Protocol", "all_options", "get_protocol", "protocol_names"]
