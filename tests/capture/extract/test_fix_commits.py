"""A fix commit's stated cause is a lesson only when the record bears it out: a failure seen
since the previous commit, a cause naming something the session saw, and the first check
after the commit passing."""

from __future__ import annotations

from claimgraph.capture.extract.fix_commits import fix_commit_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

CAUSE = ("The page cache key `pages-v3` left out the locale, so the other languages were "
         "never rendered.")
SUBJECT = "fix(cache): key rendered pages by locale as well as version"
MESSAGE = f"{SUBJECT}\n\n{CAUSE}\n\nAdd the locale to the key."
CHECKS_PASS = "build\tpass\t1m2s\thttps://ci.example/run/1\t\nlint\tpass\t20s\thttps://ci.example/2\t"
CHECKS_FAIL = "build\tfail\t1m2s\thttps://ci.example/run/1\t\nlint\tpass\t20s\thttps://ci.example/2\t"


def _commit(session: Session, message: str = MESSAGE, made: bool = True) -> None:
    command = f"git add site/cache.py && git commit -m \"$(cat <<'EOF'\n" \
              f"{message}\nEOF\n)\""
    output = f"[fix/cache 1a2b3c4d] {message.splitlines()[0]}\n 1 file changed" if made \
        else "nothing to commit, working tree clean"
    session.bash(command, output=output)


def _session(*, report: str = "The French pages don't show French text after the deploy.",
             log: str = "cache hit: key=pages-v3, render skipped",
             message: str = MESSAGE, made: bool = True, after: str = CHECKS_PASS,
             reply: str | None = None, commit_before: bool = False,
             push: str | None = "git push") -> Session:
    session = Session()
    session.prompt("Serve the site in French and English.")
    if commit_before:
        session.bash("git commit -m 'feat: add locales'", output="[main 9f9f9f9] feat: ...")
    session.prompt(report)
    session.bash("gh run view 42 --log | tail -20", output=log)
    session.edit(f"{ROOT}/site/cache.py", "key = f'pages-{version}'",
                 "key = f'pages-{version}-{locale}'")
    _commit(session, message, made)
    if push is not None:
        session.bash(push, output="To github.com:me/site.git\n   0000aaa..1a2b3c4  fix/cache -> "
                     "fix/cache" if "dry" not in push else "")
    if reply is not None:
        session.prompt(reply)
    session.bash("gh pr checks 7 --watch", output=after)
    return session


def _found(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), None)
    return [found["object"] for found in fix_commit_candidates(view)]


def test_a_fix_borne_out_by_the_record_is_one_line_of_cause_and_fix():
    assert _found(_session()) == [
        f"{CAUSE} Fix (1a2b3c4): key rendered pages by locale as well as version"]


def test_the_lesson_is_an_observed_failure_report_citing_failure_commit_and_pass():
    kept = [c for c in _session().extract() if c.get("rule") == "fix-commits"]
    assert [c["source_type"] for c in kept] == ["failure-report"]
    assert [c["predicate"] for c in kept] == ["core/failure-mode"]
    assert [e.split(":")[0] for e in kept[0]["evidence"]] == [
        "transcript#L2", "transcript#L7", "transcript#L11"]


def test_no_check_after_the_commit_proves_nothing():
    assert _found(_session(after="")) == []


def test_the_first_check_after_the_commit_failing_refutes_it():
    assert _found(_session(after=CHECKS_FAIL)) == []


def test_checks_still_running_are_no_pass():
    running = "build\tpending\t0\thttps://ci.example/run/1\t\nlint\tpass\t20s\thttps://x/2\t"
    assert _found(_session(after=running)) == []


def test_the_person_saying_it_still_fails_refutes_it():
    assert _found(_session(reply="It still fails, the pages are in English.")) == []


def test_no_failure_seen_since_the_previous_commit_is_no_lesson():
    calm = _session(report="Looks good, now make the deploy faster.", log="deployed 3 pages",
                    commit_before=True)
    assert _found(calm) == []


def test_a_cause_naming_nothing_the_session_saw_explains_something_else():
    assert _found(_session(log="Error: rate limited")) == []


def test_a_commit_git_did_not_make_is_no_fix():
    assert _found(_session(made=False)) == []


def test_a_message_without_a_stated_cause_or_not_a_fix_is_no_lesson():
    assert _found(_session(message=f"{SUBJECT}\n\nAdd the locale to the key.")) == []
    assert _found(_session(message=f"feat(cache): cache pages by locale\n\n{CAUSE}")) == []


def test_a_hedged_cause_is_no_lesson():
    hedged = MESSAGE.replace("left out", "probably left out")
    assert _found(_session(message=hedged)) == []


def test_a_ci_listing_of_other_runs_proves_no_fix():
    listing = "completed\tsuccess\tdocs: tidy\tCI\tmain\tpush\t41\t1m\t2026-01-01T00:00:00Z"
    session = _session(after="")
    session.bash("gh run list --limit 3", output=listing)
    assert _found(session) == []


def _local(*, change: bool = True, fails_after: bool = False) -> Session:
    """A local loop: the test fails, the code changes, the test passes, then the commit."""
    session = Session()
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="FAILED tests/test_export.py::test_rows - flush_rows was never called")
    if change:
        session.edit(f"{ROOT}/export.py", "write(rows)", "flush_rows(); write(rows)")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    if fails_after:
        session.bash("pytest -q", error=True, output="FAILED tests/test_other.py::test_x")
    message = ("fix(export): flush rows before writing\n\nThe export wrote the file before "
               "`flush_rows` ran, so the last batch was never written.")
    _commit(session, message)
    return session


def test_a_check_passing_after_the_change_and_before_the_commit_proves_the_fix():
    assert _found(_local()) == [
        "The export wrote the file before `flush_rows` ran, so the last batch was never "
        "written. Fix (1a2b3c4): flush rows before writing"]


def test_a_pass_before_any_change_tests_no_fix():
    assert _found(_local(change=False)) == []


def test_a_check_failing_after_the_pass_leaves_the_fix_unproved():
    assert _found(_local(fails_after=True)) == []


def test_running_the_program_or_pushing_is_no_check():
    session = _session(after="")
    session.bash("python -m site.build --dry-run", output="ok")
    assert _found(session) == []


def test_a_fix_the_session_reverted_later_is_no_lesson():
    session = _session()
    session.bash("git revert --no-edit 1a2b3c4d", output="[fix/cache 5e6f7a8] Revert ...")
    assert _found(session) == []
    session = _session()
    session.bash("git revert --no-edit 9f9f9f9f", output="[fix/cache 5e6f7a8] Revert ...")
    assert len(_found(session)) == 1


def test_a_later_rebase_or_amend_leaves_the_commit_id_out():
    for command in ("git pull --rebase", "git pull", "git commit --amend --no-edit",
                    "git rebase origin/main", "git reset --soft HEAD~1"):
        session = _session()
        session.bash(command, output="ok")
        assert _found(session) == [
            f"{CAUSE} Fix: key rendered pages by locale as well as version"], command
    session = _session()
    session.bash("git log --oneline -3", output="1a2b3c4 fix(cache): key rendered pages")
    assert _found(session) == [
        f"{CAUSE} Fix (1a2b3c4): key rendered pages by locale as well as version"]


def _ungrounded(*, retried: bool) -> Session:
    """A test fails naming nothing of the cause; the fix passes; the commit names a
    function no tool ever printed. With ``retried``, a first attempt at the same commit was
    refused (a hook), so the message itself sits on an earlier command line."""
    session = Session()
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="FAILED tests/test_export.py::test_rows - AssertionError: 3 != 4")
    session.edit(f"{ROOT}/export.py", "write(rows)", "write(rows); close()")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    message = ("fix(export): close the writer before reading back\n\nThe export never called "
               "`rotate_buffers_now`, so the last batch was silently dropped.")
    if retried:
        command = f"git commit -m \"$(cat <<'EOF'\n{message}\nEOF\n)\""
        session.bash(command, error=True, output="trailing-whitespace....Failed")
    _commit(session, message)
    return session


def test_a_refused_attempt_at_the_same_commit_grounds_nothing_of_its_cause():
    assert _found(_ungrounded(retried=False)) == []
    assert _found(_ungrounded(retried=True)) == []


def test_the_person_saying_it_still_fails_after_a_fix_proved_before_the_commit_refutes_it():
    session = _local()
    session.prompt("It still fails on my machine, the last batch is missing.")
    assert _found(session) == []


def test_a_commit_made_without_a_message_on_its_line_still_ends_what_came_before():
    session = Session()
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="FAILED tests/test_export.py::test_rows - flush_rows was never called")
    session.edit(f"{ROOT}/export.py", "write(rows)", "flush_rows(); write(rows)")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    session.bash("git commit -F .git/MSG", output="[main 5e6f7a8] fix(export): flush rows")
    session.edit(f"{ROOT}/README.md", "Export", "Export rows")
    message = ("fix(export): flush rows before writing\n\nThe export wrote the file before "
               "`flush_rows` ran, so the last batch was never written.")
    _commit(session, message)
    assert _found(session) == []


def test_ci_checks_before_the_fix_was_pushed_are_the_previous_commits():
    """The pull request's checks run on what went up: a pass before the fix's push is the
    previous commit's, and proves nothing of the fix."""
    assert _found(_session(push=None)) == []
    assert _found(_session(push="git push --dry-run")) == []
    assert len(_found(_session(push="git push -u origin HEAD"))) == 1


def test_a_request_naming_error_handling_reports_no_failure():
    """"Add error handling …" asks for a feature: no failure was seen, so a fix commit's
    stated cause after it rests on the agent's word alone."""
    session = Session()
    session.prompt("Add error handling and clearer error messages to the importer.")
    session.bash("grep -n parse_row importer.py", output="12:def parse_row(line):")
    session.edit(f"{ROOT}/importer.py", "def parse_row(line):", "def parse_row(line: str):")
    session.bash("pytest -q", output="12 passed in 0.4s")
    message = ("fix(importer): guard empty rows\n\nThe importer crashed on empty rows because "
               "`parse_row` never checked the line length.")
    _commit(session, message)
    assert _found(session) == []
    reported = Session()
    reported.prompt("The importer throws an error on empty rows.")
    for event in session.events[1:]:
        reported.events.append(event)
    assert len(_found(reported)) == 1


def test_a_revert_of_head_right_after_the_fix_takes_it_back():
    session = _session()
    session.bash("git revert --no-edit HEAD", output="[fix/cache 5e6f7a8] Revert ...")
    assert _found(session) == []


LINT_CAUSE = ("fix(export): drop the shadowed `row_writer` import\n\nThe module imported "
              "`row_writer` twice, so the linter failed on the redefinition.")


def _lint_loop(proof: str, *, after_commit: bool = False, output: str = "") -> Session:
    """The linter fails, the code changes, then ``proof`` passes (before the commit, or
    after it with ``after_commit``)."""
    session = Session()
    session.bash("ruff check .", error=True,
                 output="export.py:3:1: F811 Redefinition of unused `row_writer`\n"
                        "Found 1 error.")
    session.edit(f"{ROOT}/export.py", "import row_writer\n", "")
    if not after_commit:
        session.bash(proof, output=output)
    _commit(session, LINT_CAUSE)
    if after_commit:
        session.bash(proof, output=output)
    return session


def test_a_pass_of_another_kind_proves_no_fix_of_a_failed_check():
    """The linter failed; the tests passing says nothing of the lint: no lesson, before or
    after the commit."""
    assert _found(_lint_loop("pytest -q", output="12 passed in 0.4s")) == []
    assert _found(_lint_loop("pytest -q", after_commit=True, output="12 passed in 0.4s")) == []


def test_a_lint_failure_left_open_does_not_unprove_the_tests_fix():
    """The tests failed, the code changed, the linter failed on something else, the tests
    passed: the fix of the tests is proved (the lint error is not what it answered); a
    lint failure alone is still answered only by lint."""
    session = Session()
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="FAILED tests/test_export.py::test_rows - flush_rows was never called")
    session.edit(f"{ROOT}/export.py", "write(rows)", "flush_rows(); write(rows)")
    session.bash("ruff check .", error=True,
                 output="cli.py:9:1: E501 Line too long (120 > 100)\nFound 1 error.")
    session.edit(f"{ROOT}/export.py", "flush_rows(); write(rows)", "flush_rows()\nwrite(rows)")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    _commit(session, "fix(export): flush rows before writing\n\nThe export wrote the file "
            "before `flush_rows` ran, so the last batch was never written.")
    assert len(_found(session)) == 1
    assert _found(_lint_loop("pytest -q", output="12 passed in 0.4s")) == []


def test_a_pass_of_the_same_kind_or_a_chain_holding_it_proves_the_fix():
    for proof, output in (("ruff check .", "All checks passed!"),
                          ("ruff check . && pytest -q", "All checks passed!\n12 passed"),
                          ("make lint", "ok")):
        assert len(_found(_lint_loop(proof, output=output))) == 1, proof
        assert len(_found(_lint_loop(proof, after_commit=True, output=output))) == 1, proof


def test_a_line_whose_status_is_not_the_checks_proves_nothing_of_it():
    """``ruff check .; pytest -q`` worked: its status is the tests', the lint may still fail."""
    assert _found(_lint_loop("ruff check .; pytest -q", output="12 passed")) == []


def test_ci_checks_passing_prove_a_local_failure_only_when_one_is_of_its_kind():
    tests_only = "unit tests\tpass\t1m2s\thttps://ci.example/run/1\t"
    with_lint = tests_only + "\nlint\tpass\t20s\thttps://ci.example/run/2\t"
    for checks, expected in ((tests_only, 0), (with_lint, 1)):
        session = _lint_loop("git push", after_commit=True,
                             output="To github.com:me/site.git\n   0000aaa..1a2b3c4  main -> main")
        session.bash("gh pr checks 7 --watch", output=checks)
        assert len(_found(session)) == expected, checks


def test_a_ci_failure_is_proved_fixed_only_by_ci_passing():
    """CI's build failed; a local test run passing proves nothing of it, CI passing after the
    fix went up does."""
    def loop(*, ci_after: bool) -> Session:
        session = Session()
        session.bash("gh run view 42", output="X fix/cache CI · 42\nJOBS\nX build in 1m\n"
                     "##[error]cache miss: key pages-v3")
        session.edit(f"{ROOT}/site/cache.py", "key = f'pages-{version}'",
                     "key = f'pages-{version}-{locale}'")
        session.bash("pytest -q", output="12 passed in 0.4s")
        _commit(session)
        if ci_after:
            session.bash("git push", output="To github.com:me/site.git\n   0000aaa..1a2b3c4  "
                         "fix/cache -> fix/cache")
            session.bash("gh pr checks 7 --watch", output=CHECKS_PASS)
        return session
    assert _found(loop(ci_after=False)) == []
    assert len(_found(loop(ci_after=True))) == 1


def _ci_then_local(ci_command: str, ci_output: str, local: str, local_output: str) -> Session:
    """CI failed (``ci_command`` showed it), the code changed, a local check passed, then
    the commit; nothing went up."""
    session = Session()
    session.bash(ci_command, output=ci_output)
    session.edit(f"{ROOT}/site/cache.py", "key = f'pages-{version}'",
                 "key = f'pages-{version}-{locale}'")
    session.bash(local, output=local_output)
    _commit(session)
    return session


def test_ci_failing_without_naming_its_check_is_answered_by_the_local_check_after_the_change():
    """A listing says only that CI failed, not which check: the local check run after the
    change is the proof an engineer has before pushing (a later CI failure would refute)."""
    listing = ("completed\tfailure\tfix: cache key\tCI\tfix/cache\tpush\t42\t1m\t"
               "2026-01-01T00:00:00Z\n##[error]cache miss: key pages-v3")
    assert len(_found(_ci_then_local("gh run list --limit 3", listing, "pytest -q",
                                     "12 passed in 0.4s"))) == 1


def test_ci_failing_a_named_check_is_answered_locally_only_by_that_kind():
    """CI's build job failed: a local build passing answers it, a local test run does not."""
    failed = "X fix/cache CI · 42\nJOBS\nX build in 1m\n##[error]cache miss: key pages-v3"
    assert len(_found(_ci_then_local("gh run view 42", failed, "npm run build",
                                     "built in 2.1s"))) == 1
    assert _found(_ci_then_local("gh run view 42", failed, "pytest -q",
                                 "12 passed in 0.4s")) == []


def _elsewhere(commit_line: str, *, before: str | None = None) -> Session:
    """``_local``'s loop, its fix committed by ``commit_line`` (after ``before``)."""
    session = Session()
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="FAILED tests/test_export.py::test_rows - flush_rows was never called")
    session.edit(f"{ROOT}/export.py", "write(rows)", "flush_rows(); write(rows)")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    if before:
        session.bash(before, output="Preparing worktree (new branch 'fix')")
    message = ("fix(export): flush rows before writing\n\nThe export wrote the file before "
               "`flush_rows` ran, so the last batch was never written.")
    session.bash(commit_line.format(msg=message), output="[main 1a2b3c4d] fix(export): flush")
    return session


def test_a_commit_made_in_another_repository_is_no_lesson_of_this_project():
    for line in ('cd ../vendored-lib && git commit -a -m "{msg}"',
                 'git -C /home/dev/other commit -a -m "{msg}"',
                 'cd ~/src/other && git commit -a -m "{msg}"',
                 'git --git-dir=/home/dev/other/.git --work-tree=/home/dev/other commit -a '
                 '-m "{msg}"',
                 'git --git-dir /srv/repos/other.git commit -a -m "{msg}"'):
        assert _found(_elsewhere(line)) == [], line
    assert len(_found(_elsewhere('git commit -a -m "{msg}"'))) == 1
    assert len(_found(_elsewhere('cd sub && git commit -a -m "{msg}"'))) == 1
    assert len(_found(_elsewhere('git --git-dir=.git --work-tree=. commit -a -m "{msg}"'))) == 1


def test_a_worktree_the_project_added_is_the_project_one_another_repository_added_is_not():
    ours = _elsewhere('cd ../shop-fix && git commit -a -m "{msg}"',
                      before="git worktree add -b fix ../shop-fix")
    assert len(_found(ours)) == 1
    theirs = _elsewhere('cd ../lib-fix && git commit -a -m "{msg}"',
                        before="cd ../lib && git worktree add -b fix ../lib-fix")
    assert _found(theirs) == []


def _missing_dependency() -> Session:
    """A test run fails on a missing module, the manifest gains it, the same run passes and
    a fix commit says why: the record's lesson and the fix commit's are one failure's."""
    session = Session()
    session.prompt("Export the report rows to CSV.")
    session.bash("pytest -q tests/test_export.py", error=True,
                 output="E   ModuleNotFoundError: No module named 'rowflush'\n1 error in 0.2s")
    session.edit(f"{ROOT}/requirements.txt", "pandas", "pandas\nrowflush")
    session.bash("pip install rowflush", output="Successfully installed rowflush-1.0")
    session.bash("pytest -q tests/test_export.py", output="4 passed in 0.3s")
    _commit(session, "fix(deps): declare the row flusher\n\nThe export imported `rowflush`, "
                     "which was missing from requirements.txt, so a fresh install failed.")
    return session


def test_one_failure_gives_one_lesson_the_records_own():
    lessons = [(c["rule"], c["object"]) for c in _missing_dependency().extract()
               if c["predicate"] == "core/failure-mode"]
    assert [rule for rule, _ in lessons] == ["lessons"], lessons
    assert "rowflush" in lessons[0][1]


def test_a_fix_commit_lesson_outlasts_an_earlier_sentence_and_stands_alone():
    from claimgraph.capture.extract.fix_commits import one_lesson_per_failure
    fix = {"rule": "fix-commits", "predicate": "core/failure-mode", "object": "A. Fix: b",
           "evidence": ["transcript#L2: pytest", "transcript#L9: 1a2b3c4 fix: b",
                        "transcript#L12: pytest"]}
    said = {"rule": "causes", "predicate": "core/failure-mode", "object": "A because c.",
            "evidence": ["transcript#L2: pytest", "transcript#L5: edit"]}
    other = {"rule": "lessons", "predicate": "core/failure-mode", "object": "`ruff` failed",
             "evidence": ["transcript#L14: ruff check", "transcript#L16: ruff check"]}
    assert one_lesson_per_failure([fix, said, other]) == [fix, other]
    record = {**other, "evidence": ["transcript#L4: pytest", "transcript#L8: pytest"]}
    assert one_lesson_per_failure([fix, record]) == [record]


def test_a_record_lesson_of_another_check_inside_the_loop_leaves_the_fix_commit_standing():
    """The tests failed; on the way to their fix the linter failed and was fixed (the record's
    own lesson of the lint). Two failures, two lessons: the lint one is no account of the tests'
    failure, so the fix commit's lesson stays."""
    from claimgraph.capture.extract.fix_commits import one_lesson_per_failure
    fix = {"rule": "fix-commits", "predicate": "core/failure-mode", "object": "A. Fix: b",
           "evidence": ["transcript#L2: pytest -q", "transcript#L9: 1a2b3c4 fix: b",
                        "transcript#L12: pytest -q"]}
    lint = {"rule": "lessons", "predicate": "core/failure-mode", "object": "`ruff` failed",
            "evidence": ["transcript#L4: ruff check .", "transcript#L6: ruff check ."]}
    assert one_lesson_per_failure([fix, lint]) == [fix, lint]
    same = {**lint, "evidence": ["transcript#L4: python -m pytest tests/test_x.py",
                                 "transcript#L8: pytest -q"]}
    assert one_lesson_per_failure([fix, same]) == [same]


def test_pipefail_counts_only_when_the_shell_sets_it():
    """A check piped into a program that is no filter: the line's status is that program's,
    unless ``set -o pipefail`` made it the check's too; the word in a file name sets nothing."""
    piped = "ruff check . --output-format json | python report.py"
    assert len(_found(_lint_loop(f"set -o pipefail; {piped}", output="ok"))) == 1
    assert len(_found(_lint_loop(f"set -euo pipefail; {piped}", output="ok"))) == 1
    named = "ruff check . --output-format json | python report_pipefail.py"
    assert _found(_lint_loop(named, output="ok")) == []
    quoted = "ruff check . --output-format json | python report.py --title 'no pipefail'"
    assert _found(_lint_loop(quoted, output="ok")) == []


def test_a_reset_or_revert_back_past_the_fix_takes_it_back():
    """git-reset(1) ``--hard HEAD~N`` drops the last N commits from the branch and the tree;
    git-revert(1) of ``HEAD~N`` undoes that commit: a fix among them is no lesson. A reset
    that keeps the tree (``--soft``), or one past other commits only, leaves it."""
    for later, kept in ((["git reset --hard HEAD~1"], 0), (["git reset --hard HEAD^"], 0),
                        (["git reset --soft HEAD~1"], 1),
                        (["git checkout -- export.py", "git reset --hard HEAD~1"], 0),
                        (["git pull", "git reset --hard HEAD~1"], 1)):
        session = _session()
        for command in later:
            session.bash(command, output="HEAD is now at 0a0a0a0 older")
        assert len(_found(session)) == kept, later
    session = _session()
    session.bash("git commit -am 'docs: note'", output="[fix/cache 2b2b2b2b] docs: note")
    session.bash("git revert --no-edit HEAD~1", output="[fix/cache 5e6f7a8] Revert ...")
    assert _found(session) == []
    session = _session()
    session.bash("git commit -am 'docs: note'", output="[fix/cache 2b2b2b2b] docs: note")
    session.bash("git reset --hard HEAD~1", output="HEAD is now at 1a2b3c4d fix")
    assert len(_found(session)) == 1


def test_a_reset_after_a_subagent_committed_does_not_count_the_fix_as_taken_back():
    """A subagent the session handed a task to committed after the fix: the session's ``git
    reset --hard HEAD~1`` afterwards undid the subagent's commit, not the fix (the subagent's
    events are read from its own file, not among the session's). A subagent that only looked
    moved nothing: the reset still takes the fix back."""
    from dataclasses import replace
    for sub_command, kept in (("git commit -am 'docs: note'", 1), ("git log --oneline", 0)):
        session = _session()
        session.tool("Task", {"description": "docs", "prompt": "Document the cache."},
                     output="Done.")
        session.bash(sub_command, output="[fix/cache 2b2b2b2b] docs: note")
        session.events[-2] = replace(session.events[-2], subagent_id="a1", is_sidechain=True)
        session.events[-1] = replace(session.events[-1], subagent_id="a1", is_sidechain=True)
        session.bash("git reset --hard HEAD~1", output="HEAD is now at 1a2b3c4d fix")
        assert len(_found(session)) == kept, sub_command


def test_a_revert_that_stopped_on_a_conflict_and_was_aborted_takes_nothing_back():
    """git-revert(1): a revert that conflicts stops and leaves the conflict for the person;
    ``--abort`` "cancel[s] the operation and return[s] to the pre-sequence state": the fix
    stands. Finished with ``--continue``, the revert took it back."""
    for finish, kept in (("git revert --abort", 1), ("git revert --continue", 0)):
        session = _session()
        session.bash("git revert --no-edit 1a2b3c4", error=True,
                     output="error: could not revert 1a2b3c4... fix\nCONFLICT (content)")
        session.bash(finish, output="" if "abort" in finish else "[fix/cache 5e6f7a8] Revert")
        assert len(_found(session)) == kept, finish
