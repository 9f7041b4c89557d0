"""Forget: the soft way to take a fact back (``claimgraph forget``, the memory_forget tool).

A forgotten fact is invalidated with kind ``forgotten`` and the reason given, and from then on
is read as never believed (``logic.retrieval.fact_valid_at``): context, search, coach, recall's
fact tier and time travel skip it, while ``history`` and ``facts --all`` still show it with its
reason. Nothing is deleted; ``purge`` is the hard path. Callers hold the write lease.

A fact that was already invalidated (superseded, say) is forgotten too, keeping the time it
ended: a recent supersession would otherwise keep showing it as "changed" in the context.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from claimgraph.core import entities as ents
from claimgraph.core.shell import Shell
from claimgraph.core.writes import require_fact
from claimgraph.logic.model import FORGOTTEN

DEFAULT_REASON = "forgotten by request"


def forget(sh: Shell, fact_ids: Iterable[str], reason: str | None = None) -> dict[str, Any]:
    """{forgotten: [facts], already: [facts]}; an unknown id fails the whole call first."""
    facts = [require_fact(sh, fact_id) for fact_id in dict.fromkeys(fact_ids)]
    why = (reason or "").strip() or DEFAULT_REASON
    now = sh.now()
    done, already = [], []
    with sh.store.transaction():
        for fact in facts:
            if fact.get("invalidation_kind") == FORGOTTEN:
                already.append(fact)
                continue
            _forget_one(sh, fact, why, now)
            done.append(sh.store.get_fact(fact["id"]))
    return {"forgotten": done, "already": already, "reason": why}


def _forget_one(sh: Shell, fact: dict[str, Any], why: str, now: int) -> None:
    ended = fact.get("t_invalid")
    if ended is None:
        ended = max(now, fact["t_valid"])
    else:
        why = f"{why} (was {fact.get('invalidation_kind') or 'invalidated'}: " \
              f"{fact.get('invalidation_reason') or 'no reason recorded'})"
    sh.store.invalidate(fact["id"], ended, kind=FORGOTTEN, reason=why,
                        successor=fact.get("successor"))


def facts_about(sh: Shell, name: str, scopes: str | Sequence[str] | None) -> dict[str, Any]:
    """{entity, ids}: every fact naming the entity, as subject or object, not yet forgotten."""
    entity = ents.require_entity(sh, name, scopes)
    facts = sh.store.get_facts(entity["id"], "both")
    return {"entity": entity,
            "ids": [f["id"] for f in facts if f.get("invalidation_kind") != FORGOTTEN]}
