"""Which instruction files the session's own agent loads on its own, judged from the session.

A rule the next agent of the same harness finds in its context anyway is no memory: a line of
the CLAUDE.md a Claude Code session read is what the next Claude Code session loads before it
types a word, and stored it only repeats that file. The same line read by Codex, which loads
AGENTS.md and never CLAUDE.md, is news to the next Codex session, and stays. So the
``instructions`` rule leaves out a line that was in such a file before the session (a line
the session wrote or changed there is what the project now says, and is read as before).

Which files count is structural: the agent that recorded the transcript, the path of the file,
and the folder the session ran in (``logic.own_instructions`` holds each agent's names):

- Claude Code: ``CLAUDE.md`` and ``.claude/CLAUDE.md`` in the folders from the project's root
  down to the session's folder, and in folders below it (Claude Code loads a nested one when
  it works there: the rule reaches the next agent exactly where it binds); the Markdown files
  under ``.claude/rules/`` of those folders whose front matter names no ``paths`` (the text
  the session saw says so); and what a loaded file imports with ``@path`` as the session saw
  it, up to five hops, inside the session's folder.
- Codex: ``AGENTS.md`` in the folders from the root down to the session's folder, unless the
  session saw an ``AGENTS.override.md`` beside it (Codex then loads that one instead). One in
  a folder below the session's is not loaded by Codex: kept.
- Gemini CLI: ``GEMINI.md`` there and below (loaded when a tool touches that folder), and its
  ``@path`` imports of Markdown files below the importing file's folder.

What cannot be told is kept, by today's rules: an agent with no known names (a plain-text
transcript), a file name an agent was configured to load instead (Codex's fallback names,
Gemini's ``context.fileName``), a link on disk (``CLAUDE.md`` pointing at ``AGENTS.md``: the
transcript does not show it), an import of a file the session never saw. A repeat costs a
line of noise; a rule dropped that the next agent does not load costs the rule.
"""

from __future__ import annotations

import posixpath

from claimgraph.capture.extract.reads import SeenFile
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.own_instructions import (FIRST_FOUND, IMPORTING, LOADED_NAMES,
                                               MAX_IMPORT_HOPS, RULES_FOLDER,
                                               always_loaded_rule, folder_chain,
                                               import_references)

#: Agents that load an instruction file of a folder below the session's when they work there.
LOADS_NESTED = frozenset({"claude-code", "gemini"})
_OVERRIDE = "AGENTS.override.md"


def loaded_anyway(view: SessionView, seen: dict[str, list[SeenFile]]) -> frozenset[str]:
    """The cited paths of the files the session saw that its own agent loads on its own."""
    agent = view.transcript.agent
    names = LOADED_NAMES.get(agent)
    if not names:
        return frozenset()
    cited = {looks[-1].cited: looks for looks in seen.values() if looks[-1].cited}
    here = _session_folder(view)
    if here is None:
        return frozenset()  # the session ran outside the project: what it loaded is unknown
    chain = folder_chain(here)
    loaded = {path for path, looks in cited.items()
              if _by_name(agent, path, chain, here, cited)
              or _always_loaded_rule(agent, path, chain, looks)}
    if agent in IMPORTING:
        loaded |= _imported(agent, loaded, cited, here)
    return frozenset(loaded)


def _session_folder(view: SessionView) -> str | None:
    """The folder the session started in, relative to the project's root ("" at the root,
    or when the transcript does not say; None outside the root)."""
    started = view.started_in()
    if not started or not view.root:
        return ""
    relative = view.relative(started)
    return None if relative is None or relative.startswith("..") else (
        "" if relative == "." else relative)


def _by_name(agent: str, path: str, chain: list[str], here: str | None,
             cited: dict[str, list[SeenFile]]) -> bool:
    """One of the agent's names, in a folder it loads that name from."""
    for name in LOADED_NAMES[agent]:
        if posixpath.basename(name) != posixpath.basename(path) or not path.endswith(name):
            continue
        folder = path[:-len(name)].rstrip("/")
        if path != (f"{folder}/{name}" if folder else name):
            continue
        if agent in FIRST_FOUND and name != _OVERRIDE and _joined(folder, _OVERRIDE) in cited:
            return False  # Codex loads the override beside it instead
        if folder in chain or (agent in LOADS_NESTED and _below(folder, here)):
            return True
    return False


def _always_loaded_rule(agent: str, path: str, chain: list[str],
                        looks: list[SeenFile]) -> bool:
    """A rules file the agent loads at its start: under a rules folder of the chain, Markdown,
    with no ``paths`` in the front matter of the text the session first saw."""
    rules = RULES_FOLDER.get(agent)
    if not rules or not path.lower().endswith(".md"):
        return False
    if not any(path.startswith(_joined(folder, rules) + "/") for folder in chain):
        return False
    first = looks[0]
    return first.how == "read" and always_loaded_rule(first.text)


def _imported(agent: str, loaded: set[str], cited: dict[str, list[SeenFile]],
              here: str | None) -> set[str]:
    """The files the session saw that a loaded file imports (``@path`` in any text the session
    saw of it), hop by hop: Claude Code's inside the session's folder, Gemini CLI's Markdown
    files below the importing file's folder."""
    found: set[str] = set()
    level = sorted(loaded)
    for _ in range(MAX_IMPORT_HOPS):
        following = []
        for path in level:
            folder = posixpath.dirname(path)
            for ref in {ref for look in cited.get(path, []) if "@" in look.text
                        for ref in import_references(agent, look.text)}:
                target = _target(ref, folder)
                if target is None or target not in cited or target in loaded | found:
                    continue
                if agent == "gemini" and not (target.lower().endswith(".md")
                                              and _below(posixpath.dirname(target), folder)):
                    continue
                if agent == "claude-code" and not _below(posixpath.dirname(target), here):
                    continue
                found.add(target)
                following.append(target)
        level = following
    return found


def _target(ref: str, folder: str) -> str | None:
    """Where a relative ``@path`` leads, project-relative; None for an absolute or home one
    (whether it lies in the project is not known here) or one that leaves the root."""
    if ref.startswith(("/", "~")):
        return None
    target = posixpath.normpath(posixpath.join(folder, ref))
    return None if target == ".." or target.startswith("../") else target


def _below(folder: str, here: str | None) -> bool:
    """``folder`` is ``here`` or inside it (both project-relative; "" is the root)."""
    if here is None:
        return False
    return not here or folder == here or folder.startswith(here + "/")


def _joined(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
