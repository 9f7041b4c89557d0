"""The coach hook's wall time over a 100k-fact store, beside ``python -c pass``, interleaved.

Each run is a fresh ``python -m claimgraph.hooks user-prompt-submit`` fed a UserPromptSubmit
payload whose prompt mixes the workload's vocabulary (module names, libraries, topics) with
ordinary words, so most prompts match something and some push a briefing. The store's facts
live in the scope of a real git project (bench/results/coach-project), as capture would put
them, plus user-scope stances and a few open conflicts. Target (issue 11): p95 <= 150 ms.
``--session-start`` adds the SessionStart hook on the same store and project as a second series
(it pays the same interpreter, imports and git lookup, then ranks light rows of every fact in
scope and reads whole only the shortlist its block can show: about a second at this size).

Usage: .venv/bin/python bench/bench_coach.py [--facts 100000] [--runs 60] [--rebuild]
       [--session-start]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from workload import LIBS, WORDS, make_items  # noqa: E402
from startup import as_installed  # noqa: E402

from claimgraph.core import Shell  # noqa: E402
from claimgraph.core.ingest import ingest  # noqa: E402
from claimgraph.core.vocabulary import seed  # noqa: E402
from claimgraph.opening import open_store  # noqa: E402
from claimgraph.project import resolve_project  # noqa: E402

RESULTS = Path(__file__).parent / "results"
FILLER = ["please", "fix", "the", "bug", "in", "add", "tests", "for", "refactor", "why", "does",
          "fail", "when", "we", "call", "update", "docs", "about"]


def project_dir() -> Path:
    path = RESULTS / "coach-project"
    if not (path / ".git").exists():
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def stances(project: str) -> list[dict]:
    """User directives as capture stores them: preferences, decisions against, some contested."""
    items = []
    for i, lib in enumerate(LIBS):
        items.append({"subject": project, "predicate": "prefers", "object": lib,
                      "scope": project, "epistemic": "preference"})
        items.append({"subject": f"module_{i}.{WORDS[i % len(WORDS)]}", "predicate":
                      "decided-against", "object": f"{lib} for {WORDS[i % len(WORDS)]}",
                      "scope": project})
    items.append({"subject": "user", "predicate": "prefers", "object": "uv", "scope": "user"})
    return items


def build(size: int, rebuild: bool) -> tuple[Path, Path]:
    project = project_dir()
    path = RESULTS / f"coach-{size}.db"
    if path.exists() and not rebuild:
        open_store(str(path)).close()  # a store built by older code: upgraded, as init would
        return path, project
    for stale in RESULTS.glob(f"coach-{size}.db*"):
        stale.unlink()
    pid = resolve_project(project).id
    sh = Shell(store=open_store(str(path)))
    seed(sh)
    items = [{**item, "scope": pid} for item in make_items(size)]
    started = time.perf_counter()
    for i in range(0, size, 50_000):
        ingest(sh, items[i:i + 50_000])
    ingest(sh, stances(pid))
    ingest(sh, [{"subject": f"module_{i}.{WORDS[i % len(WORDS)]}", "predicate":
                 "decided-against", "object": f"{LIBS[i]} for {WORDS[i % len(WORDS)]}",
                 "scope": pid, "on_conflict": "flag"} for i in range(5)])
    print(json.dumps({"built": size, "seconds": round(time.perf_counter() - started, 1)}),
          flush=True)
    sh.store.close()
    return path, project


def prompts(n: int, size: int) -> list[str]:
    rng = random.Random(5)
    subjects = max(10, size // 10)
    out = []
    for _ in range(n):
        words = rng.sample(FILLER, 5)
        if rng.random() < 0.5:
            k = rng.randrange(subjects)
            words.append(f"module_{k}.{WORDS[k % len(WORDS)]}")
        words += [rng.choice(WORDS), rng.choice(LIBS)]
        rng.shuffle(words)
        out.append(" ".join(words))
    return out


def timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr!r}")
    return elapsed, done.stdout


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--session-start", action="store_true")
    args = parser.parse_args()
    as_installed()
    db, project = build(args.facts, args.rebuild)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env["CLAIMGRAPH_DB"] = str(db)
    hook = [sys.executable, "-m", "claimgraph.hooks", "user-prompt-submit"]
    start = [sys.executable, "-m", "claimgraph.hooks", "session-start"]
    base = [sys.executable, "-c", "pass"]
    pool = prompts(args.runs + 3, args.facts)
    payloads = [json.dumps({"session_id": "bench", "prompt": p, "cwd": str(project),
                            "hook_event_name": "UserPromptSubmit"}).encode() for p in pool]
    for payload in payloads[:3]:
        timed(base, payload, env), timed(hook, payload, env)
    baseline, session_start, coach, pushed = [], [], [], 0
    for payload in payloads[3:]:
        baseline.append(timed(base, payload, env)[0])
        if args.session_start:
            session_start.append(timed(start, payload, env)[0])
        seconds, out = timed(hook, payload, env)
        coach.append(seconds)
        pushed += bool(out.strip())
    report = {"facts": args.facts, "runs": args.runs, "pushed": pushed}
    series = [("python -c pass", baseline), ("coach hook", coach)]
    if args.session_start:
        series.insert(1, ("session-start hook", session_start))
    for name, values in series:
        report[name] = {"p50_ms": round(percentile(values, 0.5) * 1000, 1),
                        "p95_ms": round(percentile(values, 0.95) * 1000, 1)}
    report["ratio_p50"] = round(percentile(coach, 0.5) / percentile(baseline, 0.5), 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
