"""Reader throughput: the Codex and Gemini readers beside the Claude Code reader, same bytes.

"Same bytes" means the same NUMBER of bytes in each agent's own format: each input is built
from that agent's real transcripts (tests/fixtures/transcripts: the Codex 0.171.0 rollouts,
the Gemini 0.61.0 session, the 2.9 MB Claude Code session) by repeating their lines until
``--mb`` MB, every copy with its own ids (``id``, ``call_id``, uuids), so replace-by-id
(Gemini) and call/result pairing (Codex) work as in one long session rather than on one
message rewritten a thousand times. The Gemini copies after the first drop the metadata line
and the ``$set`` that replaces the whole message list (a session has one of each).

The Gemini 0.61 sample was written against a fake model: its messages are a few words each,
so a megabyte of it holds about six times as many lines (and events) as a megabyte of a real
Claude Code session. ``gemini-real-content`` is a second Gemini input with real content: the
2025 Gemini session fixture (a real session, 18 messages, 13 with tool calls) rewritten in the
records 0.61 writes (``as_jsonl_records``), then copied the same way.

Each round reads every input once, in-process (``read_transcript`` with the agent named, so
detection is not timed), interleaved across agents so all see the same machine noise; the
median of ``--repeat`` rounds is reported as MB/s (CPU time: the read is single-threaded and
the file is in the page cache after the first round), with each ratio to the Claude Code
reader's figure of the same round set. Beside each, the same-run baseline ``json.loads`` of
every line of that input and the reader's time as a multiple of it (``x_json_loads``): inputs
differ in how many lines (and so events) a megabyte holds, and this is the figure that
compares the readers' own work. Also reported: the real samples as they are (tiny:
per-file overhead dominates, so these are context, not the target).
Target (issue 12): Codex and Gemini each within 2x of Claude Code (ratio >= 0.5).

Usage: .venv/bin/python bench/bench_readers.py [--mb 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from claimgraph.capture.readers import read_transcript  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
SOURCES = {
    "claude-code": [FIXTURES / "claude-code" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"],
    "codex": sorted((FIXTURES / "codex").glob("rollout-2026-*.jsonl")),
    "gemini": sorted((FIXTURES / "gemini").glob("session-2026-*.jsonl")),
}
LEGACY_GEMINI = FIXTURES / "gemini" / "session-2025-10-27T19-55-981c87cb.json"
RESULTS = ROOT / "bench" / "results"
#: Input name -> the reader that reads it.
READER = {"claude-code": "claude-code", "codex": "codex", "gemini": "gemini",
          "gemini-real-content": "gemini"}
_IDS = re.compile(rb'"(id|call_id|callId|uuid|parentUuid|sessionId|session_id|tool_use_id'
                  rb'|promptId|\$rewindTo)":\s*"([^"]+)"')
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _once_per_session(agent: str, line: bytes) -> bool:
    """Lines a session holds once: Gemini's metadata and its whole-list ``$set``."""
    return agent.startswith("gemini") and (b'"projectHash"' in line or line.startswith(b'{"$set":{"messages"'))


def _copy(line: bytes, n: int) -> bytes:
    """``line`` with every id made unique to copy ``n`` (the same id stays the same within it)."""
    line = _IDS.sub(lambda m: b'"%s":"%s-c%d"' % (m.group(1), m.group(2), n), line)
    return _UUID.sub(lambda m: m.group(0)[:-6] + b"%06x" % (n % 0xFFFFFF), line)


def as_jsonl_records(document: Path) -> list[bytes]:
    """A legacy (2025) Gemini session's messages in the records 0.61 writes: the metadata line,
    then each message (a model message with tool calls first bare, then whole, as the CLI
    writes it) followed by a ``$set`` of ``lastUpdated``."""
    data = json.loads(document.read_text())
    meta = {k: data[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated")}
    records = [{**meta, "kind": "main"}]
    for message in data["messages"]:
        if message.get("toolCalls"):
            records.append({k: v for k, v in message.items() if k != "toolCalls"})
        records += [message, {"$set": {"lastUpdated": message["timestamp"]}}]
    return [json.dumps(r, separators=(",", ":")).encode() for r in records]


def source_lines(name: str) -> list[bytes]:
    if name == "gemini-real-content":
        return as_jsonl_records(LEGACY_GEMINI)
    return [line for path in SOURCES[name] for line in path.read_bytes().splitlines()]


def synthetic(agent: str, mb: float) -> Path:
    """``mb`` MB of the agent's real lines, copied with fresh ids (cached in bench/results/)."""
    name = {"codex": "rollout-bench-{}mb.jsonl", "gemini": "session-bench-{}mb.jsonl",
            "gemini-real-content": "session-real-bench-{}mb.jsonl",
            "claude-code": "claude-bench-{}mb.jsonl"}[agent].format(mb)
    target = RESULTS / name
    if target.exists() and target.stat().st_size >= mb * 1_000_000:
        return target
    RESULTS.mkdir(parents=True, exist_ok=True)
    lines = source_lines(agent)
    with open(target, "wb") as out:
        n = 0
        while out.tell() < mb * 1_000_000:
            for line in lines:
                if n == 0 or not _once_per_session(agent, line):
                    out.write((line if n == 0 else _copy(line, n)) + b"\n")
            n += 1
    return target


def read_seconds(path: Path, agent: str) -> tuple[float, int]:
    """CPU seconds to read the whole file, and how many events came of it."""
    started = time.process_time()
    transcript = read_transcript(path, agent=agent)
    return time.process_time() - started, len(transcript.events)


def json_seconds(path: Path) -> float:
    """CPU seconds to split the file into lines and ``json.loads`` each: the least any JSONL
    reader does, and the same-run baseline that shows how line-dense an input is."""
    started = time.process_time()
    for line in path.read_bytes().splitlines():
        if line.strip():
            json.loads(line)
    return time.process_time() - started


def rounds(inputs: dict[str, list[Path]], repeat: int) -> dict[str, dict[str, float]]:
    """Per agent: median MB/s over ``repeat`` interleaved rounds, bytes, lines, events read,
    and the reader's CPU time as a multiple of ``json.loads`` on every line of the same bytes."""
    spent: dict[str, list[float]] = {agent: [] for agent in inputs}
    parsed: dict[str, list[float]] = {agent: [] for agent in inputs}
    events: dict[str, int] = {}
    for _ in range(repeat + 1):  # the first round warms the page cache and imports
        for agent, paths in inputs.items():
            total, count = 0.0, 0
            for path in paths:
                seconds, found = read_seconds(path, READER[agent])
                total, count = total + seconds, count + found
            spent[agent].append(total)
            parsed[agent].append(sum(json_seconds(path) for path in paths))
            events[agent] = count
    result = {}
    for agent, paths in inputs.items():
        size = sum(p.stat().st_size for p in paths)
        lines = sum(len(p.read_bytes().splitlines()) for p in paths)
        median = statistics.median(spent[agent][1:])
        baseline = statistics.median(parsed[agent][1:])
        result[agent] = {"bytes": size, "lines": lines, "events": events[agent],
                         "cpu_s": round(median, 3), "mb_per_s": round(size / 1e6 / median, 1),
                         "json_loads_mb_per_s": round(size / 1e6 / baseline, 1),
                         "x_json_loads": round(median / baseline, 2)}
    return result


def with_ratios(found: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    base = found["claude-code"]["mb_per_s"]
    for agent in [name for name in found if name != "claude-code"]:
        found[agent]["ratio_to_claude_code"] = round(found[agent]["mb_per_s"] / base, 2)
        found[agent]["meets_target"] = found[agent]["mb_per_s"] * 2 >= base
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    same_bytes = {agent: [synthetic(agent, args.mb)] for agent in READER}
    samples = {agent: paths for agent, paths in SOURCES.items()}
    report = {"same_bytes": with_ratios(rounds(same_bytes, args.repeat)),
              "samples_as_they_are": rounds(samples, max(args.repeat, 20))}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
