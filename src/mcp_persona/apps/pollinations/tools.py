"""The MCPollinations tools over the Pollinations Context-Tree (see ``data/hierarchies/pollinations.json``).

Nothing is random: a missing seed is derived from the prompt, file names and asset ids from a hash of
the call's arguments, and timestamps from the task clock.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import quote

from pydantic import Field

from mcp_persona.apps.base import App, AppEnv, FieldViolation, ToolFailure, compact_json

PREFIX = {
    "generateImageUrl": "Error generating image URL",
    "generateImage": "Error generating image",
    "respondAudio": "Error generating audio",
    "listImageModels": "Error listing image models",
    "listAudioVoices": "Error listing audio voices",
}
TEXT_RESULTS = {"generateImage", "respondAudio"}
FORMATS = ("png", "jpeg", "jpg", "webp")
IMAGE_BASE = "https://image.pollinations.ai"
AUDIO_BASE = "https://text.pollinations.ai"


class PollinationsApp(App):
    def success_payload(self, tool: str, result: Any) -> Any:
        if tool in TEXT_RESULTS and isinstance(result, str):
            return result
        return compact_json(result)

    def error_payload(self, tool: str, failure: ToolFailure) -> Any:
        return f"{PREFIX.get(tool, 'Error')}: {failure.message}"

    def validation_payload(self, tool: str, violations: list[FieldViolation]) -> Any:
        detail = "; ".join(f"{v.field}: {v.message}" for v in violations)
        return self.error_payload(tool, ToolFailure(f"Invalid arguments: {detail}", kind="type"))


APP = PollinationsApp(
    "pollinations",
    title="MCPollinations",
    category="information",
    personalized=False,
    description="Pollinations image URLs, image files and spoken audio answers (MCPollinations).",
    real_server="pinkpixel-dev/MCPollinations",
)


def encode_uri_component(text: str) -> str:
    """JavaScript's encodeURIComponent."""
    return quote(text, safe="-_.!~*'()")


def default_seed(prompt: str) -> int:
    """The seed used when none is given: the first 8 hex digits of sha256(prompt), modulo 1,000,000."""
    return int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) % 1_000_000


def _model(env: AppEnv, model: str) -> str:
    if env.tree.top("image_model", model) is None:
        names = ", ".join(sorted(env.tree.data.get("image_models") or {}))
        raise ToolFailure(f"Invalid model '{model}'. Available models: {names}", kind="not_found")
    return model


def image_url(prompt: str, model: str, seed: int, width: int, height: int, enhance: bool, safe: bool) -> str:
    query = f"model={model}&seed={seed}&width={width}&height={height}"
    if enhance:
        query += "&enhance=true"
    query += f"&nologo=true&private=true&safe={'true' if safe else 'false'}"
    return f"{IMAGE_BASE}/prompt/{encode_uri_component(prompt)}?{query}"


def _url_result(env: AppEnv, prompt: str, model: str, seed: int | None, width: int, height: int, enhance: bool,
                safe: bool) -> dict[str, Any]:
    if not prompt.strip():
        raise ToolFailure("Prompt is required and must be a string", kind="missing")
    _model(env, model)
    seed_ = default_seed(prompt) if seed is None else seed
    return {"imageUrl": image_url(prompt, model, seed_, width, height, enhance, safe), "prompt": prompt,
            "width": width, "height": height, "model": model, "seed": seed_, "enhance": enhance, "private": True,
            "nologo": True, "safe": safe}


def _size() -> Any:
    return Field(1024, ge=64, le=2048, description="Size in pixels (64-2048, default 1024)")


@APP.tool()
def generateImageUrl(
    env: AppEnv,
    prompt: str = Field(min_length=1, description="The text description of the image to generate"),
    model: str = Field("flux", description="Model name (default 'flux'); see listImageModels"),
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="Seed for reproducible results"),
    width: int = _size(),
    height: int = _size(),
    enhance: bool = Field(True, description="Whether to enhance the prompt using an LLM before generating"),
    safe: bool = Field(False, description="Whether to apply content filtering"),
) -> dict[str, Any]:
    """Generate an image URL from a text prompt."""
    return _url_result(env, prompt, model, seed, width, height, enhance, safe)


@APP.tool(mutates=True)
def generateImage(
    env: AppEnv,
    prompt: str = Field(min_length=1, description="The text description of the image to generate"),
    model: str = Field("flux", description="Model name (default 'flux'); see listImageModels"),
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="Seed for reproducible results"),
    width: int = _size(),
    height: int = _size(),
    enhance: bool = Field(True, description="Whether to enhance the prompt using an LLM before generating"),
    safe: bool = Field(False, description="Whether to apply content filtering"),
    outputPath: str = Field("./mcpollinations-output", min_length=1, description="Directory to save the image in"),
    fileName: str = Field("", description="File name without extension (default: from the prompt)"),
    format: str = Field("png", description="png, jpeg, jpg or webp (default png)"),
) -> str:
    """Generate an image, save it to a file (by default) and return its metadata and path."""
    meta = _url_result(env, prompt, model, seed, width, height, enhance, safe)
    if "/" in fileName or "\\" in fileName or fileName in (".", ".."):
        raise ToolFailure(f"fileName must be a bare file name, got '{fileName}'", kind="range")
    ext = format if format in FORMATS else "png"  # upstream warns and falls back to png
    key = json.dumps([prompt, model, meta["seed"], width, height, enhance, safe], ensure_ascii=False)
    asset = hashlib.sha256(key.encode()).hexdigest()
    base = fileName or f"{re.sub(r'[^a-z0-9]', '_', prompt[:20], flags=re.IGNORECASE).lower()}_{asset[:8]}"
    folder = outputPath.rstrip("/") or "/"
    path, n = f"{folder}/{base}.{ext}", 1
    while env.tree.top("image", path) is not None:  # never overwrite: add a numeric suffix, as upstream
        path, n = f"{folder}/{base}_{n}.{ext}", n + 1
    env.tree.create("images", {"file_path": path, "prompt": prompt, "model": model, "seed": meta["seed"],
                               "width": width, "height": height, "enhance": enhance, "safe": safe, "format": ext,
                               "image_url": meta["imageUrl"], "asset_hash": asset, "created_at": env.now()})
    metadata = {k: meta[k] for k in ("prompt", "width", "height", "model", "seed", "enhance", "private", "nologo",
                                      "safe")}
    return (f'Generated image from prompt: "{prompt}"\n\nImage metadata: {compact_json(metadata)}'
            f"\n\nImage saved to: {path}")


@APP.tool(mutates=True)
def respondAudio(
    env: AppEnv,
    prompt: str = Field(min_length=1, description="The text prompt to respond to with audio"),
    voice: str = Field("alloy", description="Voice to use (default 'alloy'); see listAudioVoices"),
    seed: int | None = Field(None, ge=0, le=2**31 - 1, description="Seed for reproducible results"),
    voiceInstructions: str | None = Field(None, description="Additional instructions for voice character/style"),
) -> str:
    """Generate an audio response to a text prompt and play it."""
    if env.tree.top("voice", voice) is None:
        names = ", ".join(env.tree.data.get("voices") or {})
        raise ToolFailure(f"Invalid voice '{voice}'. Available voices: {names}", kind="not_found")
    text = f"{voiceInstructions}\n\n{prompt}" if voiceInstructions else prompt
    query = f"model=openai-audio&voice={voice}" + (f"&seed={seed}" if seed is not None else "")
    url = f"{AUDIO_BASE}/{encode_uri_component(text)}?{query}"
    digest = hashlib.sha256(json.dumps([prompt, voice, seed, voiceInstructions], ensure_ascii=False).encode())
    audio_id, n = f"audio_{digest.hexdigest()[:12]}", 1
    while env.tree.top("audio_clip", audio_id) is not None:
        n += 1
        audio_id = f"audio_{digest.hexdigest()[:12]}_{n}"
    duration = round(max(1.0, len(prompt) / 15), 1)  # ~15 characters a second
    env.tree.create("audio", {"audio_id": audio_id, "prompt": prompt, "voice": voice, "seed": seed,
                              "voiceInstructions": voiceInstructions, "model": "openai-audio",
                              "mime_type": "audio/mpeg", "audio_url": url, "duration_s": duration,
                              "created_at": env.now()})
    metadata = {"prompt": prompt, "voice": voice, "model": "openai-audio", "seed": seed,
                "voiceInstructions": voiceInstructions, "asset_id": audio_id, "duration_s": duration}
    return f"Audio has been played.\n\nAudio metadata: {compact_json(metadata)}"


@APP.tool()
def listImageModels(env: AppEnv) -> list[str]:
    """List available image models."""
    return list(env.tree.data.get("image_models") or {})


@APP.tool()
def listAudioVoices(env: AppEnv) -> dict[str, Any]:
    """List all available audio voices for text-to-speech generation."""
    return {"voices": list(env.tree.data.get("voices") or {})}
