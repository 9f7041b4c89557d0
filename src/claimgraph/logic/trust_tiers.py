"""How a fact was learned, in a word or two, and whether the agent's own words may be shown.

Every fact already records where it came from (``source_type``) and what backs it
(``evidence``), so its trust tier is derived, never stored (docs/capture.md, "Trust tiers"):

- **you said**: the user's own words (``user-assertion``; a ``decision-record`` too);
- **you asked, done**: the user's request that the session carried out and kept
  (``logic.requested``: its evidence cites the change that did it);
- **a file**: a project file declares it; the line names the file (``CLAUDE.md``,
  ``mix.exs``) and the curator's audit re-checks it against that file;
- **seen**: observed in the session -- a tool's outcome, a gate that blocked, a command that
  failed and then worked;
- **agent's note**: the agent said it (``agent-note``, ``inferred``), trusted least;
- **from a teammate**: it arrived by sync (``sync:<writer>``): "from Ada", the name the trust
  list gives that writer (``teammate``, set by ``core.teammates``), else the writer's id --
  never "you said" (docs/sync.md, "What a teammate says is theirs").

The context block and ``recall`` show an agent's note only once something corroborates it: a
later capture reinforced it (another session learned it again), which the store records as
``last_reinforced_at`` after ``recorded_at``. Pure: plain facts in, words out.
"""

from __future__ import annotations

from collections.abc import Mapping

from claimgraph.logic.lazy_regex import lazy_regex

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

if TYPE_CHECKING:
    Fact = Mapping[str, Any]
YOU_SAID, SEEN, AGENT_NOTE = "you said", "seen", "agent's note"
#: The source a synced fact carries: ``sync:<writer>``; ``TEAMMATE`` is the derived field
#: holding the trust list's name for that writer (never stored).
SYNC_SOURCE, TEAMMATE = "sync:", "teammate"
MAX_NAME_CHARS = 40
USER_SOURCES = frozenset({"user-assertion", "decision-record"})
AGENT_SOURCES = frozenset({"agent-note", "inferred"})
_FILE_CITATION = lazy_regex(r"^(?:\./)?(?P<path>[^\s`]+?): `")
MAX_PATH_CHARS = 60


def tier(fact: Fact) -> str:
    """"you said" ("you asked, done"), "from Ada", a cited file's path, "seen" or "agent's
    note"."""
    source = fact.get("source_type")
    writer = teammate_writer(fact)
    if writer is not None:
        return "from " + teammate_label(fact)
    if source in USER_SOURCES:
        # imported here: a command that prints facts (`facts`, `search`) never asks a tier
        from claimgraph.logic.requested import ASKED_DONE, asked_and_done
        return ASKED_DONE if asked_and_done(fact) else YOU_SAID
    if source in AGENT_SOURCES:
        return AGENT_NOTE
    cited = cited_file(fact)
    return cited if cited else SEEN


def teammate_writer(fact: Fact) -> str | None:
    """The writer a synced fact came from, or None for this store's own facts."""
    source = fact.get("source_type")
    if isinstance(source,
                  str) and source.startswith(SYNC_SOURCE) and len(source) > len(SYNC_SOURCE):
        return source[len(SYNC_SOURCE):]
    return None


def teammate_label(fact: Fact) -> str:
    """Who a synced fact is from, in one short line: the trust list's name, else the writer."""
    name = fact.get(TEAMMATE) or teammate_writer(fact) or "a teammate"
    collapsed = " ".join(str(name).split())
    return collapsed if len(collapsed) <= MAX_NAME_CHARS else collapsed[:MAX_NAME_CHARS - 1] + "…"


def cited_file(fact: Fact) -> str | None:
    """The project file the fact's first evidence quotes, if it quotes one (a transcript
    citation, ``transcript#L42: …``, names no file)."""
    evidence = fact.get("evidence") or []
    first = evidence[0] if evidence and isinstance(evidence[0], str) else ""
    found = _FILE_CITATION.match(first)
    if found is None or found["path"].startswith("transcript#"):
        return None
    path = found["path"]
    return path if len(path) <= MAX_PATH_CHARS else "…" + path[-(MAX_PATH_CHARS - 1):]


def corroborated(fact: Fact) -> bool:
    """Reinforced after it was first recorded: a later capture learned it again."""
    recorded, reinforced = fact.get("recorded_at"), fact.get("last_reinforced_at")
    return recorded is not None and reinforced is not None and reinforced > recorded


def shown(fact: Fact) -> bool:
    """Whether the context and recall may show the fact: anything but an agent's note, and
    an agent's note once corroborated."""
    return fact.get("source_type") not in AGENT_SOURCES or corroborated(fact)
