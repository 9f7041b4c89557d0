"""The predicate registry through the shell: seeding, resolution, x/* auto-registration."""

from __future__ import annotations

from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import predicates as P

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any


def seed(sh: Shell) -> int:
    """Register any missing core/* row (curated rows are reconciled to the shipped seed) and
    capture's own x/* rows when absent."""
    known = sh.predicates()
    added = 0
    with sh.store.transaction():
        for row in P.CORE_PREDICATES:
            if known.get(row["id"]) != row:
                sh.store.register_predicate(dict(row))
                added += 1
        for row in P.CAPTURE_PREDICATES:
            if row["id"] not in known:
                sh.store.register_predicate(dict(row))
                added += 1
    if added:
        sh.forget_predicates()
    return added


def resolve_predicate(sh: Shell, name: str, register_new: bool = True) -> dict[str, Any]:
    """The registry row for a user-typed name, registering x/* rows on first use.

    Unknown names fail with the nearest known ids; deprecated ones name their replacement.
    A read (``register_new=False``) gets an unregistered x/* name's row without writing it: no
    fact can carry a predicate nobody registered, so the read simply finds nothing, and a read
    never writes (read commands open the store read-only).
    """
    if not name or not name.strip():
        raise ClaimgraphError("missing-predicate", "a predicate is required",
                              hint="run `claimgraph predicates` to list them")
    known = sh.registry_memo.get(("name", name))
    if known is not None:
        return known
    rows = sh.predicates()
    pred_id = P.resolve_predicate_id(name.strip(), rows.keys())
    result = P.check_predicate(pred_id, rows.get(pred_id))
    if "ok" in result:
        sh.registry_memo[("name", name)] = result["ok"]
        return result["ok"]
    if "register" in result:
        if not register_new:
            return P.prepare_registration(result["register"])
        return register(sh, result["register"])
    raise P.predicate_error(pred_id, result, list(rows))


def register(sh: Shell, row: dict[str, Any]) -> dict[str, Any]:
    """Register (or amend) an x/* row; curated core/* rows cannot be registered at run time."""
    prepared = P.prepare_registration(row)
    sh.store.register_predicate(prepared)
    sh.forget_predicates()
    return sh.predicates()[prepared["id"]]


def list_predicates(sh: Shell, category: str | None = None, status: str | None = None,
                    with_usage: bool = False) -> list[dict[str, Any]]:
    """Registry rows, optionally with how many facts use each."""
    rows = sh.store.list_predicates(category=category, status=status)
    if with_usage:
        usage = sh.store.predicate_usage()
        rows = [{**row, "usage": usage.get(row["id"], 0)} for row in rows]
    return rows


def group_mates(sh: Shell, row: dict[str, Any]) -> list[str]:
    """Other predicates in the row's exclusion group (their facts can antagonize this one)."""
    key = ("mates", row["id"])
    if key not in sh.registry_memo:
        sh.registry_memo[key] = P.group_mates(row, list(sh.predicates().values()))
    return sh.registry_memo[key]
