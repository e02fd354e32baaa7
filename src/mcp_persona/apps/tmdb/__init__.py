"""TMDB: a movie database in the style of the TMDB MCP servers.

Tools: ``search_movies {query, year?}``, ``get_popular_movies {page?}``, ``get_top_rated_movies
{page?}``, ``get_now_playing {page?}``, ``get_movie_details {movie_id}`` (with genres, runtime,
budget, revenue), ``get_movie_credits {movie_id}``, ``search_person {query}``, ``discover_movies
{with_genres?, primary_release_year?, vote_average_gte?, sort_by?}``. Results pages are TMDB's
``{page, total_pages, total_results, results}`` of 20; failures ``{"error": ...}``. Twenty movies and
their people form the fixed dataset.
"""

from mcp_persona.apps.tmdb.tools import APP

__all__ = ["APP"]
