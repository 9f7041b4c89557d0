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

- Claude Code: ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``. A CLAUDE.md in a
  folder below the session's is read only when the agent works there, so it is not counted;
  nor are files a CLAUDE.md imports with ``@path``: capture does not record the imports, and
  an import is not guessed.
- Codex: ``AGENTS.override.md`` in a folder that has one, else ``AGENTS.md``; the I/O side
  checks which is there and stops at Codex's default 32 KiB of instructions
  (``claimgraph.agent_files``).
- Gemini CLI: ``GEMINI.md``.

Only the default names count: a file an agent was configured to load under another name
(Codex's fallback names, Gemini's ``context.fileName``) is not known here, so its rules stay
in the block -- a repeat costs a line, a rule left out costs the rule.

Pure: facts and paths in, a yes or no out.
"""

from __future__ import annotations

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
#: ``path: `quoted line``` as ``session.file_evidence`` writes it (``./`` before a bare name).
_FILE_LINE = lazy_regex(r"^(?:\./)?(?P<path>[^\s`]+?): `(?P<line>.*)`$")


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
