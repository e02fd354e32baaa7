"""Model clients without a network: spec parsing, pricing, usage accounting, Anthropic conversion."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from mcp_persona.llm import ERROR_CATEGORIES, ModelError, UsageDetail, cost_usd, make_client, parse_spec, pricing
from mcp_persona.llm.anthropic_client import (
    AnthropicChatClient,
    anthropic_usage,
    parse_anthropic_message,
    to_anthropic_messages,
    to_anthropic_tools,
)
from mcp_persona.llm.local import LocalChatClient
from mcp_persona.llm.openai_client import OpenAIChatClient, openai_usage, parse_chat_completion
from mcp_persona.llm.pricing import PriceOverride, price_source, pricing_version, unpriced_reason
from mcp_persona.trajectory import Usage

# --- spec parsing -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("openai:gpt-4o", ("openai", "gpt-4o")),
        (" OpenAI:gpt-4o ", ("openai", "gpt-4o")),
        ("openai:llama3.1:8b", ("openai", "llama3.1:8b")),  # an Ollama tag keeps its colon
        ("openai:Qwen/Qwen2.5-7B-Instruct", ("openai", "Qwen/Qwen2.5-7B-Instruct")),
        ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("local", ("local", "")),
    ],
)
def test_parse_spec(spec: str, parsed: tuple[str, str]) -> None:
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize("spec", ["gpt-4o", "mistral:large", "openai:", "openai", "anthropic: ", "local:x", ""])
def test_bad_specs_are_clear_value_errors(spec: str) -> None:
    with pytest.raises(ValueError, match=r"provider|names no model|spelled just"):
        parse_spec(spec)
    with pytest.raises(ValueError):
        make_client(spec, base_url="http://127.0.0.1:9/v1")


def test_make_client_builds_each_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    c = make_client("openai:smollm2", base_url="http://127.0.0.1:9/v1", timeout_s=12.5, max_concurrency=3)
    assert isinstance(c, OpenAIChatClient) and c.name == "openai:smollm2"
    assert c.retry.timeout_s == 12.5 and c.max_concurrency == 3
    a = make_client("anthropic:claude-haiku-4-5")  # its own key variable by default
    assert isinstance(a, AnthropicChatClient) and a.name == "anthropic:claude-haiku-4-5"
    assert isinstance(make_client("local"), LocalChatClient)
    with pytest.raises(ValueError, match="base URL"):
        make_client("local", base_url="http://127.0.0.1:9/v1")


def test_a_missing_key_is_an_auth_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    for spec, var in (("openai:gpt-4o", "OPENAI_API_KEY"), ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")):
        with pytest.raises(ModelError, match=var) as info:
            make_client(spec)
        assert info.value.category == "auth" and not info.value.retryable


def test_model_error_carries_its_category() -> None:
    plain = ModelError("HTTP 503")
    assert str(plain) == "HTTP 503" and plain.category is None and not plain.retryable
    err = ModelError("HTTP 429: slow down", category="rate_limit", status_code=429, retry_after="3")
    assert str(err) == "[rate_limit] HTTP 429: slow down" and err.retryable
    err.after_attempts(3, ["server_error", "timeout", "rate_limit"])
    assert str(err) == "[rate_limit] HTTP 429: slow down (after 3 attempts: server_error, timeout, rate_limit)"
    assert set(ERROR_CATEGORIES) == {"rate_limit", "server_error", "timeout", "connection", "auth", "bad_request",
                                     "malformed_response", "request_limit"}
    with pytest.raises(ValueError):
        ModelError("x", category="gremlins")  # type: ignore[arg-type]


# --- pricing ------------------------------------------------------------------------------------------------------


def test_prices_come_from_the_database_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import version

    assert pricing_version() == f"genai-prices {version('genai-prices')}" == price_source(None)
    assert price_source(PriceOverride(1.0, 2.0)) == "override"

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a price lookup reached for the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    pricing._snapshot.cache_clear()
    pricing._provider_at.cache_clear()
    assert cost_usd("openai:gpt-4o", UsageDetail(prompt_tokens=1_000_000)) == pytest.approx(2.5)
    assert cost_usd("openai:deepseek-chat", UsageDetail(prompt_tokens=1), base_url="https://api.deepseek.com/v1")
    assert not [t for t in threading.enumerate() if t.name.startswith("genai_prices")]  # no updater started


def test_cost_of_a_known_openai_model_by_hand() -> None:
    # gpt-4o: $2.50 input, $1.25 cached input, $10 output per 1M tokens
    usage = UsageDetail(prompt_tokens=10_000, cached_tokens=4_000, completion_tokens=1_000, reasoning_tokens=300)
    expected = (6_000 * 2.50 + 4_000 * 1.25 + 1_000 * 10.0) / 1e6  # reasoning is inside completion: not twice
    assert expected == pytest.approx(0.03)
    assert cost_usd("openai:gpt-4o", usage) == pytest.approx(expected)
    assert cost_usd("gpt-4o", usage) == pytest.approx(expected)  # a bare name
    assert cost_usd("openai:gpt-4o-2024-08-06", usage) == pytest.approx(expected)  # a dated snapshot
    # an older snapshot has its own price ($5 / $15), never the alias's
    plain = UsageDetail(prompt_tokens=10_000, completion_tokens=1_000)
    assert cost_usd("openai:gpt-4o-2024-05-13", plain) == pytest.approx((10_000 * 5.0 + 1_000 * 15.0) / 1e6)
    # o3 ($2 / $8): 500k of the 1M output tokens were reasoning, billed once as output
    thought = UsageDetail(prompt_tokens=1_000_000, completion_tokens=1_000_000, reasoning_tokens=500_000)
    assert cost_usd("openai:o3", thought) == pytest.approx(2.0 + 8.0)


def test_cost_of_a_known_anthropic_model_by_hand() -> None:
    # claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per 1M tokens
    usage = anthropic_usage({"input_tokens": 1_000, "cache_read_input_tokens": 1_500,
                             "cache_creation_input_tokens": 500, "output_tokens": 200})
    assert usage == UsageDetail(prompt_tokens=3_000, cached_tokens=1_500, cache_write_tokens=500,
                                completion_tokens=200)
    expected = (1_000 * 3.0 + 1_500 * 0.30 + 500 * 3.75 + 200 * 15.0) / 1e6
    assert cost_usd("anthropic:claude-sonnet-4-5", usage) == pytest.approx(expected) == pytest.approx(0.008325)
    assert cost_usd("claude-sonnet-4-5-20250929", usage) == pytest.approx(expected)
    # past 200k prompt tokens the whole request is billed at the long-context rates ($6 / $22.50)
    long = UsageDetail(prompt_tokens=250_000, completion_tokens=1_000)
    assert cost_usd("anthropic:claude-sonnet-4-5", long) == pytest.approx((250_000 * 6.0 + 1_000 * 22.5) / 1e6)


def test_cost_from_a_plain_usage_and_the_local_model() -> None:
    assert cost_usd("openai:gpt-4o-mini", Usage(input_tokens=1_000_000, output_tokens=1_000_000)) == pytest.approx(
        0.15 + 0.60)
    assert cost_usd("openai:gpt-4o-mini", {"prompt_tokens": 2_000_000}) == pytest.approx(0.30)
    assert cost_usd("local:SmolLM2-135M-Instruct", UsageDetail(prompt_tokens=5_000, completion_tokens=100)) == 0.0
    assert cost_usd("local", UsageDetail(prompt_tokens=5_000)) == 0.0


def test_a_known_providers_endpoint_prices_at_its_rates() -> None:
    # a base URL the database knows decides the provider: OpenRouter's, DeepSeek's rates; a local server's none
    usage = UsageDetail(prompt_tokens=1_000_000, completion_tokens=1_000_000)
    assert cost_usd("openai:deepseek-chat", usage) is None  # not OpenAI's model
    assert cost_usd("openai:deepseek-chat", usage, base_url="https://api.deepseek.com/v1") is not None
    for model, url in (("openai:anthropic/claude-sonnet-4.5", "https://openrouter.ai/api/v1"),
                       ("openai:gemini-2.5-flash", "https://generativelanguage.googleapis.com/v1beta/openai/"),
                       ("openai:llama-3.3-70b-versatile", "https://api.groq.com/openai/v1")):
        assert cost_usd(model, usage, base_url=url) is not None, model
        assert unpriced_reason(model, base_url=url) is None
    assert cost_usd("openai:Qwen/Qwen2.5-7B-Instruct", usage, base_url="http://127.0.0.1:8000/v1") is None
    # a gateway at another address forwarding to the spec's provider is priced as that provider
    assert cost_usd("openai:gpt-4o", usage, base_url="http://127.0.0.1:4000/v1") == pytest.approx(12.5)


@pytest.mark.parametrize(
    "model",
    [
        "openai:smollm2",  # a model on a local endpoint
        "openai:llama3.1:8b",
        "anthropic:gpt-4o",  # the right name under the wrong provider
        "openai:claude-sonnet-4-5",
        "mystery",
        "",
        None,
    ],
)
def test_an_unknown_model_costs_none_and_says_why(model: str | None) -> None:
    assert cost_usd(model, UsageDetail(prompt_tokens=1_000, completion_tokens=10)) is None
    reason = unpriced_reason(model)
    assert reason is not None
    if model:
        assert reason == f"no price for {model} in {pricing_version()}; pass --price-in/--price-out"
    assert unpriced_reason("openai:gpt-4o") is None and unpriced_reason("local") is None


def test_an_unknown_cached_rate_is_not_guessed() -> None:
    # gpt-4o-2024-05-13 has no cached-input price in the database: cached tokens leave the cost unknown
    assert cost_usd("openai:gpt-4o-2024-05-13", UsageDetail(prompt_tokens=1_000, cached_tokens=10)) is None


def test_a_price_override_prices_any_model() -> None:
    price = PriceOverride(input=0.2, output=0.8)
    usage = UsageDetail(prompt_tokens=3_000_000, cached_tokens=1_000_000, completion_tokens=500_000,
                        reasoning_tokens=100_000)
    # no cached price given: cached tokens cost the input price; reasoning is inside the completion
    assert cost_usd("openai:my-finetune", usage, override=price) == pytest.approx(3 * 0.2 + 0.5 * 0.8)
    cached = PriceOverride(input=0.2, output=0.8, cached_input=0.05)
    assert cost_usd("openai:my-finetune", usage, override=cached) == pytest.approx(2 * 0.2 + 0.05 + 0.5 * 0.8)
    # it wins over the database too, and the model needs no name there
    assert cost_usd("openai:gpt-4o", UsageDetail(prompt_tokens=1_000_000), override=price) == pytest.approx(0.2)
    assert unpriced_reason("openai:my-finetune", override=price) is None
    assert PriceOverride.from_flags(None, None) is None
    assert PriceOverride.from_flags(1, 2, 0.5) == PriceOverride(1.0, 2.0, 0.5)
    for bad in ((1.0, None, None), (None, 2.0, None), (None, None, 0.5)):
        with pytest.raises(ValueError, match="--price-in and --price-out"):
            PriceOverride.from_flags(*bad)
    with pytest.raises(ValueError, match="non-negative"):
        PriceOverride(-1.0, 2.0)
    with pytest.raises(ValueError, match="costs nothing"):
        make_client("local", price=price)


# --- usage accounting ------------------------------------------------------------------------------------------------


def openai_answer(**message: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 2_000, "completion_tokens": 150, "total_tokens": 2_150,
                  "prompt_tokens_details": {"cached_tokens": 1_024, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 64, "audio_tokens": 0}},
    }


def test_openai_usage_details() -> None:
    resp = parse_chat_completion(openai_answer(content="hi"))
    assert resp.usage == Usage(input_tokens=2_000, output_tokens=150)
    assert resp.usage_detail == UsageDetail(prompt_tokens=2_000, completion_tokens=150, cached_tokens=1_024,
                                            reasoning_tokens=64)
    assert resp.model == "gpt-4o-2024-08-06"
    # llama.cpp, vLLM and Ollama send no details
    assert openai_usage({"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": None}) == UsageDetail(
        prompt_tokens=12, completion_tokens=3)
    assert openai_usage(None) is None
    no_usage = {**openai_answer(content="x"), "usage": None}
    assert parse_chat_completion(no_usage).usage == Usage() and parse_chat_completion(no_usage).usage_detail is None


def test_usage_details_add_up() -> None:
    a = UsageDetail(prompt_tokens=10, completion_tokens=2, cached_tokens=4, cache_write_tokens=1, reasoning_tokens=1)
    b = UsageDetail(prompt_tokens=5, completion_tokens=3, cached_tokens=0, cache_write_tokens=2, reasoning_tokens=2)
    assert a + b == UsageDetail(prompt_tokens=15, completion_tokens=5, cached_tokens=4, cache_write_tokens=3,
                                reasoning_tokens=3)
    assert (a + b).to_usage() == Usage(input_tokens=15, output_tokens=5)


def test_openai_tool_calls_pass_through_verbatim() -> None:
    resp = parse_chat_completion(openai_answer(content=None, tool_calls=[
        {"id": "call_a", "type": "function", "function": {"name": "t", "arguments": '{"q": '}},  # malformed: kept
        {"type": "function", "function": {"name": "u", "arguments": {"x": 1}}},  # an object and no id
        {"id": "call_c", "type": "custom", "custom": {"name": "v", "input": "..."}},  # not a function: dropped
        {"id": "call_d", "type": "function", "function": {"name": None, "arguments": None}},
    ]))
    assert [(c.id, c.name, c.arguments) for c in resp.tool_calls] == [
        ("call_a", "t", '{"q": '), ("call_1", "u", '{"x": 1}'), ("call_d", "", "")]
    assert resp.content is None and resp.finish_reason == "tool_calls"


@pytest.mark.parametrize("body", [{"choices": []}, {"id": "x"}, {"choices": [{"index": 0}]}, ["not", "a", "dict"]])
def test_an_unusable_answer_is_malformed(body: Any) -> None:
    with pytest.raises(ModelError) as info:
        parse_chat_completion(body)
    assert info.value.category == "malformed_response" and info.value.retryable


def test_openai_request_shape() -> None:
    local = OpenAIChatClient("smollm2", base_url="http://127.0.0.1:9/v1", max_tokens=64)
    req = local.request([{"role": "user", "content": "hi"}], [])
    assert req == {"model": "smollm2", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0,
                   "max_tokens": 64}
    reasoning = OpenAIChatClient("gpt-5-mini", base_url="https://api.openai.com/v1", max_tokens=64)
    req = reasoning.request([{"role": "user", "content": "hi"}], [{"type": "function", "function": {"name": "t"}}])
    assert "temperature" not in req and req["max_completion_tokens"] == 64 and req["tools"]


# --- Anthropic conversion ------------------------------------------------------------------------------------------

TOOLS = [
    {"type": "function", "function": {"name": "lark__calendar_list", "description": "List calendars.",
                                      "parameters": {"type": "object", "properties": {"page_size": {"type": "integer"}},
                                                     "required": []}}},
    {"type": "function", "function": {"name": "lark__whoami", "description": ""}},
]

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You are an assistant."},
    {"role": "system", "content": "Today is Monday."},
    {"role": "user", "content": "List my calendars."},
    {"role": "assistant", "content": "Let me look.", "tool_calls": [
        {"id": "toolu_1", "type": "function",
         "function": {"name": "lark__calendar_list", "arguments": '{"page_size": 5}'}},
        {"id": "toolu_2", "type": "function", "function": {"name": "lark__whoami", "arguments": ""}},
    ]},
    {"role": "tool", "tool_call_id": "toolu_1", "name": "lark__calendar_list", "content": '{"items": []}'},
    {"role": "tool", "tool_call_id": "toolu_2", "name": "lark__whoami", "content": "Error: boom"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "toolu_3", "type": "function",
         "function": {"name": "lark__calendar_list", "arguments": '{"page_size": '}},
    ]},
    {"role": "tool", "tool_call_id": "toolu_3", "name": "lark__calendar_list",
     "content": "Error: the arguments are not valid JSON."},
    {"role": "user", "content": [{"type": "text", "text": "Any luck?"}]},
]


def test_openai_messages_become_anthropic_turns() -> None:
    system, turns = to_anthropic_messages(CONVERSATION)
    assert system == "You are an assistant.\n\nToday is Monday."
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant", "user"]  # strictly alternating
    assert turns[0]["content"] == [{"type": "text", "text": "List my calendars."}]
    assert turns[1]["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "lark__calendar_list", "input": {"page_size": 5}},
        {"type": "tool_use", "id": "toolu_2", "name": "lark__whoami", "input": {}},
    ]
    assert turns[2]["content"] == [  # both results of one turn share one user turn
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"items": []}'},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Error: boom"},
    ]
    # arguments that never parsed are shown as they were, not replaced by a guess
    assert turns[3]["content"] == [{"type": "tool_use", "id": "toolu_3", "name": "lark__calendar_list",
                                    "input": {"_unparsed_arguments": '{"page_size": '}}]
    assert turns[4]["content"] == [  # a tool result and the next user message merge into one turn
        {"type": "tool_result", "tool_use_id": "toolu_3", "content": "Error: the arguments are not valid JSON."},
        {"type": "text", "text": "Any luck?"},
    ]
    json.dumps(turns)  # plain JSON, ready for the wire


def test_openai_tools_become_anthropic_tools() -> None:
    assert to_anthropic_tools(TOOLS) == [
        {"name": "lark__calendar_list", "description": "List calendars.",
         "input_schema": {"type": "object", "properties": {"page_size": {"type": "integer"}}, "required": []}},
        {"name": "lark__whoami", "input_schema": {"type": "object", "properties": {}}},
    ]


def test_the_anthropic_request() -> None:
    c = AnthropicChatClient("claude-haiku-4-5", base_url="http://127.0.0.1:9", max_tokens=512)
    req = c.request(CONVERSATION[:3], TOOLS)
    assert req["system"] == "You are an assistant.\n\nToday is Monday." and req["max_tokens"] == 512
    assert [t["name"] for t in req["tools"]] == ["lark__calendar_list", "lark__whoami"]
    assert all(m["role"] != "system" for m in req["messages"])
    # the SDK has no sampling parameters: none is sent unless asked for, and then as a raw field
    assert "temperature" not in req and "extra_body" not in req
    hot = AnthropicChatClient("claude-haiku-4-5", base_url="http://127.0.0.1:9", temperature=0.0)
    assert hot.request(CONVERSATION[2:3], [])["extra_body"] == {"temperature": 0.0}
    assert "tools" not in c.request(CONVERSATION[2:3], []) and "system" not in c.request(CONVERSATION[2:3], [])


def test_an_anthropic_answer_becomes_a_chat_response() -> None:
    resp = parse_anthropic_message({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_9", "name": "lark__calendar_list", "input": {"page_size": 5}},
            {"type": "tool_use", "id": "toolu_10", "name": "lark__whoami", "input": {}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 40, "output_tokens": 30, "cache_read_input_tokens": 2_000,
                  "cache_creation_input_tokens": 0},
    })
    assert resp.content == "Checking." and resp.finish_reason == "tool_calls"
    assert [(c.id, c.name, json.loads(c.arguments)) for c in resp.tool_calls] == [
        ("toolu_9", "lark__calendar_list", {"page_size": 5}), ("toolu_10", "lark__whoami", {})]
    assert resp.usage == Usage(input_tokens=2_040, output_tokens=30)
    assert resp.usage_detail == UsageDetail(prompt_tokens=2_040, completion_tokens=30, cached_tokens=2_000)
    assert cost_usd("anthropic:" + (resp.model or ""), resp.usage_detail) == pytest.approx(
        (40 * 1.0 + 2_000 * 0.10 + 30 * 5.0) / 1e6)
    final = parse_anthropic_message({"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
                                     "usage": {"input_tokens": 5, "output_tokens": 1}})
    assert final.content == "Done." and final.finish_reason == "stop" and not final.tool_calls
    with pytest.raises(ModelError) as info:
        parse_anthropic_message({"type": "error"})
    assert info.value.category == "malformed_response"


# --- the local server's chat handler (no model: a stand-in for llama.cpp) ------------------------------------------


class FakeLlama:
    def __init__(self, text: str) -> None:
        self.text = text
        self.seen: list[dict[str, Any]] = []
        self._chat_handlers = {"chat_template.default": self.template}

    def n_ctx(self) -> int:
        return 8192

    def tokenize(self, text: bytes) -> list[int]:
        return list(range(len(text) // 3))

    def template(self, *, llama: Any, messages: list[dict[str, Any]], stream: bool = False, **kw: Any) -> Any:
        self.seen = messages
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "smollm2",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": self.text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def test_the_local_server_handler_speaks_openai_tool_calls() -> None:
    pytest.importorskip("llama_cpp")
    from mcp_persona.llm.local_server import tool_chat_handler

    llama = FakeLlama('Sure.<tool_call>{"name": "lark__calendar_list", "arguments": {"page_size": 2}}</tool_call>'
                      "<tool_call>{not json}</tool_call>")
    out = tool_chat_handler(llama=llama, messages=CONVERSATION[:3], tools=TOOLS, temperature=0.0)
    assert "# Tools" in llama.seen[0]["content"] and "lark__calendar_list" in llama.seen[0]["content"]
    resp = parse_chat_completion(out)  # what an OpenAI client makes of it
    assert resp.finish_reason == "tool_calls" and resp.content == "Sure."
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [
        ("lark__calendar_list", '{"page_size": 2}'), ("", "{not json}")]  # malformed: recorded, not guessed
    plain = tool_chat_handler(llama=FakeLlama("Hello."), messages=CONVERSATION[2:3], tools=None)
    assert parse_chat_completion(plain).content == "Hello." and not parse_chat_completion(plain).tool_calls


def test_the_local_model_says_when_it_loads_how_long_it_took_and_its_first_answer(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import sys
    import types

    from mcp_persona.llm import local

    class Loaded(FakeLlama):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__("Done.")
            self.kwargs = kwargs

        def set_seed(self, seed: int) -> None:
            pass

        def create_chat_completion(self, **kw: Any) -> Any:
            return self.template(llama=self, **kw)

    said: list[str] = []
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=Loaded))
    monkeypatch.setattr(local, "bundled_gguf", lambda: tmp_path / local.GGUF_NAME)
    monkeypatch.setattr(LocalChatClient, "_llama", None)
    monkeypatch.setattr(LocalChatClient, "announce", staticmethod(said.append))
    client = LocalChatClient()
    for _ in range(2):
        assert client._complete([{"role": "user", "content": "hi"}], []).content == "Done."
    assert said[0] == f"local model: loading {local.GGUF_NAME} into llama.cpp (2 threads, 8,192-token window)"
    assert said[1].startswith("local model: loaded in ") and "its first answer reads its whole prompt" in said[1]
    assert said[2].startswith("local model: first answer in ") and said[2].endswith(" s")
    assert len(said) == 3  # once a process: the second answer and the loaded model say nothing more
