#!/usr/bin/env python3
"""The SessionStart block the next agent would get, per repository of named gold sets.

A reviewer reads what capture admits fact by fact; the next agent reads it as one block, with
standing decisions first. This captures every transcript of one repository (in the order the
sessions happened) into one throw-away store, then prints ``claimgraph context`` for each
project scope the store holds, so the block can be read as the next agent would read it.

    python bench/memory/blocks.py --out OUT [--src FROZEN/src] SET...   # OUT/<owner__name>.txt

The sessions' working directories do not exist on this machine: capture scopes their facts by
the path, and the block is asked for with that path as ``--cwd``; a directory that is missing is
made for the call and removed after it (only the ones made here). A project whose facts are
scoped by its git remote (``github.com/org/repo``) is asked for from a throw-away git
repository whose ``origin`` is that remote, so its block is read too.

``--agents`` also prints each block as every agent of the repository's transcripts gets it
(``claimgraph context --agent A``: the rules that agent reads anyway in its own instruction
files left out) into ``OUT/<set>--<repo>--<agent>.txt``. The sessions' folders are empty here,
so which of Codex's AGENTS files exist is not known: its AGENTS.md counts as loaded.
``--files`` writes into each folder the block is asked from the project's Markdown files as
the sessions last saw them (``seen_files.py``), so what CLAUDE.md and GEMINI.md import, and
Codex's override, are found as on the machine the sessions ran on (removed after);
``--add-files JSON`` (``{"owner__name": {"path": "text"}}``) adds, per repository, a file the
sessions show only in another form (a CLAUDE.md seen only in a ``git diff``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score_sets import AGENTS, ROOT, expand, locate  # noqa: E402


def repository(name: str) -> str:
    parts = name.split("__")
    return f"{parts[0]}__{parts[1]}" if len(parts) >= 3 else "other"


def first_stamp(path: Path) -> str:
    """The first timestamp in a transcript (ISO text sorts), for the order of capture."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            start = line.find('"timestamp"')
            if start >= 0:
                rest = line[start + 11:].lstrip(' :"')
                return rest[:24]
    return ""


def make_missing(path: str) -> list[str]:
    """mkdir -p, returning the directories it made (deepest last)."""
    made, probe = [], Path(path)
    while not probe.exists():
        made.append(str(probe))
        probe = probe.parent
    os.makedirs(path, exist_ok=True)
    return made


def seen_files(command: list[str], transcripts: list[Path]) -> dict[str, str]:
    """The Markdown files the transcripts last saw, by project-relative path."""
    items = [f"{AGENTS.get(p.parent.name, 'claude-code')}:{p}"
             for p in sorted(transcripts, key=first_stamp)]
    script = str(Path(__file__).resolve().parent / "seen_files.py")
    out = subprocess.run([*command[:-2], script, *items], capture_output=True, text=True,
                         timeout=900, check=True).stdout
    return json.loads(out or "{}")


def write_files(folder: str, files: dict[str, str]) -> None:
    """``files`` under ``folder``, none outside it."""
    base = os.path.realpath(folder)
    for rel, text in files.items():
        target = os.path.realpath(os.path.join(base, rel))
        if not target.startswith(base + os.sep):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)


def block_for(command: list[str], transcripts: list[Path],
              agents: tuple[str, ...] = (), files: dict[str, str] | None = None,
              ) -> dict[str | None, str]:
    """The blocks of one capture of ``transcripts``: for no agent named (None), then for each
    of ``agents``; with ``files`` written into each folder a block is asked from."""
    with tempfile.TemporaryDirectory(prefix="blocks-", ignore_cleanup_errors=True) as tmp:
        env = dict(os.environ, HOME=tmp, XDG_DATA_HOME=f"{tmp}/data",
                   XDG_CONFIG_HOME=f"{tmp}/config", XDG_STATE_HOME=f"{tmp}/state",
                   CLAIMGRAPH_DB=f"{tmp}/db/claims.db")
        os.makedirs(f"{tmp}/db")
        for path in sorted(transcripts, key=first_stamp):
            agent = AGENTS.get(path.parent.name, "claude-code")
            subprocess.run([*command, "capture", str(path), "--agent", agent, "--no-curate"],
                           env=env, capture_output=True, text=True, timeout=900, check=True)
        dump = subprocess.run([*command, "dump"], env=env, capture_output=True, text=True,
                              timeout=300, check=True).stdout
        scopes = sorted({r.get("scope") for line in dump.splitlines() if line.strip()
                         for r in [json.loads(line)]
                         if r.get("record") == "fact" and r.get("scope") not in (None, "user")})
        return {agent: blocks_of(command, env, scopes, tmp, agent, files or {})
                for agent in (None, *agents)}


def blocks_of(command: list[str], env: dict[str, str], scopes: list[str], tmp: str,
              agent: str | None, files: dict[str, str] | None = None) -> str:
    out = []
    told = ["--agent", agent] if agent else []
    for scope in scopes:
        if scope.startswith("/"):
            text = context_at_path(command, env, scope, told, files)
        elif "/" in scope and not scope.startswith("unplaced:") and ":" not in scope:
            text = context_at_remote(command, env, scope, tmp, told, files)
        else:
            out.append(f"## {scope}: neither a path nor a git remote; skipped\n")
            continue
        out.append(f"## {scope}\n{text}\n")
    return "\n".join(out)


def context_at_path(command: list[str], env: dict[str, str], cwd: str,
                    told: list[str] | None = None, files: dict[str, str] | None = None) -> str:
    made = make_missing(cwd)
    if files and made:  # only into a folder made here, removed whole after
        write_files(cwd, files)
    try:
        return subprocess.run([*command, "context", "--cwd", cwd, *(told or [])], env=env,
                              capture_output=True, text=True, timeout=300).stdout
    finally:
        if files and made:
            shutil.rmtree(made[-1], ignore_errors=True)  # another run may share the path
        else:
            for directory in made:
                os.rmdir(directory)


def context_at_remote(command: list[str], env: dict[str, str], remote: str, tmp: str,
                      told: list[str] | None = None, files: dict[str, str] | None = None) -> str:
    """The block for a project known by its remote: asked from a new repository with that
    remote as ``origin`` (the project id capture gave its facts)."""
    repo = tempfile.mkdtemp(prefix="remote-", dir=tmp)
    write_files(repo, files or {})
    git = ["git", "-C", repo]
    subprocess.run([*git, "init", "-q"], env=env, check=True, timeout=60)
    subprocess.run([*git, "remote", "add", "origin", f"https://{remote}"], env=env, check=True,
                   timeout=60)
    return subprocess.run([*command, "context", "--cwd", repo, *(told or [])], env=env,
                          capture_output=True, text=True, timeout=300).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--src", type=Path)
    parser.add_argument("--agents", action="store_true",
                        help="also print each block as each agent of its transcripts gets it")
    parser.add_argument("--every-agent", action="store_true",
                        help="with --agents: each of claude-code, codex and gemini, whichever "
                             "agents the transcripts are from")
    parser.add_argument("--files", action="store_true",
                        help="write the Markdown files the sessions saw where blocks are asked")
    parser.add_argument("--add-files", type=Path,
                        help="with --files: JSON {repository: {path: text}} written too")
    args = parser.parse_args()
    src = (args.src or ROOT / "src").resolve()
    command = ["env", f"PYTHONPATH={src}", str(ROOT / ".venv" / "bin" / "python"), "-m",
               "claimgraph"]
    args.out.mkdir(parents=True, exist_ok=True)
    for name in expand(args.sets):
        gold_dir, transcripts = locate(name)
        by_repo: dict[str, list[Path]] = {}
        for gold in sorted(gold_dir.glob("*.gold.json")):
            rel = json.loads(gold.read_text(encoding="utf-8"))["transcript"]
            by_repo.setdefault(repository(Path(rel).name), []).append(transcripts / rel)
        for repo, paths in sorted(by_repo.items()):
            agents = tuple(sorted({AGENTS.get(p.parent.name, "claude-code") for p in paths}
                                  if args.agents else ()))
            if args.agents and args.every_agent:
                agents = ("claude-code", "codex", "gemini")
            files = seen_files(command, paths) if args.files else None
            if files is not None and args.add_files:
                added = json.loads(args.add_files.read_text(encoding="utf-8"))
                files.update(added.get(repo, {}))
            for agent, text in block_for(command, paths, agents, files).items():
                suffix = f"--{agent}" if agent else ""
                (args.out / f"{name}--{repo}{suffix}.txt").write_text(text, encoding="utf-8")
            print(f"{name} {repo}: {len(paths)} sessions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
