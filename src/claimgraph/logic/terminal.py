"""Text a terminal program printed, as words: its colour and cursor escapes taken out.

Test runners, linters and shells colour their output when they think a person watches; the
rules that read what a command printed match words, so every one of them reads the output
through this one function rather than its own copy of the pattern.
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex

#: A CSI escape: colours (``ESC[31m``), cursor moves and private modes (``ESC[?25l``).
_ESCAPE = lazy_regex(r"\x1b\[[0-9;?]*[A-Za-z]")


def without_escapes(text: str) -> str:
    """``text`` without its terminal escapes (no-op on text that has none)."""
    return _ESCAPE.sub("", text) if "\x1b" in text else text
