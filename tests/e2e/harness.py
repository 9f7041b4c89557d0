"""One real Claude Code session in a sandbox, and what claimgraph made of it.

A ``World`` is a temp HOME (hooks registered there by our own installer), a temp git project,
a temp store and a ``bin/`` whose only ``python`` runs this venv. ``claude`` gets a clean
environment built here (nothing inherited but what is listed), so the hooks must stand on the
absolute paths the installer wrote. Every wait is bounded; every failure raised inside
``world.explained()`` carries the fake API's request log, the claude runs, capture.log,
curate.log and the store's episodes and facts.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psutil

from fake_messages_api import FakeMessagesAPI

PYTHON = Path(sys.executable)
CLAUDE_TIMEOUT = 120
CAPTURE_WAIT = 60
PROCESS_WAIT = 30
SUCCESS = ("captured", "ok")
TRANSCRIPT_CITE = re.compile(r"^(?P<source>\S*?)#L(?P<line>\d+):\s+(?P<quote>.*)$", re.S)
FILE_CITE = re.compile(r"^(?P<file>\S+?):\s+(?P<quote>.*)$", re.S)
EPISODE_REF = re.compile(r"^(?P<agent>[^:]+):(?P<session>.+)@(?P<start>\d+)-(?P<end>\d+)$")
T = TypeVar("T")


@dataclass
class Run:
    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def result(self) -> dict[str, Any]:
        """The `--output-format json` result object (the last JSON line on stdout)."""
        for line in reversed(self.stdout.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError(f"claude printed no JSON result: {self.stdout[-500:]!r}")

    def brief(self) -> str:
        """The result fields worth reading in a failure report, or the raw stdout tail."""
        try:
            result = self.result
        except (AssertionError, ValueError):
            return self.stdout[-2000:] or "(no stdout)"
        keys = ("subtype", "is_error", "num_turns", "session_id", "stop_reason", "result",
                "api_error_status", "permission_denials")
        return json.dumps({key: result.get(key) for key in keys})


@dataclass
class World:
    home: Path
    project: Path
    db: Path
    bindir: Path
    claude: Path
    runs: list[Run] = field(default_factory=list)
    api: FakeMessagesAPI | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, root: Path, home: Path, db: Path, claude: Path) -> "World":
        project, bindir = root / "project", root / "bin"
        project.mkdir()
        bindir.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
        wrapper = bindir / "python"
        wrapper.write_text(f'#!/bin/sh\nexec "{PYTHON}" "$@"\n')
        wrapper.chmod(0o755)
        return cls(home, project, db, bindir, claude)

    # --- running things -----------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        env = {"HOME": str(self.home), "CLAIMGRAPH_DB": str(self.db), "LANG": "C.UTF-8",
               "PATH": f"{self.bindir}:/usr/local/bin:/usr/bin:/bin",
               "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        for var, sub in (("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"),
                         ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache")):
            env[var] = str(self.home / sub)
        if self.api is not None:
            env["ANTHROPIC_BASE_URL"] = self.api.base_url
        return env

    def install_hooks(self, *extra: str) -> subprocess.CompletedProcess[str]:
        argv = [str(PYTHON), "-m", "claimgraph", "install", "--agent", "claude-code",
                "--scope", "user", *extra]
        done = subprocess.run(argv, env=self.env(), cwd=self.project, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
        self.notes.append(f"install exit {done.returncode}\nstdout: {done.stdout}\n"
                          f"stderr: {done.stderr}")
        return done

    @contextmanager
    def serving(self, scripts: dict[str, list[Any]]) -> Iterator[FakeMessagesAPI]:
        with FakeMessagesAPI(scripts) as api:
            self.api = api
            yield api

    def run_claude(self, prompt: str, resume: str | None = None,
                   allowed: str = "Write Bash") -> Run:
        argv = [str(self.claude), *(["--resume", resume] if resume else []), "-p", prompt,
                "--allowedTools", allowed, "--output-format", "json"]
        started = time.monotonic()
        child = subprocess.Popen(argv, cwd=self.project, env=self.env(), text=True,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = child.communicate(timeout=CLAUDE_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            out, err = child.communicate()
            err += f"\n[harness] killed after {CLAUDE_TIMEOUT} s"
        run = Run(argv, child.returncode, out, err, time.monotonic() - started)
        self.runs.append(run)
        print(f"[e2e] claude run {len(self.runs)}: exit {run.returncode} in {run.seconds:.1f} s")
        return run

    # --- what claimgraph left behind -----------------------------------------------------------

    @property
    def capture_log(self) -> Path:
        return Path(f"{self.db}.capture.log")

    @property
    def curate_log(self) -> Path:
        return Path(f"{self.db}.curate.log")

    def settings(self) -> dict[str, Any]:
        return json.loads((self.home / ".claude" / "settings.json").read_text())

    def reports(self, session: str) -> list[dict[str, Any]]:
        """Capture report lines (JSON objects with a status) naming ``session``."""
        return [r for r in json_lines(self.capture_log)
                if "status" in r and r.get("session") == session]

    def wait_for_reports(self, session: str, count: int) -> list[dict[str, Any]]:
        def ready() -> list[dict[str, Any]] | None:
            found = self.reports(session)
            failed = [r for r in found if r["status"] not in SUCCESS + ("nothing-new",)]
            if failed:
                raise AssertionError(f"capture reported a failure: {failed[-1]}")
            done = [r for r in found if r["status"] in SUCCESS]
            return done if len(done) >= count else None
        return wait_for(ready, CAPTURE_WAIT, f"{count} capture report(s) for session {session} "
                                             f"in {self.capture_log}")

    def curator_runs(self) -> set[Any]:
        """The curator processes that wrote to curate.log (by pid)."""
        return {line.get("pid") for line in json_lines(self.curate_log) if line.get("pid")}

    def wait_until_settled(self, curators: int) -> None:
        """``curators`` curator runs logged, and no hook/capture/curator process left behind."""
        wait_for(lambda: len(self.curator_runs()) >= curators, PROCESS_WAIT,
                 f"{curators} curator run(s) in {self.curate_log}")
        wait_for(lambda: not self.leftover_processes(), PROCESS_WAIT,
                 "hook, capture and curator processes to exit")

    def transcript(self, session: str) -> Path:
        munged = re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
        path = self.home / ".claude" / "projects" / munged / f"{session}.jsonl"
        assert path.is_file(), f"no transcript at {path}: " + ", ".join(
            str(p) for p in (self.home / ".claude" / "projects").rglob("*.jsonl"))
        return path

    def store_state(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(episodes, facts) as stored now."""
        from claimgraph.opening import open_store

        store = open_store(self.db, create=False)
        try:
            return store.list_episodes(), store.all_facts()
        finally:
            store.close()

    def leftover_processes(self) -> list[psutil.Process]:
        """Processes (ours: hook, capture, curator) still running with this world's store."""
        found = []
        for proc in psutil.process_iter():
            try:
                if proc.pid != os.getpid() and proc.environ().get("CLAIMGRAPH_DB") == str(self.db):
                    found.append(proc)
            except (psutil.Error, OSError):
                continue
        return found

    # --- failure reports -----------------------------------------------------------------------

    @contextmanager
    def explained(self) -> Iterator[None]:
        try:
            yield
        except Exception as error:
            raise AssertionError(f"{error}\n\n{self.diagnostics()}") from error

    def diagnostics(self) -> str:
        parts = ["=" * 30 + " e2e diagnostics " + "=" * 30, *self.notes]
        for n, run in enumerate(self.runs, 1):
            parts.append(f"--- client run {n}: exit {run.returncode} in {run.seconds:.1f} s\n"
                         f"argv: {run.argv}\nresult: {run.brief()}\nstderr: {run.stderr}")
        if self.api is not None:
            parts.append("--- fake API requests\n" + self.api.requests.render(300))
        parts.append("--- settings.json\n" + tail(self.home / ".claude" / "settings.json", 4000))
        parts.append(f"--- {self.capture_log}\n" + tail(self.capture_log, 12000))
        parts.append(f"--- {self.curate_log}\n" + tail(self.curate_log, 4000))
        parts.append(f"--- beside the store: {sorted(p.name for p in self.db.parent.glob('*'))}"
                     if self.db.parent.exists() else "--- no store directory")
        parts.append("--- store\n" + self._store_dump())
        return "\n".join(parts)

    def _store_dump(self) -> str:
        try:
            episodes, facts = self.store_state()
        except Exception as error:  # a diagnostic must never hide the real failure
            return f"(cannot open the store: {error})"
        lines = [f"episode {e['id']} ref={e['ref']} summary={e['summary']!r}" for e in episodes]
        lines += [f"fact {f['predicate']} subject={name(f['subject'])} "
                  f"object={f['object_lit'] or name(f['object_ref'])} episode={f['episode']} "
                  f"evidence={f['evidence']}" for f in facts]
        return "\n".join(lines) or "(empty)"


# --- pure helpers ------------------------------------------------------------------------------

def name(entity: Any) -> Any:
    """An embedded entity by name (ids are noise in a failure report)."""
    return entity.get("name") if isinstance(entity, dict) else entity


def wait_for(probe: Callable[[], T | None], seconds: float, what: str) -> T:
    started = time.monotonic()
    deadline = started + seconds
    while True:
        value = probe()
        if value:
            print(f"[e2e] {time.monotonic() - started:.1f} s until {what}")
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.2)


def json_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    if not path.exists():
        return out
    for line in path.read_text(errors="replace").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def tail(path: Path, chars: int) -> str:
    try:
        return path.read_text(errors="replace")[-chars:] or "(empty)"
    except OSError as error:
        return f"({error.strerror})"


def episode_range(episode: dict[str, Any]) -> tuple[int, int]:
    match = EPISODE_REF.match(episode["ref"] or "")
    assert match, f"episode ref {episode['ref']!r} is not <agent>:<session>@<start>-<end>"
    return int(match["start"]), int(match["end"])


def fragments(quote: str) -> list[str]:
    """The checkable pieces of a quote: outer quotes and backticks off, split at ellipses."""
    quote = quote.strip().strip("`\"'“”")
    pieces = re.split(r"…|\.\.\.|`", quote)
    return [collapse(p) for p in pieces if len(collapse(p)) >= 4]


def collapse(text: str) -> str:
    return " ".join(text.split())


def quoted_in(quote: str, text: str) -> bool:
    pieces = fragments(quote)
    haystack = collapse(text)
    return bool(pieces) and all(piece in haystack for piece in pieces)


def line_strings(line: str) -> str:
    """A transcript line's text as a reader sees it: every JSON string in it, decoded."""
    try:
        value = json.loads(line)
    except ValueError:
        return line
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(value)
    return "\n".join(found)


def transcript_cites(fact: dict[str, Any]) -> list[tuple[int, str]]:
    return [(int(m["line"]), m["quote"]) for m in map(TRANSCRIPT_CITE.match, fact["evidence"]) if m]


def file_cites(fact: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["file"], m["quote"]) for ev in fact["evidence"]
            if not TRANSCRIPT_CITE.match(ev) and (m := FILE_CITE.match(ev))]
