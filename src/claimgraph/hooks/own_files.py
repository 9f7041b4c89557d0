"""The instruction files the starting agent loads on its own, as project-relative paths.

``logic.own_instructions`` says which names each agent loads in each folder from the
project's root down to the session's directory, and which ``@path`` references a file imports;
this adds what only the disk can say:

- for Codex, which of ``AGENTS.override.md`` and ``AGENTS.md`` a folder holds (Codex loads the
  first it finds, a dangling link included) and where its default 32 KiB of instructions runs
  out (a file past that is cut, so its lines are not counted as loaded);
- for Claude Code and Gemini CLI, the files their instruction files import, and the imports
  of those, up to five hops: an import counts when it is a file inside the folder the session
  starts in (Claude Code asks the user before it loads one from outside it), or for Gemini
  CLI a Markdown file below the importing file's folder in a git project (what all its
  releases load); it is not followed past a file too big to be an instruction file, a cycle,
  or a file that cannot be read;
- for Claude Code, the rules under ``.claude/rules/`` that load at start (no ``paths`` in
  their front matter), listed a few levels deep;
- for every agent, the file a loaded name links to (``CLAUDE.md`` as a link to ``AGENTS.md``
  loads AGENTS.md's lines).

A name no folder holds on disk still counts for the agents that load every name: a fact
quoting a file that is gone is the audit's to judge, and a missing file loads nothing for the
next agent to be told twice. An import counts only when its file is there.

Used by the SessionStart hook (the agent that fired it) and by ``claimgraph context --agent``;
standard library only: a few ``stat`` calls per folder of the chain, and reads of the few
instruction files an importing agent loads (each at most ``MAX_READ`` bytes, at most
``MAX_IMPORTED`` files followed), never a walk of the tree. Nothing here raises on a file it
cannot read.
"""

from __future__ import annotations

import os
import stat

from claimgraph.logic.own_instructions import (FIRST_FOUND, IMPORTING, MAX_IMPORT_HOPS,
                                               RULES_FOLDER, always_loaded_rule,
                                               candidate_files, folder_chain,
                                               import_references)

#: Codex reads at most this many bytes of AGENTS files, root first (``project_doc_max_bytes``).
CODEX_MAX_BYTES = 32 * 1024
#: An instruction file larger than this is not read for its imports (none is near it).
MAX_READ = 256 * 1024
#: At most this many files are read for imports in one call, cycles or not.
MAX_IMPORTED = 32
#: A rules folder is listed this deep (``rules/a/b/x.md``) and for at most this many entries;
#: of each file only the head is read, for its front matter.
RULES_DEPTH = 3
MAX_RULE_ENTRIES = 64
RULE_HEAD = 4096


def files_loaded(agent: str, root: str | None, cwd: str | None) -> frozenset[str]:
    """Project-relative paths of the instruction files ``agent`` loads when it starts in
    ``cwd`` of the project at ``root``; empty for an agent we do not know."""
    if not root:
        return frozenset()
    folders = folder_chain(_relative(root, cwd))
    groups = candidate_files(agent, folders)
    if not groups:
        return frozenset()
    if agent in FIRST_FOUND:
        loaded = _first_found(root, groups)
    else:
        loaded = {path for group in groups for path in group}
    if agent in RULES_FOLDER:
        loaded |= _rules(root, [f"{f}/{RULES_FOLDER[agent]}" if f else RULES_FOLDER[agent]
                                for f in folders])
    if agent == "claude-code":
        loaded |= _imported(agent, root, sorted(loaded), os.path.realpath(cwd or root))
    elif agent in IMPORTING and os.path.lexists(os.path.join(root, ".git")):
        loaded |= _imported(agent, root, sorted(loaded), None)
    return frozenset(loaded | _link_targets(root, loaded))


def _first_found(root: str, groups: list[tuple[str, ...]]) -> set[str]:
    """Codex's choice per folder (the first name there, a link to nothing included), root
    first, until its byte budget runs out."""
    loaded: set[str] = set()
    used = 0
    for group in groups:
        present = [path for path in group if _there(root, path)]
        path = present[0] if present else group[-1]
        used += _size(root, path) or 0
        if used > CODEX_MAX_BYTES:
            break  # this file and every one after it is cut or never read
        loaded.add(path)
    return loaded


def _imported(agent: str, root: str, tops: list[str], start: str | None) -> set[str]:
    """Project-relative paths of what ``tops`` import, hop by hop. Claude Code's: inside
    ``start``, the session's folder. Gemini CLI's (``start`` None): a Markdown file inside the
    folder of the file that imports it, in a git project -- what every release since its
    imports began loads (the first ones took only ``.md`` files below the importing file's
    folder, later ones any file in the git project, and none without one)."""
    real_root = os.path.realpath(root)
    limit = start or real_root
    found: set[str] = set()
    seen: set[tuple[int, int]] = set()
    level = [os.path.join(root, path) for path in tops]
    for _ in range(MAX_IMPORT_HOPS):
        following: list[str] = []
        for path in level:
            key = _file_key(path)
            if key is None or key in seen or len(seen) >= MAX_IMPORTED:
                continue  # not there, a cycle, or enough read: not followed is only repeated
            seen.add(key)
            text = _read(path)
            for ref in import_references(agent, text) if text else ():
                target = _resolve(ref, os.path.dirname(path))
                if target is None or _file_key(target) is None:
                    continue
                real = os.path.realpath(target)
                if start is None and not (real.lower().endswith(".md") and _inside(
                        real, os.path.realpath(os.path.dirname(path)))):
                    continue
                if _inside(real, limit):
                    found.update(_project_paths(target, real, root, real_root))
                    following.append(target)
        level = following
    return found


def _rules(root: str, folders: list[str]) -> set[str]:
    """The Markdown files under these rules folders (project-relative) that load at start:
    those whose front matter names no paths. A folder that is not there costs one failed
    listing."""
    found: set[str] = set()
    listed = 0
    pending = [(folder, 0) for folder in folders]
    while pending and listed < MAX_RULE_ENTRIES:
        folder, depth = pending.pop(0)
        try:
            with os.scandir(os.path.join(root, folder)) as entries:
                names = sorted((e.name, e.is_dir(), e.is_file()) for e in entries)
        except OSError:
            continue
        for name, is_dir, is_file in names[:MAX_RULE_ENTRIES - listed]:
            listed += 1
            path = f"{folder}/{name}"
            if is_dir and depth + 1 < RULES_DEPTH:
                pending.append((path, depth + 1))
            elif is_file and name.lower().endswith(".md"):
                head = _read(os.path.join(root, path), RULE_HEAD)
                if head is not None and always_loaded_rule(head):
                    found.add(path)
    return found


def _link_targets(root: str, loaded: set[str]) -> set[str]:
    """The project files the loaded names are links to (a loaded name that is no link adds
    nothing)."""
    targets: set[str] = set()
    for path in loaded:
        full = os.path.join(root, path)
        if os.path.islink(full) and _is_file(full):
            real = os.path.realpath(full)
            targets.update(_project_paths(real, real, root, os.path.realpath(root)))
    return targets


def _resolve(ref: str, folder: str) -> str | None:
    """Where an import leads, from the folder of the file that imports it; None for one from
    the home directory (outside every project's start folder: it waits for approval)."""
    if ref.startswith("~"):
        return None
    return os.path.normpath(ref if os.path.isabs(ref) else os.path.join(folder, ref))


def _project_paths(path: str, real: str, root: str, real_root: str) -> set[str]:
    """``path`` relative to the project, as written and with links resolved (``real``):
    capture cites the path the session used. Nothing outside the project."""
    found = set()
    for base, target in ((root, path), (real_root, real)):
        try:
            relative = os.path.relpath(target, base)
        except ValueError:  # another drive (Windows)
            continue
        if relative != ".." and not relative.startswith(".." + os.sep):
            found.add(relative.replace(os.sep, "/"))
    return found


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _relative(root: str, cwd: str | None) -> str:
    """``cwd`` relative to ``root`` ("" at the root; "../x" outside it)."""
    if not cwd:
        return ""
    try:
        return os.path.relpath(os.path.realpath(cwd), os.path.realpath(root))
    except ValueError:  # another drive (Windows): not inside the project
        return ".."


def _read(path: str, head: int | None = None) -> str | None:
    """The text of an instruction file (its first ``head`` bytes when asked), or None when it
    is not one to read (missing, not a file, too big, unreadable)."""
    if not _is_file(path):  # before opening: a named pipe would block the hook
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(head or MAX_READ + 1)
    except OSError:
        return None
    if head is None and len(data) > MAX_READ:
        return None
    return data.decode("utf-8", errors="replace")


def _there(root: str, path: str) -> bool:
    """Whether a folder holds the name, as Codex asks: a file, or a link (even to nothing)."""
    try:
        found = os.lstat(os.path.join(root, path))
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) or stat.S_ISLNK(found.st_mode)


def _is_file(path: str) -> bool:
    return _file_key(path) is not None


def _file_key(path: str) -> tuple[int, int] | None:
    """What a regular file is, whatever path names it (device, inode); None for anything
    else: one ``stat``, where a resolved path costs one per component."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None


def _size(root: str, path: str) -> int | None:
    try:
        found = os.stat(os.path.join(root, path))
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None
