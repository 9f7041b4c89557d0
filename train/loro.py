"""Leave one repository out: what capture finds on a repository's gold sessions when the
sentence model never saw that repository's sentences, against the shipped weights.

    python train/loro.py --scorer PATH/memory_score.py --transcripts DIR \\
        --gold bench/memory/gold [--gold bench/memory/gold-fresh] [--json OUT]

For each repository R of the gold sets (a transcript's ``owner__name__`` prefix): retrain the
model on the training rows (``train_classifier.training_rows``) without R's, at the shipped
C, threshold and phrase floor, write the weights to a temporary file, and run the gold scorer
on R's gold sessions with ``CLAIMGRAPH_EVAL_SENTENCE_WEIGHTS`` pointing at it; the shipped
weights are scored on the same sessions in the same run. The shipped weights file is never
written (its digest is checked before and after). Needs scikit-learn, like the training
script. Cross-validation (train_classifier.py) says how the model does on sentences from
unseen repositories; this says what that means for whole sessions: the facts found by
importance, what was admitted, and trap hits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_classifier as trainer  # noqa: E402

from claimgraph.capture.classify.model import EVAL_WEIGHTS_ENV  # noqa: E402

LEVELS = ("high", "medium", "low")


def repository(transcript: str) -> str:
    """``owner/name`` from a gold transcript's file name (``owner__name__rest``)."""
    parts = Path(transcript).name.split("__")
    return f"{parts[0]}/{parts[1]}" if len(parts) >= 3 else Path(transcript).parent.name


def gold_files(gold: Path) -> dict[str, list[Path]]:
    """Repository -> its gold files in ``gold``."""
    found: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(gold.glob("*.gold.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        found[repository(doc["transcript"])].append(path)
    return dict(found)


def retrained_without(repo: str, rows: list[dict], shipped: dict, out: Path) -> int:
    """Fit on every row not from ``repo``, export at the shipped operating point to ``out``;
    the number of rows left out."""
    kept = [row for row in rows if row["repo"] != repo]
    x = trainer.matrix(kept)
    y = np.array([row["label"] for row in kept])
    model = trainer.fit(x, y, shipped["c"])
    out.write_text(trainer.export(model, shipped["threshold"], shipped["phrase_floor"],
                                  len(kept)), encoding="utf-8")
    return len(rows) - len(kept)


def score(scorer: Path, claimgraph: Path, transcripts: Path, golds: list[Path],
          weights: Path | None) -> dict:
    """The scorer's ``--json`` summary for ``golds`` (copied into a directory of their own),
    capture reading ``weights`` (None: the shipped file)."""
    env = {k: v for k, v in os.environ.items() if k != EVAL_WEIGHTS_ENV}
    if weights is not None:
        env[EVAL_WEIGHTS_ENV] = str(weights)
    with tempfile.TemporaryDirectory(prefix="loro-gold-") as tmp:
        for path in golds:
            (Path(tmp) / path.name).write_bytes(path.read_bytes())
        out = subprocess.run([sys.executable, str(scorer), "--claimgraph", str(claimgraph),
                              "--gold", tmp, "--transcripts", str(transcripts), "--json"],
                             env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"loro: the scorer failed: {out.stderr.strip()[-400:]}")
    return summarize(json.loads(out.stdout), golds)


def summarize(scored: dict, golds: list[Path]) -> dict:
    """Found / total by importance, facts captured (and how many as the user's words), trap
    hits."""
    levels = {}
    for path in golds:
        doc = json.loads(path.read_text(encoding="utf-8"))
        levels[doc["transcript"]] = {f["id"]: f.get("importance", "medium") for f in doc["facts"]}
    found = {level: [0, 0] for level in LEVELS}
    for item in scored["per_transcript"]:
        for fid, level in levels.get(item["transcript"], {}).items():
            found[level][1] += 1
            found[level][0] += fid in item["found_ids"]
    return {"found": found, "captured": scored["captured"], "trap_hits": scored["trap_hits"],
            "user": scored["by_source"].get("user-assertion", 0)}


def cell(summary: dict) -> str:
    found = " ".join(f"{summary['found'][lv][0]}/{summary['found'][lv][1]}" for lv in LEVELS)
    return (f"{found} | {summary['captured']} ({summary['user']}) | {summary['trap_hits']}")


def add(total: dict, summary: dict) -> None:
    for level in LEVELS:
        for i in (0, 1):
            total["found"][level][i] += summary["found"][level][i]
    for key in ("captured", "trap_hits", "user"):
        total[key] += summary[key]


def empty() -> dict:
    return {"found": {level: [0, 0] for level in LEVELS}, "captured": 0, "trap_hits": 0,
            "user": 0}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorer", type=Path, required=True, help="the gold scorer script")
    parser.add_argument("--transcripts", type=Path, required=True,
                        help="directory of <agent>/<transcript> files the gold files name")
    parser.add_argument("--gold", type=Path, action="append", required=True,
                        help="a directory of *.gold.json files (repeatable)")
    parser.add_argument("--claimgraph", type=Path,
                        default=Path(sys.executable).with_name("claimgraph"))
    parser.add_argument("--repo", action="append", help="only these repositories")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    before = digest(trainer.OUT)
    shipped = json.loads(trainer.OUT.read_text(encoding="utf-8"))
    rows = trainer.training_rows()
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="loro-weights-") as tmp:
        weights: dict[str, Path] = {}
        for gold in args.gold:
            lines = [f"### {gold}", "",
                     "| repository | rows left out | shipped: high medium low found | captured "
                     "(as the user's) | traps | LORO: high medium low found | captured | traps |",
                     "|---|---|---|---|---|---|---|---|"]
            totals = {"shipped": empty(), "loro": empty()}
            for repo, golds in gold_files(gold).items():
                if args.repo and repo not in args.repo:
                    continue
                if repo not in weights:
                    weights[repo] = Path(tmp) / f"{repo.replace('/', '__')}.json"
                    left = retrained_without(repo, rows, shipped, weights[repo])
                    results.setdefault("left_out", {})[repo] = left
                base = score(args.scorer, args.claimgraph, args.transcripts, golds, None)
                loro = score(args.scorer, args.claimgraph, args.transcripts, golds, weights[repo])
                add(totals["shipped"], base)
                add(totals["loro"], loro)
                results.setdefault(str(gold), {})[repo] = {"shipped": base, "loro": loro}
                lines.append(f"| {repo} | {results['left_out'][repo]} | {cell(base)} | "
                             f"{cell(loro)} |")
                print(lines[-1], file=sys.stderr, flush=True)
            lines.append(f"| **all** | | {cell(totals['shipped'])} | {cell(totals['loro'])} |")
            results.setdefault("totals", {})[str(gold)] = totals
            print("\n".join(lines) + "\n", flush=True)
    if digest(trainer.OUT) != before:
        raise SystemExit("loro: the shipped weights file changed during the run")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
