"""Issue 25 §4: every path that stores text redacts. A secret of each class of the generated
corpus is planted through ``assert`` (the write path MCP's ``memory_assert`` shares:
``core.writes.assert_fact``), ``evidence put`` and a hook's spool record, then every file under
the store's directory is searched for it."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from claimgraph.hooks.spool import make_record

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "logic"))
from secret_shapes import leaked, shapes  # noqa: E402

SEED = random.SystemRandom().randrange(1 << 30)


def planted() -> list[tuple[str, str, str]]:
    """One single-line shape per class (a fact's value is one line)."""
    seen, out = set(), []
    for cls, secret, text in shapes(SEED):
        if cls not in seen and "\n" not in text:
            seen.add(cls)
            out.append((cls, secret, text))
    return out


def leaks_under(directory: Path, secrets: list[str]) -> list[str]:
    found = []
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes().decode("utf-8", "replace")
            found += [f"{path.name}: {s[:12]}…" for s in secrets if leaked(s, data)]
    return found


def test_assert_and_evidence_put_store_no_planted_secret(ok, db, tmp_path):
    ok("init")
    shapes_ = planted()
    assert len(shapes_) >= 8, shapes_
    for index, (cls, _, text) in enumerate(shapes_):
        ok("assert", f"deploy-step-{index}", "core/prefers", text)
    notes = tmp_path / "notes.md"
    notes.write_text("\n".join(text for _, _, text in shapes_) + "\n")
    stored = ok("evidence", "put", str(notes), "--json").json()
    assert stored["redactions"]
    secrets = [secret for _, secret, _ in shapes_]
    found = leaks_under(db.parent, secrets)
    assert found == [], f"seed {SEED}: " + "; ".join(found)


def test_a_spool_record_holds_no_planted_secret():
    for cls, secret, text in planted():
        record = make_record({"session_id": "s1", "cwd": "/work", "reason": text,
                              "transcript_path": "/t.jsonl"}, "claude", "SessionEnd", 0.0)
        assert not leaked(secret, repr(record)), (cls, SEED)
