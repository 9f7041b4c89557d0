"""Real Codex CLI and Gemini CLI sessions in a sandbox (and Claude Code beside them).

``AgentsWorld`` is ``harness.World`` (temp HOME with our hooks installed by our installer, temp
git project, temp store, a ``bin/`` whose only ``python`` is this venv's) with the two other
clients: each is pointed at its loopback fake (``fake_responses_api``, ``fake_gemini_api``)
through its own config in the temp HOME, as measured (docs/agents.md):
- Codex: ``~/.codex/config.toml`` names a custom provider (``wire_api = "responses"``) at the
  fake; ``codex exec --dangerously-bypass-approvals-and-sandbox`` runs tools without a
  sandbox prompt; ``--json`` prints ``thread.started`` with the session id.
- Gemini: ``~/.gemini/settings.json`` selects API-key auth, turns off update checks and usage
  statistics and fixes the model; ``GOOGLE_GEMINI_BASE_URL`` points at the fake;
  ``gemini --yolo --skip-trust -p`` runs headless in an untrusted temp folder.
Every client run is bounded by a timeout that kills its whole process group (Codex never exits
when its endpoint is down); the environment is built here, nothing inherited.

``run_gemini_interactive`` drives the TUI on a pseudo-terminal (``pty``: no tmux needed): it
waits for the scripted answer to show, types ``/quit`` and Enter, and waits for the exit --
the path on which Gemini 0.61 fires SessionEnd three times.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_gemini_api import FakeGeminiAPI
from fake_responses_api import FakeResponsesAPI
from harness import PYTHON, Run, World, tail

CLIENT_TIMEOUT = 120
#: A model slug in Codex's catalog: Codex then offers apply_patch (an unknown slug gets only
#: exec_command). The provider is our fake, so nothing is ever sent to OpenAI.
CODEX_MODEL = "gpt-5.5"
GEMINI_SETTINGS = {"security": {"auth": {"selectedType": "gemini-api-key"}},
                   "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                   "privacy": {"usageStatisticsEnabled": False},
                   "model": {"name": "gemini-2.5-flash"}}


@dataclass
class AgentsWorld(World):
    codex: Path | None = None
    gemini: Path | None = None
    fakes: dict[str, Any] = field(default_factory=dict)

    # --- environment and configuration -----------------------------------------------------

    def env(self, with_codex_on_path: bool = True) -> dict[str, str]:
        env = super().env()
        dirs = [str(b.parent) for b in (self.codex if with_codex_on_path else None,
                                        self.gemini) if b]
        env["PATH"] = ":".join([*dirs, env["PATH"]])
        env["FAKE_API_KEY"] = "dummy"  # sent to the Responses fake as a bearer token
        if "gemini" in self.fakes:
            env.update(GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=self.fakes["gemini"].base_url)
        return env

    @contextmanager
    def serving_codex(self, scripts: dict[str, list[Any]]) -> Iterator[FakeResponsesAPI]:
        with FakeResponsesAPI(scripts) as api:
            self.fakes["codex"] = api
            self.write_codex_config(api.base_url)
            yield api

    @contextmanager
    def serving_gemini(self, scripts: dict[str, list[Any]]) -> Iterator[FakeGeminiAPI]:
        with FakeGeminiAPI(scripts) as api:
            self.fakes["gemini"] = api
            self.write_gemini_settings()
            yield api

    def write_codex_config(self, base_url: str) -> None:
        """The provider part of config.toml; trust entries Codex adds later stay below it."""
        path = self.home / ".codex" / "config.toml"
        path.parent.mkdir(exist_ok=True)
        kept = path.read_text() if path.exists() else ""
        kept = kept[kept.index("[hooks"):] if "[hooks" in kept else ""
        path.write_text(f'model = "{CODEX_MODEL}"\nmodel_provider = "fake"\n\n'
                        f'[model_providers.fake]\nname = "Fake"\nbase_url = "{base_url}"\n'
                        'wire_api = "responses"\nenv_key = "FAKE_API_KEY"\n'
                        'request_max_retries = 0\nstream_max_retries = 0\n\n' + kept)

    def write_gemini_settings(self) -> None:
        path = self.home / ".gemini" / "settings.json"
        path.parent.mkdir(exist_ok=True)
        current = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**current, **GEMINI_SETTINGS}, indent=2) + "\n")

    def install_agent(self, agent: str, *extra: str,
                      codex_on_path: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(PYTHON), "-m", "claimgraph", "install", "--agent", agent, *extra]
        done = subprocess.run(argv, env=self.env(codex_on_path), cwd=self.project, text=True,
                              capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
        self.notes.append(f"install --agent {agent} exit {done.returncode}\n"
                          f"stdout: {done.stdout}\nstderr: {done.stderr}")
        return done

    def claimgraph(self, *argv: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(PYTHON), "-m", "claimgraph", *argv], env=self.env(),
                              cwd=self.project, text=True, capture_output=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        self.notes.append(f"claimgraph {' '.join(argv)} exit {done.returncode}\n"
                          f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-2000:]}")
        return done

    # --- running the clients ---------------------------------------------------------------

    def run_codex(self, prompt: str) -> Run:
        return self._run([str(self.codex), "exec", "--dangerously-bypass-approvals-and-sandbox",
                          "--skip-git-repo-check", "--json", prompt], "codex")

    def run_gemini(self, prompt: str) -> Run:
        return self._run([str(self.gemini), "--yolo", "--skip-trust", "--output-format", "json",
                          "-p", prompt], "gemini")

    def run_gemini_interactive(self, prompt: str, answer: str) -> Run:
        """The TUI with ``-i PROMPT`` on a pty: ``answer`` on screen, then ``/quit``."""
        argv = [str(self.gemini), "--yolo", "--skip-trust", "-i", prompt]
        env = {**self.env(), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        started = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the client, or die trying
            try:
                os.chdir(self.project)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        screen = _Screen(fd)
        try:
            shown = screen.wait_for(answer.encode(), CLIENT_TIMEOUT)
            screen.pump(1.0)  # let the TUI settle before typing
            for key in "/quit":
                os.write(fd, key.encode())
                screen.pump(0.05)
            screen.pump(0.5)
            os.write(fd, b"\r")
            code = screen.wait_exit(pid, 60)
        finally:
            _kill_quietly(pid)
            os.close(fd)
        note = "" if shown else f"\n[harness] {answer!r} never appeared"
        run = Run(argv, code, screen.text()[-4000:], note, time.monotonic() - started)
        self.runs.append(run)
        print(f"[e2e] gemini TUI run {len(self.runs)}: exit {code} in {run.seconds:.1f} s")
        return run

    def _run(self, argv: list[str], name: str) -> Run:
        started = time.monotonic()
        child = subprocess.Popen(argv, cwd=self.project, env=self.env(), text=True,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = child.communicate(timeout=CLIENT_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            out, err = child.communicate()
            err += f"\n[harness] killed after {CLIENT_TIMEOUT} s"
        run = Run(argv, child.returncode, out, err, time.monotonic() - started)
        self.runs.append(run)
        print(f"[e2e] {name} run {len(self.runs)}: exit {run.returncode} in {run.seconds:.1f} s")
        return run

    # --- what the clients left behind ------------------------------------------------------

    def codex_session(self, run: Run) -> str:
        """The thread id ``codex exec --json`` announced (the hooks' session_id)."""
        for line in run.stdout.splitlines():
            if '"thread.started"' in line:
                return json.loads(line)["thread_id"]
        raise AssertionError(f"codex printed no thread.started: {run.stdout[-1000:]!r}")

    def codex_transcript(self, session: str) -> Path:
        found = sorted((self.home / ".codex" / "sessions").glob(f"**/rollout-*-{session}.jsonl"))
        assert len(found) == 1, f"rollouts for {session}: {found}"
        return found[0]

    def gemini_session(self, run: Run) -> str:
        return json.loads(run.stdout[run.stdout.index("{"):])["session_id"]

    def gemini_transcript(self, session: str) -> Path:
        chats = self.home / ".gemini" / "tmp"
        found = sorted(chats.glob(f"*/chats/session-*-{session[:8]}.jsonl"))
        assert len(found) == 1, f"Gemini sessions for {session}: {found}"
        return found[0]

    def diagnostics(self) -> str:
        parts = [super().diagnostics()]
        for name, api in self.fakes.items():
            parts.append(f"--- {name} fake requests\n" + api.requests.render(300))
        for path in (self.home / ".codex" / "hooks.json", self.home / ".codex" / "config.toml",
                     self.home / ".gemini" / "settings.json"):
            parts.append(f"--- {path}\n" + tail(path, 4000))
        return "\n".join(parts)


class _Screen:
    """What a program on a pty printed, read with bounded waits."""

    def __init__(self, fd: int) -> None:
        self.fd, self.data, self.open = fd, b"", True

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.open and time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the other side closed
                chunk = b""
            self.open = bool(chunk)
            self.data += chunk

    def wait_for(self, wanted: bytes, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while wanted not in self.data and self.open and time.monotonic() < end:
            self.pump(0.5)
        return wanted in self.data

    def wait_exit(self, pid: int, seconds: float) -> int | None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.2)
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
        return None

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def _kill_quietly(pid: int) -> None:
    """End the TUI's whole process group: ``pty.fork`` made the child a session leader, so
    its group is its pid, and anything it started (a relaunched node) goes with it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
