"""Which CI run is a commit's, as gh printed it.

``gh run list`` lists the repository's recent runs of any commit, branch and workflow: the
newest row is not "the run of the commit just pushed", and a run id the session went on to
watch is not that commit's run because it was listed after the push. A run counts for a commit
only when what gh printed ties it to that commit or its branch:

- a ``gh run list`` row (``status, conclusion, title, workflow, branch, event, id, elapsed,
  started``, tab-separated when gh writes to a pipe, as an agent's shell is) whose title is the
  commit's subject (a push run's title is its head commit's subject), or whose branch is the
  branch the commit went to;
- a ``gh run view`` / ``gh run watch`` heading (``✓ main CI · 123``), which names the run's
  branch;
- a ``gh pr checks`` line, which links the runs of the pull request's head.

What is here only reads gh's output; ``ci_lessons`` asks it whether a later run it read is one
that can prove a commit's fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimgraph.logic.lazy_regex import lazy_regex

#: A run's heading in ``gh run view`` / ``gh run watch``: "✓ main CI · 20868743915".
_HEADING = lazy_regex(r"^\W{0,3}\s*(?P<branch>\S+)\s+.+?\s+·\s+(?P<id>\d{5,})\s*$",
                      re.MULTILINE)
#: A run linked from ``gh pr checks``: ".../actions/runs/20868743915/job/59965852950".
_PR_CHECK_RUN = lazy_regex(r"/actions/runs/(?P<id>\d{5,})\b")
_ID = lazy_regex(r"^\d{5,}$")


@dataclass(frozen=True)
class RunRow:
    """What gh printed about one run: its title (the head commit's subject for a push) and
    branch when shown, and whether a pull request's checks linked it."""

    title: str | None = None
    branch: str | None = None
    of_pull_request: bool = False


def listed_runs(text: str) -> dict[str, RunRow]:
    """The runs a ``gh run list`` output shows, by id (tab-separated rows only: the table gh
    draws for a terminal has no reliable columns)."""
    rows: dict[str, RunRow] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) >= 7 and _ID.match(fields[6].strip()):
            rows[fields[6].strip()] = RunRow(title=fields[2].strip() or None,
                                             branch=fields[4].strip() or None)
    return rows


def viewed_run(text: str) -> dict[str, RunRow]:
    """The run a ``gh run view`` / ``gh run watch`` output is about, with its branch."""
    match = _HEADING.search(text)
    return {match["id"]: RunRow(branch=match["branch"])} if match else {}


def checked_runs(text: str) -> dict[str, RunRow]:
    """The runs ``gh pr checks`` links: the pull request's head's."""
    return {match["id"]: RunRow(of_pull_request=True) for match in _PR_CHECK_RUN.finditer(text)}


def runs_for(row: RunRow | None, subject: str | None, branches: set[str]) -> bool:
    """Does what gh printed about a run tie it to the commit with ``subject`` made on one of
    ``branches``? A run nothing was printed about (``row`` None) is tied to nothing."""
    if row is None:
        return False
    if row.of_pull_request:
        return True
    if subject and row.title and row.title.strip() == subject.strip():
        return True
    return bool(row.branch) and row.branch in branches


__all__ = ["RunRow", "checked_runs", "listed_runs", "runs_for", "viewed_run"]
