"""The viewer's pages over a 100k-fact store: p50/p95 of each page beside the same query
through the CLI in-process, interleaved load by load.

The store is bench_context's (100,000 facts across 50 projects and the user scope, with
commitments, recent supersessions, flagged conflicts and dormant facts in every project),
plus audit verdicts (2% of facts suspect) and 30 days of capture and curator log lines, so
every page has its real work. A real ``claimgraph serve`` process answers over loopback; each
load is one HTTP GET of the whole page. Each page's baseline is the CLI command that reads the
same thing (``main([...])`` in this process, output captured):

  projects  status --json          project  context --cwd DIR     fact    provenance ID --json
  asof      facts --scope P --as-of T --json                      activity logs all -n 200 --json
  review    conflicts --json

Target (issue 14): every page p95 <= 300 ms.

Usage: .venv/bin/python bench/bench_viewer.py [--loads 50] [--facts 100000] [--projects 50]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_context  # noqa: E402
from claimgraph.cli.main import main as cli  # noqa: E402
from claimgraph.logic.timeutil import DAY_MS, to_iso  # noqa: E402
from claimgraph.store.open import open_store  # noqa: E402


def add_audit(db: Path, now: int) -> None:
    """Every 50th fact cites a file the audit found missing (a suspect claim)."""
    store = open_store(db)
    ids = [f"f-{i:07d}" for i in range(0, 100_000, 50)]
    found = {f["id"] for f in store.get_facts_by_ids(ids)}
    with store.transaction():
        store.record_audit({"fact_id": fid, "evidence": "src/app.py: `main()`", "file": "src/app.py",
                            "verdict": "file-missing", "reason": "no-such-file",
                            "content_hash": None, "checked_at": now, "details": {}}
                           for fid in sorted(found))
    store.close()


def write_logs(db: Path, projects: list[str], now: int) -> None:
    """30 days of runs: 20 captures and 3 curator runs a day, as the real commands log them."""
    capture, curate = [], []
    for day in range(30, 0, -1):
        for n in range(20):
            at = now - day * DAY_MS + n * 600_000
            capture.append({"ts": to_iso(at), "level": "info", "event": "capture.report",
                            "run_id": f"cap-{day}-{n}", "status": "captured",
                            "project": projects[n % len(projects)], "session": f"s-{day}-{n}",
                            "counts": {"created": 5, "reinforced": 2}, "duration_ms": 180})
        for n in range(3):
            at = now - day * DAY_MS + n * 3_600_000
            run = f"cur-{day}-{n}"
            curate.append({"ts": to_iso(at), "level": "info", "event": "curate.started",
                           "run_id": run})
            curate.append({"ts": to_iso(at + 900), "level": "info", "event": "curate.result",
                           "run_id": run, "status": "ok", "passes": 1, "stages": {
                               "decay": {"status": "ok", "counts": {"dormant": 4}},
                               "audit": {"status": "ok", "counts": {"judged": 40}}}})
    for suffix, lines in ((".capture.log", capture), (".curate.log", curate)):
        Path(f"{db}{suffix}").write_text("".join(json.dumps(x) + "\n" for x in lines))


def in_process(argv: list[str]) -> float:
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(argv)
    took = time.perf_counter() - started
    if code not in (0, 1):
        raise SystemExit(f"claimgraph {argv} exited {code}: {err.getvalue()[-500:]}")
    return took


def load(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as answer:
        body = answer.read()
        if answer.status != 200 or len(body) < 200:
            raise SystemExit(f"{url} answered {answer.status}")
    return time.perf_counter() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def pages(dirs: list[Path], now: int) -> dict[str, tuple[str, list[str]]]:
    project = str(dirs[7].resolve())
    p = quote(project, safe="")
    at = now - 45 * DAY_MS
    fact = "f-0002004"  # project 1's: superseded lately, history and a neighbour
    return {
        "projects": ("", ["status", "--json"]),
        "project": (f"project?id={p}", ["context", "--cwd", project]),
        "fact": (f"fact/{fact}", ["provenance", fact, "--json"]),
        "asof": (f"asof?id={p}&at={at}", ["facts", "--scope", project, "--as-of",
                                          to_iso(at), "--json"]),
        "activity": ("activity", ["logs", "all", "-n", "200", "--json"]),
        "review": ("review", ["conflicts", "--json"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        root = Path(tmp)
        dirs = [root / f"project-{n:02d}" for n in range(args.projects)]
        for d in dirs:
            d.mkdir()
        db = root / "store" / "claims.db"
        now = time.time_ns() // 1_000_000
        started = time.perf_counter()
        bench_context.build(db, [str(d.resolve()) for d in dirs], args.facts, now)
        add_audit(db, now)
        write_logs(db, [str(d.resolve()) for d in dirs], now)
        print(f"built {args.facts} facts in {time.perf_counter() - started:.1f} s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
        env.update(HOME=str(root), CLAIMGRAPH_DB=str(db))
        os.environ.update(HOME=str(root), CLAIMGRAPH_DB=str(db))
        server = subprocess.Popen([sys.executable, "-m", "claimgraph", "serve", "--port", "0"],
                                  env=env, stdout=subprocess.PIPE, text=True)
        try:
            url = server.stdout.readline().split(": ", 1)[1].strip()
            report(url, pages(dirs, now), args.loads)
        finally:
            server.terminate()
            server.wait()


def report(url: str, wanted: dict[str, tuple[str, list[str]]], loads: int) -> None:
    print(f"{'page':<9} {'p50':>7} {'p95':>7}   {'CLI p50':>7} {'CLI p95':>7}   p95 ratio")
    worst = 0.0
    for name, (path, argv) in wanted.items():
        load(url + path)
        in_process(argv)  # warm both: the page cache, the interpreter's imports
        page_times, cli_times = [], []
        for _ in range(loads):
            page_times.append(load(url + path))
            cli_times.append(in_process(argv))
        p95, base95 = percentile(page_times, 0.95), percentile(cli_times, 0.95)
        worst = max(worst, p95)
        print(f"{name:<9} {percentile(page_times, .5) * 1000:6.0f}ms {p95 * 1000:6.0f}ms   "
              f"{percentile(cli_times, .5) * 1000:6.0f}ms {base95 * 1000:6.0f}ms   "
              f"{p95 / base95:5.2f}x")
    print(f"slowest page p95 {worst * 1000:.0f} ms (target <= 300 ms)")


if __name__ == "__main__":
    main()
