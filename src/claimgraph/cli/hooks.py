"""``hook``, ``install``, ``uninstall``: the agent-facing side of claimgraph.

``--agent`` picks Claude Code (the default), Codex CLI or Gemini CLI (``hooks.agents``): each
gets its hooks in its own user-level file. Codex runs only hooks it trusts, so installing (and
uninstalling) Codex's hooks also sets their trust through Codex itself (``hooks.codex_trust``);
when Codex cannot be asked, the file is still written and the output says what to do.

``claimgraph hook EVENT`` is the same hook as ``python -m claimgraph.hooks EVENT`` (it delegates
to ``claimgraph.hooks.entry``: nothing on stdout, exit 0), but pays for the whole CLI's imports;
the installed command therefore uses the module form. ``install`` / ``uninstall`` edit the
agent's settings file through ``claimgraph.hooks.install``; ``--coach`` adds (or with uninstall,
removes only) the UserPromptSubmit coach hook, ``--mcp`` the MCP server's entry in Claude
Code's user config (``claimgraph.hooks.mcp_config``). Install only adds: a coach or server
registered before stays when install runs again without the flag. Plain uninstall removes
everything of ours.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

from claimgraph.cli.invocation import Invocation
from claimgraph.cli.output import emit, emit_json
from claimgraph.errors import ClaimgraphError
from claimgraph.hooks import agents, codex_trust, entry
from claimgraph.hooks import install as installer
from claimgraph.hooks import mcp_config


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("hook", parents=[common], help="run an agent hook (agents call this)",
                       description="Read the agent's hook payload on stdin. session-end and "
                                   "stop spool it and start a detached capture pass, printing "
                                   "nothing; session-start prints the compiled memory for the "
                                   "session's project as the agent's JSON (additionalContext), "
                                   "or nothing when there is none. Always exits 0; problems go "
                                   "to <db>.capture.log (stderr when that cannot be written). "
                                   "See docs/hooks.md.")
    # Not argparse choices: a wrong event must still exit 0 (exit 2 would block a Stop hook).
    p.add_argument("event", metavar="EVENT", help=", ".join(entry.EVENTS))
    p.add_argument("--agent", default=entry.DEFAULT_AGENT, help="whose hook this is "
                   f"(default {entry.DEFAULT_AGENT})")
    p.set_defaults(command="hook")
    for name, verb in (("install", "register"), ("uninstall", "remove")):
        p = sub.add_parser(name, parents=[common], help=f"{verb} claimgraph's hooks in an "
                           "agent's settings", description=f"{verb.capitalize()} the SessionEnd "
                           "and SessionStart hooks (Codex: and Stop) in an agent's settings: "
                           "Claude Code's settings.json, Codex's ~/.codex/hooks.json (trusted "
                           "through Codex itself), Gemini's ~/.gemini/settings.json. Other "
                           "tools' hooks are never touched; the file is backed up once "
                           "(<file>.claimgraph-backup) and written atomically.")
        p.add_argument("--agent", choices=agents.AGENTS, default="claude-code",
                       help="which agent (default claude-code)")
        p.add_argument("--scope", choices=installer.SCOPES, help="user: $CLAUDE_CONFIG_DIR or "
                       "~/.claude/settings.json (default); project: <dir>/.claude/settings.json "
                       "(Claude Code only)")
        p.add_argument("--project-dir", metavar="DIR", help="the project for --scope project "
                       "(default: the current directory)")
        p.add_argument("--settings-file", metavar="FILE", help="edit this file instead")
        p.add_argument("--dry-run", action="store_true", help="print the change as a diff; "
                       "write nothing")
        p.add_argument("--coach", action="store_true", help="the UserPromptSubmit hook that "
                       "briefs the agent on each prompt" + (" (only it)" if name == "uninstall"
                                                            else ""))
        p.add_argument("--mcp", action="store_true", help="the MCP server in Claude Code's "
                       "user config ($CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json)"
                       + (" (only it)" if name == "uninstall" else ""))
        p.add_argument("--codex", metavar="PATH", help="the codex executable that sets the "
                       "hooks' trust (default: codex on PATH)")
        p.set_defaults(command=name)


def run_hook(ctx: Invocation, args: argparse.Namespace) -> int:
    """The hook with ``--db`` and ``--config`` handed to it as the variables it reads (a flag
    wins over the variable, as in every command)."""
    given = {"CLAIMGRAPH_DB": getattr(args, "db", None),
             "CLAIMGRAPH_CONFIG": getattr(args, "config", None)}
    environ = {**ctx.environ, **{name: value for name, value in given.items() if value}}
    return entry.main([args.event, "--agent", args.agent], environ)


def run_install(ctx: Invocation, args: argparse.Namespace) -> int:
    hooks_file = target(ctx, args)
    server = None
    if args.mcp:
        installer.check_interpreter(sys.executable, "claimgraph.mcp.server", "the MCP server",
                                    needs=("mcp",))
        server = mcp_config.register(mcp_config.config_path(ctx.environ), sys.executable,
                                     dry_run=args.dry_run)
    result = trusted(ctx, args, hooks_file, lambda: installer.install(
        hooks_file, dry_run=args.dry_run, coach=args.coach, agent=args.agent))
    show(ctx, args, result, server)
    return 0


def trusted(ctx: Invocation, args: argparse.Namespace, hooks_file: Path,
            write: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``write()``'s result; for Codex, with the trust of our hooks set around the write."""
    if args.agent != "codex":
        return write()
    if args.dry_run:
        return {**write(), "trust": {"status": "not-checked", "hooks": []}}
    result, trust = codex_trust.sync(str(hooks_file), ctx.environ, write, args.codex)
    return {**result, "trust": trust}


def run_uninstall(ctx: Invocation, args: argparse.Namespace) -> int:
    every = not (args.coach or args.mcp)
    result = server = None
    if every or args.coach:
        hooks_file = target(ctx, args)
        result = trusted(ctx, args, hooks_file, lambda: installer.uninstall(
            hooks_file, dry_run=args.dry_run, coach_only=args.coach, agent=args.agent))
    if every or args.mcp:
        path = mcp_config.config_path(ctx.environ)
        if args.mcp or path.exists():
            server = mcp_config.unregister(path, dry_run=args.dry_run)
    show(ctx, args, result, server)
    return 0


def target(ctx: Invocation, args: argparse.Namespace) -> Path:
    if args.agent != "claude-code":
        return other_agent_target(ctx, args)
    scope = args.scope or ("project" if args.project_dir else "user")
    if args.project_dir and scope != "project":
        raise ClaimgraphError("usage", "--project-dir only applies to --scope project",
                              hint="drop --project-dir, or add --scope project")
    return installer.settings_path(ctx.environ, scope, args.project_dir, args.settings_file)


def other_agent_target(ctx: Invocation, args: argparse.Namespace) -> Path:
    """Codex and Gemini hooks go in the user's file: Gemini runs project-level hooks only in
    a folder the user trusted, and both read the user's file in every project."""
    for flag, given in (("--scope project", args.scope == "project"),
                        ("--project-dir", args.project_dir), ("--coach", args.coach),
                        ("--mcp", args.mcp)):
        if given:
            raise ClaimgraphError("usage", f"{flag} is for Claude Code only; {args.agent}'s "
                                  "hooks are installed at user level",
                                  hint=f"drop {flag}, or use --agent claude-code")
    if args.settings_file:
        return installer.settings_path(ctx.environ, "user", None, args.settings_file)
    return agents.user_hooks_file(args.agent, ctx.environ)


MESSAGES = {
    "installed": "installed claimgraph hooks ({events}) in {path}",
    "updated": "updated claimgraph hooks ({events}) in {path}",
    "already-installed": "already installed: claimgraph hooks in {path}; nothing changed",
    "removed": "removed claimgraph hooks from {path}; other hooks left as they were",
    "not-installed": "not installed: no claimgraph hooks in {path}; nothing changed",
}


DRY_RUN_MESSAGES = {
    "installed": "would install claimgraph hooks ({events}) in {path}",
    "updated": "would update claimgraph hooks ({events}) in {path}",
    "removed": "would remove claimgraph hooks from {path}",
}


MCP_MESSAGES = {
    "installed": "registered the claimgraph MCP server in {path} (as `claude mcp add --scope "
                 "user` would); Claude Code sessions started from now on have memory_* tools",
    "updated": "updated the claimgraph MCP server in {path}",
    "already-installed": "already registered: the claimgraph MCP server in {path}; "
                         "nothing changed",
    "removed": "removed the claimgraph MCP server from {path}; other servers left as they were",
    "not-installed": "not registered: no claimgraph MCP server in {path}; nothing changed",
}


def show(ctx: Invocation, args: argparse.Namespace, result: dict[str, Any] | None,
         server: dict[str, Any] | None = None) -> None:
    if ctx.json:
        emit_json({"agent": args.agent, **(result or {}),
                   **({"mcp": server} if server is not None else {})})
        return
    if result is not None:
        show_hooks(args, result)
    if server is not None:
        show_server(server)


def show_server(server: dict[str, Any]) -> None:
    line = MCP_MESSAGES[server["status"]].format(path=server["config_file"])
    if server["dry_run"] and "diff" in server:
        emit(server["diff"].rstrip("\n"))
        emit(f"dry run, nothing written: would have {line}")
        return
    emit(line)
    if server.get("deleted"):
        emit("  the file held nothing else and claimgraph had created it, so it was removed")
    if server.get("backup"):
        emit(f"  the file as it was before is saved in {server['backup']}")


def show_hooks(args: argparse.Namespace, result: dict[str, Any]) -> None:
    status, fields = result["status"], {"events": ", ".join(result["events"]),
                                          "path": result["settings_file"]}
    if result["dry_run"] and status in DRY_RUN_MESSAGES:
        emit(result["diff"].rstrip("\n"))
        emit("dry run, nothing written: " + DRY_RUN_MESSAGES[status].format(**fields))
        if "trust" in result and status != "removed":
            emit("  and would then trust them in Codex (through `codex app-server`)")
        return
    line = MESSAGES[status].format(**fields)
    emit(line)
    if result.get("deleted"):
        emit("  the file held nothing else and claimgraph had created it, so it was removed")
    if result.get("backup"):
        emit(f"  the file as it was before is saved in {result['backup']}")
    if result["status"] in ("installed", "updated"):
        emit(f"  undo with: claimgraph uninstall --agent {args.agent}" + undo_flags(args))
    if "trust" in result and not result["dry_run"]:
        show_trust(result["trust"], result["status"] in ("removed", "not-installed"))


TRUST_HOWTO = ("Codex skips untrusted hooks without a word. To trust them: run `codex`, type "
               "/hooks and trust the claimgraph hooks; or run `claimgraph install --agent "
               "codex` again where `codex` is on PATH (or with --codex PATH)")


def show_trust(trust: dict[str, Any], removing: bool) -> None:
    """What Codex now says of our hooks' trust, and what to do when it is not given."""
    if removing:
        if trust.get("forgotten"):
            emit(f"  removed their trust from Codex's config.toml "
                 f"({len(trust['forgotten'])} entries)")
        return
    status = trust["status"]
    if status == "trusted":
        emit(f"  trusted in Codex (as its /hooks panel does): {len(trust['hooks'])} hooks "
             "run from Codex's next session on")
    elif status == "unknown":
        emit(f"  NOT trusted yet: {trust['reason']}. {TRUST_HOWTO}")
    else:
        emit(f"  Codex reports them {status}. {TRUST_HOWTO}")


def undo_flags(args: argparse.Namespace) -> str:
    flags = ""
    if args.settings_file:
        flags += f" --settings-file {args.settings_file}"
    elif args.scope == "project" or args.project_dir:
        flags += " --scope project"
        if args.project_dir:
            flags += f" --project-dir {args.project_dir}"
    return flags


COMMANDS = {"hook": run_hook, "install": run_install, "uninstall": run_uninstall}
