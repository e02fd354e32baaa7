"""A tiny stdio MCP server that misbehaves on purpose, for the real-server fault tests.

``python misbehaving_server.py MODE [MARKER]``: it answers ``initialize`` and ``tools/list``
properly, then on ``tools/call`` of ``echo`` it answers, and of ``misbehave`` it does MODE:

* ``hang`` -- never answers;
* ``die`` -- exits at once (code 3) without answering;
* ``garbage`` -- writes a line that is not JSON-RPC to stdout, then never answers;
* ``fill`` -- writes files of 256 KB into its working folder, one every 10 ms, and never answers;
* ``nostart`` (at start-up) -- prints an error to stderr and exits before ``initialize``.

With ``spawn`` in MODE (``hang+spawn``) it first starts a child process that sleeps, to show that
the whole process tree is stopped. MARKER only names the processes for the test to count.
"""

import itertools
import json
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "hang"
TOOLS = [{"name": n, "description": n, "inputSchema": {"type": "object", "properties": {}}}
         for n in ("echo", "misbehave")]


def send(msg: dict) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


if MODE == "nostart":
    sys.stderr.write("cannot open the configuration file\n")
    sys.exit(2)
if "spawn" in MODE:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", *sys.argv[2:]])

for line in sys.stdin:
    req = json.loads(line)
    method, rid = req.get("method"), req.get("id")
    if rid is None:
        continue  # a notification
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": req["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "misbehaving", "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call" and req["params"]["name"] == "echo":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "echo"}]}})
    elif method == "tools/call":
        if MODE.startswith("die"):
            sys.exit(3)
        if MODE.startswith("fill"):
            for i in itertools.count():
                with open(f"fill-{i}.bin", "wb") as f:
                    f.write(b"x" * 256 * 1024)
                time.sleep(0.01)
        if MODE.startswith("garbage"):
            sys.stdout.write("this is not json-rpc\n")
            sys.stdout.flush()
        # hang (and garbage): never answer
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})
