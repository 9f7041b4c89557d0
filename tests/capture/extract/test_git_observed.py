"""What git printed last overrides the tally of the session's git commands (issue 22)."""

from __future__ import annotations

from claimgraph.capture.extract import git_observed
from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic import git_observed as go

from .extract_helpers import ROOT, Session

COMMIT = "[feat/x 1a2b3c4] feat: add the parser\n 1 file changed"
PUSH = "To github.com:me/shop.git\n   0000aaa..1a2b3c4  feat/x -> feat/x"


def _state(session: Session) -> str:
    view = SessionView.of(session.transcript(), ROOT)
    found = [c["object"] for c in git_state_candidates(view) if c["subject"] == "shop"]
    assert len(found) <= 1
    return found[0] if found else ""


def _pushed() -> Session:
    s = Session()
    s.bash("git commit -m 'feat: add the parser'", output=COMMIT)
    s.bash("git push", output=PUSH)
    return s


def _typed(s: Session, command: str, output: str) -> None:
    s.event("meta", text=f"<bash-input>{command}</bash-input>", derived=True)
    s.event("meta", text=f"<bash-stdout>{output}</bash-stdout><bash-stderr></bash-stderr>",
            derived=True)


def test_status_showing_the_branch_ahead_takes_back_a_push_the_tally_credited():
    s = _pushed()
    assert "pushed to github.com/me/shop" in _state(s)
    s.bash("git status", output="On branch feat/x\nYour branch is ahead of 'origin/feat/x' by "
                                "1 commit.\n\nnothing to commit, working tree clean")
    text = _state(s)
    assert "not pushed" in text and "pushed to" not in text


def test_status_in_step_after_the_push_leaves_it_pushed():
    s = _pushed()
    s.bash("git status", output="On branch feat/x\nYour branch is up to date with "
                                "'origin/feat/x'.\n\nnothing to commit, working tree clean")
    assert "pushed to github.com/me/shop" in _state(s)


def test_diverged_branch_says_so_instead_of_pushed():
    s = _pushed()
    s.bash("git status", output="On branch feat/x\nYour branch and 'origin/feat/x' have "
                                "diverged,\nand have 1 and 2 different commits each, respectively.")
    text = _state(s)
    assert "had diverged (1 and 2 different commits each" in text
    assert "pushed to" not in text and "not pushed" not in text


def test_a_status_before_the_commit_says_nothing_of_it():
    s = Session()
    s.bash("git status", output="On branch feat/x\nYour branch and 'origin/feat/x' have "
                                "diverged,\nand have 1 and 2 different commits each, respectively.")
    s.bash("git pull --rebase", output="Successfully rebased and updated refs/heads/feat/x.")
    s.bash("git commit -m 'feat: add the parser'", output=COMMIT)
    s.bash("git push", output=PUSH)
    text = _state(s)
    assert "diverged" not in text and "pushed to github.com/me/shop" in text


def test_another_branch_left_diverged_is_not_the_work_s_state():
    s = _pushed()
    s.bash("git -C /home/dev/shop status", output="On branch main\nYour branch and "
           "'origin/main' have diverged,\nand have 1 and 2 different commits each, respectively.")
    text = _state(s)
    assert "diverged" not in text and "pushed to github.com/me/shop" in text


def test_edits_after_the_last_commit_are_likely_uncommitted():
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b")
    s.edit(f"{ROOT}/.claude/notes.md", "a", "b")  # the harness's notes are no work
    s.edit("/tmp/elsewhere.py", "a", "b")
    text = _state(s)
    assert "1 file edited after the last commit (`src/shop/parser.py`), likely uncommitted" \
        in text


def test_a_clean_status_after_the_edits_says_nothing_is_left():
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b")
    s.bash("git status", output="On branch feat/x\nnothing to commit, working tree clean")
    assert "edited after" not in _state(s)


def test_a_commit_whose_outcome_never_showed_leaves_the_edits_untold():
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b")
    assert "edited after" in _state(s)
    s.tool("Bash", {"command": "git add -A && git commit -m 'fix: parser'"}, answered=False)
    assert "edited after" not in _state(s)


def test_a_commit_that_failed_leaves_the_edits_uncommitted():
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b")
    s.bash("git commit -am 'fix: parser'", error=True, output="pre-commit hook failed")
    assert "1 file edited after the last commit" in _state(s)


def test_a_commit_made_in_a_line_whose_push_failed_took_the_edits():
    """``git commit … && git push``: the push was refused, which fails the whole line, but
    git's summary shows the commit was made."""
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b")
    s.bash("git add -A && git commit -m 'fix: parser' && git push", error=True,
           output=" ! [rejected]        main -> main (fetch first)\nerror: failed to push "
                  "some refs\n[main 4ade307] fix: parser\n 1 file changed")
    assert "edited after" not in _state(s)


def test_an_edit_that_failed_is_no_edit():
    s = _pushed()
    s.edit(f"{ROOT}/src/shop/parser.py", "a", "b", error=True,
           output="<tool_use_error>String to replace not found in file.</tool_use_error>")
    assert "edited after" not in _state(s)


def test_a_command_the_person_typed_counts_as_git_printed_it():
    s = _pushed()
    _typed(s, "git checkout -b release/v2 &amp;&amp; git commit -m 'chore: release'",
           "Switched to a new branch 'release/v2'\n[release/v2 9f8e7d6] chore: release\n"
           " 1 file changed")
    text = _state(s)
    assert "1 commit on branch `release/v2`: 9f8e7d6" in text
    assert "the checkout was on `release/v2` at the end" in text


def test_a_typed_command_git_refused_proves_nothing():
    s = _pushed()
    _typed(s, "git checkout -b release/v2",
           "fatal: a branch named 'release/v2' already exists")
    assert "release/v2" not in _state(s)


def test_a_branch_the_harness_recorded_otherwise_leaves_the_checkout_untold():
    s = _pushed()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.prompt("thanks", git_branch="feat/x")
    assert "the checkout was on `feat/x` at the end" in _state(s)
    s.prompt("thanks", git_branch="hotfix/y")
    text = _state(s)
    assert "checkout was on" not in text and "pushed to github.com/me/shop" in text
    other = _pushed()
    other.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    other.prompt("thanks", git_branch="hotfix/y", cwd="/home/dev/other")  # another folder
    assert "the checkout was on `feat/x` at the end" in _state(other)


def test_upstream_in_reads_long_and_short_statuses():
    short = go.upstream_in("## feat/x...origin/feat/x [ahead 2, behind 1]\n M a.py", 7)
    assert short == go.Upstream(7, "feat/x", "origin/feat/x", 2, 1) and short.diverged
    assert go.upstream_in("## main...origin/main\n", 1) is None
    long = go.upstream_in("On branch main\nYour branch is behind 'origin/main' by 3 commits, "
                          "and can be fast-forwarded.", 2)
    assert long == go.Upstream(2, "main", "origin/main", 0, 3) and not long.diverged
    assert go.upstream_in("nothing to commit", 3) is None


def test_commits_a_log_lists_above_the_session_s_own_are_its_work_and_went_up():
    s = Session()
    s.bash("git commit -m 'docs: the plan'", output="[feat/x 1a2b3c4] docs: the plan\n 1 file")
    # a sub-agent committed twice; the main agent sees them only in this log before a push
    s.bash("git log --oneline origin/main..HEAD && git push -u origin feat/x",
           output="9f9f9f9 feat: second step\n8e8e8e8 feat: first step\n"
                  "1a2b3c4 docs: the plan\nTo github.com:me/shop.git\n"
                  " * [new branch]      feat/x -> feat/x")
    s.bash("git commit -m 'fix: types'", output="[feat/x 7d7d7d7] fix: types\n 1 file changed")
    text = _state(s)
    assert "4 commits on branch `feat/x`: 1a2b3c4, 8e8e8e8, 9f9f9f9, 7d7d7d7" in text
    assert "up to 9f9f9f9, 1 later not pushed" in text


def test_a_log_of_another_branch_or_after_a_pull_adds_nothing():
    s = Session()
    s.bash("git commit -m 'docs: the plan'", output="[feat/x 1a2b3c4] docs: the plan\n 1 file")
    s.bash("git log --oneline --all", output="9f9f9f9 feat: someone's\n1a2b3c4 docs: the plan")
    s.bash("git pull", output="Updating 1a2b3c4..8e8e8e8\nFast-forward\n a.py | 2 +-\n"
                              " 1 file changed, 1 insertion(+), 1 deletion(-)")
    s.bash("git log --oneline -3", output="8e8e8e8 feat: pulled in\n1a2b3c4 docs: the plan")
    text = _state(s)
    assert "1 commit on branch `feat/x`: 1a2b3c4" in text
    assert "9f9f9f9" not in text and "8e8e8e8" not in text


def test_a_commit_a_log_listed_and_a_later_reset_dropped_is_not_told():
    s = Session()
    s.bash("git commit -m 'ci: lint'", output="[feat/x 1a2b3c4] ci: lint\n 1 file changed")
    s.bash("git push -u origin feat/x",
           output="To github.com:me/shop.git\n * [new branch]      feat/x -> feat/x")
    s.bash("git commit -m 'tmp: throwaway'", output="[feat/x 9f9f9f9] tmp: throwaway\n 1 file")
    s.bash("git log --oneline -3", output="9f9f9f9 tmp: throwaway\n1a2b3c4 ci: lint")
    s.bash("git reset --hard HEAD~1", output="HEAD is now at 1a2b3c4 ci: lint")
    s.bash("git push --force-with-lease origin feat/x",
           output="To github.com:me/shop.git\n"
                  " + 9f9f9f9...1a2b3c4 feat/x -> feat/x (forced update)")
    text = _state(s)
    assert "9f9f9f9" not in text and "later not pushed" not in text
    assert "1 commit on branch `feat/x`: 1a2b3c4" in text


def test_a_merge_listed_above_adds_nothing():
    s = Session()
    s.bash("git commit -m 'docs: the plan'", output="[feat/x 1a2b3c4] docs: the plan\n 1 file")
    s.bash("git log --oneline", output="9f9f9f9 Merge branch 'main' into feat/x\n"
                                       "1a2b3c4 docs: the plan")
    assert "9f9f9f9" not in _state(s)


def test_a_history_rewrite_then_a_forced_push_is_told():
    s = Session()
    s.bash("git commit -m 'chore: scrub'", output="[main 1a2b3c4] chore: scrub\n 1 file")
    s.bash("git filter-repo --path secrets --invert-paths --force",
           output="Parsed 9 commits\nHEAD is now at 5e5e5e5 chore: scrub\n")
    s.bash("git push origin --force --all",
           output="To github.com:me/shop.git\n + 0a0a0a0...5e5e5e5 main -> main (forced update)")
    s.bash("git commit -m 'docs: notes'", output="[main 6f6f6f6] docs: notes\n 1 file")
    s.bash("git push origin main", output="To github.com:me/shop.git\n"
                                          "   5e5e5e5..6f6f6f6  main -> main")
    text = _state(s)
    assert "history rewritten (`git filter-repo` removing `secrets` from every commit) then " \
           "force-pushed (`main` to github.com/me/shop)" in text


def test_a_forced_push_with_no_whole_history_rewrite_adds_no_note():
    s = Session()
    s.bash("git filter-repo --version", output="a40bce548d2c")
    s.bash("git commit --amend -m 'feat: add the parser'", output=COMMIT)
    s.bash("git push --force", output="To github.com:me/shop.git\n"
                                      " + 0a0a0a0...1a2b3c4 feat/x -> feat/x (forced update)")
    text = _state(s)
    assert "pushed to github.com/me/shop (forced)" in text
    assert "history rewritten" not in text


def test_a_typed_line_git_refused_in_part_still_shows_the_tag_made_again_and_pushed():
    s = _pushed()
    _typed(s, "git tag v1", "")
    _typed(s, "git push origin feat/x --tags",
           "To github.com:me/shop.git\n * [new tag]         v1 -&gt; v1\n"
           " ! [rejected]        feat/x -&gt; feat/x (fetch first)\n"
           "error: failed to push some refs to 'github.com:me/shop.git'")
    _typed(s, "git tag -d v1 &amp;&amp; git push origin :refs/tags/v1 &amp;&amp; git tag v1 "
              "&amp;&amp; git push origin feat/x --tags",
           "Deleted tag 'v1' (was 1a2b3c4)\nTo github.com:me/shop.git\n - [deleted]         v1\n"
           "To github.com:me/shop.git\n * [new tag]         v1 -&gt; v1\n"
           " ! [remote rejected] feat/x -&gt; feat/x (protected branch hook declined)\n"
           "error: failed to push some refs to 'github.com:me/shop.git'")
    text = _state(s)
    assert "tag `v1` deleted then created again then pushed" in text
    assert "pushed to github.com/me/shop" in text  # the rejected branch changes nothing


def test_a_tag_deleted_last_stays_deleted():
    s = _pushed()
    s.bash("git tag v1 && git push origin v1",
           output="To github.com:me/shop.git\n * [new tag]         v1 -> v1")
    s.bash("git push origin :refs/tags/v1 && git tag -d v1",
           output="To github.com:me/shop.git\n - [deleted]         v1\nDeleted tag 'v1' (was 1)")
    text = _state(s)
    assert "tag `v1` created then pushed then deleted on the remote then deleted" in text
    assert "pushed;" not in text.split("tag `v1`")[1]


def test_a_quiet_rebasing_pull_then_a_log_gives_the_commit_its_new_id():
    s = _pushed()
    s.bash("git commit -q -m 'fix: the edge case' && git log --oneline -1",
           output="5d5d5d5 fix: the edge case")
    s.bash("git pull --rebase -q; git push -q; git log --oneline -3",
           output="6e6e6e6 fix: the edge case\n4c4c4c4 docs: someone else's\n"
                  "1a2b3c4 feat: add the parser")
    text = _state(s)
    assert "2 commits on branch `feat/x`: 1a2b3c4, 6e6e6e6" in text
    assert "5d5d5d5" not in text and "4c4c4c4" not in text


def test_a_log_after_a_plain_pull_renames_nothing():
    s = _pushed()
    s.bash("git commit -q -m 'fix: the edge case' && git log --oneline -1",
           output="5d5d5d5 fix: the edge case")
    s.bash("git pull -q; git log --oneline -3",
           output="6e6e6e6 fix: the edge case\n5d5d5d5 fix: the edge case")
    assert "1a2b3c4, 5d5d5d5" in _state(s)


def test_a_commit_whose_outcome_never_showed_after_a_push_says_how_far_the_push_reaches():
    s = _pushed()
    s.tool("Bash", {"command": "git add a.py && git commit -m 'docs: more'"}, answered=False)
    text = _state(s)
    assert "pushed to github.com/me/shop up to 1a2b3c4; a later commit ran but its " \
           "outcome was never seen" in text


def test_a_push_after_the_commit_whose_outcome_never_showed_took_it():
    s = _pushed()
    s.tool("Bash", {"command": "git commit -m 'docs: more'"}, answered=False)
    s.bash("git push", output="To github.com:me/shop.git\n   1a2b3c4..2b3c4d5  feat/x -> feat/x")
    assert "outcome was never seen" not in _state(s)


def test_the_person_s_push_after_the_commit_whose_outcome_never_showed_took_it():
    s = _pushed()
    s.tool("Bash", {"command": "git commit -m 'docs: more'"}, answered=False)
    s.prompt("I pushed")
    assert "outcome was never seen" not in _state(s)


def test_a_later_commit_attempt_leaves_an_earlier_unseen_one_untold():
    s = _pushed()
    s.tool("Bash", {"command": "git commit -m 'docs: more'"}, answered=False)
    s.bash("git commit -m 'docs: more' && git push", error=True,
           output="[feat/x 2b3c4d5] docs: more\n 1 file changed\nfatal: could not read")
    assert "outcome was never seen" not in _state(s)


def test_a_commit_seen_after_the_push_is_told_as_usual():
    s = _pushed()
    s.bash("git commit -m 'docs: more'", output="[feat/x 2b3c4d5] docs: more\n 1 file")
    text = _state(s)
    assert "outcome was never seen" not in text and "1 later not pushed" in text


def test_a_commit_git_summarised_in_a_line_that_failed_later_was_made():
    """``git commit … && git push``: the push was refused, which fails the whole line; git's
    summary of the commit says it was made, and nothing says it went up."""
    s = _pushed()
    s.bash("git commit -am 'fix: parser' && git push", error=True,
           output="[feat/x 4ade307] fix: parser\n 1 file changed\n ! [rejected]        "
                  "feat/x -> feat/x (fetch first)\nerror: failed to push some refs")
    text = _state(s)
    assert "2 commits on branch `feat/x`: 1a2b3c4, 4ade307" in text
    assert "up to 1a2b3c4, 1 later not pushed" in text


def test_a_summary_after_a_harness_s_failure_label_is_git_s_own():
    s = _pushed()
    s.bash("git commit -am 'fix: parser' && git push origin feat/x", error=True,
           output="failed in sandbox with execution error: exit code: 128, stdout: "
                  "[feat/x 4ade307] fix: parser\n 1 file changed")
    assert "1 later not pushed" in _state(s)


def test_a_failed_line_that_may_have_moved_head_again_shows_no_commit():
    s = _pushed()
    s.bash("git commit -am 'wip' && git reset --hard HEAD~1 && false", error=True,
           output="[feat/x 4ade307] wip\n 1 file changed\nHEAD is now at 1a2b3c4 feat")
    s.bash("git commit -am 'fix' && git push", error=True,
           output="[feat/x 5bcd123] fix\n[feat/x 6cde234] again\nerror: failed to push")
    text = _state(s)
    assert "4ade307" not in text and "5bcd123" not in text and "pushed to" in text


def _pushed_then_committed() -> Session:
    """The session's commit pushed, a sub-agent's two commits, then the session's own."""
    s = _pushed()
    s.bash("git commit -m 'fix: types'", output="[feat/x 7d7d7d7] fix: types\n 1 file changed")
    return s


def test_commits_a_log_lists_between_two_of_the_session_s_are_its_work():
    s = _pushed_then_committed()
    s.bash("git log --oneline", output="7d7d7d7 fix: types\n9f9f9f9 feat: second step\n"
                                       "8e8e8e8 feat: first step\n1a2b3c4 feat: add the parser")
    text = _state(s)
    assert "4 commits on branch `feat/x`: 1a2b3c4, 8e8e8e8, 9f9f9f9, 7d7d7d7" in text
    assert "up to 1a2b3c4, 3 later not pushed" in text


def test_a_log_cut_at_its_limit_makes_the_counts_at_least():
    """The log, marked off by echoes, ran in a line that failed later (an ``ls``)."""
    s = _pushed_then_committed()
    s.bash('echo "--- head ---" && git log --oneline -2 && echo "--- files ---" && ls x*',
           error=True, output="Exit code 1\n--- head ---\n7d7d7d7 fix: types\n"
                              "9f9f9f9 feat: second step\n--- files ---\nls: no matches: x*")
    text = _state(s)
    # the ids are not a run in order: commits the log never reached may lie below 9f9f9f9
    assert "at least 3 commits on branch `feat/x`: 1a2b3c4, …, 9f9f9f9, 7d7d7d7" in text
    assert "up to 1a2b3c4, at least 2 later not pushed" in text


def test_below_the_log_adds_nothing_it_cannot_place():
    s = _pushed_then_committed()
    # not cut at a limit, yet it never reaches the session's earlier commit: not this history
    s.bash("git log --oneline", output="7d7d7d7 fix: types\n9f9f9f9 feat: second step")
    # its two markers print alike: which lines are the log's, the output does not say
    s.bash('echo "---" && git log --oneline -2 && echo "---" && ls x*', error=True,
           output="---\n7d7d7d7 fix: types\n8e8e8e8 feat: first step\n---\nls: x*: no such")
    assert "2 commits on branch `feat/x`: 1a2b3c4, 7d7d7d7" in _state(s)


def test_a_push_between_the_two_commits_may_have_carried_what_the_log_lists_below():
    s = _pushed()
    s.bash("git push", output="Everything up-to-date")
    s.bash("git push", output=PUSH.replace("1a2b3c4", "9f9f9f9"))
    s.bash("git commit -m 'fix: types'", output="[feat/x 7d7d7d7] fix: types\n 1 file changed")
    s.bash("git log --oneline -2", output="7d7d7d7 fix: types\n9f9f9f9 feat: second step")
    assert "9f9f9f9" not in _state(s).split("pushed")[0]


def test_what_a_log_lists_below_the_session_s_first_commit_is_the_history_it_started_from():
    s = Session()
    s.bash("git commit -m 'feat: add the parser'", output=COMMIT)
    s.bash("git log --oneline -3", output="1a2b3c4 feat: add the parser\n"
                                         "0f0f0f0 chore: older\n0e0e0e0 chore: oldest")
    text = _state(s)
    assert "1 commit on branch `feat/x`: 1a2b3c4" in text and "0f0f0f0" not in text


def _last_tried(session: Session) -> int:
    view = SessionView.of(session.transcript(), ROOT)
    first = git_observed._last_tried(view)
    assert view.memo["git_observed.last_tried"] == first  # read once per view, then kept
    return first


def test_the_last_line_that_may_have_taken_the_edits_away():
    assert _last_tried(Session()) == -1  # no call at all
    one = Session()
    stash = one.bash("git stash", output="Saved working directory and index state WIP")
    assert _last_tried(one) == stash.line
    many = Session()
    many.bash("git commit -m 'feat: add the parser'", output=COMMIT)
    went = many.bash("git commit -m 'feat: more' && git push", error=True,
                     output="[feat/x 5d6e7f8] feat: more\n 1 file changed\nerror: failed to push")
    many.bash("git checkout main", error=True, output="error: pathspec 'main' did not match")
    many.bash("git status", output="On branch feat/x")
    assert _last_tried(many) == went.line  # a failed line counts when its commit went through
    _typed(many, "git restore src/app.py", "")
    assert _last_tried(many) == many.events[-2].line  # and what the person typed at the prompt
