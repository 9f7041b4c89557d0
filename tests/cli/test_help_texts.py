"""--help and the human output say what the program does (each case was once stale)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimgraph.daemon import status_path
from claimgraph.daemon.settings import ENV_PREFIX, DaemonSettings


def help_text(cli, *argv: str) -> str:
    result = cli(*argv, "--help")
    assert result.code == 0
    return " ".join(result.out.split())


def test_hook_help_says_session_start_injects_context(cli):
    text = help_text(cli, "hook")
    assert "Prints nothing" not in text
    assert "session-start prints the compiled memory" in text and "additionalContext" in text


def test_curate_help_names_the_stages_it_runs(cli):
    text = help_text(cli, "curate")
    assert "to come" not in text and "consolidate, decay, audit" in text


def test_daemon_help_lists_every_setting_with_its_default(cli):
    text = help_text(cli, "daemon")
    assert "see claimgraph.daemon" not in text
    for name, value in DaemonSettings().__dict__.items():
        assert f"{ENV_PREFIX}{name.upper()} {value}" in text


def test_daemon_status_shows_job_details_as_words_not_python_reprs(cli, db: Path):
    db.parent.mkdir(parents=True, exist_ok=True)
    status_path(db).write_text(json.dumps({"started_at": 1, "heartbeat_at": "2026-03-01T10:00:00Z",
        "jobs": {"sweep": {"last_run": "2026-03-01T10:00:00.000Z", "result": "ok",
                           "detail": {"found": 2, "captured": 1, "failed": 0,
                                      "sessions": ["a", "b"]}},
                 "heartbeat": {"last_run": "2026-03-01T10:00:00.000Z", "result": "ok",
                               "detail": None}}}))
    out = cli("daemon", "status").out
    assert "{" not in out and "'" not in out
    assert "sweep     2026-03-01T10:00:00.000Z  ok  found=2 captured=1 failed=0 sessions=a,b" in out


@pytest.mark.parametrize("name, words", [("budget", "model calls"),
                                         ("context_budget_chars", "characters")])
def test_config_explains_each_setting(ok, name, words):
    lines = ok("config").out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(name + " "))
    assert words in lines[row + 1]


def test_the_main_commands_end_their_help_with_examples_that_parse(cli):
    import shlex
    from claimgraph.cli.examples import EXAMPLES
    from claimgraph.cli.parser import build_parser
    for command, lines in EXAMPLES.items():
        assert "examples:" in cli(command, "--help").out, command
        for line in lines:
            words = shlex.split(line.split(" # ")[0].split(" > ")[0], comments=True)
            if words[0] == "eval":
                continue
            build_parser().parse_args(words[1:])  # a usage error would raise


def test_the_global_options_stand_apart_in_every_command_s_help(cli):
    assert "global options (before or after the command):" in cli("search", "--help").out
