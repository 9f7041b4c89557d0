"""The curator's shortlists stage: each project's SessionStart shortlist, stored to last.

Runs last in a pass, after every stage that writes facts, so what it stores is stamped with
the counter those writes left. Which projects: every project that already has a stored
shortlist (any write anywhere moves the one counter, so each is refreshed, or the next
session in that project would compile live), and every project whose facts arrived in an
episode since the last refresh (all projects on the first run, or after an import, as the
consolidate stage's ``scope.changed_episodes`` decides). A shortlist whose stamp still matches
and whose "until" is still ahead is left alone, so an idle pass costs one count.

The counter is read before the facts, and the records are written in one fenced transaction
only if it has not moved since: a capture that committed meanwhile leaves them unwritten
(its own curator comes next). Storing them moves nothing: marks are not counted
(docs/hooks.md, "The stored shortlist").

Each claimgraph version keeps its own records: the block's meaning (``core.briefing
.SHORTLIST_MEANING``) is in each record's key and in the refresh mark's, so a version's pass
never replaces another's records, nor makes the other skip the episodes it has not seen. Another
meaning's records and refresh mark are removed once none of them was written for ``RETIRE_MS``
(that version's curator has not run a pass since; each pass writes its refresh mark), and so
are those of claimgraphs from before records were kept per meaning (``context:shortlist:<p>``,
``curator:shortlists``): a store holds a record per project for each version that curated it
within ``RETIRE_MS``, in practice one or two (docs/hooks.md, "A new claimgraph").

Each list is chosen for the configured half-life (the shell's, from ``half_life_days``) and
stamped with it; a list stamped with another no longer holds, so a changed setting remakes
them all. The stage also leaves what the config file says of each setting the block depends on
(the half-life, the character budget), with the file's state (``claimgraph.configured.stamp``):
the hook, which does not parse the file for them (only for a ``db`` it names), reads those
settings from there while the file is unchanged. A file every command refuses is stamped too,
as refused (and a curator that cannot start for it stamps it before it exits,
``curator.refusal``), so the hook stops starting curators to read it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Callable

from claimgraph import configured
from claimgraph.config import judge_config_file
from claimgraph.core import briefing as cx
from claimgraph.core.shell import Shell
from claimgraph.curator import reads
from claimgraph.curator.scope import changed_episodes
from claimgraph.curator.stage_tools import StageTools
from claimgraph.logic.timeutil import DAY_MS

#: ``curator:shortlists@<meaning>``: {"at", "episodes"} of this version's last refresh, as the
#: consolidate watermark.
REFRESHED_PREFIX = "curator:shortlists"
#: The hook compiles at least this far ahead of a refresh before a shortlist runs out.
AHEAD_MS = 3_600_000
#: Another version's shortlists go once its curator has not run a pass for this long.
RETIRE_MS = 30 * DAY_MS
#: Where claimgraphs from before records were kept per meaning stored theirs (all meanings).
LEGACY_SHORTLIST_PREFIX = "context:shortlist:"


def refreshed_key() -> str:
    """This version's refresh mark (its meaning's own)."""
    return f"{REFRESHED_PREFIX}@{cx.SHORTLIST_MEANING}"


def refresh_shortlists(ctx: StageTools) -> dict[str, Any]:
    sh = ctx.sh
    at, written = sh.now(), sh.store.write_count()
    projects = projects_to_refresh(sh)
    current = {p for p in projects if _still_current(sh, p, written, at)}
    records = {p: cx.lasting_record(sh.store, p, at, sh.half_life_days)
               for p in sorted(projects - current)}
    counts = {"projects": len(projects), "stored": 0, "current": len(current)}
    if ctx.dry_run:
        return {"counts": {**counts, "would_store": len(records)}}
    setting = settings_stamp(ctx.environ, time.time_ns(), sh.store.get_mark)
    with ctx.fence.writing(sh):
        if sh.store.write_count() != written:
            return {"counts": {**counts, "written_meanwhile": 1}}
        for project, record in records.items():
            sh.store.set_mark(cx.shortlist_key(project), {**record, "writes": written})
        sh.store.set_mark(refreshed_key(), {"at": at, "episodes": reads.episode_count(sh)})
        retired = retired_keys(_every_version_marks(sh.store), at)
        if retired:
            sh.store.delete_marks(retired)
        if setting is not None:
            leave_stamp(sh.store, setting)
    return {"counts": {**counts, "stored": len(records), "retired": len(retired)}}


def _every_version_marks(store: Any) -> dict[str, Any]:
    """Every version's shortlists and refresh marks, this one's included."""
    return {**store.list_marks(cx.SHORTLIST_PREFIX),
            **store.list_marks(LEGACY_SHORTLIST_PREFIX), **store.list_marks(REFRESHED_PREFIX)}


def retired_keys(marks: Mapping[str, Any], at: int) -> list[str]:
    """The keys among ``marks`` (shortlists and refresh marks) of the versions other than this
    one none of whose marks was written within ``RETIRE_MS`` before ``at``."""
    ours = str(cx.SHORTLIST_MEANING)
    latest: dict[str, int] = {}
    keys: dict[str, list[str]] = {}
    for key, value in marks.items():
        version = stored_by(key)
        if version is None or version == ours:
            continue
        keys.setdefault(version, []).append(key)
        when = value.get("at") if isinstance(value, Mapping) else None
        latest[version] = max(latest.get(version, 0), when if isinstance(when, int) else 0)
    return sorted(key for version, named in keys.items() if latest[version] + RETIRE_MS <= at
                  for key in named)


def stored_by(key: str) -> str | None:
    """The meaning a shortlist or refresh mark was stored under, as written in its key; ""
    for one stored before keys named it; None for a key that is neither."""
    if key.startswith(cx.SHORTLIST_PREFIX):
        meaning, colon, _project = key[len(cx.SHORTLIST_PREFIX):].partition(":")
        return meaning if colon else None
    if key.startswith(LEGACY_SHORTLIST_PREFIX) or key == REFRESHED_PREFIX:
        return ""
    if key.startswith(REFRESHED_PREFIX + "@"):
        return key[len(REFRESHED_PREFIX) + 1:]
    return None


def settings_stamp(environ: Mapping[str, str], now_ns: int,
                   read_mark: Callable[[str], Any]) -> dict[str, Any] | None:
    """What the config file says of each setting the block depends on, for the hook
    (``configured.stamp``), or why every command refuses it, with the values its last stamp
    (``read_mark``) held; None without a file, or with one written just now."""
    path = configured.config_file(environ)
    try:
        return configured.stamp(environ, lambda file: judge_config_file(file, environ), now_ns,
                                read_mark(configured.settings_mark(path)))
    except OSError:  # it cannot even be looked at (stat): the next pass tries again
        return None


def leave_stamp(store: Any, setting: dict[str, Any]) -> None:
    """Store the stamp under its file's mark (unless it is there already)."""
    key = configured.settings_mark(setting["file"])
    if store.get_mark(key) != setting:
        store.set_mark(key, setting)


def projects_to_refresh(sh: Shell) -> set[str]:
    """Projects with a stored shortlist, and those whose facts arrived since the last refresh."""
    own = cx.shortlist_key("")
    stored = {key[len(own):] for key in sh.store.list_marks(own)}
    changed = changed_episodes(sh, reads.episode_count(sh), sh.store.get_mark(refreshed_key()))
    if changed is None:
        touched = set(sh.store.scope_counts())
    else:
        touched = {f["scope"]
                   for f in sh.store.select_facts(episodes=changed)} if changed else set()
    return (stored | touched) - {cx.USER_SCOPE}


def _still_current(sh: Shell, project: str, written: int, at: int) -> bool:
    record = sh.store.get_mark(cx.shortlist_key(project))
    return cx.holds(record, written, at + AHEAD_MS, sh.half_life_days)
