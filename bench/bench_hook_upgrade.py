"""SessionStart after an upgrade: shortlists an older claimgraph stored, base vs this tree.

An older claimgraph's curator stored each project's shortlist; then claimgraph was upgraded
(a store-format step, or a block whose meaning changed). Until a curator pass stores new ones,
what does the next SessionStart cost? Two working copies of the same cached store (``bench_hook``'s
project store, ``--size`` facts in a git project's scope), each given the shortlists of
``--base-src``'s curator, stamped with the previous store format as that curator would have
written them. Rounds alternate: the base tree's hook on its copy, then this tree's hook on its
own. Each line gives wall, CPU and peak RSS, the path the hook logged ("live", "stored",
"over-limit") and the bytes printed. When this tree's hook starts the curator ("over-limit"), the
bench waits for the shortlist it stores and says how long that took; at the end the records are
stamped with the older format once more (a later format step) and this tree's hook runs again.

Usage: .venv/bin/python bench/bench_hook_upgrade.py --base-src /tmp/base/src [--size 1000000]
       [--rounds 3]
(``git archive <base> src | tar -x -C /tmp/base``.)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FINAL = str(HERE.parent / "src")
PY = sys.executable


def run(src: str, env: dict[str, str], stdin: bytes, home: Path) -> dict[str, object]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(home / "rss"), PY, "-m",
                           "claimgraph.hooks", "session-start"], input=stdin,
                          env={**env, "PYTHONPATH": src}, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    last = Path(env["CLAIMGRAPH_DB"] + ".capture.log").read_text().splitlines()[-1]
    return {"wall_ms": round(wall * 1000), "cpu_ms": round(cpu * 1000),
            "rss_mb": round(int((home / "rss").read_text().split()[-1]) / 1024, 1),
            "path": json.loads(last).get("shortlist"), "out_bytes": len(done.stdout),
            "load": round(os.getloadavg()[0], 1)}


def in_store(db: Path, env: dict[str, str], code: str) -> str:
    """Run ``code`` (with ``s``, the store at ``db``) in this tree's interpreter."""
    script = (f"from claimgraph.store.sqlite import SqliteStore\ns = SqliteStore({str(db)!r})\n"
              f"{code}\ns.close()")
    return subprocess.run([PY, "-c", script], env={**env, "PYTHONPATH": FINAL}, check=True,
                          capture_output=True, text=True).stdout.strip()


#: Every tree's stored shortlists: ``context:shortlist:<p>`` before keys named the meaning,
#: ``context:shortlist@<meaning>:<p>`` since.
RECORDS = "context:shortlist"


def stamp_older(db: Path, env: dict[str, str]) -> None:
    in_store(db, env, "from claimgraph import STORE_FORMAT\n"
                      f"for k in s.list_marks({RECORDS!r}):\n"
                      "    s.set_mark(k, {**s.get_mark(k), 'format': STORE_FORMAT - 1})")


def own_records(db: Path, env: dict[str, str]) -> list[str]:
    """The keys of the shortlists this tree's hook reads."""
    code = ("import json\nfrom claimgraph.core.briefing import shortlist_key\n"
            "print(json.dumps(list(s.list_marks(shortlist_key('')))))")
    return list(json.loads(in_store(db, env, code)))


def setup(root: Path, name: str, source: Path, base_src: str) -> tuple[Path, Path, dict, bytes]:
    import bench_hook
    from store_cache import working_copy

    home = root / name
    home.mkdir()
    project = bench_hook.git_project(home)
    db = working_copy(source, home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), CLAIMGRAPH_DB=str(db))
    subprocess.run([PY, "-m", "claimgraph", "curate", "--db", str(db), "--stage", "shortlists",
                    "--json"], env={**env, "PYTHONPATH": base_src}, check=True,
                   capture_output=True)
    stamp_older(db, env)
    stdin = json.dumps({"session_id": "bench", "cwd": str(project),
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()
    return home, db, env, stdin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-src", required=True)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, FINAL)
    import bench_hook
    from store_cache import cached_store

    _, kind, size, builder = bench_hook.store_kind(str(args.size))
    source = cached_store(kind, size, builder)
    base_src = bench_hook.compiled_tree(args.base_src)
    with tempfile.TemporaryDirectory(prefix="bench-hook-upgrade-") as tmp:
        bhome, _, benv, bstdin = setup(Path(tmp), "base", source, base_src)
        fhome, fdb, fenv, fstdin = setup(Path(tmp), "final", source, base_src)
        for round_ in range(args.rounds):
            print("base ", round_, run(base_src, benv, bstdin, bhome), flush=True)
            result = run(FINAL, fenv, fstdin, fhome)
            print("final", round_, result, flush=True)
            if result["path"] == "over-limit":
                started = time.perf_counter()
                while not own_records(fdb, fenv) and time.perf_counter() - started < 600:
                    time.sleep(0.5)
                print(f"# the curator this hook started stored the shortlist "
                      f"{time.perf_counter() - started:.1f} s later", flush=True)
        stamp_older(fdb, fenv)  # a later format step
        for round_ in range(args.rounds):
            print("final, record of an older store format", round_,
                  run(FINAL, fenv, fstdin, fhome), flush=True)


if __name__ == "__main__":
    main()
