"""What the memory_* tools do (docs/mcp.md): each a plain function ``(ServerState, parsed
arguments) -> dict`` over the shell verbs, so it is tested without the SDK; ``tools`` holds the
table (names, arguments, descriptions) and loads this module on the first call, or ahead of it
(``warm_up``). Two additions to the CLI's verbs, both optional: ``limit`` on memory_search and
memory_recall (default 10), because every fact returned costs the agent context; and
memory_neighbor's depth is capped at 6, the guided walk's own limit.

The search path's modules load with this module; each other tool imports its verbs on its
first call, so a session's first memory_search does not wait for the coach, the graph walk or
the write path (docs/mcp.md, "Start-up").

Names resolve in the project's scope first, then the user's (``entity_scope`` / ``subject_scope``
pin one); facts are limited to those two scopes unless ``scope`` names one.
"""

from __future__ import annotations

from typing import Any, Callable

from claimgraph.core import reads
from claimgraph.core.recall import recall, scoped_search
from claimgraph.core.teammates import named
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.recall import in_scopes
from claimgraph.logic.trust_tiers import tier as trust_tier
from claimgraph.mcp.session import ServerState
from claimgraph.mcp.tools_args import AGENT_SOURCE_TYPES
from claimgraph.mcp.views import entity_view, episode_view, fact_view, facts_view, pair_view, wire

DEFAULT_LIMIT = 10


def warm_up(ctx: ServerState) -> None:
    """On the read thread, ahead of the first call: this module is loaded by now, and so are
    the store's modules. The read shell is not opened here: opening a store reads the file's
    header through a descriptor of its own, and closing that drops the POSIX locks of every
    SQLite connection this process has on the file (the write shell's), after which another
    process can delete the WAL under it — a write the server confirmed is then lost. Opened
    at the first read, as before, the window stays what it was: a read after a write."""
    from claimgraph import opening  # noqa: F401
    from claimgraph.core import shell  # noqa: F401


# --- resolving names in the project's scopes ---------------------------------------------------

def name_scopes(ctx: ServerState, given: str | None) -> tuple[str, ...]:
    return (given,) if given else ctx.scopes


def resolving(ctx: ServerState, read: Callable[[str], dict[str, Any]], name: str,
              given: str | None, every: bool = False) -> list[dict[str, Any]]:
    """``read(scope)`` for the scopes ``name`` resolves in (the first only, unless ``every``)."""
    found = []
    for scope in name_scopes(ctx, given):
        try:
            found.append(read(scope))
        except ClaimgraphError as error:
            if error.type != "unknown-entity":
                raise
            continue
        if not every:
            break
    if not found:
        where = " or ".join(repr(s) for s in name_scopes(ctx, given))
        raise ClaimgraphError("unknown-entity", f"no entity named {name!r} in scope {where}",
                              hint="find names with memory_search; entities of other projects "
                                   "are reached by naming their scope")
    return found


def fact_scopes(ctx: ServerState, a: dict[str, Any]) -> tuple[str, ...] | None:
    """The scopes facts are limited to after the read: none when ``scope`` pinned one."""
    return None if a.get("scope") else ctx.scopes


# --- the read tools ---------------------------------------------------------------------------

def memory_facts(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    sh = ctx.read()
    options = {k: a[k] for k in ("predicate", "direction", "as_of", "scope", "include_invalidated",
                                 "min_confidence") if k in a}
    results = resolving(ctx, lambda s: reads.get_facts(sh, a["entity"], entity_scope=s, **options),
                        a["entity"], a.get("entity_scope"), every=True)
    merged = {f["id"]: f for r in results for f in in_scopes(r["facts"], fact_scopes(ctx, a))}
    facts = sorted(merged.values(), key=lambda f: (f["t_valid"], f["id"]))
    ctx.log_read("facts", [f["id"] for f in facts])
    return wire({"entities": [entity_view(r["entity"]) for r in results],
                 "as_of": results[0]["as_of"], "facts": facts_view(named(sh.store, facts))})


def memory_neighbor(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    from claimgraph.core.neighbor import neighbor

    sh = ctx.read()
    options = {k: a[k] for k in ("predicate", "scope", "as_of", "min_confidence", "query",
                                 "budget", "beam") if k in a}
    [found] = resolving(ctx, lambda s: neighbor(sh, a["entity"], depth=a.get("depth", 1),
                                                entity_scope=s, **options),
                        a["entity"], a.get("entity_scope"))
    facts = in_scopes(found["facts"], fact_scopes(ctx, a))
    touched = {end["id"] for f in facts for end in (f.get("subject"), f.get("object_ref")) if end}
    entities = [e for e in found["entities"] if e["id"] == found["root"]["id"]
                or e["id"] in touched]
    return wire({"root": entity_view(found["root"]), "depth": found["depth"],
                 "entities": [entity_view(e) for e in entities],
                 "facts": facts_view(named(sh.store, facts))})


def memory_search(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    limit = a.get("limit", DEFAULT_LIMIT)
    found = scoped_search(ctx.read(), a["query"], ctx.scopes, limit=limit)
    shown = found["facts"]
    ctx.log_read("search", [f["id"] for f in shown])
    return wire({"query": found["query"], "scopes": list(ctx.scopes), "facts": facts_view(shown),
                 "more": found["total"] - len(shown),
                 "matched_entities": found["matched_entities"]})


def memory_recall(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    found = recall(ctx.read(), a["query"], scopes=ctx.scopes, min_hits=a.get("min_hits", 1),
                   fetch_evidence=ctx.fetch_evidence, limit=a.get("limit", DEFAULT_LIMIT))
    ctx.log_read("recall", [f["id"] for f in found["facts"]])
    # each fact names how it was learned, as the context block's lines do ("you said",
    # "seen", the cited file, "agent's note"): the asking agent weighs it by that
    facts = [{**fact_view(f), "learned": trust_tier(f)} for f in found["facts"]]
    return wire({**found, "facts": facts,
                 "episodes": [episode_view(e) for e in found["episodes"]]})


def memory_history(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    sh = ctx.read()
    [found] = resolving(ctx, lambda s: reads.history(sh, a["subject"], a["predicate"], s),
                        a["subject"], a.get("subject_scope"))
    return wire({"entity": entity_view(found["entity"]), "predicate": found["predicate"],
                 "history": facts_view(named(sh.store, found["history"]))})


def memory_conflicts(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    found = reads.conflicts(ctx.read())
    pairs = [p for p in found["conflicts"]
             if in_scopes([p["fact"], p["candidate"]], ctx.scopes)]
    suspect = [s for s in found["suspect"] if in_scopes([s["fact"]], ctx.scopes)]
    return wire({"open": len(pairs), "conflicts": [pair_view(p) for p in pairs],
                 "suspect": [{"fact": fact_view(s["fact"]), "verdicts": [
                     {"evidence": v["evidence"], "verdict": v["verdict"]} for v in s["verdicts"]]}
                     for s in suspect]})


def memory_coach(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    from claimgraph.core.coach import coach
    from claimgraph.logic.coach import surfaced_ids

    found = coach(ctx.read(), a["task"], ctx.scopes)
    if found["push"]:
        ctx.log_read("coach", surfaced_ids(found))
    return wire({"push": found["push"], "query": found["query"],
                 "commitments": facts_view(found["commitments"]),
                 "hazards": facts_view(found["hazards"]),
                 "conflicts": [pair_view(p) for p in found["conflicts"]],
                 "briefing": found["briefing"]})


# --- the write tool ---------------------------------------------------------------------------

ASSERT_OPTIONS = {"subject_type": "subject_type", "subject_scope": "subject_scope",
                  "object_type": "object_type", "object_scope": "object_scope",
                  "object_kind": "object_kind", "class": "epistemic", "confidence": "confidence",
                  "source_type": "source_type", "on_conflict": "on_conflict",
                  "valid_from": "valid_from", "valid_until": "valid_until"}




def memory_assert(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    """An agent-said fact of this server's own episode, in this project (or the user scope
    when the user enabled it), never back-dated, its words redacted as capture redacts."""
    from claimgraph.core import writes
    from claimgraph.logic.redact import redact

    _in_lane(ctx, a)
    options = {ours: a[theirs] for theirs, ours in ASSERT_OPTIONS.items() if theirs in a}
    options.setdefault("source_type", AGENT_SOURCE_TYPES[0])
    with ctx.writing() as (sh, warnings):
        episode = ctx.session_episode(sh)
        if a.get("episode") and a["episode"] != episode["id"]:
            raise ClaimgraphError(
                "invalid-argument", "facts asserted here belong to this session's episode "
                f"({episode['id']}), not {a['episode']!r}",
                hint="leave episode out", argument="episode")
        if options.get("valid_from") is not None and options["valid_from"] < sh.now() - 1000:
            raise ClaimgraphError(
                "invalid-argument", "valid_from lies before this call: a fact asserted now "
                "cannot be back-dated", hint="leave valid_from out (it defaults to now)",
                argument="valid_from")
        subject, obj = redact(a["subject"]), redact(a["object"])
        if (subject, obj) != (a["subject"], a["object"]):
            warnings.append("a secret in the fact was replaced by a placeholder")
        result = writes.assert_fact(sh, subject, a["predicate"], obj,
                                    scope=a.get("scope", ctx.project), episode=episode["id"],
                                    **options)
    out: dict[str, Any] = {"status": result["status"], "fact": fact_view(result["fact"]),
                           "episode": {"id": episode["id"], "ref": episode["ref"]}}
    for key in ("superseded", "reason"):
        if result.get(key):
            out[key] = result[key]
    if result.get("candidates"):
        out["candidates"] = facts_view(result["candidates"])
    if warnings:
        out["warnings"] = warnings
    return wire(out)


def _in_lane(ctx: ServerState, a: dict[str, Any]) -> None:
    """Scopes this server may write, and sources an agent may claim."""
    for key in ("scope", "subject_scope", "object_scope"):
        given = a.get(key)
        if given is not None and given not in ctx.writable_scopes:
            raise ClaimgraphError(
                "invalid-argument", f"{key} {given!r} is not this server's to write: it writes "
                f"{' and '.join(repr(s) for s in ctx.writable_scopes)}",
                hint=("the user scope takes writes from MCP only when the user enables it "
                      "(mcp_user_scope = 1)" if given == "user" else
                      "run the server in that project to write there"), argument=key)
    if a.get("source_type") not in (None, *AGENT_SOURCE_TYPES):
        raise ClaimgraphError(
            "invalid-argument", f"source_type {a['source_type']!r} is not an agent's to claim",
            hint=f"use {' or '.join(AGENT_SOURCE_TYPES)}; the user's own word is recorded with "
                 "`claimgraph assert`", argument="source_type")


def memory_forget(ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
    """Soft only: the fact is invalidated as forgotten, its history kept. Purging (deleting
    for good) stays a human command."""
    from claimgraph.core import forget, writes

    with ctx.writing() as (sh, warnings):
        fact = writes.require_fact(sh, a["fact_id"])
        if not in_scopes([fact], ctx.scopes):
            raise ClaimgraphError(
                "invalid-argument", f"fact {a['fact_id']} belongs to another project",
                hint="only this project's and the user's facts can be forgotten from here",
                argument="fact_id")
        result = forget.forget(sh, [fact["id"]], a.get("reason"))
    out: dict[str, Any] = {
        "status": "forgotten" if result["forgotten"] else "already-forgotten",
        "fact": fact_view((result["forgotten"] or result["already"])[0]),
        "reason": result["reason"]}
    if warnings:
        out["warnings"] = warnings
    return wire(out)
