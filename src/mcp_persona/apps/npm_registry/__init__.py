"""npm registry: package metadata in the style of the npm search MCP servers.

Tools: ``search_packages {query, size?}``, ``get_package_info {name}`` (latest version, license,
dependencies, repository), ``get_package_versions {name}`` (publish dates, deprecations) and
``get_package_downloads {name, period?}`` (last-week or last-month counts). Nine packages form the
fixed snapshot.
"""

from mcp_persona.apps.npm_registry.tools import APP

__all__ = ["APP"]
