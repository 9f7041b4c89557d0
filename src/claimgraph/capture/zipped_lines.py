"""A long text held zlib-compressed in chunks, asked only whether it holds a name (issue 29).

The statements rule asks whether a sentence's code-shaped name occurs in the heads of every
tool call and result of the session (``extract.said``): ~22 MB of lowered UTF-8 at 200 MB of
transcript, built for a few dozen questions about a handful of distinct names. Held whole it
was the pass's largest single allocation; compressed (level 1, about a quarter of the bytes)
in chunks it is searched one chunk at a time, each window carrying the bytes before the chunk
that a name can start in, so ``name in text`` is answered exactly as on the whole text, and
each distinct name's answer is remembered. During a capture pass the compressed chunks sit
in the pass's spill file (``packed.Spill``), not in memory (~5.7 MB at 200 MB).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from claimgraph.capture.packed import _Zipped, kept_bytes

#: Bytes per compressed chunk: the scratch of one search is one chunk and a name's length.
CHUNK_BYTES = 1 << 20
_LEVEL = 1


class ZippedLines:
    """``"\\n".join(texts)`` as UTF-8 (``surrogatepass``: a lone surrogate a transcript carried
    stays), compressed chunk by chunk as it is built; ``name in held`` for a ``str`` or
    ``bytes`` name."""

    __slots__ = ("_chunks", "_found", "size")

    def __init__(self, texts: Iterable[str], chunk_bytes: int = CHUNK_BYTES) -> None:
        self._chunks: list[_Zipped] = []  # each chunk in the pass's spill when it has one
        self._found: dict[bytes, bool] = {}
        self.size = 0  # bytes of UTF-8 held
        pending = bytearray()
        for index, text in enumerate(texts):
            if index:
                pending += b"\n"
            pending += text.encode("utf-8", "surrogatepass")
            if len(pending) >= chunk_bytes:
                self._seal(pending)
                pending = bytearray()
        self._seal(pending)

    def _seal(self, pending: bytearray) -> None:
        self.size += len(pending)
        self._chunks.append(kept_bytes(zlib.compress(pending, _LEVEL)))

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            name = name.encode("utf-8", "surrogatepass")
        if not isinstance(name, (bytes, bytearray)):
            raise TypeError(f"a name is str or bytes, not {type(name).__name__}")
        key = bytes(name)
        if key not in self._found:
            self._found[key] = self._search(key)
        return self._found[key]

    def _search(self, needle: bytes) -> bool:
        """``needle in`` the whole text: each chunk is searched with the ``len(needle) - 1``
        bytes before it, so an occurrence that a chunk's border cuts is still whole."""
        if not needle:
            return True
        keep = len(needle) - 1
        tail = b""
        for chunk in self._chunks:
            window = tail + zlib.decompress(chunk.data)
            if needle in window:
                return True
            tail = window[max(0, len(window) - keep):] if keep else b""
        return False

    def whole(self) -> bytes:
        """All of it, uncompressed (for tests and debugging: a pass never asks for this)."""
        return b"".join(zlib.decompress(chunk.data) for chunk in self._chunks)
