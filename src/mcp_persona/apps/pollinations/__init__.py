"""MCPollinations: image and audio generation, mirroring pinkpixel-dev/MCPollinations.

Same tool names and arguments: ``generateImageUrl {prompt, model?, seed?, width?, height?, enhance?,
safe?}``, ``generateImage {... , outputPath?, fileName?, format?}``, ``respondAudio {prompt, voice?, seed?,
voiceInstructions?}``, ``listImageModels`` and ``listAudioVoices``. Results are as upstream: the URL tool
returns ``{imageUrl, prompt, width, height, model, seed, enhance, private, nologo, safe}`` as compact
JSON (upstream indents it) with ``https://image.pollinations.ai/prompt/<encodeURIComponent(prompt)>?model=..
&seed=..&width=..&height=..[&enhance=true]&nologo=true&private=true&safe=..``; ``generateImage`` answers
``Generated image from prompt: "..."`` with the metadata and ``Image saved to: <path>`` (upstream also sends
the image bytes, which the simulator does not have); ``respondAudio`` answers ``Audio has been played.``
with the metadata; ``listImageModels`` returns the bare list of model names, ``listAudioVoices``
``{"voices": [...]}``.
Failures read ``Error generating image URL: ...`` / ``Error generating image: ...`` / ``Error generating
audio: ...`` as upstream's, with the invalid model or voice named and the valid ones listed.

Determinism (simulator choices): a missing seed is ``int(sha256(prompt)[:8], 16) % 1_000_000`` instead
of a random one; the default file name is the upstream prompt slug plus the first 8 hex digits of a hash
of the arguments instead of a timestamp and a random suffix (an existing name still gets ``_1``, ``_2``,
as upstream); audio clips get ``audio_<12 hex>`` ids from a hash of their arguments. Every saved image and
played clip is recorded in the tree (the two writes), so a checker can see what was generated. Kept
quirks: an unknown ``format`` falls back to png, as upstream. Invented validation: width and height must
be 64-2048 px, models and voices must be listed ones (upstream passes them to the API unchecked).
"""

from mcp_persona.apps.pollinations.tools import APP

__all__ = ["APP"]
