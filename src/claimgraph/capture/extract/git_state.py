"""Where the session left the work in git: one fact per repository, one per pull request.

Read only from what git and gh printed for commands that worked (``logic/git_state.py``
parses and settles): the commits the session made and still has at the end, whether a push
carried them and where, tags, the branch checked out at the end and uncommitted work; a pull
request opened (its URL) or merged (``gh pr merge``, or ``gh pr view``, ``gh pr list`` or
``gh pr status`` saying so; several ``gh pr view`` of one line each by its own output) and
its merge commit when git showed it; the same from the GitHub MCP server's pull-request
tools (``logic/pr_tools.py``), placed in the repository whose pushes name the GitHub
repository the call named. A command that failed, was refused or whose outcome
is unknown proves nothing; the agent's prose is never read. The repository is where the
command ran: its recorded directory, a leading ``cd`` or ``git -C``; the project's own
checkout (its root and anything under it) is one repository, another folder another.

Nothing is stored for a session that made no commit, push, tag or pull request.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from claimgraph.capture.extract.git_observed import (
    note_runs, note_status, proven_runs, revise, typed_lines)
from claimgraph.capture.extract.session import (
    FAILED, OK, UNKNOWN, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations, unwrap)
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.tools import DELEGATES
from claimgraph.capture.foreign_paths import as_posix, windows_path
from claimgraph.logic import git_done as done
from claimgraph.logic import git_state as gs
from claimgraph.logic import pr_tools
from claimgraph.logic.git_reports import reports_in
from claimgraph.logic.timeutil import to_date

RULE = "git-state"
PREDICATE = "x/state"
#: A quick look before parsing: a line that names no git tool runs none.
_GIT = re.compile(r"\b(?:git|gh)\b|\bbfg\b")
#: git's options before the verb that take the next word as their value.
_GIT_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace",
                         "--config-env", "--exec-path"})
_TAG_FLAGS = frozenset({"-a", "-s", "-f", "--annotate", "--sign", "--force"})
_TAG_NOT_MADE = frozenset({"-d", "--delete", "-l", "--list", "-v", "--verify", "-n",
                           "--contains", "--no-contains", "--points-at", "--merged",
                           "--no-merged", "--sort", "--format"})
_PR_ACTIONS = {"create": "pr_create", "merge": "pr_merge", "view": "pr_view", "edit": "pr_edit",
               "list": "pr_list", "close": "pr_close", "status": "pr_status"}
_VERBS = {"commit": "commit", "push": "push", "reset": "reset", "rebase": "rebase",
          "pull": "pull", "filter-branch": "rewrite", "filter-repo": "rewrite",
          "cherry-pick": "picks", "revert": "picks", "am": "picks", "log": "log",
          "status": "status", "checkout": "switch", "switch": "switch", "branch": "branch",
          "tag": "tag", "merge": "merge"}
MAX_EVIDENCE = 3


def git_state_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    by_repo: dict[str, list[gs.Observation]] = {}
    quotes: dict[int, str] = {}
    #: every listing of history (``git log``, "HEAD is now at …"), per repository: a PR's
    #: number in a subject means that PR only in the repository the PR belongs to
    listed: dict[str, list[tuple[int, str, str]]] = {}
    statuses: dict[str, list[tuple[int, str]]] = {}  # repository -> (line, a status's output)
    noted: dict[str, list[tuple[int, Any, str]]] = {}  # its logs and rewrites (git_observed)
    unread: dict[str, list[gs.Observation]] = {}  # git's lines of lines the reader cannot read
    #: repository -> (line, branch, listed) of logs of what a branch holds and its upstream
    #: lacks (``git log --oneline origin/x..x``)
    ahead: dict[str, list[tuple[int, str, tuple[tuple[str, str], ...]]]] = {}
    for call in view.calls():
        command = command_text(call)
        if not command or not _GIT.search(command):
            continue
        runs = git_runs(command, call_cwd(call) or view.root)
        if view.outcome(call) == FAILED:  # a log marked off in a line that failed later
            _note_marked_logs(view, noted, command, call)
        if not runs and view.outcome(call) == OK:  # a line the shell reader cannot take apart
            _note_unread(view, call, unread)
        repo = _repository(view, runs) if runs else None
        if repo is None:
            continue
        result = view.results.get(call.call_id or "")
        outcome = view.outcome(call)
        if outcome == OK and result is not None:
            seen = observe_runs(runs, result.text, call.line, call.timestamp,
                                others=_merge_beside_others(command))
        elif result is None or (outcome == UNKNOWN and not view.refused(result)):
            seen = unseen(runs, call.line, call.timestamp)  # it ran; how it ended never shows
        elif outcome == FAILED:
            seen = made_in_failed(runs, result.text, call.line, call.timestamp)
        else:
            continue  # turned down: it proves nothing
        if seen is None:
            continue
        seen = dataclasses.replace(seen, place=runs[0].cwd)
        by_repo.setdefault(repo, []).append(seen)
        quotes[call.line] = _quote(seen, command)
        listed.setdefault(repo, []).extend((call.line, h, s) for h, s in seen.listed)
        if outcome == OK and result is not None:
            note_status(statuses, repo, [run.kind for run in runs], result.text,
                                 call.line)
            note_runs(noted, repo, runs, result.text, call.line)
            logged = _ahead_of_upstream(runs, result.text)
            if logged:
                ahead.setdefault(repo, []).append((call.line, *logged))
    # what git printed for the commands the person typed at the prompt (git_observed)
    for event, command, output, failed in typed_lines(view):
        runs = git_runs(command, event.cwd or view.root)
        runs = proven_runs(runs, output) if failed else runs
        repo = _repository(view, runs) if runs else None
        seen = observe_runs(runs, output, event.line, event.timestamp,
                            others=_merge_beside_others(command)) if repo else None
        if repo is not None:
            note_status(statuses, repo, [run.kind for run in runs], output, event.line)
            note_runs(noted, repo, runs, output, event.line)
        if repo is not None and seen is not None:
            by_repo.setdefault(repo, []).append(dataclasses.replace(seen, place=runs[0].cwd))
            quotes[event.line] = _quote(seen, command)
            listed.setdefault(repo, []).extend((event.line, h, s) for h, s in seen.listed)
    _add_pr_tools(view, by_repo, quotes)
    reports = _reports(view)
    _add_reported_pushes(by_repo, [(line, at) for line, at, what, _, _ in reports
                                   if what == "PUSHED"])
    fallback = next((e.timestamp for e in view.transcript.events if e.timestamp), None)
    settled: list[tuple[str, gs.EndState, list[gs.PullRequest]]] = []
    for repo, observations in by_repo.items():
        hidden = _unread_of(unread.get(repo, []), observations)
        observations += hidden
        quotes.update((seen.line, _quote(seen, "git")) for seen in hidden)
        observations.sort(key=lambda seen: seen.line)
        state = gs.settle(observations)
        state.at_least |= _named_branches(hidden) & {c.branch for c in state.commits}
        revise(view, repo, state, observations, sorted(statuses.get(repo, [])),
               sorted(noted.get(repo, []), key=lambda kept: kept[0]))
        _add_delegated(state, ahead.get(repo, []), delegated_ids(view), observations)
        prs = gs.pull_requests(observations, listed.get(repo, []))
        gs.with_end_state(prs, state)
        settled.append((repo, state, prs))
    # A report naming a PR holds for it in whichever repository opened one by that number;
    # one naming none is about the repository the session worked in last before it
    gs.apply_reports([pr for _, _, prs in settled for pr in prs],
                     [(line, what, number) for line, _, what, number, named in reports
                      if what != "PUSHED" and number is not None and named is None])
    # one naming the PR by its repository ("shop pr merged") holds in the one repository
    # that answers to the name, and nowhere when none or several do
    for repo, _, prs in settled:
        gs.apply_reports(prs, [(line, what, number) for line, _, what, number, named in reports
                               if what != "PUSHED" and named is not None
                               and _answering(named, settled, view) == [repo]])
    for repo, _, prs in settled:
        gs.apply_reports(prs, [(line, what, None) for line, _, what, number, named in reports
                               if what != "PUSHED" and number is None and named is None
                               and _last_worked_in(by_repo, line) == repo])
    for repo, state, prs in settled:
        gs.drop_settled(state, prs)
        yield from _facts(view, repo, state, prs, quotes, fallback)


def _add_pr_tools(view: SessionView, by_repo: dict[str, list[gs.Observation]],
                  quotes: dict[int, str]) -> None:
    """Pull requests the GitHub MCP server's tools opened, merged, closed or showed
    (``logic/pr_tools.py``), each put in the one repository of the session whose pushes or
    pull requests name the GitHub repository the call named: nowhere when none or several
    do (the call names no folder, and a guess would tell one repository's pull request as
    another's)."""
    homes: dict[str, set[str]] = {}
    for repo, observations in by_repo.items():
        for seen in observations:
            urls = [push.url for push in seen.pushes] + [url for _, url, _, _ in seen.pr_opened]
            for url in urls:
                named = pr_tools.repository_of_url(url)
                if named is not None:
                    homes.setdefault(named, set()).add(repo)
    for call in view.calls():
        tool = pr_tools.tool_of(call.tool_name)
        result = view.results.get(call.call_id or "")
        if tool is None or result is None or view.outcome(call) != OK:
            continue
        asked = call.tool_input or {}
        places = homes.get(pr_tools.repository(asked) or "", set())
        seen = pr_tools.observed(tool, asked, result.text, call.line, call.timestamp)
        if seen is None or len(places) != 1:
            continue
        by_repo[next(iter(places))].append(seen)
        shown = seen.pr_opened[0][1] if seen.pr_opened else result.text.strip()[:80]
        quotes[call.line] = f"{tool} → {shown}"


#: a commit id in a sub-agent's report: hex with a digit and a letter (not a number, a word)
_REPORTED_ID = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])"
                          r"[0-9a-f]{7,40}(?![\w-])")


def delegated_ids(view: SessionView) -> dict[str, int]:
    """Commit-like ids each sub-agent's report names (the delegating tool's result), with
    the line of the first report naming each: the commits the session's sub-agents said
    they made, whose own commands the main transcript does not hold."""
    def compute(v: SessionView) -> dict[str, int]:
        found: dict[str, int] = {}
        for call in v.calls():
            result = v.results.get(call.call_id or "")
            if call.tool_name in DELEGATES and result is not None:
                for match in _REPORTED_ID.finditer(result.text):
                    found.setdefault(match.group(0), call.line)
        return found
    ids: dict[str, int] = view.remembered("git_state.delegated_ids", compute)
    return ids


def _ahead_of_upstream(runs: list[GitRun], output: str
                       ) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """(branch, listed) of a line's one ``git log --oneline <remote>/<x>..<branch>``: the
    commits ``branch`` holds that its remote-tracking ref lacks, none of them pushed there."""
    logs = [run for run in runs if run.kind == "log"]
    if len(logs) != 1 or any(run.kind not in ("log", "status", "other") for run in runs):
        return None
    words = logs[0].words[2:]
    named = [w for w in words if not w.startswith("-")]
    if len(named) != 1 or not any(w in ("--oneline", "--pretty=oneline") for w in words):
        return None
    base, _, branch = named[0].partition("..")
    if not _REMOTE_REF.match(base) or not branch or branch in ("HEAD", "@") \
            or branch.startswith(("origin/", "upstream/", ".")):
        return None
    listed = tuple(gs.log_lines(output))
    return (branch, listed) if listed else None


def _add_delegated(state: gs.EndState,
                   ahead: list[tuple[int, str, tuple[tuple[str, str], ...]]],
                   reported: dict[str, int], observations: list[gs.Observation]) -> None:
    """Commits a sub-agent's report named that a later log shows on a branch and not on its
    upstream (``git log --oneline origin/main..main``) are the session's commits on that
    branch, not pushed: git places them, the report says whose they are. Nothing when a
    push, a rewrite or a commit of the tally came after the log (the branch may have moved
    since), or when the tally holds them already."""
    for line, branch, listed in ahead:
        if any(seen.line > line and (seen.pushes or seen.unseen_pushes or seen.quiet_pushes
                                     or seen.rewrote or seen.commits)
               for seen in observations):
            continue
        for hash_, subject in reversed(listed):
            said = next((at for known, at in reported.items()
                         if gs.same_commit(known, hash_)), None)
            if said is None or said > line or any(
                    c.hash and gs.same_commit(c.hash, hash_) for c in state.commits):
                continue
            state.commits.append(gs.Commit(branch, hash_, subject, line, since=line))


def _facts(view: SessionView, repo: str, state: gs.EndState, prs: list[gs.PullRequest],
           quotes: dict[int, str], fallback: int | None) -> Iterator[dict[str, Any]]:
    """The repository's fact and one per pull request."""
    at = state.at or fallback
    date = to_date(at) if at else "unknown date"
    subject = view.project if repo == view.root else posixpath.basename(repo) or repo
    if state.anything:
        text = gs.describe_within(state, date)
        if text:
            lines = sorted(set(state.lines))
            cited = [*lines[:1], *lines[1:][-(MAX_EVIDENCE - 1):]]
            found = candidate(RULE, subject, PREDICATE, text,
                              evidence=[transcript_evidence(line, quotes.get(line, "git"))
                                        for line in cited],
                              object_kind="literal", subject_type="project", at=at)
            # for the screen of finished states (capture/extract/git_done.py), which takes it off
            found[done.FIELD] = done.Settled(date, state=state, edits_checked=repo == view.root)
            yield found
    for pr in prs:
        pr_at = pr.at or at
        text = gs.describe_pr(pr, to_date(pr_at) if pr_at else date)
        if not text:
            continue  # its state is in doubt at the end: nothing rather than a stale one
        # The PR is its own subject: x/state holds one value per subject, so its later
        # state (merged) replaces its earlier one (opened), and it never replaces the
        # repository's own state, nor another PR's.
        found = candidate(RULE, f"{subject} PR #{pr.number}", PREDICATE, text,
                          evidence=[transcript_evidence(line, quotes.get(line, "gh pr"))
                                    for line in sorted(set(pr.lines))[-MAX_EVIDENCE:]],
                          object_kind="literal", subject_type="pull-request", at=pr_at)
        found[done.FIELD] = done.Settled(date, pr=pr)
        yield found


def _note_unread(view: SessionView, call: Any,
                 unread: dict[str, list[gs.Observation]]) -> None:
    """A line that worked but that the shell reader could not take apart (another shell's
    syntax: a PowerShell here-string, a quote it cannot pair), whose output shows git's own
    lines: the summary of a commit it made, the ref lines of a push. Kept by the folder the
    call ran in; ``_unread_of`` decides whether they count."""
    result = view.results.get(call.call_id or "")
    if result is None:
        return
    commits = tuple(gs.Commit(branch, hash_, subject, call.line)
                    for branch, hash_, subject in gs.commits_in(result.text))
    pushes = tuple(gs.pushes_in(result.text, call.line))
    repo = _repository(view, [GitRun("other", ("git",), call_cwd(call) or view.root)])
    if (commits or pushes) and repo is not None:
        unread.setdefault(repo, []).append(gs.Observation(call.line, call.timestamp, commits,
                                                          pushes=pushes))


def _unread_of(hidden: list[gs.Observation], observations: list[gs.Observation]
               ) -> list[gs.Observation]:
    """The unread lines that belong to this repository's tally: their pushes went to a
    remote a push the reader read went to, and their commits were made on a branch it
    knows. Such a line may also have made commits git printed no line for (``-q``): the
    count of every branch it names becomes a lower bound (``_named_branches``)."""
    urls = {push.url for seen in observations for push in seen.pushes}
    branches = {c.branch for seen in observations for c in seen.commits} | {
        seen.branch for seen in observations if seen.branch}
    kept = []
    for seen in hidden:
        pushes = tuple(push for push in seen.pushes if push.url in urls)
        commits = tuple(c for c in seen.commits if c.branch in branches)
        if pushes or commits:
            kept.append(dataclasses.replace(seen, commits=commits, pushes=pushes))
    return kept


def _named_branches(hidden: list[gs.Observation]) -> set[str]:
    """The branches unread lines made commits on or pushed."""
    return {c.branch for seen in hidden for c in seen.commits} | {
        update.src for seen in hidden for push in seen.pushes for update in push.updates
        if not update.rejected and not update.tag and not update.deleted}


def _reports(view: SessionView) -> list[tuple[int, int | None, str, int | None, str | None]]:
    """(line, time, what, PR number, repository named) of every report of the person's about
    the work outside the session ("merged", "I pushed", "shop pr merged":
    ``logic/git_reports``)."""
    return [(event.line, event.timestamp, report.what, report.number, report.repo)
            for event, text in user_texts(view) for report in reports_in(text)]


def _note_marked_logs(view: SessionView, noted: dict[str, list[tuple[int, Any, str]]],
                      command: str, call: Any) -> None:
    result = view.results.get(call.call_id or "")
    for run, printed in marked_logs(command, call_cwd(call) or view.root,
                                    result.text if result else ""):
        repo = _repository(view, [run])
        if repo is not None:
            noted.setdefault(repo, []).append((call.line, [run], printed))


def _names_of(view: SessionView, repo: str, prs: list[gs.PullRequest]) -> set[str]:
    """What a repository the session worked in is called: its folder's name (the project's
    for its root) and the GitHub repository of each PR it opened there."""
    names = {posixpath.basename(repo.rstrip("/"))}
    if repo == view.root and view.project:
        names.add(view.project)
    names.update(found["name"] for pr in prs if pr.url
                 and (found := _URL_REPO.search(pr.url)))
    return {name.lower() for name in names if name}


_URL_REPO = re.compile(r"/(?P<name>[^/\s]+)/pull/\d+")
_NAME_PARTS = re.compile(r"[a-z0-9]+")


def _answering(named: str, settled: list[tuple[str, gs.EndState, list[gs.PullRequest]]],
               view: SessionView) -> list[str]:
    """The repositories whose name holds what the person called one ("technocore" for
    ``technocore-chat``: its words, in order, as whole parts of the name)."""
    said = _NAME_PARTS.findall(named.lower())
    return [repo for repo, _, prs in settled
            if said and any(_holds(_NAME_PARTS.findall(name), said)
                            for name in _names_of(view, repo, prs))]


def _holds(parts: list[str], said: list[str]) -> bool:
    return any(parts[at:at + len(said)] == said for at in range(len(parts) - len(said) + 1))


def _last_worked_in(by_repo: dict[str, list[gs.Observation]], line: int) -> str | None:
    """The repository of the last git or gh command before ``line``: what the person's
    "merged" there is about, when they name no PR."""
    last = [(max(seen.line for seen in observations if seen.line < line), repo)
            for repo, observations in by_repo.items()
            if any(seen.line < line and not seen.reported_push for seen in observations)]
    return max(last)[1] if last else None


def _add_reported_pushes(by_repo: dict[str, list[gs.Observation]],
                         said: list[tuple[int, int | None]]) -> None:
    """Each "I pushed" of the person's, as an observation of the repository the session last
    committed to before it (none: the push is of nothing this session made)."""
    for line, at in said:
        latest = [(max(seen.line for seen in observations if seen.commits
                       and seen.line < line), repo)
                  for repo, observations in by_repo.items()
                  if any(seen.commits and seen.line < line for seen in observations)]
        if latest:
            by_repo[max(latest)[1]].append(gs.Observation(line, at, reported_push=True))


@dataclass(frozen=True)
class GitRun:
    """One git or gh command of a line (``shell.invocations``): what it is (``commit``,
    ``push``, ``pr_create`` …), its words from the program on with git's own options
    removed (``git commit -m x``, ``gh pr view 3``), and the folder it worked in as far as
    ``cd`` and ``git -C`` tell (None: unknown)."""

    kind: str
    words: tuple[str, ...]
    cwd: str | None
    #: the line's success implies this command's (only ``&&`` leads from it to the end, no
    #: pipe): a quiet push on such a line went up
    sure: bool = False


def git_runs(command: str, cwd: str | None = None) -> list[GitRun]:
    """The git and gh commands a line runs, in order: read by the shell parser, so a heredoc
    body or a quoted message that names ``git tag v2`` runs nothing."""
    return [found for run in invocations(command, cwd) if (found := git_run(run))]


def git_run(run: Invocation) -> GitRun | None:
    """The git or gh command one simple command of a line runs (None: none, or a probe)."""
    words = unwrap(run.argv)
    program = words[0] if words else ""
    where = run.cwd
    if program == "git":
        rest = list(words[1:])
        git_dir = None  # read from where every -C leads, wherever it stands (git(1))
        while rest and rest[0].startswith("-"):
            flag = rest.pop(0)
            if flag.startswith("--git-dir="):
                git_dir = flag.split("=", 1)[1]
            elif flag in _ASKS_ONLY:
                rest = []  # ``git --version …`` runs ``git version``: a probe
            elif flag in _GIT_VALUES and rest:
                value = rest.pop(0)
                where = _into(where, value) if flag == "-C" else where
                git_dir = value if flag == "--git-dir" else git_dir
        if not rest or probe(rest[1:]):
            return None
        if git_dir is not None:
            where = _repository_at(where, git_dir)
        return GitRun(_VERBS.get(rest[0], "other"), ("git", *rest), where,
                      sure=run.confirmed and not run.piped)
    if (program.startswith("git-") or program in ("bfg", "gh")) and probe(words[1:]):
        return None
    if program.startswith("git-") or program == "bfg":
        rewrite = program in ("git-filter-repo", "git-filter-branch", "bfg")
        return GitRun("rewrite" if rewrite else "other",
                      ("git", program.removeprefix("git-"), *words[1:]), where)
    if program == "gh":
        rest = list(words[1:])
        pr = len(rest) > 1 and rest[0] == "pr"
        return GitRun(_PR_ACTIONS.get(rest[1], "other") if pr else "other", ("gh", *rest),
                      where)
    return None


def _repository_at(cwd: str | None, git_dir: str) -> str | None:
    """The folder of the repository ``--git-dir`` names (git(1)): the one holding a ``.git``
    directory, or the directory itself (a bare repository). ``--work-tree`` alone does not
    change it: git then finds the repository from where it runs."""
    found = _into(cwd, git_dir)
    if found is not None and posixpath.basename(found) == ".git":
        return posixpath.dirname(found)
    return found


def marked_logs(command: str, cwd: str | None, output: str) -> list[tuple[GitRun, str]]:
    """(log, what it printed) of each ``git log`` of a line whose output an ``echo`` right
    before it (or the line's start) and one right after it mark off, each marker printed
    once: what lies between the two is that log's own output, whatever failed later on the
    line (``echo "--- head ---" && git log --oneline -3 && echo "--- files ---" && ls x``)."""
    steps = invocations(command, cwd)
    lines = output.splitlines()
    found: list[tuple[GitRun, str]] = []
    for at, step in enumerate(steps):
        run = git_run(step)
        if run is None or run.kind != "log" or step.piped or at + 1 >= len(steps):
            continue
        start = _printed_once(lines, steps[at - 1]) if at else -1
        end = _printed_once(lines, steps[at + 1])
        if start is not None and end is not None and start < end:
            found.append((run, "\n".join(lines[start + 1:end])))
    return found


def _printed_once(lines: list[str], step: Invocation) -> int | None:
    """The one output line a plain ``echo TEXT`` printed (None: not an echo, or its text
    shows other than once)."""
    if step.argv[:1] != ("echo",) or len(step.argv) < 2 or step.piped \
            or re.fullmatch(r"-[neE]+", step.argv[1]):
        return None
    text = " ".join(step.argv[1:]).strip()
    at = [index for index, line in enumerate(lines) if line.strip() == text]
    return at[0] if len(at) == 1 and text else None


#: words with which a git command, a git tool (``git-filter-repo``, ``bfg``) or gh only
#: prints its version or its help, whatever else the line names
_ASKS_ONLY = frozenset({"--version", "--help"})


def probe(args: Sequence[str]) -> bool:
    """A command that only asks the tool its version or its help (``git filter-repo
    --version``, ``git commit --help``, ``git push -h``): it commits, pushes and rewrites
    nothing. ``-h`` counts only as the one word after the command (``git grep -h`` means
    something else); a word after ``--`` is a path, never an option."""
    words = list(args)
    words = words[:words.index("--")] if "--" in words else words
    return any(w in _ASKS_ONLY for w in words) or words == ["-h"]


def _into(cwd: str | None, target: str) -> str | None:
    """The folder ``git -C target`` works in (None: unknown)."""
    if windows_path(target):
        return windows_path(target)
    if posixpath.isabs(target):
        return posixpath.normpath(target)
    if target.startswith(("~", "$")) or not cwd:
        return None
    return posixpath.normpath(posixpath.join(cwd, target))


def _repository(view: SessionView, runs: list[GitRun]) -> str | None:
    """The checkout the line's git commands worked in: the project's root for anything under
    it; None when they worked in different ones, or where is unknown (``cd ~/x``)."""
    places = {run.cwd for run in runs}
    if len(places) != 1:
        return None
    cwd = places.pop()
    if not cwd:
        return None
    cwd = posixpath.normpath(as_posix(cwd))
    root = view.root
    if root and (cwd == root or cwd.startswith(root.rstrip("/") + "/")):
        return root
    return cwd


def _grouped(runs: list[GitRun]) -> dict[str, list[tuple[str, ...]]]:
    found: dict[str, list[tuple[str, ...]]] = {}
    for run in runs:
        found.setdefault(run.kind, []).append(run.words)
    return found


def unseen(runs: list[GitRun], line: int, at: int | None = None) -> gs.Observation | None:
    """A line whose outcome never shows (no result: the session ended; cut short): only
    that it tried to push, and what (None: the current branch)."""
    found = _grouped(runs)
    pushes = tuple(_push_target(words) for words in found.get("push", []) if not dry_run(words))
    more = any(not dry_run(words) for words in found.get("commit", []))
    # a reset that moves the branch, its outcome unknown: the commits before it may be gone
    # from the branch, so they are told no more (less said rather than a stale tally)
    reset = any(gs.resets_history(words) for words in found.get("reset", [])) \
        or any(_resets_branch(words) for words in found.get("switch", []))
    return gs.Observation(line, at, unseen_pushes=pushes, more_commits=more, rewrote=reset) \
        if pushes or more or reset else None


def _unread_commits(made: list[tuple[str, ...]], commits: list[gs.Commit], output: str) -> bool:
    """The line ran more commits than git's output shows made, and nothing says the others
    made nothing (a dry run, "nothing to commit")."""
    tried = [words for words in made if not dry_run(words)]
    return len(tried) > len(commits) and "nothing to commit" not in output \
        and "no changes added" not in output


#: The short flag that makes each git command a dry run, as git documents it: ``-n`` is
#: ``--dry-run`` for ``push``, ``add``, ``rm``, ``mv`` and ``clean``, but ``--no-verify`` for
#: ``commit`` (hooks skipped, the commit made), ``--no-stat`` for ``merge`` and ``pull``,
#: ``--no-commit`` for ``revert`` and ``cherry-pick``, ``--no-tags`` for ``fetch``.
_DRY_SHORT = {"push": "n", "add": "n", "rm": "n", "mv": "n", "clean": "n"}


def dry_run(words: tuple[str, ...]) -> bool:
    """``git <verb> … --dry-run`` (or the verb's own short flag for it, alone or bundled:
    ``git push -nv``): it only shows what it would do."""
    short = _DRY_SHORT.get(words[1]) if len(words) > 1 else None
    args = words[2:]
    args = args[:args.index("--")] if "--" in args else args
    return any(w == "--dry-run" or (short is not None and w.startswith("-")
                                    and not w.startswith("--") and short in w[1:])
               for w in args)


#: what may run beside a commit on a line that failed for its summary to stand: nothing
#: that moves HEAD or rewrites history after it (a reset, a rebase, a pull, a checkout)
_BESIDE_FAILED_COMMIT = frozenset({"commit", "push", "status", "log", "tag", "other",
                                   "pr_create", "pr_view", "pr_edit", "pr_list", "pr_status"})
#: a harness's failure line that labels what the command printed (``…, stdout: [main …``)
_LABELLED = re.compile(r"^[^\n]*?\bstdout: ", re.I)


def made_in_failed(runs: list[GitRun], output: str, line: int,
                   at: int | None = None) -> gs.Observation | None:
    """The commits a line that failed shows made: git's own summary of each (``[main 4ade307]
    subject``) says it was made whatever failed after it (``git commit … && git push``, the
    push refused). Nothing else such a line printed is read, and nothing at all when the
    line also ran something that may have moved HEAD again, or printed more summaries than
    it ran commits."""
    made = [run for run in runs if run.kind == "commit"]
    if not made:
        return _reset_in_failed(runs, output, line, at)
    if any(run.kind not in _BESIDE_FAILED_COMMIT for run in runs):
        return None
    text = _LABELLED.sub("", output, count=1)
    shown = gs.commits_in(text)
    if not shown or len(shown) > len(made):
        return None
    amend = any("--amend" in run.words for run in made)
    commits = tuple(gs.Commit(b, h, subject, line, amend=amend) for b, h, subject in shown)
    return gs.Observation(line, at, commits, staged=_staged(runs),
                          pushes=tuple(_refused(gs.pushes_in(text, line))))


def _refused(pushes: list[gs.Push]) -> Iterator[gs.Push]:
    """The refused ref lines of the pushes a failed line printed (its own ``git push``, or
    a hook's after the commit): each says the branch was behind its remote, so that a
    rebasing pull after it gives the commits not pushed new ids (``logic.git_state.settle``).
    A ref line that went up is not read: the line failed, and what it printed past the
    failure is not trusted."""
    for push in pushes:
        refused = tuple(update for update in push.updates if update.rejected)
        if refused:
            yield dataclasses.replace(push, updates=refused)


def _reset_in_failed(runs: list[GitRun], output: str, line: int,
                     at: int | None = None) -> gs.Observation | None:
    """A line that failed after a reset moved the branch (``git reset --hard origin/main
    && npm test``, the tests failing): git's "HEAD is now at …" says the reset was done,
    and the commits it left behind are on the branch no more, whatever failed after it.
    Read only when the line ran one reset that moves history, and nothing else that
    prints that line (a stash, a new worktree)."""
    resets = [run for run in runs if run.kind == "reset" and gs.resets_history(run.words)]
    moved = gs.head_moved(_LABELLED.sub("", output, count=1))
    if len(resets) != 1 or moved is None or _elsewhere(runs) or any(
            run.kind in ("rebase", "rewrite", "switch", "pull", "merge") for run in runs):
        return None
    return gs.Observation(line, at, rewrote=True, listed=(moved,))


#: push flags after which a push that worked moved no branch of the session's up.
_NOT_A_BRANCH_PUSH = frozenset({"--dry-run", "-n", "--delete", "-d", "--tags", "--mirror",
                                "--prune", "--all", "--follow-tags"})


def _went_up(run: GitRun) -> bool:
    """A push that printed no ref lines (``git push -q``) on a line whose success implies
    its own: it exited 0, so the branch it named went up. One that could have failed
    unseen (after ``;`` or ``||``, into a pipe) or moved no branch (a dry run, a delete,
    tags only) is not read so."""
    names = [w for w in run.words[2:] if not w.startswith("-")]
    return run.sure and not any(w in _NOT_A_BRANCH_PUSH for w in run.words[2:]) and \
        not any(name.startswith(":") for name in names[1:])


def _push_remote(words: tuple[str, ...]) -> str:
    names = [w for w in words[2:] if not w.startswith("-")]
    return names[0] if names else "origin"


def _push_target(words: tuple[str, ...]) -> str | None:
    """The branch a ``git push [remote] [branch]`` names (None: the current one, or a
    refspec this cannot read)."""
    names = [w for w in words[2:] if not w.startswith("-")]
    if len(names) < 2:
        return None
    src = names[1].lstrip("+").split(":", 1)[0]
    return None if src in ("HEAD", "") else src


def observe(command: str, output: str, line: int, at: int | None = None) -> gs.Observation | None:
    """What one successful git/gh command line said (None when it said nothing of use)."""
    return observe_runs(git_runs(command), output, line, at, others=_merge_beside_others(command))


def observe_runs(runs: list[GitRun], output: str, line: int,
                 at: int | None = None, others: bool = False) -> gs.Observation | None:
    """What the git/gh commands of one successful line said (None: nothing of use);
    ``others``: the line also ran programs whose output may hold anything
    (``runs_others``)."""
    found = _grouped(runs)
    rebased = [w for w in found.get("rebase", []) if "--abort" not in w and "--quit" not in w]
    rebasing = [w for w in found.get("pull", []) if _rebasing_pull(w)]
    rebase_seen = bool(rebased) or bool(rebasing and gs.rebased_branch(output))
    rewrote = (any(gs.resets_history(w) for w in found.get("reset", [])) or rebase_seen
               or bool(found.get("rewrite"))
               or (any(_resets_branch(w) for w in found.get("switch", []))
                   and _RESET_BRANCH.search(output) is not None))
    commits = _commits(found, runs, output, line, bool(rebased))
    pushes: tuple[gs.Push, ...] = ()
    unseen_pushes: tuple[str | None, ...] = ()
    quiet: tuple[tuple[str | None, str], ...] = ()
    if found.get("push"):
        # a dry run prints the ref lines a push would (``To …``, ``a..b main -> main``) and
        # moves nothing: on a line with one, no ref line it printed is a push's outcome
        dry = any(dry_run(words) for words in found["push"])
        pushes = () if dry else tuple(gs.pushes_in(output, line))
        if not pushes and not gs.push_refused(output):
            runs_of_push = [run for run in runs if run.kind == "push" and not dry_run(run.words)]
            quiet = tuple((_push_target(run.words), _push_remote(run.words))
                          for run in runs_of_push if _went_up(run))
            unseen_pushes = tuple(_push_target(run.words) for run in runs_of_push
                                  if not _went_up(run))
    moved = gs.head_moved(output)
    detached = _detached(found, output, moved is not None)
    # reset --hard, filter-repo: "HEAD is now at …"; a checkout that left the branch for a
    # commit (``--detach``, ``origin/main``) says so too, yet rewrites nothing
    rewrote = rewrote or (moved is not None and not detached and not _elsewhere(runs))
    listed: tuple[tuple[str, str], ...] = (moved,) if moved else ()
    if found.get("log") and not any(re.search(r"--(?:format|pretty)(?!=oneline)", " ".join(w))
                                    for w in found["log"]):
        listed += tuple(gs.log_lines(output))
    branch = gs.rebased_branch(output)
    after = maybe = None
    if (found.get("status") or found.get("switch")) and not found.get("pr_view"):
        named, after, maybe = _switched_to(runs, output)
        branch = gs.branch_in(output) or named or branch
        branch = "detached HEAD" if detached else branch
    dirty = None
    if found.get("status") and len(runs) == 1:
        dirty = gs.dirty_in(output, short=_short_status(found["status"][0]))
    # git's own line about the upstream is unmistakable beside other commands' output
    synced = gs.synced_in(output) if len(found.get("status", [])) == 1 else None
    on_remote = _logged_remote(found, runs, output)
    tags_made, tags_deleted = _tags(found.get("tag", []), output)
    opened = [made for words in found.get("pr_create", [])[:1]
              if (made := gs.pr_created(words[1:], output))]
    merged = [m for w in found.get("pr_merge", []) if (m := gs.pr_merged(w[1:], output))]
    states = _pr_states(found, output)
    states += [(n, "CLOSED", None, None, None) for w in found.get("pr_close", [])
               if (n := gs.pr_closed(w[1:], output))]
    pruned = tuple(gs.pruned_branches(output)) if any(
        w[1] in ("fetch", "remote") for w in found.get("other", [])) or found.get("pull") else ()
    deleted = tuple(gs.deleted_branches(output)) if any(
        w in ("-d", "-D", "--delete") for words in found.get("branch", []) for w in words) else ()
    pulled = gs.diffstat_files(output) if found.get("pull") or found.get("merge") else ()
    merged_in = _merged_in(runs, output, others)
    merged_away = deleted if deleted and "not yet merged to" not in output and all(
        "-d" in words or "--delete" in words for words in found.get("branch", [])
        if any(w in ("-d", "-D", "--delete") for w in words)) and not any(
        w in ("-D", "-f", "--force") for words in found.get("branch", []) for w in words) else ()
    seen = gs.Observation(line, at, tuple(commits), rewrote, pushes, listed, branch, deleted,
                          dirty, tuple(tags_made), tuple(tags_deleted), tuple(opened),
                          tuple(merged), tuple(states), unseen_pushes=unseen_pushes,
                          rebased=rebase_seen, branch_after=after,
                          checkout_named=None if branch else maybe, synced=synced,
                          on_remote=on_remote, quiet_pushes=quiet, pruned=pruned,
                          staged=_staged(runs), pulled=pulled, deleted_merged=merged_away,
                          pulled_into=_pulled_into(runs) if pulled else None,
                          quiet_rebase=bool(rebasing) and not rebase_seen
                          and not _PULL_FAILED.search(output),
                          more_commits=not rebased and not found.get("picks")
                          and _unread_commits(found.get("commit", []), commits, output),
                          merged_in=merged_in,
                          merged_into=_pulled_into(runs) if merged_in else None,
                          pr_other_repo=_names_repository(found))
    if not (commits or rewrote or pushes or listed or branch or deleted or dirty is not None
            or tags_made or tags_deleted or opened or merged or states or unseen_pushes
            or after or seen.checkout_named or synced or on_remote or quiet or pruned
            or seen.staged or seen.staged is None or pulled or seen.quiet_rebase or merged_in
            or seen.more_commits):
        return None
    return seen


#: ``git add`` words that stage what no path names.
_STAGES_UNNAMED = frozenset({"-A", "--all", ".", "-u", "--update", "-p", "--patch", "-i",
                             "--interactive", "--pathspec-from-file", ":/"})


def _staged(runs: list[GitRun]) -> tuple[str, ...] | None:
    """The paths the line's ``git add`` staged by name, in order (None: it staged what no
    path names, or a ``commit -a`` / ``commit <paths>`` took what it found)."""
    paths: list[str] = []
    for run in runs:
        verb, args = run.words[1], run.words[2:]
        if run.kind == "commit" and any(
                w in ("-a", "--all", "--include", "-i", "--only", "-o", "--")
                or re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", w) for w in args):
            return None
        if run.kind != "other" or verb != "add" or dry_run(run.words):
            continue  # ``git add -n`` only lists what it would stage
        if any(w in _STAGES_UNNAMED or w.startswith("--pathspec") or w.endswith("/")
               or any(ch in w for ch in "*?[") for w in args):
            return None
        paths += [w for w in args if not w.startswith("-")]
    return tuple(paths)


#: git's line for a merge it made: a fast-forward, a merge commit, or nothing left to bring in
_MERGE_MADE = re.compile(r"^(?:Fast-forward\b|Merge made by\b|Already up[ -]to[ -]date)", re.M)
#: ``git merge`` options that take the next word as their value
_MERGE_VALUES = frozenset({"-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option",
                           "--into-name", "--cleanup"})
#: ``git merge`` words with which no merge commit is made (or none is begun); ``-n`` is
#: ``--no-stat`` there, a merge made without its diffstat
_MERGE_NOT_MADE = frozenset({"--squash", "--no-commit", "--abort", "--continue", "--quit",
                             "--dry-run"})


#: What may run on a merge's line for git's merge lines there to be the merge's own: git
#: commands that never print "Fast-forward", "Merge made by" or "Already up to date" (a
#: pull, another merge, a rebase, a cherry-pick may; a log of subjects could).
_QUIET_BESIDE_MERGE = frozenset({"switch", "status", "branch", "push", "commit", "tag"})
_QUIET_GIT_VERBS = frozenset({"add", "fetch", "rev-parse", "remote", "worktree"})


def _merged_in(runs: list[GitRun], output: str, others: bool) -> tuple[str, ...]:
    """The branches the line's one ``git merge`` brought in, when git printed the merge it
    made and no conflict or error (a squash or ``--no-commit`` merge makes no merge: the
    branch's commits are not on the branch merged into). Read only where that line can be
    the merge's own: nothing else on the line may print one (``git merge x; git pull``:
    the "Fast-forward" may be the pull's, the merge refused), else the merge is unknown."""
    merges = [run.words for run in runs if run.kind == "merge"]
    if len(merges) != 1 or not _MERGE_MADE.search(output) or _PULL_FAILED.search(output):
        return ()
    if others or any(run.kind != "merge" and run.kind not in _QUIET_BESIDE_MERGE and not (
            run.kind == "other" and run.words[:1] == ("git",)
            and run.words[1:2] and run.words[1] in _QUIET_GIT_VERBS) for run in runs):
        return ()
    args = merges[0][2:]
    if any(w in _MERGE_NOT_MADE for w in args):
        return ()
    names = [w for i, w in enumerate(args)
             if not w.startswith("-") and (i == 0 or args[i - 1] not in _MERGE_VALUES)]
    return tuple(names)


#: Programs that print nothing of git's, or only the words they are given.
_SILENT = frozenset({"cd", "pushd", "popd", "export", "set", "source", ".", "unset", "echo",
                     "printf", "true", ":", "sleep"})


def _merge_beside_others(command: str) -> bool:
    """``runs_others`` for a line that may merge (only a merge's reading asks it): a line
    that names no merge is not parsed again."""
    return "merge" in command and runs_others(command)


def runs_others(command: str) -> bool:
    """The line runs a program other than git and gh (and the ones that print nothing of
    their own, ``_SILENT``): its output may hold any line."""
    for run in invocations(command):
        words = unwrap(run.argv)
        if words and words[0] not in ("git", "gh") and words[0] not in _SILENT:
            return True
    return False


def _pulled_into(runs: list[GitRun]) -> str | None:
    """The branch a checkout before the line's pull named (None: the one checked out)."""
    into = None
    for run in runs:
        if run.kind in ("pull", "merge"):
            return into
        if run.kind == "switch":
            into = _branch_named(run.words)[0] or into
    return into


#: commands whose "HEAD is now at …" moves no branch checked out here: ``git worktree add``
#: names the new worktree's HEAD, ``git stash`` the commit the tree was reset to
_HEAD_ELSEWHERE = frozenset({"worktree", "stash"})


def _elsewhere(runs: list[GitRun]) -> bool:
    """The line's "HEAD is now at …" can be a new worktree's or a stash's (a reset, a rebase
    or a rewrite on it counts as one by itself; a checkout says "Switched to")."""
    return any(run.kind == "other" and run.words[1:2] and run.words[1] in _HEAD_ELSEWHERE
               for run in runs)


def _detached(found: dict[str, list[tuple[str, ...]]], output: str, moved: bool) -> bool:
    """The line's checkout left every branch: ``git checkout --detach`` / ``switch
    --detach``, or a checkout git answered with "HEAD is now at …" and no "Switched to"
    (a remote-tracking ref, a commit), with no reset, rebase or rewrite on the line."""
    switches = found.get("switch", [])
    if not switches or found.get("reset") or found.get("rebase") or found.get("rewrite"):
        return False
    if any("--detach" in words for words in switches):
        return True
    return moved and "Switched to" not in output


#: A remote-tracking ref a ``git log`` may name (``origin/main``, ``upstream/feat/x``).
_REMOTE_REF = re.compile(r"^(?!.*\.\.)(?:origin|upstream)/[\w./-]+$")  # no range


def _logged_remote(found: dict[str, list[tuple[str, ...]]], runs: list[GitRun],
                   output: str) -> tuple[str, tuple[str, ...]] | None:
    """(ref, hashes) of a line whose one command is a one-line ``git log`` of one
    remote-tracking ref (``git log --oneline origin/main``, no range, no path): the commits
    it lists are on the remote."""
    logs = found.get("log", [])
    if len(runs) != 1 or len(logs) != 1:
        return None
    words = logs[0][2:]
    values = {i + 1 for i, w in enumerate(words) if w in ("-n", "--max-count")}
    named = [w for i, w in enumerate(words) if not w.startswith("-") and i not in values]
    if len(named) != 1 or not _REMOTE_REF.match(named[0]) or "--" in words \
            or not any(w in ("--oneline", "--pretty=oneline") for w in words):
        return None
    listed = tuple(h for h, _ in gs.log_lines(output))
    return (named[0], listed) if listed else None


#: git's line for a ``checkout -B`` / ``switch -C`` that moved a branch that was there
#: ("Reset branch 'main'", "Switched to and reset branch 'main'"); a new one says "a new branch"
_RESET_BRANCH = re.compile(r"^(?:Switched to and reset|Reset) branch '", re.M)


def _resets_branch(words: tuple[str, ...]) -> bool:
    """``git checkout -B x <start>`` / ``git switch -C x <start>``: the branch ``x`` is made
    to point at ``<start>`` whatever it held (``origin/main`` after a refused push): the
    commits it held that ``<start>`` lacks are left behind, like a ``reset --hard``."""
    args = list(words[2:])
    for index, word in enumerate(args):
        if word in ("-B", "-C", "--force-create"):
            rest = [w for w in args[index + 2:] if not w.startswith("-")]
            return bool(rest) and rest[0] not in ("HEAD", "@")
    return False


#: ``checkout``/``switch`` flags that create the branch they name.
_CREATES = frozenset({"-b", "-B", "-c", "-C", "--create", "--force-create"})
#: ``switch``/``checkout`` options that take a value (the branch is not that value).
_SWITCH_VALUES = frozenset({"--conflict", "--track", "-t", "--orphan"})


#: git's words for a checkout or switch it refused: nothing was switched.
_SWITCH_FAILED = re.compile(
    r"^(?:fatal: invalid reference|fatal: a branch named '[^'\n]*' already exists|"
    r"error: pathspec '[^'\n]*' did not match|fatal: '[^'\n]*' is already (?:checked out|"
    r"used by worktree)|error: (?:Your local changes|The following untracked working tree "
    r"files) [^\n]* would be overwritten by checkout|fatal: [^\n]*cannot be created from it|"
    r"fatal: only one reference expected|error: you need to resolve your current index|"
    r"fatal: Cannot switch branch|fatal: missing branch|fatal: [^\n]*is not a commit)", re.M)


def _switched_to(runs: list[GitRun], output: str = ""
                 ) -> tuple[str | None, str | None, str | None]:
    """(the branch the line's last switch before its commit checked out, one it switched to
    after its commit, what a plain ``checkout <name>`` before its commit named), by the
    command: a ``checkout -b x`` / ``switch -c x`` / ``switch x`` that worked is on ``x``
    even when its "Switched to" line never reached the harness (a persistent shell's quiet
    checkout). A plain ``checkout x`` may restore a file or detach at a commit: only a
    branch the session knows by that name is taken (``git_state.settle``). A switch whose
    success the line's does not imply (after ``;`` or before ``||``, into a pipe) is not
    taken where the output shows git refusing a checkout (``_SWITCH_FAILED``): a failed one
    changed nothing. Without such words it is taken as before: its outcome is unknown, and
    the branch checked out before it would be as much a guess."""
    before = after = maybe = None
    committed = False
    refused = _SWITCH_FAILED.search(output) is not None
    for run in runs:
        if run.kind == "commit":
            committed = True
        elif run.kind == "switch" and (run.sure or not refused):
            name, sure = _branch_named(run.words)
            if committed:
                after = (name if sure else None) or after
            elif sure:
                before, maybe = name, None
            else:
                maybe = name
    return before, after, maybe


def _branch_named(words: tuple[str, ...]) -> tuple[str | None, bool]:
    """(the branch a checkout or switch names, whether it surely is one)."""
    verb, args = words[1], list(words[2:])
    for index, word in enumerate(args):
        if word in _CREATES:
            following = args[index + 1:index + 2]
            return (following[0], True) if following and not following[0].startswith("-") \
                else (None, False)
    if "--" in args or any(w in ("--detach", "-d", "-", "-p", "--patch") for w in args):
        return None, False
    names = [w for i, w in enumerate(args) if not w.startswith("-")
             and (i == 0 or args[i - 1] not in _SWITCH_VALUES)]
    if len(names) != 1:
        return None, False
    return names[0], verb == "switch"


def _commits(found: dict[str, list[tuple[str, ...]]], runs: list[GitRun], output: str,
             line: int, rebased: bool) -> list[gs.Commit]:
    """The commits a line's output shows made; a quiet commit (``-q``) that worked is one
    made, its id unknown (a later push's output may name the head it left)."""
    made = found.get("commit", [])
    if not (made or rebased or found.get("picks") or found.get("pull")):
        return []
    amend = any("--amend" in w for w in made) and not rebased
    commits = [gs.Commit(b, h, s, line, amend=amend) for b, h, s in gs.commits_in(output)]
    if len(commits) == 1 and len(made) == 1:
        commits = [dataclasses.replace(commits[0], changed=gs.files_changed(output))]
    if not commits and len(made) == 1 and not rebased and not found.get("picks") \
            and _quiet(made[0], output):
        shown = _logged_after(runs, output)
        hash_, subject = shown if shown else ("", _message(made[0]) or "")
        commits = [gs.Commit("", hash_, subject, line, amend=amend)]
    return commits


#: git commands that leave HEAD where it is.
_KEEPS_HEAD = frozenset({"push", "status", "tag", "other"})


def _logged_after(runs: list[GitRun], output: str) -> tuple[str, str] | None:
    """(hash, subject) of the quiet commit when the same line's next git command is a
    one-line ``git log`` of the checkout's own history (no revision, no path), with only
    commands that leave HEAD where it is between (a push, a status): its first line is the
    commit just made, so its id is known."""
    kinds = [run.kind for run in runs]
    after = next((run for run in runs[kinds.index("commit") + 1:]
                  if run.kind not in _KEEPS_HEAD), None) if "commit" in kinds else None
    if after is None:
        return None
    words = after.words[2:]
    values = {i + 1 for i, w in enumerate(words) if w in ("-n", "--max-count")}
    named = [w for i, w in enumerate(words) if not w.startswith("-") and i not in values]
    if after.kind != "log" or named or not any(w in ("--oneline", "--pretty=oneline")
                                               for w in words):
        return None
    listed = gs.log_lines(output)
    return listed[0] if listed else None


def _tags(tagging: list[tuple[str, ...]], output: str) -> tuple[list[str], list[str]]:
    made: list[str] = []
    deleted: list[str] = []
    for words in tagging:
        if any(w in _TAG_NOT_MADE for w in words[2:]):
            if any(w in ("-d", "--delete") for w in words[2:]):
                deleted += gs.deleted_tags(output)
            continue
        name = _tag_name(words[2:])
        if name:
            made.append(name)
    return made, deleted


_GH_PR_KINDS = ("pr_view", "pr_list", "pr_status", "pr_close", "pr_edit", "pr_merge")


def _names_repository(found: dict[str, list[tuple[str, ...]]]) -> bool:
    """A gh pr command of the line named a repository (``-R``/``--repo``): what it showed
    may be another repository's than the one the line ran in."""
    return any(w in ("-R", "--repo") or w.startswith(("--repo=", "-R="))
               for kind in _GH_PR_KINDS for words in found.get(kind, []) for w in words)


def _pr_states(found: dict[str, list[tuple[str, ...]]], output: str
               ) -> list[tuple[int, str, str | None, str | None, str | None]]:
    views = found.get("pr_view", [])
    states: list[tuple[int, str, str | None, str | None, str | None]]
    if len(views) == 1:
        states = gs.pr_states(views[0][1:], output)
    else:
        states = gs.pr_states_each([words[1:] for words in views], output)
    if found.get("pr_list"):
        states += gs.pr_listed(output)
    if found.get("pr_status"):
        states += gs.pr_status_rows(output)
    edits = found.get("pr_edit", [])
    if len(edits) == 1:
        renamed = gs.pr_retitled(edits[0][1:])
        if renamed:
            states.append((renamed[0], "", renamed[1], None, None))
    return states


#: a pull that stopped: git's error, a conflict it left to resolve
_PULL_FAILED = re.compile(r"^(?:error|fatal):|^CONFLICT\b|could not apply|"
                          r"Resolve all conflicts", re.M)


def _rebasing_pull(words: tuple[str, ...]) -> bool:
    return any(w in ("-r", "--rebase") or (w.startswith("--rebase=") and w != "--rebase=false")
               for w in words)


def _short_status(words: tuple[str, ...]) -> bool:
    return any(w in ("--short", "--porcelain") or w.startswith("--porcelain=")
               or re.fullmatch(r"-s\w*", w) for w in words)


def _quiet(words: tuple[str, ...], output: str) -> bool:
    """A commit that worked and printed no ``[branch hash]`` line because it was told to be
    quiet (``-q``): made, its id unknown. Any other silent "commit" (a dry run, nothing to
    commit, output sent elsewhere) proves nothing."""
    quiet = any(w in ("-q", "--quiet") or re.fullmatch(r"-[a-zA-Z]*q[a-zA-Z]*", w)
                for w in words[2:])
    return quiet and not dry_run(words) and "nothing to commit" not in output \
        and "no changes added" not in output


def _message(words: tuple[str, ...]) -> str | None:
    """The first line of ``-m``'s message when it is written out (not made by ``$(…)``)."""
    for flag, value in zip(words[2:], words[3:]):
        if flag in ("-m", "--message") or re.fullmatch(r"-[a-zA-Z]*m", flag):
            lines = [text.strip() for text in value.splitlines()]
            # a PowerShell here-string (@' … '@) read by a POSIX parser leaves its @ lines
            return next((text for text in lines if text.strip("@'\"")), None)
    return None


def _tag_name(words: tuple[str, ...]) -> str | None:
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-m", "--message", "-F", "--file", "-u"):
            skip = True
            continue
        if word in _TAG_FLAGS or word.startswith("-"):
            continue
        return word if re.match(r"^[\w][\w.+/-]*$", word) else None
    return None


def _quote(seen: gs.Observation, command: str) -> str:
    """The output line that proves what the observation holds, else the command."""
    if seen.commits and seen.commits[-1].hash:
        made = seen.commits[-1]
        return f"[{made.branch} {made.hash}] {made.subject}"
    for push in seen.pushes:
        for update in push.updates:
            if not update.rejected:
                return f"To {push.url}: {update.src} -> {update.dst}" + (
                    f" {update.new}" if update.new else "")
    if seen.pr_opened:
        return f"{command.split(chr(10))[0][:60]} → {seen.pr_opened[0][1]}"
    return command
