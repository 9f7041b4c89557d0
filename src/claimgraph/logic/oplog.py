"""The operation log's rules, decided purely: envelopes, canonical order, high-water marks.

Every write a store commits is recorded as effect lines in its writer's log
(``<db>.oplog/<writer>.jsonl``, REFERENCE §14)::

    {"t": "<verb>", ...payload, "writer": W, "seq": N, "hlc": H, "format": 1}

``seq`` is dense from 1 per writer; ``hlc`` is a single integer clock, never below the
wall clock, the writer's previous value or any peer clock it has seen. All lines of one
committed transaction share one ``hlc``, so in the canonical order (hlc, writer, seq) a
transaction's effects stay together and never interleave with another writer's.

A replica's synced content is the fold of every effect it knows, applied in canonical
order; this module decides which lines are usable, in which order, and how far each
writer's contiguous high-water mark reaches.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

#: The line format this claimgraph writes and reads; a higher one is held, never guessed at.
FORMAT = 1
VERBS = (
    "ensure-entity", "update-entity", "repoint-facts", "repoint-predicate", "delete-entity",
    "insert-fact", "invalidate", "link-conflicts", "unlink-conflicts", "reinforce",
    "open-episode", "close-episode", "register-predicate",
    # beyond REFERENCE §14: curation state, and a purge's deletions and tombstones
    "set-dormant", "revive", "delete-facts", "delete-episodes", "update-episode",
    "set-mark", "delete-marks",
    # what a purge leaves where a line named purged data: the seq stays taken, the words go
    "purged",
    # what a writer published in place of a line about a project it does not share
    "withheld",
)
ENVELOPE = ("t", "writer", "seq", "hlc", "format")
#: After this many passes in which a line could not be applied, it is reported as stuck.
STUCK_AFTER_PASSES = 3
#: Marks whose keys are global (a purge's tombstones) travel in the log; the rest are local.
SYNCED_MARK_PREFIX = "tombstone:"

Line = dict[str, Any]
#: Built once: ``json.dumps`` with options builds an encoder per call (a batch writes a
#: line per fact).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def next_hlc(wall_ms: int, last: int, floor: int) -> int:
    """max(wall clock, last + 1, every peer clock seen + 1)."""
    return max(int(wall_ms), int(last) + 1, int(floor) + 1)


def encode(effect: Mapping[str, Any], writer: str, seq: int, hlc: int) -> str:
    """One log line, keys sorted so the same effect always reads the same."""
    return _CANONICAL.encode({**effect, "writer": writer, "seq": seq, "hlc": hlc,
                              "format": FORMAT})


def parse(text: str) -> Line | None:
    """A line's JSON object, or None when it is not one (a torn or garbled line)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # garbled, or nested past what the parser can take
        return None
    return value if isinstance(value, dict) else None


def envelope_problem(line: Mapping[str, Any]) -> str | None:
    """Why a parsed line cannot be placed: no-seq, bad-seq, bad-hlc, bad-format, no-writer."""
    if not isinstance(line.get("writer"), str) or not line["writer"]:
        return "no-writer"
    if "seq" not in line:
        return "no-seq"
    if not _count(line["seq"]) or line["seq"] < 1:
        return "bad-seq"
    if not _count(line.get("hlc")):
        return "bad-hlc"
    if not _count(line.get("format")) or line["format"] < 1:
        return "bad-format"
    return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_future(line: Mapping[str, Any]) -> bool:
    return line["format"] > FORMAT


def order_key(line: Mapping[str, Any]) -> tuple:
    """The canonical order every replica applies effects in."""
    return (line["hlc"], line["writer"], line["seq"])


def same_effect(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return canonical_text(a) == canonical_text(b)


def canonical_text(line: Mapping[str, Any]) -> str:
    return _CANONICAL.encode(line)


def dedupe(lines: Iterable[Line]) -> tuple[dict[tuple[str, int], Line], list[dict[str, Any]]]:
    """One line per (writer, seq). Two different effects under one seq are a fork: the first
    in canonical order (then by text) wins everywhere, and the fork is reported. A ``purged``
    placeholder always wins: what a purge took stays taken."""
    chosen: dict[tuple[str, int], Line] = {}
    forks: list[dict[str, Any]] = []
    for line in lines:
        key = (line["writer"], line["seq"])
        held = chosen.get(key)
        if held is None:
            chosen[key] = line
        elif not same_effect(held, line):
            winner = _fork_winner(held, line)
            if not ({held["t"], line["t"]} & {"purged", "withheld"}):
                forks.append({"warning": "duplicate-seq", "writer": key[0], "seq": key[1]})
            chosen[key] = winner
    return chosen, forks


def _fork_winner(a: Line, b: Line) -> Line:
    if (a["t"] == "purged") != (b["t"] == "purged"):
        return a if a["t"] == "purged" else b
    if (a["t"] == "withheld") != (b["t"] == "withheld"):
        return b if a["t"] == "withheld" else a  # the line itself, once it is shared
    return min(a, b, key=lambda line: (order_key(line), canonical_text(line)))


def high_water(settled: Iterable[int], start: int = 0) -> tuple[int, list[int]]:
    """The highest seq reached by an unbroken run from ``start`` and the settled seqs beyond
    it (which wait in ``applied-beyond`` until the hole below them fills)."""
    done = set(settled)
    mark = start
    while mark + 1 in done:
        mark += 1
    return mark, sorted(s for s in done if s > mark)


def seq_gaps(seqs: Iterable[int], mark: int) -> list[tuple[int, int]]:
    """Holes (first, last missing) between ``mark`` and the highest seq a writer has shown."""
    present = sorted(set(s for s in seqs if s > mark))
    gaps, expected = [], mark + 1
    for seq in present:
        if seq > expected:
            gaps.append((expected, seq - 1))
        expected = seq + 1
    return gaps


def is_synced_mark(key: str) -> bool:
    return str(key).startswith(SYNCED_MARK_PREFIX)


# --- seq ranges (applied.json keeps the seqs settled as ``withheld`` this way) ---------------
def in_ranges(ranges: Any, seq: int) -> bool:
    """Whether ``seq`` lies in one of the [first, last] ranges (anything else holds none)."""
    if not isinstance(ranges, list):
        return False
    return any(isinstance(r, list) and len(r) == 2 and r[0] <= seq <= r[1] for r in ranges)


def add_to_ranges(ranges: list[list[int]], seq: int) -> list[list[int]]:
    """The ranges with ``seq`` added, merged and sorted."""
    return _merged([*([list(r) for r in ranges]), [seq, seq]])


def remove_from_ranges(ranges: list[list[int]], seq: int) -> list[list[int]]:
    """The ranges without ``seq`` (a range it splits becomes two)."""
    out: list[list[int]] = []
    for first, last in ranges:
        if first <= seq <= last:
            out += [r for r in ([first, seq - 1], [seq + 1, last]) if r[0] <= r[1]]
        else:
            out.append([first, last])
    return out


def _merged(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out
