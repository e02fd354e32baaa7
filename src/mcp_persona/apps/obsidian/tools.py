"""The Obsidian tools over the Obsidian vault Context-Tree (see ``data/hierarchies/obsidian.json``).

A note is stored as its full text plus ``tags`` (derived from the text on every write),
``ctime`` and ``mtime`` (unix milliseconds, like Obsidian's file stats). Folders exist
only as prefixes of note paths, so an empty folder cannot exist, as in Obsidian.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._normalize import StrictNote, fold
from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json, unicode_json
from mcp_persona.context_tree import Segment

# Error codes of the Obsidian Local REST API (errorCode = HTTP status * 100 + detail) and their
# canned messages; the real server reports them as "Error <code>: <message>".
NOT_FOUND = 40400
INVALID_FRONTMATTER = 40005
PATH_TRAVERSAL = 40021
PERIOD_NOT_ENABLED = 40060
INVALID_FILTER_QUERY = 40070
PATCH_FAILED = 40080
PERIODIC_NOTE_MISSING = 40461
FILES_ONLY = 40510
FILE_OPERATION_FAILED = 50020

_CANNED = {
    NOT_FOUND: "Not Found",
    INVALID_FRONTMATTER: "Document frontmatter could not be parsed.",
    PATH_TRAVERSAL: "Path traversal is not allowed. Paths must be relative and within the vault.",
    PERIOD_NOT_ENABLED: "Specified period is not enabled.",
    INVALID_FILTER_QUERY: "The query you provided could not be processed.",
    PATCH_FAILED: "The patch you provided could not be applied to the target content.",
    PERIODIC_NOTE_MISSING: "Periodic note does not exist for the specified period.",
    FILES_ONLY: "Request method is valid only for file paths, not directories.",
    FILE_OPERATION_FAILED: "File operation failed. Check the error message for details.",
}

# Tools whose text result is sent as it is; every other result is compact JSON, where the real server
# indents it (the note text of obsidian_get_file_contents arrives as a JSON string, as in the real server).
_PLAIN_TEXT = {
    "obsidian_batch_get_file_contents",
    "obsidian_get_periodic_note",
    "obsidian_append_content",
    "obsidian_patch_content",
    "obsidian_put_content",
    "obsidian_delete_file",
}


class ObsidianApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        if isinstance(result, str) and tool in _PLAIN_TEXT:
            return result
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        text = failure.message if failure.code is None else f"Error {failure.code}: {failure.message}"
        return f"Caught Exception. Error: {text}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        return "Input validation error: " + "; ".join(f"{v.field}: {v.message}" for v in violations)


APP = ObsidianApp(
    "obsidian",
    title="Obsidian",
    category="content",
    description="The notes of the user's Obsidian vault, through the Obsidian Local REST API.",
    real_server="MarkusPfundstein/mcp-obsidian",
    strict=[StrictNote("obsidian_simple_search", "query", ("plural", "phrase"),
                       "Obsidian's simple search (the REST API's /search/simple/) finds each word as written, "
                       "case aside: 'dates' does not find 'date'")],
)


def _rest_error(code: int, detail: str, kind: Any) -> ToolFailure:
    """A failure worded like the Local REST API: its canned message, then the detail on a new line."""
    return ToolFailure(f"{_CANNED[code]}\n{detail}", kind=kind, code=code)


# -- argument types ----------------------------------------------------------------------------------
# Constraints and descriptions go in ``= Field(...)`` defaults: the app base reads the type hints
# without their Annotated metadata, so Annotated[..., Field(...)] would silently lose them.
Period = Literal["daily", "weekly", "monthly", "quarterly", "yearly"]
_FILEPATH_DOC = "Path to the file, relative to the vault root, e.g. 'Projects/Spring campaign.md'."
_PERIOD_DOC = "The period type: daily, weekly, monthly, quarterly or yearly."


def _filepath() -> Any:
    return Field(min_length=1, description=_FILEPATH_DOC)


# -- vault paths -------------------------------------------------------------------------------------
_BAD_NAME_CHARS = set('*"\\<>:|?')


def _normalize(raw: str) -> tuple[str, bool]:
    """The vault-relative path of ``raw`` and whether it names a directory (a trailing '/').

    '..' segments are refused as traversal; '.' and empty segments are dropped.
    """
    if any(seg == ".." for seg in re.split(r"[/\\]", raw)):
        raise _rest_error(PATH_TRAVERSAL, f"'{raw}' points outside the vault", "conflict")
    parts = [seg for seg in raw.split("/") if seg not in ("", ".")]
    return "/".join(parts), raw.rstrip().endswith("/")


def _notes(env: AppEnv) -> dict[str, dict[str, Any]]:
    return env.tree.data.get("notes") or {}


def _is_folder(env: AppEnv, path: str) -> bool:
    prefix = path + "/" if path else ""
    return any(p.startswith(prefix) for p in _notes(env))


def _existing(env: AppEnv, raw: str) -> dict[str, Any]:
    """The note a file argument names; a folder, a missing file or a path outside the vault fail."""
    path, dir_form = _normalize(raw)
    if not path or dir_form or (path not in _notes(env) and _is_folder(env, path)):
        raise _rest_error(FILES_ONLY, f"'{raw}' is a directory, not a file", "conflict")
    note = env.tree.top("note", path)
    if note is None:
        raise _rest_error(NOT_FOUND, f"File does not exist: {path}", "not_found")
    return note


def _writable(env: AppEnv, raw: str) -> str:
    """The normalized path a write may create or overwrite."""
    path, dir_form = _normalize(raw)
    if not path or dir_form or (path not in _notes(env) and _is_folder(env, path)):
        raise _rest_error(FILES_ONLY, f"'{raw}' is a directory, not a file", "conflict")
    parts = path.split("/")
    bad = sorted({ch for ch in parts[-1] if ch in _BAD_NAME_CHARS})
    if bad:
        raise _rest_error(
            FILE_OPERATION_FAILED,
            f"File name cannot contain any of the following characters: * \" \\ / < > : | ? (found {' '.join(bad)})",
            "range",
        )
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent in _notes(env):
            raise _rest_error(FILE_OPERATION_FAILED, f"'{parent}' is a file, so it cannot contain '{path}'", "conflict")
    return path


def _note_path(path: str) -> str:
    return str(Segment("notes", path))


def _save(env: AppEnv, path: str, content: str) -> dict[str, Any]:
    """Create or overwrite a note; tags are re-derived and mtime set from the task clock."""
    ms = env.now() * 1000
    fields = {"content": content, "tags": note_tags(content), "mtime": ms}
    if env.tree.top("note", path) is None:
        return env.tree.create("notes", {"path": path, "ctime": ms, **fields})
    return env.tree.update(_note_path(path), fields)


def _is_markdown(path: str) -> bool:
    return path.lower().endswith(".md")


def _markdown_notes(env: AppEnv) -> list[dict[str, Any]]:
    return [n for p, n in sorted(_notes(env).items()) if _is_markdown(p)]


# -- markdown: frontmatter, tags, headings, blocks ----------------------------------------------------
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})[ \t]+(.+?)[ \t]*$")
_INLINE_TAG = re.compile(r"(?<![^\s(])#([\w/-]+)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def split_frontmatter(content: str) -> tuple[str | None, int]:
    """The YAML text between the opening and closing '---' lines, and where the body starts."""
    if not (content.startswith("---\n") or content.startswith("---\r\n")):
        return None, 0
    first = content.index("\n") + 1
    pos = first
    while pos < len(content):
        end = content.find("\n", pos)
        line_end = len(content) if end < 0 else end
        if content[pos:line_end].rstrip("\r") == "---":
            return content[first:pos], (len(content) if end < 0 else end + 1)
        if end < 0:
            break
        pos = end + 1
    return None, 0


def frontmatter_of(content: str) -> dict[str, Any]:
    """The parsed frontmatter ({} without one); ValueError when it is not valid YAML of the supported kind."""
    text, _ = split_frontmatter(content)
    return {} if text is None else parse_yaml(text)


def note_tags(content: str) -> list[str]:
    """Tags as the Local REST API reports them: a frontmatter ``tags`` list, then inline #tags; no '#'."""
    try:
        fm = frontmatter_of(content)
    except ValueError:
        fm = {}
    found = [str(t) for t in fm.get("tags", []) if t] if isinstance(fm.get("tags"), list) else []
    _, body_start = split_frontmatter(content)
    in_fence = False
    for line in content[body_start:].split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in _INLINE_TAG.finditer(_INLINE_CODE.sub("", line)):
            if not m.group(1).isdigit():
                found.append(m.group(1))
    out: list[str] = []
    for tag in (t.lstrip("#") for t in found):
        if tag and tag not in out:
            out.append(tag)
    return out


def _lines(content: str) -> list[tuple[int, str]]:
    """(offset, text without the newline) of every line."""
    out, pos = [], 0
    for line in content.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def heading_sections(content: str) -> list[tuple[str, int, int]]:
    """Every heading as (path joined with '::', start of its section, end of its section).

    A section runs from the line after the heading to the next heading of the same or a
    higher level (so it includes its sub-headings); headings in code fences are ignored.
    """
    lines = _lines(content)
    _, body_start = split_frontmatter(content)
    found: list[tuple[int, str, int, int]] = []  # level, text, line start, content start
    in_fence = False
    for offset, line in lines:
        if offset < body_start:
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        m = None if in_fence else _HEADING.match(line)
        if m:
            text = re.sub(r"[ \t]+#+$", "", m.group(2)).strip()
            found.append((len(m.group(1)), text, offset, min(offset + len(line) + 1, len(content))))
    out: list[tuple[str, int, int]] = []
    stack: list[tuple[int, str]] = []
    for i, (level, text, _, start) in enumerate(found):
        end = next((f[2] for f in found[i + 1:] if f[0] <= level), len(content))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        out.append(("::".join(t for _, t in stack), start, end))
    return out


_BLOCK_REF = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9_-]+)[ \t]*$")
_ITEM_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?)?")


def block_region(content: str, block_id: str) -> tuple[int, int] | None:
    """The text a ``^block-id`` marks, as (start, end) offsets, without the marker itself."""
    lines = _lines(content)
    for i, (offset, line) in enumerate(lines):
        m = _BLOCK_REF.search(line)
        if not m or m.group(1) != block_id:
            continue
        if not line[: m.start()].strip():  # a marker on its own line names the block above it
            j = i - 1
            while j >= 0 and not lines[j][1].strip():
                j -= 1
            if j < 0:
                return None
            k = j
            while k > 0 and lines[k - 1][1].strip():
                k -= 1
            return lines[k][0], lines[j][0] + len(lines[j][1])
        end = offset + len(line[: m.start()].rstrip())
        if _ITEM_PREFIX.match(line).group(0).strip():  # a list item or quote line: its own text
            return offset + _ITEM_PREFIX.match(line).end(), end
        k = i
        while k > 0 and lines[k - 1][1].strip() and not _HEADING.match(lines[k - 1][1]):
            k -= 1
        return lines[k][0], end
    return None


# -- a small YAML subset (what note frontmatter uses): scalars, lists, one-level maps -----------------
_INT = re.compile(r"^[-+]?\d+$")
_FLOAT = re.compile(r"^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$")


def parse_yaml(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        if line[0] in " \t":
            raise ValueError(f"unexpected indentation on line {i + 1}")
        key, sep, rest = _split_key(line)
        if not sep:
            raise ValueError(f"line {i + 1} is not 'key: value': {line!r}")
        i += 1
        if _strip_comment(rest).strip():
            out[key] = _flow(_strip_comment(rest).strip())
            continue
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t-"):
            if lines[i].strip() and not lines[i].lstrip().startswith("#"):
                block.append(lines[i].strip())
            i += 1
        out[key] = _block(block)
    return out


def _split_key(line: str) -> tuple[str, str, str]:
    if line[:1] in "\"'":
        q = line[0]
        end = line.find(q, 1)
        if end > 0 and line[end + 1:end + 2] == ":":
            return line[1:end], ":", line[end + 2:]
    m = re.match(r"^([^:#]+?)\s*:(?:\s|$)", line)
    if not m:
        return line, "", ""
    return m.group(1).strip(), ":", line[m.end():]


def _strip_comment(text: str) -> str:
    quote = None
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'" and (i == 0 or text[i - 1] in " [{,"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i]
    return text


def _block(lines: list[str]) -> Any:
    if not lines:
        return None
    if all(ln == "-" or ln.startswith("- ") for ln in lines):
        return [_flow(ln[1:].strip()) for ln in lines]
    out: dict[str, Any] = {}
    for ln in lines:
        key, sep, rest = _split_key(ln)
        if not sep:
            raise ValueError(f"cannot read the nested value {ln!r}")
        out[key] = _flow(_strip_comment(rest).strip())
    return out


def _flow(text: str) -> Any:
    if text.startswith("[") and text.endswith("]"):
        return [_flow(p) for p in _split_items(text[1:-1])]
    if text.startswith("{") and text.endswith("}"):
        out = {}
        for item in _split_items(text[1:-1]):
            key, sep, rest = _split_key(item)
            if not sep:
                raise ValueError(f"cannot read the map item {item!r}")
            out[key] = _flow(rest.strip())
        return out
    return _scalar(text)


def _split_items(text: str) -> list[str]:
    items, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        items.append(cur.strip())
    return items


def _scalar(text: str) -> Any:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"bad quoted string {text}") from exc
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    low = text.lower()
    if low in ("", "~", "null"):
        return None
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def dump_yaml(data: dict[str, Any]) -> str:
    lines: list[str] = []
    for key, value in data.items():
        name = _yaml_scalar(str(key))
        if isinstance(value, list) and value:
            lines.append(f"{name}:")
            lines += [f"  - {_yaml_scalar(v)}" for v in value]
        elif isinstance(value, dict) and value:
            lines.append(f"{name}:")
            lines += [f"  {_yaml_scalar(str(k))}: {_yaml_scalar(v)}" for k, v in value.items()]
        else:
            lines.append(f"{name}: {_yaml_scalar(value)}")
    return "\n".join(lines)


def _yaml_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if isinstance(value, list | dict):
        return unicode_json(value)
    text = str(value)
    plain = (
        text == text.strip() and text and text[0] not in "-?:,[]{}#&*!|>'\"%@`"
        and ": " not in text and " #" not in text and not text.endswith(":") and _scalar(text) == text
    )
    return text if plain else unicode_json(text)


# -- periodic notes: moment.js filename formats ---------------------------------------------------------
_MOMENT = re.compile(r"\[[^\]]*\]|YYYY|YY|GGGG|GG|gggg|gg|Q|MMMM|MMM|MM|M|DDDD|DD|D|dddd|ddd|d|WW|W|ww|w|.", re.S)


def _locale_week(d: date) -> tuple[int, int]:
    """moment's default (en) week: weeks start on Sunday and week 1 holds January 1st."""
    sunday = d - timedelta(days=(d.weekday() + 1) % 7)
    year = (sunday + timedelta(days=6)).year
    jan1 = date(year, 1, 1)
    first = jan1 - timedelta(days=(jan1.weekday() + 1) % 7)
    return year, (sunday - first).days // 7 + 1


def moment_format(fmt: str, d: date) -> str:
    iso_year, iso_week, _ = d.isocalendar()
    loc_year, loc_week = _locale_week(d)
    table: dict[str, Callable[[], str]] = {
        "YYYY": lambda: f"{d.year:04d}", "YY": lambda: f"{d.year % 100:02d}",
        "GGGG": lambda: f"{iso_year:04d}", "GG": lambda: f"{iso_year % 100:02d}",
        "gggg": lambda: f"{loc_year:04d}", "gg": lambda: f"{loc_year % 100:02d}",
        "Q": lambda: str((d.month - 1) // 3 + 1),
        "MMMM": lambda: d.strftime("%B"), "MMM": lambda: d.strftime("%b"),
        "MM": lambda: f"{d.month:02d}", "M": lambda: str(d.month),
        "DDDD": lambda: f"{d.timetuple().tm_yday:03d}", "DD": lambda: f"{d.day:02d}", "D": lambda: str(d.day),
        "dddd": lambda: d.strftime("%A"), "ddd": lambda: d.strftime("%a"), "d": lambda: str((d.weekday() + 1) % 7),
        "WW": lambda: f"{iso_week:02d}", "W": lambda: str(iso_week),
        "ww": lambda: f"{loc_week:02d}", "w": lambda: str(loc_week),
    }
    out = []
    for m in _MOMENT.finditer(fmt):
        tok = m.group(0)
        out.append(tok[1:-1] if tok.startswith("[") else table[tok]() if tok in table else tok)
    return "".join(out)


def _period_settings(env: AppEnv, period: str) -> dict[str, Any]:
    settings = (env.tree.data.get("periodic_notes") or {}).get(period) or {}
    if not settings.get("enabled"):
        raise _rest_error(PERIOD_NOT_ENABLED, f"{period} notes are not enabled in this vault", "conflict")
    return settings


def _periodic_path(settings: dict[str, Any], d: date) -> str:
    folder = str(settings.get("folder") or "").strip("/")
    name = moment_format(str(settings.get("format") or "YYYY-MM-DD"), d) + ".md"
    return f"{folder}/{name}" if folder else name


_PERIOD_HORIZON_DAYS = 5 * 366  # how far back obsidian_get_recent_periodic_notes looks


# -- JsonLogic (json-logic-js semantics, plus the Local REST API's 'glob' and 'regexp') ------------------
class _LogicError(Exception):
    pass


def _truthy(value: Any) -> bool:
    if isinstance(value, list):
        return len(value) > 0
    return bool(value) and value != ""


def _var(data: Any, path: Any, default: Any = None) -> Any:
    if path is None or path == "":
        return data
    cur = data
    for part in str(path).split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return default
    return cur


def _glob(pattern: Any, value: Any) -> bool:
    """glob-to-regexp without flags: '*' matches anything (slashes too); everything else is literal."""
    if not isinstance(pattern, str) or not isinstance(value, str):
        return False
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, value, re.S) is not None


def _regexp(pattern: Any, value: Any) -> bool:
    if not isinstance(pattern, str) or not isinstance(value, str):
        return False
    try:
        return re.search(pattern, value) is not None
    except re.error as exc:
        raise _LogicError(f"Invalid regular expression: /{pattern}/: {exc}") from exc


def _loose_eq(a: Any, b: Any) -> bool:
    if {type(a), type(b)} in ({int, str}, {float, str}):
        try:
            return float(a) == float(b)
        except (ValueError, OverflowError):  # a non-numeric string, or an int beyond float range
            return False
    return bool(a == b)


def _compare(op: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    def run(*args: Any) -> bool:
        try:
            return all(op(args[i], args[i + 1]) for i in range(len(args) - 1))
        except TypeError:
            return False

    return run


def _in(needle: Any, haystack: Any) -> bool:
    if isinstance(haystack, str):
        return isinstance(needle, str) and needle in haystack
    if isinstance(haystack, list):
        return needle in haystack
    return False


_OPS: dict[str, Callable[..., Any]] = {
    # binary operators ignore extra arguments, as json-logic-js does
    "==": lambda a=None, b=None, *_: _loose_eq(a, b),
    "!=": lambda a=None, b=None, *_: not _loose_eq(a, b),
    "===": lambda a=None, b=None, *_: a == b and type(a) is type(b),
    "!==": lambda a=None, b=None, *_: not (a == b and type(a) is type(b)),
    "!": lambda a=None, *_: not _truthy(a),
    "!!": lambda a=None, *_: _truthy(a),
    "<": _compare(lambda a, b: a < b),
    "<=": _compare(lambda a, b: a <= b),
    ">": _compare(lambda a, b: a > b),
    ">=": _compare(lambda a, b: a >= b),
    "in": lambda a=None, b=None, *_: _in(a, b),
    "cat": lambda *args: "".join("" if a is None else str(a) for a in args),
    "glob": lambda p=None, v=None, *_: _glob(p, v),
    "regexp": lambda p=None, v=None, *_: _regexp(p, v),
}


def _logic(rule: Any, data: Any) -> Any:
    if isinstance(rule, list):
        return [_logic(r, data) for r in rule]
    if not isinstance(rule, dict) or len(rule) != 1:
        return rule
    op, args = next(iter(rule.items()))
    if not isinstance(args, list):
        args = [args]
    if op in ("and", "or"):
        value: Any = None
        for arg in args:
            value = _logic(arg, data)
            if _truthy(value) == (op == "or"):
                return value
        return value
    if op in ("if", "?:"):
        for i in range(0, len(args) - 1, 2):
            if _truthy(_logic(args[i], data)):
                return _logic(args[i + 1], data)
        return _logic(args[-1], data) if len(args) % 2 else None
    if op in ("some", "all", "none"):
        items = _logic(args[0], data) if args else None
        items = items if isinstance(items, list) else []
        hits = [_truthy(_logic(args[1], item)) for item in items] if len(args) > 1 else []
        return {"some": any(hits), "all": bool(hits) and all(hits), "none": not any(hits)}[op]
    values = [_logic(a, data) for a in args]
    if op == "var":
        return _var(data, *values[:2]) if values else data
    if op == "missing":
        return [k for k in values if _var(data, k) is None]
    fn = _OPS.get(op)
    if fn is None:
        raise _LogicError(f"Unrecognized operation {op}")
    return fn(*values)


def _sane_truthy(value: Any) -> bool:
    """The Local REST API keeps a note when the rule's result is this kind of truthy."""
    if value is None:
        return False
    if isinstance(value, list | dict):
        return len(value) > 0
    return bool(value)


# -- note views ----------------------------------------------------------------------------------------
def _stat(note: dict[str, Any]) -> dict[str, int]:
    return {"ctime": note["ctime"], "mtime": note["mtime"], "size": len(note["content"].encode("utf-8"))}


def _frontmatter_or_fail(note: dict[str, Any]) -> dict[str, Any]:
    try:
        return frontmatter_of(note["content"])
    except ValueError as exc:
        raise _rest_error(INVALID_FRONTMATTER, f"{note['path']}: {exc}", "conflict") from exc


def _metadata(note: dict[str, Any]) -> dict[str, Any]:
    """The Local REST API's note+json view of a note."""
    try:
        fm = frontmatter_of(note["content"])
    except ValueError:
        fm = {}
    return {"tags": list(note.get("tags", [])), "frontmatter": fm, "stat": _stat(note), "path": note["path"],
            "content": note["content"]}


def _iso(env: AppEnv, ms: int) -> str:
    dt = env.clock.from_timestamp(ms / 1000)
    return dt.isoformat(timespec="milliseconds")


# == tools ===============================================================================================
@APP.tool()
def obsidian_list_files_in_vault(env: AppEnv) -> list[str]:
    """Lists every file and directory at the root of the Obsidian vault. Directories end with '/'."""
    return _listing(env, "")


def _listing(env: AppEnv, folder: str) -> list[str]:
    prefix = folder + "/" if folder else ""
    entries = {p[len(prefix):].split("/", 1)[0] + ("/" if "/" in p[len(prefix):] else "")
               for p in _notes(env) if p.startswith(prefix)}
    return sorted(entries)


@APP.tool()
def obsidian_list_files_in_dir(
    env: AppEnv,
    dirpath: str = Field(min_length=1, description="Directory to list, relative to the vault root. Empty "
                                                   "directories do not exist in a vault."),
) -> list[str]:
    """Lists the files and directories inside one directory of the vault. Directories end with '/'."""
    folder, _ = _normalize(dirpath)
    if folder in _notes(env):
        raise _rest_error(NOT_FOUND, f"'{folder}' is a file, not a directory; read it with "
                                     "obsidian_get_file_contents", "conflict")
    if folder and not _is_folder(env, folder):
        raise _rest_error(NOT_FOUND, f"Directory does not exist: {folder}", "not_found")
    return _listing(env, folder)


@APP.tool()
def obsidian_get_file_contents(env: AppEnv, filepath: str = _filepath()) -> str:
    """Returns the full content of one file of the vault (markdown, frontmatter included)."""
    return _existing(env, filepath)["content"]


@APP.tool()
def obsidian_batch_get_file_contents(
    env: AppEnv,
    filepaths: list[str] = Field(min_length=1, max_length=100, description="Paths of the files to read, "  # noqa: B008
                                                                          "relative to the vault root."),
) -> str:
    """Returns the contents of several files, each under a '# <path>' header and followed by a '---'
    separator. A file that cannot be read gets an error line in its place; the others are still returned."""
    for i, raw in enumerate(filepaths):
        if not raw.strip():
            raise ToolFailure(f"filepaths[{i}] is empty; give a path relative to the vault root", kind="range")
        _normalize(raw)  # a path outside the vault refuses the whole call
    parts = []
    for raw in filepaths:
        try:
            body = _existing(env, raw)["content"]
        except ToolFailure as failure:
            body = f"Error reading file: Error {failure.code}: {failure.message}"
        parts.append(f"# {raw}\n\n{body}\n\n---\n\n")
    return "".join(parts)


@APP.tool()
def obsidian_simple_search(
    env: AppEnv,
    query: str = Field(min_length=1, description="Text to search for in the vault's notes."),
    context_length: int = Field(100, ge=0, le=10000, description="Characters of context to return on each side "
                                                                 "of a match (default 100)."),
) -> list[dict[str, Any]]:
    """Simple text search across every markdown note of the vault. Each word of the query must occur
    (case-insensitive); returns the matching notes with the context around each match. Words match as
    written, as Obsidian's simple search does: "dates" does not find "date"."""
    words = query.lower().split()
    if not words:
        raise ToolFailure("query must contain at least one non-space character", kind="range")
    results = []
    for note in _markdown_notes(env):
        text = note["content"]
        low = text.lower()
        spans: list[tuple[int, int]] = []
        for word in words:
            hits = [(m.start(), m.start() + len(word)) for m in re.finditer(re.escape(word), low)]
            if not hits:
                break
            spans += hits
        else:
            spans.sort()
            matches = [{"context": text[max(s - context_length, 0): e + context_length],
                        "match_position": {"start": s, "end": e}} for s, e in spans]
            results.append({"filename": note["path"], "score": -len(spans), "matches": matches})
    results.sort(key=lambda r: r["score"])
    return results


@APP.tool()
def obsidian_complex_search(
    env: AppEnv,
    query: dict[str, Any] = Field(description=(  # noqa: B008
        'A JsonLogic rule evaluated against every markdown note, e.g. {"glob": ["Daily/*.md", {"var": "path"}]} '
        'or {"and": [{"in": ["project", {"var": "tags"}]}, {"regexp": ["launch", {"var": "content"}]}]}. '
        "Variables: path, content, tags, frontmatter.<field>, stat.ctime, stat.mtime, stat.size.")),
) -> list[dict[str, Any]]:
    """Complex search with a JsonLogic query. Besides the standard JsonLogic operators (var, and, or, !, ==,
    !=, <, >, in, some, all, if ...) it supports 'glob' (a '*' wildcard pattern matched against the whole
    value, '*' crossing folders) and 'regexp' (a regular expression searched in the value). Returns each note
    whose result is non-falsy, with that result."""
    if len(query) != 1:
        raise _rest_error(INVALID_FILTER_QUERY, "query must be a JsonLogic rule: an object with exactly one "
                                                'operator, e.g. {"glob": ["*.md", {"var": "path"}]}', "range")
    results = []
    for note in _markdown_notes(env):
        try:
            value = _logic(query, _metadata(note))
        except _LogicError as exc:
            raise _rest_error(INVALID_FILTER_QUERY, f"{exc} (while processing {note['path']})", "conflict") from exc
        if _sane_truthy(value):
            results.append({"filename": note["path"], "result": value})
    return results


@APP.tool(mutates=True)
def obsidian_patch_content(
    env: AppEnv,
    filepath: str = _filepath(),
    operation: Literal["append", "prepend", "replace"] = Field(description="append, prepend or replace"),
    target_type: Literal["heading", "block", "frontmatter"] = Field(description="What target names."),
    target: str = Field(min_length=1, description=(
        "heading: the heading path with '::' between levels, e.g. 'Plan::Tuesday' (a bare heading name is "
        "accepted when it is unique in the file); block: the block reference id without '^'; frontmatter: "
        "the field name.")),
    content: str = Field(min_length=1, description=(
        "Text to insert. For a frontmatter field, a JSON value (list, number, true/false, object) is used as "
        "such; any other text is a string.")),
) -> str:
    """Inserts content into an existing note relative to a heading, a block reference or a frontmatter
    field: append after it, prepend before it, or replace it. The target must already exist."""
    note = _existing(env, filepath)
    text = note["content"]
    if target_type == "frontmatter":
        new = _patch_frontmatter(note, operation, target, content)
    else:
        start, end = _patch_target(text, note["path"], target_type, target)
        if operation != "replace" and content.strip() in text[start:end]:
            raise _rest_error(PATCH_FAILED, f"content-already-preexists-in-target: the {target_type} '{target}' "
                                            "already contains this content", "conflict")
        new = _splice(text, start, end, operation, content, target_type == "heading")
    _save(env, note["path"], new)
    return f"Successfully patched content in {filepath}"


def _patch_target(text: str, path: str, target_type: str, target: str) -> tuple[int, int]:
    if target_type == "block":
        region = block_region(text, target.lstrip("^"))
        if region is None:
            raise _rest_error(PATCH_FAILED, f"invalid-target: no block ^{target.lstrip('^')} in {path}", "conflict")
        return region
    sections = heading_sections(text)
    exact = [s for s in sections if s[0] == target]
    if exact:
        return exact[0][1], exact[0][2]
    if "::" not in target:
        hits = [s for s in sections if s[0].split("::")[-1].lower() == target.strip().lower()]
        if len(hits) == 1:
            return hits[0][1], hits[0][2]
        if len(hits) > 1:
            raise ToolFailure(f"Ambiguous heading '{target}'. Candidates: {', '.join(h[0] for h in hits)}. "
                              "Specify the qualified path with '::' delimiter.", kind="conflict")
    known = ", ".join(s[0] for s in sections) or "none"
    raise _rest_error(PATCH_FAILED, f"invalid-target: heading '{target}' not found in {path} (headings: {known})",
                      "conflict")


def _splice(text: str, start: int, end: int, operation: str, content: str, section: bool) -> str:
    """Apply an append/prepend/replace to text[start:end]; a heading section keeps its line structure."""
    if not section:
        if operation == "append":
            return text[:end] + content + text[end:]
        if operation == "prepend":
            return text[:start] + content + text[start:]
        return text[:start] + content + text[end:]
    if start == len(text) and text and not text.endswith("\n"):  # a heading on the very last line
        text, start, end = text + "\n", start + 1, end + 1
    suffix = text[end:]
    blank_before_next = bool(suffix) and text[:end].endswith("\n\n")
    if operation == "prepend":
        at = start
        body = content if content.endswith("\n") else content + "\n"
        return text[:at] + body + text[at:]
    if operation == "append":  # right after the section's last non-blank line, before its trailing blank lines
        last = len(text[start:end].rstrip())
        newline = text.find("\n", start + last) if last else start - 1
        at = len(text) if newline < 0 else newline + 1
        lead = "" if at == 0 or text[at - 1] == "\n" else "\n"
        body = lead + content
        if (text[at:] or text.endswith("\n")) and not body.endswith("\n"):
            body += "\n"
        return text[:at] + body + text[at:]
    body = content
    if suffix and not body.endswith("\n"):
        body += "\n"
    if blank_before_next and not body.endswith("\n\n"):
        body += "\n"
    return text[:start] + body + suffix


def _patch_frontmatter(note: dict[str, Any], operation: str, field: str, content: str) -> str:
    fm = _frontmatter_or_fail(note)
    if field not in fm:
        fields = ", ".join(fm) or "none"
        raise _rest_error(PATCH_FAILED, f"invalid-target: frontmatter field '{field}' does not exist in "
                                        f"{note['path']} (fields: {fields})", "conflict")
    try:
        value: Any = json.loads(content)
    except json.JSONDecodeError:
        value = content
    if operation == "replace":
        fm[field] = value
    else:
        fm[field] = _merge(fm[field], value, operation == "append", field)
    _, body_start = split_frontmatter(note["content"])
    return f"---\n{dump_yaml(fm)}\n---\n" + note["content"][body_start:]


def _merge(old: Any, new: Any, append: bool, field: str) -> Any:
    if isinstance(old, list):
        items = new if isinstance(new, list) else [new]
        return old + items if append else items + old
    if isinstance(old, dict) and isinstance(new, dict):
        return old | new if append else new | old
    if isinstance(old, str) and isinstance(new, str):
        return old + new if append else new + old
    raise _rest_error(PATCH_FAILED, f"content-not-mergeable: cannot {'append' if append else 'prepend'} a "
                                    f"{type(new).__name__} to the {type(old).__name__} field '{field}'",
                      "conflict")


@APP.tool(mutates=True)
def obsidian_append_content(
    env: AppEnv,
    filepath: str = _filepath(),
    content: str = Field(description="Text to add at the end of the file."),
) -> str:
    """Appends content to the end of a file, on a new line; the file (and its folders) is created if it
    does not exist yet."""
    path = _writable(env, filepath)
    note = env.tree.top("note", path)
    old = "" if note is None else note["content"]
    if old and not old.endswith("\n"):
        old += "\n"
    _save(env, path, old + content)
    return f"Successfully appended content to {filepath}"


@APP.tool(mutates=True)
def obsidian_put_content(
    env: AppEnv,
    filepath: str = _filepath(),
    content: str = Field(description="The complete new content of the file."),
) -> str:
    """Creates a file, or overwrites an existing file completely (its previous content is lost). Use
    obsidian_append_content to add to a file and obsidian_patch_content to change one part of it."""
    path = _writable(env, filepath)
    _save(env, path, content)
    return f"Successfully uploaded content to {filepath}"


@APP.tool(mutates=True)
def obsidian_delete_file(
    env: AppEnv,
    filepath: str = _filepath(),
    confirm: bool = Field(strict=True, description="Must be true to delete the file."),
) -> str:
    """Deletes a file from the vault. confirm must be true."""
    if not confirm:
        raise ToolFailure("confirm must be set to true to delete a file", kind="conflict")
    note = _existing(env, filepath)
    env.tree.delete(_note_path(note["path"]))
    return f"Successfully deleted {filepath}"


@APP.tool()
def obsidian_get_periodic_note(
    env: AppEnv,
    period: Period = Field(description=_PERIOD_DOC),  # noqa: B008
    type: Literal["content", "metadata"] = Field("content", description=(
        "'content' returns the markdown; 'metadata' returns JSON with path, tags, frontmatter, stat and "
        "content.")),
) -> str | dict[str, Any]:
    """Returns the current periodic note (today's daily note, this week's weekly note ...) of the given
    period."""
    settings = _period_settings(env, period)
    path = _periodic_path(settings, env.clock.today())
    note = env.tree.top("note", path)
    if note is None:
        raise _rest_error(PERIODIC_NOTE_MISSING, f"the current {period} note {path} has not been created",
                          "not_found")
    return note["content"] if type == "content" else _metadata(note)


@APP.tool()
def obsidian_get_recent_periodic_notes(
    env: AppEnv,
    period: Period = Field(description=_PERIOD_DOC),  # noqa: B008
    limit: int = Field(5, ge=1, le=50, description="Maximum number of notes to return (1-50, default 5)."),
    include_content: bool = Field(False, strict=True, description="Whether to include each note's content "
                                                                  "(default false)."),
) -> list[dict[str, Any]]:
    """Returns the most recent periodic notes of the given period, newest first (the current period
    included when its note exists)."""
    settings = _period_settings(env, period)
    today = env.clock.today()
    seen: list[str] = []
    out = []
    for back in range(_PERIOD_HORIZON_DAYS):
        path = _periodic_path(settings, today - timedelta(days=back))
        if path in seen:
            continue
        seen.append(path)
        note = env.tree.top("note", path)
        if note is None:
            continue
        entry: dict[str, Any] = {"path": path, "ctime": note["ctime"], "mtime": note["mtime"]}
        if include_content:
            entry["content"] = note["content"]
        out.append(entry)
        if len(out) >= limit:
            break
    return out


@APP.tool()
def obsidian_get_recent_changes(
    env: AppEnv,
    limit: int = Field(10, ge=1, le=100, description="Maximum number of files to return (1-100, default 10)."),
    days: int = Field(90, ge=1, le=3650, description="Only files modified within this many days (default 90)."),
) -> list[dict[str, Any]]:
    """Returns the most recently modified notes of the vault, newest first, with their modification time."""
    today = env.clock.today()
    cutoff = int(env.clock.at(today - timedelta(days=days), 0).timestamp() * 1000)
    notes = [n for n in _markdown_notes(env) if n["mtime"] >= cutoff]
    notes.sort(key=lambda n: (-n["mtime"], n["path"]))
    return [{"filename": n["path"], "result": {"file.mtime": _iso(env, n["mtime"])}} for n in notes[:limit]]


@APP.tool()
def obsidian_search_by_tag(
    env: AppEnv,
    tag: str = Field(min_length=1, description="Tag name without the leading '#', e.g. 'project' or "
                                               "'work/tasks'. Case does not matter, as in Obsidian."),
    dirpath: str | None = Field(None, description="Optional directory to search in, relative to the vault root."),
) -> list[str]:
    """Finds the notes that carry a tag (frontmatter tags list or inline #tag; mentions of the word in
    prose do not count). Tags compare without regard to case, as Obsidian's own tag search does
    ('Project' finds #project); hierarchical tags match whole: 'work' does not match 'work/tasks'."""
    if tag.startswith("#"):
        raise ToolFailure(f"pass the tag without the leading '#': use '{tag.lstrip('#')}'", kind="range")
    prefix = ""
    if dirpath is not None:
        folder, _ = _normalize(dirpath)
        if folder in _notes(env):
            raise _rest_error(NOT_FOUND, f"dirpath '{folder}' is a file, not a directory", "conflict")
        prefix = folder + "/" if folder else ""
    wanted = fold(tag)
    return [n["path"] for n in _markdown_notes(env)
            if n["path"].startswith(prefix) and any(fold(t) == wanted for t in n.get("tags", []))]


@APP.tool()
def obsidian_get_frontmatter(env: AppEnv, filepath: str = _filepath()) -> dict[str, Any]:
    """Returns only the YAML frontmatter of a note, parsed into an object ({} when the note has none)."""
    return _frontmatter_or_fail(_existing(env, filepath))
