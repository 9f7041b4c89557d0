#!/usr/bin/env bash
# Set up claimgraph on this machine: a virtual environment beside this script, the package
# with what its tests need, the default store, and the hooks of every agent that is there
# (Claude Code, Codex CLI, Gemini CLI). Safe to run again: it changes only what is missing or
# out of date, and says so.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: ./install.sh [--dev] [--postgres] [--demo] [--python PATH] [--venv DIR] [--no-init]
                    [--no-hooks] [--no-link] [--uninstall [--purge-data]] [--help]

For users (the default): installs claimgraph with the MCP server's SDK (the `mcp` extra) and
the web viewer's packages (the `viewer` extra) into its own virtual environment, at a stable
place outside this clone ($XDG_DATA_HOME/claimgraph/venv, else
~/.local/share/claimgraph/venv, where `uv tool` and `pipx` keep theirs), so moving or
deleting the clone does not break the hooks; puts the `claimgraph` command on your PATH (a
link in $XDG_BIN_HOME, else ~/.local/bin; if that directory is not on PATH it prints the
line to add), initializes the default store ($CLAIMGRAPH_DB, else
$XDG_DATA_HOME/claimgraph/claims.db), and registers claimgraph's hooks for every agent whose
directory exists (claimgraph install --agent AGENT):
  Claude Code  $CLAUDE_CONFIG_DIR, else ~/.claude     (settings.json)
  Codex CLI    $CODEX_HOME, else ~/.codex             (hooks.json; trusted through `codex`
                                                       when it is on PATH)
  Gemini CLI   $GEMINI_CLI_HOME/.gemini, else ~/.gemini  (settings.json)

  --dev           for working on claimgraph: an editable install in .venv beside this
                  script, with the test tools and the PostgreSQL driver; implies --no-init
  --postgres      also the PostgreSQL driver (the `postgres` extra)
  --demo          when set up, run `claimgraph demo`
  --python PATH   the Python 3.10+ interpreter to use (default: python3)
  --venv DIR      where to create the virtual environment
  --no-init       only build the environment: no store, no hooks, no link on PATH
  --no-hooks      do not register any agent's hooks
  --no-link       do not link the claimgraph command into ~/.local/bin
  --uninstall     stop the daemon, remove its service unit, claimgraph's hooks and MCP
                  entries from every agent's settings and the link on PATH; print where
                  the store is (it stays)
  --purge-data    with --uninstall: also delete the store and its sidecar files, after
                  asking (no question without a terminal: then it is not deleted)
  --help          show this help

Run it again at any time: a second run changes nothing and says so (a user install is
refreshed when this clone's source changed).
Other ways to install the same command: `uv tool install '.[mcp,viewer,sync]'` or
`pipx install '.[mcp,viewer,sync]'` from this directory, then `claimgraph install --agent claude-code`.
USAGE
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
venv=""
init=1
hooks=1
link=1
uninstall=0
purge_data=0
dev=0
postgres=0
demo=0

while [ $# -gt 0 ]; do
  case "$1" in
    --help|-h) usage; exit 0 ;;
    --python) python="${2:?--python needs a path}"; shift 2 ;;
    --venv) venv="${2:?--venv needs a directory}"; shift 2 ;;
    --no-init) init=0; hooks=0; link=0; shift ;;
    --dev) dev=1; init=0; hooks=0; link=0; shift ;;
    --postgres) postgres=1; shift ;;
    --demo) demo=1; shift ;;
    --purge-data) purge_data=1; shift ;;
    --no-hooks) hooks=0; shift ;;
    --no-link) link=0; shift ;;
    --uninstall) uninstall=1; shift ;;
    *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [ -z "$venv" ]; then
  if [ "$dev" = 1 ]; then
    venv="$here/.venv"
  else
    case "${XDG_DATA_HOME:-}" in
      /*) venv="$XDG_DATA_HOME/claimgraph/venv" ;;
      *) venv="${HOME:-}/.local/share/claimgraph/venv" ;;
    esac
  fi
fi
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

# Everything claimgraph set up goes: the daemon and its service unit, every agent's hooks and
# MCP entries (and the backups that no longer hold anything else), the link on PATH, and a
# user install's own environment. The store stays unless --purge-data is given and confirmed.
purge_store() {  # purge_store DB: the store file and every sidecar beside it, after asking
  local db="$1" answer files
  files=()
  for f in "$db" "$db"-wal "$db"-shm "$db"-journal "$db".*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    files+=("$f")
  done
  if [ "${#files[@]}" = 0 ]; then
    say "no store at $db; nothing to delete"
    return 0
  fi
  if [ ! -t 0 ]; then
    say "not deleting the store without a terminal to confirm it: rm -rf ${files[*]}"
    return 0
  fi
  printf 'install.sh: delete the store %s and its %s sidecar file(s)? Facts cannot be recovered. [y/N] ' \
    "$db" "$(( ${#files[@]} - 1 ))"
  read -r answer || answer=""
  case "$answer" in
    y|Y|yes|YES) rm -rf -- "${files[@]}"; say "deleted $db and its sidecar files" ;;
    *) say "kept the store at $db" ;;
  esac
}

if [ "$uninstall" = 1 ]; then
  store=""
  if [ ! -x "$venv/bin/claimgraph" ]; then
    say "no claimgraph in $venv; nothing to unregister"
  else
    cg="$venv/bin/claimgraph"
    store="$("$cg" config --json 2>/dev/null | "$venv/bin/python" -c 'import json, sys
print(next(s["value"] for s in json.load(sys.stdin)["settings"] if s["name"] == "db"))' 2>/dev/null || true)"
    out="$("$cg" daemon stop 2>&1)" || true
    case "$out" in *"not running"*|"") ;; *) say "$out" ;; esac
    unit="${XDG_CONFIG_HOME:-${HOME:-}/.config}/systemd/user/claimgraph.service"
    case "${XDG_CONFIG_HOME:-}" in /*) ;; *) unit="${HOME:-}/.config/systemd/user/claimgraph.service" ;; esac
    if [ -f "$unit" ]; then
      if command -v systemctl >/dev/null 2>&1; then
        systemctl --user disable --now claimgraph.service >/dev/null 2>&1 || true
      fi
      rm -f "$unit" && say "removed the service unit $unit"
    fi
    while read -r agent dir; do
      [ -d "$dir" ] || continue
      out="$("$cg" uninstall --agent "$agent" 2>&1)" \
        || fail "could not remove $agent's hooks: $out"
      say "$out"
    done < <(agents)
    if [ -d "$claude_dir" ] || [ -f "${HOME:-}/.claude.json" ]; then
      out="$("$cg" uninstall --agent claude-code --mcp 2>&1)" || say "warning: $out"
      case "$out" in *"not registered"*|*"not installed"*) ;; *) say "$out" ;; esac
    fi
  fi
  unlink_command
  [ -n "$store" ] || store="${CLAIMGRAPH_DB:-${XDG_DATA_HOME:-${HOME:-}/.local/share}/claimgraph/claims.db}"
  if [ "$purge_data" = 1 ]; then
    purge_store "$store"
  else
    say "the store stays at $store (./install.sh --uninstall --purge-data deletes it)"
  fi
  venv_mode=""
  [ -f "$venv/.claimgraph-install" ] && read -r venv_mode _ < "$venv/.claimgraph-install"
  # a --dev environment (this clone's or another's) is a developer's, never ours to delete
  if [ "$venv" != "$here/.venv" ] && [ -f "$venv/.claimgraph-install" ] && [ "$venv_mode" != dev ]; then
    rm -rf -- "$venv" && say "removed claimgraph's environment $venv"
  else
    say "to remove claimgraph itself, delete $venv"
  fi
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

# What is installed is stamped in the environment: "<mode> <extras> <hash>". A developer's
# editable install (mode dev) follows the source by itself, so its hash is pyproject.toml's;
# a user's install is a copy, so its hash covers the source too, and a changed clone is
# installed again. An environment that already has every extra asked for, in a mode that
# serves the request, is left alone (a test running this script against the developer's
# .venv must never turn it into a copy).
extras="mcp,viewer,sync"
[ "$postgres" = 1 ] && extras="$extras,postgres"
[ "$dev" = 1 ] && extras="test,mcp,viewer,postgres,sync,train"
tree_hash() {
  if [ "$1" = dev ]; then
    sha256sum < "$here/pyproject.toml" | cut -d' ' -f1
  else
    (cd "$here" && { echo pyproject.toml; find src -name '*.py' -o -name '*.json' \
        -o -name '*.jsonl' -o -name '*.bin' | LC_ALL=C sort; } | xargs sha256sum) \
      | sha256sum | cut -d' ' -f1
  fi
}
has_extras() {  # has_extras HAVE WANT: every extra in WANT is in HAVE (comma lists)
  local x
  for x in ${2//,/ }; do
    case ",$1," in *",$x,"*) ;; *) return 1 ;; esac
  done
}
stamp="$venv/.claimgraph-install"
mode=user
[ "$dev" = 1 ] && mode=dev
installed_mode="" installed_extras="" installed_hash=""
[ -f "$stamp" ] && read -r installed_mode installed_extras installed_hash < "$stamp" || true
satisfied=0
if [ -n "$installed_hash" ] && has_extras "$installed_extras" "$extras"; then
  if [ "$installed_mode" = dev ] && [ "$installed_hash" = "$(tree_hash dev)" ]; then
    satisfied=1; mode=dev; extras="$installed_extras"
  elif [ "$mode" = user ] && [ "$installed_mode" = user ] \
      && [ "$installed_hash" = "$(tree_hash user)" ]; then
    satisfied=1; extras="$installed_extras"
  fi
fi
if [ "$satisfied" = 0 ]; then
  pip_flags=(--disable-pip-version-check)
  [ -t 1 ] || pip_flags+=(--quiet)  # on a terminal, pip shows its progress
  if [ "$mode" = dev ]; then
    say "installing claimgraph for development (editable) with the test tools, the MCP server's SDK, the viewer's packages and the PostgreSQL driver"
    "$venv/bin/python" -m pip install "${pip_flags[@]}" -e "$here[$extras]" \
      || fail "pip could not install claimgraph; see the messages above"
  else
    say "installing claimgraph with the MCP server's SDK and the viewer's packages ($extras) into $venv"
    "$venv/bin/python" -m pip install "${pip_flags[@]}" --force-reinstall --no-deps "$here" \
      >/dev/null || fail "pip could not install claimgraph; see the messages above"
    "$venv/bin/python" -m pip install "${pip_flags[@]}" "$here[$extras]" \
      || fail "pip could not install claimgraph's dependencies; see the messages above"
  fi
  echo "$mode $extras $(tree_hash "$mode")" > "$stamp"
  changed=1
fi

# Byte-compile an editable install's source (an editable install leaves that to the first
# import, and with PYTHONDONTWRITEBYTECODE set no import ever writes it: every command would
# compile ~200 modules, some 70 ms); pip compiles a copy itself. Only stale or missing files
# are written, so a re-run stays quiet.
if [ "$mode" = dev ]; then
  "$venv/bin/python" -m compileall -q -j 0 "$here/src" >/dev/null \
    || say "warning: could not byte-compile $here/src; claimgraph works, but starts slower"
fi

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

if [ "$demo" = 1 ]; then
  "$venv/bin/claimgraph" demo || fail "the demo failed; see the messages above"
  exit 0
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
