"""A fact's page: every version of it, the chain that backs it, and what contends with it.

History is every version of the same belief: for a predicate with one value per subject
(``cardinality`` one) every fact of subject + predicate, as ``claimgraph history`` lists them;
for a many-valued one (conventions, preferences, dependencies: a subject holds several at
once) only the facts joined to this one by a chain of replacements or holding the same value,
so an unrelated rule that shares the subject and predicate is never called an earlier version
of it. Provenance is ``claimgraph provenance`` (``core.provenance``: the
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
from claimgraph.core.teammates import named
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
        fact = named(sh.store, [fact])[0]
        now = sh.now()
        chain = _chain(src, sh, fact_id)
        every = sh.store.get_history(fact["subject"]["id"], fact["predicate"])
        recorded = sh.store.get_audit([fact_id])
        contenders = conflicts(sh, fact, now)
        predicate = sh.predicates().get(fact["predicate"]) or {}
    history = versions(fact, every, predicate.get("cardinality"))
    return {"fact": fact, "now": now, "state": fact_state(fact),
            "valid_now": fact_valid_at(fact, now),
            "confidence": effective_confidence(fact, now, src.half_life_days),
            "predicate": predicate, "history": history,
            "history_others": len(every) - len(history), "chain": chain,
            "recorded_audit": recorded, "conflicts": contenders, "actions": []}


def versions(fact: dict[str, Any], every: list[dict[str, Any]],
             cardinality: str | None) -> list[dict[str, Any]]:
    """The facts of ``every`` (subject + predicate, oldest first) that are versions of ``fact``'s
    belief: all of them for a one-valued predicate; else those joined to it through successor
    links (either way, transitively) or holding the same value (a union-find: a hub subject
    may hold thousands of facts of one predicate)."""
    if cardinality == "one":
        return every
    parent = {f["id"]: f["id"] for f in every}
    parent.setdefault(fact["id"], fact["id"])

    def root(fid: str) -> str:
        while parent[fid] != fid:
            parent[fid] = parent[parent[fid]]
            fid = parent[fid]
        return fid

    def join(a: str, b: str) -> None:
        parent[root(a)] = root(b)

    first_of: dict[tuple[str, str], str] = {}
    for other in every:
        join(other["id"], first_of.setdefault(_value(other), other["id"]))
        if other.get("successor") in parent:
            join(other["id"], other["successor"])
    mine = root(fact["id"])
    return [f for f in every if root(f["id"]) == mine]


def _value(fact: dict[str, Any]) -> tuple[str, str]:
    """What a fact holds: the entity's id, or the literal with case and spacing folded."""
    if fact.get("object_kind") == "entity":
        ref = fact.get("object_ref")
        return ("entity", str(ref.get("id") if isinstance(ref, dict) else ref))
    return ("literal", " ".join(str(fact.get("object_lit") or "").split()).casefold())


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
