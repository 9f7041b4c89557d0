"""Whether a look showed a filled file is read from the output's head when that says it
(reads._filled), and always agrees with rendering the whole output."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.events import Event
from claimgraph.capture.extract.reads import _file_text, _filled
from claimgraph.capture.packed import pack

_PARTS = ["     1→", "  12→", "3→", " 7\t", "8\t", "\n", "\r\n", "\r", "\x85", " ", "\t", "x",
          "<system-reminder>", "</system-reminder>", "note", "→", "1", "é", "\u2028"]


def _whole(text: str, rendered: str) -> bool:
    return bool(_file_text(text, rendered).strip())


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=30), st.sampled_from(["", "read", "shell"]))
def test_the_head_says_what_the_whole_rendering_says(parts: list[str], rendered: str) -> None:
    text = "".join(parts)
    assert _filled(text, rendered) == _whole(text, rendered)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=30), st.integers(0, 3000),
       st.sampled_from(["read", "shell"]))
def test_a_packed_result_past_the_head_agrees_too(parts: list[str], pad: int,
                                                    rendered: str) -> None:
    text = "\n" * pad + "".join(parts) + "x" * 300  # long enough to be held compressed
    event = pack(Event(kind="tool_result", agent="claude-code", source_file="t", line=1,
                       text=text))
    assert _filled(event, rendered) == _whole(text, rendered)


def test_a_reminder_that_joins_a_number_to_an_arrow_is_rendered_whole() -> None:
    text = " 12\n<system-reminder>r</system-reminder>→ \n"
    assert _filled(text, "read") == _whole(text, "read") is False


def test_a_reminder_cut_in_two_by_the_head_still_takes_the_rest_of_a_packed_read() -> None:
    """The head ends inside ``<system-reminder>``: that unclosed reminder empties the rest,
    so the read showed nothing, though the head alone shows ``1→<sy`` as a filled line."""
    from claimgraph.capture.extract.reads import _HEAD_CHARS
    text = "\n" * (_HEAD_CHARS - 5) + "1→<system-reminder>\t8\t 8\t" + "x" * 300
    event = pack(Event(kind="tool_result", agent="claude-code", source_file="t", line=1,
                       text=text))
    assert _filled(event, "read") == _whole(text, "read") is False
