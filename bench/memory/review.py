#!/usr/bin/env python3
"""Count a reviewer's verdicts on what capture admitted, and list what is still unread.

    python bench/memory/review.py VERDICTS.tsv OUT/<set>.json...
    python bench/memory/review.py --pin VERDICTS.tsv OUT/<set>.json...

VERDICTS.tsv holds one line per fact read: ``V<TAB>transcript<TAB>text<TAB>#digest``, V one of
K (keep: the next agent is better for it), N (noise: true but not worth a line), W (wrong or
stale) and D (dangerous: it would make the next agent do the wrong thing). The text is cut at 160
characters for the reader; the digest (12 hex digits of the SHA-1 of the whole fact text) is what
a verdict is matched on, so a fact whose tail changed comes back unread instead of inheriting a
verdict given to other words. Older lines without a digest match on the cut text alone.

Prints K/N/W/D per set and in total, then a ``?`` line per admitted fact that has no verdict yet,
ready to be judged and appended to the file. ``--pin`` rewrites the file: each digest-less line
that matches an admitted fact of the given outputs by its cut text becomes one line per matching
fact with that fact's digest (lines that match nothing are kept as they are).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

KINDS = "KNWD"
CUT = 160


def digest(text: str) -> str:
    """The key a verdict is pinned to: the whole fact text, not its first characters."""
    return "#" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def shown(text: str) -> str:
    """The fact text as a verdict line shows it: one line, no tabs, cut for the reader."""
    return text[:CUT].replace("\t", " ").replace("\n", " ")


def read_lines(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) in (3, 4) and parts[0] in KINDS:
            rows.append(parts)
    return rows


class Verdicts:
    """Verdicts by (transcript, digest), with the digest-less older lines as a fallback."""

    def __init__(self, rows: list[list[str]]) -> None:
        self.pinned = {(r[1], r[3]): r[0] for r in rows if len(r) == 4}
        self.loose = {(r[1], r[2]): r[0] for r in rows if len(r) == 3}

    def get(self, transcript: str, text: str) -> str | None:
        found = self.pinned.get((transcript, digest(text)))
        return found or self.loose.get((transcript, shown(text)))


def admitted(paths: list[str]):
    for name in paths:
        scored = json.loads(Path(name).read_text(encoding="utf-8"))
        yield scored["set"], [(item["transcript"], fact["text"])
                              for item in scored["per_transcript"] for fact in item["facts"]]


def count(verdicts_path: Path, outputs: list[str]) -> int:
    known = Verdicts(read_lines(verdicts_path))
    total: Counter = Counter()
    unread = []
    for set_name, facts in admitted(outputs):
        counts: Counter = Counter()
        for transcript, text in facts:
            verdict = known.get(transcript, text)
            counts[verdict or "?"] += 1
            if not verdict:
                unread.append(f"?\t{transcript}\t{shown(text)}\t{digest(text)}")
        total += counts
        print(f"{set_name:14} " + " ".join(f"{k} {counts[k]:>3}" for k in KINDS + "?"))
    print(f"{'TOTAL':14} " + " ".join(f"{k} {total[k]:>3}" for k in KINDS + "?"))
    judged = sum(total[k] for k in KINDS)
    if judged:
        print(f"keep {total['K'] / judged:.0%}, wrong {total['W'] / judged:.1%}, "
              f"dangerous {total['D']}")
    print("\n".join(unread))
    return 0


def pin(verdicts_path: Path, outputs: list[str]) -> int:
    rows = read_lines(verdicts_path)
    facts_by_cut: dict[tuple[str, str], set[str]] = {}
    for _set, facts in admitted(outputs):
        for transcript, text in facts:
            facts_by_cut.setdefault((transcript, shown(text)), set()).add(text)
    out, seen, pinned = [], set(), 0
    for row in rows:
        if len(row) == 4:
            key = (row[1], row[3])
            if key not in seen:
                seen.add(key)
                out.append(row)
            continue
        texts = facts_by_cut.get((row[1], row[2]))
        if not texts:
            out.append(row)
            continue
        for text in sorted(texts):
            key = (row[1], digest(text))
            if key not in seen:
                seen.add(key)
                out.append([row[0], row[1], shown(text), digest(text)])
                pinned += 1
    verdicts_path.write_text("".join("\t".join(r) + "\n" for r in out), encoding="utf-8")
    print(f"pinned {pinned} verdicts to whole-text digests; {len(out)} lines")
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--pin":
        return pin(Path(argv[1]), argv[2:])
    return count(Path(argv[0]), argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
