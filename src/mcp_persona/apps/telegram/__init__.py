"""Telegram: a user account's chats, contacts and messages -- an *invented* interface.

No open interface of the hosted Telegram server the paper used is known, so this one is
designed in the style of the Telegram MCP servers (MTProto user-account servers such as
chigwell/telegram-mcp, Bot-API bridges): tool names ``get_chats``, ``get_chat``,
``get_messages``, ``send_message``, ``search_messages``, ``get_contacts``,
``forward_message``, ``pin_message``, ``mark_as_read``, ``edit_message``.

Kept from the real Telegram:

* the Bot API envelope ``{"ok": true, "result": ...}`` and its errors
  ``{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}``, with
  the Bot API's own descriptions (``message to forward not found``, ``message is too long``,
  ``need administrator rights in the channel chat``, ``message is not modified: ...``,
  ``Forbidden: user is deactivated``...);
* Bot API object shapes (Message with ``from`` / ``sender_chat``, ``chat``, ``date`` in unix
  seconds, ``reply_to_message``, ``forward_origin``, ``edit_date``; Chat; Contact);
* integer chat ids: negative for groups (``-100...`` for supergroups and channels), a private
  chat's id is the peer's user id; tools accept an integer, a numeric string or an
  ``@username``;
* per-chat message ids counting up, and MTProto history paging: ``get_messages`` returns newest
  first, ``offset_id`` returns only messages older than that id;
* channels accept posts only from their admins; protected chats refuse forwarding; only your
  own messages can be edited; a private chat is opened by sending to a known user's id;
* phone numbers are digits without ``+``, as in Telegram's Contact objects.

Invented: the dialog list shape of ``get_chats`` (chat + ``unread_count`` + ``last_message``),
``member_count`` inside ``get_chat``, and word-based ``search_messages`` (strict like Telegram's
own search: a word matches text that contains it, so "bug" finds "bugs" but "bugs" does not find
"bug"). ``mark_as_read`` is a read side effect: its fields are declared in the hierarchy's
``ignore_changes``.
"""

from mcp_persona.apps.telegram.tools import APP

__all__ = ["APP"]
