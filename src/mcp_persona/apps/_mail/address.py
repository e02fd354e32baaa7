"""Email addresses: validation, parsing of ``Name <addr>`` forms, and header formatting.

An address is kept as ``{"name": str, "address": str}`` (the name may be empty);
addresses compare case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

# Close enough to RFC 5321 for a simulator: a dot-atom local part, a dotted domain with a letter TLD.
_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}"
_ADDR = re.compile(rf"{_LOCAL}@{_DOMAIN}")
_NAMED = re.compile(r'^\s*(?:"(?P<q>(?:[^"\\]|\\.)*)"|(?P<n>[^<>"]*?))\s*<(?P<a>[^<>]*)>\s*$')
_SPECIALS = set('()<>[]:;@\\,."')


class AddressError(ValueError):
    """An address that is not a valid email address; ``address`` is the offending text."""

    def __init__(self, address: str) -> None:
        super().__init__(f"invalid email address: {address!r}")
        self.address = address


def is_valid(address: str) -> bool:
    return len(address) <= 254 and _ADDR.fullmatch(address) is not None


def parse_address(text: str) -> dict[str, str]:
    """``"Song Ke <songke@163.com>"``, ``"<a@b.cn>"`` or ``"a@b.cn"`` -> {name, address}."""
    raw = text.strip()
    m = _NAMED.match(raw)
    if m:
        name = m.group("q") if m.group("q") is not None else (m.group("n") or "")
        name = name.replace('\\"', '"').strip()
        address = m.group("a").strip()
    else:
        name, address = "", raw
    if not is_valid(address):
        raise AddressError(text)
    return {"name": name, "address": address}


def parse_recipients(values: Sequence[str] | None) -> list[dict[str, str]]:
    """Every address of a recipient list, in order, without duplicates (case-insensitive)."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for value in values or []:
        parsed = parse_address(value)
        key = parsed["address"].lower()
        if key not in seen:
            seen.add(key)
            out.append(parsed)
    return out


def same_address(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def format_address(addr: dict[str, Any]) -> str:
    """An address as a header value: ``Name <addr>`` (the name quoted when it needs it) or ``addr``."""
    name, address = addr.get("name") or "", addr["address"]
    if not name:
        return address
    if any(ch in _SPECIALS for ch in name):
        name = '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{name} <{address}>"


def format_addresses(addrs: Iterable[dict[str, Any]]) -> str:
    return ", ".join(format_address(a) for a in addrs)


def address_text(addr: dict[str, Any]) -> str:
    """What an address search matches: its name and its address, lowercased."""
    return f"{addr.get('name') or ''} <{addr['address']}>".lower()
