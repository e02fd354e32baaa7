"""The movie tools over the fixed movie dataset (see ``data/hierarchies/tmdb.json``)."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import Field

from mcp_persona.apps._live import JsonApp, collection, fail, lookup, matches, window
from mcp_persona.apps.base import AppEnv

APP = JsonApp(
    "tmdb",
    title="TMDB Movies",
    category="information",
    personalized=False,
    description="Search movies and people; popular, top-rated and now-playing lists; details and credits.",
    real_server="TMDB MCP servers (themoviedb.org API v3)",
)
PAGE_SIZE = 20
Page = Field(1, ge=1, le=500, description="Page (20 results per page)")
MovieId = Field(min_length=1, pattern=r"^\d+$", description="TMDB movie id")


def _brief(m: dict[str, Any]) -> dict[str, Any]:
    return {k: m[k] for k in ("id", "title", "release_date", "vote_average", "vote_count", "popularity",
                              "original_language", "overview")} | {"genres": m["genres"]}


def _paged(movies: list[dict[str, Any]], page: int) -> dict[str, Any]:
    total = len(movies)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    if page > pages:
        raise fail(f"page {page} is past the last page ({pages})")
    return {"page": page, "total_pages": pages, "total_results": total,
            "results": [_brief(m) for m in window(movies, page, PAGE_SIZE)]}


def _movies(env: AppEnv) -> list[dict[str, Any]]:
    return list(collection(env, "movies").values())


@APP.tool()
def search_movies(env: AppEnv, query: str = Field(min_length=1, max_length=200, description="Title words"),
                  year: int | None = Field(None, ge=1900, le=2030, description="Release year")) -> dict[str, Any]:
    """Search movies by title, most popular first."""
    hits = [m for m in _movies(env) if matches(query, m["title"]) and (year is None or
                                                                       m["release_date"][:4] == str(year))]
    return _paged(sorted(hits, key=lambda m: -m["popularity"]), 1)


@APP.tool()
def get_popular_movies(env: AppEnv, page: int = Page) -> dict[str, Any]:
    """Movies by current popularity, most popular first."""
    return _paged(sorted(_movies(env), key=lambda m: -m["popularity"]), page)


@APP.tool()
def get_top_rated_movies(env: AppEnv, page: int = Page) -> dict[str, Any]:
    """Movies by average vote (at least 1,000 votes), best first."""
    rated = [m for m in _movies(env) if m["vote_count"] >= 1000]
    return _paged(sorted(rated, key=lambda m: (-m["vote_average"], -m["vote_count"])), page)


@APP.tool()
def get_now_playing(env: AppEnv, page: int = Page) -> dict[str, Any]:
    """Movies currently in cinemas, most popular first."""
    return _paged(sorted((m for m in _movies(env) if m["now_playing"]), key=lambda m: -m["popularity"]), page)


@APP.tool()
def get_movie_details(env: AppEnv, movie_id: str = MovieId) -> dict[str, Any]:
    """A movie's details: genres, runtime (minutes), budget and revenue (USD), ratings, director."""
    m = lookup(collection(env, "movies"), movie_id, "Movie")
    people = collection(env, "people")
    out = {k: v for k, v in m.items() if k not in ("cast", "director", "now_playing")}
    return out | {"director": people[m["director"]]["name"], "status": "Released"}


@APP.tool()
def get_movie_credits(env: AppEnv, movie_id: str = MovieId) -> dict[str, Any]:
    """A movie's cast (billing order) and director."""
    m = lookup(collection(env, "movies"), movie_id, "Movie")
    people = collection(env, "people")
    return {"id": m["id"], "cast": [{"id": c["person_id"], "name": people[c["person_id"]]["name"],
                                     "order": c["order"]} for c in m["cast"]],
            "crew": [{"id": m["director"], "name": people[m["director"]]["name"], "job": "Director"}]}


@APP.tool()
def search_person(env: AppEnv, query: str = Field(min_length=1, max_length=100, description="Name words")
                  ) -> dict[str, Any]:
    """Search people by name, with the movies they are known for."""
    movies = collection(env, "movies")
    hits = [p for p in collection(env, "people").values() if matches(query, p["name"])]
    return {"total_results": len(hits), "results": [
        {"id": p["id"], "name": p["name"], "known_for": [{"id": i, "title": movies[i]["title"],
                                                          "release_date": movies[i]["release_date"]}
                                                         for i in p["known_for"]]} for p in hits]}


@APP.tool()
def discover_movies(env: AppEnv,
                    with_genres: str | None = Field(None, min_length=1, description="Genre name, e.g. 'Animation'"),
                    primary_release_year: int | None = Field(None, ge=1900, le=2030, description="Release year"),
                    vote_average_gte: float | None = Field(None, ge=0, le=10, description="Minimum average vote"),
                    sort_by: Literal["popularity.desc", "vote_average.desc", "revenue.desc",
                                     "primary_release_date.desc"] = Field("popularity.desc", description="Order"),
                    page: int = Page) -> dict[str, Any]:
    """Filter movies by genre, year and rating."""
    genres = {g.lower() for m in _movies(env) for g in m["genres"]}
    if with_genres is not None and with_genres.lower() not in genres:
        raise fail(f"unknown genre '{with_genres}' (known: {', '.join(sorted(genres))})")
    hits = [m for m in _movies(env)
            if (with_genres is None or with_genres.lower() in [g.lower() for g in m["genres"]])
            and (primary_release_year is None or m["release_date"][:4] == str(primary_release_year))
            and (vote_average_gte is None or m["vote_average"] >= vote_average_gte)]
    key = {"popularity.desc": "popularity", "vote_average.desc": "vote_average", "revenue.desc": "revenue",
           "primary_release_date.desc": "release_date"}[sort_by]
    return _paged(sorted(hits, key=lambda m: m[key], reverse=True), page)
