"""Where the session left the work in git: one fact per repository, one per pull request.

Read only from what git and gh printed for commands that worked (``logic/git_state.py``
parses and settles): the commits the session made and still has at the end, whether a push
carried them and where, tags, the branch checked out at the end and uncommitted work; a pull
request opened (its URL) or merged (``gh pr merge``, or ``gh pr view`` saying MERGED) and
its merge commit when git showed it. A command that failed, was refused or whose outcome
is unknown proves nothing; the agent's prose is never read. The repository is where the
command ran: its recorded directory, a leading ``cd`` or ``git -C``; the project's own
checkout (its root and anything under it) is one repository, another folder another.

Nothing is stored for a session that made no commit, push, tag or pull request.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import Any, Iterator

from claimgraph.capture.extract.session import OK, SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.shell import call_cwd, command_text
from claimgraph.logic import git_state as gs
from claimgraph.logic.timeutil import to_date

RULE = "git-state"
PREDICATE = "x/state"
_GIT = re.compile(r"\b(?:git|gh)\s|\bgit-filter-repo\b|\bbfg\b")
#: A heredoc's body and the text inside quotes: a commit message may name commands
#: ("run git tag v2 after merging") that the line does not run.
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<tag>\w+)\1.*?\n\s*(?P=tag)\b", re.S)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
_CD = re.compile(r"""^\s*(?:cd|Set-Location|pushd)\s+(?:/d\s+)?("[^"]+"|'[^']+'|[^\s;&|]+)"""
                 r"\s*(?:&&|;|\n)")
_ANY_CD = re.compile(r"(?:^|&&|;|\n|\|\|)\s*(?:cd|Set-Location|pushd)\s")
_GIT_C = re.compile(r"""\bgit\s+-C\s+("[^"]+"|'[^']+'|\S+)""")
_SEGMENT = {name: re.compile(pattern) for name, pattern in (
    ("commit", r"\bgit\s+(?:-c\s+\S+\s+)*commit\b[^&|;\n]*"),
    ("push", r"\bgit\s+(?:-c\s+\S+\s+)*push\b"),
    ("reset", r"\bgit\s+reset\b[^&|;\n]*"),
    ("rebase", r"\bgit\s+(?:-c\s+\S+\s+)*rebase\b[^&|;\n]*"),
    ("pull", r"\bgit\s+pull\b[^&|;\n]*"),
    ("rewrite", r"\bgit[\s-]filter-(?:branch|repo)\b|\bbfg\b"),
    ("picks", r"\bgit\s+(?:-c\s+\S+\s+)*(?:cherry-pick|revert|am)\b"),
    ("log", r"\bgit\s+(?:--no-pager\s+)?log\b[^&|;\n]*"),
    ("status", r"\bgit\s+status\b[^&|;\n]*"),
    ("switch", r"\bgit\s+(?:checkout|switch)\b"),
    ("branch", r"\bgit\s+branch\s+(?:-[dD]|--delete)\b"),
    ("tag", r"\bgit\s+tag\b[^&|;\n]*"),
    ("pr_create", r"\bgh\s+pr\s+create\b"),
    ("pr_merge", r"\bgh\s+pr\s+merge\b[^&|;\n]*"),
    ("pr_view", r"\bgh\s+pr\s+view\b[^&|;\n]*"),
    ("pr_edit", r"\bgh\s+pr\s+edit\b[^&|;\n]*"))}
_TAG_FLAGS = frozenset({"-a", "-s", "-f", "--annotate", "--sign", "--force"})
_TAG_NOT_MADE = frozenset({"-d", "--delete", "-l", "--list", "-v", "--verify", "-n",
                           "--contains", "--no-contains", "--points-at", "--merged",
                           "--no-merged", "--sort", "--format"})
MAX_EVIDENCE = 3


def git_state_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    by_repo: dict[str, list[gs.Observation]] = {}
    quotes: dict[int, str] = {}
    listed: list[tuple[int, str, str]] = []
    for call in view.calls():
        command = command_text(call)
        if not command or not _GIT.search(command) or view.outcome(call) != OK:
            continue
        result = view.results.get(call.call_id or "")
        if result is None:
            continue
        repo = _repository(view, call, command)
        if repo is None:
            continue
        seen = observe(command, result.text, call.line, call.timestamp)
        if seen is None:
            continue
        by_repo.setdefault(repo, []).append(seen)
        quotes[call.line] = _quote(seen, command)
        listed += [(call.line, h, s) for h, s in seen.listed]
    fallback = next((e.timestamp for e in view.transcript.events if e.timestamp), None)
    for repo, observations in by_repo.items():
        state = gs.settle(observations)
        at = state.at or fallback
        date = to_date(at) if at else "unknown date"
        subject = view.project if repo == view.root else posixpath.basename(repo) or repo
        if state.anything:
            text = gs.describe_within(state, date)
            if text:
                lines = sorted(set(state.lines))
                cited = [*lines[:1], *lines[1:][-(MAX_EVIDENCE - 1):]]
                yield candidate(RULE, subject, PREDICATE, text,
                                evidence=[transcript_evidence(line, quotes.get(line, "git"))
                                          for line in cited],
                                object_kind="literal", subject_type="project", at=at)
        for pr in gs.pull_requests(observations, listed):
            pr_at = pr.at or at
            text = gs.describe_pr(pr, to_date(pr_at) if pr_at else date)
            # The PR is its own subject: x/state holds one value per subject, so its later
            # state (merged) replaces its earlier one (opened), and it never replaces the
            # repository's own state, nor another PR's.
            yield candidate(RULE, f"{subject} PR #{pr.number}", PREDICATE, text,
                            evidence=[transcript_evidence(line, quotes.get(line, "gh pr"))
                                      for line in sorted(set(pr.lines))[-MAX_EVIDENCE:]],
                            object_kind="literal", subject_type="pull-request", at=pr_at)


def _repository(view: SessionView, call: Any, command: str) -> str | None:
    """The checkout a command worked in: the project's root for anything under it; None
    when the line moves between folders in ways this cannot follow."""
    cwd = call_cwd(call) or view.root
    targets = {m[1].strip("\"'") for m in _GIT_C.finditer(command)}
    lead = _CD.match(command)
    if len(_ANY_CD.findall(command)) > (1 if lead else 0) or len(targets) > 1:
        return None
    if lead:
        cwd = view.resolve(lead[1].strip("\"'"), cwd) or cwd
    if targets:
        cwd = view.resolve(targets.pop(), cwd) or cwd
    if not cwd:
        return None
    cwd = posixpath.normpath(cwd)
    root = view.root
    if root and (cwd == root or cwd.startswith(root.rstrip("/") + "/")):
        return root
    return cwd


def _words(segment: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(segment))
    except ValueError:
        return tuple(segment.split())


def observe(command: str, output: str, line: int, at: int | None = None) -> gs.Observation | None:
    """What one successful git/gh command line said (None when it said nothing of use)."""
    bare = _skeleton(command)
    found = {name: pattern.findall(bare) for name, pattern in _SEGMENT.items()}
    commits: list[gs.Commit] = []
    rebased = [s for s in found["rebase"] if "--abort" not in s and "--quit" not in s]
    pulled = [s for s in found["pull"] if "--rebase" in s or re.search(r"\s-r\b", s)]
    rewrote = (any(gs.resets_history(_words(s)) for s in found["reset"]) or bool(rebased)
               or bool(found["rewrite"]) or bool(pulled and gs.rebased_branch(output)))
    if found["commit"] or found["rebase"] or found["picks"] or found["pull"]:
        amend = any("--amend" in s for s in found["commit"]) and not found["rebase"]
        commits = [gs.Commit(b, h, s, line, amend=amend) for b, h, s in gs.commits_in(output)]
    pushes = tuple(gs.pushes_in(output, line)) if found["push"] else ()
    moved = gs.head_moved(output)
    rewrote = rewrote or moved is not None  # reset --hard, filter-repo: "HEAD is now at …"
    listed: tuple[tuple[str, str], ...] = (moved,) if moved else ()
    if found["log"] and not any(re.search(r"--(?:format|pretty)(?!=oneline)", s)
                                for s in found["log"]):
        listed += tuple(gs.log_lines(output))
    branch = gs.rebased_branch(output)
    if (found["status"] or found["switch"]) and not found["pr_view"]:
        branch = gs.branch_in(output) or branch
    dirty = None
    if found["status"] and len(_GIT.findall(bare)) == 1:
        dirty = gs.dirty_in(output, short=bool(re.search(r"\s(?:-s\w*|--short|--porcelain)\b",
                                                           found["status"][0])))
    tags_made: list[str] = []
    tags_deleted: list[str] = []
    for segment in found["tag"]:
        words = _words(segment)[2:]
        if any(w in _TAG_NOT_MADE for w in words):
            if any(w in ("-d", "--delete") for w in words):
                tags_deleted += gs.deleted_tags(output)
            continue
        name = _tag_name(words)
        if name:
            tags_made.append(name)
    opened = []
    if found["pr_create"]:
        made = gs.pr_created(command, output)
        if made:
            opened.append(made)
    merged = [m for s in found["pr_merge"] if (m := gs.pr_merged(_words(s)[1:], output))]
    states: list[tuple[int, str, str | None, str | None, str | None]]
    if len(found["pr_view"]) == 1:
        states = gs.pr_states(_words(found["pr_view"][0])[1:], output)
    else:
        states = gs.pr_states_each([_pr_number(_words(s)) for s in found["pr_view"]], output)
    if len(found["pr_edit"]) == 1:
        renamed = gs.pr_retitled(_words(found["pr_edit"][0])[1:], command)
        if renamed:
            states.append((renamed[0], "", renamed[1], None, None))
    deleted = tuple(gs.deleted_branches(output)) if found["branch"] else ()
    seen = gs.Observation(line, at, tuple(commits), rewrote, pushes, listed, branch, deleted,
                          dirty, tuple(tags_made), tuple(tags_deleted), tuple(opened),
                          tuple(merged), tuple(states))
    if not (commits or rewrote or pushes or listed or branch or deleted or dirty is not None
            or tags_made or tags_deleted or opened or merged or states):
        return None
    return seen


def _skeleton(command: str) -> str:
    """The command line with heredoc bodies dropped and quoted text emptied: what it runs,
    not what its messages say."""
    return _QUOTED.sub('""', _HEREDOC.sub("", command))


def _pr_number(words: tuple[str, ...]) -> int | None:
    """The number ``gh pr view <n>`` asks about."""
    rest = words[words.index("view") + 1:] if "view" in words else ()
    return next((int(w.lstrip("#")) for w in rest if w.lstrip("#").isdigit()), None)


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
    if seen.commits:
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
