"""Mailbox logic shared by the email apps (``email163``, ``gmail``); not an app itself.

Nothing here knows an app's hierarchy. An app stores its messages in its own shape
and hands this layer plain values: addresses to validate and format
(:mod:`.address`), unix seconds to render as RFC 5322 dates (:mod:`.dates`), a
neutral :class:`~.message.Mail` view of each message for snippets, threads and
attachment metadata (:mod:`.message`), and Gmail-style search queries to parse and
match against those views (:mod:`.search`). :mod:`.gen` holds the context-generation
helpers both apps' generators use.
"""

from mcp_persona.apps._mail.address import (
    AddressError,
    format_address,
    format_addresses,
    parse_address,
    parse_recipients,
    same_address,
)
from mcp_persona.apps._mail.dates import rfc5322
from mcp_persona.apps._mail.message import (
    Mail,
    attachment_meta,
    normalize_subject,
    reply_subject,
    snippet,
    thread_of,
)
from mcp_persona.apps._mail.search import Query, QueryError, parse_query

__all__ = [
    "AddressError",
    "Mail",
    "Query",
    "QueryError",
    "attachment_meta",
    "format_address",
    "format_addresses",
    "normalize_subject",
    "parse_address",
    "parse_query",
    "parse_recipients",
    "reply_subject",
    "rfc5322",
    "same_address",
    "snippet",
    "thread_of",
]
