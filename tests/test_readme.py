"""The documentation's commands do not rot: every ``mcp-persona`` command in a bash block of the README or of
``docs/`` parses against the CLI as written (its subcommands, flags and values exist), and those that run
offline in seconds run for real."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from mcp_persona.cli import app

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """Every command of the README's bash blocks: continuations joined, ``&&`` chains split, comments dropped."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = "" if line.strip().startswith("#") else re.split(r"\s+#\s", line)[0]
            commands += [part.strip() for part in line.split("&&") if part.strip()]
    return commands


def cli_commands() -> list[list[str]]:
    return [shlex.split(c)[1:] for c in readme_commands() if c.startswith("mcp-persona ")]


def parse(args: list[str]) -> Any:
    """Resolve ``args`` down to the leaf command and parse its options (no callback runs). Typer may carry a
    click of its own, so groups are told by what they have, not by class."""
    command: Any = typer.main.get_command(app)
    name = "mcp-persona"
    while hasattr(command, "get_command"):
        with command.make_context(name, list(args), resilient_parsing=True) as ctx:
            sub = command.get_command(ctx, args[0])
        assert sub is not None, f"no command {args[0]!r}"
        command, name, args = sub, args[0], args[1:]
    command.make_context(name, list(args))  # raises on an unknown flag or a bad value
    return command


def test_the_readme_has_commands_and_a_wrong_one_is_caught() -> None:
    assert len(cli_commands()) >= 20
    for wrong in (["run", "--no-such-flag"], ["run", "--agent", "nobody"], ["no-such-command"],
                  ["gen", "no-such-step"]):
        with pytest.raises(Exception):  # noqa: B017 - click's usage errors, or the missing command
            parse(wrong)


@pytest.mark.parametrize("args", cli_commands(), ids=lambda a: " ".join(a)[:60])
def test_every_readme_command_parses(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # where a reader runs them: the checkout's paths resolve, and files an earlier command writes exist
    (tmp_path / "src").symlink_to(ROOT / "src")
    for arg in args:
        path = tmp_path / arg
        if (re.fullmatch(r"[\w.-]+(/[\w.-]+)*\.jsonl?", arg) and not path.exists()
                and path.resolve().is_relative_to(tmp_path.resolve())):  # never into the checkout (src/)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
    monkeypatch.chdir(tmp_path)
    parse(args)


# Run as written, in a scratch folder: offline and quick. The rest need an API key, a model download,
# files the reader makes first (review.jsonl), or minutes; their flags are checked above.
RUNS = [
    "mcp-persona run --suite persona --agent reference",
    'mcp-persona route "current share price of AAPL" --top 3 --json',
    "mcp-persona gen graph --servers lark,obsidian",
]


@pytest.mark.slow
@pytest.mark.parametrize("command", RUNS)
def test_readme_commands_run(command: str, tmp_path: Path) -> None:
    assert command in readme_commands(), "the README no longer has this command: update RUNS"
    exe = Path(sys.executable).with_name("mcp-persona")
    args = shlex.split(command)[1:]
    done = subprocess.run([str(exe), *args], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "120"})
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_relative_link_of_the_documentation_resolves() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://")):
                assert (page.parent / target).exists(), f"{page.name} links to {target}, which is not there"
