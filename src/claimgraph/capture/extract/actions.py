"""One normalized action per tool call: what the agent did, whatever the agent's tool names.

Readers give events (a call, its paired result); rules want to know what happened: a command
ran and how it ended, a file was read or changed, the user was asked or shown a plan. This
module sits between the two (docs/contributing-capture.md): each tool call of the main
session becomes one ``Action`` whose ``kind`` comes from the one tool table (``tools.py``),
with the fields every rule reads -- the command line, the path, the content, the outcome and
exit status -- so rules switch on ``action.kind``, never on a tool's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import SessionView, exit_code
from claimgraph.capture.extract.shell import command_text
from claimgraph.capture.extract.tools import ASK, PLAN, READ, kind_of


@dataclass(frozen=True, slots=True)
class Action:
    """What one tool call did. ``outcome`` is ok / failed / unknown (``SessionView.outcome``);
    ``path`` is absolute (None when the call names none or it cannot be resolved);
    ``content`` is what a write put there, what a read showed, or what a plan said: a read's
    or an answer's is read from its result each time, not kept (the result may hold it
    compressed, capture/packed.py: kept here, every file a long session read was held again
    through extraction, issue 29); a write's or a plan's (``given``) from its call each time,
    for the same reason (a call's big input is held packed too)."""

    kind: str
    call: Event
    result: Event | None
    outcome: str
    command: str | None = None
    path: str | None = None
    exit_status: int | None = None

    @property
    def given(self) -> str:
        """A write's or a plan's text, from the call."""
        return _content(self.kind, self.input)

    @property
    def content(self) -> str:
        if self.kind in (READ, ASK):
            return self.result.text if self.result is not None else ""
        return self.given

    @property
    def line(self) -> int:
        return self.call.line

    @property
    def input(self) -> Mapping[str, Any]:
        return self.call.tool_input or {}


def actions(view: SessionView) -> list[Action]:
    """Every tool call the agents made, in order, as actions (computed once per view)."""
    return view.remembered("actions", lambda v: [action_of(v, call) for call in v.calls()])


def action_of(view: SessionView, call: Event) -> Action:
    kind = kind_of(call.tool_name)
    result = view.results.get(call.call_id or "")
    tool_input = call.tool_input or {}
    path = _path(view, call, tool_input)
    return Action(kind, call, result, view.outcome(call), command_text(call), path,
                  exit_code(result) if result is not None else None)


def of_kind(view: SessionView, *kinds: str) -> list[Action]:
    return [action for action in actions(view) if action.kind in kinds]


def _path(view: SessionView, call: Event, tool_input: Mapping[str, Any]) -> str | None:
    named = next((tool_input[key] for key in ("file_path", "absolute_path", "path")
                  if isinstance(tool_input.get(key), str)), None)
    return view.resolve(named, call.cwd) if named else None


def _content(kind: str, tool_input: Mapping[str, Any]) -> str:
    """What the call gave; a read's and an answer's are their results' (``Action.content``)."""
    if kind in (READ, ASK):
        return ""
    if kind == PLAN:
        plan = tool_input.get("plan")
        return plan if isinstance(plan, str) else ""
    written = tool_input.get("content")
    return written if isinstance(written, str) else ""
