#!/usr/bin/env python3
"""Score capture on whole gold sets by name and keep everything a reviewer needs to read.

The shared scorer prints recall; reading what capture admitted needs the facts themselves.
This runs the same matching (the scorer's own ``matches``, imported from it) on each
transcript of each named set, two transcripts at a time, and writes ``OUT/<set>.json`` with
every admitted fact, every gold fact found or missed (and the fact that matched it) and every
trap hit, so that ``review.py`` can count keep / noise / wrong / dangerous afterwards.

    python bench/memory/score_sets.py --out /tmp/out [--src FROZEN/src] SET...

SET is ``dev`` (the shared fixtures' gold set), ``first`` (``gold/`` over the shared corpus)
or the suffix of a ``gold-<name>/`` folder here (``fresh``, ``third``, ... ``thirtyfourth``);
``blind`` and ``open`` name the groups below. ``--src`` scores a frozen copy of ``src/``
(``git archive REV src | tar -x -C DIR``) with this checkout's interpreter, so a build can be
measured while the tree changes. The agent of each transcript is its folder's name
(``claude-code``, ``codex``, ``gemini-cli``), not a guess from its content, and capture runs
with ``--no-curate``: the curator the shared scorer lets start races the dump, so the same build
could score differently run to run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SHARED = ROOT.parent / "shared"

#: Sets labelled blind and never tuned on (a rule changed after reading one moves it to OPEN).
BLIND = ("sixteenth", "nineteenth", "twentyfirst", "twentythird", "twentyfifth",
         "twentyseventh", "thirtieth", "thirtysecond", "thirtyfourth", "thirtysixth",
         "thirtyeighth")
#: Sets capture's rules were written or narrowed against. The last twelve were blind until the
#: twenty-sixth session, when every other blind set (in the order they were made) became design
#: data: rules grown on the first fifteen stopped moving the blind figures, and the noise the
#: blind sets show had no example left to design on.
OPEN = ("first", "fresh", "third", "fourth", "fifth", "sixth", "eighth", "ninth", "tenth",
        "eleventh", "twelfth", "thirteenth", "fifteenth", "seventeenth", "twentyeighth",
        "fourteenth", "eighteenth", "twentieth", "twentysecond", "twentyfourth", "twentysixth",
        "twentyninth", "thirtyfirst", "thirtythird", "thirtyfifth", "thirtyseventh", "fortieth")
AGENTS = {"claude-code": "claude-code", "codex": "codex", "gemini-cli": "gemini",
          "gemini": "gemini"}


def load_scorer(path: Path):
    spec = importlib.util.spec_from_file_location("memory_score", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def locate(name: str) -> tuple[Path, Path]:
    """(gold folder, transcripts folder) of a set's name."""
    if name == "dev":
        return SHARED / "fixtures" / "gold", SHARED / "fixtures" / "transcripts"
    if name == "first":
        return HERE / "gold", SHARED / "corpus" / "sessions"
    own = HERE / f"gold-{name}" / "sessions"
    # the sets labelled on the shared corpus (fresh, third) have no transcripts of their own
    return HERE / f"gold-{name}", own if own.is_dir() else SHARED / "corpus" / "sessions"


def wrapper(folder: Path, src: Path) -> Path:
    """An executable ``claimgraph`` that runs ``src`` with this checkout's interpreter: what
    the shared scorer calls, so a frozen tree is scored like an installed one."""
    path = folder / "claimgraph"
    python = ROOT / ".venv" / "bin" / "python"
    path.write_text(f'#!/bin/sh\nPYTHONPATH="{src}" exec "{python}" -m claimgraph "$@"\n',
                    encoding="utf-8")
    path.chmod(0o700)
    return path


def expand(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        group = {"blind": BLIND, "open": OPEN}.get(name, (name,))
        out += [n for n in group if locate(n)[0].is_dir()]
    return out


def capture(scorer, claimgraph: Path, transcript: Path) -> list[dict]:
    """The valid facts a fresh store holds after capturing one transcript, as the shared
    scorer reads them (its own throw-away store, its own text of a fact); the agent from the
    folder's name and ``--no-curate`` are passed after the scorer's own arguments (the last
    ``--agent`` given wins)."""
    agent = AGENTS.get(transcript.parent.name, "claude-code")
    return scorer.captured_facts(str(claimgraph), transcript, ["--agent", agent, "--no-curate"])


def score_one(scorer, claimgraph: Path, gold: Path, transcripts: Path) -> dict:
    spec = json.loads(gold.read_text(encoding="utf-8"))
    facts = capture(scorer, claimgraph, transcripts / spec["transcript"])
    texts = [f["text"] for f in facts]
    found = []
    for g in spec["facts"]:
        hit = next((t for t in texts if scorer.matches(g, t)), None)
        found.append({"id": g["id"], "importance": g.get("importance", "medium"),
                      "gold": f"{g.get('subject', '')} | {g.get('object', '')}", "as": hit})
    traps = [{"id": t["id"], "what": t.get("what", ""), "hits": hits}
             for t in spec.get("traps", []) if (hits := [x for x in texts
                                                          if scorer.matches(t, x)])]
    return {"transcript": spec["transcript"], "facts": facts, "gold": found, "traps": traps}


def summary(items: list[dict]) -> dict:
    levels = {lv: [0, 0] for lv in ("high", "medium", "low")}
    for item in items:
        for g in item["gold"]:
            levels[g["importance"]][1] += 1
            levels[g["importance"]][0] += g["as"] is not None
    return {"recall": {lv: f"{a}/{b}" for lv, (a, b) in levels.items()},
            "admitted": sum(len(i["facts"]) for i in items),
            "trap_hits": sum(len(i["traps"]) for i in items)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--src", type=Path, help="a frozen src/ to score instead of this tree's")
    parser.add_argument("--scorer", type=Path, default=Path(
        os.environ.get("MEMORY_SCORE", SHARED / "tools" / "memory_score.py")))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    scorer = load_scorer(args.scorer)
    src = (args.src or ROOT / "src").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.TemporaryDirectory(prefix="score-sets-bin-")
    claimgraph = wrapper(Path(scratch.name), src)
    total = {lv: [0, 0] for lv in ("high", "medium", "low")}
    admitted = traps = 0
    for name in expand(args.sets):
        gold_dir, transcripts = locate(name)
        golds = sorted(gold_dir.glob("*.gold.json"))
        with ThreadPoolExecutor(args.jobs) as pool:
            items = list(pool.map(
                lambda g, where=transcripts: score_one(scorer, claimgraph, g, where), golds))
        result = {"set": name, "src": str(src), **summary(items), "per_transcript": items}
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
        r = result["recall"]
        print(f"{name:14} high {r['high']:>7} medium {r['medium']:>7} low {r['low']:>7} "
              f"admitted {result['admitted']:>4} traps {result['trap_hits']}", flush=True)
        for lv in total:
            a, b = map(int, r[lv].split("/"))
            total[lv][0] += a
            total[lv][1] += b
        admitted += result["admitted"]
        traps += result["trap_hits"]
    print(f"{'TOTAL':14} " + " ".join(f"{lv} {a}/{b}" for lv, (a, b) in total.items())
          + f" admitted {admitted} traps {traps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
