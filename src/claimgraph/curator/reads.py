"""What a consolidate pass reads, asked of the store's fast paths when it has them.

SQLite answers these in SQL (``store.sqlite_curation``); any other backend gets the same answer
computed here from Store protocol methods, as every pass computed it before. Either way the
answer is a superset for the pure logic to decide on, so the two paths give the same pass.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from claimgraph.core.shell import Shell
from claimgraph.logic import entities as E
from claimgraph.logic.conflicts import is_single_valued
from claimgraph.logic.model import DEFAULT_SCOPE
from claimgraph.logic.replacement import TEXT_STANCES
from claimgraph.store.fast_paths import CurationReads

Record = dict[str, Any]
NameKey = tuple[str, str]


def _fast(sh: Shell) -> CurationReads | None:
    """The store, when it answers the curator's reads in SQL
    (``store.fast_paths.CurationReads``)."""
    return sh.store if isinstance(sh.store, CurationReads) else None


def repeated_claim_facts(sh: Shell) -> list[Record]:
    """Valid facts that may repeat another valid fact's claim (the collapse's input)."""
    if fast := _fast(sh):
        return fast.repeated_claim_facts()
    return sh.store.select_facts(valid_cheap=True)


def sweep_predicates(preds: dict[str, dict[str, Any]]) -> dict[str, set[str]]:
    """The predicate classes the sweep cares about (the conflict sweep's seeds, docs/curator.md):
    ``watched`` seed a subject; ``exclusive`` values pair with each other; a ``decision`` pairs with
    any other claim about the same object (``logic.conflicts``); ``paired`` are the predicates
    whose facts join the pool on their own: exclusive values, single-valued predicates' values
    (two writers' differing ones pair), and the free-text stances a later session may replace
    (``logic.replacement``)."""
    exclusive = {p for p, row in preds.items() if row.get("value_exclusivity") == "exclusive"}
    single = {p for p, row in preds.items() if is_single_valued(row)}
    decisions = {p for p, row in preds.items() if row.get("category") == "decision"}
    grouped = {p for p, row in preds.items() if row.get("exclusion_group")}
    stances = TEXT_STANCES & preds.keys()
    return {"watched": exclusive | single | decisions | grouped | stances,
            "exclusive": exclusive, "decisions": decisions,
            "paired": exclusive | single | stances}


def sweep_pool(sh: Shell, classes: dict[str, set[str]]) -> list[Record]:
    """Valid facts of seeded subjects that can pair (an exclusive value, or any fact of a
    subject with a decision) or already carry a conflict link."""
    if fast := _fast(sh):
        return fast.sweep_pool(classes["watched"], classes["paired"], classes["decisions"])
    facts = sh.store.select_facts(valid_cheap=True)

    def subjects(predicates: set[str]) -> set[Any]:
        return {_subject(f) for f in facts if f["predicate"] in predicates}

    seeded, deciding = subjects(classes["watched"]), subjects(classes["decisions"])
    return [f for f in facts if _subject(f) in seeded and (
        f["predicate"] in classes["paired"] or _subject(f) in deciding or f.get("conflicts"))]


def _subject(fact: Record) -> Any:
    return (fact.get("subject") or {}).get("id")


def fact_cursor(sh: Shell) -> int | None:
    """Where the fact table ends now; None when the backend cannot say (its passes follow
    episodes only: a store without it takes no teammate's effects, sync is SQLite's)."""
    fast = _fast(sh)
    return fast.fact_cursor() if fast else None


def subjects_of_facts_after(sh: Shell, cursor: int) -> set[str]:
    """Subjects of the facts inserted after ``cursor``, whether or not an episode names them."""
    fast = _fast(sh)
    return set(fast.subjects_of_facts_after(cursor)) if fast else set()


def count_valid_facts(sh: Shell) -> int:
    if fast := _fast(sh):
        return fast.count_valid_facts()
    return len(sh.store.select_facts(valid_cheap=True))


def predicate_counts(sh: Shell, episode_ids: list[str]) -> dict[str, Counter[str]]:
    """episode id -> Counter of the predicates its facts use."""
    if fast := _fast(sh):
        return {ep: Counter(by_pred) for ep, by_pred in fast.predicate_counts(episode_ids).items()}
    counts: dict[str, Counter[str]] = {}
    for fact in sh.store.select_facts(episodes=episode_ids) if episode_ids else []:
        counts.setdefault(fact["episode"], Counter())[fact["predicate"]] += 1
    return counts


def episode_count(sh: Shell) -> int:
    if fast := _fast(sh):
        return fast.count_episodes()
    return len(sh.store.list_episodes())


def episodes_opened_since(sh: Shell, at: int) -> list[Record]:
    if fast := _fast(sh):
        return fast.episodes_opened_since(at)
    return [e for e in sh.store.list_episodes() if (e.get("opened_at") or 0) >= at]


def open_episodes(sh: Shell) -> list[Record]:
    if fast := _fast(sh):
        return fast.open_episodes()
    return [e for e in sh.store.list_episodes() if e.get("closed_at") is None]


# --- entity clusters -------------------------------------------------------------------------

def entity_cursor(sh: Shell) -> int | None:
    """Where the entity table ends now; None when the backend cannot say (always recount)."""
    fast = _fast(sh)
    return fast.entity_cursor() if fast else None


def changed_name_keys(sh: Shell, known: Iterable[NameKey], cursor: int) -> list[NameKey]:
    """The keys worth re-counting: clusters known before, and keys of entities added since."""
    fast = _fast(sh)
    after = fast.entity_name_keys_after(cursor) if fast else []
    return sorted({*((first, second) for first, second in known), *after})


def entity_clusters(sh: Shell, keys: list[NameKey] | None) -> list[dict[str, Any]]:
    """``logic.entities.entity_duplicate_clusters``, over all entities (keys None) or only
    over the given (scope, normalized name) keys; same shape, same order."""
    fast = _fast(sh)
    if fast is None:
        return E.entity_duplicate_clusters(sh.store.list_entities())
    if keys is None:
        keys = fast.duplicate_name_keys()
    members = fast.entities_with_name_keys(keys) if keys else {}
    return [{"scope": scope or DEFAULT_SCOPE, "normalized": norm,
             "entities": sorted(found, key=lambda e: e["id"])}
            for (scope, norm), found in sorted(members.items()) if len(found) >= 2]

