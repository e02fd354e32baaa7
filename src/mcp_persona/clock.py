"""The task clock: each task fixes "now" and a time zone; nothing reads the wall clock.

The instruction ("tomorrow at 9"), the simulated tools (timestamps of new entities,
"today's" periodic note) and the ground truth all use the same clock, so relative
dates mean one thing in all three.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, field_validator


class TaskClock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    now: datetime  # local wall time in `timezone`; an explicit offset is converted to it
    timezone: str = "UTC"

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}; use an IANA name such as 'Asia/Shanghai'") from exc
        return value

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def current(self) -> datetime:
        """Aware "now" in the task's zone."""
        if self.now.tzinfo is None:
            return self.now.replace(tzinfo=self.tz)
        return self.now.astimezone(self.tz)

    def timestamp(self) -> int:
        return _timestamp(self.now, self.now.fold, self.timezone)

    def today(self) -> date:
        return self.current().date()

    def at(self, day: date, hour: int, minute: int = 0) -> datetime:
        return datetime(day.year, day.month, day.day, hour, minute, tzinfo=self.tz)

    def next_weekday(self, weekday: int) -> date:
        """The next date (strictly after today) falling on ``weekday`` (Monday = 0)."""
        days = (weekday - self.today().weekday() - 1) % 7 + 1
        return self.today() + timedelta(days=days)

    def describe(self) -> str:
        """What the agent is told about the current time."""
        cur = self.current()
        return f"{cur:%A, %Y-%m-%d %H:%M} ({self.timezone}, UTC{cur:%z})"

    def from_timestamp(self, ts: int | float) -> datetime:
        return datetime.fromtimestamp(ts, tz=self.tz)


@lru_cache(maxsize=1024)  # every write asks (AppEnv.now); a clock is frozen, so its answer never changes
def _timestamp(now: datetime, fold: int, timezone: str) -> int:
    """``int(TaskClock(now=now, timezone=timezone).current().timestamp())``. ``fold`` is part of the key
    because datetime equality ignores it while the local time it picks (at a DST overlap) does not."""
    tz = ZoneInfo(timezone)
    aware = now.replace(tzinfo=tz) if now.tzinfo is None else now.astimezone(tz)
    return int(aware.timestamp())


DEFAULT_CLOCK = TaskClock(now=datetime(2026, 3, 10, 9, 30), timezone="Asia/Shanghai")
