"""A command that needs a missing optional extra names the extra instead of printing a traceback."""

from __future__ import annotations

import sys
from importlib import resources

import pytest

from mcp_persona import cli


def test_a_missing_extra_module_names_the_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: object) -> None:
    def fidelity_without_sklearn(**_: object) -> None:
        raise ModuleNotFoundError("No module named 'sklearn'", name="sklearn")

    monkeypatch.setattr(cli, "app", fidelity_without_sklearn)
    with pytest.raises(SystemExit) as info:
        cli.main()
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "'traverse' extra" in err and 'pip install -e ".[traverse]"' in err and "Traceback" not in err


def test_a_module_of_no_extra_still_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(**_: object) -> None:
        raise ModuleNotFoundError("No module named 'nothing_like_this'", name="nothing_like_this")

    monkeypatch.setattr(cli, "app", broken)
    with pytest.raises(ModuleNotFoundError):
        cli.main()


def test_fidelity_without_the_traverse_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             ) -> None:
    """The real command path: scoring imports sklearn lazily; with it blocked, the user is told what to install."""
    for name in [m for m in sys.modules if m == "sklearn" or m.startswith(("sklearn.", "mcp_persona.traverse"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn now raises ModuleNotFoundError
    pool = resources.files("mcp_persona") / "data" / "traces" / "memory.holdout.jsonl"
    monkeypatch.setattr(sys, "argv", ["mcp-persona", "fidelity", "--pool", str(pool), "--simulator", "memory"])
    with pytest.raises(SystemExit) as info:
        cli.main()
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert "'traverse' extra" in err and "sklearn" in err and "Traceback" not in err
