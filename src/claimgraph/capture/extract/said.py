"""What the user states about the project: a typed sentence the sentence model calls "other"
that says how a thing of the project is or must be (docs/capture.md, "What the user states").

The shape of such a sentence is ``logic.said``'s call; this module gives it what the session
holds: the names its tool calls and results use (a statement must name one of them: that
grounds it in the project), the agent's message the sentence answered (a sentence that only
repeats the agent is the agent's words), what the person typed later (a later sentence of
theirs that names the same thing and turns it around retires it: the session's end decides),
and what the session changed later: a statement of how a thing *is* (not a rule: "must",
"never", "only") whose subject names a file the session then edits, or a name a later edit
takes out of the text it replaces, described the state the work was about to change.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from claimgraph.capture.extract.offered import AgentTextByLine
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.capture.extract.writes import session_ops
from claimgraph.capture.packed import HeldTexts, held_text, text_head, value_heads
from claimgraph.capture.zipped_lines import ZippedLines
from claimgraph.logic.said import grounded, is_rule, is_statement, names, subject_of

#: Why a sentence the model calls "other" is stored as a statement (``capture --explain``).
VIA = "a statement of how a thing of the project is, naming what the session names"
#: How much of a tool call's input or result is read for names: the head holds the paths,
#: commands and identifiers; a long file's tail adds little and costs time.
_HEAD = 4000
_WORD = lazy_regex(r"[a-z]{5,}")
#: A command's words are its program, subcommands, flags and paths: what it quotes (a commit
#: message, a heredoc, a script) is prose, and its first line is the command.
_QUOTED = lazy_regex(r"\"[^\"]*\"|'[^']*'|<<\W*(\w+).*", re.DOTALL)
_COMMAND_HEAD = 200
_CONTENT = lazy_regex(r"[a-z][a-z0-9_.-]{3,}")
#: Share of a sentence's words found in the agent's message just before it from which the
#: sentence only repeats the agent (an option read back, a summary agreed with).
_ECHO_SHARE = 0.8
#: A later sentence that turns a statement around.
_TURNS = lazy_regex(r"\b(?:not|no longer|isn't|aren't|doesn't|don't|never|instead|actually|"
                    r"wrong|rather)\b", re.IGNORECASE)
_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "absolute_path", "dir_path")
_COMMAND_KEYS = ("command", "cmd")


def stated(view: SessionView, line: int, sentence: str,
           typed: list[tuple[Any, str]]) -> bool:
    """True when the sentence typed at ``line`` is a statement of how a thing of the project
    is (``logic.said.is_statement``), names a thing the session's record names, does not
    just repeat the agent's message before it, and nothing the person typed later names the
    same thing and turns it around (``typed``: what the person typed, as
    ``statements.user_texts`` reads it)."""
    if not is_statement(sentence):
        return False
    text, words = view.remembered("said.session_names", _session_names)
    if not grounded(sentence, text, words):
        return False
    before = view.remembered("said.agent_before", _agent_before).get(line)
    if before and _echoes(sentence, before):
        return False
    return not _turned_later(view, typed, line, sentence) and not (
        not is_rule(sentence) and _changed_later(view, line, sentence))


def _session_names(view: SessionView) -> tuple[ZippedLines, frozenset[str]]:
    """(the head of every tool call's input and result, lowercased, as UTF-8; the words of
    the commands run and the paths touched). Each head is lowered alone, then joined: the
    same text (a newline ends a word for the final-sigma rule as the text's end does),
    without the copy of it all and the scratch of a non-ASCII ``lower`` (~12 bytes a
    character), which made this the pass's peak (+63 MB on 50 MB of distinct sessions, +280
    MB on 200 MB). Held as UTF-8, not as one ``str`` that a single emoji makes four bytes a
    character: it stays until the rules end (20 MB of 50 MB's distinct sessions as a str).
    Built in place, head by head: a list of every head and its join held
    the text twice (~12 MB at the peak of 50 MB of distinct sessions, ~50 MB at 200 MB); a
    big input's head is read without inflating the rest (``packed.value_heads``). Keeping
    each line once instead would be exact too (a name has no line break), but on distinct
    sessions it saved a fifth of the text and its index cost more while it was built.
    Held compressed in chunks (``ZippedLines``): a 200 MB pass asks it of about five distinct
    names, and whole it was the rules' largest allocation (~22 MB, ~6 MB compressed)."""
    words: set[str] = set()

    def each_head() -> Iterator[str]:  # one at a time, the words gathered on the way
        for event in view.transcript.events:
            if event.kind == "tool_result":
                yield text_head(event, _HEAD)  # only the head is inflated
            elif event.kind == "tool_call" and not event.derived:
                values = event.tool_input or {}
                yield from value_heads(values, _HEAD)
                _add_words(values, words)
    heads = ZippedLines(head.lower() for head in each_head())  # every head read: words too
    return heads, frozenset(words)


def _add_words(values: Mapping[str, Any], words: set[str]) -> None:
    for key in _PATH_KEYS:
        value = values.get(key)
        if isinstance(value, str):
            words.update(_WORD.findall(value.lower()))
    for key in _COMMAND_KEYS:
        value = values.get(key)
        if isinstance(value, str):
            words.update(_WORD.findall(_QUOTED.sub(" ", value.lower())[:_COMMAND_HEAD]))


def _agent_before(view: SessionView) -> Mapping[int, str]:
    return AgentTextByLine(view, command_args=True)


def _echoes(sentence: str, agent_text: str) -> bool:
    words = set(_CONTENT.findall(sentence.lower()))
    if not words:
        return False
    agent = agent_text.lower()
    return sum(1 for word in words if word in agent) >= _ECHO_SHARE * len(words)


def _turned_later(view: SessionView, typed: list[tuple[Any, str]], line: int,
                  sentence: str) -> bool:
    shaped, _ = names(sentence)
    own = shaped | {subject_of(sentence).lower()} - {""}
    return any(at > line and any(_named(name, lowered) for name in own)
               for at, lowered in _turning(view, typed))


def _turning(view: SessionView, typed: list[tuple[Any, str]]) -> list[tuple[int, str]]:
    """(line, lowered) of each sentence in ``typed`` that may turn a statement around
    (``_TURNS``), split once for the view: every statement's check split every later text
    into sentences again (~0.3 s at 200 MB, issue 29). Kept with the list it was read from,
    and read again if asked of another."""
    held = view.memo.get("said.turning")
    if held is None or held[0] is not typed:
        held = view.memo["said.turning"] = (typed, [
            (event.line, later.lower()) for event, text in typed
            for later in sentences(text) if _TURNS.search(later)])
    turning: list[tuple[int, str]] = held[1]
    return turning


def _changed_later(view: SessionView, line: int, sentence: str) -> bool:
    """A code-shaped name of the sentence's subject (what it is about; a name in what it says
    of it is only mentioned) is a file a later call writes or edits, or a later
    edit takes it out of the text it replaces (the session's end state decides what is true
    of it; a name an edit keeps, as context around its change, is not changed)."""
    shaped, _ = names(subject_of(sentence))
    if not shaped:
        return False
    for changed_line, path, edits in view.remembered("said.changes", _changes):
        if changed_line <= line:
            continue
        lowered = path.lower()
        if any(lowered.endswith("/" + name) or (lowered.endswith(name) and "/" in name)
               or any(_named(name, old) and not _named(name, new)
                      for old, new in _pairs(edits))
               for name in shaped):
            return True
    return False


def _changes(view: SessionView) -> list[tuple[int, str, HeldTexts]]:
    """(line, path, each edit's replaced and new text lowercased, one after the other) of
    every file operation that did not fail. A long text is held packed (``held_text``: ~4.5
    MB at the 200 MB benchmark, held through the statements rule, its peak)."""
    out: list[tuple[int, str, HeldTexts]] = []
    for call, outcome, ops in session_ops(view):
        if outcome == "failed":
            continue
        for op in ops:
            out.append((call.line, op.path, HeldTexts([
                held_text(text) for old, new, _ in op.edits
                for text in (old.lower(), new.lower())])))
    return out


def _pairs(edits: HeldTexts) -> Iterator[tuple[str, str]]:
    """Each edit's (replaced, new) text, as ``_changes`` holds them one after the other."""
    each = iter(edits)
    return zip(each, each)


def _named(name: str, text: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None


def said_verdict(verdict: Any) -> Any:
    """The verdict to store a statement with: a convention (how the project is), kept."""
    import dataclasses

    return dataclasses.replace(verdict, label="convention", kept=True)


def is_other(verdict: Any) -> bool:
    """The sentence model read the sentence as neither durable, a request nor a question."""
    probabilities: Mapping[str, float] = verdict.probabilities
    return not verdict.kept and verdict.label == "other" and bool(probabilities)
