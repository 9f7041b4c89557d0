"""A spilled text is kept in the pass's spill as its UTF-8, not compressed (capture/packed.py
``_SpilledText``; issue 29): every read gives the same string as before, the compressed
form is still there for whoever asks for it, and a text the spill cannot take is compressed
in memory as before."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture import packed
from claimgraph.capture.events import Event
from claimgraph.capture.packed import Spill, held_text, pack, spilling, text_head

BIG = "  1→a line of output with ünïcode and a lone \ud83d surrogate\n" * 40


def _held(event: Event) -> object:
    return packed._TEXT_SLOT.__get__(event, Event)


def _result(text: str, line: int = 1) -> Event:
    return Event(kind="tool_result", agent="claude-code", source_file="t", line=line, text=text)


def test_a_spilled_text_is_its_utf8_in_the_spill_and_reads_as_it_was(tmp_path: Path) -> None:
    with spilling(str(tmp_path)):
        event = pack(_result(BIG))
        spill = packed._SPILL.get()
    held = _held(event)
    assert isinstance(held, packed._SpilledText)
    assert spill is not None and spill.get(held._where) == BIG.encode("utf-8", "surrogatepass")
    assert event.text == BIG
    assert zlib.decompress(held.data).decode("utf-8", "surrogatepass") == BIG  # as _Zipped's
    for chars in (0, 1, 3, 57, 58, 200, len(BIG), len(BIG) + 10):
        assert text_head(event, chars) == BIG[:chars]


#: Any character, lone surrogates often (``st.text`` leaves them out unless asked): a head's
#: cut must fall inside their three bytes too.
_ANY = st.characters(codec=None, categories=["Cs"]) | st.characters(
    codec=None, categories=None, exclude_categories=())


@settings(max_examples=60, deadline=None)
@given(st.text(_ANY, min_size=packed.PACK_MIN_CHARS, max_size=600), st.integers(0, 700))
def test_a_spilled_text_and_its_head_are_the_text_whatever_it_holds(text: str,
                                                                    chars: int) -> None:
    with spilling():
        held = held_text(text)
    assert isinstance(held, packed._SpilledText)
    assert held.text() == text
    assert held.head(chars) == text[:chars]


def test_a_full_spill_keeps_the_text_compressed_in_memory(tmp_path: Path, monkeypatch) -> None:
    def full(*_: object) -> int:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Spill, "BUFFER", 1)
    monkeypatch.setattr(os, "pwrite", full)
    with spilling(str(tmp_path)):
        first = pack(_result(BIG))  # its write fails: it stays in the spill's buffer
        later = pack(_result(BIG + "x", line=2))
    held = _held(later)
    assert type(held) is packed._Zipped  # in memory, and compressed there
    assert len(held.data) < len(BIG.encode("utf-8", "surrogatepass")) // 4
    assert first.text == BIG and later.text == BIG + "x"


def test_a_forked_child_never_writes_over_its_parents_spill(tmp_path: Path) -> None:
    """Parent and child share the spill's file and each hands out the offsets after what was
    written before the fork: a child's flush would put its bytes where the parent's now are.
    The child keeps what it packs in its own memory instead."""
    spill = Spill(str(tmp_path))
    spill.flush()
    go_read, go_write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's side, judged by its exit status
        os.close(go_write)
        os.read(go_read, 1)  # the parent has written first
        where = spill.put(b"child's text")
        spill.flush()
        os._exit(0 if where is not None and spill.get(where) == b"child's text" else 1)
    os.close(go_read)
    where = spill.put(b"parent's txt")
    spill.flush()
    os.write(go_write, b"x")
    os.close(go_write)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert spill.get(where) == b"parent's txt"
