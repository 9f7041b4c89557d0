"""The README cannot rot: every command of its tour runs, in a fresh HOME, as printed.

Each line of the tour's code block is run by a real shell from a fresh project directory with
a throwaway HOME (the store goes to its default place there), with `claimgraph` on PATH; any
non-zero exit or traceback fails. A few lines also promise a result in their comment, which is
checked. The links of the README and of docs/ must resolve inside the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
TRANSCRIPT = REPO / "tests" / "fixtures" / "transcripts" / "claude-code" / "full-session-four.jsonl"
_COMMENT = re.compile(r"\s{2,}#\s.*$")
#: What some tour lines promise in their comment, checked on their output.
PROMISES = {"decided-against GraphQL": "flagged (it names something decided against)",
            "facts api --as-of 2026-01-01 --all": "no facts about api",
            "dump --out backup.jsonl": "transcript segment"}


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end != -1 else None]


def code_blocks(text: str, language: str = "sh") -> list[list[str]]:
    return [block.strip("\n").splitlines()
            for block in re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)]


def tour_commands() -> list[str]:
    [block] = code_blocks(section("A tour"))
    return [_COMMENT.sub("", line).rstrip() for line in block if line.startswith("claimgraph ")]


@pytest.fixture
def tour_shell(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A shell in a fresh project directory: temp HOME, default store path, `claimgraph` on
    PATH, a transcript at session.jsonl, and a stand-in model command (no network)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "claimgraph"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m claimgraph "$@"\n')
    wrapper.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(TRANSCRIPT, project / "session.jsonl")
    env = {k: v for k, v in os.environ.items() if k != "CLAIMGRAPH_DB"}
    env.update(PATH=f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
               CLAIMGRAPH_LLM_CMD=f"{sys.executable} -c 'import sys; sys.stdin.read()'")

    def run(line: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", line], cwd=project, env=env, capture_output=True,
                              text=True, timeout=180)
    return run


def test_the_tour_is_long_enough_to_mean_something():
    commands = tour_commands()
    assert len(commands) >= 12
    assert all("<" not in line for line in commands), "placeholders cannot be run"


def test_every_command_of_the_tour_runs_in_a_fresh_home(tour_shell, isolated_home):
    for line in tour_commands():
        done = tour_shell(line)
        shown = f"$ {line}\n{done.stdout}{done.stderr}"
        assert done.returncode == 0, shown
        assert "Traceback" not in done.stdout + done.stderr, shown
        assert "this is a bug" not in done.stderr, shown
        for words, promised in PROMISES.items():
            if words in line:
                assert promised in done.stdout, shown
    store = isolated_home / ".local" / "share" / "claimgraph" / "claims.db"
    assert store.exists()  # the default place, under the temp HOME


def test_the_quick_start_is_exactly_two_commands():
    blocks = code_blocks(section("Quick start"))
    assert blocks == [["./install.sh --demo"],
                      ["./install.sh --dev && .venv/bin/python -m pytest -q"]]


@pytest.mark.parametrize("page", ["README.md", *sorted(
    str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))])
def test_links_resolve_inside_the_repository(page):
    text = (REPO / page).read_text(encoding="utf-8")
    assert "../shared" not in text
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        resolved = ((REPO / page).parent / target).resolve()
        assert resolved.exists(), f"{page} links to {target}, which does not exist"
        assert REPO in resolved.parents or resolved == REPO, f"{page} links outside: {target}"


def test_the_docs_cover_what_the_readme_promises():
    for page in ("architecture", "store", "conflicts", "capture", "curator", "hooks", "daemon",
                 "configuration"):
        assert (REPO / "docs" / f"{page}.md").is_file()
    hooks_doc = REPO / "docs" / "hooks.md"
    assert "docs/hooks.md" in (REPO / "src/claimgraph/hooks/entry.py").read_text()
    assert "session-start" in hooks_doc.read_text()


def test_what_capture_learns_shows_what_capture_really_learns(tour_shell):
    """The README's example of captured facts is real: capturing the fixture it names gives
    every line it shows (fact ids differ per run and are compared without them)."""
    [block] = re.findall(r"```text\n(\$ claimgraph capture .*?)```", section(
        "What capture learns"), re.DOTALL)
    lines = block.strip("\n").splitlines()
    fixture = lines[0].split()[-1]
    facts_cmd = lines[1].removeprefix("$ ")
    assert tour_shell(f"claimgraph capture {REPO / fixture} --no-curate").returncode == 0
    result = tour_shell(facts_cmd)
    assert result.returncode == 0, result.stderr
    shown = {re.sub(r"^f-[0-9a-f]{8}", "", line) for line in result.stdout.splitlines()}
    for line in lines[2:]:
        if line != "…":
            assert re.sub(r"^f-[0-9a-f]{8}", "", line) in shown, line


def _undated(line: str) -> str:
    return re.sub(r"\b\d{4}-\d{2}-\d{2}\b", "<date>", line)


def test_the_next_session_block_is_what_the_demo_really_prints(tour_shell):
    start = README.index("\n## What happens next session\n")
    shown = re.search(r"```text\n(<claimgraph-context>.*?</claimgraph-context>)\n```",
                      README[start:], re.S)[1]
    done = tour_shell("claimgraph demo")
    assert done.returncode == 0, done.stderr
    # The demo dates its facts from the day it runs ("as of" today, "since" some days back):
    # compare the lines with their dates set aside, so the README holds on any later day.
    printed = {_undated(line.strip()) for line in done.stdout.splitlines()}
    for line in shown.splitlines():
        if line.startswith("- ") or line.startswith("#"):
            assert _undated(line.strip()) in printed, line
