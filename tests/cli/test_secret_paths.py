"""Issue 25 §4: every path that stores text redacts. A secret of each class of the generated
corpus is planted through ``assert`` (the write path MCP's ``memory_assert`` shares:
``core.writes.assert_fact``), ``evidence put``, a hook's spool record, a log line and a crash
report, then every file written is searched for it. (Capture's paths: tests/capture's
test_no_leak and test_no_leak_agents.)"""

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
    for index, (_, _, text) in enumerate(shapes_):
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


def test_a_log_line_holds_no_planted_secret(tmp_path):
    """Every JSON log line goes through the redacting processor (logsetup.redact_secrets)."""
    import structlog

    from claimgraph.logsetup import configure_logging, reset_logging
    log = tmp_path / "claims.db.capture.log"
    configure_logging("json", log)
    try:
        for cls, _, text in planted():
            structlog.get_logger().info("capture.step", cls=cls, detail=text, nested={"x": text})
    finally:
        reset_logging()
    data = log.read_text()
    assert data.count("capture.step") == len(planted())
    assert [cls for cls, secret, _ in planted() if leaked(secret, data)] == [], SEED


def test_a_crash_file_holds_no_planted_secret(ok, cli, db, monkeypatch):
    """An unexpected error's traceback quotes the values it failed on, and argv may hold a
    key: the crash file beside the store is redacted."""
    from claimgraph.core import writes

    ok("init")
    shapes_ = planted()

    def explode(*_args, **_kwargs):
        raise RuntimeError("failed on " + " | ".join(text for _, _, text in shapes_))
    monkeypatch.setattr(writes, "assert_fact", explode)  # a fault injected: the crash path
    result = cli("assert", "deploy", "core/prefers", shapes_[0][2])
    assert result.code != 0
    crash = [p for p in db.parent.rglob("*crash*") if p.is_file()]
    assert crash and "RuntimeError" in crash[0].read_text()
    found = leaks_under(db.parent, [secret for _, secret, _ in shapes_])
    assert found == [], f"seed {SEED}: " + "; ".join(found)
    assert not [cls for cls, secret, _ in shapes_ if leaked(secret, result.err)]
