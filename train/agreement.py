"""Agreement between labellers of the same sentences (issue 23): Cohen's kappa over the seven
classes and over durable vs rest, and the durable-vs-rest F1 of one label set against another.

    python train/agreement.py train/data/labels-second.jsonl train/data/labels-independent.jsonl

The F1 of two labellers is symmetric (2·both durable / (durable by one + durable by the other)):
it is the ceiling a classifier's F1 can be measured to against either label set, since a model
that agreed perfectly with one labeller scores that F1 against the other. Standard library only.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

CLASSES = ("convention", "decision", "preference", "personal", "request", "question", "other")
DURABLE = frozenset(CLASSES[:4])


def load(path: Path) -> dict[str, str]:
    """id -> label of one label file (one JSON object a line, with ``id`` and ``label``)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return {row["id"]: row["label"] for row in rows}


def kappa(a: list[str], b: list[str]) -> tuple[float, float, float]:
    """(observed agreement, chance agreement, Cohen's kappa) of two parallel label lists."""
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    chance = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return observed, chance, (observed - chance) / (1 - chance) if chance < 1 else 1.0


def durable_f1(a: list[str], b: list[str]) -> tuple[float, int, int, int]:
    """(F1 of durable-vs-rest between the two, both durable, durable by a, durable by b)."""
    da = [x in DURABLE for x in a]
    db = [y in DURABLE for y in b]
    both = sum(x and y for x, y in zip(da, db))
    total = sum(da) + sum(db)
    return (2 * both / total if total else 1.0), both, sum(da), sum(db)


def compare(first: dict[str, str], second: dict[str, str]) -> dict:
    ids = sorted(set(first) & set(second))
    a = [first[i] for i in ids]
    b = [second[i] for i in ids]
    raw, chance, k7 = kappa(a, b)
    braw, bchance, k2 = kappa(["d" if x in DURABLE else "r" for x in a],
                              ["d" if y in DURABLE else "r" for y in b])
    f1, both, na, nb = durable_f1(a, b)
    return {"n": len(ids), "agree7": raw, "kappa7": k7, "agree2": braw, "kappa2": k2,
            "f1": f1, "both": both, "durable_first": na, "durable_second": nb,
            "differ": [(i, first[i], second[i]) for i in ids if first[i] != second[i]]}


def main() -> int:
    first, second = (load(Path(p)) for p in sys.argv[1:3])
    r = compare(first, second)
    print(f"n {r['n']}: 7 classes agreement {r['agree7']:.3f}, kappa {r['kappa7']:.3f}; "
          f"durable vs rest agreement {r['agree2']:.3f}, kappa {r['kappa2']:.3f}, "
          f"F1 {r['f1']:.3f} (both durable {r['both']}, first {r['durable_first']}, "
          f"second {r['durable_second']})")
    for row in r["differ"]:
        print("  ", *row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
