#!/usr/bin/env python3
"""Per-repository figures from the gold scorer's ``--json`` output.

    python memory_score.py ... --json > scored.json
    python bench/memory/by_repository.py scored.json [--gold bench/memory/gold]

A transcript's repository is the ``owner__name__`` prefix of its file name (the layout of the
blind gold set); other transcripts count under their agent directory. Prints, per repository,
recall by importance, facts captured and trap hits, then the total.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

LEVELS = ("high", "medium", "low")


def repository(transcript: str) -> str:
    name = Path(transcript).name
    parts = name.split("__")
    return f"{parts[0]}/{parts[1]}" if len(parts) >= 3 else Path(transcript).parent.name


def importance(gold_dir: Path) -> dict[str, dict[str, str]]:
    """transcript -> gold fact id -> importance."""
    found = {}
    for path in sorted(gold_dir.glob("*.gold.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        found[doc["transcript"]] = {f["id"]: f.get("importance", "low") for f in doc["facts"]}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scored", type=Path)
    parser.add_argument("--gold", type=Path, default=Path(__file__).parent / "gold")
    args = parser.parse_args()
    scored = json.loads(args.scored.read_text(encoding="utf-8"))
    levels = importance(args.gold)
    rows: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    extra: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for item in scored["per_transcript"]:
        repo = repository(item["transcript"])
        imp = next((v for k, v in levels.items() if item["transcript"].endswith(k)), {})
        for fid, level in imp.items():
            rows[repo][level][1] += 1
            rows[repo][level][0] += fid in item["found_ids"]
        extra[repo][0] += item["captured"]
        extra[repo][1] += len(item.get("trap_ids") or [])
        extra[repo][2] += 1
    print(f"{'repository':34} {'sessions':>8} " + " ".join(f"{lv:>9}" for lv in LEVELS)
          + f" {'captured':>8} {'traps':>5}")
    for repo in sorted(rows):
        cells = " ".join(f"{rows[repo][lv][0]:>4}/{rows[repo][lv][1]:<4}" for lv in LEVELS)
        print(f"{repo:34} {extra[repo][2]:>8} {cells} {extra[repo][0]:>8} {extra[repo][1]:>5}")


if __name__ == "__main__":
    main()
