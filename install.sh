#!/usr/bin/env bash
# Set up claimgraph on this machine: a virtual environment beside this script, the package
# with what its tests need, the default store, and the hooks of every agent that is there
# (Claude Code, Codex CLI, Gemini CLI). Safe to run again: it changes only what is missing or
# out of date, and says so.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: ./install.sh [--python PATH] [--venv DIR] [--no-init] [--no-hooks] [--no-link]
                    [--uninstall] [--help]

Creates a virtual environment (default: .venv beside this script), installs claimgraph
with its test dependencies, the MCP server's SDK (the `mcp` extra), the web viewer's
packages (the `viewer` extra) and the PostgreSQL driver (the `postgres` extra) into it,
byte-compiles the package (so commands start fast even with PYTHONDONTWRITEBYTECODE set),
puts the `claimgraph` command on your PATH (a link in $XDG_BIN_HOME, else ~/.local/bin; if
that directory is not on PATH it prints the line to add), initializes the default store
($CLAIMGRAPH_DB, else $XDG_DATA_HOME/claimgraph/claims.db), and registers claimgraph's hooks
for every agent whose directory exists (claimgraph install --agent AGENT):
  Claude Code  $CLAUDE_CONFIG_DIR, else ~/.claude     (settings.json)
  Codex CLI    $CODEX_HOME, else ~/.codex             (hooks.json; trusted through `codex`
                                                       when it is on PATH)
  Gemini CLI   $GEMINI_CLI_HOME/.gemini, else ~/.gemini  (settings.json)

  --python PATH   the Python 3.10+ interpreter to use (default: python3)
  --venv DIR      where to create the virtual environment
  --no-init       only build the environment: no store, no hooks, no link on PATH
                  (what tests and CI want)
  --no-hooks      do not register any agent's hooks
  --no-link       do not link the claimgraph command into ~/.local/bin
  --uninstall     remove claimgraph's hooks from every agent's settings and the link
                  on PATH, and nothing else
  --help          show this help

Run it again at any time: a second run changes nothing and says so.
To undo: ./install.sh --uninstall, then remove the virtual environment directory;
the store stays where it is.
USAGE
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
venv="$here/.venv"
init=1
hooks=1
link=1
uninstall=0

while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --python) python="${2:?--python needs a path}"; shift 2 ;;
    --venv) venv="${2:?--venv needs a directory}"; shift 2 ;;
    --no-init) init=0; hooks=0; link=0; shift ;;
    --no-hooks) hooks=0; shift ;;
    --no-link) link=0; shift ;;
    --uninstall) uninstall=1; shift ;;
    *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "install.sh: $*"; }
fail() { echo "install.sh: error: $*" >&2; exit 1; }
claude_dir="${CLAUDE_CONFIG_DIR:-${HOME:-}/.claude}"
codex_dir="${CODEX_HOME:-${HOME:-}/.codex}"
if [ -n "${GEMINI_CLI_HOME:-}" ]; then gemini_dir="$GEMINI_CLI_HOME/.gemini"; else gemini_dir="${HOME:-}/.gemini"; fi
# agent name and the directory that says it is used here, one pair a line
agents() { printf '%s %s\n' claude-code "$claude_dir" codex "$codex_dir" gemini "$gemini_dir"; }
case "${XDG_BIN_HOME:-}" in
  /*) bin_dir="$XDG_BIN_HOME" ;;
  *) bin_dir="${HOME:-}/.local/bin" ;;
esac
command_link="$bin_dir/claimgraph"

on_path() { case ":${PATH:-}:" in *":$1:"*|*":$1/:"*) return 0 ;; *) return 1 ;; esac; }

# Link <venv>/bin/claimgraph into $bin_dir, so the README's `claimgraph ...` works in any
# shell. Never replaces a file that is not a link, and says what it did.
link_command() {
  local target="$venv/bin/claimgraph"
  if [ -L "$command_link" ] && [ "$(readlink "$command_link")" = "$target" ]; then
    :
  elif [ -e "$command_link" ] && [ ! -L "$command_link" ]; then
    say "warning: $command_link exists and is not a link; left as it is (run $target instead)"
    return 0
  else
    mkdir -p "$bin_dir" || { say "warning: cannot create $bin_dir; run $target instead"; return 0; }
    ln -sfn "$target" "$command_link" || { say "warning: cannot link $command_link"; return 0; }
    say "linked $command_link -> $target"
    changed=1
  fi
  if ! on_path "$bin_dir"; then
    say "$bin_dir is not on your PATH; to run \`claimgraph\` by name, add this line to your"
    say "shell profile (~/.bashrc, ~/.zshrc or ~/.profile) and open a new shell:"
    echo "    export PATH=\"$bin_dir:\$PATH\""
  else
    found="$(PATH="$PATH" command -v claimgraph 2>/dev/null || true)"
    if [ -n "$found" ] && [ "$found" != "$command_link" ]; then
      say "warning: \`claimgraph\` on your PATH is $found, ahead of $command_link"
    fi
  fi
}

unlink_command() {
  if [ -L "$command_link" ] && [ "$(readlink "$command_link")" = "$venv/bin/claimgraph" ]; then
    rm -f "$command_link"
    say "removed the link $command_link"
  fi
}

if [ "$uninstall" = 1 ]; then
  if [ ! -x "$venv/bin/claimgraph" ]; then
    say "no claimgraph in $venv; nothing to unregister"
  else
    while read -r agent dir; do
      [ -d "$dir" ] || continue
      out="$("$venv/bin/claimgraph" uninstall --agent "$agent" 2>&1)" \
        || fail "could not remove $agent's hooks: $out"
      say "$out"
    done < <(agents)
  fi
  unlink_command
  say "to remove claimgraph itself, delete $venv; the store stays where it is"
  exit 0
fi

command -v "$python" >/dev/null 2>&1 \
  || fail "no Python interpreter '$python' found; install Python 3.10 or newer, or pass --python PATH"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || fail "$("$python" -V 2>&1) is too old; claimgraph needs Python 3.10 or newer (pass --python PATH)"
"$python" -c 'import venv, ensurepip' >/dev/null 2>&1 \
  || fail "Python's venv module is missing; install it (Debian/Ubuntu: apt-get install python3-venv)"

changed=0
if [ ! -x "$venv/bin/python" ]; then
  say "creating the virtual environment in $venv"
  "$python" -m venv "$venv" || fail "could not create a virtual environment in $venv"
  changed=1
fi

stamp="$venv/.claimgraph-install"
want="$(cat "$here/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "installing claimgraph, its test dependencies, the MCP server's SDK, the viewer's packages and the PostgreSQL driver"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$here[test,mcp,viewer,postgres,sync]" \
    || fail "pip could not install claimgraph; see the messages above"
  echo "$want" > "$stamp"
  changed=1
fi

# Byte-compile the package (an editable install leaves that to the first import, and with
# PYTHONDONTWRITEBYTECODE set no import ever writes it: every command would compile ~200
# modules, some 70 ms). Only stale or missing files are written, so a re-run stays quiet.
"$venv/bin/python" -m compileall -q -j 0 "$here/src" >/dev/null \
  || say "warning: could not byte-compile $here/src; claimgraph works, but starts slower"

if [ "$link" = 1 ]; then
  link_command
fi

if [ "$init" = 1 ]; then
  out="$("$venv/bin/claimgraph" init)" || fail "could not initialize the store: $out"
  case "$out" in
    *"already"*) ;;
    *) changed=1 ;;
  esac
  say "$out"
fi

# Every agent whose directory exists gets its hooks. One agent's unreadable settings file
# (Gemini allows comments in it; claimgraph never rewrites what it cannot parse) costs that
# agent's hooks and a warning, not the others'.
if [ "$hooks" = 1 ]; then
  while read -r agent dir; do
    [ -d "$dir" ] || continue
    if ! out="$("$venv/bin/claimgraph" install --agent "$agent" 2>&1)"; then
      say "warning: could not register $agent's hooks: $out"
      continue
    fi
    case "$out" in
      *"already installed"*) ;;
      *) changed=1 ;;
    esac
    say "$out"
  done < <(agents)
fi

if [ "$changed" = 0 ]; then
  say "already set up; nothing changed ($venv)"
else
  if [ "$link" = 1 ] && on_path "$bin_dir" && [ -L "$command_link" ]; then
    say "done. Try: claimgraph --help"
  else
    say "done. Try: $venv/bin/claimgraph --help"
  fi
fi
