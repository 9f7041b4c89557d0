"""The viewer's pages over a 100k-fact store: each page's p50/p95 beside the same query through
the CLI in-process, and 20 project-page loads at once: p50/p95 and the server's RSS, each beside
the landed code's figure measured in the same run (``--baseline CHECKOUT``).

The store (built once per store format and write path, cached under ``.cache/bench/`` by
``store_cache``) holds ``--facts`` facts over ``--projects`` projects (one project: all of them
in it, issue 29's case) and a user scope of 5% more, with commitments, recent supersessions,
flagged conflicts, dormant facts and audit verdicts (2% suspect), plus 30 days of capture and
curator log lines. A real ``claimgraph serve`` answers over loopback (``--baseline``: a second
one serving that checkout's ``src/`` from the same store); each load is one HTTP GET of the
whole page, asking a page nobody asked for yet (a ``nonce`` parameter no page reads), so the
viewer's kept pages never answer these figures. Each page's baseline is the CLI command that
reads the same thing (``main([...])`` in this process, output captured):

  projects  status --json          project  context --cwd DIR     fact    provenance ID --json
  asof      facts --scope P --as-of T --json                      activity logs all -n 200 --json
  review    conflicts --json

Then ``--concurrent`` loads of the project page at once, ``--rounds`` times, the servers taking
turns: one new page for all of them; with ``--distinct`` also a new nonce each (one page's
content, nothing kept answers it) and a different page each (the project's first page, pages of
each section, filters: ``PAGE_VARIANTS``); with ``--cold`` the different pages again with a
write to the store before each burst, so nothing kept from before answers (the viewer places a
project's facts once per store state and filter: ``viewer.project.placement``). Printed: p50,
p95, max, the burst's wall time, the server's peak RSS (VmHWM), the largest RssAnon and RssFile
sampled during the bursts, and the baseline measured in the same round: the same server
answering as many loads of its stylesheet at once (p95, and the page's p95 over it).

Targets: one project-page load p95 <= 300 ms at 100k facts (issue 29); 20 at once p95 <= 1 s
and < 300 MB RSS (issue 24).

Usage: .venv/bin/python bench/bench_viewer.py [--loads 50] [--facts 100000] [--projects 50]
       [--concurrent 20] [--rounds 3] [--distinct] [--cold] [--baseline /path/to/landed/checkout]
       [--pages all|none|project,fact,...]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_context  # noqa: E402
from store_cache import cached_store, working_copy  # noqa: E402
from claimgraph.cli.main import main as cli  # noqa: E402
from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.logic.timeutil import DAY_MS, to_iso  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402


def add_audit(db: Path, now: int, total: int = 100_000) -> None:
    """Every 50th fact cites a file the audit found missing (a suspect claim)."""
    store = open_store(db)
    ids = [f"f-{i:07d}" for i in range(0, total, 50)]
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


def load(url: str, timeout: float = 60, minimum: int = 200) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        body = answer.read()
        if answer.status != 200 or len(body) < minimum:
            raise SystemExit(f"{url} answered {answer.status}")
    return time.perf_counter() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def pages(dirs: list[Path], now: int) -> dict[str, tuple[str, list[str]]]:
    project = str(dirs[min(7, len(dirs) - 1)].resolve())
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


NONCES = itertools.count()
BURST_TIMEOUT_S = 900  # the landed code took 151 s for 20 at once (issue 24)
BENCH_ROOT = Path(tempfile.gettempdir()) / "claimgraph-bench-viewer"
USER_SHARE = 50  # facts in the user scope per 1,000 in the projects


def project_dirs(projects: int) -> list[Path]:
    """Fixed directories (the cached store names them as its projects' scopes)."""
    dirs = [BENCH_ROOT / f"project-{n:02d}" for n in range(projects)]
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


def builder_for(projects: int) -> Callable[[Path, int], None]:
    def build_viewer_store(db: Path, size: int) -> None:
        """``size`` facts over the projects (one project: all of them in it), a user scope of
        5% more, audit verdicts and 30 days of logs; recorded as of the build."""
        now = time.time_ns() // 1_000_000
        scopes = [str(d.resolve()) for d in project_dirs(projects)]
        store = open_store(db)
        seed(Shell(store))
        per = size // len(scopes)
        user = max(1, size * USER_SHARE // 1000)
        with store.transaction():
            for p, scope in enumerate([*scopes, "user"]):
                count = user if scope == "user" else per
                subjects = [f"e-{p}-{n}" for n in range(40)]
                for n, eid in enumerate(subjects):
                    store.insert_entity({"id": eid, "name": f"component-{n}", "scope": scope})
                store.insert_facts(bench_context.fact(p * per + k, scope, subjects[k % 40],
                                                      f"value {k % 400} of {scope[-12:]}", now)
                                   for k in range(count))
                for k in range(0, 60, 6):
                    store.link_conflicts(f"f-{p * per + k + 3:07d}",
                                         [f"f-{p * per + k + 7:07d}"])
        store.close()
        add_audit(db, now, size + user)
    return build_viewer_store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, default=50)
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=50)
    parser.add_argument("--concurrent", type=int, default=20,
                        help="loads of the project page at once (issue 24: 20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of loads at once (0: none)")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="a checkout of the landed code (its src/ is served beside ours)")
    parser.add_argument("--pages", default="all",
                        help="'all', 'none' (only the concurrent project page) or a list")
    parser.add_argument("--distinct", action="store_true",
                        help="also: the concurrent loads each ask a different page")
    parser.add_argument("--cold", action="store_true",
                        help="also: a write to the store before each burst of different pages "
                             "(nothing kept from before answers)")
    parser.add_argument("--after-write", type=int, default=0, metavar="N",
                        help="also: N times, a write to the store then one load of the page "
                             "(the first load after a write)")
    parser.add_argument("--interleave", action="store_true",
                        help="with --baseline: each page's loads alternate between the servers "
                             "(this, landed, landed, this, ...), so both see the same load on a "
                             "shared machine; no CLI baseline")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    dirs = project_dirs(args.projects)
    started = time.perf_counter()
    cached = cached_store(f"viewer-{args.projects}p", args.facts, builder_for(args.projects),
                          args.rebuild)
    print(f"store: {args.facts} facts in {args.projects} project(s) + the user scope "
          f"({cached.name}, ready in {time.perf_counter() - started:.1f} s)")
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        root = Path(tmp)
        now = time.time_ns() // 1_000_000
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
        env.update(HOME=str(root))
        os.environ.update(HOME=str(root))
        # Each server its own copy of the same store (a write before a burst is made by that
        # server's code); landed code older than format 7 gets its copy without ``fact_touches``.
        copies = {"this": None}
        if args.baseline is not None:
            copies["landed"] = args.baseline / "src"
        servers = {}
        for label, src_dir in copies.items():
            (root / label).mkdir()
            db = working_copy(cached, root / label)
            if src_dir is not None and store_format(src_dir) < 7:
                as_landed_format(db)
            write_logs(db, [str(d.resolve()) for d in dirs], now)
            extra = {} if src_dir is None else {"PYTHONPATH": str(src_dir)}
            servers[label] = Server({**env, **extra, "CLAIMGRAPH_DB": str(db)}, db)
        os.environ["CLAIMGRAPH_DB"] = str(servers["this"].db)
        try:
            wanted = pages(dirs, now)
            if args.pages != "none":
                names = list(wanted) if args.pages == "all" else args.pages.split(",")
                if args.interleave and len(servers) > 1:
                    print(f"\n== each page {args.loads} loads per server, servers alternating")
                    interleaved_report(servers, {n: wanted[n] for n in names}, args.loads)
                for label, server in ({} if args.interleave else servers).items():
                    print(f"\n== {label} code, each page {args.loads} loads")
                    report(server.url, {n: wanted[n] for n in names}, args.loads)
            path = wanted["project"][0]
            if args.rounds > 0:
                print(f"\n== project page, {args.concurrent} loads at once, {args.rounds} rounds,"
                      f" servers interleaved round by round")
                for mode in ["same"] + (["nonce", "pages"] if args.distinct else []):
                    concurrent_report(servers, path, args.concurrent, args.rounds, mode)
            scope = str(dirs[min(7, len(dirs) - 1)].resolve())
            if args.after_write:
                after_write_report(servers, path, args.after_write, scope)
            if args.cold and args.rounds > 0:
                concurrent_report(servers, path, args.concurrent, args.rounds, "pages",
                                  cold=scope)
        finally:
            for server in servers.values():
                server.stop()


class Server:
    """A real ``claimgraph serve`` process over its own copy of the store, and its URL."""

    def __init__(self, env: dict[str, str], db: Path) -> None:
        self.env, self.db = env, db
        self.proc = subprocess.Popen([sys.executable, "-m", "claimgraph", "serve", "--port", "0"],
                                     env=env, stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().split(": ", 1)[1].strip()

    def write(self, scope: str) -> None:
        """A write to this server's store (a new fact) by this server's own code, as a
        capture would make it: every kept page and placement is stale after it."""
        subprocess.run([sys.executable, "-m", "claimgraph", "--db", str(self.db), "assert",
                        f"bench-{next(NONCES)}", "prefers", "REST", "--scope", scope],
                       env=self.env, check=True, stdout=subprocess.DEVNULL)

    def rss_mb(self, key: str = "VmRSS") -> float:
        """The process's resident set (``VmHWM``: its peak so far), in MB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def memory_mb(self) -> dict[str, float]:
        """VmRSS and its parts: RssAnon (the process's own) and RssFile (pages of mapped
        files, the store's among them: shared with the page cache)."""
        found = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key = line.split(":", 1)[0]
            if key in ("VmRSS", "RssAnon", "RssFile"):
                found[key] = int(line.split()[1]) / 1024
        return found

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


class Sampler:
    """The largest VmRSS, RssAnon and RssFile seen while a burst runs (every 20 ms)."""

    def __init__(self, server: Server) -> None:
        self.server, self.peak = server, {"VmRSS": 0.0, "RssAnon": 0.0, "RssFile": 0.0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            for key, value in self.server.memory_mb().items():
                self.peak[key] = max(self.peak[key], value)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


#: "Different pages" of one project: its first page, and pages of each section.
PAGE_VARIANTS = ["", "&section=current&page=2", "&section=decisions&page=3",
                 "&section=left_out&page=1", "&section=changed&page=2",
                 "&section=current&page=5", "&section=decisions&page=40",
                 "&section=structure&page=1", "&section=lessons&page=1",
                 "&section=left_out&page=9", "&predicate=core/prefers",
                 "&class=commitment", "&text=component-1", "&section=current&page=30",
                 "&section=changed&page=9", "&section=decisions&page=200",
                 "&predicate=core/depends-on&section=current&page=2",
                 "&section=left_out&page=40", "&text=value+7", "&section=current&page=99"]
MODES = {"same": "one new page for all", "nonce": "a new nonce each (one page's content)",
         "pages": "a different page each (sections, page numbers, filters)"}


def burst(url: str, count: int, mode: str) -> tuple[float, list[float]]:
    """``count`` loads started together: (wall time of the burst, each load's time). Each
    burst is a page nobody asked for yet (a fresh ``nonce``, a parameter no page reads): one
    page for all (``same``: 20 people open the same page), one nonce each (``nonce``), or a
    different page each (``pages``: sections, page numbers and filters of one project)."""
    tag = next(NONCES)

    def one(n: int) -> str:
        if mode == "same":
            return f"{url}&nonce={tag}-0"
        extra = PAGE_VARIANTS[n % len(PAGE_VARIANTS)] if mode == "pages" else ""
        return f"{url}{extra}&nonce={tag}-{n}"
    with ThreadPoolExecutor(max_workers=count) as pool:
        started = time.perf_counter()
        times = list(pool.map(lambda n: load(one(n), BURST_TIMEOUT_S), range(count)))
    return time.perf_counter() - started, times


def static_burst(url: str, count: int) -> list[float]:
    """The baseline: the same server answering ``count`` loads of its stylesheet at once."""
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(lambda n: load(url, 60, minimum=0), range(count)))


def store_format(src_dir: Path) -> int:
    """The store format a checkout's code writes (``STORE_FORMAT`` in its package)."""
    for line in (src_dir / "claimgraph" / "__init__.py").read_text().splitlines():
        if line.startswith("STORE_FORMAT ="):
            return int(line.split("=", 1)[1].split("#")[0])
    raise SystemExit(f"no STORE_FORMAT in {src_dir}/claimgraph/__init__.py")


def as_landed_format(db: Path) -> None:
    """The store as the landed code reads it: format 7 only added ``fact_touches`` and its
    triggers, so dropping them and stamping format 6 gives the very bytes of every other table
    (the same facts, ids and times as this code's copy)."""
    import sqlite3
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%fact_touches%'")]
    for name in names:
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE fact_touches")
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    stamp = Path(f"{db}.version")
    if stamp.exists():
        found = json.loads(stamp.read_text())
        stamp.write_text(json.dumps({**found, "format": 6}))


def after_write_report(servers: dict[str, Server], path: str, times: int, scope: str) -> None:
    """The first load after a write, ``times`` times per server (servers taking turns): what a
    user who reloads after a capture waits for."""
    found: dict[str, list[float]] = {label: [] for label in servers}
    for server in servers.values():
        load(server.url + path)
    for _ in range(times):
        for label, server in servers.items():
            server.write(scope)
            found[label].append(load(f"{server.url}{path}&nonce={next(NONCES)}", BURST_TIMEOUT_S))
    print(f"-- the first load after a write, {times} times")
    print(f"{'code':<7} {'p50':>8} {'p95':>8} {'max':>8} {'peak RSS':>9}")
    for label, got in found.items():
        print(f"{label:<7} {percentile(got, .5) * 1000:6.0f}ms {percentile(got, .95) * 1000:6.0f}ms"
              f" {max(got) * 1000:6.0f}ms {servers[label].rss_mb('VmHWM'):6.0f} MB")
    if "landed" in found:
        ratio = percentile(found["this"], .95) / percentile(found["landed"], .95)
        print(f"p95 this/landed {ratio:.3f}")


def concurrent_report(servers: dict[str, Server], path: str, count: int, rounds: int,
                      mode: str, cold: str | None = None) -> None:
    results: dict[str, dict[str, list[float]]] = {
        label: {"times": [], "walls": [], "rss": [], "anon": [], "file": [], "static": []}
        for label in servers}
    for label, server in servers.items():
        load(server.url + path)  # warm: imports, the operating system's page cache
    for _ in range(rounds):
        for label, server in servers.items():
            if cold is not None:
                server.write(cold)
            with Sampler(server) as sampled:
                wall, times = burst(server.url + path, count, mode)
            results[label]["static"] += static_burst(server.url + "static/viewer.css", count)
            results[label]["anon"].append(sampled.peak["RssAnon"])
            results[label]["file"].append(sampled.peak["RssFile"])
            results[label]["times"] += times
            results[label]["walls"].append(wall)
            results[label]["rss"].append(server.rss_mb("VmHWM"))
    print(f"-- {count} at once, {MODES[mode]}" + (", a write before each burst" if cold else ""))
    print(f"{'code':<7} {'p50':>8} {'p95':>8} {'max':>8} {'burst':>8} {'peak RSS':>9}"
          f" {'in bursts: anon':>16} {'file':>8}   {'static p95':>10} {'p95/static':>10}")
    for label, found in results.items():
        times = found["times"]
        static95 = percentile(found["static"], .95)
        print(f"{label:<7} {percentile(times, .5) * 1000:6.0f}ms {percentile(times, .95) * 1000:6.0f}ms"
              f" {max(times) * 1000:6.0f}ms {max(found['walls']):7.1f}s {max(found['rss']):6.0f} MB"
              f" {max(found['anon']):13.0f} MB {max(found['file']):5.0f} MB"
              f"   {static95 * 1000:8.1f}ms {percentile(times, .95) / static95:9.0f}x")
    if "landed" in results:
        this, landed = results["this"]["times"], results["landed"]["times"]
        print(f"p95 this/landed {percentile(this, .95) / percentile(landed, .95):.3f}; "
              f"peak RSS this/landed {max(results['this']['rss']) / max(results['landed']['rss']):.3f}")
    print("targets: p95 <= 1 s with 20 at once and < 300 MB RSS (issue 24); one load p95 <= 300 ms"
          " (issue 29)")


def interleaved_report(servers: dict[str, "Server"], wanted: dict[str, tuple[str, list[str]]],
                       loads: int) -> None:
    """Each page's loads alternating between the servers, the first of each pair taking
    turns (a load on a shared machine that comes and goes falls on both alike): p50, p95 and
    max per server, and the p95 ratio this/landed."""
    print(f"{'page':<9} {'code':<7} {'p50':>7} {'p95':>7} {'max':>7}")
    for name, (path, _) in wanted.items():
        sep = "&" if "?" in path else "?"
        found: dict[str, list[float]] = {label: [] for label in servers}
        for server in servers.values():
            load(server.url + path)  # warm: imports, the page cache, kept timelines
        order = list(servers.items())
        for n in range(loads):
            for label, server in order if n % 2 == 0 else order[::-1]:
                found[label].append(load(f"{server.url}{path}{sep}nonce={next(NONCES)}"))
        for label, got in found.items():
            print(f"{name:<9} {label:<7} {percentile(got, .5) * 1000:6.0f}ms "
                  f"{percentile(got, .95) * 1000:6.0f}ms {max(got) * 1000:6.0f}ms")
        ratio = percentile(found["this"], .95) / percentile(found["landed"], .95)
        print(f"{name:<9} p95 this/landed {ratio:.3f}")


def report(url: str, wanted: dict[str, tuple[str, list[str]]], loads: int) -> None:
    """Each load is a page nobody asked for yet (a fresh ``nonce``), so the viewer's page cache
    never answers it: the figure is the page's own cost."""
    print(f"{'page':<9} {'p50':>7} {'p95':>7}   {'CLI p50':>7} {'CLI p95':>7}   p95 ratio")
    worst = 0.0
    for name, (path, argv) in wanted.items():
        sep = "&" if "?" in path else "?"
        load(url + path)
        in_process(argv)  # warm both: the page cache, the interpreter's imports
        page_times, cli_times = [], []
        for _ in range(loads):
            page_times.append(load(f"{url}{path}{sep}nonce={next(NONCES)}"))
            cli_times.append(in_process(argv))
        p95, base95 = percentile(page_times, 0.95), percentile(cli_times, 0.95)
        worst = max(worst, p95)
        print(f"{name:<9} {percentile(page_times, .5) * 1000:6.0f}ms {p95 * 1000:6.0f}ms   "
              f"{percentile(cli_times, .5) * 1000:6.0f}ms {base95 * 1000:6.0f}ms   "
              f"{p95 / base95:5.2f}x")
    print(f"slowest page p95 {worst * 1000:.0f} ms (target <= 300 ms)")



if __name__ == "__main__":
    main()
