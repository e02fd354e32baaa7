"""The bundled model behind an OpenAI-compatible endpoint on loopback (llama_cpp.server), driven by standard clients."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import anyio
import pytest

from mcp_persona.agents import ModelAgent
from mcp_persona.llm import RetryPolicy, make_client
from mcp_persona.llm.local_server import serve_local_model
from mcp_persona.protocols import load_tasks
from mcp_persona.runner import run_episode

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve_local_model(n_ctx=8192, n_threads=2) as url:
        yield url


def test_the_standard_openai_client_talks_to_it(base_url: str) -> None:
    import openai

    assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
    client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=300)
    assert [m.id for m in client.models.list().data] == ["smollm2"]
    resp = client.chat.completions.create(model="smollm2", messages=[{"role": "user", "content": "Say hello."}],
                                          max_tokens=8, temperature=0.0)
    assert resp.usage is not None and resp.usage.prompt_tokens > 0 and resp.usage.completion_tokens > 0
    assert resp.choices[0].message.content


def test_one_episode_through_the_endpoint(base_url: str) -> None:
    # one attempt: a retry after a client timeout would only queue behind the same llama.cpp context
    client = make_client("openai:smollm2", base_url=base_url, retry=RetryPolicy(max_attempts=1, timeout_s=600),
                         max_tokens=64)  # enough to see an answer or a call; a 135M model rambles on otherwise
    # the bundled task with the shortest prompt (8 tools, ~1.3k tokens): the run is bound by prompt evaluation
    task = next(t for t in load_tasks("persona") if t.id == "social_instagram_003")
    record = anyio.run(lambda: run_episode(task, ModelAgent(client, max_rounds=1)))
    traj = record.trajectory
    assert record.status == "ok", record.error
    assert traj.model == "openai:smollm2" and traj.stop_reason in ("answered", "max_rounds")
    (call,) = traj.model_calls
    assert call.error is None and call.usage.input_tokens > 1000 and call.usage.output_tokens > 0  # tools in prompt
    for tool_call in traj.tool_calls:  # whatever the model asked for went through the real MCP tools
        assert tool_call.server in (None, "instagram") and tool_call.result
    print(f"\nlocal server episode: {call.latency_s:.1f} s, {call.usage.input_tokens} prompt tokens,"
          f" {call.usage.output_tokens} output tokens, {len(traj.tool_calls)} tool calls", file=sys.stderr)


def test_only_loopback() -> None:
    with pytest.raises(ValueError, match="loopback"), serve_local_model(host="0.0.0.0"):
        pass
