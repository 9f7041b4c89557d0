"""How a Gemini CLI message becomes events: shared by both session formats (``gemini``).

A message is ``{id, timestamp, type: user|gemini|info|error|warning, content, thoughts,
toolCalls}``; content is a string or a list of parts (``text``, or ``functionResponse`` for a
tool's result, which the call's own ``result`` repeats). Each tool call becomes a
``tool_call`` plus, once it has finished, a ``tool_result``; a status other than "success"
("error", "cancelled") is a tool error. Thoughts are dropped. CLI notices become derived
``meta`` events, and so does text the harness put in the user's place: the
``<session_context>`` block Gemini opens each session with, and ``<hook_context>`` blocks,
where hooks' context (our own SessionStart memory among it) is prepended to the prompt --
the person's prompt is what is left around them. Gemini 0.61 escapes ``<`` and ``>`` (only
those: ``&`` stays as it is) in a hook's context before wrapping it, so the block's contents
are unescaped back: the meta event then holds our ``<claimgraph-context>`` markers as sent.
Files the person @-referenced, which the CLI inlines into the prompt after a ``--- Content from
referenced files ---`` line, are a derived ``meta`` event too: only the text before that line
is the person's.

``MessageDelta`` turns a message into the events not yet emitted for it: a replaced message
(written first without, then with its tool calls and results) yields only what it added.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event, TranscriptBuilder, iso_to_ms, text_or_none

AGENT = "gemini"
HARNESS_PREFIXES = ("<session_context>",)
FINISHED = frozenset({"success", "error", "cancelled"})
_REFERENCED_FILES = lazy_regex(r"^[ \t]*--- Content from referenced files ---[ \t]*$",
                               re.MULTILINE)
_HOOK_CONTEXT = lazy_regex(r"<hook_context>(.*?)(?:</hook_context>|\Z)\s*", re.DOTALL)


@dataclass(frozen=True)
class Seen:
    """What was emitted for a message: its text's digest, its calls, its finished calls."""

    text: str = ""
    calls: frozenset[str] = frozenset()
    finished: frozenset[str] = frozenset()

    def as_json(self) -> list[Any]:
        """``[digest, calls, finished]``, sorted: what a capture mark keeps (gemini_jsonl)."""
        return [self.text, sorted(self.calls), sorted(self.finished)]

    @classmethod
    def from_json(cls, value: Any) -> Seen:
        """The inverse of ``as_json``; TypeError/ValueError on anything else."""
        text, calls, finished = value
        if not (isinstance(text, str) and isinstance(calls, list) and isinstance(finished, list)
                and all(isinstance(i, str) for i in (*calls, *finished))):
            raise TypeError("not a message's seen state")
        return cls(text, frozenset(calls), frozenset(finished))


def text_digest(text: str) -> str:
    """A digest that means the same in every process (it is kept in the capture mark across
    runs, where Python's ``hash`` of a string would not be)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def seen_of(message: dict[str, Any]) -> Seen:
    calls = [c for c in _calls(message) if text_or_none(c.get("id"))]
    return Seen(text_digest(content_text(message.get("content"))),
                frozenset(c["id"] for c in calls),
                frozenset(c["id"] for c in calls if _finished(c)))


@dataclass
class MessageDelta:
    """Adds one message's events to a builder, minus what ``before`` says was emitted."""

    builder: TranscriptBuilder
    path: str
    envelope: dict[str, Any]

    def add(self, message: dict[str, Any], line: int, before: Seen | None = None) -> None:
        def event(kind: str, **fields: Any) -> Event:
            return Event(kind=kind, agent=AGENT, source_file=self.path, line=line,
                         timestamp=iso_to_ms(message.get("timestamp")),
                         record_id=text_or_none(message.get("id")),
                         **{**self.envelope, **fields})

        text = content_text(message.get("content"))
        if text.strip() and (before is None or before.text != text_digest(text)):
            self._add_text(event, message.get("type"), text)
        for call in _calls(message):
            call_id = text_or_none(call.get("id"))
            if before is None or call_id not in before.calls:
                _add_call(self.builder, event, call)
            if _finished(call) and (before is None or call_id not in before.finished):
                _add_result(self.builder, event, call)

    def _add_text(self, event: Callable[..., Event], kind: Any, text: str) -> None:
        if kind == "gemini":
            self.builder.add(event("assistant", text=text))
        elif kind != "user":
            self.builder.add(event("meta", text=text, derived=True))
        elif text.lstrip().startswith(HARNESS_PREFIXES):
            self.builder.add(event("meta", text=text, derived=True))
        else:
            context, prompt = split_hook_context(text)
            if context:
                self.builder.add(event("meta", text=context, derived=True))
            prompt, files = split_referenced_files(prompt)
            if prompt.strip():
                self.builder.add(event("prompt", text=prompt))
            if files.strip():
                self.builder.add(event("meta", text=files, derived=True))


def split_hook_context(text: str) -> tuple[str, str]:
    """(the ``<hook_context>`` blocks' contents, the text around them)."""
    blocks = [_unescape_angles(m[1].strip()) for m in _HOOK_CONTEXT.finditer(text)]
    if not blocks:
        return "", text
    return "\n\n".join(b for b in blocks if b), _HOOK_CONTEXT.sub("", text).strip()


def split_referenced_files(text: str) -> tuple[str, str]:
    """(what the person typed, the files it @-referenced): the CLI appends the content of
    each ``@path`` after a ``--- Content from referenced files ---`` line, and that text is
    the files', never the person's words."""
    marker = _REFERENCED_FILES.search(text)
    if marker is None:
        return text, ""
    return text[:marker.start()].rstrip(), text[marker.start():].strip()


def _unescape_angles(text: str) -> str:
    """Undo Gemini's escaping of a hook's context, which replaces ``<`` and ``>`` only."""
    return text.replace("&lt;", "<").replace("&gt;", ">")


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("toolCalls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _finished(call: dict[str, Any]) -> bool:
    """A call with its result, or a final status: one still running has no outcome yet."""
    return call.get("result") is not None or call.get("status") in FINISHED


def _add_call(builder: TranscriptBuilder, event: Callable[..., Event],
              call: dict[str, Any]) -> None:
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    builder.add(event("tool_call", tool_name=text_or_none(call.get("name")), tool_input=args,
                      call_id=text_or_none(call.get("id"))))


def _add_result(builder: TranscriptBuilder, event: Callable[..., Event],
                call: dict[str, Any]) -> None:
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    status = text_or_none(call.get("status"))
    extras: dict[str, Any] = {"status": status} if status else {}
    if isinstance(args.get("file_path"), str):
        extras["filePath"] = args["file_path"]
    builder.add(event("tool_result", call_id=text_or_none(call.get("id")),
                      text=_result_text(call.get("result")), is_error=status != "success",
                      extras=extras))


def content_text(content: Any) -> str:
    """Content is a string, or (newer CLIs) a list of parts with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text")) for part in content
                         if isinstance(part, dict) and part.get("text"))
    return ""


def _result_text(result: Any) -> str:
    """``[{functionResponse: {response: {output | error}}}]`` -> the output or error text."""
    parts = []
    for item in result if isinstance(result, list) else []:
        call = item.get("functionResponse") if isinstance(item, dict) else None
        response = call.get("response") if isinstance(call, dict) else None
        if not isinstance(response, dict):
            continue
        value = response.get("output", response.get("error"))
        if value is not None:
            parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(parts)
