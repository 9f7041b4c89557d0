"""Does a capture change keep capture's output? This tree against another checkout, transcript
by transcript: the admitted facts, the evidence segment's name, the report's counts,
redactions and inadmissible list must be the same.

Each tree captures every transcript (the gold sets' own ``sessions/``, or the shared corpus
for the first sets, and ``tests/fixtures/transcripts``) into a fresh store, in its own
process (``PYTHONPATH`` = that tree's ``src``), and writes one JSON line per transcript: the
facts as stored, sorted, with what differs from run to run dropped (ids, record times, the
episode, the successor; a successor's id inside an invalidation reason masked) and entity ids
replaced by their names. The two files are compared.
Only timing-free checks: for a performance change, every line must be equal.

Usage: .venv/bin/python bench/bench_capture_identity.py --base-src /tmp/base/src
       [--sets gold,gold-fresh,...] [--keep DIR]
       .venv/bin/python bench/bench_capture_identity.py --hash-seeds 0,1 [--sets ...]
       (this tree twice under two PYTHONHASHSEED values: capture must be deterministic)
The default sets are the ones tuned on or measured already (README's table); a blind set
is not opened unless named.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path("/work/shared/corpus/sessions")  # where the first sets' transcripts live
SETS = ("gold,gold-fresh,gold-third,gold-fourth,gold-fifth,gold-sixth,gold-eighth,gold-ninth,"
        "gold-tenth,gold-eleventh,gold-twelfth,gold-thirteenth,gold-fifteenth,gold-seventeenth")
_AGENTS = {"claude-code": "claude-code", "codex": "codex", "gemini-cli": "gemini",
           "gemini": "gemini"}
#: Set for ``--hash-seeds``: the facts are compared in the store's order too (a dump lists them
#: in it, and the scorer takes the first fact that matches).
_IN_ORDER = "CAPTURE_IDENTITY_IN_ORDER"
#: A fact's id inside a text (an invalidation reason names the successor): drawn at random.
_FACT_ID = re.compile(r"\bf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_RUN_DEPENDENT = ("id", "recorded_at", "last_reinforced_at", "episode", "successor")


def transcripts(sets: list[str], corpus: Path) -> list[Path]:
    """Each set's transcripts (as its gold files name them), then the test fixtures."""
    found: list[Path] = []
    for name in sets:
        folder = ROOT / "bench" / "memory" / name
        base = folder / "sessions" if (folder / "sessions").is_dir() else corpus
        for gold in sorted(folder.glob("*.gold.json")):
            path = base / json.loads(gold.read_text())["transcript"]
            if path.exists():
                found.append(path)
            else:
                print(f"missing: {path}", file=sys.stderr)
    fixtures = glob.glob(str(ROOT / "tests/fixtures/transcripts/*/*.json*"))
    found += [Path(p) for p in sorted(fixtures)]
    return list(dict.fromkeys(found))


def _named(value: object, names: dict[str, str]) -> object:
    if isinstance(value, dict):
        return [value.get("name"), value.get("type"), value.get("scope"),
                sorted(value.get("aliases") or [])]
    return names.get(value, value) if isinstance(value, str) else value


def captured(path: Path) -> dict[str, object]:
    """One transcript captured into a fresh store in a throw-away home; what it admitted."""
    from claimgraph.capture import run
    from claimgraph.opening import open_store

    with tempfile.TemporaryDirectory() as home:
        os.environ.update(HOME=home, XDG_CONFIG_HOME=f"{home}/config",
                          XDG_DATA_HOME=f"{home}/data", XDG_STATE_HOME=f"{home}/state")
        db = Path(home) / "db" / "claims.db"
        db.parent.mkdir()
        os.environ["CLAIMGRAPH_DB"] = str(db)
        request = run.make_request(str(path), agent=_AGENTS.get(path.parent.name),
                                   environ=dict(os.environ))
        report = run.capture(request, run.Options(db=db, environ=dict(os.environ)))
        store = open_store(db)
        try:
            names = {e["id"]: e.get("name") for e in store.list_entities()}
            facts = []
            for fact in store.all_facts():
                row = {k: v for k, v in dict(fact).items() if k not in _RUN_DEPENDENT}
                row["conflicts"] = len(row.get("conflicts") or [])  # ids of this run's facts
                if isinstance(row.get("invalidation_reason"), str):  # "superseded by f-<id>"
                    row["invalidation_reason"] = _FACT_ID.sub("f-…", row["invalidation_reason"])
                row["subject"] = _named(row.get("subject"), names)
                if row.get("object_ref"):
                    row["object_ref"] = _named(row["object_ref"], names)
                facts.append(json.dumps(row, sort_keys=True, default=str))
        finally:
            store.close()
    return {"transcript": str(path), "status": report.get("status"),
            "evidence": report.get("evidence"), "events": report.get("events"),
            "candidates": report.get("candidates"), "counts": report.get("counts"),
            "redactions": report.get("redactions"), "inadmissible": report.get("inadmissible"),
            "facts": facts if os.environ.get(_IN_ORDER) else sorted(facts)}


def child(out: str, paths: list[str]) -> None:
    with open(out, "w") as handle:
        for path in paths:
            try:
                row = captured(Path(path))
            except Exception as exc:  # noqa: BLE001 - a failure is a difference to show
                row = {"transcript": path, "error": repr(exc)}
            handle.write(json.dumps(row, sort_keys=True) + "\n")


def run_tree(src: str, paths: list[Path], out: Path, seed: str | None = None) -> None:
    env = {**os.environ, "PYTHONPATH": src}
    if seed is not None:  # string hashing differs per process unless pinned
        env["PYTHONHASHSEED"] = seed
        env[_IN_ORDER] = "1"
    listed = out.with_suffix(".list")
    listed.write_text("\n".join(map(str, paths)))
    subprocess.run([sys.executable, __file__, "--child", str(out), str(listed)], env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def compare(base: Path, ours: Path) -> int:
    rows = [{json.loads(line)["transcript"]: json.loads(line) for line in open(p)}
            for p in (base, ours)]
    differ = 0
    for transcript in sorted(set(rows[0]) | set(rows[1])):
        a, b = rows[0].get(transcript), rows[1].get(transcript)
        if a != b:
            differ += 1
            print(f"DIFFERS {transcript}")
            for key in sorted(set(a or {}) | set(b or {})):
                if (a or {}).get(key) != (b or {}).get(key):
                    print(f"  {key}: base {str((a or {}).get(key))[:300]}")
                    print(f"  {key}: ours {str((b or {}).get(key))[:300]}")
    facts = sum(len(r.get("facts") or []) for r in rows[0].values())
    errors = sum("error" in r for r in rows[1].values())
    print(f"{len(rows[0])} transcripts, {facts} admitted facts (base), {errors} errors (ours); "
          f"{differ} differ")
    return 1 if differ else 0


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]).read_text().splitlines())
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", help="the other checkout's src/")
    parser.add_argument("--sets", default=SETS, help="comma-separated bench/memory folders")
    parser.add_argument("--corpus", default=str(CORPUS),
                        help="where the sets without sessions/ keep their transcripts")
    parser.add_argument("--keep", help="write the two JSONL files here (else a temp dir)")
    parser.add_argument("--hash-seeds", metavar="A,B",
                        help="instead of two trees: this tree twice, under these two "
                             "PYTHONHASHSEED values (capture must not depend on string hashing)")
    args = parser.parse_args()
    if args.hash_seeds:
        first, second = args.hash_seeds.split(",")
        paths = transcripts([s for s in args.sets.split(",") if s], Path(args.corpus))
        with tempfile.TemporaryDirectory() as scratch:
            where = Path(args.keep or scratch)
            where.mkdir(parents=True, exist_ok=True)
            run_tree(str(ROOT / "src"), paths, where / f"seed{first}.jsonl", first)
            run_tree(str(ROOT / "src"), paths, where / f"seed{second}.jsonl", second)
            return compare(where / f"seed{first}.jsonl", where / f"seed{second}.jsonl")
    if not args.base_src:
        parser.error("--base-src is required (or --hash-seeds)")
    paths = transcripts([s for s in args.sets.split(",") if s], Path(args.corpus))
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(args.keep or scratch)
        where.mkdir(parents=True, exist_ok=True)
        run_tree(str(Path(args.base_src).resolve()), paths, where / "base.jsonl")
        run_tree(str(ROOT / "src"), paths, where / "ours.jsonl")
        return compare(where / "base.jsonl", where / "ours.jsonl")


if __name__ == "__main__":
    raise SystemExit(main())
