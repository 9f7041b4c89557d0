"""Every run leaves its trace: capture and curate by hand write the sidecar logs as detached
runs do, and ``audit`` and ``status`` agree on what needs a person.

The captures run as real processes (a terminal's stderr, not the log), exactly as a person or
cron starts them; the detached case runs with stdout and stderr appended to the log, as the
hook and the curator spawn do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code" \
    / "full-session-four.jsonl"


def claimgraph(*argv: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "claimgraph", *argv], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ), **options)


def events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


def status_json() -> dict:
    done = claimgraph("status", "--json")
    return json.loads(done.stdout)


def test_a_capture_by_hand_is_in_the_capture_log_and_status_sees_it(db: Path):
    for _ in range(2):
        done = claimgraph("capture", str(FIXTURE), "--no-curate")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"] in ("captured", "nothing-new")
    logged = events(Path(f"{db}.capture.log"))
    reports = [e for e in logged if e["event"] == "capture.report"]
    assert [r["status"] for r in reports] == ["captured", "nothing-new"]
    report = status_json()
    assert report["last_capture"]["event"] == "capture.report"
    assert report["last_capture"]["result"] == "nothing-new"
    assert report["store"]["counts"]["episodes"] == 1


def test_a_failed_capture_by_hand_is_logged_and_counted_by_status(db: Path, tmp_path: Path):
    claimgraph("init")
    done = claimgraph("capture", str(tmp_path / "gone.jsonl"))
    assert done.returncode == 1
    [failed] = [e for e in events(Path(f"{db}.capture.log")) if e["event"] == "capture.failed"]
    assert failed["type"] == "transcript-missing"
    report = status_json()
    assert report["failures"]["by_log"] == {"capture": 1}
    assert report["last_capture"]["event"] == "capture.failed"


def test_a_curate_by_hand_is_in_the_curate_log_and_status_sees_it(db: Path):
    claimgraph("assert", "api", "depends-on", "postgres")
    done = claimgraph("curate")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("curate cur-") and '"curate.started"' in done.stderr
    logged = [e["event"] for e in events(Path(f"{db}.curate.log"))]
    assert logged[0] == "curate.started" and logged[-1] == "curate.result"
    assert status_json()["last_curation"]["result"] == "ok"


def test_a_detached_run_is_not_logged_twice(db: Path):
    claimgraph("init")
    log = Path(f"{db}.capture.log")
    with open(log, "ab") as out:
        done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", str(FIXTURE),
                               "--no-curate"], stdout=out, stderr=out, timeout=120,
                              env=dict(os.environ))
    assert done.returncode == 0
    assert [e["event"] for e in events(log)].count("capture.report") == 1


# --- audit and status agree -----------------------------------------------------------------

@pytest.fixture
def cited(ok, project_dir: Path) -> Path:
    """Two claims citing this project's files: one file here and saying so, one not here.
    The directory is a project (it has a marker file): the audit reads only inside one."""
    (project_dir / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (project_dir / "app").mkdir()
    (project_dir / "app" / "models.py").write_text("def total(items):\n    return sum(items)\n")
    ok("assert", "total", "defined-in", "app/models.py",
       "--evidence", "app/models.py: `def total(items):`")
    ok("assert", "gone", "defined-in", "app/gone.py", "--evidence", "app/gone.py: `def gone():`")
    return project_dir


def test_a_file_not_on_this_machine_is_reported_but_needs_no_one(cli, ok, cited):
    ok("curate")
    audit = cli("audit")
    assert audit.code == 0
    assert "file-missing: 1 citation whose file is not on this machine" in audit.out
    assert cli("audit", "--strict").code == 5
    report = cli("status", "--json").json()
    assert report["store"]["counts"]["files_missing"] == 1
    assert report["store"]["counts"]["unsupported"] == 0
    assert not [i for i in report["needs_attention"] if "unsupported" in i["problem"]]
    assert "1 only cite files not on this machine" in cli("status").out


def test_an_unsupported_claim_fails_the_audit_and_needs_attention_in_status(cli, ok, cited):
    ok("assert", "ghost", "defined-in", "app/models.py",
       "--evidence", "app/models.py: `def ghost_total(rows):` via GhostModel")
    ok("curate")
    assert cli("audit").code == 5
    report = cli("status", "--json").json()
    assert report["store"]["counts"]["unsupported"] == 1
    [item] = [i for i in report["needs_attention"] if "unsupported" in i["problem"]]
    assert item["what_to_do"].startswith("run `claimgraph audit`")
    assert cli("status").code == 1
