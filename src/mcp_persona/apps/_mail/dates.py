"""Dates of mail: RFC 5322 header dates and the calendar days that search operators name."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def rfc5322(ts: int | float, tz: ZoneInfo | str) -> str:
    """``Tue, 10 Mar 2026 09:30:00 +0800``: unix seconds in ``tz``, locale-independent."""
    zone = tz if isinstance(tz, ZoneInfo) else ZoneInfo(tz)
    dt = datetime.fromtimestamp(ts, tz=zone)
    return (f"{_DAYS[dt.weekday()]}, {dt.day:02d} {_MONTHS[dt.month - 1]} {dt.year} "
            f"{dt:%H:%M:%S} {dt:%z}")


def day_start(day: date, tz: ZoneInfo) -> int:
    """Unix seconds of midnight starting ``day`` in ``tz``."""
    return int(datetime(day.year, day.month, day.day, tzinfo=tz).timestamp())
