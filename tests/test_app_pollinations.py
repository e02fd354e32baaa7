"""The MCPollinations app through the real MCP path: every tool's success values and its four error classes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from app_harness import CLOCK, AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps.base import AppEnv
from mcp_persona.apps.pollinations.tools import default_seed

APP = get_app("pollinations")
PROMPT = "A poster for the spring campaign, pastel"

H = AppHarness(APP)
call, ok = H.call_text, H.ok
env = H.env_fixture()


@pytest.mark.anyio
async def test_generate_image_url_is_deterministic(env: AppEnv) -> None:
    before = env.tree.hash()
    body = json.loads(await ok(env, "generateImageUrl", {"prompt": PROMPT, "seed": 42, "width": 768}))
    assert body["imageUrl"] == ("https://image.pollinations.ai/prompt/A%20poster%20for%20the%20spring%20campaign%2C"
                                "%20pastel?model=flux&seed=42&width=768&height=1024&enhance=true&nologo=true"
                                "&private=true&safe=false")
    assert (body["model"], body["private"], body["nologo"], body["safe"]) == ("flux", True, True, False)
    again = json.loads(await ok(env, "generateImageUrl", {"prompt": PROMPT, "model": "turbo", "enhance": False}))
    assert again["seed"] == default_seed(PROMPT) == int(hashlib.sha256(PROMPT.encode()).hexdigest()[:8], 16) % 10**6
    assert "enhance=true" not in again["imageUrl"] and "model=turbo" in again["imageUrl"]
    assert env.tree.hash() == before


@pytest.mark.anyio
async def test_generate_image_records_the_file(env: AppEnv) -> None:
    text = await ok(env, "generateImage", {"prompt": PROMPT, "seed": 7})
    path = text.rsplit("Image saved to: ", 1)[1]
    assert path.startswith("./mcpollinations-output/a_poster_for_the_spr_") and path.endswith(".png")
    img = env.tree.data["images"][path]
    assert (img["prompt"], img["seed"], img["model"], img["created_at"]) == (PROMPT, 7, "flux", CLOCK.timestamp() + 1)
    second = (await ok(env, "generateImage", {"prompt": PROMPT, "seed": 7})).rsplit("Image saved to: ", 1)[1]
    assert second == path.removesuffix(".png") + "_1.png"  # never overwrites
    named = await ok(env, "generateImage", {"prompt": "logo", "fileName": "orbit-logo", "format": "webp",
                                            "outputPath": "/tmp/out", "width": 512, "height": 512})
    assert named.endswith("Image saved to: /tmp/out/orbit-logo.webp")
    odd = await ok(env, "generateImage", {"prompt": "logo", "fileName": "odd", "format": "bmp"})
    assert odd.endswith("/odd.png")  # an unknown format falls back to png, as upstream
    assert set(env.tree.data["images"]) == {path, second, "/tmp/out/orbit-logo.webp", "./mcpollinations-output/odd.png"}


@pytest.mark.anyio
async def test_respond_audio_records_the_clip(env: AppEnv) -> None:
    text = await ok(env, "respondAudio", {"prompt": "Good morning team", "voice": "nova", "seed": 3})
    assert text.startswith("Audio has been played.\n\nAudio metadata: ")
    meta = json.loads(text.split("Audio metadata: ", 1)[1])
    clip = env.tree.data["audio"][meta["asset_id"]]
    assert (clip["voice"], clip["seed"], clip["model"]) == ("nova", 3, "openai-audio")
    assert clip["audio_url"] == "https://text.pollinations.ai/Good%20morning%20team?model=openai-audio&voice=nova&seed=3"
    assert meta["asset_id"].startswith("audio_") and len(env.tree.data["audio"]) == 1


@pytest.mark.anyio
async def test_lists(env: AppEnv) -> None:
    assert json.loads(await ok(env, "listImageModels", {})) == ["flux", "turbo", "kontext", "gptimage"]
    voices = json.loads(await ok(env, "listAudioVoices", {}))["voices"]
    assert voices[:6] == ["alloy", "echo", "fable", "onyx", "nova", "shimmer"] and len(voices) == 13


ERRORS = [
    ("generateImageUrl", {"prompt": 5}, "Error generating image URL: Invalid arguments", "prompt"),
    ("generateImage", {"prompt": "x", "width": "wide"}, "Error generating image: Invalid arguments", "width"),
    ("respondAudio", {"prompt": ["hi"]}, "Error generating audio: Invalid arguments", "prompt"),
    ("generateImageUrl", {}, "Error generating image URL: Invalid arguments", "prompt"),
    ("respondAudio", {"voice": "nova"}, "Error generating audio: Invalid arguments", "prompt"),
    ("generateImage", {"model": "flux"}, "Error generating image: Invalid arguments", "prompt"),
    ("generateImageUrl", {"prompt": "x", "width": 4096}, "Error generating image URL", "less than or equal to 2048"),
    ("generateImage", {"prompt": "x", "height": 10}, "Error generating image", "greater than or equal to 64"),
    ("generateImageUrl", {"prompt": "x", "seed": -1}, "Error generating image URL", "greater than or equal to 0"),
    ("generateImageUrl", {"prompt": "x", "model": "dalle"}, "Error generating image URL", "Invalid model 'dalle'"),
    ("generateImage", {"prompt": "x", "model": "midjourney"}, "Error generating image", "Available models"),
    ("respondAudio", {"prompt": "hi", "voice": "robot"}, "Error generating audio", "Invalid voice 'robot'"),
    ("generateImage", {"prompt": "x", "fileName": "../escape"}, "Error generating image", "bare file name"),
    ("generateImageUrl", {"prompt": "   "}, "Error generating image URL", "Prompt is required"),
]


@pytest.mark.parametrize(("tool", "args", "prefix", "needle"), ERRORS)
@pytest.mark.anyio
async def test_errors_leave_state_unchanged(env: AppEnv, tool: str, args: dict[str, Any], prefix: str,
                                            needle: str) -> None:
    before = env.tree.hash()
    err, text = await call(env, tool, args)
    assert err and text.startswith(prefix), text
    assert needle in text, text
    assert env.tree.hash() == before
