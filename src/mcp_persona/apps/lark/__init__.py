"""Lark (Feishu): calendars, contacts and IM, mirroring larksuite/lark-openapi-mcp.

Tool names are the OpenAPI names with dots turned into underscores; arguments are
split into ``path``, ``params`` and ``data`` objects, with an optional ``useUAT``
flag, as in the real server. Responses use Lark's envelope
``{"code": 0, "msg": "success", "data": {...}}``; failures carry Lark's numeric
codes (field validation failures as code 99992402 with ``field_violations``).
Kept quirks: people are addressed by ``open_id`` (``ou_...``) and must be resolved
from phone or email with ``contact_v3_user_batchGetId``; message ``content`` is a
JSON *string*; event lists page with ``page_size`` between 50 and 1000.
"""

from mcp_persona.apps.lark.tools import APP

__all__ = ["APP"]
