"""``claimgraph install --agent codex|gemini``: each agent's file, events, units and shapes, the
same safety rules as Claude Code's (marker, foreign entries kept, one backup, --dry-run diff,
exact uninstall), and the Codex trust plan. Codex itself is not run here (it is absent from
PATH on purpose: that case must still write the file and say what to do); the trust through
the real ``codex app-server`` is tested in tests/e2e/test_codex_trust.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from claimgraph.cli.main import main
from claimgraph.health.status import gather
from claimgraph.hooks import codex_trust
from claimgraph.hooks import install as installer

PY = sys.executable
FOREIGN = {"type": "command", "command": "/opt/notify.sh", "timeout": 2}


@pytest.fixture
def cli(capsys, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    empty = tmp_path / "no-codex-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no codex to ask: the honest "cannot trust" case

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


@pytest.fixture
def codex_file(isolated_home: Path) -> Path:
    (isolated_home / ".codex").mkdir()
    return isolated_home / ".codex" / "hooks.json"


@pytest.fixture
def gemini_file(isolated_home: Path) -> Path:
    (isolated_home / ".gemini").mkdir()
    return isolated_home / ".gemini" / "settings.json"


def command(event: str, agent: str) -> str:
    return f"{PY} -m claimgraph.hooks {event} --agent {agent} # claimgraph-hook:v1"


def test_codex_gets_session_end_session_start_and_stop_in_seconds_without_a_matcher(
        cli, codex_file):
    code, out, _ = cli("install", "--agent", "codex")
    assert code == 0 and out.startswith(
        f"installed claimgraph hooks (SessionEnd, SessionStart, Stop) in {codex_file}")
    hooks = json.loads(codex_file.read_text())["hooks"]
    assert hooks == {
        "SessionEnd": [{"hooks": [{"type": "command", "command": command("session-end", "codex"),
                                   "timeout": 3}]}],
        "SessionStart": [{"hooks": [{"type": "command",
                                     "command": command("session-start", "codex"),
                                     "timeout": 10}]}],
        "Stop": [{"hooks": [{"type": "command", "command": command("stop", "codex"),
                             "timeout": 5}]}]}


def test_codex_without_codex_to_ask_is_written_but_said_to_be_untrusted(cli, codex_file):
    code, out, _ = cli("install", "--agent", "codex")
    assert code == 0 and codex_file.exists()
    assert "NOT trusted yet: cannot ask Codex (codex is not on PATH)" in out
    assert "type /hooks" in out and "--codex PATH" in out


def test_status_says_codex_hooks_without_a_trust_entry_are_untrusted(cli, codex_file,
                                                                      isolated_home: Path):
    cli("install", "--agent", "codex")
    (isolated_home / ".codex" / "config.toml").write_text('model = "x"\n')
    report = gather(Path(f"{isolated_home}/store.db"), dict(os.environ))
    trust = report["hooks"]["codex"]["trust"]
    assert trust["status"] == "untrusted" and len(trust["missing"]) == 3
    assert any("Codex's claimgraph hooks are untrusted" in item["problem"]
               for item in report["needs_attention"])


def test_status_cannot_verify_trust_entries_without_codex_but_sees_them(cli, codex_file,
                                                                         isolated_home: Path):
    cli("install", "--agent", "codex")
    keys = [f"{codex_file}:{e}:0:0" for e in ("session_end", "session_start", "stop")]
    (isolated_home / ".codex" / "config.toml").write_text("".join(
        f'[hooks.state."{k}"]\ntrusted_hash = "sha256:00"\n' for k in keys))
    trust = gather(Path(f"{isolated_home}/store.db"), dict(os.environ))["hooks"]["codex"]["trust"]
    assert trust["status"] == "unverified" and trust["missing"] == []


def test_gemini_gets_named_user_level_hooks_in_milliseconds_matching_everything(
        cli, gemini_file):
    gemini_file.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}},
                                       "hooks": {"SessionEnd": [{"matcher": "*",
                                                                 "hooks": [FOREIGN]}]}}))
    code, out, _ = cli("install", "--agent", "gemini")
    assert code == 0 and "(SessionEnd, SessionStart)" in out
    data = json.loads(gemini_file.read_text())
    assert data["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert data["hooks"]["SessionEnd"] == [
        {"matcher": "*", "hooks": [FOREIGN]},
        {"matcher": "*", "hooks": [{"name": "claimgraph-session-end", "type": "command",
                                    "command": command("session-end", "gemini"),
                                    "timeout": 5000}]}]
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] == 10000


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_reinstall_is_a_no_op_and_uninstall_restores_the_file_exactly(cli, agent, codex_file,
                                                                      gemini_file):
    path = codex_file if agent == "codex" else gemini_file
    original = json.dumps({"hooks": {"Stop": [{"hooks": [FOREIGN]}]}, "other": [1, 2]}) + "\n"
    path.write_text(original)
    cli("install", "--agent", agent)
    installed = path.read_text()
    code, out, _ = cli("install", "--agent", agent)
    assert out.startswith("already installed") and path.read_text() == installed
    assert Path(f"{path}.claimgraph-backup").read_text() == original
    code, out, _ = cli("uninstall", "--agent", agent)
    assert code == 0 and out.startswith("removed claimgraph hooks")
    assert json.loads(path.read_text()) == json.loads(original)


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_dry_run_shows_the_diff_and_writes_nothing(cli, agent, codex_file, gemini_file):
    path = codex_file if agent == "codex" else gemini_file
    code, out, _ = cli("install", "--agent", agent, "--dry-run")
    assert code == 0 and not path.exists()
    assert f"+++ {path}" in out and "claimgraph-hook:v1" in out
    assert "dry run, nothing written" in out


@pytest.mark.parametrize("flag", [["--scope", "project"], ["--coach"], ["--mcp"]])
def test_claude_code_only_options_are_refused_for_other_agents(cli, flag, codex_file, capsys):
    code, _, err = cli("install", "--agent", "codex", *flag)
    assert code != 0 and "is for Claude Code only" in err and not codex_file.exists()


def test_a_gemini_settings_file_with_comments_is_left_alone(cli, gemini_file):
    text = '{\n  // my settings\n  "theme": "dark"\n}\n'
    gemini_file.write_text(text)
    code, _, err = cli("install", "--agent", "gemini")
    assert code != 0 and "is not valid JSON" in err and gemini_file.read_text() == text


def test_status_reports_gemini_hooks_turned_off(cli, gemini_file, isolated_home: Path):
    cli("install", "--agent", "gemini")
    data = json.loads(gemini_file.read_text())
    gemini_file.write_text(json.dumps({**data, "hooksConfig": {"enabled": False}}))
    report = gather(Path(f"{isolated_home}/store.db"), dict(os.environ))
    assert report["hooks"]["gemini"]["installed"] and report["hooks"]["gemini"]["disabled"]
    assert any("Gemini's hooks are turned off" in i["problem"] for i in report["needs_attention"])


# --- the trust plan, on listings shaped as `codex app-server` returns them -----------------------

def hook(key: str, command: str, status: str, digest: str) -> dict:
    return {"key": key, "command": command, "trustStatus": status, "currentHash": digest,
            "sourcePath": "/h/hooks.json", "eventName": "stop"}


OURS = installer.hook_command(PY, "stop", "codex")


def test_only_our_untrusted_hooks_are_trusted():
    after = [hook("f:stop:0:0", "/opt/foreign", "untrusted", "h1"),
             hook("f:stop:1:0", OURS, "untrusted", "h2")]
    assert codex_trust.plan([], after) == ({"f:stop:1:0": "h2"}, [])


def test_a_foreign_hook_our_removal_moved_keeps_its_trust_under_its_new_key():
    before = [hook("f:stop:0:0", OURS, "trusted", "h2"),
              hook("f:stop:1:0", "/opt/foreign", "trusted", "h1")]
    after = [hook("f:stop:0:0", "/opt/foreign", "modified", "h1")]
    assert codex_trust.plan(before, after) == ({"f:stop:0:0": "h1"}, ["f:stop:1:0"])


def test_a_foreign_hook_the_user_never_trusted_stays_untrusted():
    before = [hook("f:stop:0:0", OURS, "trusted", "h2"),
              hook("f:stop:1:0", "/opt/foreign", "untrusted", "h1")]
    after = [hook("f:stop:0:0", "/opt/foreign", "modified", "h1")]
    assert codex_trust.plan(before, after) == ({}, ["f:stop:0:0"])


def test_uninstall_forgets_exactly_the_keys_that_held_ours():
    before = [hook("f:stop:0:0", "/opt/foreign", "trusted", "h1"),
              hook("f:stop:1:0", OURS, "trusted", "h2")]
    after = [hook("f:stop:0:0", "/opt/foreign", "trusted", "h1")]
    assert codex_trust.plan(before, after) == ({}, ["f:stop:1:0"])


def test_an_edited_hook_of_ours_is_trusted_again():
    before = [hook("f:stop:0:0", OURS, "trusted", "h2")]
    after = [hook("f:stop:0:0", OURS + " ", "modified", "h3")]
    assert codex_trust.plan(before, after) == ({"f:stop:0:0": "h3"}, [])
