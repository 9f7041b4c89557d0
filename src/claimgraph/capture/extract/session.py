"""What every built-in rule needs to know about one session, and how a candidate is spelled.

The rules share three judgements that must agree everywhere: where the project is (so file
citations are relative paths an audit can resolve), whether a tool call really worked (the
paired result, its exit code, and the cases where nobody knows), and the exact shape of a
candidate and of its evidence strings.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event, Transcript
from claimgraph.capture.foreign_paths import as_posix, beside_windows_root
from claimgraph.capture.extract.asked import typed_answers
from claimgraph.capture.extract.tools import ASK, kind_of
from claimgraph.capture.packed import text_head
from claimgraph.project import project_name

OK, FAILED, UNKNOWN = "ok", "failed", "unknown"
QUOTE_CHARS = 120
_IDENTIFIER = lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*")
_GEMINI_EXIT = lazy_regex(r"^Exit Code: (\d+)\s*$", re.MULTILINE)
#: Codex's report of a command its sandbox ran and that exited non-zero, given as plain text
#: instead of the usual JSON with metadata: "failed in sandbox LinuxSeccomp with execution
#: error: …, exit code: 2, stdout: …".
_CODEX_SANDBOX_EXIT = lazy_regex(r"^failed in sandbox \w+ with execution error:.{0,200}?"
                                 r"\bexit code: (\d+)", re.DOTALL)
#: Results that are not the tool's verdict: the user said no, or the run was cut short.
_REFUSED = "The user doesn't want to proceed"
_NOT_A_VERDICT = (_REFUSED, "[Request interrupted",
                  "Command timed out", "Permission to use", "[Operation Cancelled]",
                  "<tool_use_error>Sibling tool call errored")
#: How much of a result's head ``_opening`` reads: far more than the longest prefix above.
_OPENING_CHARS = 1024
_LONGEST_OPENING = max(map(len, _NOT_A_VERDICT))
#: What the person typed while turning a call down (Claude Code puts it in the call's result).
_REFUSAL_WORDS = lazy_regex(r"\bthe user said:\s*(?P<said>.+)", re.IGNORECASE | re.DOTALL)
#: A paragraph of those words that speaks of the person in the third person ("The user …",
#: "Note: The user's …"), and all after it: the harness talking to the agent, never the person,
#: who writes to the agent, not about themselves. Newer Claude Code versions append such a note
#: ("Note: The user's next message may contain a correction or preference. Pay close attention
#: …"), and a question's "clarify" choice puts one in the words' place ("The user wants to
#: clarify these questions. …"). The shape is kept, not the wording: templates change.
_HARNESS_NOTE = lazy_regex(r"(?:\A|\n[ \t]*\n)[ \t]*(?:Note:[ \t]*)?The user(?:'s)?\s.*\Z",
                           re.DOTALL)
#: ``SessionView._judged``'s answers, made once: (verdict, starts with a refusal).
_JUDGEMENTS = {(verdict, refused): (verdict, refused)
               for verdict in (OK, FAILED, UNKNOWN) for refused in (False, True)}
#: Folders that hold someone else's code: what is read there is not the project's word.
FOREIGN_DIRS = frozenset({"node_modules", "vendor", ".venv", "venv", "virtualenv", ".virtualenv",
                          "site-packages", "dist-packages", ".tox", ".nox", "bower_components",
                          "__pypackages__", ".cargo", ".rustup", "third_party", "third-party",
                          ".git"})


def refusal_words(text: str) -> str | None:
    """What the person typed while turning a tool call or plan down, from the call's result:
    the words after "the user said:", without the note the harness appends to them (the
    note would otherwise be read as the person's preference), or None when they typed
    nothing."""
    said = _REFUSAL_WORDS.search(text)
    words = _HARNESS_NOTE.sub("", said["said"]).strip() if said else ""
    return words or None


@dataclass(frozen=True)
class SessionView:
    """A transcript plus the project root its paths are judged against."""

    transcript: Transcript
    root: str | None
    project: str | None
    results: Mapping[str, Event]
    #: What several sources derive from the whole session, computed once per view.
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    #: ``relative``'s answers by path: rules ask of the same few dozen files thousands of
    #: times, and ``posixpath.relpath`` normalizes both paths each time. Kept out of ``memo``
    #: (small, and read after the rules too).
    cited: dict[str, str | None] = field(default_factory=dict, init=False, compare=False,
                                         repr=False)

    @classmethod
    def of(cls, transcript: Transcript, project_root: str | None) -> SessionView:
        root = project_root or _first_cwd(transcript)
        root = posixpath.normpath(as_posix(root)) if root else None
        project = project_name(root)  # the repository's name, not a worktree's
        results = {e.call_id: e for e in transcript.events
                   if e.kind == "tool_result" and e.call_id}
        return cls(transcript, root, project, results)

    def typed_in_results(self) -> list[tuple[Event, str]]:
        """What the person typed where a tool result carries it: the words given while turning
        a tool call or a plan down ("…the user said: use a switch instead"), and an answer to
        the agent's question typed instead of picking an offered option. They are the
        user's, not the tool's; the result event is their evidence."""
        if "typed_in_results" not in self.memo:
            found = []
            for call in self.calls():
                result = self.results.get(call.call_id or "")
                if result is None or result.subagent_id or result.is_sidechain:
                    continue
                if kind_of(call.tool_name) == ASK:
                    found += [(result, answer) for _, answer in typed_answers(call, result)]
                    continue
                if not self._judged(result)[1]:
                    continue
                said = refusal_words(result.text)
                if said:
                    found.append((result, said))
            self.memo["typed_in_results"] = found
        return self.memo["typed_in_results"]

    def calls(self) -> list[Event]:
        """Tool calls an agent really made; a compaction agent's replay is not one."""
        if "calls" not in self.memo:
            self.memo["calls"] = [e for e in self.transcript.events
                                  if e.kind == "tool_call" and not e.derived]
        return self.memo["calls"]

    def call_of(self, result: Event) -> Event | None:
        """The first tool call carrying ``result``'s id, by lookup in an index built once per
        view: a scan of every call per result made extraction quadratic in the session's
        length (docs/capture.md, "What the built-in extractor reads")."""
        return self.remembered("call_by_id", _first_by_id)(result.call_id)

    def remembered(self, key: str, compute: Any) -> Any:
        """``compute(self)`` once per view under ``key``."""
        if key not in self.memo:
            self.memo[key] = compute(self)
        return self.memo[key]

    def forget_except(self, keep: frozenset[str]) -> None:
        """Drop what was remembered, but for ``keep``: once the rules have run, what only
        they read is dead weight through ``digest`` and ``reconcile``, where a long
        session's extraction peaks. Each entry is a pure function of the view, so one asked
        for again is computed again, the same."""
        for key in [key for key in self.memo if key not in keep]:
            del self.memo[key]

    def forget(self, keys: frozenset[str]) -> None:
        """Drop what was remembered under ``keys`` (``builtin.LAST_READ_BY``): a pure function
        of the view, computed again, the same, if asked for after all."""
        for key in keys:
            self.memo.pop(key, None)

    def refused(self, result: Event) -> bool:
        """The person turned down the call ``result`` answers (``Event.turned_down``, or a
        result that opens as Claude Code's refusals do)."""
        return self._judged(result)[1] if result.call_id in self.results else result.turned_down

    def outcome(self, call: Event) -> str:
        """ok / failed, or unknown when no verdict exists (no result, backgrounded, refused)."""
        result = self.results.get(call.call_id or "")
        if result is None or _backgrounded(call, result):
            return UNKNOWN
        return self._judged(result)[0]

    def _judged(self, result: Event) -> tuple[str, bool]:
        """(what a result of ``results`` says of its call, whether its text starts with the
        person turning the call down), read once per result and remembered: the rules ask of
        the same results again and again, and a big output is held compressed, so every look
        at how it starts decompressed all of it (~17,000 decompressions on a 50 MB transcript,
        ~9,500 of them for these two questions). Kept small, since it lives as long as the
        extraction: by the result's own call id (the key ``results`` holds already), each
        answer one of six shared pairs."""
        judged = self.memo.setdefault("judged", {})
        found = judged.get(result.call_id)
        if found is None:
            opening = _opening(result)
            refused = result.turned_down or opening.startswith(_REFUSED)
            found = judged[result.call_id] = _JUDGEMENTS[
                UNKNOWN if refused else _result_verdict(result, opening), refused]
        return found

    def resolve(self, path: str, cwd: str | None = None) -> str | None:
        """An absolute, normalized path; a relative one needs a known directory. A Windows
        path (the recording machine's) is absolute too, in its POSIX form (foreign_paths.py)."""
        if not path or "\0" in path:
            return None
        path = as_posix(path)
        base = as_posix(cwd) if cwd else self.root
        if not posixpath.isabs(path):
            if not base or path.startswith("~"):
                return None
            path = posixpath.join(base, path)
        return posixpath.normpath(path)

    def relative(self, path: str) -> str | None:
        """The path as cited: relative to the root inside it, None outside it."""
        if not self.root:
            return path
        if path not in self.cited:
            self.cited[path] = self._relative(path, self.root)
        return self.cited[path]

    @staticmethod
    def _relative(path: str, root: str) -> str | None:
        path = beside_windows_root(as_posix(path), root)
        if path != root and not path.startswith(root.rstrip("/") + "/"):
            return None
        return posixpath.relpath(path, root)


    def started_in(self) -> str | None:
        """The folder the session was recorded starting in (POSIX form): the root, unless
        the capture placed the session elsewhere (a recorded path that exists only on the
        recording machine, a project known by its repository)."""
        if "started_in" not in self.memo:
            first = _first_cwd(self.transcript)
            self.memo["started_in"] = posixpath.normpath(as_posix(first)) if first else None
        started: str | None = self.memo["started_in"]
        return started

    def own(self, path: str) -> str | None:
        """The path as cited when it is the project's own file: inside the root and not in a
        folder of someone else's code (node_modules/, vendor/, a virtualenv, site-packages)."""
        cited = self.relative(path)
        if cited is None or cited.startswith("../") or FOREIGN_DIRS & set(cited.split("/")[:-1]):
            return None
        return cited


def _first_by_id(view: SessionView) -> Any:
    """``call_id -> first call`` over the view's calls, as a lookup function."""
    index: dict[str | None, Event] = {}
    for call in view.calls():
        index.setdefault(call.call_id, call)
    return index.get


def _first_cwd(transcript: Transcript) -> str | None:
    """Where the session started: later events follow the agent's ``cd`` into subfolders."""
    first = next((e.cwd for e in transcript.events if e.cwd), None)
    return first or transcript.session.cwd


def _opening(result: Event) -> str:
    """How the result's text starts, leading blanks dropped: the whole of it as far as any
    verdict's prefix reaches. Only its head is decompressed (capture/packed.py) unless blanks
    fill all of that head."""
    head = text_head(result, _OPENING_CHARS)
    if len(head) == _OPENING_CHARS and len(head.lstrip()) < _LONGEST_OPENING:
        return result.text.lstrip()
    return head.lstrip()


def _result_verdict(result: Event, opening: str) -> str:
    """``SessionView.outcome`` for a call that was neither backgrounded nor left unanswered
    (``opening``: how the result's text starts, ``_opening``)."""
    if opening.startswith(_NOT_A_VERDICT) or result.extras.get("no_verdict"):
        return UNKNOWN  # no_verdict: a reader knows the tool reported no outcome
    code = exit_code(result)  # reads the text itself for the agents that print the code
    if result.is_error or (code is not None and code != 0):
        return FAILED
    return OK


def _backgrounded(call: Event, result: Event) -> bool:
    """A command sent to the background reports only that it started, never how it ended."""
    tool_input = call.tool_input or {}
    return tool_input.get("run_in_background") is True or "backgroundTaskId" in result.extras


def failed_outputs(view: SessionView) -> Iterator[tuple[int, str]]:
    """(line of the call, its output) for every tool call that failed, in order: what the
    session saw go wrong, which a lesson or a dependency must point back to. The results
    are remembered, not their text: a big output is held compressed while the pass runs,
    and each caller reads the text of one output at a time."""
    for line, result in failed_results(view):
        yield line, result.text


def failed_results(view: SessionView) -> list[tuple[int, Event]]:
    """``failed_outputs`` with each result event instead of its text, for a caller that
    keeps them all and reads each text later, if at all."""
    def compute(v: SessionView) -> list[tuple[int, Event]]:
        found = []
        for call in v.calls():
            result = v.results.get(call.call_id or "")
            if result is not None and v.outcome(call) == FAILED:
                found.append((call.line, result))
        return found
    return list(view.remembered("failed_outputs", compute))


def exit_code(result: Event, text: str | None = None) -> int | None:
    """The recorded exit code; Gemini prints it into the result text instead, and so does
    Codex for a command its sandbox reports as failed. ``text``: the result's text when the
    caller has it already (a packed result's text is decompressed on each read)."""
    code = result.extras.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    if result.agent not in ("gemini", "codex"):
        return None
    text = result.text if text is None else text
    if result.agent == "gemini":
        found = _GEMINI_EXIT.search(text)
    else:
        found = _CODEX_SANDBOX_EXIT.match(text)
    return int(found[1]) if found else None


def short_quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """One line, whitespace collapsed, capped: evidence must stay readable in a report."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def transcript_evidence(line: int, quote: str) -> str:
    """``transcript#L<n>: quote``: no "/" or "." in the reference, so a file auditor reads it
    as citing no file; the fact's episode already names the transcript."""
    return f"transcript#L{line}: {short_quote(quote) or '(no text)'}"


_TRANSCRIPT_LINE = lazy_regex(r"^transcript#L(?P<line>\d+):")


def taught_at(found: Mapping[str, Any]) -> int | None:
    """The transcript line a candidate's first evidence cites (``transcript_evidence``'s
    shape), if it cites one."""
    evidence = found.get("evidence") or [""]
    match = _TRANSCRIPT_LINE.match(str(evidence[0]))
    return int(match["line"]) if match else None


def file_evidence(cited_path: str, code: str) -> str:
    """``path: `code``` in the shape the claim-vs-evidence audit parses: the path needs a
    "/" or "." to count as a file, hence ``./Makefile`` for a bare name at the root."""
    if "/" not in cited_path and "." not in cited_path:
        cited_path = "./" + cited_path
    return f"{cited_path}: `{code}`"


def candidate(rule: str, subject: str, predicate: str, obj: str, *, evidence: list[str],
              trust: str | None = None, epistemic: str | None = None,
              confidence: float | None = None, scope: str = "project",
              at: int | None = None, **types: Any) -> dict[str, Any]:
    """One candidate in the shape the capture pass screens. Its epistemic kind, confidence
    and source come from the one trust table (``trust.py``) under ``trust`` (default: the
    rule's name); a rule may name a different epistemic kind or confidence, never a source.
    ``at`` is when the teaching line was written (the fact is valid from then, not from when
    capture ran); ``types`` adds object_kind, subject_type and object_type where known."""
    from claimgraph.capture.extract.trust import trust_of

    if "source_type" in types:
        raise TypeError("a rule's source comes from the trust table (extract/trust.py)")
    known = trust_of(trust or rule)
    fact = {"subject": subject, "predicate": predicate, "object": obj,
            "epistemic": epistemic or known.epistemic,
            "confidence": known.confidence if confidence is None else confidence,
            "scope": scope, "source_type": known.source_type, "evidence": evidence,
            "rule": rule}
    if at is not None:
        fact["valid_from"] = at
    fact.update({key: value for key, value in types.items() if value is not None})
    return fact
