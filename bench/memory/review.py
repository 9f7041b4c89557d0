#!/usr/bin/env python3
"""Count a reviewer's verdicts on what capture admitted, and list what is still unread.

    python bench/memory/review.py VERDICTS.tsv OUT/<set>.json...

VERDICTS.tsv holds one line per fact read: ``V<TAB>transcript<TAB>fact text`` (the text cut
at 160 characters), V one of K (keep: the next agent is better for it), N (noise: true but
not worth a line), W (wrong or stale) and D (dangerous: it would make the next agent do the
wrong thing). Prints K/N/W/D per set and in total, then a ``?`` line per admitted fact that
has no verdict yet, ready to be judged and appended to the file.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

KINDS = "KNWD"


def verdicts(path: Path) -> dict[tuple[str, str], str]:
    found = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 3 and parts[0] in KINDS:
                found[(parts[1], parts[2])] = parts[0]
    return found


def main() -> int:
    known = verdicts(Path(sys.argv[1]))
    total: Counter = Counter()
    unread = []
    for name in sys.argv[2:]:
        scored = json.loads(Path(name).read_text(encoding="utf-8"))
        counts: Counter = Counter()
        for item in scored["per_transcript"]:
            for fact in item["facts"]:
                key = (item["transcript"], fact["text"][:160].replace("\t", " ").replace("\n", " "))
                verdict = known.get(key)
                counts[verdict or "?"] += 1
                if not verdict:
                    unread.append(f"?\t{key[0]}\t{key[1]}")
        total += counts
        print(f"{scored['set']:14} " + " ".join(f"{k} {counts[k]:>3}" for k in KINDS + "?"))
    print(f"{'TOTAL':14} " + " ".join(f"{k} {total[k]:>3}" for k in KINDS + "?"))
    judged = sum(total[k] for k in KINDS)
    if judged:
        print(f"keep {total['K'] / judged:.0%}, wrong {total['W'] / judged:.1%}, "
              f"dangerous {total['D']}")
    print("\n".join(unread))
    return 0


if __name__ == "__main__":
    sys.exit(main())
