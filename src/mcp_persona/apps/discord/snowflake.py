"""Discord snowflakes: 64-bit ids whose top 42 bits are milliseconds since the Discord epoch."""

from __future__ import annotations

from datetime import UTC, datetime

DISCORD_EPOCH_MS = 1420070400000  # 2015-01-01T00:00:00Z


def make(ms: int, low: int) -> str:
    """The snowflake of a thing created at unix ``ms`` (``low``: the 22 worker/process/increment bits)."""
    return str(((ms - DISCORD_EPOCH_MS) << 22) | (low & 0x3FFFFF))


def created_at(snowflake: str) -> datetime:
    return datetime.fromtimestamp(((int(snowflake) >> 22) + DISCORD_EPOCH_MS) / 1000, tz=UTC)


def iso(snowflake: str) -> str:
    """``created_at`` as discord.py prints it (``datetime.isoformat()``: microseconds only when non-zero)."""
    return created_at(snowflake).isoformat()
