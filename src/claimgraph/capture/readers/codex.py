"""OpenAI Codex CLI rollouts (``rollout-<ts>-<uuid>.jsonl``) as normalized events.

Lines are ``{timestamp, type, payload}`` (0.169+ add ``ordinal`` and ``metadata``, which say
nothing a capture needs). ``session_meta`` gives the session (id, cwd, cli_version, git branch
and repository); ``turn_context`` updates the cwd. ``response_item`` carries the conversation:
``message`` (user/assistant), ``function_call`` and ``function_call_output``, and
``custom_tool_call`` (0.171's ``apply_patch``, whose input is the patch text) with its
``custom_tool_call_output``; ``local_shell_call`` likewise; ``reasoning`` is thinking, dropped.
``compacted`` is a context summary. ``world_state`` (the harness's instructions and tools),
``token_usage_record`` and the bookkeeping ``event_msg`` subtypes (task_started,
thread_settings_applied, token_count, task_complete) are counted as noise.

Exit codes, in every shape seen: a JSON output with ``metadata.exit_code`` (0.40), a plain
text output whose header says ``Exit code: N`` (apply_patch) or ``Process exited with code N``
(0.171's exec_command), and the ``item_completed`` CommandExecution event's ``exit_code``
(0.171, written just before the output). A non-zero code is a tool error; a plain
"execution error: …" output means the command never ran, also an error. An output may also
be a list of text blocks (joined).

A command's output with no exit code is never a pass (``_codeless_verdict``): the older
sandbox's "failed in sandbox …, exit code: N" gives the code; the harness's words that the
call failed ("failed in sandbox: <stderr>", "error: …" and "apply_patch verification failed"
from apply_patch, "exec_command failed for …", "write_stdin failed: …") make it an error;
a call cut short or turned down ("… command timed out", "exec command rejected by user",
"aborted by user after 9s", "approval policy is Never; reject command") and any other output
get no verdict, like a ``write_stdin`` poll that finds its process still running. A call the
person turned down at the approval prompt ("exec command rejected by user", "patch rejected by
user", with no exit code) is marked ``events.TURNED_DOWN``, as Claude Code's reader marks its
refusals: the person's answer, read as theirs (docs/capture.md, "Corrections"), never the
command's result -- not even when an exit code for that call arrives later.

Code mode (codex_script.py): an ``exec`` call's input is a JavaScript program. One that only
calls one known tool with literal arguments is read as that call; its output's status header
decides the error, and a command run from a script, whose exit code the script does not
print, gets no verdict (``extras["no_verdict"]``). A ``wait`` call's output for a script still
running completes that script's result. Likewise an ``exec_command`` whose output says
``Process running with session ID N`` has no verdict until a ``write_stdin`` to that process
returns ``Process exited with code N``, which becomes the command's exit code.

Deduplication: a visible message is written twice, as a ``response_item`` and as an echo
(``event_msg`` user_message/agent_message up to 0.4x, ``item_completed`` UserMessage /
AgentMessage in 0.171), in either order. Echoes are paired with items by (role, text) -- each
item cancels one echo, so a message the user really sends twice is kept twice -- and the
``response_item`` is the one kept. The two copies of a typed message are not always alike:
the item may wrap the typed text (an attached image's or file's markup) or one copy may be
cut short; an echo still unpaired at the end is paired with an unpaired prompt item written
beside it when one text holds the other, and the longer copy is kept
(``pair_rewritten_echoes``). An echo that never meets its item is kept. A capture pass
that ends between the two copies hands the open one to the next pass (``resume``,
codex_cut.py), whose first record pairs with it when it is the other copy.

User text that is the harness's, not the person's (``<environment_context>``,
``<user_instructions>``, a skill's whole SKILL.md in ``<skill>``, developer/system roles -- our
own SessionStart context arrives as a developer message), becomes a derived ``meta`` event: a
skill's rules are its author's, never "you said".
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter, defaultdict
from typing import Any, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import (
    TURNED_DOWN, Event, Transcript, TranscriptBuilder, iso_to_ms, scalar_fields, text_or_none)
from claimgraph.capture.readers import MAX_LINE_BYTES, open_transcript, read_jsonl
from claimgraph.capture.readers import codex_script
from claimgraph.capture.readers.codex_cut import (
    ECHO, ECHO_GAP_MS, ITEM, OpenCopy, carried, open_copy, resume_state)

AGENT = "codex"
INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
                     "<turn_aborted>", "<user_shell_command>", "<skill>")
_ECHO_ROLES = {"user_message": "user", "agent_message": "assistant",
               "UserMessage": "user", "AgentMessage": "assistant"}
#: The exit line of a plain-text output, within its short header (not in the command's output).
_EXIT_LINE = lazy_regex(r"^(?:Exit code:|Process exited with code) (-?\d+)(?=\s|$)", re.MULTILINE)
_HEADER_CHARS = 400
NOISE_TYPES = frozenset({"world_state", "token_usage_record"})
SCRIPT_TOOL, WAIT_TOOL = "exec", "wait"
COMMAND_TOOL, POLL_TOOL = "exec_command", "write_stdin"
#: exec_command's header when the command outlived the call (``write_stdin`` polls it later).
_RUNNING = lazy_regex(r"^Process running with session ID (\d+)", re.MULTILINE)
#: Tools that run a command or change files: their output is a pass only when it says so (an
#: exit code); without one, the output's own first words decide (``_codeless_verdict``).
COMMAND_TOOLS = frozenset({"shell", "shell_command", "local_shell", "exec_command", "write_stdin",
                           "apply_patch"})
#: The older sandbox's plain-text report of a command that failed, sometimes with its code:
#: "failed in sandbox <Sandbox> with execution error: …, exit code: N, stdout: …".
_SANDBOX_EXIT = lazy_regex(r"^failed in sandbox\b.{0,200}?\bexit code: (-?\d+)", re.DOTALL)
#: The harness's own words for a call that ran and failed, in place of a command's output:
#: "failed in sandbox: <stderr>", "execution error: …" (never ran), "error: …" (the older
#: apply_patch), "apply_patch verification failed: …", "exec_command failed for `…`: …".
_FAILED_HEAD = lazy_regex(r"^(?:failed in sandbox\b|execution error:|error:|"
                          r"apply_patch verification failed\b|\w+ failed\b)")
#: … and for a call that was cut short or turned down, which says nothing of the command:
#: "…: command timed out", "exec command rejected by user", "aborted by user after 9s",
#: "approval policy is Never; reject command", "… rejected: blocked by policy".
_NOT_RUN_HEAD = lazy_regex(r"\btimed out\b|\brejected?\b|^aborted\b", re.IGNORECASE)
#: … of which the person turning the call down at the approval prompt, the harness's words in
#: place of any output: "exec command rejected by user", "patch rejected by user".
_REJECTED_BY_USER = lazy_regex(r"^[\w-]+(?: [\w-]+)? rejected by (?:the )?user\b", re.IGNORECASE)


def read(path: str, start_offset: int = 0, resume: Mapping[str, Any] | None = None) -> Transcript:
    """``resume``: the ``Transcript.resume`` of the read that stopped at ``start_offset``
    (a message copy it left open: codex_cut.py)."""
    reader = _RolloutReader(TranscriptBuilder(path, AGENT, start_offset), path,
                            carried(resume, start_offset))
    if start_offset:
        reader.on_header(_first_line(path))
    end_offset, end_line = read_jsonl(path, reader.builder, start_offset, reader.on_record)
    return reader.finish(end_offset, end_line)


class _RolloutReader:
    def __init__(self, builder: TranscriptBuilder, path: str,
                 carried_copy: OpenCopy | None = None) -> None:
        self.builder, self.path = builder, path
        self.carried = carried_copy  # the copy the last pass left open, until a record comes
        #: The last message or tool record, when it is a copy still unpaired: the copy, its
        #: key, and its event's index (an item; and whether it was a prompt) or event (an echo).
        self.tail: tuple[OpenCopy, tuple[str, str], int | Event, bool] | None = None
        self.envelope: dict[str, Any] = {}
        self.waiting_echoes: dict[tuple[str, str], list[Event]] = defaultdict(list)
        self.unechoed_items: Counter[tuple[str, str]] = Counter()
        self.unechoed_prompts: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.user_echoes: list[str] = []  # what the person typed, as the echoes give it
        self.exit_codes: dict[str, int] = {}  # call id -> code, from item_completed
        self.results: dict[str, int] = {}  # call id -> index of its tool_result event
        self.scripts: dict[str, str] = {}  # code-mode call id -> the tool it was read as
        self.waits: dict[str, str] = {}  # wait call id -> the cell it waits for
        self.cells: dict[str, tuple[int, str]] = {}  # running cell -> (result index, tool)
        self.commands: set[str] = set()  # exec_command call ids (their output may say running)
        self.polls: dict[str, str] = {}  # write_stdin call id -> the process session it reads
        self.running: dict[str, int] = {}  # running process session -> its command's result
        self.tools: dict[str, str] = {}  # call id -> the tool it called

    def on_record(self, line: int, record: dict[str, Any]) -> None:
        kind = text_or_none(record.get("type")) or ""
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else None
        if payload is None:
            self.on_legacy(line, record)
            return
        stamp = iso_to_ms(record.get("timestamp"))
        handler = {"session_meta": self.on_session_meta, "turn_context": self.on_turn_context,
                   "response_item": self.on_item, "event_msg": self.on_event_msg,
                   "compacted": self.on_compacted}.get(kind)
        if handler:
            handler(line, stamp, payload)
        else:
            self.builder.counts["skipped_noise" if kind in NOISE_TYPES else "skipped_unknown"] += 1

    def on_header(self, header: Any) -> None:
        """A read from an offset still needs the session: it lives on the first line."""
        if isinstance(header, dict) and isinstance(header.get("payload"), dict) \
                and header.get("type") == "session_meta":
            self.on_session_meta(1, None, header["payload"])

    def on_legacy(self, line: int, record: dict[str, Any]) -> None:
        """Rollouts before 0.2x: a bare session header, then bare response items."""
        if "instructions" in record and "id" in record:
            self.on_session_meta(line, None, record)
        elif text_or_none(record.get("type")) not in (None, "state"):
            self.on_item(line, iso_to_ms(record.get("timestamp")), record)
        else:
            self.builder.counts["skipped_unknown"] += 1

    def event(self, kind: str, line: int, stamp: int | None, **fields: Any) -> Event:
        return Event(kind=kind, agent=AGENT, source_file=self.path, line=line, timestamp=stamp,
                     **self.envelope, **fields)

    def on_session_meta(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        git = payload.get("git") if isinstance(payload.get("git"), dict) else {}
        self.envelope = {"session_id": text_or_none(payload.get("id")),
                         "cwd": text_or_none(payload.get("cwd")),
                         "git_branch": text_or_none(git.get("branch")),
                         "agent_version": text_or_none(payload.get("cli_version"))}
        self.builder.remember(**self.envelope,
                              repository_url=text_or_none(git.get("repository_url")))

    def on_turn_context(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        if isinstance(payload.get("cwd"), str):
            self.envelope["cwd"] = payload["cwd"]
            self.builder.remember(cwd=payload["cwd"])

    def on_item(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        kind = text_or_none(payload.get("type"))
        if kind == "message":
            self.on_message(line, stamp, payload)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            self.interrupt()
            self.builder.add(self.tool_call(line, stamp, payload))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.interrupt()
            call_id = text_or_none(payload.get("call_id"))
            if call_id in self.waits:
                self.on_wait_output(self.waits.pop(call_id), payload.get("output"))
            index = self.builder.add(self.tool_result(line, stamp, payload))
            if call_id:
                self.results[call_id] = index
            if call_id in self.scripts:
                self.on_script_output(index, self.scripts.pop(call_id))
            elif call_id in self.commands:
                self.commands.discard(call_id)
                self.on_command_output(index)
            elif call_id in self.polls:
                self.on_poll_output(self.polls.pop(call_id), index)
        else:
            self.builder.counts["skipped_noise"] += 1

    def on_message(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        role = text_or_none(payload.get("role")) or "unknown"
        content = payload.get("content") if isinstance(payload.get("content"), list) else []
        text = "\n".join(block["text"] for block in content
                         if isinstance(block, dict) and isinstance(block.get("text"), str))
        if not text.strip():
            return
        key = (role, text.strip())
        if self.across_cut(key, ITEM, stamp):
            return
        paired = bool(self.waiting_echoes[key])
        if paired:
            self.waiting_echoes[key].pop(0)
            self.builder.counts["duplicates"] += 1
        else:
            self.unechoed_items[key] += 1
        event = self.message_event(role, text, line, stamp)
        index = self.builder.add(event)
        if event.kind == "prompt" and not paired:
            self.unechoed_prompts[key].append(index)
        self.tail = None if paired else (open_copy(role, key[1], ITEM, stamp), key, index,
                                         event.kind == "prompt")

    def on_event_msg(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        kind = text_or_none(payload.get("type")) or ""
        if kind == "item_completed" and isinstance(payload.get("item"), dict):
            self.on_item_completed(line, stamp, payload["item"])
            return
        self.on_echo(line, stamp, _ECHO_ROLES.get(kind), payload.get("message"))

    def on_item_completed(self, line: int, stamp: int | None, item: dict[str, Any]) -> None:
        """0.171's item events: messages are echoes; a command's exit code completes its
        output (whichever of the two is written first)."""
        kind = text_or_none(item.get("type")) or ""
        if kind in _ECHO_ROLES:
            self.on_echo(line, stamp, _ECHO_ROLES[kind], _item_text(item.get("content")))
            return
        self.builder.counts["skipped_noise"] += 1
        call_id, code = text_or_none(item.get("id")), item.get("exit_code")
        if kind != "CommandExecution" or not call_id or not isinstance(code, int) \
                or isinstance(code, bool):
            return
        index = self.results.get(call_id)
        if index is None:
            self.exit_codes[call_id] = code
        elif "exit_code" not in self.builder.events[index].extras \
                and not self.builder.events[index].turned_down:
            result = self.builder.events[index]
            kept = {k: v for k, v in result.extras.items() if k != "no_verdict"}
            self.builder.amend(index, is_error=result.is_error or code != 0,
                               extras={**kept, "exit_code": code})

    def on_echo(self, line: int, stamp: int | None, role: str | None, text: Any) -> None:
        if role is None or not isinstance(text, str) or not text.strip():
            self.builder.counts["skipped_noise"] += 1
            return
        key = (role, text.strip())
        if role == "user":
            self.user_echoes.append(text.strip())
        if self.across_cut(key, ECHO, stamp):
            return
        if self.unechoed_items[key]:
            self.unechoed_items[key] -= 1
            if self.unechoed_prompts[key]:
                self.unechoed_prompts[key].pop(0)
            self.builder.counts["duplicates"] += 1
            self.tail = None
        else:
            echo = self.message_event(role, text, line, stamp)
            self.waiting_echoes[key].append(echo)
            self.tail = (open_copy(role, key[1], ECHO, stamp), key, echo, False)

    def across_cut(self, key: tuple[str, str], copy: str, stamp: int | None) -> bool:
        """Whether this copy is the other half of the message the last pass ended on, read
        there already (codex_cut.py). Only the pass's first message or tool record may be."""
        left, self.carried = self.carried, None
        if left is None or not left.read or not left.pairs_with(*key, copy, stamp):
            return False
        self.builder.counts["duplicates"] += 1
        return True

    def interrupt(self) -> None:
        """A record that is no message copy: nothing before it pairs with anything after."""
        self.carried = self.tail = None

    def on_compacted(self, line: int, stamp: int | None, payload: dict[str, Any]) -> None:
        self.interrupt()
        self.builder.add(self.event("compaction", line, stamp, derived=True,
                                    text=text_or_none(payload.get("message")) or ""))

    def message_event(self, role: str, text: str, line: int, stamp: int | None) -> Event:
        if role == "assistant":
            return self.event("assistant", line, stamp, text=text)
        injected = role != "user" or text.lstrip().startswith(INJECTED_PREFIXES)
        return self.event("meta" if injected else "prompt", line, stamp, text=text,
                          derived=injected)

    def tool_result(self, line: int, stamp: int | None, payload: dict[str, Any]) -> Event:
        text, extras = _parse_output(payload.get("output"))
        call_id = text_or_none(payload.get("call_id"))
        if "exit_code" not in extras and call_id in self.exit_codes:
            extras["exit_code"] = self.exit_codes.pop(call_id)
        code = extras.get("exit_code")
        if not isinstance(code, int) and _REJECTED_BY_USER.match(text.lstrip()[:_HEADER_CHARS]):
            # the person said no: not the command's verdict (events.TURNED_DOWN)
            return self.event("tool_result", line, stamp, call_id=call_id, text=text,
                              extras={**extras, "no_verdict": True, TURNED_DOWN: True})
        failed = (isinstance(code, int) and code != 0) or extras.get("success") is False
        if not isinstance(code, int) and "success" not in extras and call_id not in self.scripts \
                and self.tools.get(call_id or "") in COMMAND_TOOLS:
            failed, extras = _codeless_verdict(text, extras)
        return self.event("tool_result", line, stamp, call_id=call_id, text=text,
                          is_error=failed, extras=extras)

    def tool_call(self, line: int, stamp: int | None, payload: dict[str, Any]) -> Event:
        """A call as the tool it is: a code-mode script that only makes one tool call is read
        as that call (codex_script.py)."""
        call_id = text_or_none(payload.get("call_id"))
        name, tool_input = _tool_name(payload), _tool_input(payload)
        extras: dict[str, Any] = {}
        if name == SCRIPT_TOOL and call_id:
            inner = codex_script.unwrap(tool_input.get("raw"))
            if inner is not None:
                name, tool_input = inner
                extras["script"] = True
            self.scripts[call_id] = name
        elif name == WAIT_TOOL and call_id and isinstance(tool_input.get("cell_id"), (str, int)):
            self.waits[call_id] = str(tool_input["cell_id"])
        elif name == COMMAND_TOOL and call_id:
            self.commands.add(call_id)
        elif name == POLL_TOOL and call_id and isinstance(tool_input.get("session_id"), (str, int)):
            self.polls[call_id] = str(tool_input["session_id"])
        if call_id:
            self.tools[call_id] = name
        return self.event("tool_call", line, stamp, call_id=call_id, tool_name=name,
                          tool_input=tool_input, extras=extras)

    def on_command_output(self, index: int) -> None:
        """A command still running when its call returned has no verdict yet: the
        ``write_stdin`` output that says how its process exited gives it one."""
        result = self.builder.events[index]
        running = _RUNNING.search(result.text, 0, _HEADER_CHARS)
        if running is None or "exit_code" in result.extras:
            return
        self.running[running[1]] = index
        self.builder.amend(index, extras={**result.extras, "no_verdict": True})

    def on_poll_output(self, process: str, poll: int) -> None:
        index = self.running.get(process)
        code = self.builder.events[poll].extras.get("exit_code")
        if index is None or not isinstance(code, int):
            return
        del self.running[process]
        result = self.builder.events[index]
        kept = {k: v for k, v in result.extras.items() if k != "no_verdict"}
        self.builder.amend(index, is_error=result.is_error or code != 0,
                           extras={**kept, "exit_code": code})

    def on_script_output(self, index: int, tool: str) -> None:
        """A script's status header decides its call's error and verdict; a script still
        running waits for its cell's ``wait`` output."""
        result = self.builder.events[index]
        status, cell = codex_script.script_status(result.text)
        if status is None:  # no status header ("aborted by user after 9s"): the harness's words
            if "exit_code" in result.extras or "success" in result.extras:
                return
            failed, extras = _codeless_verdict(result.text, result.extras)
            self.builder.amend(index, is_error=result.is_error or failed, extras=extras)
            return
        if cell is not None:
            self.cells[cell] = (index, tool)
        self.settle(index, tool, status, codex_script.script_output(result.text))

    def on_wait_output(self, cell: str, output: Any) -> None:
        """What a ``wait`` returned completes the running script's result."""
        if cell not in self.cells:
            return
        index, tool = self.cells[cell]
        text = codex_script.output_text(output)
        text = output if text is None and isinstance(output, str) else text or ""
        status, _ = codex_script.script_status(text)
        if status is None:
            return
        if status != "running":
            del self.cells[cell]
        self.settle(index, tool, status,
                    self.builder.events[index].text + codex_script.script_output(text))

    def settle(self, index: int, tool: str, status: str, text: str) -> None:
        result = self.builder.events[index]
        shown, extras = _parse_output(text)
        code = extras.get("exit_code") if tool != SCRIPT_TOOL else None
        failed = status == "failed" or (isinstance(code, int) and code != 0)
        known = failed or isinstance(code, int) or (status == "completed"
                                                     and tool not in _NO_EXIT_CODE)
        kept = {k: v for k, v in result.extras.items() if k not in ("no_verdict", "exit_code")}
        self.builder.amend(index, text=shown, is_error=failed, extras={
            **kept, "script_status": status, **({"exit_code": code} if isinstance(code, int)
                                                 else {}),
            **({} if known else {"no_verdict": True})})

    def finish(self, end_offset: int, end_line: int) -> Transcript:
        """Echoes that never met their item are real messages: put them back in line order.
        A user item no echo matched is the harness's, not the person's, once the rollout
        writes echoes at all (``unechoed_is_harness``)."""
        self.pair_rewritten_echoes()
        if self.user_echoes:
            for indices in self.unechoed_prompts.values():
                for index in indices:
                    if unechoed_is_harness(self.builder.events[index].text, self.user_echoes):
                        self.builder.amend(index, kind="meta", derived=True)
        left_open = self.left_open()
        for echoes in self.waiting_echoes.values():
            for event in echoes:
                self.builder.add(event)
        self.builder.sort_by_line()
        return self.builder.build(end_offset, end_line,
                                  resume=resume_state(left_open, end_offset))

    def left_open(self) -> OpenCopy | None:
        """The copy this pass ends on, still unpaired, for the next pass (codex_cut.py): a
        prompt item the harness rule took for the harness's is marked not read. A pass that
        read no message or tool record hands on the copy it was given."""
        if self.tail is None:
            return self.carried
        copy, key, where, prompt = self.tail
        if isinstance(where, Event):
            still = any(echo is where for echo in self.waiting_echoes.get(key, ()))
            return copy if still else None
        if not prompt:
            return copy
        if where not in self.unechoed_prompts.get(key, ()):
            return None  # paired at the end with an echo that wraps or cuts it
        read = self.builder.events[where].kind == "prompt"
        return copy if read else dataclasses.replace(copy, read=False)

    def pair_rewritten_echoes(self) -> None:
        """A typed message whose echo is not word for word its item is still one message:
        the item wraps what the person typed (an attached file's or image's markup around
        it) or one copy is cut short. An echo left unpaired is paired with an unpaired
        prompt item written beside it (no other message or tool call between them, seconds
        apart) when one text holds the other (``same_message``); the longer copy is kept,
        with its own line, and the other is counted as a duplicate. Two messages the
        person really sent alike are each paired word for word as they are read, so never
        reach this."""
        for key, echoes in self.waiting_echoes.items():
            if key[0] != "user":
                continue
            for echo in list(echoes):
                match = self.rewritten_item(key[1], echo)
                if match is None:
                    continue
                item_key, index = match
                self.unechoed_prompts[item_key].remove(index)
                echoes.remove(echo)
                self.builder.counts["duplicates"] += 1
                if len(key[1]) > len(item_key[1]):  # the item was cut short: the echo is whole
                    self.builder.amend(index, text=echo.text, line=echo.line,
                                       timestamp=echo.timestamp)

    def rewritten_item(self, typed: str, echo: Event) -> tuple[tuple[str, str], int] | None:
        """The unpaired prompt item beside ``echo`` that is the same message, if any."""
        for key, indices in self.unechoed_prompts.items():
            for index in indices:
                item = self.builder.events[index]
                if key[0] == "user" and same_message(key[1], typed) \
                        and self.beside(item, echo):
                    return key, index
        return None

    def beside(self, item: Event, echo: Event) -> bool:
        """Written as one message: seconds apart, nothing said or run between them."""
        if item.timestamp is not None and echo.timestamp is not None \
                and abs(item.timestamp - echo.timestamp) > ECHO_GAP_MS:
            return False
        low, high = sorted((item.line, echo.line))
        return not any(low < event.line < high and event.kind in _CONVERSATION
                       for event in self.builder.events)


_CONVERSATION = frozenset({"prompt", "assistant", "tool_call", "tool_result"})
#: What a copy cut short may end with in place of the rest.
_CUT_MARKS = " \t\n.…"


def same_message(item: str, echo: str) -> bool:
    """Whether two copies of one typed message differ only by what the harness wrapped
    around one of them or cut off its end: one holds the other whole, or the shorter, less
    a trailing ellipsis, starts the longer. Both texts are stripped."""
    shorter, longer = sorted((item, echo), key=len)
    if not shorter:
        return False
    return shorter in longer or longer.startswith(shorter.rstrip(_CUT_MARKS) or shorter)


def unechoed_is_harness(text: str, echoes: list[str]) -> bool:
    """Whether a user-role item that no echo matched was put there by the harness. Codex
    echoes what the person sends (``event_msg`` user_message); what it injects itself --
    AGENTS.md, the environment, a warning about how the agent called a tool ("Use the
    apply_patch tool instead of exec_command") -- is written as an item only, in the person's
    role. An item that wraps what the person typed (attached files or images around the
    typed text) contains its echo, and stays theirs."""
    body = text.strip()
    return not any(echo and echo in body for echo in echoes)


#: Tools a script calls whose output, as the script prints it, carries no exit code.
_NO_EXIT_CODE = frozenset({"exec_command", "shell", "shell_command"})


def _codeless_verdict(text: str, extras: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """(failed, extras) for a command's output that carries no exit code: the sandbox's
    "exit code: N" is one; the harness's words that the call failed make it an error; words
    that it was cut short or turned down, and any other output, give no verdict -- nothing
    says the command passed, so it is never read as a pass."""
    head = text.lstrip()
    sandbox = _SANDBOX_EXIT.match(head)
    if sandbox:
        code = int(sandbox[1])
        return code != 0, {**extras, "exit_code": code}
    first = head[:_HEADER_CHARS].split("\n", 1)[0]
    if _FAILED_HEAD.match(head) and not _NOT_RUN_HEAD.search(first):
        return True, extras
    return False, {**extras, "no_verdict": True}


def _first_line(path: str) -> Any:
    with open_transcript(path) as handle:
        raw = handle.readline(MAX_LINE_BYTES)
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _tool_name(payload: dict[str, Any]) -> str:
    return text_or_none(payload.get("name")) or str(payload.get("type")).removesuffix("_call")


def _tool_input(payload: dict[str, Any]) -> dict[str, Any]:
    """Arguments arrive as a JSON string; one that is not JSON is kept verbatim."""
    raw = payload.get("arguments", payload.get("input", payload.get("action")))
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {"raw": raw}


def _parse_output(output: Any) -> tuple[str, dict[str, Any]]:
    """``{"output": …, "metadata": {"exit_code", "duration_seconds"}}`` or plain text."""
    blocks = codex_script.output_text(output)
    if blocks is not None:
        output = blocks
    if isinstance(output, dict):
        parsed: Any = output
    else:
        try:
            parsed = json.loads(output) if isinstance(output, str) else None
        except ValueError:
            parsed = None
    if not isinstance(parsed, dict) or not {"output", "metadata"} & parsed.keys():
        text = output if isinstance(output, str) else ""
        match = _EXIT_LINE.search(text, 0, _HEADER_CHARS)
        if match and text[:match.start()].count("\n") > 3:
            match = None  # a line of the command's own output, not the header's
        if text.startswith("execution error:"):
            return text, {"success": False}
        return text, ({"exit_code": int(match[1])} if match else {})
    metadata = parsed.get("metadata") if isinstance(parsed.get("metadata"), dict) else {}
    extras = scalar_fields(metadata, ("exit_code", "duration_seconds"))
    if isinstance(parsed.get("success"), bool):
        extras["success"] = parsed["success"]
    return text_or_none(parsed.get("output")) or "", extras


def _item_text(content: Any) -> str | None:
    """An item_completed message's text: ``[{type: text|Text, text}]`` joined."""
    if not isinstance(content, list):
        return None
    return "\n".join(part["text"] for part in content
                     if isinstance(part, dict) and isinstance(part.get("text"), str))
