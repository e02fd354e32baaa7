"""The time tools over the task clock."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from pydantic import Field

from mcp_persona.apps._live import JsonApp, fail
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "time",
    title="Time",
    category="utility",
    personalized=False,
    description="The current time in a time zone, and converting a time between zones.",
    real_server="modelcontextprotocol/servers time",
)
Zone = Field(min_length=1, max_length=64,
             description="IANA time zone name (Area/City), e.g. 'Europe/London' or 'Asia/Tokyo'")


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _zone(env: AppEnv, name: str) -> ZoneInfo:
    if name not in _zones():
        raise ToolFailure(f"Invalid timezone: {name} (use an IANA name such as Asia/Tokyo)", kind="not_found")
    return ZoneInfo(name)


def _stamp(name: str, when: datetime) -> dict[str, Any]:
    return {"timezone": name, "datetime": when.isoformat(timespec="seconds"), "day_of_week": when.strftime("%A"),
            "is_dst": bool(when.dst())}


@APP.tool()
def get_current_time(env: AppEnv, timezone: str = Zone) -> dict[str, Any]:
    """The current time in a time zone."""
    return _stamp(timezone, env.clock.current().astimezone(_zone(env, timezone)))


@APP.tool()
def convert_time(env: AppEnv, source_timezone: str = Zone,
                 time: str = Field(min_length=1, description="Time in 24-hour format HH:MM"),
                 target_timezone: str = Zone) -> dict[str, Any]:
    """Convert a time (today, in the source zone) to the target zone."""
    m = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", time.strip())
    if not m:
        raise fail(f"Invalid time format '{time}'. Expected HH:MM [24-hour format]")
    src, dst = _zone(env, source_timezone), _zone(env, target_timezone)
    day = env.clock.current().astimezone(src).date()
    when = datetime(day.year, day.month, day.day, int(m.group(1)), int(m.group(2)), tzinfo=src)
    there = when.astimezone(dst)
    offset = (there.utcoffset() or timedelta()) - (when.utcoffset() or timedelta())
    hours = offset.total_seconds() / 3600
    text = f"{hours:+.1f}h" if not hours.is_integer() else f"{int(hours):+d}.0h"
    return {"source": _stamp(source_timezone, when), "target": _stamp(target_timezone, there), "time_difference": text}
