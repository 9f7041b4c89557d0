"""Capture throughput (MB/s of transcript) and peak RSS with the built-in extractor.

Each run is a real ``python -m claimgraph capture FILE --no-curate`` into a fresh, initialized
SQLite file (``claimgraph init`` first, untimed: a user's store exists already),
reaped with ``os.wait4`` so the RSS is that one process's peak. Two throughputs are printed:
``pass`` uses the report's own ``duration_ms`` (read → clean → evidence → extract → screen →
write), ``process`` the wall time of the whole command (interpreter start and imports
included), and ``process_cpu`` its user+system CPU time (what a quiet machine's wall time would
be, near enough: the pass is single-threaded and does little I/O). Inputs: the 2.9 MB real fixture 8463c716… (its subagent files are read too and
counted), and a synthetic transcript of ``--mb`` MB (cached in bench/results/, never
committed: it holds third-party text). By default it is made of *different* real Claude Code
sessions, one after another: this checkout's fixtures, the shared dev fixtures and corpus, and
the transcripts restored for the OPEN gold sets (bench/memory/gold-*/sessions, when present;
never a BLIND set's), each file once, in name order, the whole pool again (fresh ids) only
past its size. ``--repeated`` keeps the older input, one 2.9 MB fixture repeated ~17 times,
which flatters every cache keyed on content (a command tokenized once served 17 times): it
measured the rules' real cost at about a third.

``--stages`` adds an in-process split (CPU seconds) of one run per input (read and clean, one
pass as capture does it; evidence, extract, screen + write) and a baseline measured in the same run: reading the file and ``json.loads``
of every line, the least any JSONL capture can do. The machine is shared and noisy: compare
ratios to that baseline across runs rather than raw MB/s.

``--memory`` adds, per input, the capture process's resident memory (current and high-water
mark, MB) as it reaches each stage of the pass (read, evidence, extracted, committed), from a
real capture in its own process: where the peak is reached and what each stage adds.

``--base-src DIR`` times another checkout's capture (``DIR`` holds its ``claimgraph``
package, e.g. ``git archive main | tar -x -C /tmp/base`` then ``/tmp/base/src``) in the same
rounds, alternating which goes first, each round beside its own json.loads baseline: the
figures print side by side, with this tree's CPU over the base's (``cpu_vs_base``).

Start-up is timed as installed (``startup.as_installed``: bytecode written and the package
compiled before any run); without it, a sandbox's ``PYTHONDONTWRITEBYTECODE`` had every run
compile each module it imported again (~0.3 s of a 50 MB run's CPU, 2026-12-05).

Usage: .venv/bin/python bench/bench_capture.py [--mb 50] [--repeat 3] [--stages] [--memory]
       [--base-src /tmp/base/src] [--repeated]
Targets (issue 3): ≥ 20 MB/s on both inputs, peak RSS ≤ 150 MB on the synthetic one; issue 29:
≥ 0.3× the json.loads baseline (printed beside each input, measured just before each run) and
peak RSS ≤ 100 MB on a 200 MB transcript (``--mb 200``).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from startup import as_installed, compiled_tree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = (ROOT / "tests" / "fixtures" / "transcripts" / "claude-code" /
           "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl").resolve()
RESULTS = ROOT / "bench" / "results"
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_IDS = re.compile(rb'"((?:msg|toolu|req)_[A-Za-z0-9]+)"')


def synthetic(mb: int, repeated: bool = False) -> Path:
    """``mb`` MB of real Claude Code sessions (``session_pool``), or with ``repeated`` of the
    one fixture's lines again and again; each copy of a file with its own uuids and
    message/tool ids."""
    target = RESULTS / (f"synthetic-{mb}mb.jsonl" if repeated else f"mixed-{mb}mb.jsonl")
    if target.exists() and target.stat().st_size >= mb * 1_000_000:
        return target
    RESULTS.mkdir(parents=True, exist_ok=True)
    pool = [FIXTURE] if repeated else session_pool()
    namespace = uuid.UUID("6f0e5d1c-0000-4000-8000-000000000000")
    with open(target, "wb") as out:
        copy = 0
        while out.tell() < mb * 1_000_000:
            for number, source in enumerate(pool):
                if out.tell() >= mb * 1_000_000:
                    break
                _write_copy(out, source, namespace, f"{copy}.{number}")
            copy += 1
    return target


def _write_copy(out, source: Path, namespace: uuid.UUID, tag: str) -> None:
    """One transcript's lines with every uuid and message/tool id made this copy's own."""
    fresh: dict[bytes, bytes] = {}

    def new_uuid(match: re.Match[bytes]) -> bytes:
        old = match.group(0)
        if old not in fresh:
            fresh[old] = str(uuid.uuid5(namespace, f"{tag}:{old.decode()}")).encode()
        return fresh[old]

    suffix = tag.replace(".", "_").encode()
    for line in source.read_bytes().split(b"\n"):  # not splitlines: a raw \r is in a line
        if not line.strip():
            continue
        line = _UUID.sub(new_uuid, line + b"\n")
        out.write(_IDS.sub(lambda m: b'"%s_c%s"' % (m.group(1), suffix), line))


def session_pool() -> list[Path]:
    """Distinct real Claude Code main transcripts (no subagent files), each once, in name
    order: this checkout's fixtures, the shared dev fixtures and corpus, and the sessions
    restored for the OPEN gold sets (score_sets.OPEN: a BLIND set's transcripts stay unread)."""
    sys.path.insert(0, str(ROOT / "bench" / "memory"))
    from score_sets import OPEN  # noqa: E402  (bench/memory is not a package)

    shared = ROOT.parent / "shared"
    if not shared.is_dir():
        shared = Path("/work/shared")
    folders = [ROOT / "tests" / "fixtures" / "transcripts" / "claude-code",
               shared / "fixtures" / "transcripts" / "claude-code",
               shared / "corpus" / "sessions" / "claude-code",
               *(ROOT / "bench" / "memory" / f"gold-{name}" / "sessions" / "claude-code"
                 for name in OPEN)]
    found: dict[str, Path] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
            found.setdefault(path.name, path)
    return [found[name] for name in sorted(found)]


def transcript_bytes(path: Path) -> int:
    """The main file plus the subagent files read with it."""
    subagents = path.with_suffix("") / "subagents"
    extra = sum(p.stat().st_size for p in subagents.glob("agent-*.jsonl")) if subagents.is_dir() else 0
    return path.stat().st_size + extra


def one_run(path: Path, src: str | None = None) -> dict[str, float]:
    """One capture in its own process; ``src``: another checkout's package to run instead."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CLAIMGRAPH_DB": str(Path(home) / "claims.db"), "HOME": home,
               "XDG_CONFIG_HOME": str(Path(home) / ".config")}
        if src:
            env["PYTHONPATH"] = src
        subprocess.run([sys.executable, "-m", "claimgraph", "init"], env=env, check=True,
                       capture_output=True)  # a user's store exists already: not timed
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-m", "claimgraph", "capture", str(path),
                                      "--no-curate"], stdout=out, stderr=err, env=env)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - started
            child.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            if child.returncode != 0:
                raise SystemExit(f"capture failed: {err.read().decode()[-2000:]}")
            report = json.loads(out.read())
    size_mb = transcript_bytes(path) / 1e6
    cpu = usage.ru_utime + usage.ru_stime
    return {"pass_mb_s": size_mb / (report["duration_ms"] / 1000), "process_mb_s": size_mb / wall,
            "process_cpu_mb_s": size_mb / cpu, "cpu_s": cpu,
            "pass_s": report["duration_ms"] / 1000, "wall_s": wall,
            "peak_rss_mb": usage.ru_maxrss / 1024, "facts": report["counts"].get("created", 0),
            "events": report["events"]}


def json_loads_baseline(path: Path) -> dict[str, float]:
    """The least any JSONL capture can do: read every line of the same files and
    ``json.loads`` it, here in this process (MB/s by wall and by CPU time)."""
    files = [path]
    subagents = path.with_suffix("") / "subagents"
    if subagents.is_dir():
        files += sorted(subagents.glob("agent-*.jsonl"))
    wall, cpu = time.perf_counter(), time.process_time()
    for file in files:
        with open(file, "rb") as handle:
            for line in handle:
                if line.strip():
                    try:
                        json.loads(line)
                    except ValueError:
                        pass  # a torn line (real transcripts hold some): capture skips it too
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    size_mb = transcript_bytes(path) / 1e6
    return {"json_loads_mb_s": size_mb / wall, "json_loads_cpu_mb_s": size_mb / cpu}


def measure(name: str, path: Path, repeat: int, base_src: str | None = None) -> dict[str, object]:
    """Each run beside a json.loads baseline of the same bytes measured just before it (the
    issue's ratio: capture MB/s over json.loads MB/s, by wall and by CPU time); with
    ``base_src``, the base's run in the same round, the two alternating which goes first."""
    runs: list[dict[str, float]] = []
    base_runs: list[dict[str, float]] = []
    for round_ in range(repeat):
        order = [(runs, None), (base_runs, base_src)] if base_src else [(runs, None)]
        for found, src in order if round_ % 2 == 0 else order[::-1]:
            baseline = json_loads_baseline(path)
            found.append({**one_run(path, src), **baseline})
    summary: dict[str, object] = {"input": name, "mb": round(transcript_bytes(path) / 1e6, 2),
                                  **_summary(runs)}
    if base_src:
        summary["base"] = {"src": base_src, **_summary(base_runs)}
        summary["cpu_vs_base"] = [round(ours["cpu_s"] / base["cpu_s"], 3)
                                  for ours, base in zip(runs, base_runs)]
    summary["load"] = os.getloadavg()
    summary["events"], summary["facts"] = runs[0]["events"], runs[0]["facts"]
    return summary


def _summary(runs: list[dict[str, float]]) -> dict[str, object]:
    """Medians of the runs, the ratios to each run's own json.loads baseline, and each run's
    CPU ratio and peak RSS as measured (three runs say more than their median)."""
    summary: dict[str, object] = {}
    for key in ("pass_mb_s", "process_mb_s", "process_cpu_mb_s", "pass_s", "wall_s", "cpu_s",
                "peak_rss_mb", "json_loads_mb_s", "json_loads_cpu_mb_s"):
        summary[key] = round(statistics.median(r[key] for r in runs), 2)
    summary["ratio_process_to_json_loads"] = round(statistics.median(
        r["process_mb_s"] / r["json_loads_mb_s"] for r in runs), 3)
    summary["cpu_ratio_process_to_json_loads"] = round(statistics.median(
        r["process_cpu_mb_s"] / r["json_loads_cpu_mb_s"] for r in runs), 3)
    summary["each_cpu_ratio"] = [round(r["process_cpu_mb_s"] / r["json_loads_cpu_mb_s"], 3)
                                 for r in runs]
    summary["each_wall_ratio"] = [round(r["process_mb_s"] / r["json_loads_mb_s"], 3)
                                  for r in runs]
    summary["each_peak_rss_mb"] = [round(r["peak_rss_mb"], 1) for r in runs]
    return summary


def stages(path: Path) -> dict[str, float]:
    """CPU seconds per stage of one in-process pass, plus the json.loads baseline."""
    from claimgraph.capture import placement, run
    from claimgraph.capture.extract import get_extractor
    from claimgraph.capture.segment import (
        read_cleaned, segment_header, segment_lines, write_segment)
    from claimgraph.core import tombstones
    from claimgraph.core import Shell
    from claimgraph.opening import open_store

    clock, split = time.process_time(), {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.process_time()
        split[name] = round(now - clock, 3)
        clock = now

    with open(path, "rb") as handle:
        for line in handle:
            try:
                json.loads(line)
            except ValueError:
                pass
    lap("baseline_json_loads")
    cleaned, _ = read_cleaned(str(path), "claude-code")  # one pass, as capture reads
    lap("read_and_clean")
    with tempfile.TemporaryDirectory() as home:
        db = Path(home) / "claims.db"
        write_segment(Path(home) / "evidence", segment_lines(cleaned, segment_header(
            cleaned, "s", 0, {})))
        lap("evidence")
        request = run.Request(str(path), "claude-code", "bench")
        shell = Shell(open_store(db))
        placed = placement.place(shell, cleaned, None, None, dict(os.environ))
        candidates = get_extractor("builtin")(cleaned, project_root=placed.root)
        lap("project_and_extract")
        scoped = [placement.scoped(c, placed, run.SOURCE_TYPE) for c in candidates]
        placed_ones = [c for c in scoped if c is not None]
        screened = run.screen_candidates(placed_ones, run._screen_ctx(shell, placed_ones))
        seen = (None, tombstones.epoch(shell.store))  # the session's mark and the purge epoch
        run._commit(shell, request, run.Options(db=db), seen, cleaned, screened["admitted"],
                    "sha256-" + "0" * 64)
        shell.store.close()
        lap("screen_and_write")
    size = transcript_bytes(path) / 1e6
    split["baseline_mb_s"] = round(size / split["baseline_json_loads"], 1)
    return split


_MEMORY_CHILD = """
import sys, time
from claimgraph.deferred import defer
defer("asyncio")  # as the capture command's own process does (cli.main)
from claimgraph.capture import run
from claimgraph.cli import main as cli

def rss():
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS", "VmHWM")):
                key, value = line.split(":")
                found[key] = round(int(value.split()[0]) / 1024, 1)
    return found

marks = [("imported", rss(), time.process_time())]
reach = run._reach

def noted(stage, options):
    if stage in ("read", "evidence", "extracted", "committed"):
        marks.append((stage, rss(), time.process_time()))
    return reach(stage, options)

run._reach = noted
code = cli.main(["capture", sys.argv[1], "--no-curate"])
print("MEMORY " + repr([(stage, m["VmRSS"], m["VmHWM"], round(cpu, 2)) for stage, m, cpu in marks]))
sys.exit(code)
"""


def memory_stages(path: Path) -> list[dict[str, object]]:
    """Resident MB (now, high-water) and process CPU s at each stage of one real capture."""
    if not Path("/proc/self/status").exists():
        return []
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CLAIMGRAPH_DB": str(Path(home) / "claims.db"), "HOME": home,
               "XDG_CONFIG_HOME": str(Path(home) / ".config")}
        subprocess.run([sys.executable, "-m", "claimgraph", "init"], env=env, check=True,
                       capture_output=True)
        done = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, str(path)], env=env,
                              capture_output=True, text=True, check=True)
    line = next(x for x in done.stdout.splitlines() if x.startswith("MEMORY "))
    return [{"stage": stage, "rss_mb": now, "peak_mb": peak, "cpu_s": cpu}
            for stage, now, peak, cpu in ast.literal_eval(line.removeprefix("MEMORY "))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50, help="size of the synthetic transcript")
    parser.add_argument("--repeat", type=int, default=3, help="runs per input (median shown)")
    parser.add_argument("--stages", action="store_true", help="also split one run by stage")
    parser.add_argument("--memory", action="store_true",
                        help="also the resident memory at each stage of one real capture")
    parser.add_argument("--base-src", help="also time this checkout's capture (its src/) in "
                        "the same rounds")
    parser.add_argument("--inputs", choices=("both", "fixture", "synthetic"), default="both",
                        help="which inputs to run (default: both)")
    parser.add_argument("--repeated", action="store_true",
                        help="the older synthetic input: one fixture repeated (flatters caches)")
    args = parser.parse_args()
    as_installed()
    base_src = compiled_tree(args.base_src) if args.base_src else None
    kind_of_input = "one fixture repeated" if args.repeated else "distinct real sessions"
    inputs = [("fixture 8463c716 (2.9 MB + subagents)", FIXTURE, "fixture"),
              (f"synthetic {args.mb} MB ({kind_of_input})", synthetic(args.mb, args.repeated),
               "synthetic")]
    for name, path, kind in inputs:
        if args.inputs not in ("both", kind):
            continue
        if args.repeat:  # --repeat 0: only the --stages / --memory figures
            print(json.dumps(measure(name, path, args.repeat, base_src)))
        if args.stages:
            print(json.dumps({"input": name, "stages_s": stages(path)}))
        if args.memory:
            print(json.dumps({"input": name, "memory": memory_stages(path)}))


if __name__ == "__main__":
    main()
