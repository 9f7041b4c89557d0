"""Log rotation by rename: a writer appending while the log rotates loses and splits nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from claimgraph.daemon.rotate import generation, reattach_std_streams, rotate_all, rotate_if_large

LINES = 3000
WRITER = f"""
import sys, time
for i in range({LINES}):
    sys.stdout.write('{{"event": "w", "n": %d, "pad": "%s"}}\\n' % (i, "x" * (i % 97)))
    sys.stdout.flush()
    if i % 50 == 0:
        time.sleep(0.001)
"""


def test_rotation_under_a_running_writer_loses_and_splits_no_line(tmp_path):
    """Two kinds of writer, as in production: a long-lived child whose stdout is the log opened
    O_APPEND (a capture, a curator: it follows its file into ``.1``, ``.2`` …), and writers that
    open the log for each line (the hook), which land in whatever file is current."""
    log = tmp_path / "claims.db.capture.log"
    with open(log, "ab") as out:
        writer = subprocess.Popen([sys.executable, "-c", WRITER], stdout=out)
    rotations = hook_lines = 0
    while writer.poll() is None or hook_lines < 200:
        append_line(log, '{"event": "h", "n": %d, "pad": ""}\n' % hook_lines)
        hook_lines += 1
        rotations += rotate_if_large(log, max_bytes=2000, keep=10_000)
    assert writer.returncode == 0 and rotations > 1
    files = [log, *(generation(log, n) for n in range(1, rotations + 1))]
    lines = [line for f in files for line in f.read_text().splitlines(keepends=True)]
    pattern = re.compile(r'\{"event": "([wh])", "n": (\d+), "pad": "x*"\}\n')
    matches = [pattern.fullmatch(line) for line in lines]
    assert all(matches), [line for line, m in zip(lines, matches) if not m][:3]
    numbers = {kind: sorted(int(m.group(2)) for m in matches if m.group(1) == kind)
               for kind in "wh"}
    assert numbers == {"w": list(range(LINES)), "h": list(range(hook_lines))}


def append_line(log: Path, line: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


def test_only_keep_generations_are_kept(tmp_path):
    log = tmp_path / "a.log"
    for round_ in range(5):
        log.write_text(f"round {round_}\n")
        assert rotate_all([log], max_bytes=1, keep=3) == ["a.log"]
    assert [generation(log, n).read_text() for n in (1, 2, 3)] == [
        "round 4\n", "round 3\n", "round 2\n"]
    assert not generation(log, 4).exists() and not log.exists()
    assert rotate_all([log, tmp_path / "missing.log"], max_bytes=1, keep=3) == []


def test_small_logs_stay(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("short\n")
    assert not rotate_if_large(log, max_bytes=1000, keep=3)
    assert log.read_text() == "short\n"


def test_our_stdout_follows_the_fresh_log_after_rotation(tmp_path):
    log = tmp_path / "d.log"
    script = ("import sys, os; from pathlib import Path; "
              "from claimgraph.daemon.rotate import rotate_if_large, reattach_std_streams; "
              "print('before', flush=True); p = Path(sys.argv[1]); "
              "rotate_if_large(p, 1, 3); print(reattach_std_streams(p), flush=True); "
              "print('after', flush=True)")
    with open(log, "ab") as out:
        subprocess.run([sys.executable, "-c", script, str(log)], stdout=out, check=True)
    assert generation(log, 1).read_text() == "before\n"
    assert log.read_text() == "True\nafter\n"
    assert not reattach_std_streams(tmp_path / "none.log")
