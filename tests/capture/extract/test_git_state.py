"""Where a session left its work in git: parsing git/gh output and settling the end state."""

import pytest

from claimgraph.capture.extract.git_state import git_runs, git_state_candidates, observe
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic import git_state as gs
from claimgraph.logic import git_done as gd


def settle(*steps):
    """Observations from (command, output) pairs, one per line, in order."""
    seen = [observe(command, output, line) for line, (command, output) in enumerate(steps, 1)]
    return gs.settle([s for s in seen if s is not None])


REBASED = "Successfully rebased and updated refs/heads/feat/x."
COMMIT = ("git commit -m x", "[feat/x 1a2b3c4] feat: add the parser\n 2 files changed")
PUSH = ("git push -u origin feat/x",
        "To github.com:me/repo.git\n * [new branch]      feat/x -> feat/x\n"
        "branch 'feat/x' set up to track 'origin/feat/x'.")


def test_commit_line_shapes():
    out = "[main (root-commit) fe2db25] Initial release\n[detached HEAD 0f69b0a5] later one"
    assert gs.commits_in(out) == [("main", "fe2db25", "Initial release"),
                                  ("detached HEAD", "0f69b0a5", "later one")]


def test_commit_then_push_is_pushed():
    state = settle(COMMIT, PUSH)
    assert [c.hash for c in state.commits] == ["1a2b3c4"]
    assert "1a2b3c4" in state.pushed
    text = gs.describe(state, "2026-01-02")
    assert "2026-01-02" in text and "`feat/x`" in text and "pushed to github.com/me/repo" in text


def test_commit_without_push_says_not_pushed():
    text = gs.describe(settle(COMMIT), "2026-01-02")
    assert "1a2b3c4" in text and "not pushed" in text


def test_reset_after_commit_leaves_nothing():
    state = settle(COMMIT, ("git reset --soft HEAD~1", ""))
    assert state.commits == [] and not state.anything


def test_reset_that_only_unstages_keeps_the_commit():
    state = settle(COMMIT, ("git reset HEAD src/a.py", "Unstaged changes after reset:"))
    assert [c.hash for c in state.commits] == ["1a2b3c4"]


def test_amend_replaces_the_commit():
    state = settle(COMMIT, ("git commit --amend -m y", "[feat/x 9f8e7d6] feat: add the parser v2"))
    assert [c.hash for c in state.commits] == ["9f8e7d6"]


def test_amend_after_push_is_not_pushed():
    state = settle(COMMIT, PUSH, ("git commit --amend --no-edit", "[feat/x 9f8e7d6] feat: add"))
    assert "not pushed" in gs.describe(state, "d")


def test_rejected_push_is_no_push():
    rejected = ("git push", "To https://github.com/me/repo.git\n"
                " ! [rejected]        feat/x -> feat/x (fetch first)\n"
                "error: failed to push some refs")
    state = settle(COMMIT, rejected)
    assert state.pushed == {} and "not pushed" in gs.describe(state, "d")


def test_push_of_another_branch_says_nothing_of_this_one():
    other = ("git push origin main", "To github.com:me/repo.git\n   aaaa111..bbbb222  main -> main")
    state = settle(COMMIT, other)
    assert "1a2b3c4" not in state.pushed
    text = gs.describe(state, "d")
    assert "not pushed" in text and "pushed `main` at bbbb222" in text


def test_fetch_lines_are_not_a_push():
    fetched = ("git push && git pull",
               "From github.com:me/repo\n   aaaa111..bbbb222  main -> origin/main")
    assert settle(COMMIT, fetched).branch_pushes == []


def test_git_log_after_a_rebase_gives_the_new_hashes():
    state = settle(COMMIT, ("git rebase origin/main", REBASED),
                   ("git log --oneline -3", "5d6e7f8 (HEAD -> feat/x) feat: add the parser\n"
                                            "0000aaa chore: someone else's"))
    assert [(c.branch, c.hash) for c in state.commits] == [("feat/x", "5d6e7f8")]


def test_rebase_without_a_later_log_leaves_nothing_sure():
    state = settle(COMMIT, ("git rebase main", REBASED))
    assert state.commits == []


def test_squash_merged_pr_with_merge_commit_from_log():
    steps = [("gh pr create --title \"Add parser\" --head feat/x",
              "https://github.com/me/repo/pull/47\n"),
             ("gh pr merge 47 --squash --delete-branch", "✓ Squashed and merged pull request #47"),
             ("git log --oneline -2", "cbd8986 (HEAD -> main) Add parser (#47)\n1111111 older")]
    seen = [observe(c, o, n) for n, (c, o) in enumerate(steps, 1)]
    listed = [(n, h, s) for n, o in enumerate(seen, 1) for h, s in o.listed]
    [pr] = gs.pull_requests(seen, listed)
    text = gs.describe_pr(pr, "2026-03-04")
    assert text == 'PR #47 "Add parser" was merged by squash as cbd8986 (session of 2026-03-04)'


def test_auto_merge_is_not_a_merge():
    assert gs.pr_merged(("pr", "merge", "47", "--auto", "--squash"), "") is None


@pytest.mark.parametrize("said", [
    "! The merge strategy for main is set by the merge queue\n"
    "✓ Pull request #47 will be added to the merge queue for main when ready",
    "✓ Pull request me/shop#47 will be automatically merged via squash when all requirements "
    "are met",
    "✓ Auto-merge enabled\nme/shop#47 will merge when all requirements are met",
])
def test_a_pull_request_gh_only_queued_or_armed_is_not_merged(said):
    """gh exits 0 when it queues a merge or arms auto-merge (without ``--auto`` too, while
    required checks are pending): the merge is an outcome the session has not seen."""
    assert gs.pr_merged(("pr", "merge", "47", "--squash"), said) is None
    assert gs.pr_merged(("pr", "merge", "--squash"), said) is None


def test_a_merge_gh_refused_is_no_merge_even_when_a_pipe_hid_its_exit_status():
    """``gh pr merge 47 --squash | tee log`` exits 0 whatever gh did: its words decide."""
    refused = "X Pull request #47 is not mergeable: the merge commit cannot be cleanly created."
    assert gs.pr_merged(("pr", "merge", "47", "--squash"), refused) is None
    assert gs.pr_merged(("pr", "merge", "47", "--squash"), "GraphQL: Base branch was modified "
                                                         "(mergePullRequest)") is None
    assert gs.pr_merged(("pr", "merge", "47", "--squash"),
                        "✓ Squashed and merged pull request #47") == (47, "squash")


def test_pr_view_json_merged():
    out = '{"number":12,"state":"MERGED","title":"T","mergeCommit":{"oid":"abcdef1234"}}'
    assert gs.pr_states(("pr", "view", "12", "--json", "state"), out) == [
        (12, "MERGED", "T", "abcdef1234", None)]


def test_uncommitted_changes_at_the_end():
    state = settle(COMMIT, ("git status --short", " M src/a.py\n?? notes/"))
    assert state.dirty is True and "uncommitted" in gs.describe(state, "d")


def test_untracked_files_alone_are_not_uncommitted_work():
    assert settle(COMMIT, ("git status --short", "?? scratch/\n")).dirty is False


def test_status_before_a_later_commit_says_nothing():
    state = settle(("git status", "On branch feat/x\nChanges not staged for commit:"), COMMIT)
    assert state.dirty is None


def test_new_tag_pushed():
    state = settle(("git tag v1.2.0 && git push origin v1.2.0",
                    "To github.com:me/repo.git\n * [new tag]         v1.2.0 -> v1.2.0"))
    assert state.tags == {"v1.2.0": ["created", "pushed"]}
    assert "tag `v1.2.0` created then pushed" in gs.describe(state, "d")


def test_checkout_b_names_the_branch():
    state = settle(("git checkout -b feat/y", "Switched to a new branch 'feat/y'"))
    assert state.branch == "feat/y" and not state.anything


def test_remote_names():
    assert gs.remote_name("git@github.com:me/repo.git") == "github.com/me/repo"
    assert gs.remote_name("github.com:me/repo.git") == "github.com/me/repo"
    assert gs.remote_name("https://github.com/me/repo.git") == "github.com/me/repo"


# --- the capture rule, on hand-built sessions ---------------------------------------------

from .extract_helpers import ROOT, Session  # noqa: E402


def _states(session: Session) -> list[tuple[str, str]]:
    """What the git rule says, before the screen of finished states (test_git_done.py)."""
    view = SessionView.of(session.transcript(), None)
    return [(c["subject"], c["object"]) for c in git_state_candidates(view)]


def test_a_cd_into_another_repository_is_that_repository():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: here")
    session.bash("cd /home/dev/other && git commit -m b", output="[dev 2222222] feat: there")
    states = dict(_states(session))
    assert set(states) == {"shop", "other"}
    assert "1111111" in states["shop"] and "2222222" not in states["shop"]
    assert "`dev`" in states["other"] and "2222222" in states["other"]


def test_a_subfolder_of_the_project_is_the_project():
    session = Session()
    session.bash(f"cd {ROOT}/web && git commit -m a", output="[main 1111111] feat: here")
    assert [s for s, _ in _states(session)] == ["shop"]


def test_a_failed_or_refused_command_proves_nothing():
    """Of a line that failed only git's summary of the commit it made is read; the push it
    refused and the push the person turned down prove nothing."""
    session = Session()
    session.bash("git push && git tag v1", error=True,
                 output="Exit code 1\nTo x\n   0000000..1111111  main -> main")
    session.bash("git push", output="The user doesn't want to proceed with this tool use.")
    assert _states(session) == []
    session.bash("git commit -m a && git push", error=True,
                 output="Exit code 1\n[main 1111111] feat: here\nTo x\n ! [rejected] main -> main")
    session.bash("git push", output="The user doesn't want to proceed with this tool use.")
    assert "1111111 \"feat: here\"; not pushed" in dict(_states(session))["shop"]


def test_the_agents_words_alone_store_nothing():
    session = Session()
    session.event("assistant", text="I committed 1111111 and pushed it to origin/main.")
    session.bash("git status", output="On branch main\nnothing to commit, working tree clean")
    assert _states(session) == []


def test_a_codex_call_reports_its_own_workdir():
    session = Session(agent="codex")
    session.tool("exec_command", {"cmd": "git commit -m a", "workdir": "/home/dev/other"},
                 output="[main 3333333] fix: there", extras={"exit_code": 0})
    assert [s for s, _ in _states(session)] == ["other"]


def test_one_fact_per_repository_and_one_per_pr():
    session = Session()
    session.bash("git commit -m a", output="[feat/x 1111111] feat: one")
    session.bash("git commit -m b", output="[feat/x 2222222] feat: two")
    session.bash("git push -u origin feat/x",
                 output="To github.com:me/shop.git\n * [new branch]      feat/x -> feat/x")
    session.bash('gh pr create --title "Feat" --body x', output="https://github.com/me/shop/pull/5")
    states = _states(session)
    objects = [o for _, o in states]
    assert len(objects) == 2
    assert "pushed to github.com/me/shop" in objects[0]
    assert "PR #5 \"Feat\" was opened" in objects[1]
    # the PR is its own subject: x/state holds one value per subject (tests/core)
    assert [s for s, _ in states] == ["shop", "shop PR #5"]


def test_pull_rebase_then_push_then_log_keeps_the_commit_pushed():
    state = settle(COMMIT, ("git pull --rebase", REBASED),
                   ("git push", "To github.com:me/repo.git\n   0000aaa..5d6e7f8  feat/x -> feat/x"),
                   ("git commit -m z", "[feat/x 6e7f8a9] fix: later"),
                   ("git log --oneline -2", "6e7f8a9 fix: later\n5d6e7f8 feat: add the parser"))
    assert [c.hash for c in state.commits] == ["5d6e7f8", "6e7f8a9"]
    assert "5d6e7f8" in state.pushed and "6e7f8a9" not in state.pushed
    assert "up to 5d6e7f8, 1 later not pushed" in gs.describe(state, "d")


def test_several_pr_views_in_one_line_map_in_order():
    seen = observe("gh pr view 5 --json state --jq .state && gh pr view 6 --json state --jq .state",
                   "MERGED\nOPEN\n", 1)
    assert seen.pr_states == ((5, "MERGED", None, None, None), (6, "OPEN", None, None, None))


def test_a_pr_only_seen_merged_counts_when_the_session_pushed_its_branch():
    view = ("gh pr view 9 --json state,title,headRefName",
            '{"state":"MERGED","title":"T","headRefName":"feat/x"}')
    # only looked at: not its work, only ever the end of a state an earlier session stored
    [looked] = gs.pull_requests([observe(*view, 1)], [])
    assert looked.only_replaces and looked.state == "MERGED"
    seen = [observe(*PUSH, 1), observe(*view, 2)]
    [pr] = gs.pull_requests(seen, [])
    assert gs.describe_pr(pr, "d") == 'PR #9 "T" was merged (seen merged in the session of d)'


def test_a_renamed_pr_is_told_by_its_last_title():
    steps = [('gh pr create --title "feat!: old" --head feat/x', "https://github.com/me/r/pull/3"),
             ("gh pr view 3 --json title,url", '{"title":"feat: new","url":"u"}')]
    [pr] = gs.pull_requests([observe(c, o, n) for n, (c, o) in enumerate(steps, 1)], [])
    assert pr.title == "feat: new"
    edit = observe('gh pr edit 3 --title "feat: newer"', "https://github.com/me/r/pull/3", 3)
    seen = [observe(c, o, n) for n, (c, o) in enumerate(steps, 1)] + [edit]
    [pr] = gs.pull_requests(seen, [])
    assert '"feat: newer" was opened' in gs.describe_pr(pr, "d")


def test_a_long_state_names_fewer_commits_to_fit():
    steps = [(f"git commit -m {n}", f"[feat/branch-{n % 5} {n:07x}] work {n}")
             for n in range(1, 41)]
    state = settle(*steps)
    assert len(gs.describe(state, "d")) > 600
    short = gs.describe_within(state, "d", limit=600)
    assert 0 < len(short) <= 600 and "8 commits on branch `feat/branch-1`" in short
    assert "(and 5 earlier)" in short


def test_several_commits_are_named_by_hash_not_by_the_agents_subjects():
    """An earlier subject may describe a step a later commit undid."""
    text = gs.describe(settle(COMMIT, ("git commit -m y", "[feat/x 5d6e7f8] revert: drop it")),
                       "d")
    assert "2 commits on branch `feat/x`: 1a2b3c4, 5d6e7f8;" in text
    assert "parser" not in text and "revert" not in text


def test_a_branchs_one_commit_keeps_its_subject():
    text = gs.describe(settle(COMMIT), "d")
    assert '1 commit on branch `feat/x`: 1a2b3c4 "feat: add the parser"' in text


def test_a_history_rewrite_names_the_new_head():
    state = settle(("git commit -m a", "[main c7760cb] Security: add the scanner"),
                   ("git-filter-repo --path logs --invert-paths --force",
                    "Parsed 47 commitsHEAD is now at 4f43a16 Security: add the scanner\n"),
                   ("git push origin --force --all",
                    "To github.com:me/repo.git\n + 56a43b7...4f43a16 main -> main (forced update)"))
    assert [c.hash for c in state.commits] == ["4f43a16"] and "4f43a16" in state.pushed


def test_a_hard_reset_keeps_what_it_reset_to():
    state = settle(("git commit -m a", "[main 1111111] one"),
                   ("git commit -m b", "[main 2222222] two"),
                   ("git reset --hard HEAD~1", "HEAD is now at 1111111 one"))
    assert [c.hash for c in state.commits] == ["1111111"]


def test_commits_of_a_branch_that_went_up_only_under_another_branch():
    state = settle(COMMIT, ("git checkout -b release/x", "Switched to a new branch 'release/x'"),
                   ("git push -u origin release/x",
                    "To github.com:me/repo.git\n * [new branch]      release/x -> release/x"))
    text = gs.describe(state, "d")
    assert "`feat/x` itself not pushed" in text and "; not pushed" not in text


def test_commands_named_in_a_commit_message_are_not_run():
    message = ("git commit -m \"$(cat <<'EOF'\ndocs: say to run git tag v9 and git reset --hard\n"
               "EOF\n)\"")
    seen = observe(message, "[main 1111111] docs: say to run git tag v9", 1)
    assert seen.tags_made == () and not seen.rewrote
    seen = observe('git commit -m "after git-filter-repo: git tag v9"', "[main 2222222] x", 1)
    assert seen.tags_made == () and not seen.rewrote


# --- one command parser: git_state reads lines through shell.invocations --------------------

def test_a_heredoc_commit_then_a_push_on_later_lines_are_both_read():
    command = ("git add -A && git commit -q -m \"$(cat <<'EOF'\nfeat: x (don't \"break\")\n"
               "EOF\n)\"\ngit push origin feat/x")
    seen = observe(command, "To github.com:me/repo.git\n   1111111..2222222  feat/x -> feat/x", 1)
    assert [u.new for p in seen.pushes for u in p.updates] == ["2222222"]
    assert [c.hash for c in seen.commits] == [""]  # quiet: made, its id never printed


def test_a_git_c_folder_and_a_later_cd_are_followed():
    runs = git_runs("git -C ../lib status && cd /srv/app && git log -1",
                                          "/home/dev/shop")
    assert [(r.kind, r.cwd) for r in runs] == [("status", "/home/dev/lib"),
                                               ("log", "/srv/app")]


def test_a_git_dir_names_the_repository_a_work_tree_alone_does_not():
    """git(1): ``--git-dir`` is the repository (its folder, for a ``.git`` directory);
    with ``--work-tree`` alone git finds the repository from where it runs."""
    runs = git_runs("git --git-dir=../lib/.git --work-tree=../lib log -1 && "
                    "git --git-dir /srv/repos/app.git log && git --work-tree=/tmp/out status",
                    "/home/dev/shop")
    assert [r.cwd for r in runs] == ["/home/dev/lib", "/srv/repos/app.git", "/home/dev/shop"]



def test_a_relative_git_dir_is_read_from_where_every_c_option_leads():
    """git(1): ``-C`` changes the folder git runs in before it reads the repository; a
    relative ``--git-dir`` is read from there, wherever it stands among the options."""
    runs = git_runs("git --git-dir=../.git -C src commit -m x && "
                    "git -C src --git-dir=../.git commit -m y && "
                    "git --git-dir=/srv/repos/app.git -C src log", "/home/dev/shop")
    assert [r.cwd for r in runs] == ["/home/dev/shop", "/home/dev/shop", "/srv/repos/app.git"]

def test_a_quoted_git_word_in_an_echo_runs_nothing():
    assert observe('echo "git tag v3 && git push --tags"', "git tag v3 && git push --tags", 1) \
        is None


# --- pushes whose outcome never showed -----------------------------------------------------

def test_a_push_without_output_is_outcome_unknown_not_not_pushed():
    state = settle(COMMIT, ("git push -q; echo sent", "sent"))  # its exit status not shown
    text = gs.describe(state, "d")
    assert "push outcome unknown" in text and "not pushed" not in text
    assert state.pushed == {}


def test_a_failed_push_hidden_by_or_true_is_not_pushed():
    state = settle(COMMIT, ("git push || true", "fatal: could not read Username"))
    assert "; not pushed" in gs.describe(state, "d")


def test_a_push_before_the_last_commit_says_nothing_of_it():
    state = settle(("git push -q", ""), COMMIT)
    assert "; not pushed" in gs.describe(state, "d")


def test_a_quiet_commit_is_named_by_the_later_push():
    state = settle(("git status", "On branch feat/x\nChanges to be committed:"),
                   ("git commit -q -m 'feat: quiet one'", ""),
                   PUSH[:1] + ("To github.com:me/repo.git\n   0000aaa..7a7a7a7  feat/x -> feat/x",))
    [made] = state.commits
    assert made.hash == "" and made.branch == "feat/x" and made.key in state.pushed
    text = gs.describe(state, "d")
    assert "(id not shown)" in text and "pushed to github.com/me/repo" in text


def test_a_silent_commit_that_is_not_quiet_proves_nothing():
    assert settle(("git commit -m x > /dev/null", "")).commits == []


def test_after_a_rebase_the_push_names_the_new_head():
    state = settle(COMMIT, ("git commit -m y", "[feat/x 2b2b2b2] feat: two"),
                   ("git rebase origin/main", REBASED),
                   ("git push --force-with-lease",
                    "To github.com:me/repo.git\n + 1111111...9c9c9c9 feat/x -> feat/x (forced)"))
    assert [c.hash for c in state.commits] == ["", "9c9c9c9"]
    assert all(c.key in state.pushed for c in state.commits)
    assert "1a2b3c4" not in gs.describe(state, "d")


def test_after_a_reset_a_push_brings_nothing_back():
    state = settle(COMMIT, ("git reset --hard HEAD~1", ""),
                   ("git push --force", "To github.com:me/repo.git\n"
                                        " + 1a2b3c4...0f0f0f0 feat/x -> feat/x (forced update)"))
    assert state.commits == []


def test_the_session_ending_on_a_push_is_outcome_unknown():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: here")
    session.tool("Bash", {"command": "git push origin main"}, answered=False)
    [(_, text)] = _states(session)
    assert "push outcome unknown" in text and "not pushed" not in text


def test_a_refused_push_is_no_push():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: here")
    session.bash("git push", output="The user doesn't want to proceed with this tool use.")
    [(_, text)] = _states(session)
    assert "; not pushed" in text


def test_a_quiet_commit_shown_by_the_next_log_has_that_id():
    seen = observe("git commit -q -m x && git log --oneline -1", "5e5e5e5 feat: shown\n", 1)
    assert [(c.hash, c.subject) for c in seen.commits] == [("5e5e5e5", "feat: shown")]


def test_quiet_commits_are_counted_and_the_pushed_head_is_named():
    state = settle(("git status", "On branch dev\nChanges to be committed:"),
                   ("git commit -q -m a", ""), ("git commit -q -m b", ""),
                   ("git push origin dev",
                    "To github.com:me/repo.git\n   1111111..8f8f8f8  dev -> dev"))
    text = gs.describe(state, "d")
    assert "2 commits on branch `dev`: 2 whose ids were not shown" in text
    assert "pushed to github.com/me/repo (head 8f8f8f8)" in text


def test_a_windows_cd_is_followed_to_its_folder():
    [run] = git_runs("cd C:\\Users\\me\\repo; git push", "/C:/Users/me/other")
    assert run.cwd == "/C:/Users/me/repo"


def test_a_quiet_commit_and_a_quiet_push_in_one_line_that_went_on_went_up():
    """The log after ``&&`` ran, so the quiet push before it exited 0: it went up."""
    state = settle(("git status", "On branch main"),
                   ("git commit -q -m a && git push -q origin && git log --oneline | head -2",
                    "7e7e7e7 feat: a\n6d6d6d6 older"))
    [made] = state.commits
    assert made.hash == "7e7e7e7" and made.key in state.pushed
    assert "pushed to origin" in gs.describe(state, "d")


@pytest.mark.parametrize("line", [
    "git commit -q -m a && git push -q origin; echo done",  # its status is not the line's
    "git commit -q -m a && git push -q origin || true",
    "git commit -q -m a && git push -q origin 2>&1 | tail -1",
    "git commit -q -m a && git push -q --dry-run origin",
])
def test_a_quiet_push_whose_exit_status_the_line_does_not_show_is_outcome_unknown(line):
    state = settle(("git status", "On branch main"), (line, ""))
    assert state.pushed == {}


def test_a_log_of_another_revision_does_not_name_the_quiet_commit():
    seen = observe("git commit -q -m a && git log --oneline origin/main -1", "1212121 theirs", 1)
    assert [c.hash for c in seen.commits] == [""]


def test_a_cd_into_the_home_folder_is_followed():
    [run] = git_runs("cd ~/code/other && gh pr create --title T", "/Users/me/code/shop")
    assert run.cwd == "/Users/me/code/other"


def test_the_branch_at_the_end_is_the_one_where_the_work_was_done():
    session = Session()
    session.bash(f"cd {ROOT}/.worktrees/x && git commit -m a", output="[feat/x 1111111] feat: a")
    session.bash(f"git -C {ROOT} status", output="On branch main\nnothing to commit")
    [(_, text)] = _states(session)
    assert "`feat/x` at the end" in text and "`main`" not in text


def test_a_quiet_push_of_a_named_branch_counts_for_commits_on_an_unknown_branch():
    state = settle(("git commit -q -m a && git push -q origin main", ""))
    assert "push outcome unknown" in gs.describe(state, "d")


def test_a_quiet_commit_after_a_quiet_new_branch_is_on_the_new_branch():
    """The shell had left `main` for a branch it created (git printed nothing the harness
    kept); a quiet commit then is on the new branch, not on the one a status named before."""
    for create in ("git checkout -b feat/z", "git switch -c feat/z", "git checkout -q -B feat/z"):
        state = settle(("git status", "On branch main\nnothing to commit"), (create, ""),
                       ("git commit -q -m 'feat: z'", ""))
        [made] = state.commits
        assert made.branch == "feat/z" and state.branch == "feat/z", create
        assert "`main`" not in gs.describe(state, "d")


def test_a_branch_created_after_the_commit_in_one_line_does_not_take_it():
    state = settle(("git status", "On branch main"),
                   ("git commit -q -m a && git switch -c feat/later", ""))
    [made] = state.commits
    assert made.branch == "main" and state.branch == "feat/later"


def test_a_branch_deleted_and_created_again_at_once_is_not_deleted():
    state = settle(COMMIT,
                   ("git checkout main && git branch -D feat/x && git checkout -b feat/x",
                    "Switched to branch 'main'\nDeleted branch feat/x (was 1a2b3c4).\n"
                    "Switched to a new branch 'feat/x'"),
                   ("git commit -m y", "[feat/x 5d6e7f8] feat: the parser again\n 1 file changed"))
    text = gs.describe(state, "d")
    assert "deleted later" not in text and "5d6e7f8" in text
    assert [c.hash for c in state.commits] == ["5d6e7f8"]  # the first one is on it no more


def test_a_quiet_checkout_of_a_branch_the_session_knows_moves_the_checkout():
    """``git checkout main -q`` prints nothing; ``git checkout uv.lock`` restores a file: only
    a name the session knows as a branch (or a default branch's) is taken for one."""
    state = settle(COMMIT, ("git checkout uv.lock", ""), ("git checkout main -q", ""))
    assert state.branch == "main"
    state = settle(COMMIT, ("git checkout uv.lock", ""))
    assert state.branch == "feat/x"
    state = settle(COMMIT, ("git checkout main -q", ""), ("git checkout feat/x -q", ""),
                   ("git commit -q -m 'feat: more'", ""))
    assert [c.branch for c in state.commits] == ["feat/x", "feat/x"]


# --- what git showed on the remote afterwards ----------------------------------------------

UP_TO_DATE = ("git status", "On branch feat/x\nYour branch is up to date with 'origin/feat/x'.\n"
                            "\nnothing to commit, working tree clean")


def test_a_later_status_up_to_date_with_the_upstream_settles_an_unseen_push():
    state = settle(COMMIT, ("git push -q; true", ""), UP_TO_DATE)
    text = gs.describe(state, "d")
    assert "outcome unknown" not in text and "not pushed" not in text
    assert "pushed to origin" in text and "1a2b3c4" in state.pushed


def test_a_status_ahead_of_the_upstream_leaves_the_push_unknown():
    ahead = ("git status", "On branch feat/x\nYour branch is ahead of 'origin/feat/x' by 1 "
                           "commit.\n\nnothing to commit, working tree clean")
    text = gs.describe(settle(COMMIT, ("git push -q; true", ""), ahead), "d")
    assert "push outcome unknown" in text


def test_a_status_of_another_branch_or_before_the_commit_says_nothing_of_it():
    main = ("git status", "On branch main\nYour branch is up to date with 'origin/main'.")
    assert "push outcome unknown" in gs.describe(
        settle(COMMIT, ("git push -q; true", ""), main), "d")
    assert "; not pushed" in gs.describe(settle(UP_TO_DATE, COMMIT), "d")


def test_the_short_status_in_step_with_its_upstream_counts_too():
    short = ("git status -sb", "## feat/x...origin/feat/x\n?? notes.txt")
    assert "1a2b3c4" in settle(COMMIT, short).pushed
    ahead = ("git status -sb", "## feat/x...origin/feat/x [ahead 1]")
    assert settle(COMMIT, ahead).pushed == {}


def test_a_log_of_the_remote_ref_listing_the_commit_shows_it_went_up():
    two = ("git commit -m y", "[feat/x 2b2b2b2] feat: two")
    logged = ("git log --oneline -3 origin/feat/x", "1a2b3c4 feat: add the parser\n"
                                                      "0000000 chore: before")
    state = settle(COMMIT, two, logged)
    assert "1a2b3c4" in state.pushed and "2b2b2b2" not in state.pushed
    ranged = ("git log --oneline origin/feat/x..HEAD", "1a2b3c4 feat: add the parser")
    assert settle(COMMIT, ranged).pushed == {}


def test_a_status_beside_other_commands_still_says_the_branch_is_in_step():
    line = ("git status -sb && git log --oneline -1",
            "## feat/x...origin/feat/x\n1a2b3c4 feat: add the parser")
    assert "1a2b3c4" in settle(COMMIT, line).pushed


OPENED = ('gh pr create --title "Feat" --head feat/x', "https://github.com/me/shop/pull/5")


@pytest.mark.parametrize(("command", "output", "merge"), [
    ("git log --oneline -3", "abc1234 Merge pull request #5 from me/feat-x\n0000aaa older",
     "abc1234"),
    ("git pull", "Updating 1111111..cbd8986\nFast-forward\n", None),
    ("git reset --hard origin/main", "HEAD is now at cbd8986 Feat (#5)", "cbd8986"),
])
def test_an_opened_pr_whose_merge_a_later_listing_shows_is_merged(command, output, merge):
    seen = [observe(*OPENED, 1), observe(command, output, 2)]
    listed = [(n, h, s) for n, o in enumerate(seen, 1) if o for h, s in o.listed]
    [pr] = gs.pull_requests([s for s in seen if s], listed)
    if merge is None:  # a fast-forward names no subject: nothing is known
        assert "was opened" in gs.describe_pr(pr, "d")
    else:
        assert gs.describe_pr(pr, "d") == (
            f'PR #5 "Feat" was merged as {merge} (seen merged in the session of d)')


def test_a_listing_before_the_pr_or_of_another_number_says_nothing_of_it():
    before = observe("git log --oneline -1", "abc1234 Merge pull request #5 from me/old", 1)
    other = observe("git log --oneline -1", "def5678 Unrelated work (#6)", 3)
    seen = [before, observe(*OPENED, 2), other]
    listed = [(n, h, s) for n, o in zip((1, 2, 3), seen) for h, s in o.listed]
    [pr] = [pr for pr in gs.pull_requests(seen, listed) if not pr.only_replaces]
    assert pr.state is None and "was opened" in gs.describe_pr(pr, "d")


def test_a_merge_listed_in_another_repository_is_another_prs():
    session = Session()
    session.bash('gh pr create --title "Feat" --body x', output="https://github.com/me/shop/pull/5")
    session.bash("cd /home/dev/other && git log --oneline -1",
                 output="abc1234 Merge pull request #5 from them/branch")
    session.bash("git log --oneline -1", output="0000aaa Not a merge")
    assert dict(_states(session))["shop PR #5"].startswith('PR #5 "Feat" was opened')
    session.bash("git log --oneline -1", output="abc1234 Feat (#5)")
    assert dict(_states(session))["shop PR #5"].startswith('PR #5 "Feat" was merged as abc1234')


def test_a_pr_view_object_followed_by_other_output_is_still_read():
    out = '{"mergedAt":"2026-07-30T20:56:34Z","state":"MERGED"}\n=== all PRs ===\n2\tT\tMERGED'
    assert gs.pr_states(("pr", "view", "2", "--json", "state"), out) == [
        (2, "MERGED", None, None, None)]


def test_a_plain_pr_view_tells_the_state_by_its_field_lines():
    out = ("title:\tFeat\nstate:\tMERGED\nauthor:\tme\nnumber:\t5\n"
           "url:\thttps://github.com/me/shop/pull/5\n--\nbody text state: OPEN")
    assert gs.pr_states(("pr", "view", "5"), out) == [(5, "MERGED", "Feat", None, None)]
    assert gs.pr_states(("pr", "view", "5"), "title:\tFeat\nauthor:\tme") == []


def test_a_pr_list_row_tells_an_opened_prs_later_state():
    listed = ("7\tOther work\tfeat/y\tOPEN\t2026-05-21T10:00:00Z\n"
              "5\tFeat\tfeat/x\tMERGED\t2026-05-21T09:00:00Z\n")
    seen = [observe(*OPENED, 1), observe("gh pr list --state all", listed, 2)]
    [pr] = gs.pull_requests(seen, [])
    assert gs.describe_pr(pr, "d") == 'PR #5 "Feat" was merged (seen merged in the session of d)'
    still_open = observe("gh pr list", "5\tFeat\tfeat/x\tDRAFT\t2026-05-21T09:00:00Z\n", 2)
    [pr] = gs.pull_requests([observe(*OPENED, 1), still_open], [])
    assert "was opened" in gs.describe_pr(pr, "d")


@pytest.mark.parametrize("command", [
    "git-filter-repo --version", "git filter-repo --version", "bfg --version",
    "git commit --help", "git push -h", "git --version", "git --help commit",
    "git -C sub rebase --help", "gh pr create --help", "git-lfs --version"])
def test_a_version_or_help_probe_runs_nothing(command):
    assert git_runs(command, "/srv/app") == []


@pytest.mark.parametrize("command", ["git grep -h x", "git commit -m x -- --help",
                                     "git filter-repo --invert-paths --path secrets"])
def test_a_word_that_only_looks_like_a_probe_leaves_the_command(command):
    assert len(git_runs(command, "/srv/app")) == 1


def test_asking_the_rewrite_tool_its_version_loses_no_commit():
    """Only a rewrite that ran makes the commits before it lost; a version probe ran none."""
    state = settle(COMMIT, PUSH, ("git-filter-repo --version", "a40bdd7"),
                   ("git filter-repo --help", "usage: git filter-repo --analyze"))
    assert [c.hash for c in state.commits] == ["1a2b3c4"]
    assert "pushed to github.com/me/repo" in gs.describe(state, "d")


@pytest.mark.parametrize("push", ["git push --dry-run origin main", "git push -n",
                                  "git push --dry-run && git push --dry-run --tags"])
def test_a_dry_run_push_moves_nothing_whatever_ref_lines_it_prints(push):
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: a")
    session.bash(push, output="To github.com:me/shop.git\n   0000aaa..1111111  main -> main")
    [(_, text)] = _states(session)
    assert "not pushed" in text and "pushed to" not in text


def test_a_dry_run_push_whose_outcome_never_showed_is_no_push_either():
    session = Session()
    session.bash("git commit -m a", output="[main 1111111] feat: a")
    session.tool("Bash", {"command": "git push --dry-run"}, answered=False)
    [(_, text)] = _states(session)
    assert "not pushed" in text and "outcome" not in text


def test_a_pull_request_gh_says_already_exists_was_not_opened_in_the_session():
    """Piped into ``tee`` gh's refusal exits 0; its URL line names the PR opened before."""
    said = ('a pull request for branch "feat/x" into branch "main" already exists:\n'
            "https://github.com/me/shop/pull/5")
    assert gs.pr_created(("pr", "create", "--fill"), said) is None
    assert gs.pr_created(("pr", "create", "--fill"), "https://github.com/me/shop/pull/5") == (
        5, "https://github.com/me/shop/pull/5", None, None)


def test_a_pr_only_listed_merged_is_told_only_to_end_a_stored_state():
    seen = [observe("git log --oneline -2",
                    "4e5f6a7 Add the cart page (#5)\n2b3c4d5 Merge pull request #4 from me/x", 1)]
    listed = [(1, h, s) for h, s in seen[0].listed]
    by_number = {pr.number: pr for pr in gs.pull_requests(seen, listed)}
    assert set(by_number) == {4, 5} and all(pr.only_replaces for pr in by_number.values())
    assert gs.describe_pr(by_number[5], "d") == (
        'PR #5 "Add the cart page" was merged as 4e5f6a7 (seen merged in the session of d)')
    # a title no other fact tells would keep a PR the session merged; this one is another
    # session's: finished whatever its title, so written only where it replaces
    assert gd.pr_done(by_number[5]) and gd.pr_told(by_number[5]) == []


def test_a_number_seen_open_or_on_another_repository_ends_nothing():
    open_now = [observe("gh pr list --state all",
                        "5\tAdd the cart page\tfeat/cart\tOPEN\t2026-03-01T00:00:00Z", 1),
                observe("git log --oneline -1", "4e5f6a7 Add the cart page (#5)", 2)]
    listed = [(2, h, s) for h, s in open_now[1].listed]
    assert gs.pull_requests(open_now, listed) == []
    elsewhere = observe("gh pr view 5 -R them/shop --json state", '{"state":"MERGED"}', 1)
    assert elsewhere.pr_other_repo and gs.pull_requests([elsewhere], []) == []
