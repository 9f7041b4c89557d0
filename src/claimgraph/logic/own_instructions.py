"""Which stored rules the starting agent reads anyway, in its own instruction file.

Capture keeps the rules it reads in agent instruction files (CLAUDE.md, AGENTS.md, GEMINI.md)
as conventions cited ``path: `line```, because each agent loads only its own file: a rule
read from CLAUDE.md is news to Codex. To Claude Code, starting in the same project, the same
line is a repeat of what it has just loaded. So the context block is told which agent starts
and which files it loads (``files_loaded``, from ``claimgraph.agent_files``), and leaves out a
standing fact whose whole provenance is lines of those files (``read_anyway``). The fact stays
stored, and every other agent, ``recall``, ``facts`` and the viewer still show it
(docs/context.md, "What the starting agent reads anyway").

What each agent loads at its start, in each folder from the project's root down to the
session's directory (a file above the root is never captured, so the chain starts there):

- Claude Code: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``, and what they import
  with ``@path`` lines (``import_references``; up to five hops, never inside code or an HTML
  comment), when the imported file lies inside the folder the session starts in: an import
  from outside it waits for the user's approval, which is not known here. A CLAUDE.md in a
  folder below the session's is read only when the agent works there, so it is not counted.
  Claude Code also loads the Markdown files under ``.claude/rules/`` at its start, those
  without a ``paths`` list in their front matter (``always_loaded_rule``: a rule with one is
  loaded only when a file it names is read).
- Codex: ``AGENTS.override.md`` in a folder that has one, else ``AGENTS.md``; the I/O side
  checks which is there and stops at Codex's default 32 KiB of instructions
  (``claimgraph.hooks.own_files``). Codex imports nothing.
- Gemini CLI: ``GEMINI.md``, and what it imports with ``@path`` (up to five hops, never inside
  backticks): a Markdown file below the importing file's folder, in a git project -- what
  every release loads (its first took only such files, later ones any file in the git
  project, none without git). Older releases also loaded the GEMINI.md files of folders
  below the session's at start; current ones load them only when a tool touches that
  folder, so they are not counted.

What the agents load from the user's home (``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``,
``~/.gemini/GEMINI.md``) is never captured as a project's rule (capture reads only the
project's own files), so there is nothing of it to leave out.

Only the default names count: a file an agent was configured to load under another name
(Codex's fallback names, Gemini's ``context.fileName``) is not known here, so its rules stay
in the block -- a repeat costs a line, a rule left out costs the rule.

Pure: facts, paths and file text in; a yes or no, or the references a file imports, out.
"""

from __future__ import annotations

import re

from claimgraph.logic.briefing import STANCE_PREDICATES
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.trust_tiers import AGENT_SOURCES, USER_SOURCES, teammate_writer

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

    Fact = Mapping[str, Any]

#: Per agent (the hook's ``--agent`` names), the files of one folder it loads at its start.
#: Codex's tuple is ordered: the first that exists is the one it loads.
LOADED_NAMES: dict[str, tuple[str, ...]] = {
    "claude-code": ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"),
    "codex": ("AGENTS.override.md", "AGENTS.md"),
    "gemini": ("GEMINI.md",),
}
#: Agents that load only the first of their names a folder holds (the rest load them all).
FIRST_FOUND = frozenset({"codex"})
#: Agents whose instruction files pull in other files with ``@path``, and how far an import of
#: an import is still followed (both document five hops).
IMPORTING = frozenset({"claude-code", "gemini"})
MAX_IMPORT_HOPS = 5
#: Per agent, a folder (in each folder of the chain) whose Markdown files it loads at start.
RULES_FOLDER: dict[str, str] = {"claude-code": ".claude/rules"}
#: Front matter at a file's head, and a key in it that limits a rule to some paths.
_FRONT_MATTER = lazy_regex(r"\A(?:\ufeff)?---[ \t]*\r?\n(?P<body>.*?)^---[ \t]*$", re.M | re.S)
_PATHS_KEY = lazy_regex(r"^(?:paths|globs)[ \t]*:", re.M)
#: ``path: `quoted line``` as ``session.file_evidence`` writes it (``./`` before a bare name).
_FILE_LINE = lazy_regex(r"^(?:\./)?(?P<path>[^\s`]+?): `(?P<line>.*)`$")
#: ``@reference`` (whether it stands at a line's start or after a space is checked apart: a
#: pattern that starts with a literal is searched for fast, and a file holds few of them).
_AT = lazy_regex(r"@(\S+)")
#: Runs of backticks (code spans are paired from them, ``_code_spans``) and HTML comments:
#: with no group before its first literal, a pattern is searched for fast.
_TICKS = lazy_regex(r"`+")
_COMMENT = lazy_regex(r"<!--.*?(?:-->|\Z)", re.S)
_FENCE = lazy_regex(r"[ \t]*(`{3,}|~{3,})")
#: A reference each agent takes for a path: Claude Code's ``./``, ``~/``, an absolute path or
#: a name starting with a letter, digit, ``.``, ``_`` or ``-``; Gemini's ``.``, ``/`` or a
#: letter first.
_REFERENCE_START = {"claude-code": lazy_regex(r"^(?:\./|~/|/[^/]|[A-Za-z0-9._-])"),
                    "gemini": lazy_regex(r"^[./A-Za-z]")}


def folder_chain(relative_cwd: str | None) -> list[str]:
    """The project-relative folders from the root ("") down to the session's directory;
    only the root when the directory is not inside the project (or unknown)."""
    parts = [p for p in (relative_cwd or "").replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        return [""]
    return [""] + ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def candidate_files(agent: str, folders: Iterable[str]) -> list[tuple[str, ...]]:
    """Per folder, the project-relative paths the agent may load there, in its order of
    preference; an agent we do not know loads nothing."""
    names = LOADED_NAMES.get(agent, ())
    return [tuple(f"{folder}/{name}" if folder else name for name in names)
            for folder in folders] if names else []


def import_references(agent: str, text: str) -> list[str]:
    """The ``@path`` references ``agent`` imports from an instruction file's ``text``, as
    written (``./``, ``~/`` or absolute ones included: where they lead is the I/O side's to
    find), in order, each once. Never one inside code or an HTML comment; Claude Code drops a
    ``#fragment``. A reference with a backslash (an escaped space) is not read: a path not
    followed is only a line repeated. An agent that imports nothing gets none."""
    start = _REFERENCE_START.get(agent)
    if start is None or "@" not in text:
        return []
    candidates = [(m.start(), m[1]) for m in _AT.finditer(text)
                  if m.start() == 0 or text[m.start() - 1] in " \t\r\n"]
    hidden = _hidden(text, agent, candidates[-1][0]) if candidates else []
    found: list[str] = []
    for at, ref in candidates:
        if any(begin <= at < end for begin, end in hidden):
            continue
        if agent == "claude-code":
            ref = ref.split("#", 1)[0]
        if ref and "\\" not in ref and start.match(ref) and ref not in found:
            found.append(ref)
    return found


def _hidden(text: str, agent: str, last: int) -> list[tuple[int, int]]:
    """The stretches of ``text`` no import is read in (fenced blocks, code spans, comments),
    as far as they can reach ``last``, the last reference. They may overlap or reach further
    than the agent's parser's would: a stretch hidden too many only repeats a line, never
    leaves one out."""
    hidden = _fences(text) if "```" in text or "~~~" in text else []
    if "`" in text:
        hidden += _code_spans((m.span() for m in _TICKS.finditer(text)), len(text), last,
                              exact=agent != "gemini")
    if "<!--" in text:
        hidden += [m.span() for m in _COMMENT.finditer(text)]
    return hidden


def _code_spans(runs: Iterable[tuple[int, int]], size: int, last: int,
                exact: bool) -> list[tuple[int, int]]:
    """Code spans from the backtick runs, in one pass, up to the first that opens after
    ``last``: Markdown's (``exact``: a run closes at the next run of the same length; Claude
    Code reads CLAUDE.md as Markdown) or Gemini CLI's (at the next run at least as long, whose
    rest opens the next span). A span never closed hides the rest of the file: where a parser
    would take the backticks for text, an import after them is only not counted."""
    spans: list[tuple[int, int]] = []
    opened, width = -1, 0
    for begin, end in runs:
        length = end - begin
        if opened < 0:
            if begin > last:
                break  # no span from here on can hide a reference
            opened, width = begin, length
        elif length == width or (not exact and length > width):
            spans.append((opened, begin + width))
            opened, width = (begin + width, length - width) if length > width else (-1, 0)
    if opened >= 0:
        spans.append((opened, size))
    return spans


def _fences(text: str) -> list[tuple[int, int]]:
    """Fenced blocks: from a line opening with three or more backticks or tildes to a line
    of at least as many of the same, or to the end."""
    found: list[tuple[int, int]] = []
    fence, began, at = "", 0, 0
    for line in text.splitlines(keepends=True):
        bare = line.strip()
        if not fence:
            opened = _FENCE.match(line)
            if opened:
                fence, began = opened[1], at
        elif len(bare) >= len(fence) and bare == fence[0] * len(bare):
            found.append((began, at + len(line)))
            fence = ""
        at += len(line)
    if fence:
        found.append((began, len(text)))
    return found


def always_loaded_rule(head: str) -> bool:
    """Whether a rules file whose text starts with ``head`` is loaded at the agent's start:
    no front matter, or front matter without a ``paths`` (or ``globs``) list. A front matter
    that never closes is not judged: the file counts as not loaded."""
    if not head.lstrip("\ufeff").startswith("---"):
        return True
    found = _FRONT_MATTER.match(head)
    return found is not None and _PATHS_KEY.search(found["body"]) is None


def cited_lines(fact: Fact) -> list[tuple[str, str]] | None:
    """Every (path, quoted line) the fact's evidence cites, or None when any evidence is not
    a line of a file (a transcript line, a note, a command's output): then something besides
    a file taught it."""
    evidence = fact.get("evidence") or []
    found = []
    for item in evidence:
        cited = _FILE_LINE.match(item) if isinstance(item, str) else None
        if cited is None or cited["path"].startswith("transcript#"):
            return None
        found.append((cited["path"], cited["line"]))
    return found or None


def read_anyway(fact: Fact, loaded: frozenset[str] | set[str]) -> bool:
    """Whether the starting agent has the fact from its own instruction files: a stance
    (standing, or told as a dated state) that a project file declares -- not the user's words,
    not the agent's, not a teammate's -- every piece of whose evidence quotes a file in
    ``loaded``. One citation of another file, or any other evidence, keeps it."""
    if not loaded or not _stance(fact):
        return False
    source = fact.get("source_type")
    if source in USER_SOURCES or source in AGENT_SOURCES or teammate_writer(fact) is not None:
        return False
    cited = cited_lines(fact)
    return cited is not None and all(path in loaded for path, _ in cited)


def _stance(fact: Fact) -> bool:
    """``logic.briefing``'s stance: a commitment, or a stance predicate whatever its class.
    Only these are left out -- the stored shortlist holds every one of them, so leaving one
    out at render never needs a fact the shortlist did not keep (docs/hooks.md)."""
    return fact.get("epistemic") == "commitment" or fact.get("predicate") in STANCE_PREDICATES
