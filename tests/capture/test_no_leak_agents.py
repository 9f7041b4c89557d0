"""Issue 25 end to end: issue 25's generated corpus planted in real Claude Code, Codex and
Gemini transcripts (the recorded fixtures, their format untouched: the corpus is appended to
the user's prompts and to tool outputs), each captured by a real ``claimgraph capture``
process into one real store; then every file under the store's directory (database, WAL,
evidence, logs, spool, oplog), ``claimgraph dump``, the SessionStart context and SQLite's own
dump are searched for every secret."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from claimgraph.logsetup import reset_logging
from claimgraph.sidecar import Sidecars

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "logic"))
from secret_shapes import leaked, shapes  # noqa: E402
from test_no_leak import write_dumps  # noqa: E402

TRANSCRIPTS = HERE.parent / "fixtures" / "transcripts"
SEED = random.SystemRandom().randrange(1 << 30)
FIXTURES = {
    "claude-code": TRANSCRIPTS / "claude-code" / "short.jsonl",
    "codex": TRANSCRIPTS / "codex"
    / "rollout-2026-12-02T18-07-40-01a237f0-d880-7b31-b2ae-bfc68198b19b.jsonl",
    "gemini": TRANSCRIPTS / "gemini" / "session-2026-12-02T18-15-89c95452.jsonl",
}
#: The fields that carry what the user typed and what tools printed, per format.
BODY_KEYS = ("text", "content", "output")


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


def _plant(value, block: str, budget: list[int]):
    """``value`` with ``block`` appended to its first message bodies (``budget`` of them)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in BODY_KEYS and isinstance(item, str) and item and budget[0] > 0:
                budget[0] -= 1
                out[key] = item + "\n" + block
            else:
                out[key] = _plant(item, block, budget)
        return out
    if isinstance(value, list):
        return [_plant(item, block, budget) for item in value]
    return value


def planted_copy(source: Path, target: Path, block: str) -> int:
    """The fixture, line for line, with the block in up to six bodies; how many it got."""
    budget = [6]
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") in ("user", "message", "response_item",
                                  "gemini") or "$set" in record \
                or record.get("type") == "assistant":
            record = _plant(record, block, budget)
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 6 - budget[0]


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.mark.timeout(300)
def test_no_generated_secret_reaches_any_file_from_any_agents_transcript(tmp_path):
    db = Path(os.environ["CLAIMGRAPH_DB"])
    corpus = shapes(SEED)
    block = "\n\n".join(text for _, _, text in corpus)
    secrets = [secret for _, secret, _ in corpus]
    sidecars = Sidecars(db)
    sidecars.capture_log.parent.mkdir(parents=True, exist_ok=True)
    for agent, fixture in FIXTURES.items():
        transcript = tmp_path / agent / fixture.name
        transcript.parent.mkdir()
        assert planted_copy(fixture, transcript, block) >= 1, agent
        assert all(leaked(secret, transcript.read_text()) for secret in secrets[:5])
        with open(sidecars.capture_log, "ab") as log:
            done = subprocess.run([sys.executable, "-m", "claimgraph", "capture", str(transcript),
                                   "--agent", agent, "--cwd", str(tmp_path), "--no-curate"],
                                  stdout=log, stderr=log, timeout=180)
        assert done.returncode == 0, sidecars.capture_log.read_text()[-2000:]
        report = json.loads(sidecars.capture_log.read_text().splitlines()[-1])
        assert report["status"] == "captured", report
        assert sum(report["redactions"].values()) >= len(corpus) // 2, report
    dumps = write_dumps(db, tmp_path)
    everything = [p for p in db.parent.rglob("*") if p.is_file()] + dumps
    assert any(p.parent == sidecars.evidence_dir for p in everything)
    leaks = {}
    for path in everything:
        data = path.read_bytes().decode("utf-8", "replace")
        data += json.dumps(data)  # JSON-escaped text too
        for cls, secret, _ in corpus:
            if leaked(secret, data) or leaked(secret.replace("\n", "\\n"), data):
                leaks.setdefault(path.name, []).append(cls)
    assert leaks == {}, f"seed {SEED}"
