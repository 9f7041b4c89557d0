"""Hook wall time per agent: ``python -m claimgraph.hooks EVENT --agent A`` against ``python -c pass``.

Each round runs the baseline, then every (agent, event) hook once, interleaved, so all of them
see the same machine noise; each run is a fresh interpreter fed that agent's payload on stdin
(the shapes Claude Code, Codex CLI 0.171 and Gemini CLI 0.61 send, docs/agents.md), in a temp
HOME/store. Every capturing run gets a session id of its own: a repeated payload would take
the cheaper "duplicate" path (Gemini's triple SessionEnd), which is not what is measured here.
By default the spawned capture pass is ``/bin/true`` (``CLAIMGRAPH_CAPTURE_CMD``), so the
figure is the hook's own cost and detached captures do not load the next runs;
``--real-capture`` spawns the real ``claimgraph capture`` instead. ``session-start`` runs on
an empty store (nothing to inject): its cost is the lookup, not a context build.
Targets (issues 3 and 12): every hook's p95 <= 100 ms and <= 3x the baseline's p95.

``--stores 1000,10000,100000`` measures SessionStart instead with a REAL store: that many facts
(``0``: an empty store; ``50x100000``: 100k facts over 50 projects) in the scope of a git project (remote github.com/bench/hook-project, so the id is stable), plus
standing decisions and open conflicts, built once per size (``store_cache``). A working copy
gets the curator's ``shortlists`` stage (the real ``claimgraph curate --stage shortlists``)
when this code has one; each round then runs ``python -c pass`` and the hook, interleaved,
with the hook's peak RSS from ``wait4``. ``--compare-python`` adds the same hook run by another
install's interpreter (e.g. main's venv) on the same copy, in the same rounds; ``--base-src
DIR`` adds this interpreter running another tree's ``src/`` (``git archive main | tar -x -C
DIR``, compiled first), so a change and its base meet the same load. Each row also says which
path every hook run took ("stored" shortlist or "live" compile, from the hook's own log line)
and the load average before it: the stored path is what an install gets once its curator ran,
so a benchmark that leaves the shortlist stale measures the wrong path. Target (issue 29):
p95 <= 150 ms and peak RSS <= 60 MB at 100k and 1M, each size within 1.2x the hook's own time
at 1k (``vs_1k``, when 1000 is among the sizes). Beside wall time, the CPU time (user +
system) says what is the hook's own work: on 2 shared cores, wall time is mostly waiting.

Usage: .venv/bin/python bench/bench_hook.py [--runs 50] [--agents claude-code,codex,gemini]
       [--real-capture]
       .venv/bin/python bench/bench_hook.py --stores 1000,10000,100000 [--runs 40]
       [--compare-python /path/to/other/.venv/bin/python] [--base-src /tmp/base/src]
       [--instruction-files]

``--instruction-files`` gives the project the instruction files a real one has (a CLAUDE.md
that imports AGENTS.md, which imports a docs page, a ``.claude/CLAUDE.md``, a CLAUDE.local.md
and a GEMINI.md, a few KB each), so SessionStart's "what the agent loads anyway" pays for the
files it reads (``hooks.own_files``).
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
import uuid
from pathlib import Path
from typing import Any, Callable

#: The events each agent's installed hooks run (hooks/agents.py).
EVENTS = {"claude-code": ("session-end", "session-start"),
          "codex": ("session-end", "stop", "session-start"),
          "gemini": ("session-end", "session-start")}
HOOK_EVENT_NAMES = {"session-end": "SessionEnd", "stop": "Stop", "session-start": "SessionStart"}


def payload(agent: str, event: str, transcript: Path, cwd: Path) -> bytes:
    """What the agent sends for ``event``, as observed (a fresh session id each time)."""
    found = {"session_id": str(uuid.uuid4()), "transcript_path": str(transcript),
             "cwd": str(cwd), "hook_event_name": HOOK_EVENT_NAMES[event]}
    if event == "session-start":
        found["source"] = "startup"
    elif agent == "codex":
        found.update(model="gpt-5.5", permission_mode="bypassPermissions", reason="other")
        if event == "stop":
            found.update(turn_id=str(uuid.uuid4()), stop_hook_active=False,
                         last_assistant_message="Done.")
    elif agent == "gemini":
        found.update(reason="exit", timestamp="2026-12-02T18:26:26.809Z")
    else:
        found.update(reason="other", prompt_id="p-1")
    return json.dumps(found).encode()


def timed(argv: list[str], stdin: bytes, env: dict[str, str], quiet: bool = True) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or (quiet and done.stdout):
        raise SystemExit(f"{argv} exited {done.returncode} with stdout {done.stdout!r}")
    return elapsed


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def environment(home: Path, real_capture: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"),
               CLAIMGRAPH_DB=str(home / "store" / "claims.db"))
    if not real_capture:
        env["CLAIMGRAPH_CAPTURE_CMD"] = "/bin/true"
    return env


def hook_argv(agent: str, event: str) -> list[str]:
    return [sys.executable, "-m", "claimgraph.hooks", event, "--agent", agent]


def measure(agents: list[str], runs: int, real_capture: bool) -> dict[str, list[float]]:
    """Seconds per run: ``python -c pass`` and every ``agent event`` hook, interleaved."""
    cases = [(agent, event) for agent in agents for event in EVENTS[agent]]
    times: dict[str, list[float]] = {"python -c pass": [],
                                     **{f"{a} {e}": [] for a, e in cases}}
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp:
        home = Path(tmp)
        transcript = home / "session.jsonl"
        transcript.write_text('{"type":"user","message":{"content":"hi"}}\n')
        env = environment(home, real_capture)
        baseline = [sys.executable, "-c", "pass"]
        for round_ in range(3 + runs):  # three warm-up rounds: page cache and .pyc files
            spent = {"python -c pass": timed(baseline, b"{}", env)}
            for agent, event in cases:
                stdin = payload(agent, event, transcript, home)
                spent[f"{agent} {event}"] = timed(hook_argv(agent, event), stdin, env)
            if round_ >= 3:
                for name, seconds in spent.items():
                    times[name].append(seconds)
    return times


def report(times: dict[str, list[float]], runs: int, real_capture: bool) -> dict[str, object]:
    base = times["python -c pass"]
    found: dict[str, object] = {"runs": runs, "real_capture": real_capture}
    for name, values in times.items():
        p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
        row = {"p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1)}
        if values is not base:
            row.update(ratio_p50=round(p50 / percentile(base, 0.5), 2),
                       ratio_p95=round(p95 / percentile(base, 0.95), 2),
                       meets_target=p95 <= 0.100 and p95 <= 3 * percentile(base, 0.95))
        found[name] = row
    return found


PROJECT_REMOTE = "https://github.com/bench/hook-project.git"
PROJECT_ID = "github.com/bench/hook-project"


def build_project_store(path: Path, size: int) -> None:
    """``size`` facts in the project's scope as capture would put them, its standing
    decisions and a few open conflicts, and a user-scope preference."""
    sys.path.insert(0, str(Path(__file__).parent))
    from workload import make_items

    from claimgraph.core import Shell
    from claimgraph.core.vocabulary import seed
    from claimgraph.opening import open_store

    sh = Shell(store=open_store(str(path)))
    seed(sh)
    items = [{**item, "scope": PROJECT_ID} for item in make_items(size)]
    _load(sh, items)


def _load(sh: Any, items: list[dict[str, Any]]) -> None:
    """Ingest the workload in 50k batches, then the project's standing decisions and
    preferences and the user's one preference (what the block shows first), and close."""
    sys.path.insert(0, str(Path(__file__).parent))
    from workload import LIBS, WORDS

    from claimgraph.core.ingest import ingest

    for i in range(0, len(items), 50_000):
        ingest(sh, items[i:i + 50_000])
    ingest(sh, [{"subject": PROJECT_ID, "predicate": "prefers", "object": lib,
                 "scope": PROJECT_ID, "epistemic": "preference"} for lib in LIBS[:10]])
    ingest(sh, [{"subject": f"module_{i}.{WORDS[i % len(WORDS)]}", "predicate":
                 "decided-against", "object": f"{LIBS[i]} for {WORDS[i % len(WORDS)]}",
                 "scope": PROJECT_ID, "on_conflict": "flag"} for i in range(5)])
    ingest(sh, [{"subject": "user", "predicate": "prefers", "object": "uv", "scope": "user"}])
    sh.store.close()


def build_empty_store(path: Path, size: int) -> None:
    """A store with nothing in it but the vocabulary (``claimgraph init``'s)."""
    from claimgraph.core import Shell
    from claimgraph.core.vocabulary import seed
    from claimgraph.opening import open_store

    sh = Shell(store=open_store(str(path)))
    seed(sh)
    sh.store.close()


SPREAD_PROJECTS = 50


def build_spread_store(path: Path, size: int) -> None:
    """``size`` facts over SPREAD_PROJECTS projects, the hook's project one of them (with its
    standing decisions and preferences, as ``build_project_store``), and the user's."""
    sys.path.insert(0, str(Path(__file__).parent))
    from workload import make_items

    from claimgraph.core import Shell
    from claimgraph.core.vocabulary import seed
    from claimgraph.opening import open_store

    sh = Shell(store=open_store(str(path)))
    seed(sh)
    scopes = [PROJECT_ID] + [f"github.com/bench/other-{n}" for n in range(1, SPREAD_PROJECTS)]
    items = [{**item, "scope": scopes[n % SPREAD_PROJECTS]}
             for n, item in enumerate(make_items(size))]
    _load(sh, items)


def store_kind(token: str) -> tuple[str, str, int, Callable[[Path, int], None]]:
    """(row name, cache kind, size, builder) of a ``--stores`` entry: ``N`` facts in the
    project, ``0`` an empty store, ``50xN`` N facts over 50 projects."""
    if token == "0":
        return "empty store", "hook-empty", 0, build_empty_store
    if token.startswith(f"{SPREAD_PROJECTS}x"):
        size = int(token.split("x", 1)[1])
        return (f"{size} facts over {SPREAD_PROJECTS} projects", "hook-spread", size,
                build_spread_store)
    return f"{int(token)} facts", "hook-project", int(token), build_project_store


def git_project(root: Path, instructions: bool = False) -> Path:
    project = root / "hook-project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin", PROJECT_REMOTE],
                   check=True)
    if instructions:
        write_instruction_files(project)
    return project


def write_instruction_files(project: Path) -> None:
    """Instruction files as a project keeps them, with imports (``--instruction-files``)."""
    rules = "".join(f"- Rule {n}: keep module {n} free of `print` calls.\n" for n in range(80))
    (project / "docs").mkdir()
    (project / ".claude").mkdir()
    (project / "CLAUDE.md").write_text("# Project\n@AGENTS.md\n\n```\n@not-an-import.md\n```\n")
    (project / "AGENTS.md").write_text(f"# Agents\n{rules}See @docs/style.md\n")
    (project / "docs" / "style.md").write_text(f"# Style\n{rules}@../AGENTS.md\n")
    (project / ".claude" / "CLAUDE.md").write_text(f"# More\n{rules}")
    (project / "CLAUDE.local.md").write_text("@~/.claude/mine.md\n")
    (project / "GEMINI.md").write_text("@./AGENTS.md\n")


#: Measures a child's peak RSS. A child forked straight from this (large) process counts this
#: process's pages in its peak (Linux keeps the high-water mark across exec), so every timed
#: command, the baseline too, is started by the small ``time`` program instead.
TIME = "/usr/bin/time"


def run_measured(argv: list[str], stdin: bytes, env: dict[str, str],
                 rss_file: Path) -> tuple[float, int, bytes, float]:
    """(seconds, peak RSS in KB, stdout, CPU seconds) of one run of ``argv`` under ``time -f
    %M``. The CPU time (user + system) is the children's rusage around the run: ``time`` reaps
    the command, so it is the command's own (and ``time``'s, a fraction of a millisecond)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([TIME, "-f", "%M", "-o", str(rss_file), *argv], input=stdin,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, int(rss_file.read_text().split()[-1]), done.stdout, cpu


def has_shortlists_stage() -> bool:
    try:
        import claimgraph.curator.shortlists  # noqa: F401
    except ImportError:
        return False
    return True


def hook_paths(log: Path, since: int) -> dict[str, int]:
    """How many SessionStart runs logged since byte ``since`` took each path."""
    counts: dict[str, int] = {}
    if not log.exists():
        return counts
    with log.open("rb") as lines:
        lines.seek(since)
        for line in lines:
            entry = json.loads(line)
            if entry.get("hook") == "session-start":
                path = entry.get("shortlist", entry.get("event"))
                counts[path] = counts.get(path, 0) + 1
    return counts


def log_size(log: Path) -> int:
    return log.stat().st_size if log.exists() else 0


def compiled_tree(src: str) -> str:
    """``src`` made absolute and compiled (as an install would have it)."""
    import compileall
    root = Path(src).resolve()
    compileall.compile_dir(root / "claimgraph", quiet=1)
    return str(root)


def measure_stores(sizes: list[str], runs: int, compare: str | None,
                   base_src: str | None = None,
                   instructions: bool = False) -> dict[str, object]:
    sys.path.insert(0, str(Path(__file__).parent))
    from store_cache import cached_store, working_copy

    found: dict[str, Any] = {"runs": runs, "load_before": os.getloadavg(),
                             "instruction_files": instructions}
    for token in sizes:
        label, kind, size, builder = store_kind(token)
        source = cached_store(kind, size, builder)
        with tempfile.TemporaryDirectory(prefix="bench-hook-store-") as tmp:
            root = Path(tmp)
            project = git_project(root, instructions)
            db = working_copy(source, root)
            env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMGRAPH_")}
            env.update(HOME=str(root), XDG_DATA_HOME=str(root / "data"), CLAIMGRAPH_DB=str(db))
            stored = has_shortlists_stage()
            if stored:
                subprocess.run([sys.executable, "-m", "claimgraph", "curate", "--db", str(db),
                                "--stage", "shortlists", "--json"], env=env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            series = {"python -c pass": [sys.executable, "-c", "pass"],
                      "session-start": hook_argv("claude-code", "session-start")}
            envs = {name: env for name in series}
            if compare:
                series["session-start (compare)"] = [compare, "-m", "claimgraph.hooks",
                                                     "session-start", "--agent", "claude-code"]
                envs["session-start (compare)"] = env
            if base_src:
                series["session-start (base)"] = hook_argv("claude-code", "session-start")
                envs["session-start (base)"] = {**env, "PYTHONPATH": compiled_tree(base_src)}
            log = Path(f"{db}.capture.log")
            paths: dict[str, dict[str, int]] = {name: {} for name in series}
            load = os.getloadavg()
            stdin = json.dumps({"session_id": "bench", "cwd": str(project),
                                "hook_event_name": "SessionStart", "source": "startup"}).encode()
            seconds = {name: [] for name in series}
            cpus: dict[str, list[float]] = {name: [] for name in series}
            rss = {name: 0 for name in series}
            chars: dict[str, set[int]] = {name: set() for name in series}
            for round_ in range(3 + runs):
                for name, argv in series.items():
                    logged = log_size(log)
                    spent, peak, out, cpu = run_measured(argv, stdin, envs[name], root / "rss")
                    if round_ >= 3:
                        seconds[name].append(spent)
                        cpus[name].append(cpu)
                        rss[name] = max(rss[name], peak)
                        chars[name].add(len(out))
                        for path, n in hook_paths(log, logged).items():
                            paths[name][path] = paths[name].get(path, 0) + n
            base = seconds["python -c pass"]
            base_cpu = max(percentile(cpus["python -c pass"], 0.5), 0.001)
            row: dict[str, object] = {"stored_shortlist": stored, "load_before": load}
            for name, values in seconds.items():
                p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
                row[name] = {"p50_ms": round(p50 * 1000, 1), "p95_ms": round(p95 * 1000, 1),
                             "ratio_p50": round(p50 / percentile(base, 0.5), 2),
                             "ratio_p95": round(p95 / percentile(base, 0.95), 2),
                             "cpu_p50_ms": round(percentile(cpus[name], 0.5) * 1000, 1),
                             "cpu_p95_ms": round(percentile(cpus[name], 0.95) * 1000, 1),
                             "cpu_ratio_p50": round(percentile(cpus[name], 0.5) / base_cpu, 2),
                             "peak_rss_mb": round(rss[name] / 1024, 1),
                             "stdout_bytes": sorted(chars[name])}
                if paths[name]:
                    row[name]["paths"] = paths[name]
            hook = row["session-start"]
            row["meets_target"] = hook["p95_ms"] <= 150 and hook["peak_rss_mb"] <= 60
            found[label] = row
    first = found.get("1000 facts")
    if isinstance(first, dict):
        for token in sizes:
            label = store_kind(token)[0]
            hook, small = found[label]["session-start"], first["session-start"]
            found[label]["vs_1k"] = {  # the hook's growth with the store
                key: round(hook[key] / small[key], 2)
                for key in ("p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms")}
    found["load_after"] = os.getloadavg()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--stores", help="SessionStart on real stores of these sizes "
                        "(comma-separated fact counts)")
    parser.add_argument("--compare-python", help="with --stores: also time this "
                        "interpreter's installed hook on the same store")
    parser.add_argument("--base-src", help="with --stores: also time the hook of this "
                        "src/ directory (another tree) on the same store, in the same rounds")
    parser.add_argument("--agents", default=",".join(EVENTS),
                        help="comma-separated: claude-code, codex, gemini")
    parser.add_argument("--real-capture", action="store_true")
    parser.add_argument("--instruction-files", action="store_true",
                        help="with --stores: the project has CLAUDE.md, AGENTS.md, GEMINI.md "
                             "with imports")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from startup import as_installed
    as_installed()
    if args.stores:
        sizes = [n for n in args.stores.split(",") if n]
        print(json.dumps(measure_stores(sizes, args.runs, args.compare_python,
                                        args.base_src, args.instruction_files), indent=2))
        return
    agents = [a for a in args.agents.split(",") if a]
    unknown = [a for a in agents if a not in EVENTS]
    if unknown:
        raise SystemExit(f"unknown agent(s) {unknown}: choose from {', '.join(EVENTS)}")
    times = measure(agents, args.runs, args.real_capture)
    print(json.dumps(report(times, args.runs, args.real_capture), indent=2))


if __name__ == "__main__":
    main()
