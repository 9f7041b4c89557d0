"""``outcome accepted|rejected``: judge what the reads since the last outcome surfaced.

``outcome`` (docs/mcp.md): accepted reinforces each surfaced fact at its current confidence —
only the disuse clock resets, so a belief that helped stops fading, and a dormant one is
revived; rejected changes nothing and reports the facts as review candidates. Rejected does
not cut confidences: one "that did not work" judges a whole batch of reads, and docking every
fact in it would punish the innocent ones with the guilty; a person picks from the list
(``claimgraph invalidate``). Facts no longer valid are reported, not reinforced: a superseded
belief is not brought back by having been read. The caller holds the write lease for accepted.
"""

from __future__ import annotations

from typing import Any, Iterable

from claimgraph.core.shell import Shell
from claimgraph.core.writes import reinforce
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.retrievals import VALENCES


def check_valence(valence: str) -> str:
    if valence not in VALENCES:
        raise ClaimgraphError("invalid-valence", f"unknown outcome {valence!r}",
                              hint="use accepted or rejected")
    return valence


def judge(sh: Shell, valence: str, fact_ids: Iterable[str]) -> dict[str, Any]:
    """{valence, reinforced, review, invalid, missing}: each surfaced fact in one list."""
    check_valence(valence)
    ids = list(dict.fromkeys(fact_ids))
    found = {f["id"]: f for f in sh.store.get_facts_by_ids(ids)}
    now = sh.now()
    valid = [found[i] for i in ids if i in found and fact_valid_at(found[i], now)]
    result: dict[str, Any] = {
        "valence": valence, "reinforced": [], "review": [],
        "invalid": [found[i] for i in ids if i in found and not fact_valid_at(found[i], now)],
        "missing": [i for i in ids if i not in found]}
    if valence == "accepted":
        with sh.store.transaction():
            result["reinforced"] = [reinforce(sh, f["id"])["fact"] for f in valid]
    else:
        result["review"] = valid
    return result
