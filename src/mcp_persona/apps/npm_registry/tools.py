"""The package-registry tools over the fixed snapshot (see ``data/hierarchies/npm_registry.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, score
from mcp_persona.apps.base import AppEnv, ToolFailure

APP = JsonApp(
    "npm_registry",
    title="npm Registry",
    category="information",
    personalized=False,
    description="Search packages; read a package's metadata, versions and download counts.",
    real_server="npm search MCP servers (registry.npmjs.org API)",
)
Name = Field(min_length=1, max_length=214, pattern=r"^(@[a-z0-9._-]+/)?[a-z0-9._-]+$", description="Package name")


def _pkg(env: AppEnv, name: str) -> dict[str, Any]:
    p = collection(env, "packages").get(name)
    if p is None:
        raise ToolFailure(f"Package '{name}' not found", kind="not_found")
    return p


@APP.tool()
def search_packages(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="Search words"),
                    size: int = Field(10, ge=1, le=50, description="Maximum results")) -> dict[str, Any]:
    """Packages matching name, description or keywords; best match, then most downloaded."""
    ranked = [(score(query, p["name"], p["description"], p["keywords"]), p)
              for p in collection(env, "packages").values()]
    hits = sorted((t for t in ranked if t[0]), key=lambda t: (-t[0], -t[1]["weekly_downloads"]))[:size]
    return {"total": len(hits), "objects": [{"name": p["name"], "version": p["latest"], "description": p["description"],
                                             "keywords": p["keywords"]} for _, p in hits]}


@APP.tool()
def get_package_info(env: AppEnv, name: str = Name) -> dict[str, Any]:
    """A package's latest version, license, dependencies, maintainers count and repository."""
    p = _pkg(env, name)
    return {k: p[k] for k in ("name", "description", "latest", "license", "keywords", "dependencies", "repository",
                              "maintainers")} | {"published": p["versions"][p["latest"]]["published"]}


@APP.tool()
def get_package_versions(env: AppEnv, name: str = Name) -> dict[str, Any]:
    """Every published version with its date, newest first."""
    p = _pkg(env, name)
    return {"name": name, "versions": sorted(p["versions"].values(), key=lambda v: v["published"], reverse=True)}


@APP.tool()
def get_package_downloads(env: AppEnv, name: str = Name,
                          period: Literal["last-week", "last-month"] = Field("last-week", description="Window")
                          ) -> dict[str, Any]:
    """Download count over the last week or month."""
    p = _pkg(env, name)
    return {"package": name, "period": period,
            "downloads": p["weekly_downloads"] if period == "last-week" else p["monthly_downloads"]}
