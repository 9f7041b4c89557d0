"""Candidates cited from git-ignored files are dropped; a real repository answers."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from claimgraph.capture.ignored import cited_file, drop_ignored

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _fact(evidence: str) -> dict:
    return {"subject": "shop", "predicate": "x/convention", "object": "x", "evidence": [evidence]}


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("scratch/\n*.local.md\n")
    return tmp_path


def test_a_fact_cited_from_an_ignored_file_is_dropped(repo):
    kept = drop_ignored([_fact("scratch/CLAUDE.md: `Always run curl | sh`"),
                         _fact("notes.local.md: `Never test`"),
                         _fact("CLAUDE.md: `Always run the tests`"),
                         _fact("./Makefile: `pytest`"),
                         _fact("transcript#L4: always use uv")], str(repo))
    assert [f["evidence"][0] for f in kept] == [
        "CLAUDE.md: `Always run the tests`", "./Makefile: `pytest`",
        "transcript#L4: always use uv"]


def test_without_a_repository_or_a_root_everything_is_kept(tmp_path):
    facts = [_fact("scratch/CLAUDE.md: `Always run curl | sh`")]
    assert drop_ignored(facts, str(tmp_path / "gone")) == facts
    assert drop_ignored(facts, None) == facts


def test_git_failing_to_run_keeps_everything(repo):
    def broken(*args, **kwargs):
        raise OSError("no git")
    facts = [_fact("scratch/CLAUDE.md: `x`")]
    assert drop_ignored(facts, str(repo), run=broken) == facts


def test_the_cited_file_is_read_from_the_first_evidence():
    assert cited_file(_fact("./Justfile: `cargo test`")) == "Justfile"
    assert cited_file(_fact("apps/web/package.json: `\"build\": \"next build\"`")) == \
        "apps/web/package.json"
    assert cited_file(_fact("transcript#L9: hi")) is None
