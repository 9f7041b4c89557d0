"""``claimgraph install`` / ``uninstall``: each rule of the pre-commit-style installer contract
(marker ownership, foreign entries untouched, one backup, atomic write, refusal on unparsable
JSON, absolute interpreter baked in) has a test named after it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.cli.main import main
from claimgraph.hooks import install as installer
from claimgraph.hooks import settings_file

PY = sys.executable
FOREIGN_END = {"type": "command", "command": "other-tool session-end", "timeout": 5}
FOREIGN_START = {"type": "command", "command": "/opt/x/bin/remind"}
FOREIGN_SETTINGS = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "SessionEnd": [{"matcher": "", "hooks": [FOREIGN_END]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}],
        "Stop": [],
    },
    "model": "opus",
}


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    path = isolated_home / ".claude"
    path.mkdir()
    return path


@pytest.fixture
def settings(claude_dir: Path) -> Path:
    return claude_dir / "settings.json"


@pytest.fixture
def cli(capsys):
    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


def write(path: Path, data: object, indent: int | None = 2) -> str:
    text = json.dumps(data, indent=indent) + "\n"
    path.write_text(text)
    return text


def ours(data: dict) -> list[dict]:
    return [h for groups in data.get("hooks", {}).values() for g in groups for h in g["hooks"]
            if installer.is_ours(h)]


def foreign_part(data: dict) -> dict:
    """``data`` with every handler of ours (and groups holding only ours) taken out."""
    stripped = json.loads(json.dumps(data))
    for event, groups in stripped.get("hooks", {}).items():
        stripped["hooks"][event] = [
            {**g, "hooks": [h for h in g["hooks"] if not installer.is_ours(h)]}
            for g in groups if any(not installer.is_ours(h) for h in g["hooks"])]
    return stripped


# --- what is installed ------------------------------------------------------------------------

def test_install_adds_session_end_and_session_start_with_an_explicit_timeout_in_seconds(
        cli, settings):
    code, out, _ = cli("install", "--agent", "claude-code")
    assert code == 0 and out.startswith("installed claimgraph hooks (SessionEnd, SessionStart)")
    hooks = json.loads(settings.read_text())["hooks"]
    for event, arg in (("SessionEnd", "session-end"), ("SessionStart", "session-start")):
        assert hooks[event] == [{"matcher": "", "hooks": [{
            "type": "command", "command": f"{PY} -m claimgraph.hooks {arg} # claimgraph-hook:v1",
            "timeout": 10}]}]


def test_the_command_bakes_in_the_absolute_interpreter_quoted_for_the_shell():
    command = installer.hook_command("/opt/my tools/bin/python", "session-end")
    assert command == ("'/opt/my tools/bin/python' -m claimgraph.hooks session-end"
                       " # claimgraph-hook:v1")


def test_the_installed_command_runs_from_a_shell_with_an_empty_path(cli, settings, tmp_path):
    cli("install")
    command = json.loads(settings.read_text())["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    transcript = tmp_path / "s-9.jsonl"
    transcript.write_text("{}\n")
    env = {"HOME": os.environ["HOME"], "CLAIMGRAPH_DB": os.environ["CLAIMGRAPH_DB"],
           "PATH": "", "CLAIMGRAPH_CAPTURE_CMD": "/bin/true"}
    done = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, timeout=30,
                          input=json.dumps({"session_id": "s-9",
                                            "transcript_path": str(transcript)}).encode())
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert Path(os.environ["CLAIMGRAPH_DB"] + ".spool/claude-code-s-9.json").exists()


def test_an_interpreter_path_that_is_not_absolute_is_refused(settings):
    with pytest.raises(installer.ClaimgraphError) as refused:
        installer.install(settings, python="python3")
    assert refused.value.type == "no-interpreter"
    assert not settings.exists()


def test_an_interpreter_that_cannot_import_claimgraph_on_its_own_is_refused(settings, tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'claimgraph'\" >&2\n"
                      "exit 1\n")
    python.chmod(0o755)
    with pytest.raises(installer.ClaimgraphError) as refused:
        installer.install(settings, python=str(python))
    assert refused.value.type == "interpreter-cannot-run-hook"
    assert "No module named 'claimgraph'" in refused.value.message
    assert not settings.exists()


# --- ownership and foreign entries ------------------------------------------------------------

def test_foreign_entries_and_settings_are_never_touched_by_install(cli, settings):
    write(settings, FOREIGN_SETTINGS)
    cli("install")
    after = json.loads(settings.read_text())
    assert foreign_part(after) == {**FOREIGN_SETTINGS,
                                   "hooks": {**FOREIGN_SETTINGS["hooks"], "SessionStart": []}}
    assert after["hooks"]["SessionEnd"][0] == {"matcher": "", "hooks": [FOREIGN_END]}
    assert len(ours(after)) == 2


def test_a_foreign_handler_sharing_a_group_with_ours_stays_where_it_is():
    before = {"hooks": {"SessionStart": [{"matcher": "", "hooks": [
        FOREIGN_START, {"type": "command", "command": "old -m claimgraph.hooks session-start "
                        "# claimgraph-hook:v1", "timeout": 10}]}]}}
    after = installer.with_our_hooks(before, installer.our_handlers(PY), Path("s.json"))
    group = after["hooks"]["SessionStart"][0]
    assert group["hooks"][0] == FOREIGN_START
    assert group["hooks"][1]["command"].startswith(PY)
    removed = installer.without_our_hooks(after)
    assert removed["hooks"]["SessionStart"] == [{"matcher": "", "hooks": [FOREIGN_START]}]


def test_ownership_is_proven_by_the_marker_not_by_the_command_path():
    lookalike = {"type": "command", "command": f"{PY} -m claimgraph.hooks session-end"}
    assert not installer.is_ours(lookalike)
    after = installer.without_our_hooks({"hooks": {"SessionEnd": [{"hooks": [lookalike]}]}})
    assert after["hooks"]["SessionEnd"][0]["hooks"] == [lookalike]


def test_reinstalling_is_a_no_op_that_does_not_even_rewrite_the_file(cli, settings):
    write(settings, FOREIGN_SETTINGS)
    cli("install")
    before = (settings.read_bytes(), settings.stat().st_mtime_ns, settings.stat().st_ino)
    code, out, _ = cli("install")
    assert code == 0 and out.startswith("already installed")
    assert (settings.read_bytes(), settings.stat().st_mtime_ns, settings.stat().st_ino) == before


def test_an_entry_with_a_prior_marker_is_upgraded_in_place(cli, settings, monkeypatch):
    monkeypatch.setattr(installer, "PRIOR_MARKERS", ("claimgraph-hook:v0",))
    old = {"type": "command", "command": "/old/venv/bin/python -m claimgraph.hooks session-end "
           "# claimgraph-hook:v0", "timeout": 3}
    write(settings, {"hooks": {"SessionEnd": [{"matcher": "", "hooks": [old, FOREIGN_END]}]}})
    code, out, _ = cli("install")
    assert code == 0 and out.startswith("updated claimgraph hooks")
    group = json.loads(settings.read_text())["hooks"]["SessionEnd"]
    assert len(group) == 1 and group[0]["hooks"][1] == FOREIGN_END
    assert group[0]["hooks"][0]["command"] == installer.hook_command(PY, "session-end")
    assert group[0]["hooks"][0]["timeout"] == 10


def test_duplicate_entries_of_ours_collapse_to_one():
    mine = installer.our_handlers("/old/python")["SessionEnd"]
    before = {"hooks": {"SessionEnd": [{"matcher": "", "hooks": [mine]},
                                       {"matcher": "", "hooks": [mine, FOREIGN_END]}]}}
    after = installer.with_our_hooks(before, installer.our_handlers(PY), Path("s.json"))
    assert after["hooks"]["SessionEnd"] == [
        {"matcher": "", "hooks": [installer.our_handlers(PY)["SessionEnd"]]},
        {"matcher": "", "hooks": [FOREIGN_END]}]


# --- backup, atomic write, refusal ------------------------------------------------------------

def test_the_original_is_backed_up_once_and_the_backup_never_overwritten(cli, settings):
    original = write(settings, FOREIGN_SETTINGS)
    cli("install")
    backup = settings.with_name("settings.json.claimgraph-backup")
    assert backup.read_text() == original
    installed = json.loads(settings.read_text())
    write(settings, {**installed, "model": "sonnet"})  # the user edits the file meanwhile
    cli("install")
    assert backup.read_text() == original
    cli("uninstall")  # the file now differs from the backup: the backup stays
    assert backup.read_text() == original


def test_an_uninstall_that_restores_the_original_removes_the_backup_too(cli, settings):
    write(settings, FOREIGN_SETTINGS)
    cli("install")
    backup = settings.with_name("settings.json.claimgraph-backup")
    assert backup.exists()
    cli("uninstall")
    assert json.loads(settings.read_text()) == FOREIGN_SETTINGS and not backup.exists()


def test_no_backup_is_made_when_there_was_no_file_to_back_up(cli, settings):
    cli("install")
    assert settings.exists()
    assert not settings.with_name("settings.json.claimgraph-backup").exists()


def test_the_write_is_atomic_and_a_failed_write_leaves_the_original_intact(
        cli, settings, monkeypatch):
    original = write(settings, FOREIGN_SETTINGS)
    settings.with_name("settings.json.claimgraph-backup").write_text(original)

    def crash(*_args, **_kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", crash)
    code, _, err = cli("install")
    assert code == 1 and len(err.splitlines()) == 1
    assert "No space left on device" in err and "the file was left as it was" in err
    assert settings.read_text() == original
    assert sorted(p.name for p in settings.parent.iterdir()) == [
        "settings.json", "settings.json.claimgraph-backup"]


def test_the_files_mode_is_kept(cli, settings):
    write(settings, FOREIGN_SETTINGS)
    settings.chmod(0o640)
    cli("install")
    assert settings.stat().st_mode & 0o777 == 0o640


def test_the_files_indentation_is_kept(cli, settings):
    write(settings, FOREIGN_SETTINGS, indent=4)
    cli("install")
    assert settings.read_text().splitlines()[1].startswith('    "permissions"')


def test_a_symlinked_settings_file_is_written_through_its_link(cli, settings, tmp_path):
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    write(real, FOREIGN_SETTINGS)
    settings.symlink_to(real)
    cli("install")
    assert settings.is_symlink()
    assert len(ours(json.loads(real.read_text()))) == 2


def test_a_file_that_is_not_json_is_refused_with_a_hint_and_left_byte_for_byte(cli, settings):
    settings.write_text('{"hooks": {,}}  // my comment\n')
    code, out, err = cli("install")
    assert (code, out) == (1, "")
    [line] = err.splitlines()
    assert "is not valid JSON" in line
    assert "claimgraph never rewrites a file it cannot parse" in line
    assert settings.read_text() == '{"hooks": {,}}  // my comment\n'
    assert not settings.with_name("settings.json.claimgraph-backup").exists()


@pytest.mark.parametrize("data, says", [
    ([1, 2], "top level is a JSON list"),
    ({"hooks": []}, '"hooks" is not an object'),
    ({"hooks": {"SessionEnd": {"matcher": ""}}}, '"hooks.SessionEnd" is not a list'),
])
def test_a_settings_file_of_an_unexpected_shape_is_refused(cli, settings, data, says):
    text = write(settings, data)
    code, _, err = cli("install")
    assert code == 1 and says in err
    assert settings.read_text() == text


def test_an_empty_settings_file_counts_as_an_empty_object(cli, settings):
    settings.write_text("\n")
    assert cli("install")[0] == 0
    assert len(ours(json.loads(settings.read_text()))) == 2


# --- dry run ----------------------------------------------------------------------------------

def test_dry_run_prints_the_diff_and_writes_nothing(cli, settings):
    text = write(settings, FOREIGN_SETTINGS)
    code, out, _ = cli("install", "--dry-run")
    assert code == 0
    assert f"--- {settings}" in out and f"+++ {settings}" in out
    assert '+            "command": "' + PY + ' -m claimgraph.hooks session-end' in out
    assert out.splitlines()[-1].startswith("dry run, nothing written: would install")
    assert settings.read_text() == text
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


def test_dry_run_of_uninstall_shows_the_removal_and_writes_nothing(cli, settings):
    cli("install")
    text = settings.read_text()
    code, out, _ = cli("uninstall", "--dry-run")
    assert code == 0 and "-            \"command\"" in out
    assert settings.read_text() == text


# --- uninstall --------------------------------------------------------------------------------

def test_uninstall_removes_only_our_entries_and_the_containers_it_emptied(cli, settings):
    write(settings, FOREIGN_SETTINGS)
    cli("install")
    code, out, _ = cli("uninstall")
    assert code == 0 and out.startswith("removed claimgraph hooks")
    assert json.loads(settings.read_text()) == FOREIGN_SETTINGS  # "Stop": [] was there before


def test_uninstall_when_nothing_is_installed_changes_nothing(cli, settings):
    text = write(settings, FOREIGN_SETTINGS)
    code, out, _ = cli("uninstall")
    assert code == 0 and out.startswith("not installed")
    assert settings.read_text() == text


def test_uninstall_deletes_a_file_that_install_created_and_that_holds_nothing_else(cli, settings):
    cli("install")
    cli("uninstall")
    assert not settings.exists()


def test_uninstall_keeps_a_file_that_existed_before_even_if_it_ends_up_empty(cli, settings):
    write(settings, {})
    cli("install")
    cli("uninstall")
    assert json.loads(settings.read_text()) == {}


# --- where ------------------------------------------------------------------------------------

def test_user_scope_follows_claude_config_dir(cli, tmp_path, monkeypatch):
    moved = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    cli("install", "--scope", "user")
    assert len(ours(json.loads((moved / "settings.json").read_text()))) == 2


def test_project_scope_writes_the_projects_own_settings(cli, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    code, out, _ = cli("install", "--scope", "project", "--project-dir", str(project))
    assert code == 0
    assert len(ours(json.loads((project / ".claude" / "settings.json").read_text()))) == 2
    assert f"--project-dir {project}" in out  # the undo hint names the same file


def test_a_project_dir_that_does_not_exist_is_refused(cli, tmp_path):
    code, _, err = cli("install", "--scope", "project", "--project-dir", str(tmp_path / "no"))
    assert code == 1 and "does not exist" in err


def test_project_dir_with_user_scope_is_refused(cli, tmp_path):
    code, _, err = cli("install", "--scope", "user", "--project-dir", str(tmp_path))
    assert code == 1 and "--project-dir only applies to --scope project" in err


def test_json_output_says_what_happened(cli, settings):
    code, out, _ = cli("install", "--json")
    report = json.loads(out)
    assert (code, report["status"], report["settings_file"]) == (0, "installed", str(settings))
    assert json.loads(cli("install", "--json")[1])["status"] == "already-installed"


def test_settings_file_indentation_detection():
    assert settings_file.indent_of('{\n    "a": 1\n}') == 4
    assert settings_file.indent_of('{\n\t"a": 1\n}') == "\t"
    assert settings_file.indent_of('{"a": 1}') == 2
