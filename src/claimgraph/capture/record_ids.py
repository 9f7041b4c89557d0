"""Each event's record id, held apart from the events while a capture pass runs (issue 29).

A record's id (Claude Code's ``uuid`` or ``message.id``, Gemini's message id) is read by one
thing only: the evidence segment, which stores it beside the event. No rule reads it. Held on
every event it was the largest string a cleaned event kept (a 200 MB pass: ~38,600 ids of
~30-40 characters, ~3.7 MB as ``str`` objects, each live until extraction ends). So a
builder made under ``events.cleaning`` hands each cleaned id to its ``RecordIds`` column
instead, and the event holds None; the segment reads the column (``segment.segment_lines``).

The column is the ids' UTF-8 bytes one after another, in chunks kept like any packed text
(``packed.kept_bytes``: in the pass's spill file when one is installed, else in memory), an
array of where each distinct id ends, and one number per event (its id's, or -1 for none).
An id equal to the one before it (a message's text and tool calls, one line each, all carry
the message's id) is not written again. Reading gives back equal strings (the same UTF-8,
``surrogatepass``), so the stored segment is byte for byte what it was.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from typing import overload

from claimgraph.capture.packed import _Zipped, kept_bytes

#: Bytes gathered before a chunk is kept (``kept_bytes``): ~2,000 ids a chunk.
CHUNK_BYTES = 64 * 1024
_NONE = -1


class RecordIds(Sequence["str | None"]):
    """Record ids in event order (module docstring): ``append`` one per event, read back by
    index or in order."""

    __slots__ = ("_of_event", "_ends", "_chunks", "_chunk_starts", "_kept", "_pending",
                 "_last", "_changed")

    def __init__(self) -> None:
        self._of_event = array("i")  # per event: its id's number, or -1
        self._ends = array("Q")  # per distinct id, in order: where its bytes end
        self._chunks: list[_Zipped] = []  # the bytes of ids kept so far, chunk by chunk
        self._chunk_starts = array("Q")  # where each chunk starts in the ids' bytes
        self._kept = 0  # the bytes in chunks (read without reading a spilled chunk back)
        self._pending = bytearray()  # the ids' bytes not yet in a chunk
        self._last: str | None = None  # the last id appended (for ``append``'s sharing)
        self._changed: dict[int, str | None] = {}  # ``set`` after the fact (no reader does)

    def append(self, value: str | None) -> None:
        """The next event's id."""
        if value is None:
            self._of_event.append(_NONE)
            return
        if self._ends and value == self._last:
            self._of_event.append(len(self._ends) - 1)
            return
        self._pending += value.encode("utf-8", "surrogatepass")
        self._ends.append(self._kept + len(self._pending))
        self._of_event.append(len(self._ends) - 1)
        self._last = value
        if len(self._pending) >= CHUNK_BYTES:
            self._keep()

    def set(self, index: int, value: str | None) -> None:
        """A later change to one event's id (an amendment naming ``record_id``)."""
        if not 0 <= index < len(self._of_event):
            raise IndexError(index)
        self._changed[index] = value

    def reorder(self, order: Sequence[int]) -> None:
        """The events put in a new order (``TranscriptBuilder.sort_by_line``): the i-th id
        is now the one of the event that was at ``order[i]``."""
        if sorted(order) != list(range(len(self._of_event))):
            raise ValueError("not an order of the events")
        self._of_event = array("i", (self._of_event[at] for at in order))
        self._changed = {new: self._changed[old] for new, old in enumerate(order)
                         if old in self._changed}

    def _keep(self) -> None:
        self._chunks.append(kept_bytes(bytes(self._pending)))
        self._chunk_starts.append(self._kept)
        self._kept += len(self._pending)
        self._pending = bytearray()

    def __len__(self) -> int:
        return len(self._of_event)

    @overload
    def __getitem__(self, index: int) -> str | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[str | None]: ...

    def __getitem__(self, index: int | slice) -> str | None | list[str | None]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
            if index < 0:  # before the first: the array would wrap round again
                raise IndexError(index - len(self))
        if index in self._changed:
            return self._changed[index]
        number = self._of_event[index]
        if number == _NONE:
            return None
        start, end = self._span(number)
        kept = self._kept
        if start >= kept:
            data = bytes(self._pending[start - kept:end - kept])
        else:
            chunk = bisect.bisect_right(self._chunk_starts, start) - 1
            offset = self._chunk_starts[chunk]
            data = self._chunks[chunk].data[start - offset:end - offset]
        return data.decode("utf-8", "surrogatepass")

    def _span(self, number: int) -> tuple[int, int]:
        return (self._ends[number - 1] if number else 0), self._ends[number]

    def __iter__(self) -> Iterator[str | None]:
        """In order, each chunk read once (the segment's write reads every id)."""
        chunk, chunk_start, chunk_end, data = -1, 0, 0, b""
        kept = self._kept
        last_number, last_value = _NONE, None
        for index, number in enumerate(self._of_event):
            if index in self._changed:
                yield self._changed[index]
                continue
            if number == _NONE:
                yield None
                continue
            if number != last_number:
                start, end = self._span(number)
                if start >= kept:
                    piece = self._pending[start - kept:end - kept]
                else:  # ids never straddle chunks; reordered events may go back to one
                    if not chunk_start <= start < chunk_end:
                        chunk = bisect.bisect_right(self._chunk_starts, start) - 1
                        data = self._chunks[chunk].data
                        chunk_start = self._chunk_starts[chunk]
                        chunk_end = chunk_start + len(data)
                    piece = data[start - chunk_start:end - chunk_start]
                last_number, last_value = number, bytes(piece).decode("utf-8", "surrogatepass")
            yield last_value
