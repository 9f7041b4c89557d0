"""A teammate's facts read as theirs, by name, wherever memory is shown: two real replicas, a
shared directory, the real SessionStart hook, ``recall``, MCP's view and the viewer
(docs/sync.md, "What a teammate says is theirs")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claimgraph.project import resolve_project

from .test_hostile_sync import _cli, _key

ADA_SAYS = ("billing", "prefers", "gRPC")
I_SAY = ("billing", "depends-on", "postgres")


@pytest.fixture
def pair(tmp_path: Path) -> dict[str, Any]:
    """Ada's store and mine; Ada shares project ``proj``; I trust her key under her name."""
    proj = tmp_path / "proj"
    proj.mkdir()
    scope = resolve_project(proj).id
    ada, mine = tmp_path / "ada" / "claims.db", tmp_path / "me" / "claims.db"
    shared = tmp_path / "shared"
    assert _cli(ada, "assert", *ADA_SAYS, "--scope", scope).returncode == 0
    assert _cli(mine, "assert", *I_SAY, "--scope", scope).returncode == 0
    assert _cli(mine, "sync", "trust", _key(ada), "--name", "Ada Lovelace").returncode == 0
    assert _cli(ada, "sync", "trust", _key(mine)).returncode == 0  # no name given here
    for db in (ada, mine, ada):
        done = _cli(db, "sync", "--dir", str(shared), "--project", scope)
        assert done.returncode == 0, done.stderr
    return {"ada": ada, "mine": mine, "proj": proj, "scope": scope, "root": tmp_path}


def _session_start(db: Path, cwd: Path, home: Path) -> str:
    env = {**os.environ, "CLAIMGRAPH_DB": str(db), "HOME": str(home)}
    payload = {"session_id": "s-1", "hook_event_name": "SessionStart", "cwd": str(cwd),
               "transcript_path": str(home / "t.jsonl"), "source": "startup"}
    done = subprocess.run([sys.executable, "-m", "claimgraph.hooks", "session-start"],
                          input=json.dumps(payload).encode(), env=env, capture_output=True,
                          timeout=60)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def _line(text: str, words: str) -> str:
    found = [line for line in text.splitlines() if words in line]
    assert len(found) == 1, text
    return found[0]


def test_the_session_start_block_names_the_teammate_never_you(pair) -> None:
    text = _session_start(pair["mine"], pair["proj"], pair["root"])
    ada = _line(text, 'billing prefers "gRPC"')
    assert "from Ada Lovelace" in ada and "you said" not in ada
    assert "you said" in _line(text, "billing depends-on postgres")
    # on Ada's side my fact is mine, not hers; her trust list names nobody: my writer id
    theirs = _session_start(pair["ada"], pair["proj"], pair["root"])
    me = Path(f"{pair['mine']}.oplog/writer").read_text().strip()
    assert f"from {me}" in _line(theirs, "billing depends-on postgres")
    assert "you said" in _line(theirs, 'billing prefers "gRPC"')


def test_recall_and_mcp_answers_name_the_teammate(pair) -> None:
    done = _cli(pair["mine"], "recall", "billing", "--cwd", str(pair["proj"]))
    assert done.returncode == 0, done.stderr
    assert "from Ada Lovelace" in _line(done.stdout, "billing prefers gRPC")
    assert "from" not in _line(done.stdout, "postgres")
    as_json = json.loads(_cli(pair["mine"], "recall", "billing", "--cwd", str(pair["proj"]),
                              "--json").stdout)
    by_object = {f["object"]: f for f in as_json["facts"]}
    assert by_object["gRPC"]["teammate"] == "Ada Lovelace"
    assert "teammate" not in by_object["postgres"]
    # MCP answers are the same records, compacted (mcp.views)
    from claimgraph.core import Shell
    from claimgraph.core.recall import recall
    from claimgraph.mcp.views import facts_view
    from claimgraph.opening import open_store
    store = open_store(pair["mine"])
    try:
        found = recall(Shell(store), "billing", scopes=(pair["scope"], "user"))
    finally:
        store.close()
    views = {v["object"]: v for v in facts_view(found["facts"])}
    assert views["gRPC"]["teammate"] == "Ada Lovelace"
    assert views["gRPC"]["source_type"].startswith("sync:")
    assert "teammate" not in views["postgres"]


def test_the_viewer_shows_the_teammate(pair) -> None:
    from starlette.testclient import TestClient
    from claimgraph.viewer.app import create_app
    from claimgraph.viewer.source import Source
    from claimgraph.opening import open_store
    store = open_store(pair["mine"])
    try:
        fact = next(f for f in store.select_facts(scopes=[pair["scope"]])
                    if f["source_type"].startswith("sync:"))
    finally:
        store.close()
    client = TestClient(create_app(Source(pair["mine"]), "tok"),
                        base_url="http://127.0.0.1:8731")
    project = client.get("/tok/project", params={"id": pair["scope"]})
    assert project.status_code == 200, project.text
    assert "from Ada Lovelace" in project.text
    assert "you said" not in _line(project.text, "(from Ada Lovelace, since")
    page = client.get(f"/tok/fact/{fact['id']}")
    assert page.status_code == 200 and "from Ada Lovelace" in page.text


@pytest.mark.parametrize(("predicate", "hers", "ours"), [("prefers", "gRPC", "REST"),
                                                          ("has-version", "1.4", "2.0")])
def test_a_teammates_disagreement_is_flagged_after_sync_without_a_curate(
        tmp_path: Path, predicate: str, hers: str, ours: str) -> None:
    """Reconcile never links two claims (docs/sync.md), so a sync that applied a teammate's
    effects starts the curator, whose consolidate stage flags the disagreement: the user never
    has to know to run ``curate`` for ``conflicts`` to show it, though a pass ran before and
    her fact names no episode here. A single-valued predicate's two values are flagged too:
    neither writer's is silently the current one."""
    import time
    ada, mine, shared = tmp_path / "ada" / "c.db", tmp_path / "me" / "c.db", tmp_path / "shared"
    assert _cli(ada, "assert", "billing", predicate, hers, "--scope", "p").returncode == 0
    assert _cli(mine, "assert", "billing", predicate, ours, "--scope", "p").returncode == 0
    assert _cli(mine, "curate").returncode == 0  # the sync's curator pass is not the first
    assert _cli(mine, "sync", "trust", _key(ada), "--name", "Ada").returncode == 0
    assert _cli(ada, "sync", "trust", _key(mine)).returncode == 0
    first = _cli(ada, "sync", "--dir", str(shared), "--project", "p", "--json")
    assert json.loads(first.stdout)["curator"] == "not-needed"  # nothing arrived yet
    done = _cli(mine, "sync", "--dir", str(shared), "--project", "p", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["curator"] == "spawned"
    deadline, open_now = time.monotonic() + 90, []
    while time.monotonic() < deadline:
        open_now = json.loads(_cli(mine, "conflicts", "--scope", "p", "--json").stdout)["conflicts"]
        if open_now:
            break
        time.sleep(0.5)
    assert len(open_now) == 1, "the teammate's other value is an open conflict"
    assert {open_now[0]["fact"]["object"], open_now[0]["candidate"]["object"]} == {hers, ours}
    shown = _cli(mine, "conflicts", "--scope", "p").stdout
    assert "from Ada" in _line(shown, hers), "the teammate is named, as `facts` names her"


def test_sync_no_curate_leaves_the_curator_alone(tmp_path: Path) -> None:
    ada, mine, shared = tmp_path / "ada" / "c.db", tmp_path / "me" / "c.db", tmp_path / "shared"
    assert _cli(ada, "assert", "billing", "prefers", "gRPC", "--scope", "p").returncode == 0
    assert _cli(mine, "sync", "trust", _key(ada)).returncode == 0
    assert _cli(ada, "sync", "--dir", str(shared), "--project", "p").returncode == 0
    done = _cli(mine, "sync", "--dir", str(shared), "--project", "p", "--no-curate", "--json")
    assert json.loads(done.stdout)["curator"] == "disabled"
    assert not Path(f"{mine}.curate.log").exists()
