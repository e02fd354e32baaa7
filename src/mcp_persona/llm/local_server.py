"""The bundled SmolLM2 model as an OpenAI-compatible endpoint on loopback, served by ``llama_cpp.server``.

    with serve_local_model() as base_url:          # e.g. http://127.0.0.1:41234/v1
        client = make_client("openai:smollm2", base_url=base_url)

or from a shell (then ``--model openai:smollm2 --base-url http://127.0.0.1:8080/v1``)::

    python -m mcp_persona.llm.local_server --port 8080

llama-cpp-python's own server app (``llama_cpp.server.app.create_app``) runs under
uvicorn in a background thread, on a socket bound here to 127.0.0.1 (port 0 picks a
free one, with no race). The model's chat template knows no tools, so the server uses a
chat handler of ours, registered as ``mcp-persona-tools``: the same prompt-based
protocol as the in-process ``local`` client (tools listed in the system prompt, the
answer's ``<tool_call>`` blocks parsed strictly), returned as standard OpenAI
``tool_calls``. A request without tools gets the model's own template unchanged.

llama_cpp.server keeps its model in module globals, so one such server runs per process.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from mcp_persona.llm.base import ModelError
from mcp_persona.llm.local import TOOLS_SHARE, bundled_gguf, parse_tool_calls, render_messages

HANDLER_NAME = "mcp-persona-tools"
MODEL_ALIAS = "smollm2"
_running = threading.Lock()


def tool_chat_handler(*, llama: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                      tool_choice: Any = None, functions: Any = None, function_call: Any = None,
                      stream: bool = False, **kwargs: Any) -> Any:
    """A llama-cpp-python chat handler: the GGUF's own template, with our tool protocol on top."""
    base = llama._chat_handlers.get("chat_template.default")
    if base is None:
        from llama_cpp import llama_chat_format

        base = llama_chat_format.get_chat_completion_handler("chatml")
    use_tools = bool(tools) and tool_choice != "none"
    rendered = render_messages(list(messages), list(tools or []) if use_tools else [],
                               tool_budget=int(llama.n_ctx() * TOOLS_SHARE),
                               count_tokens=lambda text: len(llama.tokenize(text.encode())))
    result = base(llama=llama, messages=rendered, stream=stream, **kwargs)
    if stream or not use_tools:
        return result  # a stream is passed through as text: tool calls are parsed only when not streaming
    choice = result["choices"][0]
    content, calls = parse_tool_calls(choice["message"].get("content") or "")
    if calls:
        choice["message"] = {
            "role": "assistant",
            "content": content,
            "tool_calls": [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                           for c in calls],
        }
        choice["finish_reason"] = "tool_calls"
    return result


def register_tool_handler() -> None:
    from llama_cpp import llama_chat_format

    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        HANDLER_NAME, tool_chat_handler, overwrite=True)


def create_app(*, n_ctx: int = 8192, n_threads: int = 2, seed: int = 0, model_alias: str = MODEL_ALIAS) -> Any:
    """llama_cpp.server's FastAPI app over the bundled GGUF (loads the model)."""
    try:
        from llama_cpp.server.app import create_app as llama_create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError as exc:
        raise ModelError("the local server needs llama-cpp-python[server]: pip install 'mcp-persona[local]'") from exc
    register_tool_handler()
    model = ModelSettings(model=str(bundled_gguf()), model_alias=model_alias, n_ctx=n_ctx, n_threads=n_threads,
                          n_threads_batch=n_threads, seed=seed, chat_format=HANDLER_NAME, verbose=False,
                          logits_all=False)  # the server defaults to True: logits of every prompt token
    return llama_create_app(server_settings=ServerSettings(host="127.0.0.1", port=0), model_settings=[model])


def _check_loopback(host: str) -> None:
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"the local model is served on loopback only, not {host!r}")


@contextlib.contextmanager
def serve_local_model(*, host: str = "127.0.0.1", port: int = 0, n_ctx: int = 8192, n_threads: int = 2,
                      seed: int = 0, model_alias: str = MODEL_ALIAS, start_timeout_s: float = 120.0) -> Iterator[str]:
    """Serve the bundled model on ``host:port`` (loopback; port 0: a free one) and yield its base URL (``.../v1``)."""
    import uvicorn

    _check_loopback(host)
    if not _running.acquire(blocking=False):
        raise RuntimeError("a local model server already runs in this process (llama_cpp.server keeps global state)")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        bound = sock.getsockname()[1]
        try:
            app = create_app(n_ctx=n_ctx, n_threads=n_threads, seed=seed, model_alias=model_alias)
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                                   timeout_graceful_shutdown=5))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="local-model-server",
                                      daemon=True)
            thread.start()
            deadline = time.monotonic() + start_timeout_s
            while not server.started:
                if not thread.is_alive():
                    raise ModelError("the local model server stopped while starting", category="connection")
                if time.monotonic() > deadline:
                    raise ModelError(f"the local model server did not start within {start_timeout_s:g} s",
                                     category="timeout")
                time.sleep(0.05)
            url_host = f"[{host}]" if ":" in host else host
            try:
                yield f"http://{url_host}:{bound}/v1"
            finally:
                server.should_exit = True
                thread.join(timeout=30)
        finally:
            sock.close()
            _free_model()
    finally:
        _running.release()


def _free_model() -> None:
    with contextlib.suppress(Exception):
        from llama_cpp.server import app as server_app

        proxy = server_app._llama_proxy
        server_app._llama_proxy = None
        if proxy is not None:
            proxy.free()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the bundled SmolLM2 as an OpenAI-compatible endpoint.")
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    with serve_local_model(host=args.host, port=args.port, n_ctx=args.n_ctx, n_threads=args.threads) as url:
        print(f"serving {MODEL_ALIAS} at {url} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
