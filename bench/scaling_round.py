"""One measurement of bench_scaling, run in its own process with the code under test.

``bench_scaling`` starts this with ``PYTHONPATH`` pointing at the tree to measure (this
checkout, or an older commit unpacked with ``git archive``), so two versions of the code are
measured on copies of the SAME cached store, interleaved, in one run. Prints one JSON line.

  capture STORE   copy the store, time ``claimgraph capture FIXTURE --no-curate`` into it
  curate STORE SIZE N [SEED]  copy the store, time one full curator pass, then N times: ingest
                  50 facts (a captured session's worth, on existing subjects; workload seed
                  100 + SEED + i) and time an incremental pass
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import make_items  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "tests" / "fixtures" / "transcripts" / "claude-code" / "full-session-four.jsonl"


def capture(store: Path, tmp: Path) -> dict:
    db = tmp / "claims.db"
    shutil.copyfile(store, db)
    env = {**os.environ, "CLAIMGRAPH_DB": str(db), "HOME": str(tmp),
           "XDG_CONFIG_HOME": str(tmp / ".config"), "XDG_STATE_HOME": str(tmp / ".state")}
    _as_in_use(db)
    subprocess.run([sys.executable, "-m", "claimgraph", "stats"], env=env, check=True,
                   capture_output=True)  # migrate/stamp the copy first: not timed
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", str(SESSION),
                           "--no-curate", "--json"], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"capture failed: {done.stderr[-2000:]}")
    report = json.loads(done.stdout)
    return {"capture_ms": report["duration_ms"], "wall_ms": round(wall * 1000, 1),
            "facts": report["counts"].get("created", 0)}


def _as_in_use(db: Path) -> None:
    """A store in use is in WAL mode; the cached file is not (one file copies whole), and
    switching costs the first writer a moment that grows with the file: pay it untimed."""
    import sqlite3
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode = WAL")
    con.close()


def curate(store: Path, tmp: Path, rounds: int, size: int, seed: int = 0) -> dict:
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest
    from claimgraph.curator import run
    from claimgraph.logsetup import configure_logging
    from claimgraph.opening import open_store

    db = tmp / "claims.db"
    shutil.copyfile(store, db)
    _as_in_use(db)
    configure_logging("json", tmp / "curate.log")
    open_store(db).close()  # migrate the copy first: not timed

    def timed() -> tuple[float, dict]:
        started = time.perf_counter()
        result = run.curate(run.Options(db=db), "bench")
        return (time.perf_counter() - started) * 1000, result["stages"]["consolidate"]["counts"]

    full_ms, full = timed()
    incremental = []
    for i in range(rounds):
        shell = Shell(open_store(db))
        ingest(shell, make_items(50, seed=100 + seed + i, subjects=max(10, size // 10)))
        shell.store.close()
        incremental.append(round(timed()[0], 1))
    return {"full_ms": round(full_ms, 1), "full_us_per_fact": round(full_ms * 1000 / max(size, 1), 2),
            "full": full, "incremental_ms": incremental}


def main() -> None:
    what, store = sys.argv[1], Path(sys.argv[2])
    size = int(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        if what == "capture":
            out = capture(store, Path(tmp))
        else:
            out = curate(store, Path(tmp), int(sys.argv[4]), size,
                         int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
