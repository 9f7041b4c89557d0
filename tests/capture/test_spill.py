"""A capture pass keeps its packed text in an unnamed spill file, not in its memory
(capture/packed.py ``Spill``, issue 29): every reader sees the same strings, the stored form
is the same, and a spill that cannot be written leaves the text in memory, never lost."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture import packed
from claimgraph.capture.events import Event
from claimgraph.capture.extract.authored import AgentText
from claimgraph.capture.packed import HeldTexts, PackedEvent, held_text, spilling
from claimgraph.capture.segment import read_cleaned, segment_header, segment_lines
from claimgraph.capture.zipped_lines import ZippedLines

FIXTURE = (Path(__file__).parents[1] / "fixtures" / "transcripts" / "claude-code" /
           "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
BIG = "  1→a line of output with ünïcode and a lone \ud83d surrogate\n" * 40


def _held(event: Event) -> object:
    return packed._TEXT_SLOT.__get__(event, Event)


def test_a_pass_holds_no_packed_text_in_memory_and_reads_the_same(tmp_path: Path) -> None:
    plain, _ = read_cleaned(str(FIXTURE), "claude-code", spill_dir=str(tmp_path / "missing"))
    assert not any(isinstance(_held(e), packed._Spilled) for e in plain.events)  # no spill
    with spilling(str(tmp_path)):
        spilled, _ = read_cleaned(str(FIXTURE), "claude-code")
    held = [_held(e) for e in spilled.events if isinstance(e, PackedEvent)]
    zipped = [h for h in held if isinstance(h, packed._Zipped)]
    assert zipped and all(isinstance(h, packed._Spilled) for h in zipped)
    assert list(tmp_path.iterdir()) == []  # the spill file has no name
    assert list(segment_lines(spilled, segment_header(spilled, "s", 0, {}))) == \
        list(segment_lines(plain, segment_header(plain, "s", 0, {})))
    assert spilled.events == plain.events


def test_a_spill_that_cannot_be_written_keeps_the_text_in_memory(tmp_path: Path,
                                                                 monkeypatch) -> None:
    def full(*_: object) -> int:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(packed.Spill, "BUFFER", 1)  # every string written at once
    monkeypatch.setattr(os, "pwrite", full)
    with spilling(str(tmp_path)):
        first = packed.pack(Event(kind="tool_result", agent="claude-code", source_file="t",
                                  line=1, text=BIG))
        later = packed.pack(Event(kind="tool_result", agent="claude-code", source_file="t",
                                  line=2, text=BIG + "x"))
    assert first.text == BIG and later.text == BIG + "x"
    assert not isinstance(_held(later), packed._Spilled)  # held in memory after the failure


def test_a_spill_leaves_the_disk_room_for_the_store_it_serves(tmp_path: Path,
                                                             monkeypatch) -> None:
    """The spill sits on the store's file system, and the pass writes its evidence and the
    store after it: a spill that took the last free space would make every later pass of the
    session fail on a full disk (the space comes back only when the pass ends). Short of room
    it writes nothing and the text stays in memory, as without a spill."""
    real = os.fstatvfs

    def nearly_full(fd: int) -> os.statvfs_result:
        found = list(real(fd))
        found[4] = (packed.Spill.RESERVE + 1024) // max(found[1], 1)  # f_bavail in f_frsize
        return os.statvfs_result(found)
    monkeypatch.setattr(packed.Spill, "BUFFER", 1)
    monkeypatch.setattr(os, "fstatvfs", nearly_full)
    with spilling(str(tmp_path)):
        spill = packed._SPILL.get()
        first = packed.pack(Event(kind="tool_result", agent="claude-code", source_file="t",
                                  line=1, text=BIG))
        later = packed.pack(Event(kind="tool_result", agent="claude-code", source_file="t",
                                  line=2, text=BIG + "x"))
    assert spill is not None and os.fstat(spill._fd).st_size == 0  # nothing written
    assert first.text == BIG and later.text == BIG + "x"
    assert not isinstance(_held(later), packed._Spilled)


def test_where_no_unnamed_file_can_be_made_the_spill_is_unlinked_at_once(tmp_path: Path,
                                                                          monkeypatch) -> None:
    """A file system without ``O_TMPFILE`` (an old kernel, some overlays, macOS): the spill is
    a private file made without following a link and unlinked before anything is written, so
    nothing of the text ever has a name, and the text reads back the same."""
    real_open = os.open

    def no_tmpfile(path: str, flags: int, *rest: int) -> int:
        if flags & getattr(os, "O_TMPFILE", 0) == getattr(os, "O_TMPFILE", -1):
            raise OSError(95, "Operation not supported")
        return real_open(path, flags, *rest)
    monkeypatch.setattr(os, "open", no_tmpfile)
    made: list[int] = []
    real_spill_init = packed.Spill.__init__

    def watched(self: packed.Spill, directory: str | None = None) -> None:
        real_spill_init(self, directory)
        made.append(self._fd)
    monkeypatch.setattr(packed.Spill, "__init__", watched)
    with spilling(str(tmp_path)):
        event = packed.pack(Event(kind="tool_result", agent="claude-code", source_file="t",
                                  line=1, text=BIG))
        assert list(tmp_path.iterdir()) == []  # unlinked before the first write
        state = os.fstat(made[0])
    assert isinstance(_held(event), packed._Spilled) and event.text == BIG
    assert state.st_nlink == 0 and state.st_mode & 0o777 == 0o600


def test_a_directory_no_file_can_be_made_in_leaves_text_in_memory(tmp_path: Path) -> None:
    with spilling(str(tmp_path / "missing")):
        event = packed.pack(Event(kind="assistant", agent="claude-code", source_file="t",
                                  line=1, text=BIG))
    assert event.text == BIG and not isinstance(_held(event), packed._Spilled)


def test_inside_a_block_that_could_make_no_spill_an_inner_one_makes_none_elsewhere(
        tmp_path: Path) -> None:
    """``spilling`` inside another keeps to that one's choice: when the store's directory could
    take no spill (the pass's block), the reading's own block (``read_cleaned``, no
    directory) does not put the pass's text in the system's temporary directory instead."""
    with spilling(str(tmp_path / "missing")), spilling(None):
        event = packed.pack(Event(kind="assistant", agent="claude-code", source_file="t",
                                  line=1, text=BIG))
    assert event.text == BIG and not isinstance(_held(event), packed._Spilled)


def test_a_rules_long_texts_and_chunks_go_to_the_spill_too(tmp_path: Path) -> None:
    texts = [BIG, "short", BIG + "2"]
    with spilling(str(tmp_path)):
        held = HeldTexts([held_text(t) for t in texts])
        lines = ZippedLines([BIG] * 50, chunk_bytes=1024)
    assert list(held) == texts and held[0] == BIG and held[1:] == texts[1:] and len(held) == 3
    assert isinstance(held._items[0], packed._Spilled) and held._items[1] == "short"
    assert all(isinstance(chunk, packed._Spilled) for chunk in lines._chunks)
    assert "lone" in lines and "absent name" not in lines


_TEXT = st.text(alphabet=st.sampled_from("ab é→😀\ud83d\n-*_"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, max_size=4), _TEXT)
def test_the_agents_text_held_as_utf8_answers_as_the_str_did(messages, key):
    held = AgentText()
    for message in messages:
        held.add(message)
    flat = held.flat()
    as_str = "".join(" " + packed_flat for packed_flat in _flats(messages))
    assert (key in flat) == (key in as_str) and bool(flat) == bool(as_str)


def _flats(messages: list[str]) -> list[str]:
    from claimgraph.capture.extract.authored import flat
    return [flat(message) for message in messages]
