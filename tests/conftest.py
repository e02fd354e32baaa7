"""Fixtures shared by the whole test suite."""

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def anyio_backend() -> str:
    """Run ``@pytest.mark.anyio`` tests on asyncio only."""
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def start_states_stay_unwritten() -> Iterator[None]:
    """Every episode shares its apps' start states (read-only): after the whole run, none may have changed."""
    yield
    from mcp_persona.apps import App

    written = [f"{module.APP.name}/{context}" for name, module in list(sys.modules.items())
               if name.startswith("mcp_persona.apps.") and isinstance(getattr(module, "APP", None), App)
               for context in module.APP.written_start_states()]
    assert not written, f"shared start states were written to: {', '.join(written)}"


@pytest.fixture
def server() -> Iterator[object]:
    """A scripted model endpoint on loopback (``test_llm_faults.FaultServer``), for the tests that talk to one."""
    from test_llm_faults import FaultServer

    fault = FaultServer()
    fault.thread.start()
    try:
        yield fault
    finally:
        fault.close()
