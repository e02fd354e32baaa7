"""What the filesystem server inherits from Node.js and its libraries, as pure functions.

The server's answers are shaped by ``path.resolve`` / ``path.relative`` (POSIX), libuv's error
texts (``ENOENT: no such file or directory, open '<path>'``), ``minimatch`` globs, jsdiff's
``createTwoFilesPatch``, ``Date.prototype.toString`` in UTC, ``Number.prototype.toFixed`` and
``String.prototype.localeCompare``. Each is reproduced here for the cases the server meets.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from functools import cache, lru_cache

# -- errors --------------------------------------------------------------------------------------------
ERRNO_TEXT = {
    "ENOENT": "no such file or directory",
    "ENOTDIR": "not a directory",
    "EISDIR": "illegal operation on a directory",
    "EEXIST": "file already exists",
    "ENAMETOOLONG": "name too long",
    "EINVAL": "invalid argument",
    "ENOTEMPTY": "directory not empty",
}
NAME_MAX = 255  # bytes in one path component
PATH_MAX = 4096  # bytes in a whole path, terminator included


def errno_message(code: str, syscall: str, path: str | None = None, dest: str | None = None) -> str:
    """libuv's message: ``ENOENT: no such file or directory, open '/x'`` (``rename 'a' -> 'b'``)."""
    text = f"{code}: {ERRNO_TEXT[code]}, {syscall}"
    if path is not None:
        text += f" '{path}'"
    if dest is not None:
        text += f" -> '{dest}'"
    return text


# -- POSIX paths -------------------------------------------------------------------------------------------
def normalize_abs(path: str) -> str:
    """``path.resolve`` of an absolute path: no ``.``/``..``/empty segments, no trailing slash."""
    out: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    return "/" + "/".join(out)


def resolve(*parts: str, cwd: str = "/") -> str:
    """``path.resolve(...parts)`` with ``cwd`` standing in for ``process.cwd()``."""
    acc = ""
    for p in reversed(parts):
        if not p:
            continue
        acc = f"{p}/{acc}" if acc else p
        if p.startswith("/"):
            break
    if not acc.startswith("/"):
        acc = f"{cwd}/{acc}"
    return normalize_abs(acc)


def join(*parts: str) -> str:
    """``path.join``: joined with ``/`` and normalized, relative stays relative (``''`` -> ``'.'``)."""
    joined = "/".join(p for p in parts if p)
    if not joined:
        return "."
    absolute = joined.startswith("/")
    trailing = joined.endswith("/")
    out: list[str] = []
    for seg in joined.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out and out[-1] != "..":
                out.pop()
            elif not absolute:
                out.append("..")
            continue
        out.append(seg)
    text = ("/" if absolute else "") + "/".join(out)
    if not text:
        text = "/" if absolute else "."
    if trailing and text not in ("/",):
        text += "/"
    return text


def relative(from_: str, to: str, cwd: str = "/cwd") -> str:
    """``path.relative(from, to)``."""
    a = [s for s in resolve(from_, cwd=cwd).split("/") if s]
    b = [s for s in resolve(to, cwd=cwd).split("/") if s]
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    return "/".join([".."] * (len(a) - i) + b[i:])


def normalize_path(p: str) -> str:
    """The server's ``normalizePath`` for POSIX paths: trimmed, one quote stripped at either end,
    repeated slashes collapsed, the trailing slash dropped."""
    p = re.sub(r"^[\"']|[\"']$", "", p.strip())
    if p.startswith("/"):
        return re.sub(r"(?<!^)/$", "", re.sub(r"/+", "/", p))
    return p


def within(path: str, allowed: list[str]) -> bool:
    """The server's ``isPathWithinAllowedDirectories``."""
    if not path or not allowed or "\x00" in path:
        return False
    norm = resolve(path)
    for d in allowed:
        if not d or "\x00" in d:
            continue
        nd = resolve(d)
        if norm == nd or nd == "/" or norm.startswith(nd + "/"):
            return True
    return False


# -- minimatch (dot: true) --------------------------------------------------------------------------------
def _expand_braces(pattern: str) -> list[str]:
    depth, start = 0, -1
    for i, ch in enumerate(pattern):
        if ch == "\\":
            continue
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                body = pattern[start + 1 : i]
                parts, level, cur = [], 0, ""
                for c in body:
                    if c == "," and level == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    level += c == "{"
                    level -= c == "}"
                    cur += c
                parts.append(cur)
                if len(parts) < 2:
                    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body)
                    if not m:
                        continue
                    lo, hi = int(m.group(1)), int(m.group(2))
                    step = 1 if hi >= lo else -1
                    parts = [str(n) for n in range(lo, hi + step, step)]
                head, tail = pattern[:start], pattern[i + 1 :]
                return [x for part in parts for x in _expand_braces(head + part + tail)]
    return [pattern]


@lru_cache(maxsize=512)
def _segment_regex(seg: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(seg):
        ch = seg[i]
        if ch == "\\" and i + 1 < len(seg):
            out += re.escape(seg[i + 1])
            i += 2
            continue
        if ch == "*":
            while i + 1 < len(seg) and seg[i + 1] == "*":
                i += 1
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = seg.find("]", i + 2 if i + 1 < len(seg) and seg[i + 1] in "!^" else i + 1)
            if end < 0:
                out += re.escape(ch)
            else:
                body = seg[i + 1 : end]
                neg = body[:1] in ("!", "^")
                body = body[1:] if neg else body
                cls = "".join("\\" + c if c in "\\]^[" else c for c in body)
                out += f"[{'^' if neg else ''}{cls}]"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    try:
        return re.compile(out, re.DOTALL)
    except re.error:
        return re.compile(re.escape(seg))


def _match_parts(pats: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    @cache
    def go(i: int, j: int) -> bool:
        if i == len(pats):
            return j == len(parts)
        if pats[i] == "**":
            return any(go(i + 1, k) for k in range(j, len(parts) + 1)
                       if all(p not in (".", "..") for p in parts[j:k]))
        if j >= len(parts):
            return False
        if parts[j] == "" and any(c in pats[i] for c in "*?["):
            return False  # a wildcard never matches an empty segment
        return bool(_segment_regex(pats[i]).fullmatch(parts[j])) and go(i + 1, j + 1)

    return go(0, 0)


def minimatch(path: str, pattern: str) -> bool:
    """``minimatch(path, pattern, {dot: true})`` for the globs the server is given."""
    if pattern.startswith("#"):
        return False  # a comment
    negate = False
    while pattern.startswith("!"):
        negate, pattern = not negate, pattern[1:]
    if pattern == "":
        return (path == "") != negate
    parts = tuple(path.split("/"))
    hit = any(_match_parts(tuple(p.split("/")), parts) for p in _expand_braces(pattern))
    return hit != negate


# -- jsdiff createTwoFilesPatch ------------------------------------------------------------------------
def _split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True) if text else []


def two_files_patch(name: str, old: str, new: str, old_header: str = "original", new_header: str = "modified",
                    context: int = 4) -> str:
    """jsdiff's ``createTwoFilesPatch(name, name, old, new, old_header, new_header)``.

    The line diff comes from difflib (jsdiff uses Myers); the hunk assembly is jsdiff's."""
    a, b = _split_lines(old), _split_lines(new)
    blocks: list[tuple[str, list[str]]] = []  # ("=", lines) | ("-", lines) | ("+", lines)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            blocks.append(("=", a[i1:i2]))
        else:
            if i2 > i1:
                blocks.append(("-", a[i1:i2]))
            if j2 > j1:
                blocks.append(("+", b[j1:j2]))
    blocks.append(("=", []))
    hunks: list[tuple[int, int, int, int, list[str]]] = []
    old_start = new_start = 0
    cur: list[str] = []
    old_line = new_line = 1
    for i, (tag, lines) in enumerate(blocks):
        if tag in "+-":
            if not old_start:
                old_start, new_start = old_line, new_line
                if i > 0:
                    prev = blocks[i - 1][1]
                    cur = [" " + x for x in prev[-context:]] if context > 0 else []
                    old_start -= len(cur)
                    new_start -= len(cur)
            cur += [tag + x for x in lines]
            if tag == "+":
                new_line += len(lines)
            else:
                old_line += len(lines)
        else:
            if old_start:
                if len(lines) <= context * 2 and i < len(blocks) - 2:
                    cur += [" " + x for x in lines]
                else:
                    size = min(len(lines), context)
                    cur += [" " + x for x in lines[:size]]
                    hunks.append((old_start, old_line - old_start + size, new_start, new_line - new_start + size, cur))
                    old_start = new_start = 0
                    cur = []
            old_line += len(lines)
            new_line += len(lines)
    out = [f"Index: {name}", "=" * 67, f"--- {name}\t{old_header}", f"+++ {name}\t{new_header}"]
    for os_, ol, ns, nl, lines in hunks:
        out.append(f"@@ -{os_ - 1 if ol == 0 else os_},{ol} +{ns - 1 if nl == 0 else ns},{nl} @@")
        for x in lines:
            if x.endswith("\n"):
                out.append(x[:-1])
            else:
                out.append(x)
                out.append("\\ No newline at end of file")
    return "\n".join(out) + "\n"


# -- formatting --------------------------------------------------------------------------------------------
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def js_date(epoch: float) -> str:
    """``new Date(epoch * 1000).toString()`` with ``TZ=UTC``."""
    d = datetime.fromtimestamp(epoch, tz=UTC)
    return (f"{_DAYS[d.weekday()]} {_MONTHS[d.month - 1]} {d.day:02d} {d.year:04d} "
            f"{d.hour:02d}:{d.minute:02d}:{d.second:02d} GMT+0000 (Coordinated Universal Time)")


def to_fixed(value: Decimal, digits: int) -> str:
    """``Number.prototype.toFixed``: ties go up (to the larger value), not to even."""
    return str(value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def format_size(size: int) -> str:
    """The server's ``formatSize``."""
    units = ("B", "KB", "MB", "GB", "TB")
    if size <= 0:
        return "0 B"
    i = 0
    while i + 1 < len(units) and size >= 1024 ** (i + 1):
        i += 1
    if i == 0:
        return f"{size} B"
    return f"{to_fixed(Decimal(size) / Decimal(1024**i), 2)} {units[i]}"


_PUNCT_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def locale_key(s: str) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], tuple[int, ...]]:
    """An approximation of ICU root collation (``localeCompare``): punctuation < digits < letters,
    letters compared without case or accents first, then accents, then lower case before upper."""
    primary: list[tuple[int, int]] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in s:
        base = unicodedata.normalize("NFD", ch)
        letter = base[0]
        if letter.isalpha():
            primary.append((2, ord(letter.casefold()[0])))
        elif letter.isdigit():
            primary.append((1, ord(letter)))
        else:
            idx = _PUNCT_ORDER.find(letter)
            primary.append((0, idx if idx >= 0 else 100 + ord(letter)))
        secondary.append(sum(ord(c) for c in base[1:]))
        tertiary.append(1 if letter.isupper() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)
