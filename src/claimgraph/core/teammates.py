"""Who a synced fact is from, by name: the trust list's name for its writer
(docs/sync.md, "What a teammate says is theirs").

A fact that arrived by sync carries ``sync:<writer>`` as its source; the person's name lives
in this store's trust list (``<db>.oplog/trusted.json``, written by ``claimgraph sync trust
--name``). Readers that show facts to people or agents (the SessionStart block, ``context``,
``recall``, MCP answers, the viewer) set the derived ``teammate`` field from it, so the
line reads "from Ada", never "you said". The trust list is read only when a synced fact is
among those shown (the SessionStart hook pays nothing otherwise), with the standard library
only, and a missing or unreadable list just leaves the writer's id standing in for the name.
"""

from __future__ import annotations

import json
from pathlib import Path
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

from claimgraph.logic.trust_tiers import TEAMMATE, teammate_writer

TRUST_FILE = "trusted.json"  # oplog.identity's, read here without its crypto


def names(db_path: str | Path | None) -> dict[str, str]:
    """{writer: name} from the trust list beside ``db_path`` (empty when there is none)."""
    if not db_path or str(db_path) == ":memory:":
        return {}
    from claimgraph.private import read_nofollow
    from claimgraph.sidecar import Sidecars
    try:
        data = json.loads(read_nofollow(Sidecars(db_path).oplog_dir / TRUST_FILE))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {w: e["name"] for w, e in data.items()
            if isinstance(e, dict) and isinstance(e.get("name"), str) and e["name"].strip()}


def named(store: Any, facts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``facts`` with ``teammate`` set on the synced ones whose writer the trust list names;
    the rest unchanged (the same dicts)."""
    facts = list(facts)
    if not any(teammate_writer(f) for f in facts):
        return facts  # type: ignore[return-value]
    known = names(getattr(store, "path", None))
    return [_with_name(f, known) for f in facts]


def _with_name(fact: Mapping[str, Any], known: Mapping[str, str]) -> Any:
    writer = teammate_writer(fact)
    if writer is None or writer not in known:
        return fact
    return {**fact, TEAMMATE: known[writer]}
