"""Which section of a project's page each fact belongs to, and its place in that section.

The viewer shows a project's memory in the sections of the SessionStart context
(``logic.briefing.groups``) and then what the context leaves out. On a big project the page reads
one page of each section, not every fact: a store that can (SQLite: ``context_sections``) does
the placing, ordering and counting in one query; any other store is read whole and placed here.
Both must give the same answer, so this module is the definition the store's query is tested
against (docs/viewer.md).

Each fact in the two scopes lands in at most one section ("conflicts" holds the members of open
conflicts the caller lists there, ``logic.briefing.listed_as_contended``: the non-standing ones,
and a standing one a newer stance contends; any other standing one stays under "decisions", as
in the context):

- not valid now: "changed" when a change of belief closed it within the window (and it is
  neither dormant nor suspect), else nowhere;
- valid now: "left_out" when dormant or suspect; "conflicts" when listed as contended;
  "decisions" when standing; "left_out" when read from code or carrying a conflict link that is not
  open; else the ranked section its predicate competes in (lessons, current, structure).

Order within a section: decisions oldest first; changes newest first; ranked sections by
``logic.briefing.rank_key``; what is left out by its reason, then id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from claimgraph.logic import briefing as compiled
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS, effective_confidence
from claimgraph.logic.retrieval import fact_valid_at

Fact = Mapping[str, Any]
SECTION_KEYS = ("decisions", "conflicts", "changed", "lessons", "current", "structure",
                "left_out")
RANKED = frozenset(compiled.RANKED_CAPS)
#: Why a valid fact is not told, in the order the page lists them.
DORMANT, LEFT_OUT, FROM_CODE, SUSPECT = "dormant", "left out", "read from code", "suspect"


@dataclass(frozen=True)
class Narrowing:
    """The page's filters: a predicate id, an epistemic class, words in the subject's name or
    the object (case-insensitive; ASCII case folding, as SQL's ``lower``)."""

    predicate: str | None = None
    epistemic: str | None = None
    text: str | None = None

    def matches(self, fact: Fact) -> bool:
        if self.predicate and fact.get("predicate") != self.predicate:
            return False
        if self.epistemic and fact.get("epistemic") != self.epistemic:
            return False
        if not self.text:
            return True
        wanted = ascii_lower(self.text)
        return any(wanted in ascii_lower(text) for text in (_subject_name(fact), _object(fact)))

    @property
    def active(self) -> bool:
        return bool(self.predicate or self.epistemic or self.text)


def ascii_lower(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def placement(fact: Fact, now: int, suspect: set[str],
              open_ids: set[str]) -> tuple[str, str | None] | None:
    """(section, reason when left out), or None when the page shows the fact nowhere."""
    dormant, is_suspect = fact.get("dormant_since") is not None, fact["id"] in suspect
    if not fact_valid_at(fact, now):
        if compiled.recently_superseded(fact, now) and not dormant and not is_suspect:
            return "changed", None
        return None
    if dormant:
        return "left_out", DORMANT
    if is_suspect:
        return "left_out", SUSPECT
    if fact["id"] in open_ids:
        return "conflicts", None
    if compiled.is_standing(fact):
        return "decisions", None
    if fact.get("source_type") == "code":
        return "left_out", FROM_CODE
    if fact.get("conflicts"):
        return "left_out", LEFT_OUT
    return compiled.ranked_section(fact["predicate"]), None


def order_key(section: str, fact: Fact, reason: str | None, now: int,
              half_life_days: float) -> tuple[Any, ...]:
    if section == "decisions":
        return (fact["t_valid"], fact["id"])
    if section == "changed":
        return (-fact["t_invalid"], fact["id"])
    if section in RANKED:
        return compiled.rank_key(fact, effective_confidence(fact, now, half_life_days))
    if section == "left_out":
        return (reason or "", fact["id"])
    return (fact["id"],)


def sections_of(facts: Iterable[Fact], suspect: Iterable[str], open_ids: Iterable[str],
                now: int, windows: Mapping[str, tuple[int, int]],
                narrowing: Narrowing = Narrowing(),
                half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
    """{counts: {section: n}, ids: {section: [id, ...]}, reasons: {id: why}} over facts read
    whole: what ``SqliteStore.context_sections`` answers with SQL. ``windows`` maps a section
    to the (offset, limit) of the ids wanted."""
    suspect, open_ids = set(suspect), set(open_ids)
    placed: dict[str, list[tuple[tuple[Any, ...], str]]] = {key: [] for key in SECTION_KEYS}
    reasons: dict[str, str] = {}
    for fact in facts:
        if not narrowing.matches(fact):
            continue
        where = placement(fact, now, suspect, open_ids)
        if where is None:
            continue
        section, reason = where
        placed[section].append((order_key(section, fact, reason, now, half_life_days),
                                fact["id"]))
        if reason:
            reasons[fact["id"]] = reason
    ids: dict[str, list[str]] = {}
    for section, (offset, limit) in windows.items():
        ordered = sorted(placed[section])[offset:offset + limit]
        ids[section] = [fid for _, fid in ordered]
    wanted = {fid for found in ids.values() for fid in found}
    return {"counts": {key: len(rows) for key, rows in placed.items()}, "ids": ids,
            "reasons": {fid: why for fid, why in reasons.items() if fid in wanted}}


def _subject_name(fact: Fact) -> str:
    return fact.get("subject_name") or (fact.get("subject") or {}).get("name") or ""


def _object(fact: Fact) -> str:
    if fact.get("object_kind") == "entity":
        ref = fact.get("object_ref")
        return (ref.get("name") if isinstance(ref, dict) else None) or ""
    return str(fact.get("object_lit") or "")
