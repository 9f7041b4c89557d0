"""Capture is deterministic: the same transcript captured into a fresh store gives the same facts,
in the same order, whatever the process's string hashing (``PYTHONHASHSEED``) and whatever ids it
minted. Each capture runs in a real ``claimgraph capture`` process, each store is read back by
a real ``claimgraph dump`` (the order a reader of the dump sees, and the one a scorer takes
the first match from)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
#: Fixtures that each give several facts, from two agents' formats.
FIXTURES = [("claude-code", TRANSCRIPTS / "claude-code" / "python-to-rust-port.jsonl"),
            ("claude-code",
             TRANSCRIPTS / "claude-code" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"),
            ("codex", TRANSCRIPTS / "codex"
             / "rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl")]
#: What differs from run to run by design: minted ids and the clock.
_RUN_DEPENDENT = ("id", "recorded_at", "last_reinforced_at", "episode", "successor", "subject",
                  "object_ref", "conflicts")


def _captured(home: Path, agent: str, transcript: Path, seed: str) -> list[str]:
    """The facts a fresh store holds after a capture, in the order ``dump`` lists them, each
    with its entities by name and without what differs by design."""
    (home / "db").mkdir(parents=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_DATA_HOME": str(home / "data"), "XDG_STATE_HOME": str(home / "state"),
           "CLAIMGRAPH_DB": str(home / "db" / "claims.db"), "PYTHONHASHSEED": seed}
    run = [sys.executable, "-m", "claimgraph"]
    done = subprocess.run([*run, "capture", str(transcript), "--agent", agent, "--no-curate"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    dump = subprocess.run([*run, "dump"], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    records = [json.loads(line) for line in dump.stdout.splitlines() if line.strip()]
    names = {r["id"]: r.get("name") for r in records if r.get("record") == "entity"}
    facts = []
    for record in records:
        if record.get("record") != "fact":
            continue
        row = {k: v for k, v in record.items() if k not in _RUN_DEPENDENT}
        row["subject"], row["object"] = names.get(record["subject"]), names.get(
            record.get("object_ref"), record.get("object_ref"))
        row["conflicts"] = len(record.get("conflicts") or [])
        facts.append(json.dumps(row, sort_keys=True, default=str))
    return facts


@pytest.mark.parametrize("agent, transcript", FIXTURES, ids=lambda v: getattr(v, "name", v))
def test_the_same_transcript_gives_the_same_facts_in_the_same_order_under_any_hash_seed(
        tmp_path: Path, agent: str, transcript: Path):
    first = _captured(tmp_path / "a", agent, transcript, "0")
    second = _captured(tmp_path / "b", agent, transcript, "1")
    assert len(first) >= 3  # facts enough for an order to matter
    assert first == second
