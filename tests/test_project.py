"""Project identity (DESIGN §4) against real git repositories made in tmp_path."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from claimgraph.project import normalize_remote, project_id, project_name, resolve_project

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout.strip()


def make_repo(path: Path, remote: str | None = None) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    git(path, "commit", "-q", "--allow-empty", "-m", "start")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path


@pytest.mark.parametrize("url", [
    "git@github.com:org/repo.git",
    "git@GitHub.com:org/repo",
    "https://github.com/org/repo.git",
    "https://github.com/org/repo/",
    "https://user:s3cret-pass@github.com/org/repo.git",
    "https://ghp_token@GITHUB.COM:443/org/repo",
    "ssh://git@github.com:22/org/repo.git",
    "ssh://git@github.com/org/repo",
    "git://github.com/org/repo.git",
    "  https://github.com/org/repo.git\n",
])
def test_every_spelling_of_one_remote_is_one_project(url: str) -> None:
    assert normalize_remote(url) == "github.com/org/repo"


def test_credentials_never_reach_the_project_id() -> None:
    assert "s3cret" not in normalize_remote("https://bob:s3cret@gitlab.example.com/g/sub/p.git")
    assert normalize_remote("https://bob:s3cret@gitlab.example.com/g/sub/p.git") == \
        "gitlab.example.com/g/sub/p"


def _remote_as_urlsplit_reads_it(url: str) -> str | None:
    """``normalize_remote`` as it was written with ``urlsplit`` for every URL with a scheme."""
    from urllib.parse import urlsplit

    from claimgraph.project import _SCHEME, _strip_repo_suffix
    text = url.strip()
    if not text or text.startswith("file://") or not _SCHEME.match(text):
        return normalize_remote(url)
    parts = urlsplit(text)
    host = (parts.hostname or "").lower()
    path = _strip_repo_suffix("/".join(p for p in parts.path.split("/") if p and p != "~"))
    return f"{host}/{path}" if path else host or None


@given(st.sampled_from(["https://", "ssh://", "git+ssh://", "HTTP://", "git://"]),
       st.text(alphabet="aZ09._~-/:@%?#[] +\t", max_size=30))
@example("https://", "user:pw@Host.Example:8443/org/repo.git")
@example("ssh://", "git@github.com:22/org/repo")
@example("https://", "a:b@c:d@e/x")
@example("https://", "[::1]:80/org/repo")
def test_a_remote_url_names_the_project_urlsplit_would(scheme: str, rest: str) -> None:
    """A plain URL is split without ``urllib.parse`` (a few ms of every scoped command's and
    SessionStart's start): the same id ``urlsplit`` gives, for plain and other URLs alike,
    so no project changes its id."""
    url = scheme + rest
    try:
        expected = _remote_as_urlsplit_reads_it(url)
    except ValueError:  # urlsplit refuses it (an unbalanced bracket): so must we
        with pytest.raises(ValueError):
            normalize_remote(url)
        return
    assert normalize_remote(url) == expected


def test_local_remotes_become_paths_and_blank_is_none() -> None:
    assert normalize_remote("/srv/git/repo.git") == "/srv/git/repo"
    assert normalize_remote("file:///srv/git/repo.git/") == "/srv/git/repo"
    assert normalize_remote("   ") is None


def test_a_repo_with_a_remote_is_keyed_by_the_normalized_url(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "checkout", "git@GitHub.com:Org/Repo.git")
    (repo / "src" / "deep").mkdir(parents=True)
    project = resolve_project(repo / "src" / "deep")
    assert project.id == "github.com/Org/Repo"
    assert project.source == "remote"
    assert project.root == str(repo.resolve())


def test_two_clones_of_one_remote_in_different_spellings_share_a_project(tmp_path: Path) -> None:
    one = make_repo(tmp_path / "one", "git@github.com:org/repo.git")
    two = make_repo(tmp_path / "two", "https://someone@github.com/org/repo")
    assert project_id(one) == project_id(two) == "github.com/org/repo"


def test_origin_wins_over_other_remotes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", "https://github.com/me/fork.git")
    git(repo, "remote", "add", "aaa-upstream", "https://github.com/them/repo.git")
    assert project_id(repo) == "github.com/me/fork"


def test_without_origin_the_first_remote_by_name_counts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    git(repo, "remote", "add", "upstream", "https://github.com/them/repo.git")
    git(repo, "remote", "add", "backup", "https://example.org/me/repo.git")
    assert project_id(repo) == "example.org/me/repo"


def test_without_a_remote_the_git_root_path_is_the_id(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "plain")
    (repo / "pkg").mkdir()
    project = resolve_project(repo / "pkg")
    assert project.id == str(repo.resolve())
    assert project.source == "git-root"


def test_same_named_folders_in_different_places_are_different_projects(tmp_path: Path) -> None:
    first = make_repo(tmp_path / "a" / "api")
    second = make_repo(tmp_path / "b" / "api")
    loose_one, loose_two = tmp_path / "c" / "api", tmp_path / "d" / "api"
    loose_one.mkdir(parents=True)
    loose_two.mkdir(parents=True)
    ids = {project_id(first), project_id(second), project_id(loose_one), project_id(loose_two)}
    assert len(ids) == 4
    assert "api" not in ids


def test_worktrees_of_one_repo_are_one_project(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", str(tmp_path / "feature"))
    main_project, feature = resolve_project(main), resolve_project(tmp_path / "feature")
    assert feature.id == main_project.id == str(main.resolve())
    assert feature.root == str((tmp_path / "feature").resolve())  # files live in the worktree


def test_worktrees_with_a_remote_share_the_remote_id(tmp_path: Path) -> None:
    main = make_repo(tmp_path / "main", "git@github.com:org/repo.git")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert project_id(tmp_path / "wt") == "github.com/org/repo"


def test_outside_git_the_cwd_absolute_path_is_the_id(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    assert resolve_project(loose).source == "path"
    assert project_id(loose) == str(loose.resolve())


def test_a_vanished_cwd_still_gets_its_path(tmp_path: Path) -> None:
    gone = tmp_path / "deleted" / "worktree"
    assert project_id(gone) == str(gone)


def test_without_git_installed_the_path_is_used(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", "git@github.com:org/repo.git")
    no_git = {"PATH": str(tmp_path / "empty-bin"), "HOME": os.environ["HOME"]}
    project = resolve_project(repo, environ=no_git)
    assert (project.id, project.source) == (str(repo.resolve()), "path")


def test_inherited_git_dir_does_not_redirect_the_lookup(tmp_path: Path) -> None:
    """A hook may run inside another repository's git hook, with GIT_DIR set."""
    ours = make_repo(tmp_path / "ours", "git@github.com:org/ours.git")
    other = make_repo(tmp_path / "other", "git@github.com:org/other.git")
    environ = {**os.environ, "GIT_DIR": str(other / ".git")}
    assert project_id(ours, environ) == "github.com/org/ours"


def test_a_hanging_git_falls_back_to_the_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\n{shutil.which('sleep')} 5\necho never\n")
    fake.chmod(0o755)
    loose = tmp_path / "w"
    loose.mkdir()
    project = resolve_project(loose, {"PATH": str(bin_dir)}, timeout=0.3)
    assert project.source == "path"


@pytest.mark.parametrize("root,name", [
    ("/home/dev/shop", "shop"),
    ("/home/dev/shop/.claude/worktrees/brave-otter", "shop"),
    ("/home/dev/shop/.worktrees/feature-x/src", "shop"),
    ("/C:/Users/dev/.claude-worktrees/shop/quiet-lamport", "shop"),
    ("/Users/dev/conductor/workspaces/shop/lima", "shop"),
    ("/Users/dev/.cursor/worktrees/shop/abc1", "shop"),
    ("/Users/[USER]/Documents/shop", "shop"),
    ("/Users/[USER]", None),
    ("/home/<user>", None),
    ("/", None),
    ("/C:", None),
    (None, None),
])
def test_a_project_is_named_by_its_repository_never_a_worktree_or_a_placeholder(root, name):
    assert project_name(root) == name
