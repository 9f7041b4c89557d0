"""A result's verdict is read from how its text starts (``session._opening``): only a packed
output's head is inflated for it, and the answer is the one the whole text gives, however
many blank characters come first."""

from __future__ import annotations

import dataclasses

import pytest

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.packed import PackedEvent, pack

from .extract_helpers import Session


def _views(session: Session) -> list[SessionView]:
    plain = session.transcript()
    packed = dataclasses.replace(plain, events=tuple(pack(e) for e in plain.events))
    assert any(isinstance(e, PackedEvent) for e in packed.events)
    return [SessionView.of(plain, None), SessionView.of(packed, None)]


@pytest.mark.parametrize("blanks", [0, 10, 1000, 1023, 1024, 1030, 5000])
def test_a_refusal_or_an_interruption_after_any_blanks_is_no_verdict(blanks):
    session = Session()
    session.tool("Bash", {"command": "make deploy"}, error=True,
                 output=" \n" * (blanks // 2) + " " * (blanks % 2)
                 + "The user doesn't want to proceed with this tool use." + " x" * 400)
    session.tool("Bash", {"command": "make test"}, error=True,
                 output="\n" * blanks + "[Request interrupted by user]" + " y" * 400)
    session.tool("Bash", {"command": "make lint"}, error=True,
                 output=" " * blanks + "lint failed" + " z" * 400)
    for view in _views(session):
        calls = view.calls()
        assert [view.outcome(call) for call in calls] == ["unknown", "unknown", "failed"]
        assert view._judged(view.results[calls[0].call_id or ""])[1] is True
        assert view._judged(view.results[calls[2].call_id or ""])[1] is False
