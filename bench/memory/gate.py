#!/usr/bin/env python3
"""A capture change judged by the repositories it was NOT designed on: a gate, not a report line.

    python bench/memory/gate.py --base BASE_OUT --cand CAND_OUT --verdicts V.tsv \
        --design SET_OR_REPO... [--sets SET...]

BASE_OUT and CAND_OUT are two ``score_sets.py --out`` folders scored on the same sets (one
``<set>.json`` each). ``--design`` names what the change was written against: gold sets by
name and/or repositories as ``owner/name``. Every other repository of the scored sets is held
out. For each side the gate counts, per repository, the facts the change added and removed by
their verdict (K keep, N noise, W wrong, D dangerous, ? unread) and the gold facts it newly
found or lost by importance.

Why a gate: rules tuned on the sets they were written against have won there and lost on held-out
sessions, more than once; a gain that shows only where the change was designed is not a gain.
The change FAILS when, on the held-out repositories, it

- removes a kept fact or loses a high-importance gold fact,
- adds a wrong or dangerous fact,
- leaves a changed fact unread (read it and record its verdict first), or
- gains nothing while the design repositories gain (in-sample only),

or when a set or transcript was scored on one side only (a run that failed part way).

A change meant to keep output identical passes only if nothing changed at all (``--identical``).
Exit status 0 on PASS, 1 on FAIL.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from review import Verdicts, read_lines  # noqa: E402

KINDS = "KNWD?"


def repository(transcript: str) -> str:
    parts = Path(transcript).name.split("__")
    return f"{parts[0]}/{parts[1]}" if len(parts) >= 3 else Path(transcript).parent.name


def load(folder: Path, sets: list[str] | None) -> dict[str, dict]:
    """set name -> transcript -> (facts as a Counter of texts, gold id -> (importance, found))."""
    out: dict[str, dict] = {}
    for path in sorted(folder.glob("*.json")):
        scored = json.loads(path.read_text(encoding="utf-8"))
        name = scored.get("set", path.stem)
        if sets and name not in sets:
            continue
        out[name] = {item["transcript"]: (Counter(f["text"] for f in item["facts"]),
                                          {g["id"]: (g["importance"], g["as"] is not None)
                                           for g in item["gold"]})
                     for item in scored["per_transcript"]}
    return out


class Tally:
    """What a change did to one group of repositories."""

    def __init__(self) -> None:
        self.added: Counter = Counter()
        self.removed: Counter = Counter()
        self.found: Counter = Counter()
        self.lost: Counter = Counter()
        self.repos: set[str] = set()

    def gain(self) -> int:
        """Kept facts added, noise and wrong facts removed, gold newly found (minus losses)."""
        return (self.added["K"] + self.removed["N"] + self.removed["W"] + self.removed["D"]
                - self.removed["K"] - self.added["N"] - self.added["W"] - self.added["D"]
                + sum(self.found.values()) - sum(self.lost.values()))

    def changed(self) -> bool:
        return bool(sum(self.added.values()) or sum(self.removed.values())
                    or sum(self.found.values()) or sum(self.lost.values()))

    def line(self, label: str) -> str:
        kinds = lambda c: " ".join(f"{k}{c[k]}" for k in KINDS if c[k]) or "-"  # noqa: E731
        gold = lambda c: " ".join(f"{k}{c[k]}" for k in ("high", "medium", "low") if c[k]) or "-"  # noqa: E731
        return (f"{label:10} {len(self.repos):3} repos  added [{kinds(self.added)}]  removed "
                f"[{kinds(self.removed)}]  gold found [{gold(self.found)}] lost "
                f"[{gold(self.lost)}]  gain {self.gain():+d}")


def compare(base: dict, cand: dict, verdicts: Verdicts, design: set[str]) -> dict[str, Tally]:
    groups = {"design": Tally(), "held-out": Tally()}
    for set_name in sorted(set(base) & set(cand)):
        for transcript in sorted(set(base[set_name]) & set(cand[set_name])):
            repo = repository(transcript)
            group = groups["design" if set_name in design or repo in design else "held-out"]
            group.repos.add(repo)
            (before, gold_before), (after, gold_after) = (base[set_name][transcript],
                                                          cand[set_name][transcript])
            for text, n in (after - before).items():
                group.added[verdicts.get(transcript, text) or "?"] += n
            for text, n in (before - after).items():
                group.removed[verdicts.get(transcript, text) or "?"] += n
            for gid, (level, was) in gold_before.items():
                now = gold_after.get(gid, (level, was))[1]
                if now and not was:
                    group.found[level] += 1
                elif was and not now:
                    group.lost[level] += 1
    return groups


def one_sided(base: dict, cand: dict, asked: list[str] | None = None) -> list[str]:
    """Sets and transcripts scored on one side only (a run that failed part way, a wrong
    folder), and sets ``--sets`` asked for that neither side scored: the gate compares what
    both sides scored, so without this a candidate that lost a held-out transcript would be
    judged on the rest and could pass. Nothing scored at all fails too."""
    if not base and not cand:
        return ["nothing scored on either side"]
    missing = [f"{name} (set)" for name in sorted(
        (set(base) ^ set(cand)) | (set(asked or ()) - set(base) - set(cand)))]
    for name in sorted(set(base) & set(cand)):
        missing += [f"{name}: {t}" for t in sorted(set(base[name]) ^ set(cand[name]))]
    return [f"scored on one side only: {', '.join(missing)}"] if missing else []


def verdict(groups: dict[str, Tally], identical: bool) -> list[str]:
    """The reasons the change fails (none: it passes)."""
    held, designed = groups["held-out"], groups["design"]
    if identical:
        return [f"{name} changed" for name, g in groups.items() if g.changed()]
    reasons = []
    if held.removed["K"]:
        reasons.append(f"held-out: {held.removed['K']} kept fact(s) removed")
    if held.lost["high"]:
        reasons.append(f"held-out: {held.lost['high']} high gold fact(s) lost")
    if held.added["W"] or held.added["D"]:
        reasons.append("held-out: wrong or dangerous facts added")
    if held.added["?"] or held.removed["?"]:
        reasons.append("held-out: changed facts nobody has read (judge them first)")
    if held.gain() <= 0 and designed.gain() > 0:
        reasons.append("gain only where the change was designed (in-sample only)")
    return reasons


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--cand", type=Path, required=True)
    parser.add_argument("--verdicts", type=Path, action="append", required=True,
                        help="verdict files (later files win); give each group's file")
    parser.add_argument("--design", nargs="*", default=[],
                        help="sets by name and repositories as owner/name the change was "
                             "written against")
    parser.add_argument("--sets", nargs="*", help="only these sets (default: every set in both)")
    parser.add_argument("--identical", action="store_true",
                        help="the change must not alter any admitted fact or gold match")
    args = parser.parse_args(argv)
    rows: list[list[str]] = []
    for path in args.verdicts:
        rows += read_lines(path)
    base, cand = load(args.base, args.sets), load(args.cand, args.sets)
    groups = compare(base, cand, Verdicts(rows), set(args.design))
    for name, tally in groups.items():
        print(tally.line(name))
    reasons = one_sided(base, cand, args.sets) + verdict(groups, args.identical)
    print("PASS" if not reasons else "FAIL: " + "; ".join(reasons))
    return 1 if reasons else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
