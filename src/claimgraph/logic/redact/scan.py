"""One pass over a text for every literal that could start a secret: the trigger scan.

Redaction must be cheap on the text that holds no secret, which is nearly all of it. Every
rule has a literal that any match holds at a known place (a vendor prefix, a secret word in
its lowercase, Capitalized and UPPER spellings, ``://``, ``-----BEGIN``, a command's name),
so one multi-pattern scan says where rules may start and which; no rule runs anywhere else.

The scan is Aho-Corasick (the ``ahocorasick-rs`` package: linear, hundreds of MB/s). Without
it, a regular-expression alternation finds the same positions, more slowly. Both report
positions; the literals at a position are then looked up from the text itself, so both
engines give exactly the same triggers (a test checks). (A DFA build of the automaton scans
capture's long tool outputs about twice as fast, 0.12 -> 0.06 s of CPU over a 50 MB
transcript's texts, ~1.5% of the pass; but it holds ~2.2 MB more, which took a 200 MB
capture's peak from ~98 to ~100.3 MB, over issue 29's 100 MB: measured 2026-12-05, not taken.)
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

try:  # pragma: no cover - which branch runs depends on the installation
    from ahocorasick_rs import AhoCorasick, MatchKind
except ImportError:  # pragma: no cover
    AhoCorasick = None  # type: ignore[assignment,misc]  # the regex engine stands in


class TriggerScan:
    """Where in a text each of ``literals`` occurs; see the module docstring."""

    def __init__(self, literals: Iterable[str], engine: str = "auto") -> None:
        self.literals = tuple(sorted(set(literals), key=lambda lit: (-len(lit), lit)))
        self._literal_set = frozenset(self.literals)
        self._by_first: dict[str, tuple[str, ...]] = {}
        grouped: dict[str, list[str]] = defaultdict(list)
        for literal in self.literals:
            grouped[literal[0]].append(literal)
        self._by_first = {first: tuple(group) for first, group in grouped.items()}
        self.engine = "aho-corasick" if engine == "auto" and AhoCorasick is not None else (
            "regex" if engine == "auto" else engine)
        if self.engine == "aho-corasick":
            self._automaton = AhoCorasick(list(self.literals), matchkind=MatchKind.Standard)
        else:
            self._pattern = re.compile("(?=(?:" + "|".join(map(re.escape, self.literals)) + "))")

    def covers(self, literals: frozenset[str]) -> bool:
        """Whether every one of ``literals`` is looked for."""
        return literals <= self._literal_set

    def positions(self, text: str) -> list[int]:
        """Sorted positions where at least one literal starts."""
        if self.engine == "aho-corasick":
            found = self._automaton.find_matches_as_indexes(text, overlapping=True)
            return sorted({start for _, start, _ in found})
        return [match.start() for match in self._pattern.finditer(text)]

    def hits(self, text: str) -> list[tuple[int, list[str]]]:
        """Each position where a literal starts, with its literals longest first (what
        ``positions`` and ``literals_at`` give together; the automaton names them itself)."""
        if self.engine != "aho-corasick":
            return [(at, self.literals_at(text, at)) for at in self.positions(text)]
        found = self._automaton.find_matches_as_indexes(_unpinned(text), overlapping=True)
        if not found:
            return []
        by_start: dict[int, list[int]] = defaultdict(list)
        for index, start, _ in found:
            by_start[start].append(index)
        literals = self.literals
        return [(at, [literals[i] for i in sorted(by_start[at])]) for at in sorted(by_start)]

    def literals_at(self, text: str, position: int) -> list[str]:
        """Every literal that starts at ``position``, longest first."""
        return [lit for lit in self._by_first.get(text[position], ())
                if text.startswith(lit, position)]


def _unpinned(text: str) -> str:
    """What the automaton may read. It reads a string's UTF-8 form, and CPython keeps that form
    inside a non-ASCII string for as long as the string lives: capture holds every cleaned
    event's text until the pass ends (most of it non-ASCII, Read's arrows), and would hold each
    one twice. A copy (a memcpy, next to the scan's own cost) takes the UTF-8 form instead."""
    return text if text.isascii() else "".join((text, ""))
