"""The demo, and the CLI as a real process (``python -m claimgraph`` and the console script)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import normalize, one_line, run_process


def demo_db(home: Path) -> Path:
    return home / ".local/share/claimgraph/demo.db"


def test_demo_captures_a_session_and_tells_the_story(ok, isolated_home):
    result = ok("demo")
    text = normalize(result.out)
    assert text.startswith("claimgraph demo: capture one coding session into a fresh demo "
                           f"store: {demo_db(isolated_home)}\n")
    assert "created  <f>  invoice-tools decided-against requests" in text
    assert "  replaces <f>" in text
    assert "  <f>  invoice-tools prefers requests  (conf 0.70, valid " in text
    assert ", superseded by <f>)" in text
    assert ('  <f>  invoice-tools convention "Always use pytest, and never use requests — '
            'we decided on httpx"  (conf 0.80, commitment, valid since ') in text
    assert "    conflicts with <f>  invoice-tools decided-against pytest" in text
    assert "conflicts with <f>  invoice-tools decided-against requests" not in text  # agrees
    hint = f"claimgraph --db {demo_db(isolated_home)} search pytest --all-projects"
    assert text.rstrip().endswith(hint)
    assert len(text.splitlines()) <= 80
    block = text[text.index("7. What the next session in invoice-tools is told"):]
    assert "<claimgraph-context>" in block and "### Standing decisions" in block
    assert "install --agent claude-code" in block
    found = ok(*hint.split()[1:]).out  # the hint works as printed, from anywhere
    assert "invoice-tools convention" in found and "Always use pytest" in found


def test_demo_never_touches_the_configured_store(ok, db):
    ok("demo")
    assert not db.exists()


def test_demo_recreates_its_store_on_every_run(ok, isolated_home):
    first = ok("demo", "--json").json()
    second = ok("demo", "--json").json()
    assert len(first["facts"]) == len(second["facts"]) == 5
    assert [r["status"] for r in second["history_replay"]] == ["created", "superseded", "created"]
    assert second["capture"]["counts"] == {"created": 4, "flagged": 1}
    stats = ok("--db", str(demo_db(isolated_home)), "stats", "--json").json()
    assert stats["facts"]["total"] == 8


def test_demo_with_db_uses_that_path(ok, tmp_path):
    target = tmp_path / "my-demo.db"
    ok("demo", "--db", str(target))
    assert len(ok("--db", str(target), "conflicts", "--all-projects", "--json").json()[
        "conflicts"]) == 1  # the demo project was a temporary directory


def test_demo_refuses_to_recreate_a_store_it_did_not_make(ok, cli, db):
    ok("assert", "api", "prefers", "REST")
    result = cli("demo", "--db", str(db))
    assert result.code == 1
    assert one_line(result.err) == (f"claimgraph: {db} exists and is not a demo store — "
                                    "give the demo a new path with --db, or omit --db")
    assert ok("facts", "api", "--json").json()["facts"][0]["object"] == "REST"


def test_python_dash_m_runs_a_whole_session(db):
    assert run_process("init").code == 0
    created = run_process("assert", "api", "prefers", "REST", "--json")
    assert created.code == 0 and json.loads(created.out)["status"] == "created"
    listed = run_process("facts", "api")
    assert listed.code == 0 and "api prefers REST" in listed.out
    assert listed.err == ""


def test_a_real_process_reports_failures_on_stderr_with_exit_one(db):
    run_process("init")
    result = run_process("assert", "api", "prefer", "REST")
    assert (result.code, result.out) == (1, "")
    assert one_line(result.err).startswith("claimgraph: unknown predicate prefer — did you mean")
    as_json = run_process("assert", "api", "prefer", "REST", "--json")
    assert json.loads(one_line(as_json.err))["type"] == "unknown-predicate"


def test_a_real_process_exits_two_on_usage_errors(db):
    result = run_process("assert", "api")
    assert result.code == 2 and "the following arguments are required" in result.err


def test_a_real_process_pipes_dump_into_load(db, tmp_path):
    run_process("assert", "api", "depends-on", "postgres")
    dump = run_process("dump").out
    copy = tmp_path / "copy.db"
    assert run_process("--db", str(copy), "load", "-", stdin=dump).code == 0
    assert run_process("--db", str(copy), "dump").out == dump


def test_the_console_script_is_installed_and_runs(db):
    script = shutil.which("claimgraph", path=str(Path(sys.executable).parent))
    assert script is not None
    done = subprocess.run([script, "version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("claimgraph ")
