"""Hacker News: a tech news aggregator in the style of the Hacker News MCP servers (e.g. erithwik/mcp-hn).

Tools: ``get_stories {story_type?, num_stories?}`` (top, new, ask, show, job), ``get_story_info
{story_id}`` (with top comments), ``search_stories {query, num_results?, search_by_date?}`` and
``get_user_info {user_name}``. Fifteen stories of early March 2026 form the fixed snapshot; only
stories posted before the task's "now" are shown.
"""

from mcp_persona.apps.hacker_news.tools import APP

__all__ = ["APP"]
