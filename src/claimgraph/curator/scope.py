"""Which facts a consolidate pass looks at: everything once, then only what changed.

The change feed is the episode list: every write path (capture, ingest, add) records its facts
in an episode, and duplicate groups and conflict candidates never cross subjects, so a pass only
needs the full out-facts of the subjects named in episodes opened since the last pass.

Facts no episode names — a teammate's, applied by sync as written — are found by where the fact
table ended at the last pass (``"facts"`` in the watermark, on stores that number their facts):
their subjects are looked at too, so a teammate's disagreement is swept by the next pass, not
only by a full one.

The watermark (store mark ``curator:watermark``) is
``{"at": <pass start>, "episodes": <count>, "facts": <fact cursor>}``.
Episodes opened within ``LAG_MS`` before it are looked at again: an episode's ``opened_at`` is
stamped before its transaction commits, so one may become visible a little after a pass that
started later. Re-looking is harmless (every step is idempotent). If more episodes older than
the window exist than the whole store held last time (a ``load`` of old history), the pass
falls back to a full scan. Entity merges collapse their own duplicates (``entity merge``).

A full pass reads only what can change: the facts whose claim repeats another's, and the
facts of subjects with a predicate the sweep watches (``curator.reads``), counted, not loaded,
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claimgraph.core import Shell
from claimgraph.curator import reads

WATERMARK = "curator:watermark"
LAG_MS = 10 * 60 * 1000


@dataclass
class Scope:
    """What to consolidate, and the watermark to record once the pass succeeded.

    ``facts`` feed the duplicate collapse; ``pool`` the conflict sweep (None: derive it from
    ``facts``), already narrowed to the facts that can pair or carry a link. An incremental pass
    hands over every out-fact of the changed subjects; a full pass only the facts that can take part
    (``curator.reads``), so it never loads the rest.
    """

    mode: str
    facts: list[dict[str, Any]]
    watermark: dict[str, int]
    pool: list[dict[str, Any]] | None = None
    scanned: int | None = None


def changed_episodes(sh: Shell, count: int, mark: Any) -> list[str] | None:
    """Ids of episodes to look at again, or None when only a full scan is safe."""
    if not isinstance(mark, dict) or not isinstance(mark.get("at"), int):
        return None
    recent = [e["id"] for e in reads.episodes_opened_since(sh, mark["at"] - LAG_MS)]
    older = count - len(recent)
    return None if older > int(mark.get("episodes") or 0) else recent


def plan_scope(sh: Shell, started_at: int, sweep_classes: dict[str, set[str]]) -> Scope:
    """Full on the first pass (or after an import), incremental afterwards.
    ``sweep_classes``: ``reads.sweep_predicates`` of the registry."""
    count, cursor = reads.episode_count(sh), reads.fact_cursor(sh)
    watermark = {"at": started_at, "episodes": count}
    if cursor is not None:
        watermark["facts"] = cursor
    mark = sh.store.get_mark(WATERMARK)
    changed = changed_episodes(sh, count, mark)
    if changed is None:
        return Scope("full", reads.repeated_claim_facts(sh), watermark,
                     pool=reads.sweep_pool(sh, sweep_classes),
                     scanned=reads.count_valid_facts(sh))
    fresh = sh.store.select_facts(episodes=changed) if changed else []
    subjects = {sid for f in fresh if isinstance(sid := (f.get("subject") or {}).get("id"), str)}
    since = mark.get("facts") if isinstance(mark, dict) else None
    if cursor is not None and isinstance(since, int) and cursor > since:
        subjects |= reads.subjects_of_facts_after(sh, since)
    if not subjects:
        return Scope("incremental", [], watermark)
    facts = [f for f in sh.store.get_facts_for(subjects, "out") if f.get("t_invalid") is None]
    return Scope("incremental", facts, watermark)
