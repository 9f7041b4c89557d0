"""Choose the sentence model's operating point (threshold, phrase floor) on whole sessions.

    python train/operating_point.py --scorer PATH/memory_score.py \\
        --gold GOLD_DIR=TRANSCRIPTS_DIR [--gold ...] \\
        --verdicts FILE [--verdicts ...] [--unjudged OUT.jsonl] [--write]

Cross-validation on sentences (train_classifier.py) says how often a sentence is classed right;
it does not say what a user sees. A sentence-level rule picked 0.70 and, on a blind set of
whole sessions, that threshold dropped facts a reviewer kept without keeping out anything
wrong. This script measures each candidate pair on what capture actually stores:

- Leave one repository out: for each repository of the gold sets, the model is retrained
  without that repository's training rows (``loro.retrained_without``, the shipped C); a gold
  transcript with no repository in the training data (the fixture sessions) uses the model
  trained on everything. The weights are the same for every candidate; only the threshold and
  the floor in the weights file change.
- For each candidate and each gold transcript, ``claimgraph capture`` runs into a throw-away
  store exactly as the gold scorer runs it (its environment, its command), reading those
  weights through ``CLAIMGRAPH_EVAL_SENTENCE_WEIGHTS``; the valid facts are dumped and matched
  with the scorer's own ``matches`` (gold facts found, trap hits).
- Precision: every admitted fact whose source is the user's words (``user-assertion``, the
  facts the threshold decides) is looked up in the reviewers' verdict files (keyed by
  transcript, predicate, subject name and object): keep / noise / wrong / dangerous. A fact no
  file judges is written to ``--unjudged`` to be read and judged by a person, and the choice
  is refused while any is left (``train/data/operating-point-verdicts.jsonl`` holds the ones
  judged for this script).

Capture is deterministic, so a candidate that keeps exactly the same user sentences of a
transcript as one already run stores the same facts: the script runs capture once at the
most permissive candidate with ``--explain``, and runs another candidate only when the set of
sentences it would keep differs (the score in the report is rounded to 0.001, so a sentence
within 0.001 of a candidate's threshold or floor always forces a run of its own).

THE RULE (written down, and committed, before any candidate was measured):

1. Baseline: the point shipped before this script (threshold 0.70, phrase floor 0.50),
   measured in the same run with the same leave-one-repository-out weights.
2. A candidate is admissible when, pooled over every gold transcript,
   (a) its admitted user-statement facts judged wrong or dangerous are at most 5% of its
       admitted user-statement facts, and
   (b) its trap hits (all facts, as the scorer counts them) are not above the baseline's.
3. Among admissible candidates: the most gold facts found (all importances); ties go to more
   high-importance facts found, then fewer admitted facts judged wrong or dangerous, then
   fewer judged noise, then the higher threshold, then the higher floor (stricter).
4. When no candidate is admissible: the candidate with the lowest wrong-or-dangerous share
   among those meeting (b), ties broken as in 3.

AMENDED after the first table was seen (both choices are in docs/capture.md): the rule above
picked 0.75 / 0.40, and at that point one of issue 23's ten plainly stated rules ("let's make
sure we're using US English everywhere", 0.739) is no longer learned -- a failure of the
issue's own acceptance test, which this change must keep (tests/capture/classify). So:

5. (c) joins (b) wherever (b) is required: with the weights to be shipped, every one of issue
   23's ten rules is kept and none of the twenty one-off requests is (``probes``). The probes
   are not training data and are not part of the measurement; they are a hard floor.

``choose`` implements the rule on the table this script writes (``train/operating_point.json``);
``train_classifier.py`` ships the pair that file names, and a test checks that the rule applied
to the committed table gives the shipped pair.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TABLE = HERE / "operating_point.json"
VERDICTS = HERE / "data" / "operating-point-verdicts.jsonl"
#: The point shipped before this script chose one (train/validation.md of that time).
BASELINE = (0.70, 0.50)
THRESHOLDS = (0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80)
FLOORS = (1.0, 0.50, 0.40, 0.30)
MAX_BAD_SHARE = 0.05
BAD = ("wrong", "dangerous")
LEVELS = ("high", "medium", "low")
USER = "user-assertion"


def candidates() -> list[tuple[float, float]]:
    """Every (threshold, floor) tried; a floor at or above the threshold adds nothing (1.0:
    the phrase lists get no say)."""
    return [(t, f) for t in THRESHOLDS for f in FLOORS if f == 1.0 or f < t]


# --- the rule (pure) ----------------------------------------------------------------------------

def bad(row: dict) -> int:
    return sum(row["verdicts"].get(name, 0) for name in BAD)


def share(row: dict) -> float:
    return bad(row) / row["user_facts"] if row["user_facts"] else 0.0


def _preference(row: dict) -> tuple:
    return (row["found"], row["found_high"], -bad(row), -row["verdicts"].get("noise", 0),
            row["threshold"], row["floor"])


def choose(rows: list[dict]) -> tuple[float, float]:
    """The rule of the module docstring, on the table's rows (one per candidate, pooled over
    every gold transcript): each with threshold, floor, found, found_high, trap_hits,
    user_facts, unjudged, verdicts (counts by verdict) and probes_pass. Refuses a table with
    an unjudged fact, or where no candidate meets the trap and probe floors."""
    if any(row["unjudged"] for row in rows):
        raise ValueError("admitted user-statement facts without a verdict: judge them first")
    base = next(row for row in rows if (row["threshold"], row["floor"]) == BASELINE)
    safe = [row for row in rows if row["trap_hits"] <= base["trap_hits"] and row["probes_pass"]]
    if not safe:
        raise ValueError("no candidate keeps issue 23's probes with trap hits at most the "
                         "baseline's")
    admissible = [row for row in safe if share(row) <= MAX_BAD_SHARE]
    if admissible:
        best = max(admissible, key=_preference)
    else:
        best = min(safe, key=lambda row: (share(row), tuple(-x for x in _preference(row))))
    return best["threshold"], best["floor"]


def probes(model, sentences) -> dict:
    """Issue 23's acceptance probes at one candidate (``model`` carries its threshold and
    floor): how many of the ten rules are kept, how many of the twenty requests are, and
    whether that passes (all rules, no request)."""
    from claimgraph.capture.extract.statements import statement_of

    rules = sum(model.verdict(statement_of(s)).kept for s in sentences.RULES)
    requests = sum(model.verdict(statement_of(s)).kept
                   for s in sentences.REQUESTS + sentences.MORE_REQUESTS)
    return {"probe_rules_kept": rules, "probe_requests_kept": requests,
            "probes_pass": rules == len(sentences.RULES) and requests == 0}


def probe_sentences():
    """tests/capture/classify/sentences.py (held out: never training rows)."""
    path = HERE.parent / "tests" / "capture" / "classify" / "sentences.py"
    spec = importlib.util.spec_from_file_location("probe_sentences", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_probes(rows: list[dict], weights: Path) -> list[dict]:
    """Each row with its probe columns, for the weights in ``weights`` at the row's pair."""
    import dataclasses

    from claimgraph.capture.classify.model import Model

    model = Model.from_json(weights.read_text(encoding="utf-8"))
    sentences = probe_sentences()
    return [{**row, **probes(dataclasses.replace(model, threshold=row["threshold"],
                                                 phrase_floor=row["floor"]), sentences)}
            for row in rows]


# --- measuring ----------------------------------------------------------------------------------

def load_scorer(path: Path):
    spec = importlib.util.spec_from_file_location("memory_score", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_verdicts(paths: list[Path]) -> dict[tuple, str]:
    found: dict[tuple, str] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[key(row)] = row["verdict"]
    return found


def key(fact: dict) -> tuple:
    return (fact["transcript"], fact["predicate"], fact["subject"], fact["object"])


def capture(scorer, claimgraph: Path, transcript: Path, weights: Path) -> tuple[list, list]:
    """(valid facts as dicts with subject name, predicate, object, source_type and text;
    the capture report's explain list), capture run as the gold scorer runs it."""
    with tempfile.TemporaryDirectory(prefix="op-point-", ignore_cleanup_errors=True) as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
        env.update(HOME=tmp, XDG_DATA_HOME=f"{tmp}/data", XDG_CONFIG_HOME=f"{tmp}/config",
                   XDG_STATE_HOME=f"{tmp}/state", CLAIMGRAPH_DB=f"{tmp}/db/claims.db",
                   CLAIMGRAPH_EVAL_SENTENCE_WEIGHTS=str(weights))
        os.makedirs(f"{tmp}/db")
        cap = subprocess.run([str(claimgraph), "--json", "capture", str(transcript), "--agent",
                              scorer.agent_of(transcript), "--explain"],
                             env=env, capture_output=True, text=True, timeout=900)
        if cap.returncode != 0:
            raise RuntimeError(f"capture exited {cap.returncode}: {cap.stderr[-300:]}")
        report = json.loads(cap.stdout.strip().splitlines()[-1])
        dump = subprocess.run([str(claimgraph), "dump"], env=env, capture_output=True,
                              text=True, timeout=300, check=True)
    records = [json.loads(line) for line in dump.stdout.splitlines() if line.strip()]
    names = {r["id"]: r.get("name", "") for r in records if r.get("record") == "entity"}
    facts = []
    for f in records:
        if f.get("record") != "fact" or f.get("t_invalid"):
            continue
        obj = (f["object_lit"] if f.get("object_lit") is not None
               else names.get(f.get("object_ref"), f.get("object_ref")))
        subject = names.get(f.get("subject"), f.get("subject"))
        predicate = f.get("predicate") or "?"
        facts.append({"subject": subject, "predicate": predicate, "object": obj,
                      "source_type": f.get("source_type") or "?",
                      "text": f"{subject} | {predicate.split('/')[-1]} | {obj}"})
    return facts, report.get("explain", [])


def measure(scorer, gold: dict, facts: list[dict], transcript: str) -> dict:
    texts = [f["text"] for f in facts]
    found = [g for g in gold["facts"] if any(scorer.matches(g, t) for t in texts)]
    traps = [t for t in gold.get("traps", []) if any(scorer.matches(t, x) for x in texts)]
    user = [f for f in facts if f["source_type"] == USER]
    user_traps = [t for t in gold.get("traps", [])
                  if any(scorer.matches(t, f["text"]) for f in user)]
    return {"found": [g["id"] for g in found],
            "found_by_level": {lv: sum(1 for g in found if g.get("importance", "medium") == lv)
                               for lv in LEVELS},
            "gold": len(gold["facts"]), "traps": [t["id"] for t in traps],
            "user_traps": [t["id"] for t in user_traps], "captured": len(facts),
            "user_facts": [{"transcript": transcript, "predicate": f["predicate"],
                            "subject": f["subject"], "object": f["object"]} for f in user]}


def keeps(explain: list[dict], threshold: float, floor: float, classify) -> frozenset | None:
    """The user sentences a candidate keeps, from the most permissive run's report; None when
    a rounded score is too near the candidate's threshold or floor to tell."""
    kept = set()
    for entry in explain:
        if not entry["kept"]:
            continue
        score = entry["score"]
        vote = classify(entry["sentence"]) is not None
        edges = (threshold, floor) if vote else (threshold,)
        if any(abs(score - edge) <= 0.0011 for edge in edges):
            return None
        if score >= threshold or (vote and score >= floor):
            kept.add((entry["line"], entry["sentence"]))
    return frozenset(kept)


def repository_of(transcript: str, known: set[str]) -> str | None:
    """The training repository a gold transcript comes from (None: none of the training
    data's, e.g. a fixture session)."""
    import loro

    repo = loro.repository(transcript)
    return repo if repo in known else None


def weights_for(repo: str | None, rows: list[dict], shipped: dict, tmp: Path,
                cache: dict) -> dict:
    """Per candidate, a weights file trained without ``repo`` (None: on everything)."""
    import train_classifier as trainer
    import numpy as np

    if repo in cache:
        return cache[repo]
    kept = [row for row in rows if row["repo"] != repo]
    model = trainer.fit(trainer.matrix(kept), np.array([row["label"] for row in kept]),
                        shipped["c"])
    files = {}
    for threshold, floor in candidates():
        path = tmp / f"{(repo or 'all').replace('/', '__')}-{threshold}-{floor}.json"
        path.write_text(trainer.export(model, threshold, floor, len(kept)), encoding="utf-8")
        files[(threshold, floor)] = path
    cache[repo] = files
    print(f"op-point: weights without {repo}: {len(rows) - len(kept)} rows left out",
          file=sys.stderr, flush=True)
    return files


def run_transcript(scorer, claimgraph: Path, gold_path: Path, transcripts: Path,
                   files: dict) -> dict:
    """Every candidate's measure on one gold transcript (capture once per distinct kept set)."""
    from claimgraph.capture.classify.phrases import classify

    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    path = transcripts / gold["transcript"]
    loosest = (min(THRESHOLDS), min(FLOORS))  # keeps a superset of every other candidate
    facts, explain = capture(scorer, claimgraph, path, files[loosest])
    done: dict[frozenset, dict] = {}
    out = {}
    runs = 1
    for pair in candidates():
        kept = keeps(explain, *pair, classify)
        if pair == loosest:
            result = measure(scorer, gold, facts, gold["transcript"])
        elif kept is not None and kept in done:
            result = done[kept]
        else:
            result = measure(scorer, gold, capture(scorer, claimgraph, path, files[pair])[0],
                             gold["transcript"])
            runs += 1
        if kept is not None:
            done.setdefault(kept, result)
        out[f"{pair[0]:.2f}/{pair[1]:.2f}"] = result
    print(f"op-point: {gold['transcript']}: {runs} capture runs", file=sys.stderr, flush=True)
    return out


def pooled(per_transcript: dict, verdicts: dict[tuple, str]) -> tuple[list[dict], list[dict]]:
    """(one row per candidate, pooled over transcripts; the admitted user facts no verdict
    file judges)."""
    rows, unjudged = [], {}
    for pair in candidates():
        name = f"{pair[0]:.2f}/{pair[1]:.2f}"
        row = {"threshold": pair[0], "floor": pair[1], "found": 0, "found_high": 0, "gold": 0,
               "trap_hits": 0, "user_trap_hits": 0, "captured": 0, "user_facts": 0,
               "unjudged": 0, "verdicts": {}}
        for result in per_transcript.values():
            r = result[name]
            row["found"] += len(r["found"])
            row["found_high"] += r["found_by_level"]["high"]
            row["gold"] += r["gold"]
            row["trap_hits"] += len(r["traps"])
            row["user_trap_hits"] += len(r["user_traps"])
            row["captured"] += r["captured"]
            row["user_facts"] += len(r["user_facts"])
            for fact in r["user_facts"]:
                verdict = verdicts.get(key(fact))
                if verdict is None:
                    row["unjudged"] += 1
                    unjudged[key(fact)] = fact
                else:
                    row["verdicts"][verdict] = row["verdicts"].get(verdict, 0) + 1
        rows.append(row)
    return rows, list(unjudged.values())


def table(rows: list[dict], chosen: tuple[float, float] | None) -> str:
    lines = ["| threshold | floor | gold found (high) | trap hits (by user facts) | captured | "
             "user facts | keep | noise | wrong | dangerous | wrong+dangerous share | "
             "issue 23 probes: rules kept, requests kept | |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        v = row["verdicts"]
        mark = []
        if (row["threshold"], row["floor"]) == BASELINE:
            mark.append("before")
        if chosen and (row["threshold"], row["floor"]) == chosen:
            mark.append("**chosen**")
        floor = "–" if row["floor"] == 1.0 else f"{row['floor']:.2f}"
        lines.append(f"| {row['threshold']:.2f} | {floor} | {row['found']}/{row['gold']} "
                     f"({row['found_high']}) | {row['trap_hits']} ({row['user_trap_hits']}) | "
                     f"{row['captured']} | {row['user_facts']} | {v.get('keep', 0)} | "
                     f"{v.get('noise', 0)} | {v.get('wrong', 0)} | {v.get('dangerous', 0)} | "
                     f"{share(row):.3f} | {row['probe_rules_kept']}/10, "
                     f"{row['probe_requests_kept']}/20 | {' '.join(mark)} |")
    return "\n".join(lines)


def set_name(gold_dir: Path) -> str:
    """A gold set's name in the table: its folder and the folder above ("memory/gold-third",
    "fixtures/gold"), so that two sets both called "gold" stay apart."""
    return f"{gold_dir.resolve().parent.name}/{gold_dir.name}"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    import train_classifier as trainer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scorer", type=Path, required=True)
    parser.add_argument("--gold", action="append", default=[],
                        help="GOLD_DIR=TRANSCRIPTS_DIR (repeatable; not needed with an "
                             "existing --runs file)")
    parser.add_argument("--verdicts", type=Path, action="append", default=[])
    parser.add_argument("--claimgraph", type=Path,
                        default=Path(sys.executable).with_name("claimgraph"))
    parser.add_argument("--runs", type=Path, help="keep every run's measures here (JSON); "
                        "when the file exists, reuse it instead of capturing again")
    parser.add_argument("--unjudged", type=Path, help="write unjudged user facts here")
    parser.add_argument("--write", action="store_true", help=f"write {TABLE.name}")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--candidate", action="store_true",
                        help="leave-one-out weights of train_classifier's candidate "
                        "(CANDIDATE); write its weights first (train_classifier.py --candidate)")
    parser.add_argument("--with-conversational", action="store_true",
                        help="leave-one-out weights with train_classifier's CONVERSATIONAL rows "
                        "(the weights file must hold that model: --with-conversational "
                        "--write-weights)")
    args = parser.parse_args()
    trainer.CANDIDATE = args.candidate
    trainer.WITH_CONVERSATIONAL = args.with_conversational
    scorer = load_scorer(args.scorer)
    verdicts = load_verdicts(args.verdicts + ([VERDICTS] if VERDICTS.exists() else []))
    if not args.gold and not (args.runs and args.runs.exists()):
        parser.error("give --gold, or an existing --runs file")
    if args.runs and args.runs.exists():
        per_transcript = json.loads(args.runs.read_text(encoding="utf-8"))
    else:
        before = digest(trainer.OUT)
        shipped = json.loads(trainer.OUT.read_text(encoding="utf-8"))
        rows = trainer.training_rows()
        known = {row["repo"] for row in rows}
        jobs = []
        with tempfile.TemporaryDirectory(prefix="op-weights-") as tmp:
            cache: dict = {}
            for spec in args.gold:
                gold_dir, transcripts = (Path(p) for p in spec.split("=", 1))
                for gold_path in sorted(gold_dir.glob("*.gold.json")):
                    transcript = json.loads(gold_path.read_text(encoding="utf-8"))["transcript"]
                    files = weights_for(repository_of(transcript, known), rows, shipped,
                                        Path(tmp), cache)
                    jobs.append((f"{set_name(gold_dir)}/{gold_path.name}", gold_path,
                                 transcripts.resolve(), files))
            with ThreadPoolExecutor(args.jobs) as pool:
                results = pool.map(lambda job: (job[0], run_transcript(
                    scorer, args.claimgraph, job[1], job[2], job[3])), jobs)
                per_transcript = dict(results)
        if digest(trainer.OUT) != before:
            raise SystemExit("op-point: the shipped weights file changed during the run")
        if args.runs:
            args.runs.write_text(json.dumps(per_transcript, indent=1, sort_keys=True),
                                 encoding="utf-8")
    rows, unjudged = pooled(per_transcript, verdicts)
    rows = with_probes(rows, trainer.OUT)
    if args.unjudged:
        args.unjudged.write_text("".join(json.dumps(f) + "\n" for f in unjudged),
                                 encoding="utf-8")
    chosen = None if unjudged else choose(rows)
    print(table(rows, chosen))
    print(f"\n{len(per_transcript)} gold transcripts; unjudged user facts: {len(unjudged)}; "
          f"chosen: {chosen}")
    if args.write:
        if chosen is None:
            raise SystemExit("op-point: judge every admitted user fact before writing")
        TABLE.write_text(json.dumps({"rule": "train/operating_point.py (module docstring)",
                                     "baseline": list(BASELINE), "chosen": list(chosen),
                                     "transcripts": sorted(per_transcript),
                                     "candidates": rows}, indent=1, sort_keys=True) + "\n",
                         encoding="utf-8")
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
