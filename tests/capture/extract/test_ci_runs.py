"""Which CI run is a commit's, read from what gh printed (``ci_runs``)."""

from __future__ import annotations

from claimgraph.capture.extract.ci_runs import (
    RunRow, checked_runs, listed_runs, runs_for, viewed_run)

LIST = ("in_progress\t\tfix: pin the toolchain\tCI\tmain\tpush\t5550003\t13s\t2026-01-09T23:28Z\n"
        "completed\tsuccess\tAdd a docs page\tDocs\tdocs-page\tpush\t5550002\t40s\t"
        "2026-01-09T23:20Z\n"
        "completed\tfailure\tci: add a build job\tCI\tmain\tpush\t5550001\t1m\t2026-01-09T23:10Z\n")


def test_a_run_list_row_gives_its_runs_title_and_branch():
    rows = listed_runs(LIST)
    assert rows["5550003"] == RunRow(title="fix: pin the toolchain", branch="main")
    assert rows["5550002"].branch == "docs-page"
    assert listed_runs("STATUS  TITLE  WORKFLOW\n✓  Add a docs page  Docs  docs-page") == {}


def test_the_newest_row_is_not_the_commits_run_unless_it_names_the_commit_or_branch():
    rows = listed_runs(LIST)
    assert runs_for(rows["5550003"], "fix: pin the toolchain", set())
    assert runs_for(rows["5550001"], "fix: pin the toolchain", {"main"})
    assert not runs_for(rows["5550002"], "fix: pin the toolchain", {"main"})
    assert not runs_for(None, "fix: pin the toolchain", {"main"})


def test_a_run_heading_names_its_branch_and_pr_checks_link_the_heads_runs():
    assert viewed_run("Refreshing run status every 3 seconds.\n\n* main CI · 5550003\n") == {
        "5550003": RunRow(branch="main")}
    assert viewed_run("no heading here") == {}
    checks = "build\tpass\t2m\thttps://github.com/o/r/actions/runs/5550004/job/77\n"
    assert runs_for(checked_runs(checks)["5550004"], None, set())
