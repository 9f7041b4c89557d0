"""The viewer's copy of the block names every line's tier and tells twins apart as the hook does.

A change of belief names how its new value was learned, a contention each side's, and two facts
whose objects differ only past the cut are cut where they differ (``logic.briefing_lines``).
The project page's block is built from the page's own reads (``viewer.project.context_block``);
it must still be the bytes `claimgraph context` prints.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.viewer.project import project
from claimgraph.viewer.source import Source

SCRIPTS = "; ".join(f"`make step{n}` runs `tool --stage {n} --verbose`" for n in range(9))
LONGER = SCRIPTS.replace("; `make step7`", "; `make extra` runs `tool --extra`; `make step7`")


def claimgraph(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "claimgraph", *args], cwd=cwd, env=os.environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def row(fid: str, subject: str, scope: str, predicate: str, text: str, at: int,
        **extra: object) -> dict:
    return {"id": fid, "subject": subject, "predicate": predicate, "object_kind": "literal",
            "object_ref": None, "object_lit": text, "t_valid": at, "t_invalid": None,
            "recorded_at": at, "last_reinforced_at": None, "confidence": 0.8,
            "epistemic": "observation", "scope": scope, "source_type": "session-log",
            "episode": None, "conflicts": [], "invalidation_reason": None,
            "invalidation_kind": None, "successor": None, "evidence": [], **extra}


def test_the_pages_block_names_tiers_and_cuts_twins_as_the_context_does(tmp_path):
    repo = tmp_path / "proj"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    claimgraph("assert", "proj", "x/decided", "keep the api small", "--object-kind", "literal",
               cwd=repo)
    db = Path(os.environ["CLAIMGRAPH_DB"])
    store = open_store(db)
    try:
        [first] = store.select_facts()
        scope, subject = first["scope"], first["subject"]["id"]
        day_ago = time.time_ns() // 1_000_000 - DAY_MS
        with store.transaction():
            store.insert_facts([
                row("f-t1", subject, scope, "x/convention", SCRIPTS, day_ago,
                    source_type="user-assertion"),
                row("f-t2", subject, scope, "x/convention", LONGER, day_ago,
                    source_type="user-assertion"),
                row("f-t3", subject, scope, "core/failure-mode", SCRIPTS, day_ago),
                row("f-t4", subject, scope, "core/failure-mode", LONGER, day_ago),
                row("f-old", subject, scope, "x/decided", "ship on fridays", day_ago - DAY_MS,
                    t_invalid=day_ago, invalidation_kind="superseded", successor="f-new",
                    source_type="user-assertion"),
                row("f-new", subject, scope, "x/decided", "ship on mondays", day_ago,
                    evidence=["RELEASING.md: `ship on mondays`"]),
                row("f-gone", subject, scope, "x/decided", "ship nightly", day_ago - DAY_MS,
                    t_invalid=day_ago, invalidation_kind="superseded"),
                row("f-a", subject, scope, "core/failure-mode", "the build needs make 4",
                    day_ago, conflicts=["f-b"]),
                row("f-b", subject, scope, "core/failure-mode", "the build needs make 3",
                    day_ago, source_type="user-assertion"),
            ])
    finally:
        store.close()
    told = claimgraph("context", "--cwd", str(repo), cwd=repo).strip()
    assert project(Source(db), scope, {})["block"]["text"] == told
    lines = [ln for ln in told.splitlines() if ln.startswith("- ")]
    assert len(lines) == len(set(lines))
    assert sum(" … " in ln and "`make step0`" in ln for ln in lines) == 4
    assert 'proj decided: "ship on fridays" → "ship on mondays" (RELEASING.md, ' in told
    assert 'proj decided: "ship nightly" (seen) → (no longer) (' in told
    assert ('claims in contention — "the build needs make 3" (you said) / '
            '"the build needs make 4" (seen)') in told
