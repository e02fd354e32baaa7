#!/bin/sh
# `git` as the real git server runs it inside its sandbox (first on its PATH, and GitPython's executable).
#
# A repository's own configuration can make git run commands: core.fsmonitor on every status, hooks on a
# commit, filter drivers on add and checkout, diff drivers, gpg.program, core.sshCommand, and includes that
# pull in more of the same. The model can write a folder's .git/config through another server, so git here
# takes a repository's configuration only when every key it sets is on the list below (what `git init`,
# `git config user.*` and a clone write); anything else refuses the command and names the key. The sandbox's
# environment (GIT_CONFIG_COUNT ...) also turns fsmonitor and hooks off at the command line's precedence, which
# no repository setting overrides, even one written between this check and the command.
set -u
GIT=/usr/bin/git
ALLOWED='^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|quotepath|safecrlf)|user\.(name|email)|init\.defaultbranch|extensions\.objectformat|branch\..+\.(remote|merge|rebase)|remote\..+\.(url|fetch))$'

# The repository the command runs in: the working folder (GitPython runs git there), or -C / --git-dir.
dir=.
gitdir=""
take=""
for arg in "$@"; do
  if [ -n "$take" ]; then
    case "$take" in
      -C) dir="$arg" ;;
      --git-dir) gitdir="$arg" ;;
    esac
    take=""
    continue
  fi
  case "$arg" in
    -C|-c|--git-dir|--work-tree|--namespace|--config-env) take="$arg" ;;
    --git-dir=*) gitdir="${arg#--git-dir=}" ;;
    -*) ;;
    *) break ;;
  esac
done

# Fail closed: a check that cannot run refuses the command.
for tool in grep cut tr; do
  command -v "$tool" >/dev/null 2>&1 || { echo "fatal: refused: $tool is missing, so the repository's" \
    "configuration cannot be checked" >&2; exit 128; }
done
if [ -n "$gitdir" ]; then
  keys=$(cd "$dir" && "$GIT" --git-dir="$gitdir" config --list --name-only --show-scope) || exit 128
else
  keys=$(cd "$dir" && "$GIT" config --list --name-only --show-scope) || exit 128
fi
# the keys the repository (or a file it includes) sets, less the allowed ones; the harness's are "command"
bad=$(printf '%s\n' "$keys" | grep -v '^command	' | cut -f2 | grep -Eiv "$ALLOWED" | tr '\n' ' ')
if [ -n "${bad% }" ]; then
  echo "fatal: refused: this repository's configuration sets ${bad% }; git in this sandbox runs no command a" \
       "repository configures (fsmonitor, hooks, filters, diff and merge drivers, includes)" >&2
  exit 128
fi
exec "$GIT" "$@"
