"""A stance told as a state sits where `claimgraph context` tells it, on the project page too.

A preference, convention or decision that states an expiring state ("our latest release is
v0.2.0"), one act the user asked for and the session did once (a rename), or one change of
the user's with no word of lasting is told among the current facts with its date, never as a
standing decision (``logic.briefing.told_as_state``). The project page places facts in the
store's SQL (``Store.context_sections``): its sections and the block beside it must be the
real `claimgraph context`'s, with such facts beside standing ones.
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

ONCE = "transcript#L4: asked and done once: renamed src/parser.py to src/reader.py"
LASTING = "transcript#L9: asked and done: edited src/export.py"
#: (object, class, source, evidence, told as a state)
STANCES = (
    ("Rename the parser module to reader", "preference", "user-assertion", [ONCE], True),
    ("Add an export button to the toolbar", "preference", "user-assertion", [LASTING], True),
    ("Export to CSV by default when no format is given", "preference", "user-assertion",
     [LASTING], False),
    ("the current version is 1.4.2", "commitment", "session-log", [], True),
    ("the latest release is always tagged from main", "commitment", "session-log", [], False),
)


def claimgraph(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "claimgraph", *args], cwd=cwd, env=os.environ,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_page_and_its_block_tell_stances_as_the_context_does(tmp_path):
    repo = tmp_path / "proj"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for text in ("our latest release is v0.2.0", "Always run tests with pytest -q"):
        claimgraph("assert", "proj", "x/decided", text, "--object-kind", "literal", cwd=repo)
    db = Path(os.environ["CLAIMGRAPH_DB"])
    store = open_store(db)
    try:
        asserted = store.select_facts()
        scope, subject = asserted[0]["scope"], asserted[0]["subject"]["id"]
        day_ago = time.time_ns() // 1_000_000 - DAY_MS
        with store.transaction():
            store.insert_facts([{
                "id": f"f-stance-{n}", "subject": subject, "predicate": "x/decided",
                "object_kind": "literal", "object_ref": None, "object_lit": text,
                "t_valid": day_ago, "t_invalid": None, "recorded_at": day_ago,
                "last_reinforced_at": None, "confidence": 0.8, "epistemic": epistemic,
                "scope": scope, "source_type": source, "episode": None, "conflicts": [],
                "invalidation_reason": None, "invalidation_kind": None, "successor": None,
                "evidence": evidence} for n, (text, epistemic, source, evidence, _)
                in enumerate(STANCES)])
    finally:
        store.close()
    told = claimgraph("context", "--cwd", str(repo), cwd=repo)
    page = project(Source(db), scope, {})
    assert page["block"]["text"] == told.strip()
    shown = {s["key"]: [r["facts"][0]["object_lit"] for r in s["rows"]]
             for s in page["sections"]}
    dated = {text for text, *_, is_told in STANCES if is_told} | {"our latest release is v0.2.0"}
    standing = {text for text, *_, is_told in STANCES if not is_told} | {
        "Always run tests with pytest -q"}
    assert set(shown["decisions"]) == standing and set(shown["current"]) == dated
    current = told.split("### Current facts")[1]
    assert all(text in current for text in dated)
