"""Gates: checks that block the agent until the work meets a rule, and how a block was cleared.

A gate says more about how a project is worked on than any document: the Stop hook that refuses
to end a session with uncommitted files, the pre-commit validation that refuses an unformatted
commit. Two places record one:

- the harness's hook messages (Claude Code writes "Stop hook feedback:\\n[<command>]: <reason>",
  "PreToolUse:Bash hook error: [<command>]: <reason>", "… operation blocked by hook") as
  injected text or as a tool result;
- a ``git commit`` that failed with a hook's or validation's report.

Each gate becomes one convention naming the gate and every distinct reason it gave. A harness
block that the agent cleared by editing files -- the same gate not blocking for that reason
again -- is also a lesson: the reason and the edit, both lines cited. A hook that let the very
call it blocked through when the agent simply made it again (a plugin's one-time reminder)
gave advice, not a rule: neither is kept, nor a hook of the person's own setup outside the
project (``project_hook``). (A commit gate's lesson
comes from the failure→fix rule, which sees the fixing command.)
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.actions import actions
from claimgraph.capture.extract.code import language_of
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, short_quote, transcript_evidence)
from claimgraph.capture.extract.shell import command_text, invocations, positional
from claimgraph.capture.extract.writes import file_ops

CONVENTION, LESSON = "x/convention", "core/failure-mode"
MAX_REASONS = 4
_HOOK = lazy_regex(r"(?P<event>[A-Z][A-Za-z]+)(?::\w+)? (?:hook (?:feedback|error|blocking error)|"
                   r"operation blocked by hook):?\s*(?:\n-?\s*)?"
                   r"\[(?P<cmd>[^\]\n]+)\]:\s*(?P<body>.*)",
                   re.DOTALL)
#: What every match of ``_HOOK`` says, one of these words as they are written there.
_HOOK_SAYS = ("hook feedback", "hook error", "hook blocking error", "operation blocked by hook")
_COMMIT_GATE = lazy_regex(r"pre-commit|pre-push|commit-msg|\bhook\b|husky|lefthook|"
                          r"validation failed|checks? failed", re.IGNORECASE)
#: A task runner's progress states (lint-staged's "[STARTED] Backing up original state..."):
#: what it is doing, never why it blocked.
PROGRESS = ("STARTED", "COMPLETED", "SKIPPED", "TITLE", "DATA", "OUTPUT", "RETRY", "ROLLBACK",
            "PAUSED", "SUCCESS", "DONE", "INFO")
_LABELLED = lazy_regex(r"^\[(?!(?:" + "|".join(PROGRESS) + r")\])"
                       r"(?P<label>[A-Z][A-Z0-9_ -]{1,20})\]\s*(?P<text>.*)$")
#: A linter's own error line under a failed task (``path:26 error MD040/… Fenced code …``).
_ERROR_LINE = lazy_regex(r"^(?:\S+:\d+(?::\d+)?\s+)?(?P<error>error\b.*)$")
_REASON = lazy_regex(r"^(?:cannot|can't|must|please|blocked|not allowed|you must|refus|"
                     r"error|failed|missing|no |only )", re.IGNORECASE)
_NOISE = lazy_regex(r"^(?:#|running|checking|finding|done|---|=+|before stopping|if you)",
                    re.IGNORECASE)
_BLOCKS = {"Stop": "ending the session", "SubagentStop": "a subagent finishing",
           "PreToolUse": "tool calls", "UserPromptSubmit": "prompts",
           "PostToolUse": "tool results", "PreCompact": "compaction"}
_HINT = lazy_regex(r"^(?:run|use|try|fix)\b", re.IGNORECASE)
_PLUGIN_ROOT = lazy_regex(r"^\$\{?[A-Z_]+\}?/")


@dataclass
class _Gate:
    name: str
    blocks: str
    reasons: dict[str, Event] = field(default_factory=dict)


def gate_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    gates: dict[str, _Gate] = {}
    blocked: list[tuple[str, str, Event]] = []
    advice: set[str] = set()
    for event in view.transcript.events:
        for name, blocks, reason in _gate_reports(view, event):
            gate = gates.setdefault(name, _Gate(name, blocks))
            gate.reasons.setdefault(reason, event)
            if event.kind != "tool_result":
                blocked.append((name, reason, event))
            elif _HOOK.search(event.text) and _passed_unchanged(view, event):
                advice.add(name)
    for gate in gates.values():
        if gate.name not in advice:
            yield _convention(view, gate)
    yield from _cleared(view, [b for b in blocked if b[0] not in advice])


def _passed_unchanged(view: SessionView, result: Event) -> bool:
    """The blocked call, made again unchanged, then went through: the hook gave advice once
    (a plugin's reminder), it does not enforce a rule the work has to meet."""
    done = actions(view)
    index = view.remembered("action_index", _first_action_index).get(result.call_id)
    if index is None:
        return False
    blocked = done[index]
    given = dict(blocked.input)  # read once: a big input is held compressed (packed.py)
    return any(a.kind == blocked.kind and a.outcome == OK and _same_input(a.input, given)
               for a in done[index + 1:])


def _same_input(tool_input: Mapping[str, Any], given: dict[str, Any]) -> bool:
    """``tool_input == given``, value by value in ``given``'s order and stopping at the first
    that differs: comparing the mappings whole inflated every big value held compressed
    (a file's content) before the small ones (its path) could tell them apart."""
    return tool_input.keys() == given.keys() and all(
        tool_input[key] == value for key, value in given.items())


def _gate_reports(view: SessionView, event: Event) -> Iterator[tuple[str, str, str]]:
    """(gate name, what it blocks, reason) for a harness hook message or a failed commit."""
    text = event.text if event.kind in ("meta", "tool_result") else ""
    # every match holds one of _HOOK_SAYS: an output without them is not searched (a capital
    # letter starts the pattern, so it would be tried at each one)
    hook = _HOOK.search(text) if "hook" in text and any(
        said in text for said in _HOOK_SAYS) else None
    if hook:
        script = _PLUGIN_ROOT.sub("", hook["cmd"].strip().split()[0])
        if not project_hook(view, script):
            return
        name = f"the {hook['event']} hook ({script})"
        for reason in reasons(hook["body"])[:1]:
            yield name, _BLOCKS.get(hook["event"], "the agent"), reason
        return
    if event.kind == "tool_result" and _is_failed_commit(view, event) \
            and _COMMIT_GATE.search(text):
        for reason in reasons(text.replace("\\n", "\n")):
            yield "a pre-commit check", "commits", reason


def project_hook(view: SessionView, script: str) -> bool:
    """A hook script of the project's (``scripts/hooks/stop.sh``, a path inside its root), not
    of the person's own setup (``~/.claude/hooks/…``, a path outside the root): that one follows
    them into every project, and its message is about the one call it stopped."""
    if script.startswith("~"):
        return False
    return not posixpath.isabs(script) or view.relative(script) is not None


def _first_action_index(view: SessionView) -> dict[str | None, int]:
    """``call_id -> position`` of the first action with that id, built once per view."""
    index: dict[str | None, int] = {}
    for i, action in enumerate(actions(view)):
        index.setdefault(action.call.call_id, i)
    return index


def _is_failed_commit(view: SessionView, result: Event) -> bool:
    call = view.call_of(result)
    command = command_text(call) if call else None
    if not command or view.outcome(call) != FAILED:
        return False
    return any(positional(run.argv)[:2] == ["git", "commit"] for run in invocations(command))


def reasons(body: str) -> list[str]:
    """The lines of a gate's report that say why it blocked: labelled checks first
    ("[FORMAT] Code is not formatted."), else the first line that reads as a reason."""
    lines = [said for line in body.splitlines()
             if line.strip() and not bare_status(line)
             for said in [progress_line(line.strip())] if said]
    matched = [(i, m) for i, m in enumerate(map(_LABELLED.match, lines)) if m]
    labelled = [_with_hint(f"[{m['label']}] {_unrepeated(m)}".strip(), lines[i + 1:i + 2])
                for i, m in matched]
    if labelled and all(m["label"] == "FAILED" for _, m in matched):
        # a task runner names the task that failed; the task's own error says why
        error = next((m["error"] for m in map(_ERROR_LINE.match, lines) if m), None)
        labelled += [error] if error else []
    if labelled:
        return list(dict.fromkeys(short_quote(line, 100) for line in labelled))
    plain = [line for line in lines if not _NOISE.match(line)]
    found = next((line for line in plain if _REASON.match(line)), plain[0] if plain else None)
    return [short_quote(found, 100)] if found else []


#: A status and nothing more: "Exit code 1", "Command failed with exit code 2", "husky -
#: pre-commit hook exited with code 1 (error)".
_STATUS = lazy_regex(r"(?:non-?zero\s+)?(?:exit(?:ed)?\s+(?:with\s+)?)?(?:exit\s+)?"
                     r"(?:code|status)\s*:?\s*-?\d+", re.IGNORECASE)
_STATUS_WORDS = frozenset("""error failed fail failure with the a command process script hook
hooks exited exit returned returns non-zero nonzero husky pre-commit pre-push commit-msg
lefthook lint-staged task tasks code status""".split())


#: A hook runner's line per hook: its name, a dot leader, the outcome (pre-commit's
#: ``ruff check........Passed``, ``mypy....(no files to check)Skipped``).
_PROGRESS = lazy_regex(r"^(?P<name>\S.*?)\s*\.{4,}\s*(?:\([^)]*\)\s*)?"
                       r"(?P<outcome>Passed|Skipped|Failed)\s*$")


def progress_line(line: str) -> str | None:
    """A hook runner's progress line read for a reason: a hook that passed or was skipped
    says nothing of why the gate blocked (None); one that failed is named ("detect-secrets
    failed"), a reason only when nothing under it says more. Any other line as it is."""
    found = _PROGRESS.match(line)
    if not found:
        return line
    return f"{found['name']} failed" if found["outcome"] == "Failed" else None


def bare_status(line: str) -> bool:
    """The line only says that something ended with a status ("Exit code 1"): no reason a
    gate holds the work to, so never one of its reasons."""
    if not _STATUS.search(line):
        return False
    rest = _STATUS.sub(" ", line)
    return all(word.lower() in _STATUS_WORDS for word in re.findall(r"[A-Za-z][\w'-]*", rest))


def _unrepeated(match: Any) -> str:
    """The label's text without the label said again at its end ("x --fix [FAILED]")."""
    return match["text"].removesuffix(f"[{match['label']}]").strip()


def _with_hint(reason: str, following: list[str]) -> str:
    """A check's line plus the fix it suggests on the next line ("Run 'mix format' to fix.")."""
    hint = following[0] if following and _HINT.match(following[0]) else ""
    return f"{reason.rstrip('.')}. {hint}".strip() if hint else reason


def _convention(view: SessionView, gate: _Gate) -> dict[str, Any]:
    shown = list(gate.reasons)[:MAX_REASONS]
    text = f"{gate.name[0].upper()}{gate.name[1:]} blocks {gate.blocks}: " + "; ".join(
        reason.rstrip(".") for reason in shown)
    first = min(gate.reasons.values(), key=lambda e: e.line)
    evidence = [transcript_evidence(e.line, r) for r, e in list(gate.reasons.items())[:2]]
    return candidate("gates", view.project or "", CONVENTION, text, evidence=evidence,
                     object_kind="literal", subject_type="project",
                     at=first.timestamp)


def _cleared(view: SessionView, blocked: list[tuple[str, str, Event]]) -> Iterator[dict]:
    """A harness block followed by edits, and no block for the same reason afterwards."""
    for index, (name, reason, event) in enumerate(blocked):
        again = any(n == name and r == reason for n, r, _ in blocked[index + 1:])
        until = next((e.line for n, _, e in blocked[index + 1:] if n == name), None)
        edits = _edits_between(view, event.line, until)
        if again or not edits:
            continue
        change = describe_edits(edits)
        text = f"{name[0].upper()}{name[1:]} blocked ({reason.rstrip('.')}); cleared by {change}"
        evidence = [transcript_evidence(event.line, reason),
                    transcript_evidence(edits[0][0].line, f"{edits[0][0].tool_name} {edits[0][1]}")]
        yield candidate("gates", view.project or "", LESSON, text, evidence=evidence,
                        trust="gates.lesson", object_kind="literal",
                        subject_type="project", at=edits[-1][0].timestamp)


def _edits_between(view: SessionView, start: int,
                   end: int | None) -> list[tuple[Event, str, list[str]]]:
    """(call, cited path, added lines) for each successful file change in the window."""
    found = []
    for call in view.calls():
        if call.line <= start or (end is not None and call.line >= end):
            continue
        if view.outcome(call) == FAILED:
            continue
        for op in file_ops(view, call):
            if op.kind != "delete":
                cited = view.relative(op.path) or posixpath.basename(op.path)
                found.append((call, cited, added_lines(op)))
    return found


def added_lines(op: Any) -> list[str]:
    """The meaningful lines an edit added (new text minus old, comments and blanks dropped)."""
    if op.kind == "write":
        added = op.content.splitlines()
    else:
        old = {line.strip() for o, _, _ in op.edits for line in o.splitlines()}
        added = [line for _, n, _ in op.edits for line in n.splitlines()
                 if line.strip() not in old]
    return [line.strip() for line in added if line.strip() and not line.strip().startswith(
        ("#", "//", "--", ";"))]


def describe_edits(edits: list[tuple[Event, str, list[str]]]) -> str:
    """"adding `a`, `b` to .gitignore" for a small change to a non-code file (a line of code
    out of its context says little), else "editing f, g"."""
    files = list(dict.fromkeys(cited for _, cited, _ in edits))
    lines = [line for _, _, added in edits for line in added]
    if len(files) == 1 and language_of(files[0]) is None and 0 < len(lines) <= 4 \
            and all(len(line) <= 40 for line in lines):
        return "adding " + ", ".join(f"`{line}`" for line in lines) + f" to {files[0]}"
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return f"editing {shown}"
