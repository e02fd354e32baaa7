"""Cursor pagination shared by apps whose real API pages its lists."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TypeVar

from mcp_persona.apps.base import ToolFailure

T = TypeVar("T")


def encode_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def decode_token(token: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
        kind, _, num = raw.partition(":")
        offset = int(num)
        if kind != "o" or offset < 0:
            raise ValueError(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ToolFailure(f"invalid page_token {token!r}", kind="range") from exc
    return offset


def page(items: Sequence[T], page_size: int, page_token: str | None) -> tuple[list[T], bool, str | None]:
    """One page of ``items``: (items, has_more, next page_token or None)."""
    start = decode_token(page_token) if page_token else 0
    if start > len(items):
        raise ToolFailure(f"page_token {page_token!r} is past the end of the list", kind="range")
    chunk = list(items[start : start + page_size])
    more = start + page_size < len(items)
    return chunk, more, encode_token(start + page_size) if more else None
