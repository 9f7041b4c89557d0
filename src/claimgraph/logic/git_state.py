"""Where a session left its work in git, read from what git and gh printed (issue 22).

The next session needs to know which branch the work is on, which commits the session made,
whether they went up and where, which pull request it opened or merged, which tag it made,
and whether work was left uncommitted. None of it is taken from the agent's words: only from
the output of the commands that did it (``[branch hash] subject`` of a commit, the ref lines
under ``To <url>`` of a push, the URL ``gh pr create`` printed …), and only the END state
counts: a commit later reset away, amended or rebased is gone under that hash (a later
``git log``, a rebase's own output or the next push of its branch may show it again under
its new one), a rejected push is no push, a push of another branch says nothing of this one.
A push whose outcome never showed (no output, no result: the transcript ends) is neither
pushed nor not pushed: "push outcome unknown" (but a quiet ``git push -q`` whose exit status
the line's shows, joined to its end by ``&&`` only, exited 0: it went up) -- until git shows
the commits on the remote
later in the session (a ``git status`` of their branch "up to date with 'origin/x'", a
``git log origin/x`` listing them): then they went up. A quiet commit (``git commit -q``) is a
commit whose id was never printed.

Pure logic: the parsers read one command's text and output; ``settle`` folds the
observations of one repository, in order, into its end state. The capture rule
(capture/extract/git_state.py) finds the calls and writes the facts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Container, Iterable

#: ``[main 1a2b3c4] subject``, ``[main (root-commit) 1a2b3c4] …``, ``[detached HEAD 1a2b3c4] …``.
_COMMIT_LINE = re.compile(r"^\s*\[(?P<branch>detached HEAD|[^\]\s]+)(?: \(root-commit\))? "
                          r"(?P<hash>[0-9a-f]{7,40})\] (?P<subject>\S.*?)\s*$", re.M)
#: ``To <url>`` opens a push's ref lines; ``From <url>`` a fetch's, which look alike.
_TO = re.compile(r"^To (?P<url>\S+)\s*$")
_FROM = re.compile(r"^From \S+\s*$")
_REF = re.compile(r"^ ?(?P<flag>[ +*!=-]) "
                  r"(?P<summary>\[[^\]]+\]|[0-9a-f]{4,40}\.\.\.?[0-9a-f]{4,40})"
                  r"\s+(?P<src>\S+)(?: -> (?P<dst>\S+))?(?:\s+\((?P<note>[^)]*)\))?\s*$")
_PR_URL = re.compile(r"^\s*(?P<url>https://\S+/(?P<repo>[^/\s]+/[^/\s]+)/pull/(?P<number>\d+))\s*$",
                     re.M)
_MERGED_LINE = re.compile(r"(?:Squashed and merged|Rebased and merged|Merged) pull request "
                          r"(?:[\w.-]+/[\w.-]+)?#(?P<number>\d+)")
#: gh saying the merge did not happen. Its exit status says so too, unless the command was piped
#: into ``tee``/``tail`` (whose status the line reports): then only these words tell. A merge
#: queue's or an auto-merge's answer exits 0 too, yet nothing is merged when gh says it: the
#: pull request "will be added to the merge queue … when ready", "will be automatically
#: merged … when all requirements are met" (gh enables auto-merge on its own while required
#: checks are pending): whether it ever merged is an outcome the session has not seen.
_NOT_MERGED = re.compile(r"\bnot mergeable\b|\bcannot be merged\b|\bmerge conflicts?\b|"
                         r"\bfailed to merge\b|\bX Pull request\b|^GraphQL:|"
                         r"\bmerge queue\b|\bwill be automatically merged\b|"
                         r"\bauto-merge enabled\b|\bwill merge when\b", re.I | re.M)
#: gh refusing to open a second pull request for a branch, naming the one already open (its
#: URL alone on a line, as a new one's is): nothing was opened in the session
_PR_EXISTS = re.compile(r"^a pull request for branch \S+ into branch \S+ already exists", re.M)
_LOG_LINE = re.compile(r"^(?:\* )?(?P<hash>[0-9a-f]{7,40}) (?:\((?P<refs>[^)]*)\) )?"
                       r"(?P<subject>\S.*?)\s*$")
_SWITCHED = re.compile(r"^Switched to (?:a new )?branch '(?P<branch>[^']+)'", re.M)
_ON_BRANCH = re.compile(r"^On branch (?P<branch>\S+)", re.M)
_SHORT_BRANCH = re.compile(r"^## (?P<branch>[^.\s]+(?:\.[^.\s]+)*?)(?:\.\.\.\S+)?(?: \[.*\])?\s*$",
                           re.M)
_REBASED = re.compile(r"Successfully rebased and updated refs/heads/(?P<branch>\S+?)\.?\s*$", re.M)
_DELETED_BRANCH = re.compile(r"^Deleted branch (?P<branch>\S+) \(was [0-9a-f]+\)", re.M)
_DELETED_TAG = re.compile(r"^Deleted tag '(?P<tag>[^']+)'", re.M)
_SHORT_STATUS = re.compile(r"^(?:[MADRCU][ MADRCU]|[ MADRCU][MADRCU]) \S", re.M)
_DIRTY_LONG = ("Changes not staged for commit", "Changes to be committed", "Unmerged paths")
_CLEAN = "nothing to commit"
_HEX = re.compile(r"^[0-9a-f]{7,40}$")
#: ``git status`` saying the branch holds nothing its upstream lacks: "up to date with
#: 'origin/x'", or behind it (and can be fast-forwarded); short form ``## x...origin/x``
#: with no ``[ahead …]``.
_SYNCED_LONG = re.compile(r"^Your branch is (?:up to date with|behind) '(?P<upstream>[^']+)'",
                          re.M)
_SYNCED_SHORT = re.compile(r"^## (?P<branch>\S+?)\.\.\.(?P<upstream>\S+)"
                           r"(?: \[behind \d+\])?\s*$", re.M)
_PR_SUBJECT = re.compile(r"\(#(?P<number>\d+)\)\s*$")
#: GitHub's subject for a PR merged with a merge commit.
_PR_MERGE_SUBJECT = re.compile(r"^Merge pull request #(?P<number>\d+) from \S")


@dataclass(frozen=True)
class Commit:
    branch: str
    hash: str
    subject: str
    line: int
    amend: bool = False
    #: the line since which the commit has this hash (a later ``git log`` may show a rebased
    #: commit under its new hash: it is ordered by ``line``, known as pushed from ``since``)
    since: int = 0
    #: how many files git said it changed ("2 files changed"; None: not shown)
    changed: int | None = None
    #: the files it changed, when the paths staged for it account for every one
    files: tuple[str, ...] = ()
    #: commits nobody listed may lie between this one and the one before it on its branch
    #: (a log cut at its limit listed this one, not what is below it): a list of ids shows
    #: the gap instead of passing for every commit in order
    gap_before: bool = False

    @property
    def key(self) -> str:
        """The commit's name in ``EndState.pushed``: its hash, or where it was made when git
        never printed one (``git commit -q``)."""
        return self.hash or f"line {self.line}"


@dataclass(frozen=True)
class RefUpdate:
    """One ref line of a push: ``src -> dst`` at ``new`` (None for a new or deleted ref)."""

    src: str
    dst: str
    new: str | None
    forced: bool = False
    created: bool = False
    deleted: bool = False
    rejected: bool = False
    tag: bool = False
    #: refused because the remote branch holds commits this one lacks ("fetch first",
    #: "non-fast-forward"): a rebasing pull after it rebases the commits not yet pushed
    behind: bool = False


@dataclass(frozen=True)
class Push:
    url: str
    updates: tuple[RefUpdate, ...]
    line: int


@dataclass(frozen=True)
class Observation:
    """What one successful command said about one repository, in the session's order.
    ``rewrote``: history was rewritten (reset to a revision, rebase, amend): earlier hashes
    of the session's commits may be gone. ``listed``: ``git log`` lines (hash, subject)."""

    line: int
    at: int | None = None
    commits: tuple[Commit, ...] = ()
    rewrote: bool = False
    pushes: tuple[Push, ...] = ()
    listed: tuple[tuple[str, str], ...] = ()
    branch: str | None = None
    deleted_branches: tuple[str, ...] = ()
    dirty: bool | None = None
    tags_made: tuple[str, ...] = ()
    tags_deleted: tuple[str, ...] = ()
    pr_opened: tuple[tuple[int, str, str | None, str | None], ...] = ()  # number, url, title, head
    pr_merged: tuple[tuple[int, str | None], ...] = ()  # number, method
    #: number, state, title, merge commit, head branch
    pr_states: tuple[tuple[int, str, str | None, str | None, str | None], ...] = ()
    #: pushes that ran but whose outcome never showed (no output, no result, cut short): the
    #: branch each named (None: the current one). Neither pushed nor not pushed.
    unseen_pushes: tuple[str | None, ...] = ()
    #: the rewrite was a rebase: the session's commits live on under new hashes, and a later
    #: push of their branch names the new head
    rebased: bool = False
    #: the folder the commands ran in: a worktree inside the project is its own checkout,
    #: with its own branch checked out
    place: str | None = None
    #: a branch the line switched to after its commits (``git commit -q … && git switch -c
    #: x``): checked out from then on, yet not where those commits went
    branch_after: str | None = None
    #: what a plain ``git checkout <name>`` named when git's line did not show (a branch or
    #: a file: ``settle`` takes it for a branch only when it knows one by that name)
    checkout_named: str | None = None
    #: (branch, upstream) a ``git status`` showed holding nothing its upstream lacks: the
    #: commits made on it before are on the remote, whatever an earlier push showed
    synced: tuple[str, str] | None = None
    #: (remote-tracking ref, hashes) a ``git log origin/x`` listed: commits on the remote
    on_remote: tuple[str, tuple[str, ...]] | None = None
    #: (branch or None for the current one, remote) of pushes that printed no ref lines on a
    #: line whose success implies theirs (``git push -q`` that exited 0): the branch went up
    quiet_pushes: tuple[tuple[str | None, str], ...] = ()
    #: remote branches a fetch or pull showed deleted (``- [deleted] (none) -> origin/x``):
    #: a pull request from one was merged or closed, which of the two unknown
    pruned: tuple[str, ...] = ()
    #: of ``deleted_branches``, those ``git branch -d`` let go without a warning: merged
    #: into the branch checked out (``-D`` deletes anything; a warning "not yet merged to
    #: HEAD" says the work is only on the remote, its PR maybe still open)
    deleted_merged: tuple[str, ...] = ()
    #: the person said they pushed (``git_reports``): the branch checked out went up
    reported_push: bool = False
    #: paths ``git add`` staged by name (None: something it cannot name -- ``-A``, ``.``,
    #: ``commit -a``)
    staged: tuple[str, ...] | None = ()
    #: the files a pull or merge that brought other commits in listed in its diffstat, and
    #: the branch it pulled into when the line checked one out first
    pulled: tuple[str, ...] = ()
    pulled_into: str | None = None
    #: a ``git pull --rebase`` ran without error and printed no "Successfully rebased"
    #: (``-q``): after a push of the branch was refused as behind, it rebased what was not
    #: yet pushed
    quiet_rebase: bool = False
    #: the line ran a commit whose outcome git's output does not settle (its summary line
    #: never showed: no result, a wrapper that rewrote the output, several quiet commits):
    #: the count of the branch checked out is a lower bound from here on
    more_commits: bool = False
    #: the local branches a ``git merge`` of the line brought into a branch (git printed
    #: its fast-forward or its merge commit, no conflict), and the branch it went into when
    #: the line checked one out first (None: the one checked out)
    merged_in: tuple[str, ...] = ()
    merged_into: str | None = None
    #: a gh command of the line named a repository (``-R``/``--repo``): the states it showed
    #: may be another repository's pull requests
    pr_other_repo: bool = False


def commits_in(output: str) -> list[tuple[str, str, str]]:
    """(branch, hash, subject) of every commit line git printed."""
    return [(m["branch"], m["hash"], m["subject"]) for m in _COMMIT_LINE.finditer(output)]


def pushes_in(output: str, line: int = 0) -> list[Push]:
    """Every ``To <url>`` block of a push and its ref lines (a fetch's ``From`` block is not
    one)."""
    found: list[Push] = []
    url: str | None = None
    updates: list[RefUpdate] = []

    def close() -> None:
        if url is not None and updates:
            found.append(Push(url, tuple(updates), line))

    for text in output.splitlines():
        to = _TO.match(text)
        if to or _FROM.match(text):
            close()
            url, updates = (to["url"] if to else None), []
            continue
        ref = _REF.match(text) if url is not None else None
        if ref is None:
            continue
        summary, flag = ref["summary"], ref["flag"]
        rejected = flag == "!" or "rejected" in summary
        deleted = flag == "-" or summary == "[deleted]"
        new = None if summary.startswith("[") else re.split(r"\.\.\.?", summary)[1]
        dst = ref["dst"] or ref["src"]
        updates.append(RefUpdate(ref["src"], dst, new, forced=flag == "+", rejected=rejected,
                                 created=summary in ("[new branch]", "[new tag]",
                                                     "[new reference]"),
                                 deleted=deleted, tag=summary == "[new tag]",
                                 behind=rejected and (ref["note"] or "").strip() in (
                                     "fetch first", "non-fast-forward")))
    close()
    return found


def flag_value(argv: tuple[str, ...], *names: str) -> str | None:
    """The value a command's words give a flag (``--title x``, ``--title=x``, ``-t x``)."""
    for index, word in enumerate(argv):
        name, equals, value = word.partition("=")
        if name in names and name.startswith("--") and equals:
            return value
        if word in names and index + 1 < len(argv):
            return argv[index + 1]
    return None


def pr_created(argv: tuple[str, ...], output: str
               ) -> tuple[int, str, str | None, str | None] | None:
    """(number, url, title, head branch) of ``gh pr create``'s printed URL; ``argv`` its
    words from ``pr`` on, as the shell parser read them."""
    urls = list(_PR_URL.finditer(output))
    if len(urls) != 1 or _PR_EXISTS.search(output):
        return None
    head = flag_value(argv, "--head", "-H")
    return (int(urls[0]["number"]), urls[0]["url"], flag_value(argv, "--title", "-t") or None,
            head if head and re.fullmatch(r"[\w./:-]+", head) else None)


def pr_merged(argv: tuple[str, ...], output: str) -> tuple[int, str | None] | None:
    """(number, method) of a ``gh pr merge`` that merged (not one that only queued an
    auto-merge); the number from its arguments, else from gh's own line."""
    words = argv[argv.index("merge") + 1:] if "merge" in argv else ()
    if "--auto" in words or "--disable-auto" in words or _NOT_MERGED.search(output):
        return None
    method = next((name for flags, name in ((("--squash", "-s"), "squash"),
                                           (("--rebase", "-r"), "rebase"),
                                           (("--merge", "-m"), "merge"))
                   if any(flag in words for flag in flags)), None)
    number = next((int(w.lstrip("#")) for w in words if w.lstrip("#").isdigit()), None)
    if number is None:
        said = _MERGED_LINE.search(output)
        number = int(said["number"]) if said else None
    if number is None and not _positional(words) and not any(
            w in ("-R", "--repo") or w.startswith("--repo=") for w in words):
        number = 0  # no PR named: gh merges the current branch's (``with_end_state``)
    return (number, method) if number is not None else None


#: ``gh pr merge`` options that take a value.
_MERGE_VALUES = frozenset({"-t", "--subject", "-b", "--body", "-F", "--body-file", "-R",
                           "--repo", "--match-head-commit", "-A", "--author-email"})


def _positional(words: tuple[str, ...]) -> list[str]:
    """The arguments of ``gh pr merge`` that are not options or their values (a number, a
    URL or a branch naming the PR)."""
    return positional_args(words, _MERGE_VALUES)


def positional_args(words: Iterable[str], takes_value: Container[str]) -> list[str]:
    """A command's arguments that are neither options nor an option's value: the word after
    an option in ``takes_value`` is its value (``-m msg``); ``--opt=value`` is one option."""
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif not word.startswith("-"):
            found.append(word)
    return found


def pr_states(argv: tuple[str, ...],
              output: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """(number, state, title, merge commit, head branch) from ``gh pr view … --json``: one
    JSON object (the number from it or the command; its state "" when not asked for, as a
    title alone still says what the PR is called now), or a bare state word printed by
    ``--jq .state``."""
    words = argv[argv.index("view") + 1:] if "view" in argv else ()
    asked = _asked(argv)
    text = output.strip()
    start = text.find("{")
    if start >= 0:
        try:  # the object may be followed by other commands' output on the same line
            data, _ = json.JSONDecoder().raw_decode(text, start)
        except ValueError:
            return []
        found = _from_object(data, asked)
        return [found] if found else []
    if asked is not None and text in _STATES:
        return [(asked, text, None, None, None)]
    shaped = _shaped_state(words, text)
    if asked is not None and shaped:
        return [(asked, shaped, None, None, None)]
    return _plain_view(asked, text)


#: ``gh pr view --json`` fields whose values never carry free text that could hold a state
#: word (a title may, in principle; a body or comments often do).
_FREE_TEXT_FIELDS = frozenset({"body", "comments", "reviews", "latestReviews", "commits",
                               "files", "closingIssuesReferences", "labels"})
_STATE_WORD = re.compile(r"\b(MERGED|OPEN|CLOSED)\b")


def _shaped_state(words: tuple[str, ...], text: str) -> str | None:
    """The state a ``gh pr view N --json state,… --jq '"PR N: \\(.state) …"'`` printed in a
    shape of the agent's own ("PR 12: MERGED mergeable=UNKNOWN"): asked for ``state``, no
    field of free text, and exactly one state word in the output."""
    fields = flag_value(words, "--json")
    if not fields or not flag_value(words, "--jq", "-q", "--template", "-t"):
        return None
    asked = set(fields.split(","))
    if "state" not in asked or asked & _FREE_TEXT_FIELDS:
        return None
    seen = set(_STATE_WORD.findall(text))
    return seen.pop() if len(seen) == 1 and len(_STATE_WORD.findall(text)) == 1 else None


_STATES = ("MERGED", "OPEN", "CLOSED")
#: ``gh pr view`` without ``--json`` when its output is not a terminal (an agent's shell): one
#: ``key:<TAB>value`` line per field.
_VIEW_FIELD = re.compile(r"^(?P<key>title|state|number|url):\t(?P<value>.*)$", re.M)
#: ``gh pr list`` when its output is not a terminal: number, title, head branch, state, date.
_LIST_ROW = re.compile(r"^(?P<number>\d+)\t(?P<title>[^\t]*)\t(?P<head>[^\t]*)\t"
                       r"(?P<state>OPEN|MERGED|CLOSED|DRAFT)\t", re.M)


def _plain_view(asked: int | None,
                text: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """(number, state, title, None, None) from ``gh pr view``'s field lines."""
    fields = {m["key"]: m["value"].strip() for m in _VIEW_FIELD.finditer(text)}
    number = int(fields["number"]) if fields.get("number", "").isdigit() else asked
    state = fields.get("state", "")
    if number is None or state not in _STATES:
        return []
    return [(number, state, fields.get("title") or None, None, None)]


def pr_listed(output: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """(number, state, title, None, head) of each row ``gh pr list`` printed (a draft is
    open)."""
    return [(int(m["number"]), "OPEN" if m["state"] == "DRAFT" else m["state"],
             m["title"] or None, None, m["head"] or None) for m in _LIST_ROW.finditer(output)]


def _text(value: object) -> str | None:
    """A JSON field that should be text (gh's output is third-party data)."""
    return value if isinstance(value, str) else None


def _asked(argv: tuple[str, ...]) -> int | None:
    """The number ``gh pr view <n>`` asks about (None: the current branch's, or a URL)."""
    words = argv[argv.index("view") + 1:] if "view" in argv else ()
    return next((int(w.lstrip("#")) for w in words if w.lstrip("#").isdigit()), None)


def _from_object(data: object, asked: int | None
                 ) -> tuple[int, str, str | None, str | None, str | None] | None:
    """(number, state, title, merge commit, head branch) of one ``--json`` object; its
    number from itself or the command (one that contradicts the command: none)."""
    if not isinstance(data, dict):
        return None
    number = data.get("number") if isinstance(data.get("number"), int) else asked
    if asked is not None and number != asked:
        return None
    merge = data.get("mergeCommit")
    state, title = _text(data.get("state")) or "", _text(data.get("title"))
    if number is None or not (state or title):
        return None
    return (number, state, title, _text(merge.get("oid") if isinstance(merge, dict) else None),
            _text(data.get("headRefName")))


def pr_states_each(views: list[tuple[str, ...]], output: str
                   ) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """Several ``gh pr view N`` in one line (``views``: each one's words from ``pr`` on),
    each told apart by the order of their output: one ``--json`` object per view and
    nothing else, or one line per view holding its state (a bare state word, or one in
    the agent's own ``--jq`` shape: ``"PR 12: OPEN — title"``). Output that cannot be
    told apart so (another command's lines between, a view printing several lines, a line
    naming another PR asked) says nothing: whose state a word is would be a guess."""
    asked = [_asked(view) for view in views]
    if None in asked:
        return []
    objects = _json_objects(output)
    if objects is not None:
        if len(objects) != len(views):
            return []
        found = [_from_object(data, number) for data, number in zip(objects, asked)]
        return [state for state in found if state] if all(found) else []
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if len(lines) != len(views):
        return []
    states: list[tuple[int, str, str | None, str | None, str | None]] = []
    for number, view, line in zip(asked, views, lines):
        words = view[view.index("view") + 1:] if "view" in view else ()
        state = line if line in _STATES else _shaped_state(words, line)
        others = {int(n) for n in _NUMBER.findall(line)} & set(asked) - {number}
        if number is None or state is None or others:
            return []
        states.append((number, state, None, None, None))
    return states


_NUMBER = re.compile(r"(?<!\d)(\d+)(?!\d)")


def _json_objects(output: str) -> list[object] | None:
    """The JSON values printed one after another with only blank space between them
    (None: the output is no such sequence)."""
    text, at, found = output.strip(), 0, []
    decoder = json.JSONDecoder()
    if not text.startswith("{"):
        return None
    while at < len(text):
        try:
            data, at = decoder.raw_decode(text, at)
        except ValueError:
            return None
        found.append(data)
        while at < len(text) and text[at].isspace():
            at += 1
    return found


#: ``gh pr status`` when its output is not a terminal: a line per PR under each heading
#: ("Current branch", "Created by you"): ``  #12  Title [head-branch]``, followed by
#: `` - Merged`` / `` - Closed`` when it is not open (an open one's checks and reviews go on
#: the next line). A title over 50 characters is cut to 47 and "...".
_STATUS_HEADER = re.compile(r"^Relevant pull requests in \S+\s*$", re.M)
_STATUS_ROW = re.compile(r"^  #(?P<number>\d+)  (?P<title>.*?) \[(?P<head>[^\]\s]+)\]"
                         r"(?: - (?P<state>Merged|Closed|Open|Draft))?[ \t]*$", re.M)


def pr_status_rows(output: str) -> list[tuple[int, str, str | None, str | None, str | None]]:
    """(number, state, title, None, head) of each PR ``gh pr status`` listed (a draft is
    open; a title cut short is no title); nothing without gh's own heading."""
    if not _STATUS_HEADER.search(output):
        return []
    state_of = {"Merged": "MERGED", "Closed": "CLOSED"}
    return [(int(m["number"]), state_of.get(m["state"] or "", "OPEN"),
             None if m["title"].endswith("...") else m["title"] or None, None, m["head"])
            for m in _STATUS_ROW.finditer(output)]


def pr_retitled(argv: tuple[str, ...]) -> tuple[int, str] | None:
    """(number, new title) of a ``gh pr edit <n> --title …`` that worked."""
    words = argv[argv.index("edit") + 1:] if "edit" in argv else ()
    number = next((int(w.lstrip("#")) for w in words if w.lstrip("#").isdigit()), None)
    text = flag_value(argv, "--title", "-t")
    return (number, text) if number is not None and text else None


_PUSH_FAILED = re.compile(r"^(?:error: failed to push|fatal: |error: src refspec|"
                          r"remote: error|ERROR: )", re.M)


def push_refused(output: str) -> bool:
    """A push's output says it failed (in a line whose status a ``|| true`` hid)."""
    return bool(_PUSH_FAILED.search(output))


def log_lines(output: str) -> list[tuple[str, str]]:
    """(hash, subject) of ``git log --oneline`` lines."""
    found = []
    for text in output.splitlines():
        match = _LOG_LINE.match(text)
        if match:
            found.append((match["hash"], match["subject"]))
    return found


def synced_in(output: str) -> tuple[str, str] | None:
    """(branch, upstream) when a ``git status`` says the branch is up to date with its
    upstream or only behind it: every commit on it is on the remote (as last fetched or
    pushed). None when it is ahead, diverged, or the status does not say."""
    short = _SYNCED_SHORT.search(output)
    if short:
        return short["branch"], short["upstream"]
    long = _SYNCED_LONG.search(output)
    branch = branch_in(output)
    return (branch, long["upstream"]) if long and branch else None


def branch_in(output: str) -> str | None:
    """The branch a checkout, switch or status said the work is on (the last one said)."""
    named = [(m.start(), m["branch"]) for pattern in (_SWITCHED, _ON_BRANCH, _SHORT_BRANCH)
             for m in pattern.finditer(output)]
    named = [(at, name) for at, name in named if name not in ("HEAD", "(no")]
    return max(named)[1] if named else None


def dirty_in(output: str, short: bool) -> bool | None:
    """Whether a ``git status`` showed tracked changes left (untracked files alone do not
    count: scratch output, not work); None when it shows neither changes nor a clean tree."""
    if any(marker in output for marker in _DIRTY_LONG):
        return True
    if _CLEAN in output:
        return False
    if short:
        return bool(_SHORT_STATUS.search(output))
    return None


_HEAD_MOVED = re.compile(r"HEAD is now at (?P<hash>[0-9a-f]{7,40}) (?P<subject>\S[^\n]*?)\s*$",
                         re.M)


def head_moved(output: str) -> tuple[str, str] | None:
    """(hash, subject) of git's "HEAD is now at …" (a hard reset, a history rewrite): the
    branch moved, so earlier hashes may be gone; the commit it names is the new head."""
    found = list(_HEAD_MOVED.finditer(output))
    return (found[-1]["hash"], found[-1]["subject"]) if found else None


def rebased_branch(output: str) -> str | None:
    match = _REBASED.search(output)
    return match["branch"] if match else None


def deleted_branches(output: str) -> list[str]:
    return [m["branch"] for m in _DELETED_BRANCH.finditer(output)]


_PRUNED = re.compile(r"^ ?- \[deleted\]\s+\(none\)\s+-> (?:origin|upstream)/(?P<branch>\S+)\s*$",
                     re.M)
_CLOSED_LINE = re.compile(r"Closed pull request (?:[\w.-]+/[\w.-]+)?#(?P<number>\d+)")


_CHANGED = re.compile(r"^ ?(?P<count>\d+) files? changed", re.M)
_DIFFSTAT = re.compile(r"^ (?P<path>\S.*?)\s+\|\s+(?:\d+ ?[+-]*|Bin\b.*)\s*$", re.M)
#: The line a pull or merge that brought commits in prints right above its diffstat.
_BROUGHT_IN = re.compile(r"^(?:Fast-forward|Merge made by [^\n]*)$", re.M)


def files_changed(output: str) -> int | None:
    """The "N files changed" a commit printed, when it printed exactly one."""
    found = _CHANGED.findall(output)
    return int(found[0]) if len(found) == 1 else None


def diffstat_files(output: str) -> tuple[str, ...]:
    """The paths of the diffstat (`` path | 6 +++++-``) a pull or merge printed when it
    brought commits in: the rows right under its "Fast-forward" / "Merge made by" line, not
    another command's diffstat elsewhere on the line; () for anything else."""
    found: list[str] = []
    for marker in _BROUGHT_IN.finditer(output):
        for row in output[marker.end():].lstrip("\n").split("\n"):
            stat = _DIFFSTAT.match(row)
            if stat is None:
                break  # git's diffstat ends at its "N files changed" line
            if " => " not in stat["path"]:
                found.append(stat["path"].strip())
    return tuple(found)


def pruned_branches(output: str) -> list[str]:
    """The remote branches a fetch or pull pruned (``- [deleted] (none) -> origin/x``)."""
    return [m["branch"] for m in _PRUNED.finditer(output)]


def pr_closed(argv: tuple[str, ...], output: str) -> int | None:
    """The number of the PR a ``gh pr close`` that worked closed: from its arguments, else
    from gh's own "Closed pull request #N" line."""
    words = argv[argv.index("close") + 1:] if "close" in argv else ()
    number = next((int(w.lstrip("#")) for w in words if w.lstrip("#").isdigit()), None)
    if number is None:
        said = _CLOSED_LINE.search(output)
        number = int(said["number"]) if said else None
    return number


def deleted_tags(output: str) -> list[str]:
    return [m["tag"] for m in _DELETED_TAG.finditer(output)]


def resets_history(argv: tuple[str, ...]) -> bool:
    """``git reset`` that moves the branch (``--hard``/``--soft``/… or a revision), not one
    that only unstages files."""
    words = argv[argv.index("reset") + 1:] if "reset" in argv else ()
    if "--" in words:
        return False
    if any(w in ("--hard", "--soft", "--mixed", "--keep", "--merge") for w in words):
        return True
    return any(re.match(r"^(?:HEAD|@)(?:[~^]\d*)+$", w) or _HEX.match(w)
               or w.startswith(("origin/", "upstream/")) for w in words)


def same_commit(one: str, other: str) -> bool:
    """Two abbreviations of one hash (one a prefix of the other)."""
    return bool(one) and bool(other) and (one.startswith(other) or other.startswith(one))


@dataclass
class EndState:
    """One repository's end state: the session's surviving commits by branch, which of them
    a push carried (and where), tags, the branch checked out at the end, uncommitted work."""

    commits: list[Commit] = field(default_factory=list)
    #: hash -> (url, line, forced) of the push that carried it
    pushed: dict[str, tuple[str, int, bool]] = field(default_factory=dict)
    branch_pushes: list[tuple[str, str, str | None, int]] = field(default_factory=list)
    tags: dict[str, list[str]] = field(default_factory=dict)  # tag -> what happened
    deleted: list[str] = field(default_factory=list)
    #: (branch, line) of pushes whose outcome never showed ("*": a branch not known)
    unseen_pushes: list[tuple[str, int]] = field(default_factory=list)
    #: (branch, upstream, line) of statuses that showed a branch in step with its upstream
    synced: list[tuple[str, str, int]] = field(default_factory=list)
    #: (remote-tracking ref, hash, line) of commits a ``git log`` of a remote ref listed
    on_remote: list[tuple[str, str, int]] = field(default_factory=list)
    branch: str | None = None
    dirty: bool | None = None
    dirty_line: int | None = None
    at: int | None = None
    #: pull request -> the branch checked out when ``gh pr create`` (no ``--head``) opened it
    opened_on: dict[int, str] = field(default_factory=dict)
    #: (branch, line, method) of a ``gh pr merge`` naming no PR: the current branch's
    merged_current: list[tuple[str, int, str | None]] = field(default_factory=list)
    #: branch -> the last line that deleted it on the remote (a push, a fetch's prune) or
    #: here once merged (``Observation.deleted_merged``)
    gone: dict[str, int] = field(default_factory=dict)
    #: (branch pulled into, line, files its diffstat listed) of pulls that brought work in
    pulled: list[tuple[str | None, int, tuple[str, ...]]] = field(default_factory=list)
    #: set by ``git_observed.revise`` from what git printed last: branch -> what is said of
    #: its commits instead of "pushed" / "not pushed"; clauses added to the end state
    said: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: branches whose commits a log cut at its limit listed: more of them may exist, so
    #: their counts are told as "at least"
    at_least: set[str] = field(default_factory=set)
    #: commit key -> the URL a push sent the commit it replaced to: a rewrite (rebase, amend,
    #: reset and redo) gave an already pushed commit this new id, so the remote holds the
    #: earlier one and "not pushed" alone would invite a plain push git will refuse
    rewritten: dict[str, str] = field(default_factory=dict)

    @property
    def lines(self) -> list[int]:
        """The lines the end state rests on: surviving commits and the pushes that count."""
        return sorted({*(c.line for c in self.commits), *(p[3] for p in self.branch_pushes),
                       *(line for _, line in self.unseen_pushes)})

    @property
    def anything(self) -> bool:
        """Something the session did to the repository that the next one must know."""
        return bool(self.commits or self.branch_pushes or self.tags)


#: Branch names a repository's default branch goes by.
DEFAULT_BRANCHES = frozenset({"main", "master", "develop", "trunk"})
#: Branch names of a line other branches' work is merged into: the default branch's, and
#: the integration branch a team merges feature branches into before a release (``dev``).
MAIN_LINES = DEFAULT_BRANCHES | {"dev", "development"}


def _known_checkout(seen: Observation, state: EndState,
                    checked_out: dict[str | None, str]) -> str | None:
    """The branch a quiet ``git checkout <name>`` went to, when ``<name>`` is a branch this
    session knows (committed to, checked out, pushed) or a default branch's name: a plain
    checkout may also restore a file, so a name nothing shows to be a branch says nothing."""
    name = seen.checkout_named
    if not name:
        return None
    known = {c.branch for c in state.commits} | set(checked_out.values()) | \
        {p[0] for p in state.branch_pushes} | DEFAULT_BRANCHES
    return name if name in known else None


def settle(observations: list[Observation]) -> EndState:
    """Fold one repository's observations, in order, into its end state (module docstring)."""
    state = EndState()
    lost: list[Commit] = []  # commits whose hash a rewrite may have replaced
    rebased: list[Commit] = []  # of those, the ones a rebase carried over under new hashes
    heads: list[tuple[str, str | None, str, int, bool]] = []  # branch, new head, url, line, forced
    current: str | None = None
    checked_out: dict[str | None, str] = {}  # folder -> the branch it was last seen on
    worked_in: str | None = None  # the folder of the last commit or push
    last_commit_line = -1
    staged: list[str] | None = []  # what ``git add`` named since the last commit
    behind: dict[str, int] = {}  # branch -> line of a push refused as behind the remote
    up_before: dict[str, tuple[str, str]] = {}  # subject -> (URL, id) of a commit pushed
    listings: list[tuple[tuple[str, str], ...]] = []  # every one-line log, newest first
    for seen in observations:
        if seen.pulled:
            state.pulled.append((seen.pulled_into or current, seen.line, seen.pulled))
        staged = None if staged is None or seen.staged is None else [*staged, *seen.staged]
        on = seen.branch or _known_checkout(seen, state, checked_out)
        if on:
            current = checked_out[seen.place] = on
            if on in state.deleted and on not in seen.deleted_branches:
                state.deleted.remove(on)  # made again after it was deleted
        if seen.commits or seen.pushes:
            worked_in = seen.place
        if seen.merged_in:
            _merge_into_main_line(state, seen,
                                  seen.merged_into or checked_out.get(seen.place, current))
        if seen.rewrote:
            up_before.update(_went_up(state, heads, listings))
            lost += state.commits
            rebased = rebased + state.commits if seen.rebased else []
            state.commits = []
        if not seen.rewrote and seen.quiet_rebase and current is not None and current in behind:
            moved = _unpushed(state, current, heads)
            lost += moved
            rebased = rebased + moved
            state.commits = [c for c in state.commits if all(c is not m for m in moved)]
            del behind[current]
        for made in seen.commits:
            branch = made.branch or current or ""  # a quiet commit: the branch checked out
            amended: tuple[str, str] | None = None  # (URL, id) the amended commit went up as
            if made.amend:
                on_branch = [c for c in state.commits if c.branch == branch]
                if on_branch:
                    amended = _went_up(state, heads, []).get(on_branch[-1].subject)
                    state.commits.remove(on_branch[-1])
            if branch == "detached HEAD" and on:
                branch = on
            if made.subject:
                lost = [c for c in lost if c.subject != made.subject]
            if made.hash and any(c.hash == made.hash for c in state.commits):
                continue  # the same commit printed again (a hook's rerun, a log of it)
            files = tuple(dict.fromkeys(staged)) if staged else ()
            state.commits.append(Commit(branch, made.hash, made.subject, made.line,
                                        since=made.line,
                                        files=files if made.changed == len(files) else ()))
            # made by the rewrite itself (a rebase's ``--exec`` amend prints each) or an amend
            _note_rewritten(state, state.commits[-1], bool(amended) or seen.rewrote,
                            {**up_before, made.subject: amended} if amended else up_before)
            staged = []
            current = branch if branch != "detached HEAD" else current
            if branch and branch != "detached HEAD":
                checked_out[seen.place] = branch
            last_commit_line = seen.line
        for listed_hash, subject in seen.listed:
            back = [c for c in lost if same_commit(c.hash, listed_hash)] or \
                [c for c in lost if c.subject == subject]
            if len(back) == 1 and sum(s == subject for _, s in seen.listed) == 1:
                lost.remove(back[0])
                rebased = [c for c in rebased if c is not back[0]]
                state.commits.append(Commit(back[0].branch, listed_hash, subject, back[0].line,
                                            since=seen.line))
                _note_rewritten(state, state.commits[-1], True, up_before)
        if seen.listed:
            listings.append(seen.listed)
        for name in seen.tags_made:
            state.tags.setdefault(name, []).append("created")
        for push in seen.pushes:
            for update in push.updates:  # refused as behind; up to date once one went up
                name = (current if update.src == "HEAD" else update.src) or update.src
                if update.behind:
                    behind[name] = seen.line
                elif not update.rejected:
                    behind.pop(name, None)
            _apply_push(state, push, current, heads)
            rebased = _carried_over(state, push, current, rebased, lost)
        for target in seen.unseen_pushes:
            state.unseen_pushes.append((target or current or "*", seen.line))
        if seen.more_commits:
            state.at_least.add(current if current and current != "detached HEAD" else "")
        for name in seen.tags_deleted:
            state.tags.setdefault(name, []).append("deleted")
        if seen.branch_after:
            current = checked_out[seen.place] = seen.branch_after
        for name in seen.deleted_branches:
            if name in (on, seen.branch_after):
                # git deletes no branch checked out: this line made it again after deleting
                # it, so what the session committed to it before is on it no more
                lost += [c for c in state.commits if c.branch == name and c.line < seen.line]
                state.commits = [c for c in state.commits
                                 if c.branch != name or c.line >= seen.line]
            else:
                if name in seen.deleted_merged:
                    state.gone[name] = seen.line
                if name not in state.deleted:
                    state.deleted.append(name)
        for name in seen.pruned:
            state.gone[name] = seen.line
        here = checked_out.get(seen.place, current)  # a worktree has its own checkout
        for number, _, _, head in seen.pr_opened:
            if head is None and here and here != "detached HEAD":
                state.opened_on[number] = here
                # gh opens a PR from the branch checked out only once its remote-tracking
                # branch holds HEAD (else, with no terminal to ask, it aborts): it went up
                state.synced.append((here, f"{_OPENED}{number}", seen.line))
        for number, method in seen.pr_merged:
            if number == 0 and here and here != "detached HEAD":
                state.merged_current.append((here, seen.line, method))
        if seen.reported_push and current and current != "detached HEAD":
            # the person pushed from elsewhere: the branch checked out went up, to a
            # remote git never named here ("" : ``describe`` says "you said so")
            state.synced.append((current, "", seen.line))
        if seen.synced:
            state.synced.append((*seen.synced, seen.line))
        for target, remote in seen.quiet_pushes:
            pushed = target or current
            if pushed:  # commits of that branch went up; ones on a branch never named stay
                state.synced.append((pushed, f"{remote}/{pushed}", seen.line))  # unknown
            state.unseen_pushes.append((pushed or "*", seen.line))
        if seen.on_remote:
            state.on_remote += [(seen.on_remote[0], h, seen.line) for h in seen.on_remote[1]]
        if seen.dirty is not None:
            state.dirty, state.dirty_line = seen.dirty, seen.line
        if seen.commits or seen.pushes or seen.tags_made or seen.unseen_pushes \
                or seen.quiet_pushes or seen.reported_push:
            state.at = seen.at if seen.at is not None else state.at
    if state.dirty_line is not None and state.dirty_line < last_commit_line:
        state.dirty = None  # a commit after the last status: what is left is unknown
    # the branch checked out where the work was done (a status of the main checkout does
    # not say what a worktree under it holds)
    state.branch = checked_out.get(worked_in, current) if worked_in in checked_out else current
    state.commits.sort(key=lambda c: c.line)
    _mark_pushed(state, heads)
    _mark_seen_on_remote(state, heads)
    return state


def _merge_into_main_line(state: EndState, seen: Observation, into: str | None) -> None:
    """A merge that worked brought the branches it named into a main line: the session's
    commits made on them before it are on that line now, waiting for nothing but its push.
    Told on their old branch, "not pushed" would send the next agent to merge or push work
    that already landed (and "pushed" would say nothing of the main line). They are known
    as pushed from the merge on only: a push of the main line after it carries them, an
    earlier push of their own branch did not put them on the remote main line. A merge into
    any other branch (the main line into a feature branch, to bring it up to date) leaves
    the tally as it is: the work still waits for its own merge."""
    if into not in MAIN_LINES:
        return
    for index, commit in enumerate(state.commits):
        if commit.branch in seen.merged_in and commit.branch != into \
                and commit.line < seen.line:
            state.pushed.pop(commit.key, None)
            state.commits[index] = replace(commit, branch=into, since=seen.line)


def _went_up(state: EndState, heads: list[tuple[str, str | None, str, int, bool]],
             listings: list[tuple[tuple[str, str], ...]]) -> dict[str, tuple[str, str]]:
    """subject -> (URL, id) of each commit a push git showed had carried so far, read just
    before a rewrite replaces them: the session's own commits the push carried, and the
    commits a one-line log listed below a head a push sent up (the log of that head: every
    commit it lists is in the head's history, so on the remote)."""
    before = EndState(commits=list(state.commits))
    _mark_pushed(before, heads)
    went = {c.subject: (before.pushed[c.key][0], c.hash) for c in state.commits
            if c.subject and c.key in before.pushed and before.pushed[c.key][0]}
    for _, new, url, _, _ in heads:
        for listed in listings:
            if new and url and listed and same_commit(listed[0][0], new):
                went.update((subject, (url, hash_)) for hash_, subject in listed)
    return went


def _note_rewritten(state: EndState, commit: Commit, replacing: bool,
                    up_before: dict[str, tuple[str, str]]) -> None:
    """``commit`` took the place (``replacing``: a rewrite or an amend printed it, or a log
    gave a commit a rewrite replaced its new id) of a commit a push had carried under
    another id: the remote holds that earlier id. A commit made later with the same
    subject is another commit, not a rewrite."""
    url, earlier = up_before.get(commit.subject, ("", ""))
    if replacing and url and commit.hash and earlier and not same_commit(earlier, commit.hash):
        state.rewritten[commit.key] = url


def _mark_seen_on_remote(state: EndState, heads: list[tuple[str, str | None, str, int, bool]]
                         ) -> None:
    """Commits git showed on the remote after they were made -- a later ``git status`` of
    their branch "up to date with 'origin/x'", a ``git log origin/x`` listing them (and so
    the commits before them on that branch) -- went up, though the push that took them
    showed no outcome (or none ran in this session). A push whose outcome never showed
    before that status is settled by it."""
    urls = {url for _, _, url, _, _ in heads}
    for branch, upstream, line in state.synced:
        remote = upstream if upstream.startswith(_OPENED) else \
            _remote(upstream, urls) if upstream else ""
        for commit in state.commits:
            if commit.branch == branch and commit.since <= line \
                    and commit.key not in state.pushed:
                state.pushed[commit.key] = (remote, line, False)
        state.unseen_pushes = [(target, at) for target, at in state.unseen_pushes
                               if not (target in (branch, "*") and at < line)]
    for ref, listed, line in state.on_remote:
        remote = _remote(ref, urls)
        for commit in state.commits:
            if not (commit.hash and same_commit(commit.hash, listed) and commit.since <= line):
                continue
            on_branch = [c for c in state.commits if c.branch == commit.branch]
            for earlier in on_branch[:on_branch.index(commit) + 1]:
                state.pushed.setdefault(earlier.key, (remote, line, False))


def _unpushed(state: EndState, branch: str,
              heads: list[tuple[str, str | None, str, int, bool]]) -> list[Commit]:
    """The branch's commits made after the last push of it that went up (all of them when
    none did): the ones a rebasing pull gives new ids. Those a push carried are on the
    remote branch the pull rebased onto, so they keep theirs; so do those a push whose ref
    lines were not shown (``git push`` said only that it worked), a status in step with the
    upstream or a pull request gh opened from the branch showed up there (``synced``)."""
    last = max([line for name, _, _, line, _ in heads if name == branch]
               + [line for name, _, line in state.synced if name == branch], default=-1)
    return [c for c in state.commits if c.branch == branch and c.since > last]


def _remote(ref: str, urls: set[str]) -> str:
    """Where a remote-tracking ref (``origin/x``) points: the one URL this session's pushes
    went to, else the remote's name."""
    return next(iter(urls)) if len(urls) == 1 else ref.split("/", 1)[0]


def _carried_over(state: EndState, push: Push, current: str | None, rebased: list[Commit],
                  lost: list[Commit]) -> list[Commit]:
    """After a rebase, a push of the branch names its new head: the session's rebased
    commits of that branch are back, the last under that hash, the earlier ones with ids
    this session never saw (only their count is known). When the head pushed is a commit
    made after them, they are back too, all with ids never seen: that commit was made on top
    of them. Left as they are when the branch has commits made after them the push does not
    name, or the head pushed is one known from before, or the push names no head."""
    for update in push.updates:
        src = (current if update.src == "HEAD" else update.src) or update.src
        if update.rejected or update.deleted or update.tag or not update.new:
            continue
        mine = [c for c in rebased if c.branch == src]
        if not mine:
            continue
        since = [c for c in state.commits
                 if c.branch == src and c.line > max(m.line for m in mine)]
        # a commit made since on top of them, not one the rewrite itself printed (a
        # rebase's ``--continue`` shows the rebased commit under its new id: the same one)
        on_top = bool(since) and bool(since[-1].hash) and same_commit(
            since[-1].hash, update.new) and all(any(m is c for c in lost) for m in mine) \
            and not {m.subject for m in mine} & {c.subject for c in since}
        if not on_top and (since or any(c.hash and same_commit(c.hash, update.new)
                                        for c in state.commits)):
            continue  # a commit made since (or the head pushed) is known by its own id
        for index, commit in enumerate(mine):
            last = index == len(mine) - 1 and not on_top
            state.commits.append(Commit(src, update.new if last else "", commit.subject,
                                        commit.line, since=push.line))
            lost[:] = [c for c in lost if c is not commit]
        rebased = [c for c in rebased if c.branch != src]
    return rebased


def _apply_push(state: EndState, push: Push, current: str | None,
                heads: list[tuple[str, str | None, str, int, bool]]) -> None:
    for update in push.updates:
        if update.rejected:
            continue
        if update.tag or (update.deleted and not update.src.startswith("refs/heads/")
                          and update.src in state.tags):
            state.tags.setdefault(update.dst, []).append(
                "deleted on the remote" if update.deleted else "pushed")
            continue
        if update.deleted:
            state.gone[update.dst.removeprefix("refs/heads/")] = push.line
            continue
        src = (current if update.src == "HEAD" else update.src) or update.src
        state.branch_pushes = [p for p in state.branch_pushes if (p[0], p[1]) != (src, update.dst)]
        state.branch_pushes.append((src, update.dst, update.new, push.line))
        heads.append((src, update.new, push.url, push.line, update.forced))


def _mark_pushed(state: EndState, heads: list[tuple[str, str | None, str, int, bool]]) -> None:
    """Which surviving commits a push carried: those of its branch up to the head it pushed
    when that head is one of them; else those the branch held, under their hash, when it
    went up; nothing of this branch when the head was a commit of another one."""
    for branch, new, url, line, forced in heads:
        on_branch = [c for c in state.commits if c.branch == branch]
        if new is not None:
            hits = [i for i, c in enumerate(on_branch) if same_commit(c.hash, new)]
            if hits:
                carried = on_branch[:hits[-1] + 1]
            elif any(same_commit(c.hash, new) for c in state.commits):
                carried = []
            else:
                carried = [c for c in on_branch if c.since <= line]
        else:
            carried = [c for c in on_branch if c.since <= line]
        for commit in carried:
            state.pushed[commit.key] = (url, line, forced)


def remote_name(url: str) -> str:
    """``github.com/owner/repo`` from an https or ssh remote URL."""
    text = re.sub(r"^(?:https?|ssh|git)://(?:[^@/]+@)?", "", url)
    text = re.sub(r"^(?:[^@/]+@)?([\w.-]+):(?!//)", r"\1/", text)
    return text[:-4] if text.endswith(".git") else text.rstrip("/")


def describe(state: EndState, date: str, max_commits: int = 6) -> str:
    """The fact's object: where the work stands, in one paragraph. Commits are named by
    hash; a subject only for a branch's one commit, which is then the whole change the
    session committed there. With several, a subject is the agent's summary of one step (a
    change a later commit of the same session dropped, a version it never read), which the
    next agent would take for the end state; the hashes, the branch and where they went are
    what git itself reported."""
    parts: list[str] = []
    branches: dict[str, list[Commit]] = {}
    for one in state.commits:
        branches.setdefault(one.branch, []).append(one)
    for branch, made in branches.items():
        shown = made[-max_commits:]
        listed = _named(shown)
        if len(made) == 1 and made[0].subject:
            listed += f' "{_short(made[0].subject)}"'
        more = f" (and {len(made) - len(shown)} earlier)" if len(made) > len(shown) else ""
        pushed = [c for c in made if c.key in state.pushed]
        where = ("on a detached HEAD" if branch == "detached HEAD"
                 else f"on branch `{branch}`" if branch else "on the branch checked out")
        gone = " (branch deleted later)" if branch in state.deleted else ""
        least = "at least " if branch in state.at_least else ""
        count = f"{least}{len(made)} commit" + ("s" if len(made) > 1 else "")
        text = f"{count} {where}{gone}: {listed}{more}"
        unseen = any((target in (branch, "*") or not branch) and line >= made[-1].since
                     for target, line in state.unseen_pushes)
        redone = [c for c in made if c.key in state.rewritten and c.key not in state.pushed]
        if branch in state.said:  # git's last word on the branch (git_observed)
            text += "; " + state.said[branch]
        elif redone and not unseen:
            text += _rewritten_clause(made, redone, state)
        elif pushed and len(pushed) == len(made):
            url, line, forced = state.pushed[pushed[-1].key]
            text += f"; pushed {pushed_to(url)}" + _as(branch, state, line) + (
                " (forced)" if forced else "") + _head(branch, made, state)
        elif pushed:
            url, line, _ = state.pushed[pushed[-1].key]
            later = len(made) - len(pushed)
            upto = (f"up to {pushed[-1].hash[:8]}" if pushed[-1].hash
                    else f"the first {len(pushed)}")
            text += (f"; pushed {pushed_to(url)}{_as(branch, state, line)} {upto}, "
                     + (f"{least}{later} later: push outcome unknown" if unseen
                        else f"{least}{later} later not pushed"))
        elif unseen:
            text += "; a push ran but its outcome was never seen (push outcome unknown)"
        elif any(src != branch and line > made[-1].since
                 for src, _, _, line in state.branch_pushes):
            text += f"; `{branch}` itself not pushed"  # a branch that went up may hold them
        else:
            text += "; not pushed"
        parts.append(text)
    committed = {c.branch for c in state.commits}
    for src, dst, new, _ in state.branch_pushes:
        if src in committed:
            continue
        at = f" at {new[:8]}" if new else " (new branch)"
        parts.append(f"pushed `{src}`" + (f" to `{dst}`" if dst != src else "") + at)
    for tag, what in state.tags.items():
        parts.append(f"tag `{tag}` {' then '.join(dict.fromkeys(what))}")
    if not parts:
        return ""
    tail = []
    if state.branch and state.branch != "detached HEAD" and state.branch not in state.deleted:
        tail.append(f"the checkout was on `{state.branch}` at the end")
    if state.dirty:
        tail.append("with uncommitted changes (git status)")
    tail += state.notes
    text = f"Where the session of {date} left the work in git: " + "; ".join(dict.fromkeys(parts))
    return text + ("; " + ", ".join(tail) if tail else "")


#: how ``EndState.pushed`` names a push known from the pull request gh opened from the branch
_OPENED = "pr #"


def git_showed_push(url: str) -> bool:
    """The push was shown by git itself (its ref lines), not inferred from a pull request gh
    opened or told by the person."""
    return bool(url) and not url.startswith(_OPENED)


def pushed_to(url: str) -> str:
    """Where a push went: ``to <remote>``, the pull request gh opened from it (the remote
    it went to is not named: a fork's), or the person's word for it when they pushed from
    elsewhere and git never showed where."""
    if url.startswith(_OPENED):
        return f"(PR #{url.removeprefix(_OPENED)} was opened from it)"
    return f"to {remote_name(url)}" if url else "(you said so)"


def describe_within(state: EndState, date: str, limit: int = 900) -> str:
    """``describe`` with fewer commits named per branch until it fits ``limit`` (a fact's
    prose is stored whole up to a size); "" when even one per branch does not fit."""
    for shown in (6, 3, 1):
        text = describe(state, date, shown)
        if len(text) <= limit:
            return text
    return ""


def _rewritten_clause(made: list[Commit], redone: list[Commit], state: EndState) -> str:
    """The push clause of a branch some of whose commits a rewrite gave new ids after a push
    had carried them, the new ids never pushed: the remote holds the earlier ones."""
    pushed = [c for c in made if c.key in state.pushed]
    others = len(made) - len(pushed) - len(redone)
    urls = {state.rewritten[c.key] for c in redone}
    to = f" to {remote_name(urls.pop())}" if len(urls) == 1 else ""
    text = "; "
    if pushed:
        url, _, _ = state.pushed[pushed[-1].key]
        upto = f"up to {pushed[-1].hash[:8]}" if pushed[-1].hash else f"the first {len(pushed)}"
        text += f"pushed {pushed_to(url)} {upto}; "
    one = len(redone) == 1
    text += (f"{len(redone)} rewritten (new id{'' if one else 's'}) after a push{to} had carried "
             f"{'it' if one else 'them'}, not pushed since: the remote holds "
             f"{'its' if one else 'their'} earlier id{'' if one else 's'}")
    if others:
        text += f"; {others} other{'' if others == 1 else 's'} not pushed"
    return text


def _named(commits: list[Commit]) -> str:
    """The commits by hash, "…" where unlisted ones may lie between two of them; those
    whose id git never printed (``git commit -q``) counted."""
    known = [("…, " if c.gap_before and index else "") + c.hash[:8]
             for index, c in enumerate(commits) if c.hash]
    unknown = len(commits) - len(known)
    if unknown:
        known.append("(id not shown)" if len(commits) == 1 else
                     f"{unknown} whose id{'s were' if unknown > 1 else ' was'} not shown")
    return ", ".join(known)


def _head(branch: str, made: list[Commit], state: EndState) -> str:
    """`` (head <hash>)`` the last push of the branch left, when its last commit's own id
    was never printed: the one id of the end state git did show."""
    if made[-1].hash:
        return ""
    heads = [new for src, _, new, _ in state.branch_pushes if src == branch and new]
    return f" (head {heads[-1][:8]})" if heads else ""


def _as(branch: str, state: EndState, line: int | None = None) -> str:
    """`` as `dst` `` when the branch went up under another name: the name the push that
    carried its last pushed commit (at ``line``) gave it (``git push origin x:main``), else
    the one name every push of it gave. A branch pushed both as itself and as another name
    (a new branch ``x``, then ``x:main`` at each commit) went up last as the other: "pushed
    to <remote>" alone would send the next session looking for its commits on ``x``."""
    at = {dst for src, dst, _, pushed in state.branch_pushes if src == branch and pushed == line}
    names = at or {dst for src, dst, _, _ in state.branch_pushes if src == branch}
    return f" as `{names.pop()}`" if len(names) == 1 and branch not in names else ""


def _short(subject: str, limit: int = 72) -> str:
    subject = subject.replace('"', "'")
    return subject if len(subject) <= limit else subject[: limit - 1].rstrip() + "…"


@dataclass
class PullRequest:
    number: int
    repo: str | None = None
    url: str | None = None
    title: str | None = None
    head: str | None = None
    opened_line: int | None = None
    merged_line: int | None = None
    merged_here: bool = False  # by the session's own ``gh pr merge``, not only seen merged
    method: str | None = None
    state: str | None = None
    merge_commit: str | None = None
    at: int | None = None
    lines: list[int] = field(default_factory=list)
    #: the last line that showed the PR's state (opened, merged, viewed): a report of the
    #: person's before it is older news
    seen_line: int = 0
    #: the state is the person's word ("merged"), not something gh or git showed
    reported: bool = False
    #: the session neither opened it nor pushed its branch: it only saw it merged or closed
    #: (a later session's record of a pull request an earlier one opened). Its fact is
    #: written only where it ends a state of the same pull request the store holds.
    only_replaces: bool = False


def pull_requests(observations: list[Observation],
                  listed_after: list[tuple[int, str, str]]) -> list[PullRequest]:
    """The PRs the session opened or saw merged, in order. ``listed_after``: (line, hash,
    subject) of every ``git log`` line, where a squash merge shows as ``subject (#N)``."""
    found: dict[int, PullRequest] = {}
    pushed = {update.src for seen in observations for push in seen.pushes
              for update in push.updates if not update.rejected}
    for seen in observations:
        for number, url, title, head in seen.pr_opened:
            pr = found.setdefault(number, PullRequest(number))
            pr.url, pr.title, pr.head = url, pr.title or title, pr.head or head
            pr.opened_line, pr.at, pr.seen_line = seen.line, seen.at, seen.line
            pr.lines.append(seen.line)
        for number, method in seen.pr_merged:
            if number == 0:
                continue  # the current branch's PR: ``with_end_state`` knows which
            pr = found.setdefault(number, PullRequest(number))
            pr.seen_line = seen.line
            pr.merged_line, pr.method, pr.state, pr.at = seen.line, method, "MERGED", seen.at
            pr.merged_here = True
            pr.lines.append(seen.line)
        for number, state, title, oid, head in seen.pr_states:
            known = found.get(number)
            if known is None:
                if state != "MERGED" or head not in pushed:
                    continue  # a PR the session only looked at is not its work
                known = found.setdefault(number, PullRequest(number, head=head))
            pr = known
            pr.seen_line = seen.line if state else pr.seen_line
            if state == "MERGED" and pr.merged_line is None:
                pr.merged_line, pr.at = seen.line, seen.at
            pr.state = state or pr.state
            pr.title = title or pr.title  # the last title seen: a PR may be renamed
            pr.merge_commit = oid or pr.merge_commit
            pr.lines.append(seen.line)
    _seen_settled(found, observations, listed_after)
    for pr in found.values():
        if pr.opened_line is not None and pr.state not in ("MERGED", "CLOSED"):
            _merged_in_history(pr, listed_after)
        if pr.state == "MERGED" and pr.merge_commit is None and pr.merged_line is not None:
            hits = {h for line, h, subject in listed_after
                    if line > pr.merged_line and (m := _PR_SUBJECT.search(subject))
                    and int(m["number"]) == pr.number}
            if len(hits) == 1:
                pr.merge_commit = hits.pop()
    return [pr for pr in found.values() if pr.opened_line is not None or pr.state == "MERGED"
            or (pr.only_replaces and pr.state == "CLOSED")]


def _seen_settled(found: dict[int, PullRequest], observations: list[Observation],
                  listed_after: list[tuple[int, str, str]]) -> None:
    """Pull requests this session did not open, yet whose end its record proves: gh showed
    one merged or closed (``gh pr view``/``list``/``status`` of this repository, no
    ``--repo``), or this repository's history lists its merge (GitHub's "Merge pull request
    #N from …", or a squash merge's "… (#N)" subject, on a commit the session did not make).
    An earlier session may have stored "PR #N was opened"; told as ``only_replaces``, the
    fact ends that one and is written nowhere else (``capture/finished_states.py``).
    A number seen settled one way and open, or closed, another way says nothing."""
    made = [c.hash for seen in observations for c in seen.commits if c.hash]
    seen_as: dict[int, set[str]] = {}
    first: dict[int, tuple[int, int | None, str | None, str | None]] = {}
    for seen in observations:
        if seen.pr_other_repo:
            continue
        for number, state, title, oid, _ in seen.pr_states:
            if number in found or not state:
                continue
            seen_as.setdefault(number, set()).add(state)
            first.setdefault(number, (seen.line, seen.at, title, oid))
    at_of = {seen.line: seen.at for seen in observations}
    for line, hash_, subject in listed_after:
        merge = _PR_MERGE_SUBJECT.match(subject)
        squash = _PR_SUBJECT.search(subject)
        named = merge or squash
        if named is None or int(named["number"]) in found \
                or any(same_commit(hash_, h) for h in made):
            continue
        number = int(named["number"])
        seen_as.setdefault(number, set()).add("MERGED")
        title = None if merge or squash is None else subject[:squash.start()].strip() or None
        first.setdefault(number, (line, at_of.get(line), title, hash_))
    for number, states in seen_as.items():
        if len(states) != 1 or states & {"OPEN"}:
            continue  # open now, or told two ways: nothing ends
        line, at, title, oid = first[number]
        state = states.pop()
        found[number] = PullRequest(
            number, title=title, state=state, at=at, lines=[line], seen_line=line,
            merged_line=line if state == "MERGED" else None,
            merge_commit=oid if state == "MERGED" else None, only_replaces=True)


def _merged_in_history(pr: PullRequest, listed_after: list[tuple[int, str, str]]) -> None:
    """A PR the session opened counts as merged when a later listing of the same repository's
    history holds its merge: GitHub's "Merge pull request #N from …" subject, or a squash
    merge's "… (#N)". Someone else may merge it (the user, a maintainer, a merge queue) while
    the session goes on; telling the next agent it is still open would be wrong. PR and issue
    numbers share one sequence, so no commit older than the PR can end in its number."""
    for line, hash_, subject in listed_after:
        if line <= (pr.opened_line or 0):
            continue
        found = _PR_MERGE_SUBJECT.match(subject) or _PR_SUBJECT.search(subject)
        if found and int(found["number"]) == pr.number:
            pr.state, pr.merged_line, pr.merge_commit = "MERGED", line, hash_
            pr.seen_line = max(pr.seen_line, line)
            pr.lines.append(line)
            return


#: A PR whose state the session's later evidence left in doubt (its head branch deleted, a
#: report of the person's that may be about another PR): no fact, rather than a stale one.
UNKNOWN_STATE = "UNKNOWN"
_SETTLED = ("MERGED", "CLOSED")


def with_end_state(prs: list[PullRequest], state: EndState) -> None:
    """What the repository's end state tells of its PRs: the head branch of one opened from
    the checkout (``gh pr create`` with no ``--head``); a ``gh pr merge`` naming no PR merged
    the current branch's; a head branch deleted after the PR was opened (``git branch -d``,
    ``git push --delete``, a fetch's prune) leaves the PR merged or closed -- which one is
    unknown, so it is no longer told as open, unless gh showed its state after that."""
    for pr in prs:
        pr.head = pr.head or state.opened_on.get(pr.number)
    for branch, line, method in state.merged_current:
        mine = [pr for pr in prs if pr.head == branch and (pr.opened_line or 0) < line
                and pr.state not in _SETTLED]
        if len(mine) == 1:
            pr = mine[0]
            pr.state, pr.method, pr.merged_line, pr.merged_here = "MERGED", method, line, True
            pr.seen_line = max(pr.seen_line, line)
            pr.lines.append(line)
    for pr in prs:
        landed = _landed_by_pull(pr, state)
        if landed is not None and pr.state not in _SETTLED and pr.seen_line < landed:
            pr.state, pr.seen_line = UNKNOWN_STATE, landed
    for pr in prs:
        gone = state.gone.get(pr.head or "")
        if gone is not None and gone > (pr.opened_line or 0) and pr.state not in _SETTLED \
                and pr.seen_line < gone:
            pr.state, pr.seen_line = UNKNOWN_STATE, gone


def _landed_by_pull(pr: PullRequest, state: EndState) -> int | None:
    """The line of a pull into another branch, after the PR was opened, whose diffstat
    lists every file the PR's commits changed: its change most likely came in merged (a
    squash merge shows no subject of the session's, only the files), so the PR may be
    open no more. Only when each of the head branch's commits has its files known."""
    mine = [c for c in state.commits if pr.head and c.branch == pr.head]
    if not mine or any(not c.files for c in mine):
        return None
    files = {f for c in mine for f in c.files}
    for into, line, listed in state.pulled:
        if line > (pr.opened_line or 0) and into != pr.head \
                and all(any(_same_path(f, shown) for shown in listed) for f in files):
            return line
    return None


def _same_path(staged: str, shown: str) -> bool:
    """A path ``git add`` named and one a diffstat shows: relative to different folders,
    the diffstat's cut short at its front (``.../deep/file.py``) when long."""
    staged = staged.removeprefix("./")
    if shown.startswith(".../"):
        tail = shown[4:]
        return staged == tail or staged.endswith("/" + tail)
    return shown == staged or shown.endswith("/" + staged)


def apply_reports(prs: list[PullRequest], reports: list[tuple[int, str, int | None]]) -> None:
    """Settle what the person said happened (``git_reports``: (line, MERGED or CLOSED, the
    PR they named or None)) against the PRs the session opened, over every repository (the
    person's words name no repository). A state gh or git showed after the report stands.
    A report naming a PR holds for that PR; one naming none holds for the one PR open when
    it was said -- with several open it may be about any of them, so none of them is told
    as open any more (never a guess at which one)."""
    for line, what, number in sorted(reports):
        if number is not None:
            named = [pr for pr in prs if pr.number == number and not pr.only_replaces
                     and (pr.opened_line or 0) < line]
            for pr in named:
                if len(named) == 1:
                    _reported(pr, what, line)
                elif pr.seen_line < line and pr.state not in _SETTLED:
                    pr.state = UNKNOWN_STATE  # the same number in two repositories
            continue
        open_then = [pr for pr in prs if _open_at(pr, line)]
        if len(open_then) == 1:
            _reported(open_then[0], what, line)
        else:
            for pr in open_then:
                if pr.seen_line < line:
                    pr.state = UNKNOWN_STATE


def _open_at(pr: PullRequest, line: int) -> bool:
    """Whether the PR may have been open when the person spoke at ``line``: opened before,
    not merged or closed before, and not shown open after (then it was not the one)."""
    if pr.opened_line is None or pr.opened_line >= line:
        return False
    if pr.state in _SETTLED and (pr.merged_line or pr.seen_line) < line:
        return False
    return not (pr.state == "OPEN" and pr.seen_line > line)


def _reported(pr: PullRequest, what: str, line: int) -> None:
    if pr.seen_line > line or pr.state in _SETTLED:
        return  # gh or git showed its state later (or already): that is what stands
    pr.state, pr.reported, pr.seen_line = what, True, line
    if what == "MERGED":
        pr.merged_line = line
    pr.lines.append(line)


def drop_settled(state: EndState, prs: list[PullRequest]) -> None:
    """Take out of the repository's end state the work of every PR merged (or whose state
    is in doubt) after it: the commits its head branch held and the push that took them up.
    They are in the base branch now, or nobody knows where; "1 commit on branch `x`, pushed"
    would tell the next agent the work still waits there. The PR's own fact tells it."""
    for pr in prs:
        if pr.state not in ("MERGED", UNKNOWN_STATE) or not pr.head:
            continue
        until = pr.merged_line if pr.state == "MERGED" and pr.merged_line else pr.seen_line
        state.commits = [c for c in state.commits if c.branch != pr.head or c.line > until]
        state.branch_pushes = [p for p in state.branch_pushes
                               if p[0] != pr.head or p[3] > until]
        state.unseen_pushes = [(b, at) for b, at in state.unseen_pushes
                               if b != pr.head or at > until]


def describe_pr(pr: PullRequest, date: str) -> str:
    """The PR's fact ("" when its state is in doubt: nothing rather than a stale state)."""
    if pr.state == UNKNOWN_STATE:
        return ""
    title = f' "{_short(pr.title)}"' if pr.title else ""
    if pr.reported:
        said = "merged" if pr.state == "MERGED" else "closed"
        return f"PR #{pr.number}{title} was {said} (you said so in the session of {date})"
    if pr.only_replaces and pr.state == "CLOSED":
        return f"PR #{pr.number}{title} was closed unmerged (seen closed in the session of {date})"
    if pr.state == "MERGED":
        how = {"squash": " by squash", "rebase": " by rebase", "merge": " with a merge commit"}
        text = f"PR #{pr.number}{title} was merged{how.get(pr.method or '', '')}"
        if pr.merge_commit:
            text += f" as {pr.merge_commit[:8]}"
        return text + (f" (session of {date})" if pr.merged_here
                       else f" (seen merged in the session of {date})")
    head = f" from branch `{pr.head}`" if pr.head else ""
    draft = ""
    text = f"PR #{pr.number}{title} was opened{head}{draft} in the session of {date}"
    if pr.state == "CLOSED":
        text += "; it was closed unmerged"
    elif pr.url:
        text += f" ({pr.url})"
    return text
