"""The audit's shell: real files on disk, every bad input, roots from the fact's episode."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claimgraph.core.audit import MAX_FILE_BYTES, audit, audit_facts, locate, read_cited
from claimgraph.core.ingest import ingest
from claimgraph.core.provenance import provenance
from claimgraph.core.writes import assert_fact, invalidate
from claimgraph.errors import ClaimgraphError
from claimgraph.sidecar import Sidecars

SOURCE = "def total(items):\n    return sum(items)\n\nclass InvoiceModel:\n    pass\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / "app" / "models.py").write_text(SOURCE)
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\n")  # a real project root
    return root


def cite(shell, evidence: str, subject: str = "total", **options) -> dict:
    return assert_fact(shell, subject, "defined-in", "app/models.py", evidence=[evidence],
                       **options)["fact"]


def one_check(shell, evidence: str, base: Path) -> dict:
    checks = audit_facts(shell, [cite(shell, evidence)], base)
    assert len(checks) == 1
    return checks[0]


def test_a_citation_found_in_the_file_is_supported_with_the_content_hash(shell, project):
    result = one_check(shell, "app/models.py: `def total(items):` and InvoiceModel", project)
    assert result["verdict"] == "supported"
    assert result["identifiers"]["found"] == ["invoicemodel"]
    assert result["path"] == str(project / "app" / "models.py")
    assert result["content_hash"].startswith("sha256-") and len(result["content_hash"]) == 71


def test_the_pinned_case_an_absolute_path_that_does_not_exist_is_file_missing(shell, project):
    assert one_check(shell, "/no/such/file.py: anything", project)["verdict"] == "file-missing"


def test_a_deleted_file_is_file_missing(shell, project):
    fact = cite(shell, "app/models.py: `def total(items):`")
    (project / "app" / "models.py").unlink()
    [result] = audit_facts(shell, [fact], project)
    assert (result["verdict"], result["reason"]) == ("file-missing", "no-such-file")
    assert result["content_hash"] is None


def test_a_file_replaced_by_a_directory_is_file_missing_not_a_file(shell, project):
    fact = cite(shell, "app/models.py: `def total(items):`")
    (project / "app" / "models.py").unlink()
    (project / "app" / "models.py").mkdir()
    [result] = audit_facts(shell, [fact], project)
    assert (result["verdict"], result["reason"]) == ("file-missing", "not-a-file")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_file_unreadable(shell, project):
    target = project / "app" / "models.py"
    target.chmod(0)
    try:
        result = one_check(shell, "app/models.py: `def total(items):`", project)
    finally:
        target.chmod(0o644)
    assert (result["verdict"], result["reason"]) == ("file-unreadable", "permission-denied")


def test_a_permission_error_on_open_is_file_unreadable(project, monkeypatch):
    """The same refusal injected, so the case is covered where the suite runs as root."""
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "open", refuse)
    assert read_cited(project / "app" / "models.py") == {"status": "unreadable",
                                                         "reason": "permission-denied"}


def test_a_binary_file_is_file_unreadable(shell, project):
    (project / "app" / "blob.bin").write_bytes(b"def total(items):\x00\x01\x02")
    result = one_check(shell, "app/blob.bin: `def total(items):`", project)
    assert (result["verdict"], result["reason"]) == ("file-unreadable", "binary")


def test_an_oversized_file_is_not_read(project):
    big = project / "big.txt"
    big.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    assert read_cited(big) == {"status": "unreadable", "reason": "too-large"}


def test_a_path_climbing_out_of_the_project_is_refused_and_never_read(shell, project, monkeypatch):
    secret = project.parent / "secret.py"
    secret.write_text("def total(items): pass\n")
    opened: list[str] = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda p, *a, **k: opened.append(str(p))
                        or real_open(p, *a, **k))
    result = one_check(shell, "app/../../secret.py: `def total(items):`", project)
    assert (result["verdict"], result["reason"]) == ("outside-project", "climbs-out-of-project")
    assert str(secret) not in opened and result["content_hash"] is None


def test_a_symlink_out_of_the_project_and_an_absolute_path_outside_are_refused(shell, project):
    outside = project.parent / "elsewhere.py"
    outside.write_text(SOURCE)
    (project / "app" / "link.py").symlink_to(outside)
    assert one_check(shell, "app/link.py: `def total(items):`",
                     project)["verdict"] == "outside-project"
    assert one_check(shell, f"{outside}: `def total(items):`",
                     project)["verdict"] == "outside-project"


def test_an_absolute_path_inside_the_project_is_read(shell, project):
    cited = project / "app" / "models.py"
    assert one_check(shell, f"{cited}: `def total(items):`", project)["verdict"] == "supported"


def test_locate_keeps_dotdot_that_stays_inside(project):
    path, stopped = locate("app/../app/models.py", project)
    assert stopped is None and path == project / "app" / "models.py"


def test_relative_paths_resolve_against_the_project_root_of_the_facts_episode(shell,
                                                                              project, tmp_path):
    sidecars = Sidecars(tmp_path / "store" / "claims.db")
    header = {"kind": "segment", "format": 1}
    event = {"kind": "prompt", "agent": "claude-code", "line": 1, "text": "hi",
             "cwd": str(project)}
    name = sidecars.put_evidence(json.dumps(header) + "\n" + json.dumps(event) + "\n")
    ingest(shell, [{"subject": "total", "predicate": "defined-in", "object": "app/models.py",
                    "evidence": ["app/models.py: `def total(items):`"]}], evidence=name)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = audit(shell, sidecars=sidecars, environ={"PATH": os.environ.get("PATH", "")})
    assert result["summary"]["overall"] == "supported"
    assert result["checks"][0]["root"] == str(project)


def test_audit_checks_valid_facts_citing_files_and_flags_confabulation(shell, project):
    cite(shell, "app/models.py: `def total(items):`")
    cite(shell, "app/models.py: `def ghost_total(rows):` via GhostModel", subject="ghost")
    assert_fact(shell, "api", "prefers", "uv", evidence=["transcript#L3: use uv"])
    gone = cite(shell, "app/missing.py: `def nope():`", subject="nope")
    invalidate(shell, gone["id"], reason="test")
    result = audit(shell, project)
    assert result["summary"] == {"total": 2, "by_verdict": {"supported": 1, "unsupported": 1},
                                 "confabulation_suspected": True, "files_missing": 0,
                                 "overall": "suspect"}
    ghost = next(c for c in result["checks"] if c["verdict"] == "unsupported")
    assert ghost["identifiers"]["missing"] == ["ghost_total", "ghostmodel"]


def test_provenance_of_a_directly_asserted_fact_has_no_episode_but_judges_its_file(shell, project):
    fact = cite(shell, "app/models.py: `def total(items):`")
    chain = provenance(shell, fact["id"], base=str(project))
    assert chain["episode"] is None and chain["transcript"] == {"lines": []}
    assert [c["verdict"] for c in chain["files"]] == ["supported"]


def test_provenance_of_an_unknown_fact_is_an_error(shell):
    with pytest.raises(ClaimgraphError) as err:
        provenance(shell, "f-nope")
    assert err.value.type == "no-such-fact"


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(project, tmp_path):
    """The path is resolved once and opened as resolved, without following a link: a file
    replaced by a symlink between the check and the read is refused, not followed."""
    secret = tmp_path / "outside.txt"
    secret.write_text("def total(items):\n")
    path, stopped = locate("app/models.py", project)
    assert stopped is None and path == (project / "app" / "models.py").resolve()
    path.unlink()
    path.symlink_to(secret)
    assert read_cited(path) == {"status": "outside", "reason": "outside-project"}


def test_a_directory_without_git_or_a_project_marker_is_no_audit_root(tmp_path):
    from claimgraph.core.audit import audit_root
    bare = tmp_path / "bare"
    bare.mkdir()
    environ = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")}
    assert audit_root(bare, environ) is None
    (bare / "go.mod").write_text("module x\n")
    assert audit_root(bare, environ) == bare.resolve()
    assert audit_root("/", environ) is None
