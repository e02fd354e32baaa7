"""The Context7 app through the real MCP path: both tools' success paths and their rejections."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from app_harness import AppHarness
from mcp_persona.apps import get_app
from mcp_persona.apps._corpus import estimate_tokens
from mcp_persona.apps.base import AppEnv

APP = get_app("context7")
H = AppHarness(APP, read_only=True)
ok, rejected = H.ok, H.rejected
RULE = "\n\n" + "-" * 40 + "\n\n"
env = H.env_fixture()


def ids(text: str) -> list[str]:
    return re.findall(r"^- Context7-compatible library ID: (\S+)$", text, flags=re.M)


def titles(text: str) -> list[str]:
    return re.findall(r"^TITLE: (.*)$", text, flags=re.M)


def test_catalog() -> None:
    assert APP.context_ids() == ["default"] and APP.personalized is False
    libs = APP.load_context("default")["libraries"]
    assert len(libs) == 16
    for wanted in (
        "/facebook/react",
        "/vercel/next.js",
        "/fastapi/fastapi",
        "/pydantic/pydantic",
        "/pandas-dev/pandas",
        "/numpy/numpy",
        "/modelcontextprotocol/python-sdk",
        "/langchain-ai/langchain",
        "/django/django",
        "/vuejs/core",
        "/expressjs/express",
        "/pytorch/pytorch",
    ):
        assert len(libs[wanted]["snippets"]) >= 5, wanted


@pytest.mark.anyio
async def test_tool_names_are_the_real_ones(env: AppEnv) -> None:
    async with Client(APP.server(env)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"resolve-library-id", "get-library-docs"}
    schema = tools["get-library-docs"].input_schema
    assert schema["required"] == ["context7CompatibleLibraryID"]
    assert set(schema["properties"]) == {"context7CompatibleLibraryID", "topic", "tokens"}


# -- resolve-library-id -----------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_resolve_exact_partial_and_word_matches(env: AppEnv) -> None:
    text = await ok(env, "resolve-library-id", {"libraryName": "react"})
    assert text.startswith("Available Libraries (top matches):\n\nEach result lists:\n- Library ID:")
    assert ids(text) == ["/facebook/react", "/facebook/react-native", "/remix-run/react-router", "/vercel/next.js"]
    assert (
        "- Title: React\n- Context7-compatible library ID: /facebook/react\n- Description: The library for web and"
        in text
    )
    assert (
        "- Code Snippets: 2135\n- Trust Score: 10\n- Versions: v19.1.0, v18.3.1\n----------\n- Title: React Native"
        in text
    )
    assert ids(await ok(env, "resolve-library-id", {"libraryName": "torch"})) == ["/pytorch/pytorch"]
    assert ids(await ok(env, "resolve-library-id", {"libraryName": "MCP"})) == [
        "/modelcontextprotocol/python-sdk",
        "/modelcontextprotocol/typescript-sdk",
    ]
    assert ids(await ok(env, "resolve-library-id", {"libraryName": "vector store retrieval"})) == [
        "/langchain-ai/langchain"
    ]


@pytest.mark.anyio
async def test_resolve_rejections(env: AppEnv) -> None:
    await rejected(env, "resolve-library-id", {"libraryName": 7}, "libraryName: Input should be a valid string")
    await rejected(
        env,
        "resolve-library-id",
        {},
        "MCP error -32602: Invalid arguments for tool resolve-library-id: libraryName: Field required",
    )
    await rejected(
        env, "resolve-library-id", {"libraryName": ""}, "libraryName: String should have at least 1 character"
    )
    await rejected(env, "resolve-library-id", {"libraryName": "   "}, "libraryName must not be blank")
    await rejected(
        env,
        "resolve-library-id",
        {"libraryName": "cobol mainframe"},
        "No documentation libraries found matching your query.",
    )
    await rejected(
        env, "resolve-library-id", {"libraryName": "react", "query": "hooks"}, "query: Extra inputs are not permitted"
    )


# -- get-library-docs -------------------------------------------------------------------------------------
@pytest.mark.anyio
async def test_docs_format_and_default_budget(env: AppEnv) -> None:
    text = await ok(env, "get-library-docs", {"context7CompatibleLibraryID": "/facebook/react"})
    assert len(titles(text)) == 7 and text.count(RULE) == 6
    assert text.startswith(
        "TITLE: Adding state with useState\nDESCRIPTION: Declare a state variable with the useState hook;"
    )
    assert (
        "SOURCE: https://github.com/reactjs/react.dev/blob/main/src/content/reference/react/useState.md\n\n"
        "LANGUAGE: jsx\nCODE:\n```jsx\nimport { useState } from 'react';"
    ) in text


@pytest.mark.anyio
async def test_docs_token_budget_has_a_floor_of_1000(env: AppEnv) -> None:
    small = await ok(env, "get-library-docs", {"context7CompatibleLibraryID": "/facebook/react", "tokens": 10})
    floor = await ok(env, "get-library-docs", {"context7CompatibleLibraryID": "/facebook/react", "tokens": "1000"})
    assert small == floor
    assert titles(small) == [
        "Adding state with useState",
        "Synchronizing with an external system using useEffect",
        "Memoizing an expensive calculation with useMemo",
        "Sharing data deeply with useContext",
        "Rendering lists with keys",
        "Handling form actions with useActionState (React 19)",
    ]
    assert estimate_tokens(small) <= 1000


@pytest.mark.anyio
async def test_docs_topic_versions_and_id_forms(env: AppEnv) -> None:
    text = await ok(
        env, "get-library-docs", {"context7CompatibleLibraryID": "fastapi/fastapi", "topic": "dependency injection"}
    )
    assert titles(text) == ["Dependency injection with Depends"] and "Depends(common_parameters)" in text
    text = await ok(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": "/vercel/next.js/v15.1.8", "topic": "routing", "tokens": 1200},
    )
    assert titles(text) == ["Defining a page in the App Router", "Dynamic route segments", "Creating a Route Handler"]
    text = await ok(env, "get-library-docs", {"context7CompatibleLibraryID": "/django/django", "topic": "kubernetes"})
    assert len(titles(text)) == 5  # no snippet matches: the whole library, in catalog order
    assert titles(text)[0] == "Defining models"


@pytest.mark.anyio
async def test_docs_rejections(env: AppEnv) -> None:
    await rejected(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": ["/facebook/react"]},
        "context7CompatibleLibraryID: Input should be a valid string",
    )
    await rejected(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": "/facebook/react", "tokens": "lots"},
        "tokens: Input should be a valid integer",
    )
    await rejected(env, "get-library-docs", {"topic": "hooks"}, "context7CompatibleLibraryID: Field required")
    await rejected(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": "/facebook/react", "tokens": 500000},
        "tokens: Input should be less than or equal to 100000",
    )
    await rejected(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": "/acme/unknown-lib"},
        "The library you are trying to access does not exist. Please try with a different library ID.",
    )
    await rejected(env, "get-library-docs", {"context7CompatibleLibraryID": "react"}, "does not exist")
    await rejected(
        env,
        "get-library-docs",
        {"context7CompatibleLibraryID": "/vercel/next.js/v13"},
        "Version 'v13' of /vercel/next.js is not indexed. Available versions: v15.1.8, v14.3.0-canary.87.",
    )
