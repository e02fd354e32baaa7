"""The filesystem tools over the file-tree Context-Tree (see ``data/hierarchies/filesystem.json``).

Written from the trace pool ``data/traces/filesystem.jsonl`` (the real server traversed with
``mcp-persona traverse``). What the traces show, and what is kept here:

* every path goes through the server's ``validatePath``: ``~`` expanded, Windows drive paths
  refused, relative paths resolved against the allowed directories, anything outside them refused
  with ``Access denied - path outside allowed directories: <abs> not in <dirs>``; then the path
  is resolved component by component (``ENOTDIR ... realpath`` under a file, ``ENAMETOOLONG ...
  realpath`` past 255 bytes); a path that does not exist passes, and the operation fails later;
* operations fail with libuv's texts and the syscall that failed: ``open`` / ``read`` (``EISDIR``)
  for reads, ``scandir`` for listings, ``stat``, ``mkdir``, ``rename`` (``'a' -> 'b'``);
* listings are in byte order of the names (libuv's scandir sorts); ``list_directory_with_sizes``
  re-sorts by ``localeCompare`` or by size, and reports directories at their block size;
* ``write_file`` / ``create_directory`` / ``move_file`` answer with the path *as given*,
  ``edit_file`` with a jsdiff patch of the resolved path in a fenced block;
* ``read_text_file`` reproduces the server's head/tail readers, chunk by chunk (negative or
  fractional counts included); ``head`` and ``tail`` together are refused;
* ``read_multiple_files`` never fails: each file's error is inlined;
* times print as ``Date.toString()`` in UTC (the server runs with ``TZ=UTC`` when traversed).

One deviation: ``read_media_file`` answers with a text block holding the JSON of the real
server's image/audio/resource block (the app base emits text blocks only).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Annotated, Any

from mcp_persona.apps._reference import UNSET, ReferenceApp, optional
from mcp_persona.apps.base import AppEnv, ToolFailure, unicode_json
from mcp_persona.apps.filesystem import nodejs as js
from mcp_persona.apps.filesystem.specs import TOOL_SPECS
from mcp_persona.context_tree import Segment


class FilesystemApp(ReferenceApp):
    pass


APP = FilesystemApp(
    "filesystem",
    title="Secure Filesystem",
    category="utility",
    personalized=False,
    description="Read, write, edit, move and search files inside the allowed directories.",
    real_server="@modelcontextprotocol/server-filesystem",
    tool_specs=TOOL_SPECS,
)

DIR_SIZE = 4096
Node = dict[str, Any]


def _arg(tool: str, name: str) -> Any:
    return APP.arg(tool, name)


class FsError(ToolFailure):
    def __init__(self, message: str) -> None:
        super().__init__(message, kind="not_found")


def _errno(code: str, syscall: str, path: str | None = None, dest: str | None = None) -> FsError:
    return FsError(js.errno_message(code, syscall, path, dest))


# -- the tree ----------------------------------------------------------------------------------------------
class Fs:
    """The file tree of one episode, with the server's path rules."""

    def __init__(self, env: AppEnv) -> None:
        self.env = env
        self.tree = env.tree

    @property
    def allowed(self) -> list[str]:
        return list((self.tree.data.get("allowed_directories") or {}).keys())

    @property
    def home(self) -> str:
        return str(self.tree.data.get("home", "/root"))

    def node(self, path: str) -> Node | None:
        return (self.tree.data.get("nodes") or {}).get(path)

    def children(self, path: str) -> list[Node]:
        kids = [n for n in (self.tree.data.get("nodes") or {}).values() if n.get("parent") == path]
        return sorted(kids, key=lambda n: _name(n["path"]).encode("utf-8", "surrogatepass"))

    def now(self) -> float:
        return float(self.env.now())

    # -- validatePath ---------------------------------------------------------------------------------------
    def validate(self, requested: str) -> str:
        expanded = requested
        if requested == "~" or requested.startswith("~/"):
            expanded = self.home + requested[1:]
        if re.match(r"^[A-Za-z]:([\\/]|$)", expanded):
            raise FsError(f"Access denied - Windows-style path received on a POSIX host: {requested}")
        allowed = self.allowed
        if expanded.startswith("/"):
            absolute = js.resolve(expanded)
        else:
            absolute = next((c for d in allowed if js.within(c := js.resolve(d, expanded), allowed)),
                            js.resolve(allowed[0] if allowed else "/", expanded))
        if not js.within(js.normalize_path(absolute), allowed):
            raise FsError(f"Access denied - path outside allowed directories: {absolute} not in {', '.join(allowed)}")
        self._realpath(absolute)
        return absolute

    def _realpath(self, absolute: str) -> None:
        """Walk the path as ``realpath`` does: ENOTDIR under a file, ENAMETOOLONG past 255 bytes; a
        missing component ends the walk (the server then accepts the path as a new one)."""
        if len(absolute.encode("utf-8", "surrogatepass")) >= js.PATH_MAX:
            raise _errno("ENAMETOOLONG", "realpath", absolute)
        root = next((d for d in sorted(self.allowed, key=len, reverse=True)
                     if absolute == d or absolute.startswith(d.rstrip("/") + "/")), None)
        if root is None:
            return
        cur = root
        for part in [p for p in absolute[len(root):].split("/") if p]:
            here = self.node(cur)
            if here is not None and here.get("type") == "file":
                raise _errno("ENOTDIR", "realpath", absolute)
            if len(part.encode("utf-8", "surrogatepass")) > js.NAME_MAX:
                raise _errno("ENAMETOOLONG", "realpath", absolute)
            cur = f"{cur.rstrip('/')}/{part}"
            if self.node(cur) is None:
                return

    # -- primitives with libuv's failures -------------------------------------------------------------------
    def read_file(self, path: str) -> str:
        n = self.node(path)
        if n is None:
            raise _errno("ENOENT", "open", path)
        if n["type"] == "directory":
            raise _errno("EISDIR", "read")
        return str(n.get("content", ""))

    def readdir(self, path: str) -> list[Node]:
        n = self.node(path)
        if n is None:
            raise _errno("ENOENT", "scandir", path)
        if n["type"] != "directory":
            raise _errno("ENOTDIR", "scandir", path)
        return self.children(path)

    def stat(self, path: str) -> Node:
        n = self.node(path)
        if n is None:
            raise _errno("ENOENT", "stat", path)
        return n

    def size(self, n: Node) -> int:
        if n["type"] == "directory":
            return int(n.get("size", DIR_SIZE))
        return len(str(n.get("content", "")).encode("utf-8", "surrogatepass"))

    def _touch_parent(self, path: str, when: float) -> None:
        parent = self.node(_parent(path))
        if parent is not None:
            self.tree.update(_seg(parent["path"]), {"mtime": when})

    def write(self, path: str, content: str) -> None:
        """``writeFileContent``: a new file needs an existing parent directory; a directory is not
        overwritten (the atomic rename fails)."""
        n = self.node(path)
        when = self.now()
        if n is None:
            parent = self.node(_parent(path))
            if parent is None or parent["type"] != "directory":
                raise _errno("ENOENT" if parent is None else "ENOTDIR", "open", path)
            self.tree.create("nodes", {"path": path, "parent": parent["path"], "type": "file", "content": content,
                                       "mode": "644", "mtime": when, "atime": when, "birthtime": when})
            self._touch_parent(path, when)
            return
        if n["type"] == "directory":
            tmp = f"{path}.{self.tree.rng.getrandbits(128):032x}.tmp"  # random in the server; seeded here
            raise _errno("EISDIR", "rename", tmp, path)
        self.tree.update(_seg(path), {"content": content, "mtime": when})

    def mkdirp(self, path: str) -> None:
        n = self.node(path)
        if n is not None:
            if n["type"] != "directory":
                raise _errno("EEXIST", "mkdir", path)
            return
        root = next((d for d in self.allowed if path.startswith(d.rstrip("/") + "/")), None)
        if root is None:
            raise _errno("ENOENT", "mkdir", path)
        cur, when = root, self.now()
        for part in [p for p in path[len(root):].split("/") if p]:
            nxt = f"{cur.rstrip('/')}/{part}"
            here = self.node(nxt)
            if here is None:
                self.tree.create("nodes", {"path": nxt, "parent": cur, "type": "directory", "mode": "755",
                                           "size": DIR_SIZE, "mtime": when, "atime": when, "birthtime": when})
                self._touch_parent(nxt, when)
            elif here["type"] != "directory":
                raise _errno("ENOTDIR", "mkdir", path)
            cur = nxt

    def rename(self, src: str, dst: str) -> None:
        """``moveFile``: refuse an existing destination, then ``rename(2)``."""
        if self.node(dst) is not None:
            raise FsError(f"Destination already exists: {dst}")
        n = self.node(src)
        parent = self.node(_parent(dst))
        if n is None or parent is None:
            raise _errno("ENOENT", "rename", src, dst)
        if parent["type"] != "directory":
            raise _errno("ENOTDIR", "rename", src, dst)
        if n["type"] == "directory" and (dst + "/").startswith(src.rstrip("/") + "/"):
            raise _errno("EINVAL", "rename", src, dst)
        if src in self.allowed:
            raise _errno("EINVAL", "rename", src, dst)
        moved = [m for p, m in (self.tree.data.get("nodes") or {}).items() if p == src or p.startswith(src + "/")]
        moved.sort(key=lambda m: m["path"].count("/"))
        copies = []
        for m in moved:
            new_path = dst + m["path"][len(src):]
            new_parent = parent["path"] if m["path"] == src else _parent(new_path)
            copies.append({**m, "path": new_path, "parent": new_parent})
        for m in reversed(moved):
            self.tree.delete(_seg(m["path"]))
        for c in copies:
            self.tree.create("nodes", c)
        when = self.now()
        self._touch_parent(src, when)
        self._touch_parent(dst, when)


def _name(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def _parent(path: str) -> str:
    head = path.rstrip("/").rpartition("/")[0]
    return head or "/"


def _seg(path: str) -> str:
    return str(Segment("nodes", path))


def _truthy(n: Any) -> bool:
    return n is not UNSET and n is not None and n != 0


# -- the head / tail readers, byte for byte --------------------------------------------------------------------
def tail_text(content: str, num: float) -> str:
    data = content.encode("utf-8", "surrogatepass")
    if not data:
        return ""
    chunks: list[bytes] = []
    position, newlines = len(data), 0
    while position > 0 and newlines < num:
        size = min(1024, position)
        position -= size
        chunk = data[position : position + size]
        chunks.insert(0, chunk)
        newlines += chunk.count(b"\n")
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    parts = text.split("\n")
    start = _js_slice_start(-num, len(parts))
    return "\n".join(parts[start:])


def _js_slice_start(value: float, length: int) -> int:
    rel = int(value)  # ToIntegerOrInfinity truncates toward zero
    return max(length + rel, 0) if rel < 0 else min(rel, length)


def head_text(content: str, num: float) -> str:
    import codecs

    data = content.encode("utf-8", "surrogatepass")
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    lines: list[str] = []
    buffer, offset = "", 0
    while len(lines) < num:
        chunk = data[offset : offset + 1024]
        if not chunk:
            break
        offset += len(chunk)
        buffer += decoder.decode(chunk)
        cut = buffer.rfind("\n")
        if cut != -1:
            complete = buffer[:cut].split("\n")
            buffer = buffer[cut + 1 :]
            for line in complete:
                lines.append(line)
                if len(lines) >= num:
                    break
    buffer += decoder.decode(b"", final=True)
    if buffer and len(lines) < num:
        lines.append(buffer)
    return "\n".join(lines)


# -- tools ---------------------------------------------------------------------------------------------------
def _read_text(env: AppEnv, path: str, tail: Any, head: Any) -> str:
    fs = Fs(env)
    valid = fs.validate(path)
    if _truthy(head) and _truthy(tail):
        raise FsError("Cannot specify both head and tail parameters simultaneously")
    if _truthy(tail):
        n = fs.stat(valid)
        if fs.size(n) == 0:
            return ""
        return tail_text(fs.read_file(valid), float(tail))
    if _truthy(head):
        n = fs.node(valid)
        if n is None:
            raise _errno("ENOENT", "open", valid)
        return head_text(fs.read_file(valid), float(head))
    return fs.read_file(valid)


@APP.tool()
def read_file(env: AppEnv, path: Annotated[str, _arg("read_file", "path")],
              tail: Annotated[Any, _arg("read_file", "tail"), optional()],
              head: Annotated[Any, _arg("read_file", "head"), optional()]) -> str:
    """Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead."""
    return _read_text(env, path, tail, head)


@APP.tool()
def read_text_file(env: AppEnv, path: Annotated[str, _arg("read_text_file", "path")],
                   tail: Annotated[Any, _arg("read_text_file", "tail"), optional()],
                   head: Annotated[Any, _arg("read_text_file", "head"), optional()]) -> str:
    """Read the complete contents of a file from the file system as text."""
    return _read_text(env, path, tail, head)


MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
        ".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml", ".mp3": "audio/mpeg",
        ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac"}


def _file_url(path: str) -> str:
    from urllib.parse import quote

    return "file://" + quote(path, safe="/:@!$&'()*+,;=-._~")


@APP.tool()
def read_media_file(env: AppEnv, path: Annotated[str, _arg("read_media_file", "path")]) -> str:
    """Read a file and return it as a base64-encoded content block with its MIME type."""
    fs = Fs(env)
    valid = fs.validate(path)
    name = _name(valid)
    ext = name[name.rfind("."):].lower() if "." in name.lstrip(".") else ""
    mime = MIME.get(ext, "application/octet-stream")
    n = fs.node(valid)
    if n is None:
        raise _errno("ENOENT", "open", valid)
    if n["type"] == "directory":
        raise _errno("EISDIR", "read")
    raw = n.get("content_b64")
    data = raw if isinstance(raw, str) else base64.b64encode(
        str(n.get("content", "")).encode("utf-8", "surrogatepass")).decode("ascii")
    if mime.startswith(("image/", "audio/")):
        block: dict[str, Any] = {"type": mime.split("/")[0], "data": data, "mimeType": mime}
    else:
        block = {"type": "resource", "resource": {"uri": _file_url(valid), "mimeType": mime, "blob": data}}
    return unicode_json(block)


@APP.tool()
def read_multiple_files(env: AppEnv, paths: Annotated[Any, _arg("read_multiple_files", "paths")]) -> str:
    """Read the contents of multiple files simultaneously."""
    fs = Fs(env)
    out = []
    for p in paths:
        try:
            out.append(f"{p}:\n{fs.read_file(fs.validate(p))}\n")
        except ToolFailure as exc:
            out.append(f"{p}: Error - {exc.message}")
    return "\n---\n".join(out)


@APP.tool(mutates=True)
def write_file(env: AppEnv, path: Annotated[str, _arg("write_file", "path")],
               content: Annotated[str, _arg("write_file", "content")]) -> str:
    """Create a new file or completely overwrite an existing file with new content."""
    fs = Fs(env)
    fs.write(fs.validate(path), content)
    return f"Successfully wrote to {path}"


def _apply_edits(content: str, edits: list[dict[str, Any]]) -> str:
    modified = content
    for edit in edits:
        old = edit["oldText"].replace("\r\n", "\n")
        new = edit["newText"].replace("\r\n", "\n")
        if old in modified:
            modified = modified.replace(old, new, 1)
            continue
        old_lines = old.split("\n")
        lines = modified.split("\n")
        found = False
        for i in range(len(lines) - len(old_lines) + 1):
            window = lines[i : i + len(old_lines)]
            if all(o.strip() == w.strip() for o, w in zip(old_lines, window, strict=True)):
                indent = re.match(r"^\s*", lines[i]).group(0)  # type: ignore[union-attr]
                new_lines = []
                for j, line in enumerate(new.split("\n")):
                    if j == 0:
                        new_lines.append(indent + line.lstrip())
                        continue
                    old_indent = re.match(r"^\s*", old_lines[j]).group(0) if j < len(old_lines) else ""  # type: ignore[union-attr]
                    new_indent = re.match(r"^\s*", line).group(0)  # type: ignore[union-attr]
                    if old_indent and new_indent:
                        rel = len(new_indent) - len(old_indent)
                        new_lines.append(indent + " " * max(0, rel) + line.lstrip())
                    else:
                        new_lines.append(line)
                lines[i : i + len(old_lines)] = new_lines
                modified = "\n".join(lines)
                found = True
                break
        if not found:
            raise FsError(f"Could not find exact match for edit:\n{edit['oldText']}")
    return modified


@APP.tool(mutates=True)
def edit_file(env: AppEnv, path: Annotated[str, _arg("edit_file", "path")],
              edits: Annotated[Any, _arg("edit_file", "edits")],
              dryRun: Annotated[Any, _arg("edit_file", "dryRun"), optional()]) -> str:
    """Make line-based edits to a text file."""
    fs = Fs(env)
    valid = fs.validate(path)
    content = fs.read_file(valid).replace("\r\n", "\n")
    modified = _apply_edits(content, edits)
    diff = js.two_files_patch(valid, content, modified)
    ticks = 3
    while "`" * ticks in diff:
        ticks += 1
    fence = "`" * ticks
    if dryRun is UNSET or not dryRun:
        fs.write(valid, modified)
    return f"{fence}diff\n{diff}{fence}\n\n"


@APP.tool(mutates=True)
def create_directory(env: AppEnv, path: Annotated[str, _arg("create_directory", "path")]) -> str:
    """Create a new directory or ensure a directory exists."""
    fs = Fs(env)
    fs.mkdirp(fs.validate(path))
    return f"Successfully created directory {path}"


@APP.tool()
def list_directory(env: AppEnv, path: Annotated[str, _arg("list_directory", "path")]) -> str:
    """Get a detailed listing of all files and directories in a specified path."""
    fs = Fs(env)
    entries = fs.readdir(fs.validate(path))
    return "\n".join(f"{'[DIR]' if n['type'] == 'directory' else '[FILE]'} {_name(n['path'])}" for n in entries)


@APP.tool()
def list_directory_with_sizes(
    env: AppEnv, path: Annotated[str, _arg("list_directory_with_sizes", "path")],
    sortBy: Annotated[Any, _arg("list_directory_with_sizes", "sortBy"), optional()],
) -> str:
    """Get a detailed listing of all files and directories in a specified path, including sizes."""
    fs = Fs(env)
    entries = [(_name(n["path"]), n["type"] == "directory", fs.size(n)) for n in fs.readdir(fs.validate(path))]
    if sortBy == "size":
        ordered = sorted(entries, key=lambda e: -e[2])
    else:
        ordered = sorted(entries, key=lambda e: js.locale_key(e[0]))
    lines = [f"{'[DIR]' if d else '[FILE]'} {name.ljust(30)} {'' if d else js.format_size(size).rjust(10)}"
             for name, d, size in ordered]
    files = sum(1 for e in entries if not e[1])
    total = sum(e[2] for e in entries if not e[1])
    lines += ["", f"Total: {files} files, {len(entries) - files} directories",
              f"Combined size: {js.format_size(total)}"]
    return "\n".join(lines)


def _excluded(rel: str, patterns: list[str]) -> bool:
    for p in patterns:
        if "*" in p:
            if js.minimatch(rel, p):
                return True
        elif js.minimatch(rel, p) or js.minimatch(rel, f"**/{p}") or js.minimatch(rel, f"**/{p}/**"):
            return True
    return False


@APP.tool()
def directory_tree(
    env: AppEnv, path: Annotated[str, _arg("directory_tree", "path")],
    excludePatterns: Annotated[Any, _arg("directory_tree", "excludePatterns"), optional()],
) -> str:
    """Get a recursive tree view of files and directories as a JSON structure."""
    fs = Fs(env)
    patterns = [] if excludePatterns is UNSET else list(excludePatterns)
    root_path = path

    def build(current: str) -> list[dict[str, Any]]:
        valid = fs.validate(current)
        out = []
        for n in fs.readdir(valid):
            name = _name(n["path"])
            rel = js.relative(root_path, js.join(current, name))
            if _excluded(rel, patterns):
                continue
            entry: dict[str, Any] = {"name": name, "type": "directory" if n["type"] == "directory" else "file"}
            if n["type"] == "directory":
                entry["children"] = build(js.join(current, name))
            out.append(entry)
        return out

    # the one answer whose published description promises its whitespace ("2-space indentation")
    return json.dumps(build(root_path), ensure_ascii=False, indent=2)


@APP.tool(mutates=True)
def move_file(env: AppEnv, source: Annotated[str, _arg("move_file", "source")],
              destination: Annotated[str, _arg("move_file", "destination")]) -> str:
    """Move or rename files and directories."""
    fs = Fs(env)
    src = fs.validate(source)
    dst = fs.validate(destination)
    fs.rename(src, dst)
    return f"Successfully moved {source} to {destination}"


@APP.tool()
def search_files(
    env: AppEnv, path: Annotated[str, _arg("search_files", "path")],
    pattern: Annotated[str, _arg("search_files", "pattern")],
    excludePatterns: Annotated[Any, _arg("search_files", "excludePatterns"), optional()],
) -> str:
    """Recursively search for files and directories matching a pattern."""
    fs = Fs(env)
    root = fs.validate(path)
    patterns = [] if excludePatterns is UNSET else list(excludePatterns)
    results: list[str] = []

    def search(current: str) -> None:
        for n in fs.readdir(current):
            full = n["path"]
            try:
                fs.validate(full)
            except ToolFailure:
                continue
            rel = js.relative(root, full)
            if any(js.minimatch(rel, p) for p in patterns):
                continue
            if js.minimatch(rel, pattern):
                results.append(full)
            if n["type"] == "directory":
                search(full)

    search(root)
    return "\n".join(results) if results else "No matches found"


@APP.tool()
def get_file_info(env: AppEnv, path: Annotated[str, _arg("get_file_info", "path")]) -> str:
    """Retrieve detailed metadata about a file or directory."""
    fs = Fs(env)
    n = fs.stat(fs.validate(path))
    mtime = float(n.get("mtime", 0))
    info = [("size", fs.size(n)), ("created", js.js_date(float(n.get("birthtime", mtime)))),
            ("modified", js.js_date(mtime)), ("accessed", js.js_date(float(n.get("atime", mtime)))),
            ("isDirectory", "true" if n["type"] == "directory" else "false"),
            ("isFile", "true" if n["type"] == "file" else "false"), ("permissions", n.get("mode", "644"))]
    return "\n".join(f"{k}: {v}" for k, v in info)


@APP.tool()
def list_allowed_directories(env: AppEnv) -> str:
    """Returns the list of directories that this server is allowed to access."""
    return "Allowed directories:\n" + "\n".join(Fs(env).allowed)


__all__ = ["APP", "Fs", "head_text", "tail_text"]
