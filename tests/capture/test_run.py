"""The capture pass end to end: real fixtures into a real SQLite file, real processes for the
crash, spawn and contention cases (DESIGN §6.2)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from claimgraph.capture import run as capture_run
from claimgraph.capture.segment import (
    MAX_OUTPUT_CHARS, cap_output, clean_transcript, segment_header, segment_lines, write_segment)
from claimgraph.cli.main import main
from claimgraph.logic.names import object_name
from claimgraph.logsetup import reset_logging
from claimgraph.opening import open_store
from claimgraph.sidecar import Sidecars
from claimgraph.store import leases

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code"
BIG = CLAUDE / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
SMALL = CLAUDE / "full-session-four.jsonl"
EVERY_FIXTURE = sorted(p for p in TRANSCRIPTS.rglob("*.json*") if "subagents" not in p.parts)


# --- helpers -----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


def capture(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict | None, str]:
    """In-process ``claimgraph capture``: exit code, the parsed report line, stderr."""
    capsys.readouterr()
    code = main(["capture", *argv])
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert len(lines) <= 1, f"capture printed more than one line: {out!r}"
    return code, json.loads(lines[0]) if lines else None, err


def isolated_env(home: Path, db: Path) -> dict[str, str]:
    """For module-scoped fixtures, which run before the suite's per-test home is set up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local/share"), CLAIMGRAPH_DB=str(db))
    return env


def capture_process(*argv: str, env: dict[str, str] | None = None,
                    timeout: float = 60) -> subprocess.CompletedProcess:
    environ = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "claimgraph", "capture", *argv], text=True,
                          capture_output=True, env=environ, timeout=timeout)


def error_line(stderr: str) -> dict[str, Any]:
    """The one ``capture.failed`` line among stderr's JSON lines."""
    failures = [json.loads(line) for line in stderr.splitlines()
                if line.startswith("{") and '"capture.failed"' in line]
    assert len(failures) == 1, stderr
    return failures[0]


def store_state(db: Path) -> dict[str, Any]:
    """What a capture leaves, minus ids and times: facts, episodes, marks."""
    store = open_store(db, create=False)
    try:
        refs = {e["id"]: e["ref"] for e in store.list_episodes()}
        facts = sorted(
            (f["subject"]["name"], f["predicate"], str(object_name(f)), f["scope"],
             f["source_type"], f["epistemic"], round(f["confidence"], 6), f["t_invalid"] is None,
             f["invalidation_kind"], tuple(f["evidence"]), refs.get(f["episode"]))
            for f in store.all_facts())
        episodes = sorted((e["ref"], e["summary"], e["evidence"], e["source_type"])
                          for e in store.list_episodes())
        marks = {}
        for episode in store.list_episodes():
            agent, _, rest = episode["ref"].partition(":")
            key = f"capture:{agent}:{rest.rpartition('@')[0]}"
            mark = dict(store.get_mark(key) or {})
            mark.pop("captured_at", None)
            mark["episode"] = refs.get(mark.get("episode"))
            marks[key] = mark
        return {"facts": facts, "episodes": episodes, "marks": marks}
    finally:
        store.close()


def copy_split(source: Path, target: Path, keep_lines: int) -> bytes:
    """The first ``keep_lines`` lines into ``target``; returns the rest, to append later."""
    lines = source.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines[:keep_lines]))
    return b"".join(lines[keep_lines:])


def git_repo(path: Path, remote: str) -> Path:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    path.mkdir(parents=True)
    for args in (["init", "-q"], ["remote", "add", "origin", remote]):
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env, capture_output=True)
    return path


# --- a synthetic Claude Code session, for planted content ----------------------------------------

class Session:
    """Claude Code JSONL records with a valid envelope, written line by line."""

    def __init__(self, path: Path, cwd: Path, session_id: str = "5e55-10n") -> None:
        self.path, self.cwd, self.session_id, self.n = path, cwd, session_id, 0

    def _envelope(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.n += 1
        return {"type": kind, "uuid": f"uuid-{self.n}", "parentUuid": None, "isSidechain": False,
                "sessionId": self.session_id, "cwd": str(self.cwd), "version": "2.1.39",
                "gitBranch": "main", "timestamp": f"2026-03-01T10:00:{self.n:02d}.000Z", **fields}

    def write(self, *records: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as out:
            for record in records:
                out.write(json.dumps(record) + "\n")

    def prompt(self, text: str) -> dict[str, Any]:
        return self._envelope("user", message={"role": "user", "content": text})

    def say(self, text: str) -> dict[str, Any]:
        return self._envelope("assistant", message={
            "id": f"msg-{self.n}", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": text}]})

    def tool(self, name: str, tool_input: dict[str, Any], output: str,
             result: Any = None, error: bool = False) -> list[dict[str, Any]]:
        call_id = f"toolu-{self.n}"
        call = self._envelope("assistant", message={
            "id": f"msg-{self.n}", "role": "assistant", "model": "claude-test",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}]})
        answer = self._envelope("user", message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": output,
             "is_error": error}]}, toolUseResult=result if result is not None else output)
        return [call, answer]


def working_session(path: Path, cwd: Path) -> Session:
    """A short session the built-in extractor finds facts in: a directive, a write, a test run."""
    session = Session(path, cwd)
    session.write(
        session.prompt("Always use uv instead of pip for this project."),
        *session.tool("Write", {"file_path": str(cwd / "app" / "models.py"),
                                "content": "class Invoice:\n    pass\n\n\ndef total(items):\n"
                                           "    return sum(items)\n"},
                      "File created successfully", {"type": "create",
                                                    "filePath": str(cwd / "app" / "models.py")}),
        *session.tool("Bash", {"command": "uv run pytest -q"}, "3 passed in 0.12s",
                      {"stdout": "3 passed in 0.12s", "stderr": "", "interrupted": False}),
        session.say("Added Invoice and total to app/models.py; the tests pass."))
    return session


# --- capture over real fixtures ----------------------------------------------------------------

def test_a_real_transcript_lands_facts_with_evidence_and_a_resolvable_episode(capsys, db):
    code, report, _ = capture(capsys, str(BIG), "--no-curate")
    assert code == 0
    assert report["status"] == "captured"
    assert report["segment"] == {"from": 0, "to": BIG.stat().st_size, "lines": [1, 1593]}
    assert report["counts"].get("created", 0) > 0
    assert report["curator"] == "disabled"
    store = open_store(db, create=False)
    facts, [episode] = store.all_facts(), store.list_episodes()
    store.close()
    assert len(facts) == report["counts"]["created"]
    assert all(f["evidence"] and f["episode"] == episode["id"] for f in facts)
    assert episode["ref"] == f"claude-code:{BIG.stem}@0-{BIG.stat().st_size}"
    assert episode["summary"].startswith(f"{len(facts)} facts — ")
    assert episode["closed_at"] is not None
    lines = Sidecars(db).get_evidence(episode["evidence"]).splitlines()
    header = json.loads(lines[0])
    assert header["kind"] == "segment" and header["bytes"] == [0, BIG.stat().st_size]
    assert len(lines) == 1 + report["events"] == 1 + header["events"]
    assert all(json.loads(line)["kind"] for line in lines[1:])


@pytest.mark.parametrize("fixture", EVERY_FIXTURE, ids=lambda p: p.name[:40])
def test_every_fixture_captures_and_reports_one_json_line(capsys, fixture):
    code, report, _ = capture(capsys, str(fixture), "--no-curate")
    assert code == 0, report
    assert report["status"] == "captured"
    assert report["events"] > 0
    expected = {"status", "agent", "session", "project", "episode", "segment", "events",
                "candidates", "counts", "inadmissible", "redactions", "warnings", "duration_ms"}
    assert expected <= set(report)
    assert sum(report["counts"].values()) == report["candidates"]


def test_a_second_run_finds_nothing_new_and_writes_nothing(capsys, db):
    capture(capsys, str(SMALL), "--no-curate")
    before = store_state(db)
    code, report, _ = capture(capsys, str(SMALL))
    assert (code, report["status"], report["episode"]) == (0, "nothing-new", None)
    assert report["curator"] == "not-needed"
    assert not Sidecars(db).curate_log.exists()
    assert store_state(db) == before


def test_the_project_scope_is_the_normalized_remote_and_user_scope_stays(capsys, tmp_path, db):
    repo = git_repo(tmp_path / "checkout", "git@GitHub.com:acme/shop.git")
    session = working_session(tmp_path / "s.jsonl", repo)
    session.write(session.prompt("I always use ripgrep instead of grep."))
    code, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert code == 0 and report["project"] == "github.com/acme/shop"
    store = open_store(db, create=False)
    scopes = {f["scope"] for f in store.all_facts()}
    store.close()
    assert scopes <= {"github.com/acme/shop", "user"} and "github.com/acme/shop" in scopes


def test_a_transcript_from_another_machine_is_keyed_by_the_remote_it_recorded(capsys):
    codex = next((TRANSCRIPTS / "codex").glob("rollout-2025-09-24*.jsonl"))
    code, report, _ = capture(capsys, str(codex), "--no-curate")
    assert code == 0
    assert report["project"] == "github.com/spectorasoftware/spectora-labs-monorepo-v2"


def test_the_report_line_is_also_a_log_line(capsys):
    _, report, _ = capture(capsys, str(SMALL), "--no-curate")
    assert list(report)[:5] == ["ts", "level", "event", "pid", "run_id"]
    assert report["event"] == "capture.report" and report["run_id"].startswith("cap-")


# --- incremental capture -----------------------------------------------------------------------

def test_a_resumed_session_captures_only_the_new_tail(capsys, tmp_path, db):
    copy = tmp_path / f"{SMALL.stem}.jsonl"
    rest = copy_split(SMALL, copy, 40)
    first_end = copy.stat().st_size
    _, first, _ = capture(capsys, str(copy), "--no-curate")
    facts_after_first = store_state(db)["facts"]
    with open(copy, "ab") as out:
        out.write(rest)
    _, second, _ = capture(capsys, str(copy), "--no-curate")
    assert second["status"] == "captured"
    assert second["segment"]["from"] == first_end == first["segment"]["to"]
    assert second["segment"]["lines"][0] == 41
    state = store_state(db)
    refs = [ref for ref, *_ in state["episodes"]]
    assert sorted(refs) == sorted([f"claude-code:{SMALL.stem}@0-{first_end}",
                                   f"claude-code:{SMALL.stem}@{first_end}-{copy.stat().st_size}"])
    live = [f[:4] for f in state["facts"] if f[7]]
    assert len(live) == len(set(live)), "a fact was stored twice"
    assert set(f[:4] for f in facts_after_first) <= set(f[:4] for f in state["facts"])
    store = open_store(db, create=False)
    second_episode = store.get_episode(second["episode"])
    store.close()
    lines = Sidecars(db).get_evidence(second_episode["evidence"]).splitlines()
    assert all(json.loads(line)["line"] > 40 for line in lines[1:])


def test_a_resumed_gemini_session_starts_from_the_state_its_mark_kept(capsys, tmp_path, db):
    """The Gemini reader's head replay is kept in the mark, so the second capture never
    parses the head again (blanked here: a replay of it would find no messages), and still
    stores what the tail added to the messages before it (the reader's tests compare that
    with a full replay at every cut)."""
    source = TRANSCRIPTS / "gemini" / "session-2026-12-02T18-15-89c95452.jsonl"
    copy = tmp_path / source.name
    rest = copy_split(source, copy, 5)  # the model's message, bare: its call comes later
    _, first, _ = capture(capsys, str(copy), "--no-curate", "--agent", "gemini")
    store = open_store(db, create=False)
    mark = store.get_mark(f"capture:gemini:{first['session']}")
    store.close()
    assert mark["resume"][str(copy)]["offset"] == mark["offset"] == first["segment"]["to"]
    with open(copy, "ab") as out:
        out.write(rest)
    head = copy.read_bytes()[:mark["offset"]]
    blanked = bytes(b if b == 0x0A else 0x20 for b in head)
    copy.write_bytes(blanked + copy.read_bytes()[len(head):])
    _, second, _ = capture(capsys, str(copy), "--no-curate", "--agent", "gemini",
                           "--session", first["session"])  # the head that names it is blank
    assert second["status"] == "captured" and second["segment"]["from"] == len(head)
    events = [json.loads(line) for line in Sidecars(db).get_evidence(
        second["evidence"]).splitlines()[1:]]
    assert [e["kind"] for e in events] == ["tool_call", "tool_result", "assistant"]
    assert {e.get("session_id") for e in events} == {first["session"]}  # the head's metadata


def test_a_truncated_last_line_waits_for_the_next_capture(capsys, tmp_path, db):
    copy = tmp_path / "cut.jsonl"
    whole = SMALL.read_bytes()
    cut = whole.rfind(b"\n", 0, len(whole) - 1) + 40  # 40 bytes into the last line
    copy.write_bytes(whole[:cut])
    _, first, _ = capture(capsys, str(copy), "--no-curate")
    assert first["status"] == "captured"
    assert first["segment"]["to"] == whole.rfind(b"\n", 0, len(whole) - 1) + 1
    assert any("incomplete last line" in w for w in first["warnings"])
    copy.write_bytes(whole)
    _, second, _ = capture(capsys, str(copy), "--no-curate")
    assert second["segment"] == {"from": first["segment"]["to"], "to": len(whole),
                                 "lines": [first["segment"]["lines"][1] + 1,
                                           first["segment"]["lines"][1] + 1]}


def test_a_tail_of_noise_moves_the_mark_without_an_episode(capsys, tmp_path, db):
    copy = tmp_path / "s.jsonl"
    shutil.copy(SMALL, copy)
    capture(capsys, str(copy), "--no-curate")
    noise = json.dumps({"type": "progress", "sessionId": "x", "data": {"type": "hook_progress"}})
    with open(copy, "a") as out:
        out.write(noise + "\n" + noise + "\n")
    code, report, _ = capture(capsys, str(copy), "--no-curate")
    assert (code, report["status"], report["episode"]) == (0, "nothing-new", None)
    assert report["segment"]["to"] == copy.stat().st_size
    assert len(store_state(db)["episodes"]) == 1
    store = open_store(db, create=False)
    assert store.get_mark("capture:claude-code:s")["offset"] == copy.stat().st_size
    store.close()


def test_a_replaced_shorter_transcript_is_read_again_from_the_start(capsys, tmp_path, db):
    copy = tmp_path / "s.jsonl"
    shutil.copy(SMALL, copy)
    capture(capsys, str(copy), "--no-curate")
    copy_split(SMALL, copy, 10)
    code, report, _ = capture(capsys, str(copy), "--no-curate")
    assert code == 0 and report["segment"]["from"] == 0
    assert any("read again from the start" in w for w in report["warnings"])


def test_a_moved_transcript_is_not_read_from_another_file_offset(capsys, tmp_path, db):
    first, second = tmp_path / "a" / "s.jsonl", tmp_path / "b" / "s.jsonl"
    first.parent.mkdir()
    second.parent.mkdir()
    shutil.copy(SMALL, first)
    capture(capsys, str(first), "--no-curate", "--session", "same")
    shutil.copy(SMALL, second)
    code, report, _ = capture(capsys, str(second), "--no-curate", "--session", "same")
    assert code == 0 and report["segment"]["from"] == 0
    assert any("read again from the start" in w for w in report["warnings"])
    state = store_state(db)
    size = SMALL.stat().st_size
    assert sorted(ref for ref, *_ in state["episodes"]) == [f"claude-code:same@0-{size}",
                                                            f"claude-code:same@0-{size}~2"]
    live = [f[:4] for f in state["facts"] if f[7]]
    assert len(live) == len(set(live)), "re-reading stored a fact twice"


def test_lines_appended_while_capture_reads_are_captured_by_the_next_run(tmp_path, db):
    """The agent may still be writing: capture stops at a line boundary, the rest comes next."""
    copy = tmp_path / f"{BIG.stem}.jsonl"
    rest = copy_split(BIG, copy, 200).splitlines(keepends=True)

    def keep_appending() -> None:
        """About a second of writing, half lines at a time, while the capture reads."""
        with open(copy, "ab", buffering=0) as out:
            for line in rest:
                out.write(line[: len(line) // 2])
                time.sleep(0.0004)
                out.write(line[len(line) // 2:])
                time.sleep(0.0004)

    writer = threading.Thread(target=keep_appending)
    writer.start()
    first = capture_process(str(copy), "--no-curate")
    writer.join()
    assert first.returncode == 0, first.stderr
    again = capture_process(str(copy), "--no-curate")
    assert again.returncode == 0, again.stderr
    final = json.loads(again.stdout)
    assert final["segment"]["to"] == copy.stat().st_size == BIG.stat().st_size
    assert json.loads(first.stdout)["segment"]["to"] == final["segment"]["from"]


def test_a_transcript_cut_short_while_read_fails_cleanly_and_keeps_the_mark(
        capsys, tmp_path, db, monkeypatch):
    copy = tmp_path / "s.jsonl"
    shutil.copy(SMALL, copy)
    real_read = capture_run.read_cleaned

    def read_then_truncate(*args: Any, **kwargs: Any):
        transcript = real_read(*args, **kwargs)
        with open(copy, "r+b") as handle:
            handle.truncate(100)
        return transcript

    monkeypatch.setattr(capture_run, "read_cleaned", read_then_truncate)
    code, report, err = capture(capsys, str(copy), "--no-curate")
    assert (code, report) == (1, None)
    assert error_line(err)["type"] == "transcript-changed"
    assert not db.exists() or store_state(db)["episodes"] == []


# --- spool input -------------------------------------------------------------------------------

def spool_payload(db: Path, transcript: Path, cwd: Path, session: str = "sess-1") -> Path:
    spool = Sidecars(db).spool_dir
    spool.mkdir(parents=True, exist_ok=True)
    path = spool / f"claude-code-{session}.json"
    path.write_text(json.dumps({
        "agent": "claude-code", "session_id": session, "transcript_path": str(transcript),
        "cwd": str(cwd), "hook_event_name": "SessionEnd", "reason": "other",
        "received_at": "2026-03-01T10:00:00.000Z"}))
    return path


def test_a_spool_payload_is_captured_then_removed(capsys, tmp_path, db):
    repo = git_repo(tmp_path / "repo", "https://github.com/acme/api.git")
    session = working_session(tmp_path / "t.jsonl", tmp_path / "elsewhere")
    spool = spool_payload(db, session.path, repo)
    code, report, _ = capture(capsys, "--spool", str(spool), "--no-curate")
    assert (code, report["status"]) == (0, "captured")
    assert (report["session"], report["project"]) == ("sess-1", "github.com/acme/api")
    assert not spool.exists()
    store = open_store(db, create=False)
    assert store.get_mark("capture:claude-code:sess-1")["offset"] == session.path.stat().st_size
    store.close()


def test_a_spool_replaced_by_a_newer_payload_is_left_for_its_own_run(tmp_path, db):
    session = working_session(tmp_path / "t.jsonl", tmp_path)
    spool = spool_payload(db, session.path, tmp_path)
    request = capture_run.make_request(None, spool=str(spool))
    spool.write_text(spool.read_text().replace("other", "resume"))
    report = capture_run.capture(request, capture_run.Options(db=db))
    assert spool.exists()
    assert any("newer payload" in w for w in report["warnings"])


def test_a_spool_already_consumed_is_not_an_error(capsys, tmp_path, db):
    code, report, _ = capture(capsys, "--spool", str(tmp_path / "gone.json"))
    assert (code, report["status"]) == (0, "spool-gone")


def test_a_spool_that_is_not_json_fails_and_stays(capsys, tmp_path, db):
    spool = tmp_path / "bad.json"
    spool.write_text("{not json")
    code, _, err = capture(capsys, "--spool", str(spool))
    assert code == 1 and error_line(err)["type"] == "spool-invalid" and spool.exists()


# --- secrets -----------------------------------------------------------------------------------

PEM_BODY = "MIIEowIBAAKCAQEAq7Lm9Kx2Vp7Nb4Rt8Zw6Hd1Fs5Gy0Jc3KaZq8Xr2Lm5Np7Ks9"
SECRETS = {
    "aws-access-key": "AKIAQ7XK3M2PLW9RT5ZD",
    "github-token": "ghp_" + "Zq8Xr2Lm5Np7Ks9Tv3Wb6Yc1Hd4Fg0Jk2Mn8",
    "gitlab-token": "glpat-" + "Hq7Lw2Xz9Kp4Rt6Vb3Nm",
    "openai-api-key": "sk-proj-" + "T4kq9Lm2Xw7Rz3Vb8Np5Hs1Jd6Fg0Ky",
    "anthropic-api-key": "sk-ant-api03-" + "Wm3Kq8Zr5Lx2Vp9Nb4Ht7Jd1Fs6Gy0Qc",
    "slack-token": "xoxb-" + "2847561029-7Hq3Lm9Kx2Vp",
    "stripe-key": "sk_live_" + "51Hq7Lm3Kx9Vp2Nb8Rt4Zw6",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbGFpbWdyYXBoLXRlc3QifQ."
           "Xq3Lm9Kx2Vp7Nb4Rt8Zw6Hd1Fs5Gy0Jc3Ka",
    "private-key": PEM_BODY,
    "url-password": "Tr0ub4dor-Horse-77",
    "env-token": "tok-Vb8Np5Hs1Jd6Fg0Ky4Lm",
    "env-secret": "Zx9Qw8Er7Ty6Ui5Op4",
    "env-password": "Pa55-Correct-Battery-Staple",
}


def secret_text() -> str:
    s = SECRETS
    return "\n".join([
        f"aws {s['aws-access-key']}", f"gh {s['github-token']}", f"gl {s['gitlab-token']}",
        f"openai {s['openai-api-key']}", f"anthropic {s['anthropic-api-key']}",
        f"slack {s['slack-token']}", f"stripe {s['stripe-key']}", f"jwt {s['jwt']}",
        f"db postgres://admin:{s['url-password']}@db.internal:5432/app",
        f"DEPLOY_TOKEN={s['env-token']}", f"CLIENT_SECRET={s['env-secret']}",
        f'DB_PASSWORD="{s["env-password"]}"',
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"])


def plant_secrets(session: Session) -> None:
    """Every secret in a prompt, an assistant reply, a Bash command and its output, a written
    file and its result record, and a user directive the extractor turns into a fact."""
    text = secret_text()
    config = session.cwd / "deploy.env"
    session.write(
        session.prompt(f"Here are the credentials:\n{text}"),
        session.say(f"Noted, I will use {SECRETS['anthropic-api-key']} and {SECRETS['jwt']}."),
        *session.tool("Bash", {"command": f"export DEPLOY_TOKEN={SECRETS['env-token']} && "
                                          f"curl https://admin:{SECRETS['url-password']}@x.io"},
                      text, {"stdout": text, "stderr": SECRETS["github-token"],
                             "interrupted": False}),
        *session.tool("Write", {"file_path": str(config), "content": text},
                      "File created successfully",
                      {"type": "create", "filePath": str(config), "content": text}),
        session.prompt(f"Always deploy with DEPLOY_TOKEN={SECRETS['env-token']} and "
                       f"never use {SECRETS['openai-api-key']}."),
        session.prompt(f"We decided to use {SECRETS['stripe-key']} for billing."))


def hits(paths: list[Path], needle: str) -> list[str]:
    found = []
    for path in paths:
        if path.is_file() and needle.encode() in path.read_bytes():
            found.append(str(path))
    return found


def test_planted_secrets_reach_no_store_evidence_or_log(tmp_path, db):
    copy = tmp_path / "planted.jsonl"
    shutil.copy(SMALL, copy)
    session = working_session(copy, tmp_path)
    plant_secrets(session)
    for secret in SECRETS.values():
        assert secret.encode() in copy.read_bytes()
    spool = spool_payload(db, copy, tmp_path, "planted")
    db.parent.mkdir(parents=True, exist_ok=True)
    sidecars = Sidecars(db)
    with open(sidecars.capture_log, "ab") as log:  # as the hook runs it
        done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", "--spool",
                               str(spool)], stdout=log, stderr=log, env=dict(os.environ),
                              timeout=60)
    assert done.returncode == 0, sidecars.capture_log.read_text()
    report = [json.loads(line) for line in sidecars.capture_log.read_text().splitlines()
              if '"status"' in line][-1]
    assert report["status"] == "captured"
    assert set(report["redactions"]) >= {"aws-access-key", "github-token", "gitlab-token",
                                         "openai-api-key", "anthropic-api-key", "slack-token",
                                         "stripe-key", "jwt", "private-key", "url-password",
                                         "secret"}
    wait_for(lambda: sidecars.curate_log.exists() and "curate.lease-released"
             in sidecars.curate_log.read_text())
    everything = [p for p in db.parent.rglob("*")]
    assert sidecars.capture_log in everything and sidecars.curate_log in everything
    assert any(p.parent == sidecars.evidence_dir for p in everything)
    leaks = {kind: hits(everything, secret) for kind, secret in SECRETS.items()}
    assert leaks == {kind: [] for kind in SECRETS}


def test_cleaning_strips_injected_context_and_private_blocks_before_storage(capsys, tmp_path, db):
    session = Session(tmp_path / "t.jsonl", tmp_path)
    session.write(
        session.prompt("<claimgraph-context>## Project memory — compiled by claimgraph\n"
                       "- api prefers GraphQL</claimgraph-context>Please fix the build."),
        session.prompt("keep <private>my home address is 12 Elm St</private> out of it"),
        session.prompt("<system-reminder>The user likes tabs.</system-reminder>ok"))
    code, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert code == 0
    store = open_store(db, create=False)
    [episode] = store.list_episodes()
    store.close()
    stored = Sidecars(db).get_evidence(episode["evidence"])
    for leaked in ("GraphQL", "12 Elm St", "likes tabs", "claimgraph-context", "private>"):
        assert leaked not in stored


def test_cleaning_covers_tool_inputs_and_result_records(tmp_path):
    from claimgraph.capture.readers import read_transcript

    session = Session(tmp_path / "t.jsonl", tmp_path)
    plant_secrets(session)
    cleaned, counts = clean_transcript(read_transcript(session.path, "claude-code"))
    dumped = json.dumps([e.to_dict() for e in cleaned.events])
    assert [k for k, s in SECRETS.items() if s in dumped] == []
    assert counts["secret"] >= 3


# --- the segment -------------------------------------------------------------------------------

def test_huge_tool_output_keeps_its_head_and_tail_and_says_what_was_cut():
    text = "HEAD" + "x" * 50_000 + "TAIL"
    capped = cap_output(text)
    assert capped.startswith("HEAD") and capped.endswith("TAIL")
    assert f"{len(text) - MAX_OUTPUT_CHARS} characters of output omitted" in capped
    assert cap_output("short") == "short"


def test_reusing_a_call_input_in_its_result_cleans_exactly_like_cleaning_each_copy(tmp_path):
    """The per-exchange reuse is an optimisation only: same text, same counts."""
    from collections import Counter

    from claimgraph.capture.readers import read_transcript
    from claimgraph.logic.clean import clean_text_with_counts
    from claimgraph.logic.redact import redact_value

    session = working_session(tmp_path / "t.jsonl", tmp_path)
    plant_secrets(session)
    raw = read_transcript(session.path, "claude-code")
    cleaned, counts = clean_transcript(raw)
    expected: Counter[str] = Counter()
    for before, after in zip(raw.events, cleaned.events):
        text = cap_output(before.text) if before.kind == "tool_result" else before.text
        assert after.text == (clean_text_with_counts(text)[0] if text else text)
        expected.update(clean_text_with_counts(text)[1] if text else {})
        assert after.tool_input == (redact_value(dict(before.tool_input), expected)
                                    if before.tool_input else before.tool_input)
        extras = {k: cap_output(v) if isinstance(v, str) else v for k, v in before.extras.items()}
        redacted = redact_value(extras, expected) if extras else {}
        for key, value in after.extras.items():  # a copy of the text gets the text's cleaning
            assert value in (redacted[key], after.text)
    assert counts == expected


def test_a_streamed_segment_has_the_name_put_evidence_would_give_and_is_write_once(tmp_path):
    from claimgraph.capture.readers import read_transcript

    cleaned, _ = clean_transcript(read_transcript(SMALL, "claude-code"))
    header = segment_header(cleaned, "s", 0, {})
    sidecars = Sidecars(tmp_path / "claims.db")
    name = write_segment(sidecars.evidence_dir, segment_lines(cleaned, header))
    text = "".join(line + "\n" for line in segment_lines(cleaned, header))
    assert Sidecars(tmp_path / "other.db").put_evidence(text) == name
    stored = sidecars.evidence_dir / name
    before = stored.stat().st_mtime_ns
    assert write_segment(sidecars.evidence_dir, segment_lines(cleaned, header)) == name
    assert stored.stat().st_mtime_ns == before
    assert sidecars.list_evidence() == [name]  # no temp file left behind


# --- crashes -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def crash_transcript(tmp_path_factory) -> Path:
    """A real fixture plus a short working session, so the extractor surely finds facts."""
    folder = tmp_path_factory.mktemp("crash-transcript")
    copy = folder / f"{SMALL.stem}.jsonl"
    shutil.copy(SMALL, copy)
    working_session(copy, folder)
    return copy


@pytest.fixture(scope="module")
def clean_run_state(tmp_path_factory, crash_transcript) -> dict[str, Any]:
    """What one uninterrupted capture via a spool file leaves."""
    home = tmp_path_factory.mktemp("clean")
    db = home / "claims.db"
    spool = spool_payload(db, crash_transcript, crash_transcript.parent, "crash")
    done = capture_process("--spool", str(spool), "--no-curate", env=isolated_env(home, db))
    assert done.returncode == 0, done.stderr
    state = store_state(db)
    assert state["facts"], "the transcript must yield facts for the crash tests to mean anything"
    return state


@pytest.mark.parametrize("stage", capture_run.STAGES)
def test_a_kill_at_any_stage_then_a_rerun_leaves_what_one_clean_run_leaves(
        stage, clean_run_state, crash_transcript, tmp_path):
    db = tmp_path / "claims.db"
    spool = spool_payload(db, crash_transcript, crash_transcript.parent, "crash")
    env = {"CLAIMGRAPH_DB": str(db)}
    crashed = capture_process("--spool", str(spool), "--no-curate",
                              env={**env, capture_run.CRASH_ENV: stage})
    assert crashed.returncode == 137, crashed.stderr
    assert spool.exists() == (capture_run.STAGES.index(stage)
                              < capture_run.STAGES.index("spool-removed"))
    if spool.exists():
        rerun = capture_process("--spool", str(spool), "--no-curate", env=env)
        assert rerun.returncode == 0, rerun.stderr
        assert json.loads(rerun.stdout)["status"] == (
            "nothing-new" if stage == "committed" else "captured")
    assert not spool.exists()
    assert store_state(db) == clean_run_state


@pytest.mark.parametrize("delay", [0.05, 0.15, 0.3, 0.45])
def test_a_real_sigkill_at_a_random_moment_then_a_rerun_is_a_clean_run(
        delay, clean_run_state, crash_transcript, tmp_path):
    db = tmp_path / "claims.db"
    spool = spool_payload(db, crash_transcript, crash_transcript.parent, "crash")
    env = {**os.environ, "CLAIMGRAPH_DB": str(db)}
    child = subprocess.Popen([sys.executable, "-m", "claimgraph", "capture", "--spool",
                              str(spool), "--no-curate"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    if spool.exists():
        rerun = capture_process("--spool", str(spool), "--no-curate",
                                env={"CLAIMGRAPH_DB": str(db)})
        assert rerun.returncode == 0, rerun.stderr
    assert store_state(db) == clean_run_state


def test_two_captures_of_one_session_at_once_capture_it_exactly_once(
        clean_run_state, crash_transcript, tmp_path):
    db = tmp_path / "claims.db"
    env = {**os.environ, "CLAIMGRAPH_DB": str(db)}
    spool = spool_payload(db, crash_transcript, crash_transcript.parent, "crash")
    children = [subprocess.Popen([sys.executable, "-m", "claimgraph", "capture", "--spool",
                                  str(spool), "--no-curate"], env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(3)]
    results = [(c.wait(timeout=60), c.stdout.read(), c.stderr.read()) for c in children]
    for child in children:
        child.stdout.close()
        child.stderr.close()
    failed = [f"exit {code}\n{out}\n{err}" for code, out, err in results if code != 0]
    assert not failed, "\n---\n".join(failed)  # whole, so a rare failure says why
    statuses = sorted(json.loads(out)["status"] for _, out, _ in results)
    assert statuses.count("captured") == 1
    assert store_state(db) == clean_run_state


# --- the curator -------------------------------------------------------------------------------

def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_a_capture_that_wrote_starts_the_curator_detached(tmp_path, db):
    done = capture_process(str(SMALL))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["curator"] == "spawned"
    spawned = [json.loads(line) for line in done.stderr.splitlines()
               if "capture.curator-spawned" in line]
    assert spawned
    curator = spawned[0]["curator_pid"]
    wait_for(lambda: not _running(curator))  # read the log only once the curator has finished
    lines = [json.loads(line) for line in Sidecars(db).curate_log.read_text().splitlines()]
    assert {"curate.started", "curate.lease-acquired", "curate.lease-released"} <= {
        line.get("event") for line in lines}
    assert lines[-1]["status"] == "ok"
    assert curator == lines[0]["pid"]


def _running(pid: int) -> bool:
    import psutil
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["directory", "binary", "dev-zero", "symlink-loop"])
def test_bad_transcripts_fail_with_one_json_error_and_keep_the_spool(case, tmp_path, db):
    """(A transcript that was never written is no session at all: test_failures.py.)"""
    target = {"missing": tmp_path / "nope.jsonl", "directory": tmp_path,
              "binary": tmp_path / "blob.jsonl", "dev-zero": Path("/dev/zero"),
              "symlink-loop": tmp_path / "loop.jsonl", "empty-path": ""}[case]
    if case == "binary":
        target.write_bytes(b"\x7fELF\x00\x01" * 1000)
    if case == "symlink-loop":
        os.symlink(tmp_path / "loop.jsonl", tmp_path / "loop.jsonl")
    spool = spool_payload(db, target, tmp_path, f"bad-{case}")
    done = capture_process("--spool", str(spool), timeout=30)
    assert done.returncode == 1
    assert done.stdout == ""
    error = error_line(done.stderr)
    assert error["type"].startswith("transcript-") and error["hint"]
    assert error["spool_kept"] is True and spool.exists()
    assert not db.exists() or store_state(db)["facts"] == []


def test_a_write_lease_held_past_the_wait_fails_then_a_later_run_captures(tmp_path, db):
    spool = spool_payload(db, SMALL, tmp_path, "leased")
    holder = leases.write_lease(db, "someone-else", 0)
    try:
        done = capture_process("--spool", str(spool), "--lease-wait", "300", "--no-curate")
    finally:
        holder.release()
    assert done.returncode == 1
    error = error_line(done.stderr)
    assert error["type"] == "store-locked" and error["holder"]["owner"] == "someone-else"
    assert error["spool_kept"] and spool.exists()
    assert store_state(db)["facts"] == []
    again = capture_process("--spool", str(spool), "--no-curate")
    assert again.returncode == 0 and json.loads(again.stdout)["status"] == "captured"
    assert not spool.exists()


def test_a_crashed_writer_lease_is_broken_and_logged(tmp_path, db):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys; from claimgraph.store.leases import write_lease; "
        f"write_lease({str(db)!r}, 'doomed', 0, heartbeat=False); print('held', flush=True); "
        "sys.stdin.read()")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    holder.stdin.close()
    holder.stdout.close()
    done = capture_process(str(SMALL), "--no-curate", "--lease-wait", "0")
    assert done.returncode == 0, done.stderr
    broken = [json.loads(line) for line in done.stderr.splitlines()
              if "capture.lease-broken" in line]
    assert broken and broken[0]["holder"]["reason"] == "dead-pid"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_an_unwritable_store_directory_fails_cleanly(tmp_path):
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        done = capture_process(str(SMALL), env={"CLAIMGRAPH_DB": str(locked / "sub" / "c.db")})
    finally:
        locked.chmod(0o700)
    assert done.returncode == 1
    assert error_line(done.stderr)["type"] == "store-unopenable"


def test_no_transcript_at_all_is_a_clear_error(capsys):
    code, _, err = capture(capsys)
    assert code == 1 and error_line(err)["type"] == "transcript-missing"


def test_an_unknown_extractor_is_refused_before_anything_is_written(capsys, db):
    code, _, err = capture(capsys, str(SMALL), "--extractor", "nonesuch")
    assert code == 1 and error_line(err)["type"] == "unknown-extractor"
    assert not db.exists() and not Sidecars(db).evidence_dir.exists()


def test_summaries_count_the_episode_facts_by_predicate():
    predicates = ["core/written-in", "core/prefers", "core/written-in", "x/owned-by"]
    assert capture_run.summarize(predicates) == "4 facts — 2 written-in, 1 prefers, 1 x/owned-by"
    assert capture_run.summarize([]) == "0 facts"
    assert capture_run.summarize(["core/prefers"],
                                 reinforced=2) == "1 fact — 1 prefers; 2 reinforced"


# --- the opt-in model extractor, through a real stand-in command --------------------------------

FAKE_MODEL = Path(__file__).resolve().parents[1] / "fixtures_bin" / "fake_model.py"


def test_the_model_extractor_runs_beside_the_builtin_one_when_configured(
        capsys, tmp_path, db, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    working_session(tmp_path / "s.jsonl", project)
    reply = tmp_path / "reply.jsonl"
    reply.write_text(json.dumps({"subject": "billing", "predicate": "prefers",
                                 "object": "uv", "class": "preference", "confidence": 0.9}) + "\n")
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("CLAIMGRAPH_LLM_CMD", f"{sys.executable} {FAKE_MODEL}")
    monkeypatch.setenv("FAKE_MODEL_OUTPUT", str(reply))
    monkeypatch.setenv("FAKE_MODEL_REPORT", str(calls))
    code, report, err = capture(capsys, str(tmp_path / "s.jsonl"), "--agent", "claude-code",
                                "--cwd", str(project), "--extractor", "builtin,model",
                                "--no-curate")
    assert code == 0, err
    call = json.loads(calls.read_text().splitlines()[0])
    assert call["internal"] == "1" and "uv instead of pip" in call["prompt"]
    facts = store_state(db)["facts"]
    assert ("billing", "core/prefers", "uv") in {f[:3] for f in facts}, facts
    assert "core/tested-by" in {f[1] for f in facts}


def test_an_unknown_extractor_is_refused_before_any_work(capsys, tmp_path, db):
    working_session(tmp_path / "s.jsonl", tmp_path)
    code, _, err = capture(capsys, str(tmp_path / "s.jsonl"), "--extractor", "builtin,oracle",
                           "--no-curate")
    assert code == 1 and "oracle" in err
    assert not db.exists() or store_state(db)["facts"] == []


def test_an_overlong_object_is_cut_or_dropped_by_its_predicate_and_logged(
        capsys, monkeypatch, db):
    """Never silently: a coined x/* predicate keeps its whole sentences that fit; a
    registered value predicate (a command) is dropped rather than cut; both are logged."""
    from claimgraph.capture import extract
    sentences = "The staging deploy needs the VPN up first. " * 8 + "Then it works."
    overlong = [
        {"subject": "shop", "predicate": "x/deploy-note", "object": sentences,
         "confidence": 0.8, "evidence": ["t.jsonl:1: deploy"], "rule": "test"},
        {"subject": "shop", "predicate": "core/tested-by", "object": "pytest " + "-x " * 90,
         "confidence": 0.8, "evidence": ["t.jsonl:1: pytest"], "rule": "test"}]
    monkeypatch.setitem(extract.EXTRACTORS, "overlong",
                        lambda transcript, project_root=None: overlong)
    code, report, _ = capture(capsys, str(SMALL), "--no-curate", "--extractor", "overlong")
    assert code == 0 and report["inadmissible"][0]["predicate"] == "core/tested-by"
    logged = [json.loads(line) for line in Sidecars(db).capture_log.read_text().splitlines()]
    [cut] = [line for line in logged if line["event"] == "capture.overlong-cut"]
    [dropped] = [line for line in logged if line["event"] == "capture.overlong-dropped"]
    assert cut["predicate"] == "x/deploy-note" and cut["chars"] == len(sentences)
    assert cut["kept"] <= 250 and dropped["predicate"] == "core/tested-by"
    store = open_store(db, create=False)
    kept = [f["object_lit"] for f in store.all_facts() if f["predicate"] == "x/deploy-note"]
    store.close()
    assert kept and kept[0].endswith("first.") and len(kept[0]) <= 250
