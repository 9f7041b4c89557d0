"""The redactor's fast paths give exactly what the plain paths give (issue 29).

Two shortcuts, each checked against the path it replaces on generated text with planted
secrets, line markers, listings and non-ASCII characters:
- the view's line markers come from the trigger scan (``_Finder.line_marked``) instead of
  eight substring searches (a scan without those literals takes the searching path);
- a name's run is walked back with ``str.isalnum`` instead of a ``[\\w-]`` match per character.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.logic.redact import SCAN, _word_run, redact_with_counts
from claimgraph.logic.redact.scan import TriggerScan
from claimgraph.logic.redact.views import LINE_MARKERS, deletions

sys.path.insert(0, str(Path(__file__).resolve().parent))  # --import-mode=importlib
from secret_corpus import CORPUS  # noqa: E402

#: Markers that start no rule of their own: without them the scan cannot say whether a text
#: holds a marker, and the view searches for them itself (the plain path).
_MARKER_ONLY = frozenset(LINE_MARKERS) - {"MII", "kind: Secret"}
PLAIN = TriggerScan([lit for lit in SCAN.literals if lit not in _MARKER_ONLY])
PIECES = st.sampled_from(
    [text.format(secret) for _, _, secret, text in CORPUS[::2]]
    + list(LINE_MARKERS) + ["-----BEGIN RSA PRIVATE KEY-----\n", "-----END RSA PRIVATE KEY-----",
                            "     12\u2192", "\n    3  ", "\n  4\t", "src/a.py:7:", "\n", "\"",
                            "'", " + ", "password = ", "api_key: ", "token ", "é", "\u2192",
                            "日本", "\U0001F600", "MIIB" + "Q" * 60 + "\n", "kind: Secret\n"])

def _numbered(lines: list[str], style: int) -> str:
    """``lines`` as ``nl`` (two spaces) or ``grep -n`` (``path:N:``) print them."""
    return "".join(f"\n{n:>6}  {line}" if style == 0 else f"\nsrc/k.pem:{n}:{line}"
                   for n, line in enumerate(lines, start=3))


_KEY = ["-----BEGIN RSA PRIVATE KEY-----", *("MIIE" + "Qz9" * 20,) * 3,
        "-----END RSA PRIVATE KEY-----"]
_MANIFEST = ["apiVersion: v1", "kind: Secret", "data:", "  password: " + "cGFzc3dvcmQxMjM0NTY3OA=="]
LISTINGS = st.builds(_numbered, st.sampled_from([_KEY, _KEY[1:], _MANIFEST]),
                     st.integers(min_value=0, max_value=1))
TEXT = st.lists(st.one_of(PIECES, LISTINGS, st.text(max_size=10)), max_size=30).map("".join)


def test_the_plain_scan_really_takes_the_searching_path():
    assert SCAN.covers(frozenset(LINE_MARKERS))
    assert not PLAIN.covers(frozenset(LINE_MARKERS))
    assert set(SCAN.literals) - set(PLAIN.literals) == _MARKER_ONLY


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_the_fast_paths_redact_exactly_as_the_plain_paths(text):
    expected = redact_with_counts(text, PLAIN)
    assert redact_with_counts(text, SCAN) == expected


@settings(max_examples=200, deadline=None)
@given(TEXT, st.lists(st.integers(min_value=0, max_value=400), max_size=4))
def test_a_marker_told_by_the_scan_gives_the_same_deletions(text, near):
    marked = any(marker in text for marker in LINE_MARKERS)
    near = [at for at in near if at < len(text)]
    assert deletions(text, near, marked) == deletions(text, near)


_NAME_CHAR = re.compile(r"[\w-]")


def _reference_word_run(text: str, at: int) -> tuple[int, int] | None:
    """The walk as it was: one ``[\\w-]`` match per character."""
    start = at
    while start > 0 and _NAME_CHAR.match(text, start - 1):
        start -= 1
        if at - start > 128:
            return None
    if text.endswith("[REDACTED:", max(0, start - 10), start):
        return None
    tail = re.compile(r"[\w-]{0,128}").match(text, at)
    assert tail is not None
    return None if tail.end() - at >= 128 else (start, tail.end())


@settings(max_examples=500, deadline=None)
@given(st.text(min_size=1, max_size=300), st.data())
def test_a_names_run_is_walked_back_as_the_regex_walked_it(text, data):
    at = data.draw(st.integers(min_value=0, max_value=len(text)))
    assert _word_run(text, at) == _reference_word_run(text, at)


def test_every_character_a_word_pattern_matches_is_a_name_character_and_no_other():
    for code in range(0x30000):
        ch = chr(code)
        assert bool(_NAME_CHAR.match(ch)) == (ch.isalnum() or ch in "_-"), hex(code)
