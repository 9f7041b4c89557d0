"""The audit stage: verdicts recorded with the file's hash, unchanged files skipped, suspects
listed."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

from claimgraph.core import audit as audit_mod
from claimgraph.core import reads
from claimgraph.core.audit_record import audit_pass, fingerprint
from claimgraph.core.writes import assert_fact, invalidate
from claimgraph.logic.timeutil import DAY_MS

SOURCE = "def total(items):\n    return sum(items)\n\nclass InvoiceModel:\n    pass\n"
GOOD = "app/models.py: `def total(items):` and InvoiceModel"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "models.py").write_text(SOURCE)
    return root


@pytest.fixture
def reads_counted(monkeypatch):
    """Count real file reads made by the audit."""
    seen: list[Path] = []
    real = audit_mod.read_cited

    def counting(path):
        seen.append(path)
        return real(path)

    monkeypatch.setattr(audit_mod, "read_cited", counting)
    return seen


def cite(shell, evidence: str, subject: str = "total") -> dict:
    return assert_fact(shell, subject, "defined-in", "app/models.py", evidence=[evidence])["fact"]


def test_verdicts_are_recorded_with_the_content_hash(shell, project):
    fact = cite(shell, GOOD)
    now = shell.now()
    counts = audit_pass(shell, now, base=project)
    assert counts["status"] == "ok"
    assert (counts["facts"], counts["citations"], counts["judged"],
            counts["recorded"]) == (1, 1, 1, 1)
    assert counts["by_verdict"] == {"supported": 1} and counts["suspect"] == 0
    [row] = shell.store.get_audit([fact["id"]])
    assert (row["verdict"], row["file"], row["checked_at"]) == ("supported", "app/models.py", now)
    assert row["content_hash"].startswith("sha256-")
    assert row["details"]["path"] == str(project / "app" / "models.py")
    assert row["details"]["identifiers"]["found"] == ["invoicemodel"]


def test_an_unchanged_file_is_not_read_again(shell, project, reads_counted):
    cite(shell, GOOD)
    audit_pass(shell, shell.now(), base=project)
    assert len(reads_counted) == 1
    counts = audit_pass(shell, shell.now(), base=project)
    assert (counts["unchanged"], counts["judged"], counts["recorded"]) == (1, 0, 0)
    assert len(reads_counted) == 1 and counts["by_verdict"] == {"supported": 1}


def test_a_touched_but_identical_file_is_rehashed_and_keeps_its_verdict(shell, project):
    fact = cite(shell, GOOD)
    audit_pass(shell, shell.now(), base=project)
    before = shell.store.get_audit([fact["id"]])[0]
    target = project / "app" / "models.py"
    os.utime(target, ns=(1, 1))
    counts = audit_pass(shell, shell.now(), base=project)
    assert (counts["judged"], counts["rehashed"]) == (1, 1)
    after = shell.store.get_audit([fact["id"]])[0]
    assert after["content_hash"] == before["content_hash"] and after["verdict"] == "supported"
    assert after["details"]["stat"] != before["details"]["stat"]
    assert audit_pass(shell, shell.now(), base=project)["unchanged"] == 1


def test_a_claim_whose_evidence_went_away_becomes_suspect_and_is_listed(shell, project):
    fact = cite(shell, GOOD)
    other = cite(shell, "app/models.py: `class InvoiceModel:`", subject="InvoiceModel")
    audit_pass(shell, shell.now(), base=project)
    assert reads.suspects(shell)["count"] == 0
    (project / "app" / "models.py").write_text("def unrelated():\n    pass\n")
    counts = audit_pass(shell, shell.now(), base=project)
    assert counts["by_verdict"] == {"unsupported": 2} and counts["suspect"] == 2
    listed = reads.suspects(shell)
    assert [s["fact"]["id"] for s in listed["suspect"]] == [fact["id"], other["id"]]
    assert listed["suspect"][0]["verdicts"][0]["verdict"] == "unsupported"
    assert [s["fact"]["id"] for s in reads.conflicts(shell)["suspect"]] == [fact["id"], other["id"]]
    (project / "app" / "models.py").unlink()
    audit_pass(shell, shell.now(), base=project)
    assert {r["verdict"] for r in shell.store.get_audit()} == {"file-missing"}
    assert reads.suspects(shell)["count"] == 2


def test_a_restored_file_clears_the_suspicion(shell, project):
    cite(shell, GOOD)
    target = project / "app" / "models.py"
    target.unlink()
    audit_pass(shell, shell.now(), base=project)
    assert reads.suspects(shell)["count"] == 1
    target.write_text(SOURCE)
    counts = audit_pass(shell, shell.now(), base=project)
    assert counts["by_verdict"] == {"supported": 1} and reads.suspects(shell)["count"] == 0


def test_a_still_missing_file_is_not_looked_up_again(shell, project):
    cite(shell, "app/gone.py: `def gone():`")
    first = audit_pass(shell, shell.now(), base=project)
    assert first["by_verdict"] == {"file-missing": 1}
    again = audit_pass(shell, shell.now(), base=project)
    assert (again["unchanged"], again["judged"], again["suspect"]) == (1, 0, 1)


def test_an_invalidated_suspect_is_no_longer_listed(shell, project):
    fact = cite(shell, "app/gone.py: `def gone():`")
    audit_pass(shell, shell.now(), base=project)
    invalidate(shell, fact["id"])
    assert reads.suspects(shell)["count"] == 0
    assert audit_pass(shell, shell.now(), base=project)["facts"] == 0


def test_a_fact_set_to_end_later_is_audited_until_its_end(shell, project):
    """The audit reads the cited facts not ended now: one whose end is recorded for later
    (``assert --valid-until``) is still believed, so its citation is checked and a bad one
    makes it suspect; once it has ended it is neither audited nor listed."""
    fact = assert_fact(shell, "gone", "defined-in", "app/gone.py",
                       evidence=["app/gone.py: `def gone():`"],
                       valid_until=shell.now() + 2 * DAY_MS)["fact"]
    counts = audit_pass(shell, shell.now(), base=project)
    assert (counts["facts"], counts["suspect"]) == (1, 1)
    assert [s["fact"]["id"] for s in reads.suspects(shell)["suspect"]] == [fact["id"]]
    later = shell.now() + 3 * DAY_MS
    assert audit_pass(shell, later, base=project)["facts"] == 0
    assert reads.suspects(shell, later)["count"] == 0


def test_facts_without_file_citations_are_not_audited(shell, project):
    assert_fact(shell, "api", "depends-on", "postgres", evidence=["transcript#L3: we use postgres"])
    counts = audit_pass(shell, shell.now(), base=project)
    assert (counts["facts"], counts["recorded"]) == (0, 0) and shell.store.get_audit() == []


def test_a_dry_run_records_nothing(shell, project):
    cite(shell, GOOD)
    counts = audit_pass(shell, shell.now(), base=project, dry_run=True)
    assert (counts["status"], counts["recorded"]) == ("dry-run", 1)
    assert shell.store.get_audit() == []


def test_a_lost_lease_stops_before_the_next_transaction(shell, project):
    for name in ("a", "b", "c"):
        cite(shell, GOOD, subject=name)
    calls = iter([True, False])
    counts = audit_pass(shell, shell.now(), lambda: next(calls), base=project, batch=2)
    assert counts["status"] == "lease-lost" and counts["recorded"] == 2
    assert len(shell.store.get_audit()) == 2


def test_writes_go_through_the_given_transaction(shell, project):
    cite(shell, GOOD)
    opened = []

    @contextmanager
    def fenced_write():
        opened.append(1)
        with shell.store.transaction():
            yield

    audit_pass(shell, shell.now(), base=project, transaction=fenced_write)
    assert opened == [1]


def test_fingerprints_name_what_is_at_the_path(project):
    target = project / "app" / "models.py"
    assert fingerprint(target, None)[0] == "file"
    assert fingerprint(project / "app", None) == ["not-a-file"]
    assert fingerprint(project / "nope.py", None) == ["missing"]
    assert fingerprint(None, {"status": "outside", "reason": "climbs-out-of-project"}) == [
        "outside", "climbs-out-of-project"]
