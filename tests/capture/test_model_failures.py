"""The model extractor never fails silently: each way it can fail, with the real stand-in
executable (tests/fixtures_bin/fake_model.py) run by a real `claimgraph capture` process whose
stderr is the capture log, as when the hook starts it. Each case must show up four ways: a
warning in the capture report, a capture.model-failed / capture.model-budget event in
capture.log with the reason, a count in `claimgraph status`, and a one-line hint."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

from claimgraph.health import status
from claimgraph.sidecar import Sidecars

from .test_run import working_session

FAKE_MODEL = Path(__file__).resolve().parents[1] / "fixtures_bin" / "fake_model.py"
STAND_IN = f"{sys.executable} {FAKE_MODEL}"

CASES = {
    "missing": ({"CLAIMGRAPH_LLM_CMD": "no-such-model-cmd -p"}, "capture.model-failed",
                "llm-command-missing", "install `no-such-model-cmd`"),
    "exits non-zero": ({"FAKE_MODEL_MODE": "fail", "FAKE_MODEL_STDERR": "quota exceeded"},
                       "capture.model-failed", "llm-command-failed", "run the command by hand"),
    "times out": ({"FAKE_MODEL_MODE": "hang", "CLAIMGRAPH_LLM_TIMEOUT_MS": "700"},
                  "capture.model-failed", "llm-command-timeout", "raise llm_timeout_ms"),
    "unparsable": ({"FAKE_REPLY": "Sure! The project uses uv and pytest.\nHope this helps."},
                   "capture.model-failed", "model-output-unparsable",
                   "one JSON object per line"),
    "budget spent": ({"CLAIMGRAPH_BUDGET": "0"}, "capture.model-budget",
                     "llm-budget-exhausted", "raise budget"),
}


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


@pytest.fixture
def stand_in(tmp_path: Path):
    """The stand-in's files; whatever it spawned is killed afterwards, whatever happened."""
    files = {"FAKE_MODEL_REPORT": str(tmp_path / "calls.jsonl"),
             "FAKE_MODEL_OUTPUT": str(tmp_path / "reply.txt"),
             "FAKE_MODEL_PIDS": str(tmp_path / "pids.json")}
    yield files
    pids = Path(files["FAKE_MODEL_PIDS"])
    for pid in json.loads(pids.read_text()).values() if pids.exists() else ():
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(pid)
            if "sleep" in " ".join(process.cmdline()) or FAKE_MODEL.name in " ".join(
                    process.cmdline()):
                process.kill()


def capture_logged(db: Path, transcript: Path, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """`claimgraph capture` in its own process, stderr appended to the capture log."""
    log = Sidecars(db).capture_log
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as stderr:
        done = subprocess.run(
            [sys.executable, "-m", "claimgraph", "capture", str(transcript), "--agent",
             "claude-code", "--cwd", str(cwd), "--extractor", "builtin,model", "--no-curate"],
            stdout=subprocess.PIPE, stderr=stderr, env={**os.environ, **env}, timeout=120)
    assert done.returncode == 0
    return json.loads(done.stdout)


def log_events(db: Path, prefix: str) -> list[dict[str, Any]]:
    lines = Sidecars(db).capture_log.read_text().splitlines()
    return [e for e in map(json.loads, filter(None, lines)) if e["event"].startswith(prefix)]


def now_ms() -> int:
    import time
    return time.time_ns() // 1_000_000


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_failing_model_is_reported_logged_counted_and_hinted(case, tmp_path, db, stand_in):
    env, event, reason, hint = CASES[case]
    reply = Path(stand_in["FAKE_MODEL_OUTPUT"])
    reply.write_text(env.pop("FAKE_REPLY", ""))
    project = tmp_path / "proj"
    project.mkdir()
    session = working_session(tmp_path / "s.jsonl", project)
    report = capture_logged(db, session.path, project,
                            {"CLAIMGRAPH_LLM_CMD": STAND_IN, **stand_in, **env})
    assert report["status"] == "captured" and report["episode"]  # the capture went on
    (warning,) = [w for w in report["warnings"] if hint in w]
    assert "\n" not in warning
    (logged,) = log_events(db, "capture.model-")
    assert (logged["event"], logged["reason"], logged["level"]) == (event, reason, "warning")
    assert hint in logged["hint"] and "\n" not in logged["hint"]
    assert logged["session"] == "s" and logged["message"]
    health = status.gather(db, dict(os.environ), now_ms())
    assert health["model_extractor"]["count"] == 1
    assert health["model_extractor"]["by_reason"] == {reason: 1}
    (item,) = [i for i in health["needs_attention"] if "model extractor" in i["problem"]]
    assert hint in item["what_to_do"]


def test_the_default_claude_command_missing_says_what_to_install(tmp_path, db, stand_in):
    project = tmp_path / "proj"
    project.mkdir()
    session = working_session(tmp_path / "s.jsonl", project)
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    report = capture_logged(db, session.path, project,
                            {"CLAIMGRAPH_LLM_CMD": "claude -p", "PATH": str(empty_bin)})
    (warning,) = [w for w in report["warnings"] if "claude" in w]
    assert "npm install -g @anthropic-ai/claude-code" in warning
    assert 'extractor = "builtin"' in warning


def test_a_model_that_works_leaves_no_warning_and_no_count(tmp_path, db, stand_in):
    Path(stand_in["FAKE_MODEL_OUTPUT"]).write_text(json.dumps(
        {"subject": "billing", "predicate": "prefers", "object": "uv", "class": "preference"}))
    project = tmp_path / "proj"
    project.mkdir()
    session = working_session(tmp_path / "s.jsonl", project)
    report = capture_logged(db, session.path, project, {"CLAIMGRAPH_LLM_CMD": STAND_IN,
                                                        **stand_in})
    assert report["warnings"] == []
    assert log_events(db, "capture.model-") == []
    assert status.gather(db, dict(os.environ), now_ms())["model_extractor"]["count"] == 0


def test_an_empty_reply_is_nothing_to_learn_not_a_failure(tmp_path, db, stand_in):
    project = tmp_path / "proj"
    project.mkdir()
    session = working_session(tmp_path / "s.jsonl", project)
    report = capture_logged(db, session.path, project, {"CLAIMGRAPH_LLM_CMD": STAND_IN,
                                                        **stand_in})
    assert report["warnings"] == [] and log_events(db, "capture.model-") == []
    assert len(Path(stand_in["FAKE_MODEL_REPORT"]).read_text().splitlines()) == 1  # it ran
