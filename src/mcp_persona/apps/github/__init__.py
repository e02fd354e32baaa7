"""GitHub: a code host in the style of the official GitHub MCP server (github/github-mcp-server).

Tool names and arguments follow that server: ``search_repositories {query, page?, perPage?}``,
``search_issues {query, sort?, order?, page?, perPage?}`` (GitHub search qualifiers ``repo:``,
``is:issue``/``is:pr``, ``state:``/``is:open``, ``label:``, ``author:``), ``search_code``, ``list_issues
{owner, repo, state?, labels?, sort?, direction?, since?}``, ``get_issue {owner, repo, issue_number}``,
``get_issue_comments``, ``list_pull_requests {owner, repo, state?}``, ``get_pull_request {owner, repo,
pullNumber}``, ``list_commits {owner, repo, sha?, author?, page?, perPage?}``, ``get_commit``,
``list_releases``, ``get_file_contents {owner, repo, path}``, and the writes ``create_issue`` and
``add_issue_comment``. Answers are REST-shaped JSON; failures ``{"error": ...}``.

The dataset is a fixed snapshot of twelve public repositories (synthetic issues, pull requests,
commits and releases) written by ``scripts/livemcp101_data.py``.
"""

from mcp_persona.apps.github.tools import APP

__all__ = ["APP"]
