"""What the viewer's tests share besides the store: the test token and a served process."""

from __future__ import annotations

import subprocess
import sys

TOKEN = "test-token-0123456789abcdef"


class Served:
    """A real ``claimgraph serve`` process: its URL (with the token), its pid, what it printed."""

    def __init__(self, env: dict[str, str], *argv: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "claimgraph", "serve", *argv],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, stdin=subprocess.DEVNULL)
        first = self.proc.stdout.readline()
        if not first.startswith("claimgraph viewer: "):
            self.stop()
            raise AssertionError(f"serve printed {first!r}; stderr: {self.proc.stderr.read()}")
        self.url = first.split(": ", 1)[1].strip()
        self.origin = self.url.rsplit("/", 2)[0]
        self.token = self.url.rstrip("/").rsplit("/", 1)[1]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
