"""Lessons from a CI loop: a failed step's log, the commit that followed, a later run past it."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.ci_lessons import (
    StepFailure, commit_subject, failed_steps, got_past)

from .extract_helpers import ROOT, Session

LOG_1 = ("build\tCompile\t2026-01-09T23:22:54.1Z Resolving dependencies\n"
         "build\tCompile\t2026-01-09T23:22:54.9Z error: linker `cc` not found\n"
         "build\tCompile\t2026-01-09T23:22:55.2Z ##[error]Process completed with exit code 1.\n")
LOG_2 = ("build\tPackage\t2026-01-09T23:40:43.6Z Error: archive name is not valid\n"
         "build\tPackage\t2026-01-09T23:40:43.7Z ##[error]Process completed with exit code 1.\n")
COMMIT = ("git add .github/workflows/ci.yml && git commit -m \"$(cat <<'EOF'\n"
          "fix: install build-essential before compiling in CI\n\nBody.\nEOF\n)\"")
#: ``gh run list`` after the push: the new run's row names the commit (its title), the older
#: run's row another commit.
LISTED = ("queued\t\tfix: install build-essential before compiling in CI\tCI\tmain\tpush\t"
          "2222222\t3s\t2026-01-09T23:28:06Z\n"
          "completed\tfailure\tci: add a build job\tCI\tmain\tpush\t1111111\t1m11s\t"
          "2026-01-09T23:21:48Z\n")


def _loop(later: str) -> Session:
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: apt-get install")
    session.bash(COMMIT, output="[main abc1234] fix: install build-essential")
    session.bash("gh run list --limit 2", output=LISTED)
    session.bash("gh run view 2222222 --log-failed", output=later)
    return session


def _lessons(session: Session) -> list[str]:
    return [c["object"] for c in session.extract() if c["predicate"] == "core/failure-mode"]


def test_a_ci_step_past_its_failure_after_a_commit_is_a_lesson():
    assert _lessons(_loop(LOG_2)) == [
        "CI job `build` step `Compile` failed: error: linker `cc` not found; fixed by install "
        "build-essential before compiling in CI (editing .github/workflows/ci.yml)"]


def test_the_same_step_failing_the_same_way_proves_nothing():
    assert _lessons(_loop(LOG_1)) == []


def test_a_fix_no_later_run_was_looked_at_for_is_only_hoped():
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: x")
    session.bash(COMMIT, output="[main abc1234] fix")
    assert _lessons(session) == []


@pytest.mark.parametrize("later", [
    "✓ build in 2m\n  ✓ Set up job\n  ✓ Compile\n",  # the failed step ticked
    "✓ build in 4m5s (ID 59966857554)\n",  # the whole job ticked
], ids=["step", "job"])
def test_a_later_run_showing_the_step_or_its_job_ticked_proves_it(later: str):
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: x")
    session.bash(COMMIT, output="[main abc1234] fix")
    session.bash("gh run list --limit 2", output=LISTED)
    session.bash("gh run watch 2222222", output=later)
    assert len(_lessons(session)) == 1


def _unlisted(*looks: tuple[str, str]) -> Session:
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: x")
    session.bash(COMMIT, output="[main abc1234] fix")
    for command, output in looks:
        session.bash(command, output=output)
    return session


def test_a_later_run_nothing_ties_to_the_commit_proves_nothing():
    """``gh run list`` shows recent runs of any commit and branch: a run the session watched
    next is the commit's only when what gh printed says so."""
    assert _lessons(_unlisted(("gh run view 2222222 --log-failed", LOG_2))) == []
    other = ("completed\tsuccess\tAdd the docs site\tCI\tdocs-site\tpush\t2222222\t1m\t"
             "2026-01-09T23:28:06Z\n")
    assert _lessons(_unlisted(("gh run list --limit 3", other),
                              ("gh run view 2222222 --log-failed", LOG_2))) == []


def test_a_run_older_than_the_failed_one_proves_nothing_even_on_its_branch():
    older = ("completed\tfailure\tci: add a build job\tCI\tmain\tpush\t1111111\t1m\t"
             "2026-01-09T23:21:48Z\n"
             "completed\tsuccess\tci: first build\tCI\tmain\tpush\t1111000\t1m\t"
             "2026-01-09T22:01:00Z\n")
    assert _lessons(_unlisted(("gh run list", older),
                              ("gh run watch 1111000", "✓ build in 2m\n"))) == []


def test_a_run_tied_by_its_branch_its_heading_or_the_pull_requests_checks_proves_it():
    same_branch = ("completed\tfailure\tci: add a build job\tCI\tmain\tpush\t1111111\t1m\t"
                   "2026-01-09T23:21:48Z\n")
    ticked = "✓ build in 2m\n  ✓ Set up job\n  ✓ Compile\n"
    # the failed run's row names main; the later run's heading does too
    assert len(_lessons(_unlisted(("gh run list", same_branch),
                                  ("gh run watch 2222222", f"✓ main CI · 2222222\n{ticked}")))) == 1
    checks = "build\tpass\t2m\thttps://github.com/o/r/actions/runs/2222222/job/3\n"
    assert len(_lessons(_unlisted(("gh pr checks 12", checks),
                                  ("gh run watch 2222222", ticked)))) == 1


def test_looking_at_the_same_run_again_proves_nothing():
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: x")
    session.bash(COMMIT, output="[main abc1234] fix")
    session.bash("gh run view 1111111 --log-failed", output=LOG_2)
    assert _lessons(session) == []


def test_a_failed_log_is_read_per_step_with_its_telling_line():
    assert failed_steps(LOG_1) == [StepFailure("build", "Compile", "error: linker `cc` not found")]
    assert failed_steps("no tabs here\n##[error]Process completed with exit code 1.") == []


def test_a_commit_subject_loses_its_conventional_prefix():
    assert commit_subject(COMMIT) == "install build-essential before compiling in CI"
    assert commit_subject('git commit -m "ci(build): pin the runner image"') == \
        "pin the runner image"
    assert commit_subject('git commit -m "wip"') is None  # says nothing


def test_got_past_needs_the_step_ticked_or_its_error_gone():
    failure = StepFailure("build", "Compile", "error: linker `cc` not found")
    assert got_past(failure, LOG_2, set())
    assert not got_past(failure, LOG_1, set())
    assert got_past(failure, None, {"Compile"})
    assert not got_past(failure, None, set())


def test_a_later_log_without_the_job_proves_nothing():
    failure = StepFailure("build", "Compile", "error: linker `cc` not found")
    other_job = ("deploy\tPush\t2026-01-09T23:40:43.6Z Error: registry refused the push\n"
                 "deploy\tPush\t2026-01-09T23:40:43.7Z "
                 "##[error]Process completed with exit code 1.\n")
    assert not got_past(failure, other_job, set())  # build may have been skipped
