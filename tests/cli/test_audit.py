"""``claimgraph audit`` and ``claimgraph provenance`` end to end, through ``main``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from claimgraph.logsetup import reset_logging

MODELS = "class Invoice:\n    pass\n\n\ndef total(items):\n    return sum(items)\n"


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "models.py").write_text(MODELS)
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\n")  # a real project root
    return root


def test_audit_exits_0_when_every_cited_definition_is_in_the_file(ok, project):
    ok("assert", "total", "defined-in", "app/models.py",
       "--evidence", "app/models.py: `def total(items):`")
    result = ok("audit", "--base", str(project), "--json").json()
    assert result["summary"] == {"total": 1, "by_verdict": {"supported": 1},
                                 "confabulation_suspected": False, "files_missing": 0,
                                 "overall": "supported"}


def test_audit_exits_5_when_a_claim_cites_a_definition_the_file_lacks(ok, cli, project):
    ok("assert", "total", "defined-in", "app/models.py",
       "--evidence", "app/models.py: `def total(items):`")
    ok("assert", "ghost", "defined-in", "app/models.py",
       "--evidence", "app/models.py: `def ghost_total(rows):`")
    run = cli("audit", "--base", str(project), "--json")
    assert run.code == 5
    data = run.json()
    assert data["summary"]["overall"] == "suspect"
    [bad] = [c for c in data["checks"] if c["verdict"] == "unsupported"]
    assert bad["identifiers"]["missing"] == ["ghost_total"]
    human = cli("audit", "--base", str(project))
    assert human.code == 5
    assert human.out.splitlines()[0] == ("audit: 2 claims (1 supported, 1 unsupported) — "
                                         "overall suspect, confabulation suspected")
    assert "missing: ghost_total" in human.out


def test_audit_of_a_store_with_no_file_citations_says_no_claims(ok):
    ok("assert", "api", "prefers", "uv", "--evidence", "transcript#L1: use uv")
    run = ok("audit")
    assert run.out.splitlines() == ["audit: 0 claims — overall no-claims"]


def claude_record(cwd: Path, n: int, kind: str, **fields: Any) -> dict[str, Any]:
    """A Claude Code JSONL record with a valid envelope (tests/capture/test_run.py's shape)."""
    return {"type": kind, "uuid": f"uuid-{n}", "parentUuid": None, "isSidechain": False,
            "sessionId": "audit-session", "cwd": str(cwd), "version": "2.1.39",
            "gitBranch": "main", "timestamp": f"2026-03-01T10:00:{n:02d}.000Z", **fields}


def write_session(path: Path, cwd: Path) -> None:
    """A user directive naming the class to write, a Write of app/models.py and the agent
    saying what it added (so capture cites the definition the user asked for by name)."""
    target = str(cwd / "app" / "models.py")
    records = [
        claude_record(cwd, 1, "user", message={"role": "user", "content": (
            "Add an Invoice model in app/models.py. Always use uv instead of pip.")}),
        claude_record(cwd, 2, "assistant", message={
            "id": "msg-2", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": "toolu-2", "name": "Write",
                         "input": {"file_path": target, "content": MODELS}}]}),
        claude_record(cwd, 3, "user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu-2",
             "content": "File created successfully", "is_error": False}]},
            toolUseResult={"type": "create", "filePath": target}),
        claude_record(cwd, 4, "assistant", message={
            "id": "msg-4", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "Added Invoice to app/models.py."}]}),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_provenance_of_a_captured_fact_shows_the_transcript_line_and_the_file_verdict(
        ok, cli, project, tmp_path):
    transcript = tmp_path / "session.jsonl"
    write_session(transcript, project)
    ok("capture", str(transcript), "--no-curate")
    records = [json.loads(line) for line in ok("dump").out.splitlines()]
    [fact_id] = [r["id"] for r in records if r["record"] == "fact"
                 and "app/models.py: `class Invoice:`" in r["evidence"]]
    chain = ok("provenance", fact_id[:10], "--json").json()
    assert chain["fact"]["id"] == fact_id
    assert chain["episode"]["ref"].startswith("claude-code:")
    [line] = chain["transcript"]["lines"]
    assert line["line"] == 2 and line["kind"] == "tool_call" and "Write" in line["text"]
    [checked] = chain["files"]
    assert (checked["file"], checked["verdict"]) == ("app/models.py", "supported")
    assert checked["root"] == str(project)
    (project / "app" / "models.py").unlink()
    again = ok("provenance", fact_id, "--json").json()
    assert again["files"][0]["verdict"] == "file-missing"
    assert cli("audit").code == 0  # the file is not here: reported, not confabulation
    assert cli("audit", "--strict").code == 5
    human = ok("provenance", fact_id).out
    assert "transcript  L2 tool_call: Write" in human and "file-missing" in human


def test_conflicts_lists_a_claim_the_audit_found_unsupported(tmp_path, monkeypatch, capsys):
    from claimgraph.cli.main import main
    project = tmp_path / "proj"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (project / "Makefile").write_text("test:\n\tpytest\n")  # a real project root
    monkeypatch.chdir(project)
    assert main(["assert", "mul", "defined-in", "calc.py", "--source-type", "code",
                 "--evidence", "calc.py: `def multiply_numbers(a, b):`"]) == 0
    assert main(["curate", "--stage", "audit"]) == 0
    capsys.readouterr()
    assert main(["conflicts"]) == 0
    out = capsys.readouterr().out
    assert "suspect" in out and "mul defined-in calc.py" in out and "unsupported" in out
    assert main(["conflicts", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["verdicts"][0]["verdict"] for s in data["suspect"]] == ["unsupported"]


@pytest.mark.parametrize("where", ["/", "~"])
def test_an_audit_never_takes_the_root_or_home_directory_for_a_project(ok, cli, monkeypatch,
                                                                      where):
    """Outside any project the cwd was the root: ``/etc/passwd`` came back "supported"."""
    home = Path(os.environ["HOME"])
    (home / "notes.txt").write_text("root:x:0:0:root:/root:/bin/bash\n")
    cited = "/etc/passwd" if where == "/" else "notes.txt"
    monkeypatch.chdir("/" if where == "/" else home)
    ok("assert", "root", "defined-in", cited, "--evidence", f"{cited}: root:x:0:0")
    result = ok("audit", "--json").json()
    [check] = result["checks"]
    assert (check["verdict"], check["reason"], check["content_hash"]) == (
        "outside-project", "no-project-root", None)
    refused = cli("audit", "--base", "/" if where == "/" else str(home))
    assert refused.code == 1 and "cannot be an audit's project root" in refused.err


def test_a_session_recorded_in_the_root_directory_cannot_make_the_audit_read_there(
        ok, tmp_path, capsys):
    from claimgraph.cli.main import main
    transcript = tmp_path / "session.jsonl"
    write_session(transcript, Path("/"))
    main(["capture", str(transcript), "--no-curate"])
    capsys.readouterr()
    assert ok("audit", "--json").json()["checks"] == []  # another project's: not by default
    checks = ok("audit", "--all-projects", "--json").json()["checks"]
    assert checks and {c["reason"] for c in checks} == {"no-project-root"}
