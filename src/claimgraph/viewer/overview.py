"""The Projects page and the Review page: the whole store at a glance, and what awaits a human.

Counts come from ``Store.scope_counts`` (one aggregate query, no fact read), open conflicts
from ``core.reads.conflicts`` (the same pairs ``claimgraph conflicts`` lists), the last capture
of each project and the last curator run from the sidecar logs (``status`` reads them the same
way). The curator curates the whole store at once, so its last run is the store's, not a
project's.
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from typing import Any

from claimgraph.core import reads
from claimgraph.core.briefing import USER_SCOPE
from claimgraph.health import status
from claimgraph.logic.briefing_lines import conflict_components
from claimgraph.store.fast_paths import Snapshots
from claimgraph.viewer import activity
from claimgraph.viewer.held import HeldWatch
from claimgraph.viewer.source import NotFound, Source

MAX_SHOWN = 100


def projects(src: Source) -> dict[str, Any]:
    """{projects: [...], curation, failures, now}: a row per scope, the user scope last."""
    with src.shell() as sh:
        now = sh.now()
        counts = sh.store.scope_counts()
        pairs = reads.conflicts(sh, now, with_suspects=False)["conflicts"]
    paths = src.log_paths()
    captures = activity.last_captures(paths["capture"], now)
    per_scope = Counter(pair["fact"]["scope"] for pair in pairs)
    rows = [{"id": scope, **row, "conflicts": per_scope.get(scope, 0),
             "last_capture": captures.get(scope)} for scope, row in counts.items()]
    rows.sort(key=lambda r: (r["id"] == USER_SCOPE, -(r["last_recorded_at"] or 0), r["id"]))
    return {"projects": rows, "now": now,
            "curation": status.last_run(paths["curate"], "curate", status.CURATE_RESULTS,
                                        "curate.started"),
            "failures": status.failures(paths, now)}


def named_project(project_id: str | None) -> str:
    """The ``id`` parameter, which a project page needs (whether the store holds it is for
    the page to find out, from the facts it reads anyway)."""
    if not project_id:
        raise NotFound("no project named: pick one on the Projects page")
    return project_id


def _holds(store: Any, project_id: str) -> bool:
    """Whether any entity lives in the project's scope (an indexed lookup; a project's facts
    always name one), so a review of an unknown project is a 404 without a scan."""
    return bool(store.list_entities(scope=project_id))


def review(src: Source, project_id: str | None = None,
           watch: HeldWatch | None = None) -> dict[str, Any]:
    """Open conflicts (as knots of contention) and suspect claims, optionally one project's:
    unsupported citations first (a person must judge), then cited files not on this machine.
    ``watch``: the facts held for review, kept between pages (``viewer.held``)."""
    with src.shell() as sh, (sh.store.reading() if isinstance(sh.store, Snapshots)
                             else nullcontext()):
        now = sh.now()
        if project_id is not None and not _holds(sh.store, project_id):
            raise NotFound(f"no project {project_id!r} in this store")
        among = None if watch is None else watch.among(sh.store, src.db, now)
        found = reads.conflicts(sh, now, scopes=None if project_id is None else [project_id],
                                held_among=among)
    mine = (lambda fact: True) if project_id is None else (lambda fact: fact["scope"] == project_id)
    pairs = [p for p in found["conflicts"] if mine(p["fact"]) or mine(p["candidate"])]
    suspect = [s for s in found["suspect"] if mine(s["fact"])]
    unsupported = [s for s in suspect if any(v["verdict"] == "unsupported" for v in s["verdicts"])]
    missing = [s for s in suspect if s not in unsupported]
    knots = conflict_components(pairs)
    waiting = [h for h in found.get("held", []) if mine(h["fact"])]
    return {"project": project_id, "now": now, "components": knots[:MAX_SHOWN],
            "held": waiting[:MAX_SHOWN], "held_count": len(waiting),
            "knots": len(knots), "pairs": len(pairs), "unsupported": unsupported[:MAX_SHOWN],
            "missing": missing[:MAX_SHOWN], "counts": {
                "unsupported": len(unsupported), "missing": len(missing)}}
