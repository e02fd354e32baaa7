#!/usr/bin/env bash
# Installs the real MCP servers the livemcptool library runs offline, pinned, beside (never inside)
# the project's own environment: each PyPI one into its own venv under .servers/ (their `mcp` pins
# clash with ours and with each other), the npm ones into the .node/ prefix. Safe to run again.
# PYTHON names the Python the venvs are made from (default: python3). Each real server runs in a sandbox as the
# harness's user, so that user must be able to run it: a Python in another account's home (root's pyenv) serves
# only that account; PYTHON=/usr/bin/python3 (Debian: apt-get install python3-venv) serves every account.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
NPM_PACKAGES=(
  @modelcontextprotocol/server-memory@2026.8.31
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-sequential-thinking@2026.8.31
  @negokaz/excel-mcp-server@0.12.0
)
# venv name = requirement[;extra pin]: the PowerPoint server imports FastMCP from mcp 1.x
PYPI_PACKAGES=(
  time=mcp-server-time==2026.10.19
  git=mcp-server-git==2026.10.19
  calculator=mcp-server-calculator==0.2.1
  word=office-word-mcp-server==1.1.11
  "ppt=office-powerpoint-mcp-server==2.0.7;mcp<2"
)
npm install --prefix .node --no-fund --no-audit --loglevel=error "${NPM_PACKAGES[@]}"
for item in "${PYPI_PACKAGES[@]}"; do
  venv=".servers/${item%%=*}"
  [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
  reqs="${item#*=}"
  IFS=';' read -r -a pins <<< "$reqs"
  "$venv/bin/pip" install -q --disable-pip-version-check "${pins[@]}" 2>&1 | grep -v "is ignored: it is neither" || true
  # pip's own failure is hidden by the filter above: fail here if the package is not there.
  "$venv/bin/python" -c "import importlib.metadata as m, sys; m.version(sys.argv[1])" "${pins[0]%%=*}"
done
echo "real servers installed: ${#NPM_PACKAGES[@]} npm packages in .node/, ${#PYPI_PACKAGES[@]} PyPI venvs in .servers/"
