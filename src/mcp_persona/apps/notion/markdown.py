"""Notion answers as markdown: suekou/mcp-notion-server's converter (v1, ``src/markdown/index.ts``).

The real server converts an answer when it runs with ``NOTION_MARKDOWN_CONVERSION=true`` (its README: "can
significantly reduce token consumption when viewing content") and the call's ``format`` is not ``"json"``;
this app runs that way. The conversion keeps the upstream's output line for line, including what it loses:
block listings carry no block ids (a child page is only its title), a database's schema no id, a list of
pages only titles, urls and ids; users, comments and anything else become a fenced JSON block. Two
departures: fenced JSON is compact (the upstream indents it; see the app's docstring), and rich text reads
``text.content`` where an answered text object has no ``plain_text`` (answers leave it out). Block types no
workspace holds and the app cannot write (embed, file, pdf, video, synced_block, ...) are not ported: they
read ``*Unsupported block type: <type>*``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_persona.apps.base import compact_json

_PAGE_FOOTER = "\n\n> This page contains child blocks. You can retrieve them using `retrieveBlockChildren`.\n"


def to_markdown(response: Mapping[str, Any]) -> str:
    """One answer (a page, database, block or list; anything else as fenced JSON) as markdown."""
    match response.get("object"):
        case "page":
            return _page(response)
        case "database":
            return _database(response)
        case "block":
            return _block(response)
        case "list":
            return _list(response)
        case _:
            return f"```json\n{compact_json(response)}\n```"


def _page(page: Mapping[str, Any]) -> str:
    out = ""
    title = _page_title(page)
    if title:
        out += f"# {title}\n\n"
    out += _properties(page.get("properties") or {})
    out += _PAGE_FOOTER + f"> Block ID: `{page['id']}`\n"
    if page.get("url"):
        out += f"\n[View in Notion]({page['url']})\n"
    return out


# What the schema table says of each property type (select-like types list their options instead).
_TYPE_DETAILS = {
    "created_by": "User reference", "last_edited_by": "User reference", "created_time": "Timestamp",
    "last_edited_time": "Timestamp", "date": "Date or date range", "email": "Email address",
    "files": "File attachments", "people": "People reference", "phone_number": "Phone number",
    "rich_text": "Formatted text", "title": "Database title", "url": "URL link", "checkbox": "Boolean value",
}


def _database(db: Mapping[str, Any]) -> str:
    out = ""
    title = _rich_text(db.get("title"))
    if title:
        out += f"# {title} (Database)\n\n"
    description = _rich_text(db.get("description"))
    if description:
        out += f"{description}\n\n"
    properties = db.get("properties")
    if properties:
        out += "## Properties\n\n| Property Name | Type | Details |\n|------------|------|------|\n"
        for key, prop in properties.items():
            ptype = prop.get("type") or "unknown"
            config = prop.get(ptype) or {}
            if ptype in ("select", "multi_select", "status"):
                details = "Options: " + ", ".join(o.get("name", "") for o in config.get("options") or [])
            elif ptype == "number":
                details = f"Format: {config.get('format') or 'plain number'}"
            elif ptype == "relation":
                details = f"Related DB: {config.get('database_id') or ''}"
            elif ptype == "formula":
                details = f"Formula: {config.get('expression') or ''}"
            elif ptype == "rollup":
                details = f"Rollup: {config.get('function') or ''}"
            else:
                details = _TYPE_DETAILS.get(ptype, "")
            out += f"| {_cell(prop.get('name') or key)} | {ptype} | {_cell(details)} |\n"
        out += "\n"
    if db.get("url"):
        out += f"\n[View in Notion]({db['url']})\n"
    return out


def _list(listing: Mapping[str, Any]) -> str:
    results = listing.get("results")
    if not isinstance(results, list):
        return "```\nNo results\n```"
    kind = results[0].get("object", "unknown") if results else "unknown"
    out = {"page": "# Search Results (Pages)\n\n", "database": "# Search Results (Databases)\n\n",
           "block": "# Block Contents\n\n"}.get(kind, "# Results List\n\n")
    for item in results:
        match item.get("object"):
            case "page" if kind == "page":
                title = _page_title(item) or "Untitled"
                out += f"## [{title}]({item.get('url') or '#'})\n\nID: `{item['id']}`\n\n---\n\n"
            case "page":
                out += _page(item) + "\n\n---\n\n"
            case "database" if kind == "database":
                title = _rich_text(item.get("title")) or "Untitled Database"
                out += f"## [{title}]({item.get('url') or '#'})\n\nID: `{item['id']}`\n\n---\n\n"
            case "database":
                out += _database(item) + "\n\n---\n\n"
            case "block":
                out += _block(item) + "\n\n"
            case _:
                out += f"```json\n{compact_json(item)}\n```\n\n"
    if listing.get("has_more"):
        out += "\n> More results available. Use `start_cursor` parameter with the next request.\n"
        if listing.get("next_cursor"):
            out += f"> Next cursor: `{listing['next_cursor']}`\n"
    return out


def _page_title(page: Mapping[str, Any]) -> str:
    for prop in (page.get("properties") or {}).values():
        if prop.get("type") == "title" and isinstance(prop.get("title"), list):
            return _rich_text(prop["title"])
    return ""


def _properties(properties: Mapping[str, Any]) -> str:
    if not properties:
        return ""
    out = "## Properties\n\n| Property | Value |\n|------------|----|\n"
    for name, prop in properties.items():
        out += f"| {_cell(name)} | {_cell(_property_value(prop))} |\n"
    return out


def _property_value(prop: Mapping[str, Any]) -> str:
    ptype = prop.get("type")
    value = prop.get(ptype) if isinstance(ptype, str) else None
    match ptype:
        case "title" | "rich_text":
            return _rich_text(value)
        case "number":
            return "" if value is None else _js_number(value)
        case "select" | "status":
            return (value or {}).get("name") or ""
        case "multi_select":
            return ", ".join(o.get("name", "") for o in value or [])
        case "date":
            value = value or {}
            return (value.get("start") or "") + (f" → {value['end']}" if value.get("end") else "")
        case "people":
            return ", ".join(p.get("name") or p.get("id") or "" for p in value or [])
        case "files":
            return ", ".join(f"[{f.get('name') or 'Attachment'}]({_file_url(f)})" for f in value or [])
        case "checkbox":
            return "✓" if value else "✗"
        case "url" | "email" | "phone_number" | "created_time" | "last_edited_time":
            return value or ""
        case "created_by" | "last_edited_by":
            return (value or {}).get("name") or (value or {}).get("id") or ""
        case "relation":
            return ", ".join(f"`{r.get('id')}`" for r in value or [])
        case _:
            return "(Unsupported property type)"


def _js_number(value: float) -> str:
    """A number as JavaScript's ``toString`` writes it (``3``, not ``3.0``)."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _file_url(file: Mapping[str, Any]) -> str:
    return (file.get("file") or {}).get("url") or (file.get("external") or {}).get("url") or "#"


def _rich_text(items: Sequence[Mapping[str, Any]] | None) -> str:
    out = ""
    for item in items or []:
        text = item.get("plain_text")
        if text is None:
            text = (item.get("text") or {}).get("content", "")
        marks = item.get("annotations") or {}
        if marks.get("code"):
            text = f"`{text}`"
        if marks.get("bold"):
            text = f"**{text}**"
        if marks.get("italic"):
            text = f"*{text}*"
        if marks.get("strikethrough"):
            text = f"~~{text}~~"
        href = item.get("href") or ((item.get("text") or {}).get("link") or {}).get("url")
        if href:
            text = f"[{text}]({href})"
        out += text
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("+", "\\+") if text else ""


def _block(block: Mapping[str, Any]) -> str:
    btype = block.get("type")
    if not btype:
        return ""
    content = block.get(btype)
    if content is None and btype != "divider":
        return ""
    content = content or {}
    text = _rich_text(content.get("rich_text"))
    match btype:
        case "paragraph":
            return text
        case "heading_1":
            return f"# {text}"
        case "heading_2":
            return f"## {text}"
        case "heading_3":
            return f"### {text}"
        case "bulleted_list_item":
            return f"- {text}"
        case "numbered_list_item":
            return f"1. {text}"
        case "to_do":
            return f"- [{'x' if content.get('checked') else ' '}] {text}"
        case "toggle":
            return (f"<details>\n<summary>{text}</summary>\n\n*Additional API request is needed to display child "
                    "blocks*\n\n</details>")
        case "child_page":
            return f"📄 **Child Page**: {content.get('title') or 'Untitled'}"
        case "child_database":
            return f"📊 **Embedded Database**: `{block.get('id')}`"
        case "image":
            return f"![{_rich_text(content.get('caption')) or 'image'}]({_file_url(content)})"
        case "divider":
            return "---"
        case "quote":
            return f"> {text}"
        case "code":
            return f"```{content.get('language') or 'plaintext'}\n{text}\n```"
        case "callout":
            return f"> {(content.get('icon') or {}).get('emoji') or ''} {text}"
        case "bookmark":
            url = content.get("url") or ""
            return f"[{_rich_text(content.get('caption')) or url}]({url})"
        case "table":
            return (f"*Table data ({content.get('table_width') or 0} columns) - Additional API request is needed to "
                    "display details*")
        case "equation":
            return f"$${content.get('expression') or ''}$$"
        case "link_to_page":
            target = content.get("page_id") or content.get("database_id") or ""
            label = "Link to database" if not content.get("page_id") and content.get("database_id") else "Link to page"
            return f"🔗 **{label}**: `{target}`"
        case "table_of_contents":
            return "[TOC]"
        case _:
            return f"*Unsupported block type: {btype}*"
