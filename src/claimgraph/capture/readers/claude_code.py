"""Claude Code JSONL transcripts (and their subagent files) as normalized events.

Decisions, each driven by what real transcripts contain:
- Only ``user``, ``assistant`` and ``system`` records carry conversation. The documented noise
  (progress, file-history-snapshot, queue-operation, summary titles, attachment and the
  api-*/cost/latch records of 2.1.3xx) is dropped and counted; unknown types are dropped and
  counted separately, never fatal. Attachments hold hook context, including our own injected
  block, so dropping them keeps memory from echoing itself; only one that records a file's
  content (a file changed on disk outside the agent's tools, a file attached to a message)
  becomes a derived ``observed`` event (``harness_files.py``).
- A message the person typed while the agent was busy is queued. If the agent takes it as the
  next turn, the queue says ``dequeue`` and the text comes back as a ``user`` record. If the
  agent reads it mid-turn, the queue says ``remove`` and the text never comes back: newer
  versions add a ``queued_command`` attachment (prompt mode; origin human or unnamed), older ones
  leave only the ``enqueue`` line's content. Either way it is a ``prompt``, once. ``popAll``
  takes every queued message back into the input box (the person edits before sending): none
  of them was sent, so none is read, and a later content-less ``remove`` cannot take a stale
  draft for the edited message queued after it. A content-less ``remove`` takes the oldest
  message a person typed: a task notification may reach the agent without leaving the queue,
  and must not take the place of the person's words. Queued task
  notifications (their own mode, or a JSON payload in older versions) and slash commands are not
  the person's words.
- Assistant lines hold ONE content block each; lines sharing ``message.id`` are one message,
  even when tool results of parallel calls sit between them. Their text blocks merge into one
  ``assistant`` event placed at the first text line (joined once, at the end of the file, so
  20,000 lines of one message cost linear time); thinking is dropped; each tool_use block is
  its own ``tool_call``.
- User text is a ``prompt`` only when a person typed it. ``isMeta`` records, slash-command
  wrappers (``<command-name>``, ``<local-command-stdout>``, the local-command caveat), task
  notifications, ``!`` bash-mode echoes and "[Request interrupted …]" markers become derived
  ``meta`` events: kept as evidence, never read as the user's words. So does a message that is
  nothing but the harness's envelopes (``envelope.typed_text``: an IDE's open file, a
  teammate's message) and the one that starts a context cleared on accepting a plan
  (``planContent``); a prompt keeps only what the person typed inside its envelopes.
- A compaction is ``system/compact_boundary`` followed by a user ``isCompactSummary`` record:
  together they make ONE derived ``compaction`` event (the summary amends the boundary's).
- Subagent files ``<session>/subagents/agent-*.jsonl`` are read with their parent, each from
  its own offset; their events carry ``subagent_id``. Compaction-agent files
  (``agent-acompact-*``) are the harness talking to itself: all their events are derived.
  A parent tool result naming an ``agentId`` yields a ``subagent`` link event.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
from pathlib import Path
from typing import Any, Mapping

from claimgraph.capture.events import (
    TURNED_DOWN, Event, Transcript, TranscriptBuilder, iso_to_ms, scalar_fields, text_or_none)
from claimgraph.capture.readers import read_jsonl
from claimgraph.capture.readers.envelope import typed_text
from claimgraph.capture.readers.harness_files import observed_file
from claimgraph.errors import ClaimgraphError

AGENT = "claude-code"
NOISE_TYPES = frozenset({
    "progress", "file-history-snapshot", "queue-operation", "summary", "attachment",
    "api-request", "api-request-shape", "api-request-blob", "last-prompt", "tools-used",
    "cost-state", "atis-latch"})
#: Noise with no handler: a line of these types is counted without being decoded (most of a
#: session's lines are progress records).
UNREAD_TYPES = NOISE_TYPES - {"attachment", "queue-operation"}
META_PREFIXES = (
    "<command-name>", "<command-message>", "<command-args>", "<local-command-",
    "<task-notification>", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
    "<user-memory-input>", "Caveat: The messages below were generated", "[Request interrupted")
RESULT_FIELDS = (
    "type", "filePath", "content", "stdout", "stderr", "interrupted", "returnCodeInterpretation",
    "oldString", "newString", "replaceAll", "agentId", "status", "commandName", "success",
    "backgroundTaskId")
_EXIT_CODE = lazy_regex(r"^Error: Exit code (\d+)")
_AGENT_ID = lazy_regex(r"[A-Za-z0-9_-]{1,64}")  # becomes part of a file name
#: How Claude Code's result of a call the person turned down opens (``events.TURNED_DOWN``).
TURNED_DOWN_OPENING = "The user doesn't want to proceed"


def read(path: str, start_offset: int = 0, subagent_offsets: Mapping[str, int] | None = None,
         include_subagents: bool = True) -> Transcript:
    """Read the session file from ``start_offset`` and its subagent files from theirs."""
    builder = TranscriptBuilder(path, AGENT, start_offset)
    end_offset, end_line = _FileReader(builder, path).run(start_offset)
    offsets = _read_subagents(builder, path, subagent_offsets or {}) if include_subagents else {}
    builder.remember(session_id=Path(path).stem)
    return builder.build(end_offset, end_line, offsets)


def subagent_files(path: str) -> list[Path]:
    folder = Path(path).with_suffix("") / "subagents"
    return sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []


def _read_subagents(builder: TranscriptBuilder, path: str,
                    known: Mapping[str, int]) -> dict[str, int]:
    """A broken subagent file costs a warning, not the parent's capture."""
    offsets: dict[str, int] = {}
    for child in subagent_files(path):
        agent_id = child.stem.removeprefix("agent-")
        start = known.get(str(child), 0)
        try:
            offsets[str(child)], _ = _FileReader(builder, str(child), agent_id).run(start)
        except ClaimgraphError as exc:
            builder.warn(str(child), 0, f"subagent transcript skipped: {exc.message}",
                         "subagent_error")
            offsets[str(child)] = start
    return offsets


class _FileReader:
    """State of one file's pass: merged assistant messages and an open compaction."""

    def __init__(self, builder: TranscriptBuilder, path: str, subagent_id: str | None = None):
        self.builder, self.path, self.subagent_id = builder, path, subagent_id
        self.harness_only = bool(subagent_id and subagent_id.startswith("acompact"))
        self.message_index: dict[str, int] = {}
        self.more_text: dict[int, list[str]] = {}
        self.open_compaction: int | None = None
        self.shared: dict[str, str] = {}
        self.queue: list[str] = []  # enqueued texts not yet taken, oldest first
        self.queued_read: set[str] = set()  # mid-turn messages already emitted as prompts
        self.last_envelope: tuple[tuple[Any, ...], dict[str, str | None]] = ((), {})
        self.handlers = {"user": self.on_user, "assistant": self.on_assistant,
                         "system": self.on_system, "attachment": self.on_attachment,
                         "queue-operation": self.on_queue}

    def run(self, start_offset: int) -> tuple[int, int]:
        try:
            return read_jsonl(self.path, self.builder, start_offset, self.on_record,
                              unread_types=UNREAD_TYPES)
        finally:
            self.join_texts()

    def join_texts(self) -> None:
        """Each merged message's text, joined once."""
        for index, parts in self.more_text.items():
            self.builder.amend(index, text="\n\n".join([self.builder.events[index].text, *parts]))
        self.more_text.clear()

    def on_record(self, line: int, record: dict[str, Any]) -> None:
        kind = text_or_none(record.get("type"))
        handler = self.handlers.get(kind or "")
        if handler:
            handler(line, record)
        else:
            self.builder.counts["skipped_noise" if kind in NOISE_TYPES else "skipped_unknown"] += 1

    def event(self, kind: str, line: int, record: dict[str, Any], **fields: Any) -> Event:
        """An event carrying the record's envelope (session, cwd, branch, version, time).
        Every line repeats the envelope: its strings are shared, not kept once per event, and
        an envelope like the last one is neither rebuilt nor remembered again (remembering the
        same values twice changes nothing)."""
        raw = (record.get("sessionId"), record.get("cwd"), record.get("gitBranch"),
               record.get("version"))
        if raw != self.last_envelope[0]:
            envelope = {"session_id": self.one_copy(raw[0]), "cwd": self.one_copy(raw[1]),
                        "git_branch": self.one_copy(raw[2]),
                        "agent_version": self.one_copy(raw[3])}
            if self.subagent_id is None:
                self.builder.remember(**envelope)
            self.last_envelope = (raw, envelope)
        envelope = self.last_envelope[1]
        fields["derived"] = fields.get("derived", False) or self.harness_only
        return Event(kind=kind, agent=AGENT, source_file=self.path, line=line,
                     timestamp=iso_to_ms(record.get("timestamp")), **envelope,
                     is_sidechain=record.get("isSidechain") is True,
                     subagent_id=text_or_none(record.get("agentId")) or self.subagent_id,
                     **fields)

    def one_copy(self, value: Any) -> str | None:
        text = text_or_none(value)
        return None if text is None else self.shared.setdefault(text, text)

    def on_assistant(self, line: int, record: dict[str, Any]) -> None:
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        synthetic = message.get("model") == "<synthetic>"
        message_id = text_or_none(message.get("id"))
        for block in _blocks(message.get("content")):
            text = (text_or_none(block.get("text")) or "").strip()
            if block.get("type") == "text" and text:
                self.add_text(line, record, message_id, text, synthetic)
            elif block.get("type") == "tool_use":
                tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
                self.builder.add(self.event(
                    "tool_call", line, record, tool_name=text_or_none(block.get("name")),
                    tool_input=tool_input, call_id=text_or_none(block.get("id")),
                    record_id=message_id))

    def add_text(self, line: int, record: dict[str, Any], message_id: str | None, text: str,
                 synthetic: bool) -> None:
        index = self.message_index.get(message_id) if message_id else None
        if index is None:
            index = self.builder.add(self.event("assistant", line, record, text=text,
                                                record_id=message_id, derived=synthetic))
            if message_id:
                self.message_index[message_id] = index
        else:
            self.more_text.setdefault(index, []).append(text)

    def on_user(self, line: int, record: dict[str, Any]) -> None:
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        content = message.get("content")
        if record.get("isCompactSummary") is True:
            self.add_compaction(line, record, _text_of(content))
            return
        results = [b for b in _blocks(content) if b.get("type") == "tool_result"]
        outcome = record.get("toolUseResult") if len(results) == 1 else None
        for block in results:
            self.add_tool_result(line, record, block, outcome)
        text = content if isinstance(content, str) else _text_of(
            [b for b in _blocks(content) if b.get("type") == "text"])
        if text.strip():
            meta = record.get("isMeta") is True or _harness_message(record)
            self.add_user_text(line, record, text, meta)

    def add_user_text(self, line: int, record: dict[str, Any], text: str, meta: bool) -> None:
        """A ``prompt`` of what the person typed, without the harness's envelopes around it
        (``envelope.typed_text``); a derived ``meta`` event, text whole, when the harness wrote
        it all."""
        typed = "" if meta or text.lstrip().startswith(META_PREFIXES) else typed_text(text)
        meta = not typed.strip()
        self.builder.add(self.event("meta" if meta else "prompt", line, record,
                                    text=text if meta else typed,
                                    record_id=text_or_none(record.get("uuid")), derived=meta))

    def on_attachment(self, line: int, record: dict[str, Any]) -> None:
        attachment = record.get("attachment")
        text = _queued_prompt(attachment) if isinstance(attachment, dict) else None
        observed = observed_file(attachment) if isinstance(attachment, dict) else None
        if observed is not None:  # a file's lines as the harness saw them (harness_files.py)
            self.builder.add(self.event("observed", line, record, text=observed[0],
                                        derived=True, extras=observed[1],
                                        record_id=text_or_none(record.get("uuid"))))
        elif text is None:
            self.builder.counts["skipped_noise"] += 1
        else:
            self.add_queued(line, record, text)

    def on_queue(self, line: int, record: dict[str, Any]) -> None:
        """Keep the queue's order; a message taken mid-turn (``remove``) is the person's."""
        self.builder.counts["skipped_noise"] += 1
        operation, content = record.get("operation"), record.get("content")
        if operation == "enqueue":
            self.queue.append(content if isinstance(content, str) else "")
        elif operation == "popAll":
            self.queue.clear()  # taken back into the input box to edit: not sent
        elif operation in ("dequeue", "remove") and self.queue:
            text = content if isinstance(content, str) and content in self.queue \
                else self.taken(operation)
            self.queue.remove(text)
            if operation == "remove" and _typed_by_a_person(text):
                self.add_queued(line, record, text)

    def taken(self, operation: str) -> str:
        """The message a content-less ``dequeue`` or ``remove`` took: the oldest queued one;
        for a ``remove`` (read mid-turn), the oldest one a person typed, when there is one. A
        task notification can reach the agent without leaving the queue (its ``enqueue`` has
        no ``remove``): oldest first, it would take the place of the person's next message,
        whose words would then be lost."""
        if operation == "remove":
            return next((text for text in self.queue if _typed_by_a_person(text)
                         and not text.lstrip().startswith(META_PREFIXES)), self.queue[0])
        return self.queue[0]

    def add_queued(self, line: int, record: dict[str, Any], text: str) -> None:
        """One prompt per queued message, whichever of its two traces comes first."""
        if text.strip() in self.queued_read:
            return
        self.queued_read.add(text.strip())
        self.add_user_text(line, record, text, meta=False)

    def add_tool_result(self, line: int, record: dict[str, Any], block: dict[str, Any],
                        outcome: Any) -> None:
        call_id = text_or_none(block.get("tool_use_id"))
        text = _text_of(block.get("content"))
        extras = _result_extras(outcome)
        if text.lstrip().startswith(TURNED_DOWN_OPENING):
            extras[TURNED_DOWN] = True  # the person's answer, not the tool's verdict
        self.builder.add(self.event(
            "tool_result", line, record, text=text, call_id=call_id,
            is_error=block.get("is_error") is True, record_id=text_or_none(record.get("uuid")),
            extras=extras))
        agent_id = text_or_none(outcome.get("agentId")) if isinstance(outcome, dict) else None
        if agent_id and _AGENT_ID.fullmatch(agent_id):
            self.add_subagent_link(line, record, call_id, outcome)

    def add_subagent_link(self, line: int, record: dict[str, Any], call_id: str | None,
                          outcome: dict[str, Any]) -> None:
        agent_id = outcome["agentId"]
        child = Path(self.path).with_suffix("") / "subagents" / f"agent-{agent_id}.jsonl"
        link = {"agent_id": agent_id, "status": text_or_none(outcome.get("status")),
                "transcript": str(child) if child.is_file() else None}
        self.builder.add(self.event("subagent", line, record, call_id=call_id,
                                    text=text_or_none(outcome.get("prompt")) or "", extras=link))

    def on_system(self, line: int, record: dict[str, Any]) -> None:
        subtype, uuid = record.get("subtype"), text_or_none(record.get("uuid"))
        if subtype == "compact_boundary":
            metadata = record.get("compactMetadata")
            trigger = text_or_none(metadata.get("trigger")) if isinstance(metadata, dict) else None
            self.open_compaction = self.builder.add(self.event(
                "compaction", line, record, derived=True, record_id=uuid,
                extras={"trigger": trigger, "boundary_line": line}))
        elif subtype == "local_command" and isinstance(record.get("content"), str):
            self.builder.add(self.event("meta", line, record, text=record["content"], derived=True,
                                        record_id=uuid))
        else:
            self.builder.counts["skipped_noise"] += 1

    def add_compaction(self, line: int, record: dict[str, Any], summary: str) -> None:
        """The summary completes the boundary's event: one compaction, not two."""
        if self.open_compaction is None:
            self.builder.add(self.event("compaction", line, record, text=summary, derived=True,
                                        record_id=text_or_none(record.get("uuid"))))
            return
        event = self.builder.events[self.open_compaction]
        self.builder.amend(self.open_compaction, text=summary, line=line,
                           extras={**event.extras, "summary_line": line})
        self.open_compaction = None


def _harness_message(record: dict[str, Any]) -> bool:
    """A user record the harness composed whole: a plan accepted with the context cleared
    (``planContent``) starts the new context with "Implement the following plan:" and the
    agent's own plan. The person clicked; they typed none of it."""
    plan = record.get("planContent")
    return isinstance(plan, str) and bool(plan.strip())


def _queued_prompt(attachment: dict[str, Any]) -> str | None:
    """The text of a message the person queued while the agent worked, else None."""
    if attachment.get("type") != "queued_command" or attachment.get("commandMode") != "prompt":
        return None
    origin = attachment.get("origin")
    if origin is not None and not (isinstance(origin, dict) and origin.get("kind") == "human"):
        return None
    text = _text_of(attachment.get("prompt"))
    return text if text.strip() else None


def _typed_by_a_person(text: str) -> bool:
    """Queued text that is not a task notification's JSON payload or a slash command (harness
    wrappers are told apart where every queued message is: ``add_queued``)."""
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith(("{", "/"))


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text_of(content: Any) -> str:
    """A string, or the text blocks of a block list joined; images and the like are dropped."""
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in _blocks(content)
                     if b.get("type") == "text" and isinstance(b.get("text"), str))


def _result_extras(outcome: Any) -> dict[str, Any]:
    """The structured side of a tool result: Write's file, Bash's streams, an exit code."""
    if isinstance(outcome, str):
        match = _EXIT_CODE.match(outcome)
        return {"exit_code": int(match[1])} if match else {}
    if not isinstance(outcome, dict):
        return {}
    extras = scalar_fields(outcome, RESULT_FIELDS)
    file_info = outcome.get("file")
    if isinstance(file_info, dict) and isinstance(file_info.get("filePath"), str):
        extras.setdefault("filePath", file_info["filePath"])
    return extras
