"""The optional model extractor: a configured command reads the session and proposes facts.

Off by default: it runs only when the ``extractor`` setting names "model" (``enabled_in``). The
built-in extractor is the precise path; this one buys recall with tokens, so
(docs/model-calls.md):
- The prompt holds the output contract, the predicate vocabulary with definitions, the roster
  of known entities and the conversation: human prompts, assistant text, tool calls summarized
  in a line, tool output cut to a short excerpt; never derived, meta or subagent events. Text is
  cleaned again here (injected context stripped, secrets redacted) because it leaves the
  machine. The whole prompt is capped at ``max_input_chars``, keeping the most recent turns.
- The reply is untrusted text, parsed per line, leniently; whatever fails validation lands in
  ``rejected`` with a reason, never in memory. Only core predicates are accepted: letting a
  model coin x/* vocabulary on every pass would grow the registry with noise.
- Confidence is min(0.7, c or 0.6) and the source type is forced to session-log: the model is
  no better a witness than the transcript it read. Its class is kept as given.
- Evidence points back at the turn the model was shown where the object, else the subject,
  appears: ``transcript#L<line>: <quote>``, the line being where that turn starts in the
  transcript file. When neither appears (a paraphrased lesson), the evidence is
  ``model: <command>``: only the model vouches for it. Neither form names a file, so the audit
  reads them as "no file cited", not as unsupported claims.
- A candidate is valid from the time of the turn its evidence quotes (``valid_from``); one
  only the model vouches for gets the session's time from the capture pass.
- A failing command (missing, over budget, timing out, exiting non-zero, answering without a
  single JSON line) costs this pass its model candidates, never the capture: ``extract`` logs
  it, keeps it in ``error``, reports it to the capture pass (``capture.problems``: a warning
  in the report, ``capture.model-failed``/``capture.model-budget`` in capture.log, counted by
  ``status``) with a one-line hint, and returns [].
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence, Tuple
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture import problems
from claimgraph.capture.events import Event, Transcript
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.clean import clean_text
from claimgraph.logic.model import EPISTEMIC_STRENGTH
from claimgraph.logic.predicates import CORE_BY_ID, CORE_PREDICATES, object_shape
from claimgraph.model_command import (
    DEFAULT_PASS_INPUT_CHARS, LLM_CMD_HINT, Budget, Completion, UsageLog, command_argv,
    log_to_stdlib, run_model_command)

RULE = "model"
SOURCE_TYPE = "session-log"
CONFIDENCE_CEILING, CONFIDENCE_DEFAULT = 0.7, 0.6
DEFAULT_MAX_INPUT_CHARS = 60_000
MAX_CANDIDATES = 50
SUBJECT_MAX, OBJECT_MAX, TYPE_MAX = 200, 2000, 40
ROSTER_LIMIT, NAME_MAX = 200, 120
TOOL_CALL_CHARS, TOOL_RESULT_CHARS, ARG_CHARS = 300, 200, 120
#: Far past what is shown, so a secret cut in half here is never in the excerpt.
RESULT_SCAN_CHARS = 20 * TOOL_RESULT_CHARS
MIN_TRANSCRIPT_ROOM = 500
QUOTE_CHARS, MIN_NEEDLE = 200, 3
BLOB_KEYS = frozenset({"content", "new_string", "old_string", "edits", "new_source", "patch"})
PROSE_NOTE = " [object may be a full lesson, a sentence or three]"
OMITTED = "[… earlier turns omitted]"
SHOWN_KINDS = ("prompt", "assistant", "tool_call", "tool_result")
_CLOSING_TAG = lazy_regex(r"</\s*transcript\s*>", re.IGNORECASE)
INSTRUCTIONS = """\
You extract durable project knowledge from a coding-agent session, for a long-term memory.

Output JSON Lines only: one fact per line, no prose, no code fences. Each line is an object with \
the keys subject, predicate, object, object_kind ("entity" or "literal"), class ("observation", \
"preference" or "commitment"), confidence (0 to 1), scope ("project", or "user" for a person's \
own habits across projects).

Extract ONLY durable knowledge that will still be true and useful in a later session: \
decisions and their reasons, preferences, how the project is structured, built, tested and \
deployed, known failure modes and the lesson learned. Skip task progress, TODOs, ports, \
process ids, temporary paths and anything that merely happened once. Prefer fewer facts; when \
unsure, leave it out. Use stable names for subjects (the project, a module, a tool), never \
"it", "this" or "the user".

Allowed predicates:"""


class ModelExtractor:
    """One configured model command, its per-pass budget, and what its last run produced."""

    name = RULE

    def __init__(self, cmd: str | Sequence[str], timeout_ms: int, budget: Budget,
                 max_input_chars: int = DEFAULT_MAX_INPUT_CHARS, *,
                 environ: Mapping[str, str] | None = None, log: UsageLog = log_to_stdlib) -> None:
        self.cmd, self.timeout_ms, self.budget = cmd, timeout_ms, budget
        self.max_input_chars, self.environ, self.log = max_input_chars, environ, log
        self.error: dict[str, Any] | None = None
        self.rejected: list[dict[str, Any]] = []
        self.completion: Completion | None = None

    @classmethod
    def from_settings(cls, settings: Any, *, budget: Budget | None = None,
                      **options: Any) -> ModelExtractor:
        """llm_cmd, llm_timeout_ms and budget (calls) from Settings; input chars by default."""
        budget = budget or Budget(settings.value("budget"), DEFAULT_PASS_INPUT_CHARS)
        return cls(settings.value("llm_cmd"), settings.value("llm_timeout_ms"), budget, **options)

    @property
    def command_name(self) -> str:
        try:
            return os.path.basename(command_argv(self.cmd)[0])
        except ClaimgraphError:
            return RULE

    def extract(self, transcript: Transcript, *, project_root: str | None = None,
                roster: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Candidates from the model; [] (with ``error`` set, and the problem reported to the
        capture pass) when the command fails or its reply holds no JSON at all.

        ``project_root`` is accepted for the common interface only: the model sees no files,
        and its evidence cites the transcript, never a project path.
        """
        self.error, self.rejected, self.completion = None, [], None
        try:
            prompt, shown = build_prompt(transcript, roster, self.max_input_chars)
            if not shown:
                return []  # nothing the model could read: not worth a call
            self.completion = run_model_command(
                self.cmd, prompt, timeout_ms=self.timeout_ms, environ=self.environ,
                budget=self.budget, on_usage=self.log)
            candidates, self.rejected = read_candidates(self.completion.text, shown,
                                                        self.command_name)
            if not candidates and unparsable(self.completion.text, self.rejected):
                raise _unparsable_error(self.command_name, self.completion.text)
        except ClaimgraphError as exc:
            return self._failed(exc)
        self.log("extract.model.done", candidates=len(candidates), rejected=len(self.rejected))
        return candidates

    def _failed(self, exc: ClaimgraphError) -> list[dict[str, Any]]:
        """Recorded here, logged, and reported to the capture pass: never silent."""
        self.error = exc.to_dict()
        self.log("extract.model.failed", **self.error)
        budget = exc.type == "llm-budget-exhausted"
        problems.report("capture.model-budget" if budget else "capture.model-failed",
                        reason=exc.type, message=exc.message, hint=failure_hint(exc, self.cmd))
        return []

    __call__ = extract  # an instance is an ``Extractor`` for the EXTRACTORS registry


# --- failures -----------------------------------------------------------------------------

CLAUDE_INSTALL = "npm install -g @anthropic-ai/claude-code"
OFF_SWITCH = "or set extractor = \"builtin\" to capture without a model"
REPLY_EXCERPT_CHARS = 120


def failure_hint(exc: ClaimgraphError, cmd: str | Sequence[str]) -> str:
    """One line: what to install or set so the next pass gets its model facts."""
    if exc.type == "llm-command-missing":
        program = _program(cmd)
        install = (f"install Claude Code ({CLAUDE_INSTALL}) so `claude` is on PATH"
                   if program == "claude" else f"install `{program}` or put it on PATH")
        return f"{install}, or point llm_cmd (CLAIMGRAPH_LLM_CMD) at another command, {OFF_SWITCH}"
    if exc.type == "llm-budget-exhausted":
        return ("raise budget (CLAIMGRAPH_BUDGET, or budget in config.toml): model calls per "
                "capture pass; this segment's model facts were skipped")
    return exc.hint or LLM_CMD_HINT


def _program(cmd: str | Sequence[str]) -> str:
    try:
        return os.path.basename(command_argv(cmd)[0])
    except ClaimgraphError:
        return RULE


def unparsable(reply: str, rejected: Sequence[Mapping[str, Any]]) -> bool:
    """Text came back, and not one line of it was a JSON object (an empty reply is fine:
    the prompt asks for nothing when nothing qualifies)."""
    return bool(rejected) and all(r["reason"] == "not a JSON object" for r in rejected) \
        and bool(reply.strip())


def _unparsable_error(command: str, reply: str) -> ClaimgraphError:
    first = next((line.strip() for line in reply.splitlines() if line.strip()), "")
    return ClaimgraphError(
        "model-output-unparsable", f"the model command {command!r} answered, but no line of "
        f"its reply is a JSON object (it begins: {_clip(first, REPLY_EXCERPT_CHARS)!r})",
        hint="llm_cmd must print one JSON object per line (a plain prompt-in, text-out command "
             "such as `claude -p`); run it by hand with a short prompt to see what it prints",
        command=command)


# --- the prompt ---------------------------------------------------------------------------

def build_prompt(transcript: Transcript, roster: Iterable[Any],
                 max_input_chars: int) -> tuple[str, list[Event]]:
    """The prompt and the events it shows (those are where evidence may be quoted from)."""
    head = "\n".join([INSTRUCTIONS, *vocabulary_lines(), "",
                      "Known entities — use EXACT name when you mean one of these:",
                      *roster_lines(roster), "", "If nothing qualifies, output nothing.", "",
                      "<transcript>", ""])
    tail = "\n</transcript>\n"
    room = max_input_chars - len(head) - len(tail)
    if room < MIN_TRANSCRIPT_ROOM:
        raise ClaimgraphError(
            "model-input-cap-too-small", f"max_input_chars={max_input_chars} leaves {room} "
            "characters for the transcript after the instructions and roster",
            hint="raise the input cap or pass a shorter roster", max_input_chars=max_input_chars)
    body, shown = recent_turns(transcript.events, room)
    return head + body + tail, shown


def vocabulary_lines() -> list[str]:
    return [f"  {row['id']} — {row['definition']}"
            + (PROSE_NOTE if object_shape(row) == "prose" else "") for row in CORE_PREDICATES]


def roster_lines(roster: Iterable[Any]) -> list[str]:
    """Names as strings, or mappings with name, aliases and type (as the prompt renders them)."""
    lines = []
    for entry in list(roster)[:ROSTER_LIMIT]:
        entry = entry if isinstance(entry, Mapping) else {"name": entry}
        aliases = [_clip(str(a), NAME_MAX) for a in entry.get("aliases") or ()]
        lines.append(f"  {_clip(str(entry.get('name')), NAME_MAX)}"
                     + (f" (aka {', '.join(aliases)})" if aliases else "")
                     + (f" [{_clip(str(entry['type']), NAME_MAX)}]" if entry.get("type") else ""))
    return lines or ["  (none yet)"]


def recent_turns(events: Sequence[Event], room: int) -> tuple[str, list[Event]]:
    """The newest rendered turns that fit in ``room`` characters, oldest first."""
    kept: list[str] = []
    shown: list[Event] = []
    used = len(OMITTED) + 1
    for event in reversed(events):
        turn = render_turn(event)
        if turn is None:
            continue
        if used + len(turn) + 1 > room:
            if not kept:  # one giant turn: keep who spoke, and the end of what they said
                kept.append(_tail(turn, room - used))
                shown.append(event)
            kept.append(OMITTED)
            break
        kept.append(turn)
        shown.append(event)
        used += len(turn) + 1
    return "\n".join(reversed(kept)), shown[::-1]


def _tail(turn: str, room: int) -> str:
    role, _, text = turn.partition(": ")
    return f"{role}: …{text[len(text) - max(0, room - len(role) - 3):]}"


def render_turn(event: Event) -> str | None:
    """One "role: text" line (or block) for the main conversation; None for everything else.

    A closing ``</transcript>`` inside the text is defused, so the text cannot end the block.
    """
    if (event.kind not in SHOWN_KINDS or event.derived or event.is_sidechain
            or event.subagent_id is not None):
        return None
    if event.kind == "tool_call":
        turn = "tool call: " + _clip(_tool_summary(event), TOOL_CALL_CHARS)
    elif event.kind == "tool_result":  # cut before cleaning: outputs can be megabytes
        label = "tool error: " if event.is_error else "tool result: "
        turn = label + _clip(clean_text(event.text[:RESULT_SCAN_CHARS]), TOOL_RESULT_CHARS)
    else:
        text = clean_text(event.text).strip()
        turn = f"{'user' if event.kind == 'prompt' else 'assistant'}: {text}" if text else ""
    return _CLOSING_TAG.sub("</ transcript>", turn) or None


def _tool_summary(event: Event) -> str:
    args = [f"{key}={_clip(clean_text(str(value)), ARG_CHARS)}" for key, value in
            (event.tool_input or {}).items()
            if key not in BLOB_KEYS and isinstance(value, (str, int, float, bool))]
    return " ".join([event.tool_name or "tool", *args])


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# --- the reply ----------------------------------------------------------------------------

def read_candidates(text: str, shown: Sequence[Event],
                    command: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(candidates, rejected): every JSON object line validated, evidence attached."""
    quotable = _quotable_turns(shown)
    candidates: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    for number, raw, value in parse_lines(text):
        candidate, reason = prepare(value)
        key = _identity(candidate) if candidate else None
        if not reason and key in seen:
            reason = "duplicate"
        if not reason and len(candidates) >= MAX_CANDIDATES:
            reason = f"over the limit of {MAX_CANDIDATES} facts per call"
        if reason:
            rejected.append({"line": number, "reason": reason, "text": raw[:QUOTE_CHARS]})
            continue
        seen.add(key)
        found = locate(candidate, quotable)
        candidate["evidence"] = [found[0] if found else f"model: {command}"]
        candidate["valid_from"] = found[1] if found else None
        candidates.append(candidate)
    return candidates, rejected


def _identity(candidate: Mapping[str, Any]) -> tuple[str, str, str]:
    return (candidate["subject"].casefold(), candidate["predicate"],
            candidate["object"].casefold())


def parse_lines(text: str) -> Iterator[tuple[int, str, Any]]:
    """(line number, line, parsed JSON or None) for each line that is not blank or a fence."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("```"):
            continue
        value = _loads(line)
        for item in value if isinstance(value, list) else [value]:
            yield number, line, item


def _loads(line: str) -> Any:
    """The line as JSON, else the braces inside it ("- {…}", "1. {…},"), else None."""
    attempts = [line] + ([line[line.find("{"): line.rfind("}") + 1]] if "{" in line else [])
    for attempt in attempts:
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return None


def prepare(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A candidate in the extractor shape, or the reason the line cannot be one."""
    if not isinstance(value, dict):
        return None, "not a JSON object"
    fields = {str(key).strip().lower().replace("-", "_"): v for key, v in value.items()}
    subject, obj = _text(fields.get("subject")), _text(fields.get("object"), numbers=True)
    predicate = _predicate(fields.get("predicate"))
    missing = [name for name, got in (("subject", subject), ("predicate", predicate),
                                      ("object", obj)) if not got]
    if missing:
        return None, "incomplete: no " + ", ".join(missing)
    if len(subject) > SUBJECT_MAX or len(obj) > OBJECT_MAX:
        return None, "too long"
    if predicate not in CORE_BY_ID:
        return None, f"predicate not allowed: {predicate}"
    return _candidate(fields, subject, predicate, obj), None


def _candidate(fields: Mapping[str, Any], subject: str, predicate: str,
               obj: str) -> dict[str, Any]:
    stated = _text(fields.get("epistemic") or fields.get("class")).lower()
    kind = _text(fields.get("object_kind")).lower()
    return {"subject": subject, "predicate": predicate, "object": obj,
            "object_kind": kind if kind in ("entity", "literal") else None,
            "epistemic": stated if stated in EPISTEMIC_STRENGTH else None,
            "confidence": _confidence(fields.get("confidence")),
            "scope": "user" if _text(fields.get("scope")).lower() == "user" else "project",
            "source_type": SOURCE_TYPE,
            "subject_type": _text(fields.get("subject_type"))[:TYPE_MAX] or None,
            "object_type": _text(fields.get("object_type"))[:TYPE_MAX] or None,
            "evidence": [], "valid_from": None, "rule": RULE}


def _text(value: Any, numbers: bool = False) -> str:
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    return " ".join(value.split()) if isinstance(value, str) else ""


def _predicate(value: Any) -> str:
    """Lenient spelling: ":core/prefers", "prefers", "PREFERS", "decided_against"."""
    name = _text(value).lstrip(":").lower().replace("_", "-")
    return name if not name or "/" in name else f"core/{name}"


def _confidence(value: Any) -> float:
    """min(0.7, c or 0.6), where anything but a positive finite number counts as absent."""
    try:
        number = float(value) if not isinstance(value, bool) else 0.0
    except (TypeError, ValueError):
        number = 0.0
    return min(CONFIDENCE_CEILING, number if math.isfinite(number) and number > 0
               else CONFIDENCE_DEFAULT)


# --- evidence -----------------------------------------------------------------------------

Turn = Tuple[int, str, Optional[int]]  # line, cleaned text, timestamp (ms)


def _quotable_turns(shown: Sequence[Event]) -> list[Turn]:
    """Human prompts first (a person's words), then assistant text; tool traffic never."""
    turns = [e for e in shown if e.kind == "prompt"] + [e for e in shown if e.kind == "assistant"]
    return [(event.line, clean_text(event.text), event.timestamp) for event in turns]


def evidence_for(candidate: Mapping[str, Any], turns: Sequence[Turn]) -> str | None:
    found = locate(candidate, turns)
    return found[0] if found else None


def locate(candidate: Mapping[str, Any],
           turns: Sequence[Turn]) -> tuple[str, int | None] | None:
    """The evidence quote and the time of the turn that holds the object, else the subject:
    that turn taught the fact, so the fact is valid from then (not from capture time)."""
    for needle in (candidate["object"], candidate["subject"]):
        if len(needle) < MIN_NEEDLE:
            continue
        pattern = re.compile(r"\s+".join(map(re.escape, needle.split())), re.IGNORECASE)
        for line, text, stamp in turns:
            found = pattern.search(text)
            if found:
                return f"transcript#L{line}: {_quote(text, found.start(), found.end())}", stamp
    return None


def _quote(text: str, start: int, end: int) -> str:
    """The source line holding the match, trimmed around it to QUOTE_CHARS."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if line_end - line_start > QUOTE_CHARS:
        line_start = max(line_start, start - (QUOTE_CHARS - (end - start)) // 2)
        line_end = min(line_end, line_start + max(QUOTE_CHARS, end - start))
    return " ".join(text[line_start:line_end].split())
