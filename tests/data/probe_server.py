"""A tiny stdio MCP server that reports what a real server's sandbox lets it do, for the escape tests.

``python probe_server.py``: one tool, ``probe``, whose text is a JSON object:

* ``writes``: for each path in the call's ``paths``, ``"ok"`` when it opened for writing (created if
  missing, never truncated, nothing written), else the errno's name;
* ``uid``, ``gid``, ``caps`` (the effective capability mask), ``no_new_privs``, ``groups``;
* ``environ``: the whole environment the server runs with; ``mounts``: each mount point's options;
* ``shm``: where a file made in /dev/shm shows up (the name of a file it made there).

It needs only the standard library, so any harness's interpreter runs it.
"""

import json
import os
import sys

TOOLS = [{"name": "probe", "description": "probe", "inputSchema": {
    "type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}}]


def send(msg: dict) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def status(key: str) -> str:
    with open("/proc/self/status") as fh:
        return next((line.split(":", 1)[1].strip() for line in fh if line.startswith(key + ":")), "")


def probe(paths: list[str]) -> dict:
    writes = {}
    for path in paths:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o644))
            writes[path] = "ok"
        except OSError as exc:
            writes[path] = os.strerror(exc.errno) if exc.errno else str(exc)
    with open("/proc/self/mountinfo") as fh:  # mount point -> its options (rw or ro first)
        mounts = {f[4]: f[5] for f in (line.split() for line in fh)}
    return {"writes": writes, "mounts": mounts, "uid": os.getuid(), "gid": os.getgid(), "caps": status("CapEff"),
            "no_new_privs": status("NoNewPrivs"), "groups": os.getgroups(), "environ": dict(os.environ)}


for line in sys.stdin:
    req = json.loads(line)
    method, rid = req.get("method"), req.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": req["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "probe", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        found = probe(req["params"].get("arguments", {}).get("paths", []))
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": json.dumps(found)}]}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
