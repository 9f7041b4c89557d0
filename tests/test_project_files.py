"""Naming a project from the repository's files gives git's answer, or none at all.

Every layout is a real repository made by real git in tmp_path; the answer read from files is
compared with the one git gives (``resolve_project`` with the file route switched off), and
for the ordinary layouts the file route must have answered (a silent fallback to git would
pass the comparison and cost the 10 ms this route saves).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from claimgraph import project as project_module
from claimgraph import project_files
from claimgraph.project import resolve_project

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed")


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """A HOME of the test's own (no user's ~/.gitconfig leaks in), the real PATH."""
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PATH": os.environ.get("PATH", os.defpath)}


def git(cwd: Path, environ: dict[str, str], *args: str) -> None:
    env = {**environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, env=env, check=True)


def repo(path: Path, environ: dict[str, str], *remotes: tuple[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, environ, "init", "-q")
    git(path, environ, "commit", "-q", "--allow-empty", "-m", "start")
    for name, url in remotes:
        git(path, environ, "remote", "add", name, url)
    return path


def by_git(cwd: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as patched:
        patched.setattr(project_files, "read_project", lambda here, env: None)
        return resolve_project(cwd, environ)


def same_as_git(cwd: Path, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                read: bool = True):
    """The file route's answer, checked against git's; ``read``: the files must have sufficed."""
    here = os.path.realpath(cwd)
    answered = project_files.read_project(here, environ)
    assert (answered is not None) == read, answered
    found = resolve_project(cwd, environ)
    assert found == by_git(cwd, environ, monkeypatch)
    return found


def test_a_remote_is_read_from_the_config(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ, ("origin", "git@GitHub.com:Org/Repo.git"))
    (checkout / "src" / "deep").mkdir(parents=True)
    found = same_as_git(checkout / "src" / "deep", environ, monkeypatch)
    assert (found.id, found.source) == ("github.com/Org/Repo", "remote")


def test_origin_wins_else_the_first_remote_by_name(tmp_path, environ, monkeypatch):
    one = repo(tmp_path / "one", environ, ("zz", "https://example.org/z/z"),
               ("origin", "https://example.org/o/o"), ("aa", "https://example.org/a/a"))
    assert same_as_git(one, environ, monkeypatch).id == "example.org/o/o"
    two = repo(tmp_path / "two", environ, ("upstream", "https://example.org/u/u"),
               ("backup", "https://example.org/b/b"))
    assert same_as_git(two, environ, monkeypatch).id == "example.org/b/b"


def test_no_remote_is_the_repository_root(tmp_path, environ, monkeypatch):
    plain = repo(tmp_path / "plain", environ)
    (plain / "pkg").mkdir()
    found = same_as_git(plain / "pkg", environ, monkeypatch)
    assert (found.id, found.source) == (str(plain.resolve()), "git-root")


def test_a_fresh_init_without_commits_reads_the_same(tmp_path, environ, monkeypatch):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, environ, "init", "-q")
    git(fresh, environ, "remote", "add", "origin", "https://example.org/f/f.git")
    assert same_as_git(fresh, environ, monkeypatch).id == "example.org/f/f"


def test_worktrees_read_the_common_dir(tmp_path, environ, monkeypatch):
    main = repo(tmp_path / "main", environ)
    git(main, environ, "worktree", "add", "-q", str(tmp_path / "feature"))
    found = same_as_git(tmp_path / "feature", environ, monkeypatch)
    assert (found.id, found.root) == (str(main.resolve()), str((tmp_path / "feature").resolve()))
    with_remote = repo(tmp_path / "m2", environ, ("origin", "git@github.com:org/repo.git"))
    git(with_remote, environ, "worktree", "add", "-q", str(tmp_path / "wt2"))
    assert same_as_git(tmp_path / "wt2", environ, monkeypatch).id == "github.com/org/repo"


def test_a_submodule_is_its_own_root(tmp_path, environ, monkeypatch):
    inner = repo(tmp_path / "inner", environ)
    outer = repo(tmp_path / "outer", environ)
    git(outer, environ, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(inner), "sub")
    found = same_as_git(outer / "sub", environ, monkeypatch)
    assert found.root == str((outer / "sub").resolve())


def test_comments_blank_values_and_case_read_as_git_reads_them(tmp_path, environ,
                                                               monkeypatch):
    checkout = repo(tmp_path / "r", environ)
    with open(checkout / ".git" / "config", "a") as config:
        config.write('# a comment\n[Remote "origin"]\n\tURL = https://example.org/x/y.git '
                     '; trailing\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
                     '[remote "empty"]\n\turl =\n[alias]\n\tst = status\n')
    assert same_as_git(checkout, environ, monkeypatch).id == "example.org/x/y"


def test_a_remote_in_the_global_config_counts(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ)
    Path(environ["HOME"], ".gitconfig").write_text(
        '[user]\n\tname = t\n[remote "origin"]\n\turl = https://example.org/global/g\n')
    assert same_as_git(checkout, environ, monkeypatch).id == "example.org/global/g"


def test_includes_without_remotes_are_read_past(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ, ("origin", "https://example.org/o/o"))
    Path(environ["HOME"], "work.inc").write_text("[user]\n\temail = me@example.org\n")
    Path(environ["HOME"], ".gitconfig").write_text(
        '[includeIf "gitdir:~/work/"]\n\tpath = ~/work.inc\n[include]\n\tpath = missing.inc\n')
    assert same_as_git(checkout, environ, monkeypatch).id == "example.org/o/o"


@pytest.mark.parametrize("config", [
    '[include]\n\tpath = remotes.inc\n',                       # a remote from an include
    '[remote "origin"]\n\turl = "https://example.org/q/q"\n',  # a quoted value
    '[core]\n\tworktree = /elsewhere\n',
    '[extensions]\n\tworktreeConfig = true\n',
    '[remote.origin]\n\turl = https://example.org/legacy\n',   # deprecated header
    '[alias]\n\tx = "unclosed\n',                              # git refuses this file
    '[remote "origin"] url = https://example.org/same-line\n',
    '[alias]\n\tx = one \\\n\ttwo\n',                          # a continued value
])
def test_what_only_git_can_read_is_left_to_git(tmp_path, environ, monkeypatch, config):
    checkout = repo(tmp_path / "r", environ)
    (checkout / ".git" / "remotes.inc").write_text('[remote "origin"]\n\turl = https://x.org/i/i\n')
    with open(checkout / ".git" / "config", "a") as handle:
        handle.write(config)
    same_as_git(checkout, environ, monkeypatch, read=False)


def test_an_empty_dot_git_is_not_a_repository(tmp_path, environ, monkeypatch):
    outer = repo(tmp_path / "outer", environ, ("origin", "https://example.org/o/o"))
    (outer / "inner" / ".git").mkdir(parents=True)  # git looks past it, to outer
    same_as_git(outer / "inner", environ, monkeypatch, read=False)


def test_inside_the_git_directory_git_decides(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ)
    same_as_git(checkout / ".git" / "refs", environ, monkeypatch, read=False)


def test_a_repository_of_another_owner_is_left_to_git(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ, ("origin", "https://example.org/o/o"))
    monkeypatch.setattr(os, "geteuid", lambda: 12345)
    assert project_files.read_project(str(checkout.resolve()), environ) is None


def test_without_git_on_path_the_files_do_not_answer(tmp_path, environ):
    checkout = repo(tmp_path / "r", environ, ("origin", "https://example.org/o/o"))
    no_git = {**environ, "PATH": str(tmp_path / "empty-bin")}
    assert project_files.read_project(str(checkout.resolve()), no_git) is None
    found = resolve_project(checkout, no_git)
    assert (found.id, found.source) == (str(checkout.resolve()), "path")


def test_the_file_route_starts_no_git_process(tmp_path, environ, monkeypatch):
    checkout = repo(tmp_path / "r", environ, ("origin", "https://example.org/o/o"))
    monkeypatch.setattr(project_module, "_git", lambda *a, **k: pytest.fail("git was run"))
    assert resolve_project(checkout, environ).id == "example.org/o/o"
