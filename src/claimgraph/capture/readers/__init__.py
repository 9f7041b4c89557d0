"""Find out which agent wrote a transcript, and read any transcript safely, in bounded memory.

Every reader goes through ``open_transcript``: it refuses what is not a regular file BEFORE
opening it (a FIFO would block, /dev/zero would never end) and turns every filesystem failure
into a ClaimgraphError with a hint. ``LineStream`` hands out complete lines one at a time, so a
200 MB transcript costs one line of memory, and a half-written last line is never consumed.
Readers are imported lazily: the hook path must stay light.

A hostile or damaged transcript costs lines, never the session (every retry would fail on
the same bytes): a line nested deeper than ``MAX_JSON_DEPTH`` is skipped with a warning before
it is decoded (a 10,000-level line would otherwise raise RecursionError, here or in whatever
walks it later); a lone UTF-16 surrogate escape (``"\ud83d"``, half an emoji cut by a
JavaScript slice) decodes to U+FFFD, as no encoder would take it; the zero bytes a crash leaves
(a zero-filled tail or gap) are dropped from the line they precede, and a line that was only
zeros is skipped. Only a file whose first 64 KiB hold NUL bytes outside such runs and not one
JSON line is refused as binary.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
from claimgraph.logic.lazy_regex import lazy_regex
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

from claimgraph.capture.events import AGENTS, Transcript, TranscriptBuilder
from claimgraph.errors import ClaimgraphError

MAX_LINE_BYTES = 16 * 1024 * 1024
SNIFF_BYTES = 64 * 1024
#: How far into a line ``declared_type`` looks for its ``"type"`` (Claude Code writes it after
#: a few ids, the cwd and the branch).
TYPE_HEAD_CHARS = 4096
#: Deeper JSON lines are skipped: real records nest a dozen levels, tool inputs a few more.
MAX_JSON_DEPTH = 100
#: A run of this many zero bytes is what a crash leaves (a block the file system zero-filled).
ZERO_RUN = 8
_CHUNK = 1024 * 1024
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted",
                "world_state", "token_usage_record"}
#: Gemini CLI 0.61 sessions are JSONL: a metadata line, then messages and these updates.
_GEMINI_KEYS = {"projectHash", "$set", "$rewindTo"}
_CLAUDE_KEYS = {"parentUuid", "sessionId", "uuid", "isSidechain", "leafUuid"}
_CLAUDE_TYPES = {"user", "assistant", "system", "progress", "file-history-snapshot",
                 "queue-operation", "summary", "attachment"}
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_MODULES = {"claude-code": "claude_code", "codex": "codex", "gemini": "gemini", "text": "text"}
_ZERO_RUNS = lazy_regex(b"\0{%d,}" % ZERO_RUN)
#: A ``\uD800``–``\uDFFF`` escape with no partner: half a surrogate pair (module docstring).
_LONE_SURROGATE = lazy_regex(r"(?<!\\)\\u[dD][89abAB][0-9a-fA-F]{2}"
                             r"(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
                             r"|(?<![\\]u[dD][89abAB][0-9a-fA-F]{2})(?<!\\)\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_SURROGATE_ESCAPE = lazy_regex(r"\\u[dD][89a-fA-F]")
_STEP = {ord("("): 1, ord(")"): -1}
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
#: Opening brackets as ``(``, closing ones as ``)``: all a depth is measured on.
_PARENS = bytes.maketrans(b"[{]}", b"(())")
_JSON_STRING = lazy_regex(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def open_transcript(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a regular, readable, non-binary file for binary reading, or explain why not."""
    name = os.fspath(path)
    info = _stat(name)
    if stat.S_ISDIR(info.st_mode):
        raise ClaimgraphError("transcript-is-directory", f"{name} is a directory, not a transcript",
                              hint="pass the .jsonl/.json file inside it", path=name)
    if not stat.S_ISREG(info.st_mode):
        raise ClaimgraphError("transcript-not-regular", f"{name} is not a regular file",
                              hint="transcripts are ordinary files; devices and pipes are refused",
                              path=name)
    try:
        handle = os.fdopen(os.open(name, _OPEN_FLAGS), "rb", buffering=_CHUNK)
    except OSError as exc:
        raise _unreadable(name, exc) from None
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped in since the stat
        handle.close()
        raise ClaimgraphError("transcript-not-regular", f"{name} is not a regular file",
                              hint="transcripts are ordinary files", path=name)
    if looks_binary(handle.read(SNIFF_BYTES)):
        handle.close()
        raise ClaimgraphError(
            "transcript-binary", f"{name} looks binary (NUL bytes), not a transcript",
            hint="pass a Claude Code, Codex or Gemini transcript, or plain text", path=name)
    handle.seek(0)
    return handle


def looks_binary(head: bytes) -> bool:
    """NUL bytes outside zero-filled runs, and not one JSON line: an image, an executable."""
    if b"\0" not in head or b"\0" not in _ZERO_RUNS.sub(b"", head):
        return False
    return not any(_json_object(line.strip(b"\0 \t\r")) for line in head.split(b"\n")[:200])


def _json_object(raw: bytes) -> bool:
    if not raw.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(raw), dict)
    except (ValueError, RecursionError):
        return False


def _stat(name: str) -> os.stat_result:
    try:
        return os.stat(name)
    except (FileNotFoundError, NotADirectoryError):
        dangling = " (a dangling symlink)" if os.path.islink(name) else ""
        raise ClaimgraphError(
            "transcript-missing", f"no transcript at {name}{dangling}",
            hint="check the path; an agent may also have deleted it (Claude Code removes "
                 "transcripts older than 30 days)",
            path=name) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ClaimgraphError("transcript-symlink-loop", f"{name} is a symlink loop",
                                  hint="point it at a real file", path=name) from None
        raise _unreadable(name, exc) from None


def _unreadable(name: str, exc: OSError) -> ClaimgraphError:
    return ClaimgraphError("transcript-unreadable", f"cannot read {name}: {exc.strerror or exc}",
                           hint="check the file's permissions and owner", path=name)


class LineStream:
    """Complete lines from ``start_offset`` on, each decoded on its own (errors replaced).

    ``end_offset``/``line`` track the last line consumed, including oversized lines skipped
    with a warning. An unterminated last line is left unconsumed unless ``take_tail``."""

    def __init__(self, handle: BinaryIO, builder: TranscriptBuilder, source_file: str,
                 start_offset: int = 0, take_tail: bool = False) -> None:
        self._handle, self._builder, self.source_file = handle, builder, source_file
        self._take_tail = take_tail
        self.line = _line_number_at(handle, start_offset, source_file)
        self.end_offset = start_offset

    def __iter__(self) -> Iterator[tuple[int, str]]:
        while raw := self._handle.readline(MAX_LINE_BYTES + 1):
            if not raw.endswith(b"\n") and len(raw) > MAX_LINE_BYTES:
                size, raw = len(raw), b""  # free the 16 MiB head before draining the rest
                self._skip_oversized(size)
                continue
            if not raw.endswith(b"\n") and not self._take_tail:
                zeros = not raw.strip(b"\0")
                self._builder.warn(self.source_file, self.line + 1, (
                    "zero-filled tail (what a crash leaves): left unread" if zeros else
                    "incomplete last line (no newline yet): left for the next read"),
                    counter="zero_filled" if zeros else "incomplete")
                return
            self.line += 1
            self.end_offset += len(raw)
            if b"\0" in raw:
                raw = self._without_zeros(raw)
            text, raw = self._decoded(raw), b""  # one copy alive, not two
            yield self.line, text

    def _decoded(self, raw: bytes) -> str:
        return raw.decode("utf-8", errors="replace")

    def _without_zeros(self, raw: bytes) -> bytes:
        """Zero bytes a crash left before (or instead of) a line are dropped, with a warning."""
        kept = raw.lstrip(b"\0")
        self._builder.warn(self.source_file, self.line,
                           f"{len(raw) - len(kept)} zero bytes (what a crash leaves) skipped"
                           if kept.strip() else "a line of zero bytes skipped", "zero_filled")
        return kept

    def _skip_oversized(self, size: int) -> None:
        """Drain an oversized line in chunks: its size must never become our memory use."""
        while chunk := self._handle.readline(_CHUNK):
            size += len(chunk)
            if chunk.endswith(b"\n"):
                self.line += 1
                self.end_offset += size
                self._builder.warn(self.source_file, self.line,
                                   f"line longer than {MAX_LINE_BYTES} bytes: skipped", "oversized")
                return
        self._builder.warn(self.source_file, self.line + 1,
                           "incomplete oversized last line: left for the next read", "incomplete")


class _JsonLines(LineStream):
    """Lines as ``LineStream`` gives them, each judged while its bytes are at hand (for the
    line just given): ``unread``, its head declares one of ``unread_types``
    (``declared_type``); else ``deep``, it nests past ``MAX_JSON_DEPTH``, measured on the
    bytes (they translate at C speed, where walking a decoded line's brackets cost ~0.1 s of
    CPU on a 50 MB transcript)."""

    unread = deep = False

    def __init__(self, handle: BinaryIO, builder: TranscriptBuilder, source_file: str,
                 start_offset: int, unread_types: frozenset[str]) -> None:
        super().__init__(handle, builder, source_file, start_offset)
        self._unread_types = unread_types

    def _decoded(self, raw: bytes) -> str:
        text = super()._decoded(raw)
        self.unread = bool(self._unread_types) and declared_type(text) in self._unread_types
        self.deep = not self.unread and json_depth(raw) > MAX_JSON_DEPTH
        return text


def _line_number_at(handle: BinaryIO, offset: int, source_file: str) -> int:
    """Lines before ``offset``, counted in chunks; the offset must start a line."""
    size = os.fstat(handle.fileno()).st_size
    if offset < 0 or offset > size:
        raise ClaimgraphError("offset-out-of-range", f"offset {offset} is outside {source_file} "
                              f"({size} bytes)", hint="the file was replaced or truncated: "
                              "read it again from offset 0", path=source_file, offset=offset)
    handle.seek(max(offset - 1, 0))
    if offset and handle.read(1) != b"\n":
        raise ClaimgraphError("offset-misaligned", f"offset {offset} is not at a line start in "
                              f"{source_file}", hint="pass an end_offset from a previous read",
                              path=source_file, offset=offset)
    handle.seek(0)
    lines, left = 0, offset
    while left and (chunk := handle.read(min(_CHUNK, left))):
        lines += chunk.count(b"\n")
        left -= len(chunk)
    handle.seek(offset)
    return lines


def read_jsonl(path: str, builder: TranscriptBuilder, start_offset: int,
               on_record: Callable[[int, dict[str, Any]], None],
               stop_at: int | None = None,
               unread_types: frozenset[str] = frozenset()) -> tuple[int, int]:
    """Stream a JSON-lines file into ``on_record``; bad lines become warnings, never errors.
    With ``stop_at``, reading stops after the line that reaches that offset (a reader that
    replays a file's head to know its state there, as the Gemini reader does).
    ``unread_types``: records of these top-level types are counted (``skipped_noise``) and
    never decoded, when the line's head says its type unambiguously (``declared_type``): a
    Claude Code session is mostly progress records, which no reader or rule looks at.

    Returns ``(end_offset, last_line)`` of the complete lines consumed."""
    with open_transcript(path) as handle:
        stream = _JsonLines(handle, builder, path, start_offset, unread_types)
        for number, text in stream:
            if stream.unread:
                builder.counts["skipped_noise"] += 1
                record = None
            else:
                record = _parse_line(text, path, number, builder, stream.deep)
            if record is not None:
                guarded(builder, path, number, on_record, number, record)
            if stop_at is not None and stream.end_offset >= stop_at:
                break
        return stream.end_offset, stream.line


def declared_type(text: str) -> str | None:
    """A JSON-object line's top-level ``"type"`` string, read from the line's head without
    decoding it, or None when the head does not say it beyond doubt (then the line is decoded).

    The key must come within ``TYPE_HEAD_CHARS`` of a line that starts with ``{``, written
    ``"type":"…"`` (no spaces), with nothing before it but flat fields: no bracket at all
    between the line's ``{`` and the key (even one inside a string makes us decode), so the
    key is on the top level. Its quote is not escaped (no backslash before it), so it opens a
    string; in valid JSON a quote that closed one could not be followed by ``type``. The value
    holds no backslash. A line that is not valid JSON after that head is still this type's
    record cut short or damaged: it is skipped with the rest of its type, unreported. (A
    record naming ``type`` twice, which no agent writes, is read by its first.)"""
    at = text.find('"type":"', 0, TYPE_HEAD_CHARS)
    if at <= 0 or text[0] != "{" or text[at - 1] == "\\":
        return None
    head = text[1:at]
    if "{" in head or "[" in head or "}" in head or "]" in head:
        return None
    start = at + 8
    end = text.find('"', start, start + 64)
    value = text[start:end] if end > 0 else "\\"
    return None if "\\" in value else value


def _parse_line(text: str, path: str, number: int, builder: TranscriptBuilder,
                deep: bool) -> dict[str, Any] | None:
    """``deep``: the line nests deeper than ``MAX_JSON_DEPTH`` (``json_depth`` of its bytes)."""
    if not text or text.isspace():  # what ``not text.strip()`` says, without copying the line
        return None
    if deep:
        builder.warn(path, number, f"nested deeper than {MAX_JSON_DEPTH} levels: skipped",
                     "too_deep")
        return None
    try:
        record = _loads_lenient(fix_surrogate_escapes(text.lstrip("\ufeff")), path, number, builder)
    except ValueError as exc:
        builder.warn(path, number, f"not valid JSON: {getattr(exc, 'msg', exc)}")
        return None
    except RecursionError:
        builder.warn(path, number, "nested too deep to decode: skipped", "too_deep")
        return None
    if not isinstance(record, dict):
        builder.warn(path, number, "a JSON line that is not an object")
        return None
    return record


def _loads_lenient(text: str, path: str, number: int, builder: TranscriptBuilder) -> Any:
    """Decode one line, reading raw control characters inside strings rather than losing the line.

    A line an agent CLI wrote never holds them, but a transcript that passed through another
    tool (a redactor that replaced text without escaping, an editor) can: strict JSON rejects the
    whole record for one raw tab or newline in a string, and the user's words in it would be lost.
    The line is read as it stands and a warning says so; control characters are stripped wherever
    text is shown, so reading them here lets nothing through that rendering does not already handle.
    """
    try:
        return json.loads(text)
    except ValueError as exc:
        if "control character" not in getattr(exc, "msg", ""):
            raise
    record = json.loads(text, strict=False)
    builder.warn(path, number, "raw control characters inside a JSON string: read as they stand",
                 "raw_control")
    return record


def json_depth(line: bytes) -> int:
    """How deep a JSON line (its UTF-8 bytes) nests; 0 when it cannot nest past
    ``MAX_JSON_DEPTH``. Brackets inside strings are counted first, which can only overstate;
    only a line that then seems too deep is measured again without its strings.

    Most long lines hold more brackets than the limit (code in a tool output): a bound that
    C-speed passes find (``_depth_bound``) clears nearly all of them, and only a line it
    cannot clear has its brackets walked one by one."""
    brackets = line.translate(_PARENS, _NOT_BRACKETS)
    if len(brackets) <= MAX_JSON_DEPTH or _depth_bound(brackets) <= MAX_JSON_DEPTH:
        return 0
    depth = _deepest(brackets)
    if depth <= MAX_JSON_DEPTH:
        return depth
    return _deepest(_JSON_STRING.sub(b'""', line).translate(_PARENS, _NOT_BRACKETS))


def _depth_bound(brackets: bytes) -> int:
    """At least the nesting depth of ``brackets`` (``(`` opens, ``)`` closes) whenever it is
    at most ``MAX_JSON_DEPTH``. Each pass removes every adjacent ``()``: each position it
    removes sits one above a position that stays, so a pass lowers the deepest point by one
    at most. What no pass can shorten holds no ``()``: its closes all come before its opens,
    and it reaches as deep as its opens outnumber its closes. Stops past the limit."""
    passes = 0
    while passes <= MAX_JSON_DEPTH:
        shorter = brackets.replace(b"()", b"")
        if len(shorter) == len(brackets):
            break
        brackets, passes = shorter, passes + 1
    return passes + max(0, 2 * brackets.count(b"(") - len(brackets))


def _deepest(brackets: bytes) -> int:
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def fix_surrogate_escapes(text: str) -> str:
    """Lone surrogate escapes become ``\ufffd`` (same length, so byte offsets hold)."""
    # One search clears nearly every line (most hold no escape, or only others: ANSI's
    # \u001b): a pattern that starts with a literal is searched for that literal first, which
    # measured twice as fast as the two substring probes ("\\ud", "\\uD") it replaced.
    if _SURROGATE_ESCAPE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(r"\\ufffd", text)


def guarded(builder: TranscriptBuilder, path: str, line: int,
            handle: Callable[..., None], *args: Any) -> None:
    """One record of a shape no reader foresaw must not stop the capture of a whole session
    (every retry would fail on the same line): it is skipped, and the warning shows it."""
    try:
        handle(*args)
    except (TypeError, AttributeError, KeyError, ValueError, RecursionError) as exc:
        builder.warn(path, line, f"record of an unexpected shape skipped: {exc!r}"[:500],
                     "unexpected_shape")


def detect_format(path: str | os.PathLike[str]) -> str:
    """Which agent wrote this file, judged by the first complete lines, then by the name."""
    name = os.fspath(path)
    with open_transcript(name) as handle:
        head = handle.read(SNIFF_BYTES)
        whole = not handle.read(1)
    lines = head.split(b"\n")
    candidates = lines if whole else lines[:-1]
    for raw in candidates[:20]:
        agent = _agent_of_line(raw)
        if agent:
            return agent
    return _agent_by_shape(head, name)


def _agent_of_line(raw: bytes) -> str | None:
    try:
        record = json.loads(raw.strip(b"\0"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    if record.get("type") in _CODEX_TYPES and "payload" in record:
        return "codex"
    if isinstance(record.get("messages"), list) or _GEMINI_KEYS & record.keys():
        return "gemini"
    if _CLAUDE_KEYS & record.keys() or record.get("type") in _CLAUDE_TYPES:
        return "claude-code"
    if "instructions" in record and "id" in record:
        return "codex"
    return None


def _agent_by_shape(head: bytes, name: str) -> str:
    """Pretty-printed Gemini documents and empty or one-huge-line files land here.
    A lone ``{`` on the first line is a multi-line document, which JSONL never is."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    multi_line = text.split(b"\n", 1)[0].strip() == b"{"
    if multi_line and (b'"sessionId"' in head or b'"messages"' in head):
        return "gemini"
    if text.startswith(b"{") and b'"payload"' in head and b'"session_meta"' in head:
        return "codex"
    if text.startswith(b"{") and b'"sessionId"' in head:
        return "claude-code"
    if text.startswith(b"{") and Path(name).suffix in (".json", ".jsonl"):
        raise ClaimgraphError("transcript-format-unknown", f"{name} is JSON of no known agent",
                              hint="pass agent='text' to read it as plain text", path=name)
    if not text and Path(name).suffix == ".jsonl":
        return "codex" if Path(name).name.startswith("rollout-") else "claude-code"
    return "gemini" if not text and Path(name).suffix == ".json" else "text"


def read_transcript(path: str | os.PathLike[str], agent: str | None = None,
                    start_offset: int = 0, **options: Any) -> Transcript:
    """Read a transcript of any supported agent from ``start_offset`` (see each reader)."""
    name = os.fspath(path)
    chosen = agent or detect_format(name)
    if chosen not in _MODULES:
        raise ClaimgraphError("unknown-agent", f"no transcript reader for {chosen!r}",
                              hint="use one of: " + ", ".join(AGENTS), agent=chosen)
    reader = importlib.import_module(f"{__name__}.{_MODULES[chosen]}")
    return reader.read(name, start_offset=start_offset, **options)
