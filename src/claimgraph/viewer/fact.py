"""A fact's page: every version of it, the chain that backs it, and what contends with it.

History is ``claimgraph history`` (every version of subject + predicate, superseded and
invalidated ones included), provenance is ``claimgraph provenance`` (``core.provenance``: the
episode, the transcript lines its citations name, each cited file judged against the file as
it is now), and the audit's recorded verdicts sit beside the live ones. Conflict links live on
the newer fact, so the older side is found by looking for links that point at it.

``actions`` is where buttons that act on a fact go (forgetting one is planned); the viewer is
read-only, so it holds none yet and the template renders whatever a later page puts there.
"""

from __future__ import annotations

from typing import Any

from claimgraph.core.provenance import provenance
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.confidence import effective_confidence
from claimgraph.logic.model import fact_state
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.viewer.source import NotFound, Source

MAX_ID_CHARS = 200


def fact_page(src: Source, fact_id: str) -> dict[str, Any]:
    if not fact_id or len(fact_id) > MAX_ID_CHARS:
        raise NotFound("no such fact")
    with src.shell() as sh:
        fact = sh.store.get_fact(fact_id)
        if fact is None:
            raise NotFound(f"no fact {fact_id!r} in this store")
        now = sh.now()
        chain = _chain(src, sh, fact_id)
        history = sh.store.get_history(fact["subject"]["id"], fact["predicate"])
        recorded = sh.store.get_audit([fact_id])
        contenders = conflicts(sh, fact, now)
        predicate = sh.predicates().get(fact["predicate"]) or {}
    return {"fact": fact, "now": now, "state": fact_state(fact),
            "valid_now": fact_valid_at(fact, now),
            "confidence": effective_confidence(fact, now, src.half_life_days),
            "predicate": predicate, "history": history, "chain": chain,
            "recorded_audit": recorded, "conflicts": contenders, "actions": []}


def _chain(src: Source, sh: Any, fact_id: str) -> dict[str, Any]:
    """The provenance chain; a failure to judge the files must not hide the rest of the page."""
    try:
        return provenance(sh, fact_id, sidecars=src.sidecars, environ=src.environ)
    except ClaimgraphError as err:
        return {"episode": None, "transcript": {"lines": [], "error": err.message}, "files": []}


def conflicts(sh: Any, fact: dict[str, Any], now: int) -> list[dict[str, Any]]:
    """Facts linked to this one either way, each with whether the conflict is still open."""
    linked = {f["id"]: f for f in sh.store.get_facts_by_ids(fact.get("conflicts") or [])}
    for other in sh.store.select_facts(conflicted=True):
        if fact["id"] in (other.get("conflicts") or []):
            linked.setdefault(other["id"], other)
    return [{"fact": other,
             "open": fact_valid_at(fact, now) and fact_valid_at(other, now)}
            for other in sorted(linked.values(), key=lambda f: (f["t_valid"], f["id"]))]
