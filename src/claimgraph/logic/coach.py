"""The coach's decisions, purely: what of a search is worth pushing, and the briefing text.

The coach (docs/mcp.md): search the task, then push at most 3 standing commitments, 3 hazards and
3 open conflicts touching the hits — and nothing when none of those turned up, so an ordinary
prompt costs the agent no context at all.

Choices made here, as a user would expect them:
- "standing" means stances a person took: commitment-class facts first, then preferences
  ("always use pytest" is stored as a preference, and is exactly what the agent should hear
  before it writes a test) -- as the SessionStart block judges them: not an agent's note
  nobody corroborated (``logic.trust_tiers.shown``), and not a stance the block tells as a
  fact of its day (an expiring state, one act done once: ``logic.briefing.told_as_state``),
  which pushed as "standing" would read as an order to do it again;
- hazards are the lessons capture learned from failures (``core/failure-mode``);
- the prompt is cut to its first ``MAX_QUERY_TOKENS`` search tokens: the coach runs on every
  prompt, and a pasted log must not turn one prompt into hundreds of index lookups;
- the briefing is wrapped in the same markers as the SessionStart block (``logic.clean``), so
  capture strips it and memory never learns its own advice back; our own block is stripped
  from the prompt before it is searched, for the same reason.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from claimgraph.logic.briefing_lines import statement
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN, strip_injected
from claimgraph.logic.query_words import is_vocabulary_word
from claimgraph.logic.retrieval import bare_token, query_tokens
from claimgraph.logic.safe_render import safe_text

Fact = Mapping[str, Any]
PER_KIND = 3
MAX_QUERY_TOKENS = 8
STANCES = ("commitment", "preference")
HAZARD_PREDICATES = frozenset({"core/failure-mode"})
HEADING = "### claimgraph: memory relevant to this prompt"
NOTE = ("Recorded in earlier sessions; check before relying on it "
        "(`claimgraph facts`, `claimgraph conflicts`).")


def coach_query(task: str | None) -> str:
    """The search text for a task: its first search tokens, our own injected block removed.
    A word the developer vocabulary knows stays even when it is too common to search on its
    own ("add", "run"): search relates it to the tools' names (``logic.query_words``)."""
    text = strip_injected(task or "")
    kept = set(query_tokens(text))
    tokens = [t for t in dict.fromkeys(t for t in (bare_token(w) for w in text.split()) if t)
              if t in kept or is_vocabulary_word(t.lower())]
    return " ".join(tokens[:MAX_QUERY_TOKENS])


def standing(hits: Iterable[Fact]) -> list[Fact]:
    """Commitments, then preferences, each in search order, that the block would tell as
    standing (module docstring); at most ``PER_KIND``."""
    hits = list(hits)
    ranked = [f for cls in STANCES for f in hits if f.get("epistemic") == cls
              and f.get("predicate") not in HAZARD_PREDICATES]
    if not ranked:
        return []
    # Loaded only when a stance was hit: the coach runs on every prompt.
    from claimgraph.logic.briefing import told_as_state
    from claimgraph.logic.trust_tiers import shown
    return [f for f in ranked if shown(f) and not told_as_state(f)][:PER_KIND]


def hazards(hits: Iterable[Fact]) -> list[Fact]:
    return [f for f in hits if f.get("predicate") in HAZARD_PREDICATES][:PER_KIND]


def touching(pairs: Iterable[Mapping[str, Fact]], fact_ids: set[str],
             entity_ids: set[str]) -> list[Mapping[str, Fact]]:
    """Open conflict pairs with a side among the hits or about a matched entity; at most 3."""
    found = []
    for pair in pairs:
        sides = (pair["fact"], pair["candidate"])
        if any(f["id"] in fact_ids or (f.get("subject") or {}).get("id") in entity_ids
               for f in sides):
            found.append(pair)
    return found[:PER_KIND]


def select(hits: Sequence[Fact], pairs: Iterable[Mapping[str, Fact]],
           matched_entity_ids: set[str]) -> dict[str, Any]:
    """{push, commitments, hazards, conflicts}: what the coach would say about these hits."""
    chosen = {"commitments": standing(hits), "hazards": hazards(hits),
              "conflicts": touching(pairs, {f["id"] for f in hits}, matched_entity_ids)}
    return {"push": any(chosen.values()), **chosen}


def briefing(selection: Mapping[str, Any]) -> str:
    """The marked block the agent reads, or "" when there is nothing to push."""
    if not selection.get("push"):
        return ""
    parts = [HEADING, NOTE]
    parts += _section("Standing decisions and preferences",
                      [f"- {told(f)}" for f in selection["commitments"]])
    parts += _section("Hazards (lessons from earlier failures)",
                      [f"- {told(f)}" for f in selection["hazards"]])
    parts += _section("Open conflicts (awaiting review)",
                      [f"- {told(p['fact'])} — conflicts with — {told(p['candidate'])}"
                       for p in selection["conflicts"]])
    # every line is data: no stored text can close the block or hide in it (logic.safe_render)
    return f"{CONTEXT_OPEN}\n" + "\n".join(map(safe_text, parts)) + f"\n{CONTEXT_CLOSE}"


def told(fact: Fact) -> str:
    """One line naming how the fact was learned, in the SessionStart block's words ("you
    said", "seen", the cited file, "from Ada"): the agent weighs a pushed line as it weighs
    the block's, and a stance's class ("commitment") says nothing about who stood by it.
    Imported here, as ``standing`` imports its tier rule: a prompt that pushes nothing never
    loads it."""
    from claimgraph.logic.trust_tiers import tier
    return f"{statement(fact)} ({tier(fact)})"


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"\n{title}:", *lines] if lines else []


def surfaced_ids(selection: Mapping[str, Any]) -> list[str]:
    """What a pushing coach logs as read: its commitments and hazards (docs/mcp.md)."""
    return [f["id"] for key in ("commitments", "hazards") for f in selection.get(key, [])]
