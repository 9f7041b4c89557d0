"""Gather what the compiled context needs from the store, then let ``logic.briefing`` decide.

Used by ``claimgraph context`` and by the SessionStart hook, which the agent waits for at every
start: so this imports no CLI, config or logging machinery, and its cost must not grow with the
store. It asks for light rows of the project's and the user's facts, the conflict-linked ones,
and which facts the audit found suspect; then reads whole only the shortlist the block can show
(plus, rarely, a successor that lives in another scope).

The curator stores a shortlist that lasts (``logic.briefing_shortlist.lasting_shortlist``) in
the mark ``context:shortlist@<meaning>:<project>``, stamped with the store's write counter:
while the counter has not moved and the shortlist's "until" has not come, ``gather`` reads just
those facts, in two indexed lookups and one read by ids, whatever the store's size
(docs/hooks.md, "The stored shortlist").

Suspect facts (their cited code no longer backs them) and dormant ones are left out: the agent
should not start a session believing either. Conflict links to facts outside the two scopes are
not shown (the other side belongs to another project).
"""

from __future__ import annotations

from contextlib import nullcontext
from collections.abc import Mapping

from claimgraph import STORE_FORMAT
from claimgraph.logic import briefing as compiled
from claimgraph.logic.briefing_shortlist import lasting_shortlist, shortlist
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_HEADING, CONTEXT_OPEN
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS
from claimgraph.logic.conflicts import open_conflicts
from claimgraph.logic.own_instructions import read_anyway
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.safe_render import fact_held, safe_text
from claimgraph.logic.timeutil import to_date
from claimgraph.core.teammates import named
from claimgraph.store.fast_paths import ContextHeads, Snapshots

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

    from claimgraph.store.base import Store

USER_SCOPE = "user"
#: Every stored shortlist's key starts so: ``context:shortlist@<meaning>:<project>``. The
#: meaning is in the key, so two claimgraphs of different meanings on one store (an upgrade
#: while an old curator still runs, two virtualenvs) each keep and read their own record
#: instead of replacing each other's at every pass (docs/hooks.md, "A new claimgraph"). Not
#: ``context:shortlist:``: claimgraphs before this list that prefix as theirs alone.
SHORTLIST_PREFIX = "context:shortlist@"
#: What a stored shortlist means: which facts it must hold for the block this code compiles.
#: A record holds only under the meaning it was stored with; the store's format is not part
#: of it (a format step that adds an index or a table changes no fact, and the write counter
#: says whether any fact changed since). Bump this when what the block can show changes
#: (``logic.briefing``'s sections, caps or placement, ``logic.briefing_shortlist``'s choice,
#: the filters in ``gather_from``): every stored record then stops holding, and the next
#: curator pass stores new ones. Records stored before this field existed do not hold.
#: 2: ranked ties are broken by what the facts say before their ids (``logic.briefing.rank_key``).
SHORTLIST_MEANING = 2
#: The most light rows the SessionStart hook reads for a live compile when no stored
#: shortlist holds: ~0.3 s of CPU and ~110 MB at 50k, growing linearly (~7 s and 2 GB at a
#: million, against the agent's 10 s hook timeout). Past it the hook says so instead
#: (``gather``'s ``live_limit``, docs/hooks.md).
LIVE_LIMIT = 50_000


def gather(store: Store, project_id: str, now: int,
           half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
           live_limit: int | None = None) -> dict[str, Any]:
    """{facts, conflicts, successors, stored, over_limit}: facts valid now or superseded within
    the window, minus suspects — every one ``logic.briefing.plan`` can show, on a store with
    100k facts too.

    A store that answers ``select_context_heads`` (SQLite) is asked for light rows first and
    only the shortlist that ``plan`` could show is read whole (``logic.briefing_shortlist``
    says why that gives the same block); any other store is read whole, as before. A stored
    shortlist that still holds is read first (module docstring); every read here sees one
    snapshot where the store offers one.

    With ``live_limit`` (the SessionStart hook's), a store that can count its light rows
    cheaply and holds more than that many in the two scopes is not compiled live: nothing is
    gathered and ``over_limit`` is True, so the caller can say the block is not ready rather
    than make the agent wait seconds (docs/hooks.md, "When no shortlist holds")."""
    with store.reading() if isinstance(store, Snapshots) else nullcontext():
        stored = stored_shortlist(store, project_id, now, half_life_days)
        if stored is not None:
            # Nothing shortlisted is suspect, and the suspects cannot have changed since
            # (an audit verdict is a write): so the stored path needs no suspect read.
            return {**gather_from(store, stored, now, set()), "stored": True,
                    "over_limit": False}
        if live_limit is not None and _over(store, project_id, now, live_limit):
            return {"facts": [], "conflicts": [], "successors": {}, "stored": False,
                    "over_limit": True}
        return {**_gather_live(store, project_id, now, half_life_days), "stored": False,
                "over_limit": False}


def _over(store: Store, project_id: str, now: int, limit: int) -> bool:
    """Whether a live compile would read more than ``limit`` light rows (False when the store
    cannot tell without reading them)."""
    count = getattr(store, "count_context_heads", None)
    return count is not None and count(scopes(project_id), compiled.window_start(now),
                                       limit + 1) > limit


def _gather_live(store: Store, project_id: str, now: int,
                 half_life_days: float) -> dict[str, Any]:
    wanted = scopes(project_id)
    if not isinstance(store, ContextHeads):
        return gather_from(store, store.select_facts(scopes=wanted), now)
    ends, suspect = _linked_and_suspect(store, wanted)
    heads = store.select_context_heads(wanted, compiled.window_start(now))
    chosen = shortlist(heads, ends, suspect, now, half_life_days)
    return gather_from(store, _read_by_ids(store, chosen), now, suspect)


def _linked_and_suspect(store: Store, wanted: list[str]) -> tuple[set[str], set[str]]:
    """Ids at either end of a conflict link from the scopes' facts, and the suspect ids."""
    linked = store.select_facts(scopes=wanted, conflicted=True)
    ends = {f["id"] for f in linked} | {other for f in linked for other in f["conflicts"]}
    return ends, set(store.suspect_fact_ids())


def _read_by_ids(store: Store, ids: set[str] | list[str]) -> list[dict[str, Any]]:
    return sorted(store.get_facts_by_ids(sorted(ids)), key=lambda f: (f["t_valid"], f["id"]))


def shortlist_key(project_id: str) -> str:
    """Where this version's shortlist for ``project_id`` is stored (its meaning's own key)."""
    return f"{SHORTLIST_PREFIX}{SHORTLIST_MEANING}:{project_id}"


def lasting_record(store: Store, project_id: str, at: int,
                   half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
    """The shortlist to store for ``project_id``, computed at ``at`` (without its write stamp:
    the caller adds the counter it read before this, and stores the record only if the
    counter has not moved since)."""
    wanted = scopes(project_id)
    ends, suspect = _linked_and_suspect(store, wanted)
    heads = (store.iter_context_heads(wanted, compiled.window_start(at))  # streamed: few kept
             if isinstance(store, ContextHeads) else store.select_facts(scopes=wanted))
    ids, until = lasting_shortlist(heads, ends, suspect, at, half_life_days)
    return {"meaning": SHORTLIST_MEANING, "format": STORE_FORMAT, "at": at, "until": until,
            "half_life": half_life_days, "ids": sorted(ids)}


def holds(record: Any, writes: int, now: int, half_life_days: float) -> bool:
    """Whether a stored shortlist record still gives the exact block at ``now``: stored under
    today's meaning (``SHORTLIST_MEANING``; its store format is only a note), stamped with the
    current write count, for this half-life, and ``now`` within its life."""
    if not isinstance(record, Mapping) or record.get("writes") != writes:
        return False
    at, until, ids = record.get("at"), record.get("until"), record.get("ids")
    return (record.get("meaning") == SHORTLIST_MEANING
            and record.get("half_life") == half_life_days
            and isinstance(at, int) and at <= now
            and (until is None or (isinstance(until, int) and now < until))
            and isinstance(ids, list) and all(isinstance(i, str) for i in ids))


def stored_shortlist(store: Store, project_id: str, now: int,
                     half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> list[dict[str, Any]] | None:
    """The stored shortlist's facts when it still holds at ``now``, else None (compile live).
    A shortlisted fact that is gone (only a purge deletes facts, and a purge is a write)
    means the record was tampered with: None as well."""
    count = getattr(store, "write_count", None)
    if count is None:
        return None
    record = store.get_mark(shortlist_key(project_id))
    if record is None or not holds(record, count(), now, half_life_days):
        return None
    facts = _read_by_ids(store, record["ids"])
    return facts if len(facts) == len(set(record["ids"])) else None


def gather_from(store: Store, scope_facts: list[dict[str, Any]], now: int,
                suspect: set[str] | None = None) -> dict[str, Any]:
    """``gather`` over facts already read from the two scopes (the viewer reads them once and
    shows what the context leaves out beside what it keeps)."""
    if suspect is None:
        suspect = set(store.suspect_fact_ids())
    facts = [f for f in scope_facts  # held facts wait for review (logic.safe_render)
             if f["id"] not in suspect and f.get("dormant_since") is None and not fact_held(f)
             and (fact_valid_at(f, now) or compiled.recently_superseded(f, now))]
    facts = named(store, facts)  # a teammate's facts read "from Ada", never "you said"
    valid = [f for f in facts if fact_valid_at(f, now)]
    return {"facts": facts, "conflicts": open_conflicts(valid, {}, now),
            "successors": _missing_successors(store, facts)}


def scopes(project_id: str) -> list[str]:
    return sorted({project_id, USER_SCOPE})


def _missing_successors(store: Store, facts: list[dict[str, Any]]) -> dict[str, Any]:
    """Successors named by recent changes but not among ``facts`` (another scope, dormant or
    suspect): shown as the new value of a change, never as facts of their own."""
    have = {f["id"] for f in facts}
    wanted = sorted({succ for f in facts if f.get("t_invalid") is not None
                     for succ in [compiled.supersession_successor(f)[1]]
                     if succ and succ not in have})
    return {f["id"]: f for f in store.get_facts_by_ids(wanted) if not fact_held(f)} \
        if wanted else {}


def compile_for(store: Store, project_id: str, now: int,
                budget_chars: int = compiled.DEFAULT_BUDGET_CHARS,
                half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                loaded: frozenset[str] = frozenset()) -> dict[str, Any]:
    """{project, as_of, text, chars, sections, read_anyway}: the block for ``project_id`` as
    of ``now``, for an agent that loads the instruction files ``loaded`` on its own."""
    return compile_gathered(gather(store, project_id, now, half_life_days), project_id, now,
                            budget_chars, half_life_days, loaded)


def compile_gathered(found: Mapping[str, Any], project_id: str, now: int,
                     budget_chars: int = compiled.DEFAULT_BUDGET_CHARS,
                     half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                     loaded: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``compile_for`` over what ``gather`` found. The facts the starting agent reads anyway
    in its own instruction files (``loaded``) are left out here, at render, on the stored
    and the live path alike: the shortlist is the project's, whichever agent starts."""
    facts, successors, left = _not_read_anyway(found, now, loaded)
    sections = compiled.plan(facts, found["conflicts"], now, half_life_days, successors)
    rendered = compiled.render(sections, now, project_id, budget_chars)
    return {"project": project_id, "as_of": now, **rendered, "read_anyway": left}


#: The block in place of a live compile past ``LIVE_LIMIT``: it says what is missing, why, and
#: where the facts can still be read, and claims nothing about them.
NOT_READY = ("claimgraph holds more than {limit:,} facts for this project ({project}) and "
             "for the user across projects, and the list of those this block shows is being "
             "refreshed (after an upgrade or a recent write), so none are shown at this start "
             "rather than keep the session waiting. Read them with `claimgraph context`, "
             "`claimgraph search` or `claimgraph facts`, or the memory tools.")


#: ``NOT_READY`` when the config file is refused: no curator is started to refresh the list
#: (it would refuse the file too), so the block says which file and setting stop it.
NOT_READY_REFUSED = ("claimgraph holds more than {limit:,} facts for this project ({project}) "
                     "and for the user across projects, and the list of those this block "
                     "shows cannot be refreshed while the config file is refused ({why}), "
                     "so none are shown at this start. Fix the file, or read them with "
                     "`claimgraph context`, `claimgraph search` or `claimgraph facts`, or the "
                     "memory tools.")


def not_ready(project_id: str, now: int, limit: int = LIVE_LIMIT,
              refused: str | None = None) -> dict[str, Any]:
    """{project, as_of, text, chars, sections, read_anyway}, as ``compile_gathered`` gives,
    for a store whose block ``gather`` did not compile (``over_limit``). ``refused``: why the
    config file is refused (``configured.refusal``: the file, the setting and what it
    expects, never the value), when it is."""
    if refused:
        body = NOT_READY_REFUSED.format(limit=limit, project=safe_text(project_id),
                                        why=safe_text(refused))
    else:
        body = NOT_READY.format(limit=limit, project=safe_text(project_id))
    text = (f"{CONTEXT_OPEN}\n{CONTEXT_HEADING} (as of {to_date(now)})\n\n{body}\n"
            f"{CONTEXT_CLOSE}")
    return {"project": project_id, "as_of": now, "text": text, "chars": len(text),
            "sections": {}, "read_anyway": 0}


def _not_read_anyway(found: Mapping[str, Any], now: int,
                     loaded: frozenset[str]) -> tuple[list[Any], Mapping[str, Any], int]:
    """(facts, successors, how many were left out): ``found`` without the valid stances the
    agent has from its own files (``logic.own_instructions.read_anyway``). A member of an open
    conflict stays (the conflict is news to every agent), and so does a change of belief; a
    left-out fact that a recent change names as its successor is still worded there."""
    if not loaded:
        return found["facts"], found["successors"], 0
    contended = {f["id"] for pair in found["conflicts"] for f in pair.values()}
    left = {f["id"]: f for f in found["facts"] if f["id"] not in contended
            and fact_valid_at(f, now) and read_anyway(f, loaded)}
    if not left:
        return found["facts"], found["successors"], 0
    kept = [f for f in found["facts"] if f["id"] not in left]
    return kept, {**found["successors"], **left}, len(left)
