"""Running the hook as the agent does: a real interpreter, a payload on stdin, a stand-in capture.

The stand-in (``CLAIMGRAPH_CAPTURE_CMD``) is a small Python script that records who it is —
pid, session, process group, argv, cwd, where its descriptors point, the store its
environment names — in ``started-<pid>.json``,
sleeps, then writes ``finished-<pid>.json``; so a test can see that the capture pass was started,
with what, and that it outlived whatever happened to the hook.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

PYTHON = sys.executable
HOOK = [PYTHON, "-m", "claimgraph.hooks"]
#: How long the hook takes is measured by bench/bench_hook.py, never asserted here: a loaded
#: machine would make such a test fail for no fault of the hook. What the tests check instead is
#: the behaviour that keeps the hook quick: it never waits for the capture pass it starts.

STAND_IN = r'''
import json, os, sys, time
marks = os.environ["STAND_IN_MARKS"]
me = {"pid": os.getpid(), "sid": os.getsid(0), "pgid": os.getpgid(0), "argv": sys.argv[1:],
      "cwd": os.getcwd(), "fds": {fd: os.readlink(f"/proc/self/fd/{fd}") for fd in ("0", "1", "2")},
      "db": os.environ.get("CLAIMGRAPH_DB")}
def mark(kind):
    path = os.path.join(marks, f"{kind}-{os.getpid()}.json")
    with open(path + ".tmp", "w") as out:
        json.dump(me, out)
    os.replace(path + ".tmp", path)
mark("started")
print("stand-in capture ran", flush=True)
time.sleep(float(os.environ.get("STAND_IN_SLEEP", "0")))
mark("finished")
'''


@dataclass
class HookRun:
    code: int
    out: bytes
    err: bytes
    seconds: float


@dataclass
class Hooks:
    """The world one hook test lives in: environment, store paths, stand-in capture."""

    home: Path
    env: dict[str, str]
    marks: Path
    transcript: Path
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def db(self) -> Path:
        return Path(self.env["CLAIMGRAPH_DB"])

    @property
    def spool_dir(self) -> Path:
        return Path(f"{self.db}.spool")

    @property
    def capture_log(self) -> Path:
        return Path(f"{self.db}.capture.log")

    def payload(self, **fields: Any) -> dict[str, Any]:
        base = {"session_id": "sess-1", "transcript_path": str(self.transcript),
                "cwd": str(self.home), "hook_event_name": "SessionEnd", "reason": "other"}
        base.update(fields)
        return {k: v for k, v in base.items() if v is not None}

    def run(self, stdin: bytes | dict[str, Any] | None, *argv: str,
            env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()) -> HookRun:
        data = json.dumps(stdin).encode() if isinstance(stdin, dict) else (stdin or b"")
        started = time.monotonic()
        done = subprocess.run([*prefix, *HOOK, *(argv or ("session-end",))], input=data,
                              env=env or self.env, capture_output=True, timeout=30)
        return HookRun(done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def log(self) -> list[dict[str, Any]]:
        if not self.capture_log.exists():
            return []
        return [json.loads(line) for line in self.capture_log.read_text().splitlines()
                if line.startswith("{")]

    def events(self) -> list[str]:
        return [line["event"] for line in self.log()]

    def spooled(self) -> list[Path]:
        return sorted(self.spool_dir.glob("*.json")) if self.spool_dir.is_dir() else []

    def children(self, kind: str = "started", count: int = 1, timeout: float = 30.0) -> list[dict]:
        """The stand-in runs that reached ``kind``, waiting until ``count`` of them have."""
        wait_for(lambda: len(self._marks(kind)) >= count, timeout)
        return self._marks(kind)

    def returned_before_capture_finished(self, run: HookRun) -> None:
        """The hook came back while the capture pass it started (sleeping for a minute) was
        still running: it detached the pass instead of waiting for it. Stops the pass."""
        assert not self._marks("finished"), "the hook waited for the capture pass"
        for child in self.children():
            try:
                os.kill(child["pid"], 9)
            except ProcessLookupError:
                pass

    def no_child_started(self, settle: float = 0.5) -> bool:
        time.sleep(settle)
        return not self._marks("started")

    def _marks(self, kind: str) -> list[dict]:
        return [json.loads(p.read_text()) for p in sorted(self.marks.glob(f"{kind}-*.json"))]


def wait_for(probe: Callable[[], Any], timeout: float, every: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


@pytest.fixture
def hooks(isolated_home: Path, tmp_path: Path) -> Hooks:
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "stand_in_capture.py"
    script.write_text(STAND_IN)
    transcript = tmp_path / "sess-1.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hello"}}\n')
    env = dict(os.environ, CLAIMGRAPH_CAPTURE_CMD=f"{PYTHON} {script}", STAND_IN_MARKS=str(marks))
    return Hooks(isolated_home, env, marks, transcript)


def without_dac_override() -> tuple[str, ...]:
    """A prefix that runs a command without root's power to ignore file permissions, so a test
    of "unreadable" or "unwritable" means the same for root (CI) as for a user."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux): cannot drop the capability "
                    "that makes every file readable and writable, so this case cannot be staged")
    return (setpriv, "--bounding-set", "-dac_override,-dac_read_search")
