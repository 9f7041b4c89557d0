"""``claimgraph capture`` run by a person at a terminal says what it learned in words; piped
(as the hooks run it) or with ``--json`` it prints the one JSON report line."""

from __future__ import annotations

import json
import os
import pty
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code" \
    / "subagent.jsonl"
CLAIMGRAPH = [sys.executable, "-m", "claimgraph"]


def on_a_terminal(*argv: str) -> tuple[int, str]:
    """Run claimgraph with a pseudo-terminal as its stdin, stdout and stderr."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(sys.executable, [*CLAIMGRAPH, *argv], dict(os.environ))
    out = b""
    try:
        while chunk := os.read(fd, 4096):
            out += chunk
    except OSError:  # the terminal closes with the child
        pass
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_a_person_reads_what_the_session_taught_not_log_lines(isolated_home):
    code, out = on_a_terminal("capture", str(FIXTURE), "--no-curate")
    assert code == 0, out
    assert "Captured session subagent (claude-code) into project" in out
    import re
    learned = re.search(r"Learned (\d+) facts \((\d+) new\):", out)
    assert learned and learned[1] == learned[2] and int(learned[1]) > 3, out
    shown = [line for line in out.splitlines() if line.startswith("  - spotter ")]
    assert 3 <= len(shown) <= 10, out
    assert '{"' not in out  # no JSON line, no log event echoed on the terminal
    code, out = on_a_terminal("capture", str(FIXTURE), "--no-curate", "--extractor", "builtin")
    assert code == 0 and "Nothing new" in out and "--extractor applies to what" in out


def test_json_on_a_terminal_and_one_json_line_when_piped(isolated_home):
    code, out = on_a_terminal("--json", "capture", str(FIXTURE), "--no-curate")
    report = [json.loads(line) for line in out.splitlines() if '"capture.report"' in line]
    assert code == 0 and report[0]["status"] == "captured"
    import subprocess
    done = subprocess.run([*CLAIMGRAPH, "capture", str(FIXTURE), "--no-curate"],
                          capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout)["status"] == "nothing-new"


def test_a_failure_on_a_terminal_is_a_sentence_and_a_hint(isolated_home, tmp_path):
    code, out = on_a_terminal("capture", str(tmp_path / "gone.jsonl"))
    assert code == 1
    assert out.startswith("claimgraph capture: no transcript at") and "→ check the path" in out


def test_a_person_reads_where_an_unplaced_session_s_facts_went(isolated_home, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("User: Always run the linter before you commit here.\n")
    code, out = on_a_terminal("capture", str(notes), "--format", "text", "--no-curate")
    assert code == 0, out
    assert "with no known project: its project facts were kept in unplaced:text-notes" in out
    assert "--cwd DIR" in out


def test_the_words_say_which_sentences_were_read_but_not_judged():
    from claimgraph.cli.capture_summary import _left_out
    lines = _left_out({"user_sentences": {"read": 9, "kept": 1},
                       "user_sentences_not_english": {"fr": 5, "ja": 2}})
    told = [line for line in lines if line.startswith("Read but not judged")]
    assert told == ["Read but not judged: 7 sentence(s) (5 in French, 2 in Japanese); the "
                    "sentence model reads English only, so nothing was learned from them."]
    assert not any("not judged" in line for line in _left_out(
        {"user_sentences": {"read": 9, "kept": 1}}))
