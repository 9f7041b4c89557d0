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

Order within a section: decisions oldest first, changes newest first (ties of both by what the
fact says: ``logic.briefing.decision_key``, ``change_key``); ranked sections by
``logic.briefing.rank_key``; what is left out by its reason, then id.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from claimgraph.logic import briefing as compiled
from claimgraph.logic.confidence import (
    CONFIDENCE_FLOOR, DEFAULT_HALF_LIFE_DAYS, effective_confidence)
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.timeutil import DAY_MS

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
        return compiled.decision_key(fact)
    if section == "changed":
        return compiled.change_key(fact)
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


#: A horizon ends this long before an exact crossing of two confidences, so float rounding
#: near that instant never decides an order (``briefing_shortlist.FLOOR_MARGIN_MS``'s reason).
HORIZON_MARGIN_MS = 60_000
#: A placement head (``Store.placement_heads``' rows): the fact's id, what ``horizon`` reads
#: of it, and last whether it is a stance told as a state (``logic.briefing.told_as_state``:
#: it ranks among the current facts, where a standing one never does).
HEAD_COLUMNS = ("t_valid", "t_invalid", "confidence", "recorded_at", "last_reinforced_at",
                "epistemic", "source_type", "predicate", "dormant_since")


def head_of(fact: Fact) -> tuple[Any, ...]:
    return (fact["id"], *(fact.get(column) for column in HEAD_COLUMNS),
            compiled.told_as_state(fact))


def told_in(heads: Iterable[tuple[Any, ...]]) -> set[str]:
    """The ids of the heads' stances told as a state."""
    return {head[0] for head in heads if head[-1]}


def horizon(heads: Iterable[tuple[Any, ...]], now: int, half_life_days: float,
            levels: Iterable[float] = ()) -> tuple[int | None, frozenset[float]]:
    """(until, levels): the first instant after ``now`` (None: never) at which the sections
    placed at ``now`` may differ from those placed then with nothing written in between, and
    the confidences of the facts that never fade and may rank (``levels``, with those given).

    A section changes with time alone only when a fact starts or stops being valid, a change
    of belief leaves the window, or two ranked facts trade places. Decay multiplies every
    fading fact's confidence by the same factor, so two fading facts never trade places
    (``logic.briefing_shortlist``: why its shortlist lasts); one does trade with a fact that
    never fades (or has not begun to: its anchor is later) when it decays past that one's
    confidence, and its ties change when it reaches the floor (they fall to what the facts
    say: ``logic.briefing.rank_key``). So the answer is the earliest of: each later t_valid
    or t_invalid or anchor, each recent change's exit from the window, and each instant a
    fading fact valid now reaches the floor or a level (less a margin; at once when it is
    there now: a tie ends)."""
    period = DAY_MS * half_life_days
    start = compiled.window_start(now)
    until: int | None = None
    known = set(levels)
    anchors: dict[float, list[int]] = {}
    for (_, t_valid, t_invalid, confidence, recorded, reinforced, epistemic, source, predicate,
         dormant, told) in heads:
        for at in (t_valid, t_invalid):
            if at is not None and at > now:
                until = _earlier(until, at)
        if t_invalid is not None and start <= t_invalid <= now:
            until = _earlier(until, t_invalid + (now - start) + 1)
        valid = t_valid <= now and (t_invalid is None or t_invalid > now)
        if not valid or dormant is not None or source == "code" or (compiled.is_stance(
                {"epistemic": epistemic, "predicate": predicate}) and not told):
            continue  # never ranked now: decisions, left out, or nowhere
        if source == "decision-record" or epistemic == "commitment" or recorded is None:
            # never fades (``logic.confidence.never_fades``): a commitment ranks only when
            # told as a state, and holds its confidence there
            known.add(confidence)
            continue
        anchor = max(recorded, reinforced or recorded)
        if anchor > now:  # it starts fading at its anchor: till then it holds like a level
            until = _earlier(until, anchor)
            known.add(confidence)
            continue
        anchors.setdefault(confidence, []).append(anchor)
    for confidence, found in anchors.items():
        found.sort()
        for level in {CONFIDENCE_FLOOR, *known}:
            if confidence < level:
                continue  # below it from the start (equal: a tie until it starts fading)
            # It reaches ``level`` at anchor + reach: the first anchor still above it at now.
            reach = period * math.log2(confidence / level)
            first = bisect.bisect_left(found, now - reach)  # at now itself: a tie ends now
            if first < len(found):
                until = _earlier(until, int(found[first] + reach) - HORIZON_MARGIN_MS)
    return until, frozenset(known)


def _earlier(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)
