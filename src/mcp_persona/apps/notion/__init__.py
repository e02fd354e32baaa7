"""Notion: pages, databases, blocks, users and comments of a workspace, mirroring suekou/mcp-notion-server.

The real server (v1 tool set, Notion-Version 2022-06-28) is a thin wrapper over the Notion REST API: 18
``notion_*`` tools with the API's own argument names (``block_id``, ``children``, ``after``, ``page_id``,
``properties``, ``database_id``, ``filter``, ``sorts``, ``start_cursor``, ``page_size``, ``rich_text``,
``parent``, ``discussion_id``, ``query``, ``sort``, plus ``format`` everywhere). It answers with the API
object itself as JSON (the real server pretty-prints it with a two-space indent; here it is compact, see
below): pages, databases, blocks, users and comments as Notion objects; lists as ``{"object": "list",
"results": [...], "next_cursor", "has_more", "type", ...}``; failures as Notion error objects
``{"object": "error", "status": 404, "code": "object_not_found", "message": "Could not find page with ID:
..."}`` (400 ``validation_error`` for bad bodies, with Notion's ``body failed validation: body.x should be
defined, instead was `undefined`.`` wording). Two failures come from the MCP server itself, in its own
``{"error": "..."}`` shape: a missing required argument ("Missing required argument: block_id") and a
comment with neither parent nor discussion_id. The upstream server returns every failure as ordinary text;
here failures also set ``isError``.

Kept quirks (real): ids are UUIDs, accepted with or without dashes and answered dashed; a malformed id
fails with "path failed validation: path.page_id should be a valid uuid, instead was ..."; the
pagination cursor is the id of the next item and must be passed back as ``start_cursor`` (page_size at
most 100); values are rich text arrays (``plain_text`` derived, 2000 characters per text object); a
page's content is not in notion_retrieve_page, it is the page's block children; subpages and databases
show up in a page's children as child_page / child_database blocks with the page's / database's id; at
most two levels of nested children and 1000 blocks per append; deleting a block archives it (still
retrievable with ``archived: true``, hidden from children lists, and "Can't edit block that is archived.
You must unarchive the block before editing." until notion_update_block ``{"archived": false}``);
notion_update_block replaces only the fields it is given; every API write is authored by the
integration's bot user (``created_by`` / ``last_edited_by``); select and multi_select options are
created on first use (no commas allowed) while status options must already exist; a property value of
the wrong shape fails with "<Name> is expected to be <type>." and an unknown property with "<Name> is not
a property that exists."; a new database row gets every schema property, status set to the first To-do
option. notion_retrieve_bot_user keeps the dummy ``random_string`` argument (optional here). The server runs
as the real one does with NOTION_MARKDOWN_CONVERSION=true (its documented way to cut token use): every
successful answer is converted to markdown by the upstream converter (``markdown.py``) unless the call
passes ``format: "json"`` (the schema's default is markdown); failures stay JSON. Markdown loses what the
converter drops (block ids, a list of pages' property values, ...), so reading something in order to change
it takes ``json``, as the parameter's description says (shortened from the upstream's wording).

Invented or approximated (the real wording or behaviour is unknown or the upstream server is broken):
answers are compact JSON (no indentation or spaces after separators), since every later request of the
conversation resends them, and leave out what the API fills in by default: in rich text, annotations that
are all false / "default" (only the marks set are kept), a null ``link`` or ``href`` and a text object's
``plain_text`` (its ``text.content``; mentions and equations keep theirs); in objects, a null ``cover``,
``icon``, ``public_url``, ``avatar_url`` or date ``end`` / ``time_zone``, a false ``archived``,
``has_children``, ``is_inline`` or ``is_toggleable``, a "default" block color, an empty description or
caption, and the list's empty ``"<type>": {}``; a to-do's ``checked`` and an unset property value stay;
notion_search answers 10 results per page unless ``page_size`` says otherwise (the API's default is 100,
which would answer a bare search with the whole workspace; every other list keeps 100);
the messages for a page id given where a database is expected and the reverse ("Provided ID ... is a
page, not a database ..."), for a filter on an unknown property ("Could not find property with name or
id: ...") or of the wrong type ("database property status does not match filter select"), for a missing
status option, a bad start_cursor, a block type without children, an ``after`` block that is not a child
and a block update of another type; ``after`` in notion_append_block_children is honoured (upstream
declares it but never sends it); a database query without sorts lists the newest rows first; search
matches every word of the query in titles (case-insensitive) and sorts by last_edited_time, newest
first, unless ``sort`` says otherwise; date filters compare calendar days in the task's time zone for
bare dates, ``past_week`` / ``next_month`` / ... are 7 / 30 / 365-day windows around today and
``this_week`` is Monday to Sunday; select options given in notion_update_database are added to (never
replace) the existing ones; changing a property's type empties it in every row; new status properties get
Notion's default options (Not started, In progress, Done) and their options cannot be set through the
API; a child_page block cannot be renamed through notion_update_block. Supported block types for writing:
paragraph, heading_1-3, bulleted_list_item, numbered_list_item, to_do, toggle, quote, callout, code,
divider; property types: title, rich_text, number, select, multi_select, status, date, checkbox,
people, url, email, phone_number.
"""

from mcp_persona.apps.notion.tools import APP

__all__ = ["APP"]
