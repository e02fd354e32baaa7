"""YouTube Data: a video platform in the style of the YouTube Data MCP servers (youtube-data-mcp-server).

Tools and camelCase arguments as there: ``searchVideos {query, maxResults?}``, ``getVideoDetails
{videoIds}``, ``getChannelStatistics {channelIds}``, ``getTrendingVideos {regionCode?, maxResults?}``,
``getChannelTopVideos {channelId, maxResults?}`` and ``compareVideos {videoIds}``. Answers follow the
Data API's resource shape (``id``, ``snippet``, ``statistics``, ``contentDetails``); failures are
``{"error": ...}``. The dataset (seven channels, 24 videos, trending per US/GB/JP) is fixed.
"""

from mcp_persona.apps.youtube_data.tools import APP

__all__ = ["APP"]
