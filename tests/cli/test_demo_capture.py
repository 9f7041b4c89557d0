"""``claimgraph demo`` runs the main job: capture of a bundled Claude Code session."""

from __future__ import annotations

import json
import re
import tempfile
from importlib import resources
from pathlib import Path

from claimgraph.cli.demo import fake_key

from .conftest import normalize


def demo_db(home: Path) -> Path:
    return home / ".local/share/claimgraph/demo.db"


def test_the_bundled_transcript_holds_no_key_only_a_placeholder():
    text = resources.files("claimgraph").joinpath("examples/demo-session.jsonl").read_text("utf-8")
    records = [json.loads(line) for line in text.splitlines()]
    assert 20 <= len(records) <= 40
    assert "{FAKE_OPENAI_KEY}" in text and "{PROJECT_DIR}" in text
    assert not re.search(r"sk-[A-Za-z0-9_-]{20,}", text)
    assert fake_key() not in text


def test_demo_prints_the_capture_report(ok):
    text = normalize(ok("demo").out)
    assert ("  captured: 18 events, 5 candidates -> 4 created, 1 flagged; "
            "0 left out by screening") in text
    assert "  secrets redacted before storing: 2 openai-api-key" in text
    assert re.search(r"  episode <ep>, segment stored as evidence sha256-[0-9a-f]{12}…", text)


def test_demo_shows_a_defined_in_fact_with_file_evidence_checked_against_the_file(ok):
    text = normalize(ok("demo").out)
    assert ("  <f>  line_total defined-in invoices/totals.py  (conf 0.70, valid since ") in text
    assert ("      evidence: invoices/totals.py: `def line_total(quantity: int, unit_price: "
            "Decimal) -> Decimal:`\n") in text
    assert "      evidence: invoices/totals.py: `class Invoice:`\n" in text
    assert text.count("checked: the quoted code is found in the file the session wrote") == 2
    assert "NOT found" not in text


def test_demo_shows_one_facts_provenance(ok):
    text = normalize(ok("demo").out)
    assert re.search(r"\n4\. Provenance of <f>: episode claude-code:demo@0-\d+\n", text)
    assert "  it cites transcript line 2; the stored (cleaned) segment has it:\n" in text
    assert '    "Always use pytest, and never use requests — we decided on httpx."\n' in text
    assert ("  the .env output the session printed, as stored: "
            "OPENAI_API_KEY=[REDACTED:openai-api-key]\n") in text


def test_demo_json_carries_the_report_provenance_and_verified_evidence(ok):
    data = ok("demo", "--json").json()
    assert data["capture"]["status"] == "captured"
    assert data["capture"]["redactions"] == {"openai-api-key": 2}
    assert data["capture"]["inadmissible"] == [] and data["capture"]["errors"] == []
    triples = {(f["subject"], f["predicate"], f["object"]) for f in data["facts"]}
    assert {("invoice-tools", "x/convention",
             "Always use pytest, and never use requests — we decided on httpx"),
            ("line_total", "core/defined-in", "invoices/totals.py"),
            ("Invoice", "core/defined-in", "invoices/totals.py"),
            ("invoice-tools", "core/tested-by", "python -m pytest"),
            ("invoice-tools", "core/depends-on", "httpx")} <= triples
    assert all(f["t_valid"] >= data["history_replay"][-1]["fact"]["t_valid"]
               for f in data["facts"])  # the session is the newest thing in the story
    assert len(data["verified"]) == 2 and all(data["verified"].values())
    assert data["provenance"]["line"] == 2
    assert data["provenance"]["evidence"] == data["capture"]["evidence"]


def test_the_fake_secret_is_nowhere_in_the_store_its_evidence_or_the_output(ok, isolated_home):
    out = ok("demo").out + ok("demo", "--json").out
    key = fake_key().encode()
    assert key.decode() not in out and b"sk-demo" not in out.encode()
    data_dir = demo_db(isolated_home).parent
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert demo_db(isolated_home) in files
    assert any(p.parent.name == "demo.db.evidence" for p in files)
    for path in files:
        assert key not in path.read_bytes(), path
        assert b"sk-demo" not in path.read_bytes(), path


def test_demo_runs_in_a_temporary_project_it_removes_afterwards(ok, monkeypatch):
    made: list[Path] = []
    real = tempfile.TemporaryDirectory

    def recording(*args, **kwargs):
        handle = real(*args, **kwargs)
        made.append(Path(handle.name))
        return handle

    monkeypatch.setattr(tempfile, "TemporaryDirectory", recording)
    text = ok("demo").out
    assert len(made) == 1 and made[0].name.startswith("claimgraph-demo-")
    assert f"Write {made[0].resolve()}/invoice-tools/invoices/totals.py" in text
    assert not made[0].exists()
