"""Time: the reference time server (modelcontextprotocol/servers, ``src/time``).

Same two tools and arguments: ``get_current_time {timezone}`` and ``convert_time {source_timezone,
time, target_timezone}`` (``time`` is HH:MM, 24-hour, on today's date in the source zone). Answers use
that server's shape: ``{timezone, datetime, is_dst}`` and ``{source, target, time_difference}``.
"Now" is the task clock, never the wall clock; every zone of the system tz database is accepted.
"""

from mcp_persona.apps.time.tools import APP

__all__ = ["APP"]
