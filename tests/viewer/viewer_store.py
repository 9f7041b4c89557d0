"""A store built from the real transcripts in tests/fixtures/transcripts, the way users get one.

Each transcript goes through the real ``claimgraph capture`` (a subprocess, as the SessionEnd
hook runs it), then the real curator, then the real ``claimgraph assert`` adds what no
fixture holds: a superseded version (history), a flagged contradiction (a conflict), and a
literal carrying markup (escaping). Built once per test session; pages only read it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS = REPO / "tests" / "fixtures" / "transcripts"
#: The project the subagent fixture (a real Claude Code session) was recorded in.
PROJECT = "/home/marco/projects/spotter"
MARKUP = '<script>alert("x")</script> & <b>bold</b>'


@dataclass
class BuiltStore:
    db: Path
    env: dict[str, str]
    reports: list[dict] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)


def environment(root: Path) -> dict[str, str]:
    """A private HOME and XDG tree (never the real one), the store inside it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAIMGRAPH_", "XDG_"))}
    home = root / "home"
    for sub in (".local/share", ".config", ".local/state", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_STATE_HOME=str(home / ".local/state"),
               XDG_CACHE_HOME=str(home / ".cache"), CLAIMGRAPH_DB=str(root / "claims.db"))
    return env


def claimgraph(env: dict[str, str], *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "claimgraph", *argv], env=env, text=True,
                          capture_output=True, timeout=120, stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise AssertionError(f"claimgraph {' '.join(argv)} exited {done.returncode}: "
                             f"{done.stdout[-2000:]} {done.stderr[-2000:]}")
    return done


def transcripts() -> list[Path]:
    found = sorted((TRANSCRIPTS / "claude-code").glob("*.jsonl"))
    return found + sorted((TRANSCRIPTS / "codex").glob("*.jsonl")) + sorted(
        (TRANSCRIPTS / "gemini").glob("*.json"))


def build(root: Path) -> BuiltStore:
    built = BuiltStore(root / "claims.db", environment(root))
    for path in transcripts():
        done = claimgraph(built.env, "capture", "--no-curate", str(path))
        built.reports.append(json.loads(done.stdout.strip().splitlines()[-1]))
    claimgraph(built.env, "curate")
    add_history(built)
    return built


def assert_fact(built: BuiltStore, *argv: str) -> str:
    done = claimgraph(built.env, "--json", "assert", *argv, "--scope", PROJECT)
    return json.loads(done.stdout)["fact"]["id"]


def add_history(built: BuiltStore) -> None:
    built.ids["old_version"] = assert_fact(built, "spotter", "has-version", "0.1.0",
                                           "--valid-from", "2026-02-12")
    built.ids["new_version"] = assert_fact(built, "spotter", "has-version", "0.2.0",
                                           "--valid-from", "2026-02-22")
    built.ids["contradiction"] = assert_fact(
        built, "spotter", "prefers", "Sobelow (Phoenix security scanner)", "--object-kind",
        "literal", "--valid-from", "2026-02-26", "--source-type", "session-log")
    # The language a person states (capture keeps a manifest's floor only when the session
    # moved it, so the filters below get their written-in fact here, not from capture's rules).
    built.ids["language"] = assert_fact(built, "spotter", "written-in", "Elixir ~> 1.17",
                                        "--object-kind", "literal", "--valid-from", "2026-02-12")
    built.ids["markup"] = assert_fact(built, "spotter", "x/convention", MARKUP,
                                      "--valid-from", "2026-02-27")
    # A second, unrelated rule of the same subject: a separate belief, not a version.
    built.ids["second_rule"] = assert_fact(built, "spotter", "x/convention",
                                           "tests run with mix test", "--valid-from",
                                           "2026-02-28")
