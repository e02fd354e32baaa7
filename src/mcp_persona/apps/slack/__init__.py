"""Slack: channels, threads, reactions, people, DMs and reminders of one workspace.

Mirrors the open reference server (modelcontextprotocol/servers, ``src/slack``): the eight
tools ``slack_list_channels {limit, cursor}``, ``slack_post_message {channel_id, text}``,
``slack_reply_to_thread {channel_id, thread_ts, text}``, ``slack_add_reaction {channel_id,
timestamp, reaction}``, ``slack_get_channel_history {channel_id, limit}``,
``slack_get_thread_replies {channel_id, thread_ts}``, ``slack_get_users {cursor, limit}`` and
``slack_get_user_profile {user_id}`` keep their names, arguments and descriptions, and answer
with the raw Slack Web API body (``conversations.list``, ``chat.postMessage``,
``reactions.add``, ``conversations.history``, ``conversations.replies``, ``users.list``,
``users.profile.get``): ``{"ok": true, ...}`` or ``{"ok": false, "error": "channel_not_found"}``
with Slack's error strings (channel_not_found, not_in_channel, is_archived, no_text,
msg_too_long, invalid_thread_ts, thread_not_found, bad_timestamp, message_not_found,
invalid_name, already_reacted, user_not_found, invalid_cursor). Schema violations answer
``invalid_arguments`` with ``response_metadata.messages``, as the Web API does.

Kept quirks: ids are typed (channels ``C...``, DMs ``D...``, group DMs ``G...``, users ``U...``)
and messages are addressed by their ``ts`` string (``"1773106200.000200"``), which must be
carried from a history or search result; ``slack_list_channels`` lists public, unarchived
channels only (as the reference server asks conversations.list for ``public_channel`` with
``exclude_archived``), so private channels are found through search; both list tools page with
``response_metadata.next_cursor`` and clamp ``limit`` to 200; channel history is newest first
and leaves thread replies out (``reply_count`` / ``latest_reply`` show them); reaction names go
without colons, and aliases are stored under Slack's canonical name (``thumbsup`` -> ``+1``);
``users.profile.get`` returns the profile without the user id.

Invented (the paper's hosted Slack server had such tools, its interface is not public):
``slack_create_reminder {text, time, user}`` and ``slack_list_reminders`` (``reminders.add`` /
``reminders.list`` bodies; ``time`` takes a Unix time, seconds from now within 24 hours, or a
small natural-language grammar, else ``cannot_parse``; ``cannot_add_bot`` for bots),
``slack_open_dm {users}`` (``conversations.open``: ``already_open`` for an existing DM,
``user_disabled`` for deactivated users, ``too_many_users`` above 8) and
``slack_search_messages {query, count, page, sort, sort_dir}`` (``search.messages`` with the
in:/from:/before:/after:/on: modifiers). The simulator acts with the user's token: public
channels can be read without joining them, but posting or reacting there answers
``not_in_channel``; private channels and DMs of others do not exist (``channel_not_found``).
"""

from mcp_persona.apps.slack.tools import APP

__all__ = ["APP"]
