"""Discord: servers, members, roles, channels, messages and reactions, mirroring hanweg/mcp-discord.

The 13 tools of hanweg/mcp-discord keep their names, argument names (ids are *strings*, as in its
input schemas; ``limit`` bounds 1-1000 / 1-100; ``timeout_minutes`` 0-40320) and plain-text
answers (``Message sent successfully. Message ID: ...``, ``Server Members (N):`` lines with role
ids, ``User information:`` with ``Name: username#0``, ``Retrieved N messages:`` newest first with
``Reactions: 👍(2)``...). ``list_servers`` comes from a widely used fork of it.

Kept quirks: snowflake ids whose creation time is read back from the id (``created_at``, message
timestamps); failures are the texts the real server lets through -- discord.py's
``404 Not Found (error code: 10008): Unknown Message``, ``403 Forbidden (error code: 50013): Missing
Permissions``, ``400 Bad Request (error code: 10014): Unknown Emoji`` (``:thumbsup:`` is not an
emoji), Python's ``invalid literal for int() with base 10: 'abc'`` for a non-numeric id, and
``'CategoryChannel' object has no attribute 'send'`` for a category; the Discord rules behind them:
permissions from roles (owner and administrator have all), the role hierarchy (you can only give
roles below your highest one, and only time out members below you), channels that only some roles
may post in, at most 20 distinct reactions, 2000-character messages, community servers' rules and
updates channels cannot be deleted, a deleted category leaves its channels uncategorized.

Invented or changed: the account is the persona's own user (the real server acts as a bot);
``get_server_info`` also lists the channels (by category), the roles and the custom emojis, and
``read_messages`` shows each message's ID -- without them the real tools give no way to find a
channel, role or message id; a text channel name that is not lowercase-with-dashes is rejected
(Discord shows text channel names that way) rather than rewritten; ``add_multiple_reactions`` and
``moderate_message`` check everything first and then apply all of it (the real server could stop
half-way).
"""

from mcp_persona.apps.discord.tools import APP

__all__ = ["APP"]
