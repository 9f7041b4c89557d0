"""Which facts a consolidate pass looks at: everything once, then only what changed.

The change feed is the episode list: every write path (capture, ingest, add) records its facts
in an episode, and duplicate groups and conflict candidates never cross subjects, so a pass only
needs the full out-facts of the subjects named in episodes opened since the last pass.

The watermark (store mark ``curator:watermark``) is ``{"at": <pass start>, "episodes": <count>}``.
Episodes opened within ``LAG_MS`` before it are looked at again: an episode's ``opened_at`` is
stamped before its transaction commits, so one may become visible a little after a pass that
started later. Re-looking is harmless (every step is idempotent). If more episodes older than
the window exist than the whole store held last time (a ``load`` of old history), the pass
falls back to a full scan. Entity merges collapse their own duplicates (``entity merge``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claimgraph.core import Shell

WATERMARK = "curator:watermark"
LAG_MS = 10 * 60 * 1000


@dataclass
class Scope:
    """The facts to consolidate, and the watermark to record once the pass succeeded."""

    mode: str
    facts: list[dict[str, Any]]
    watermark: dict[str, int]


def _changed_episodes(episodes: list[dict[str, Any]], mark: Any) -> list[str] | None:
    """Ids of episodes to look at again, or None when only a full scan is safe."""
    if not isinstance(mark, dict) or not isinstance(mark.get("at"), int):
        return None
    cutoff = mark["at"] - LAG_MS
    recent = [e["id"] for e in episodes if (e.get("opened_at") or 0) >= cutoff]
    older = len(episodes) - len(recent)
    return None if older > int(mark.get("episodes") or 0) else recent


def plan_scope(sh: Shell, started_at: int) -> Scope:
    """Full on the first pass (or after an import), incremental afterwards."""
    episodes = sh.store.list_episodes()
    watermark = {"at": started_at, "episodes": len(episodes)}
    changed = _changed_episodes(episodes, sh.store.get_mark(WATERMARK))
    if changed is None:
        return Scope("full", sh.store.select_facts(valid_cheap=True), watermark)
    if not changed:
        return Scope("incremental", [], watermark)
    fresh = sh.store.select_facts(episodes=changed)
    subjects = {(f.get("subject") or {}).get("id") for f in fresh} - {None}
    facts = [f for f in sh.store.get_facts_for(subjects, "out") if f.get("t_invalid") is None]
    return Scope("incremental", facts, watermark)
