"""audit_claims over any JSON document, against real files; the deep check with real stand-ins.

The floor must judge a document's citations exactly as the fact audit judges facts' (one
matcher); the deep check runs a real executable (tests/fixtures_bin/fake_verifier.py reads
the task it is given and judges from the source the prompt carries; fake_model.py prints a
canned reply, fails, or hangs).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimgraph.core.audit import audit_facts
from claimgraph.core.audit_document import audit_claims, failing, load_document
from claimgraph.core.verify_claims import DEEP_INPUT_CHARS
from claimgraph.errors import ClaimgraphError

BIN = Path(__file__).resolve().parents[1] / "fixtures_bin"
VERIFIER, FAKE = BIN / "fake_verifier.py", BIN / "fake_model.py"
RISKS = "def connect(url):\n    return open_pool(url, size=POOL_SIZE)\n\nPOOL_SIZE = 8\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "db.py").write_text(RISKS)
    return root


def reference_document(repo: Path) -> dict:
    """REFERENCE §17's test: a real risk, a hallucinated one, and a file that does not exist."""
    return {"risks": [
        {"risk": "real risk", "evidence": "src/db.py: `open_pool(url, size=POOL_SIZE)` in connect"},
        {"risk": "hallucinated risk",
         "evidence": "src/db.py: `retry_forever(conn)` swallows ConnectionResetError"},
        {"risk": "missing", "evidence": "/no/such/file.py: anything"}]}


def test_the_reference_case_real_hallucinated_and_missing(repo: Path):
    report = audit_claims(reference_document(repo), repo)
    real, hallucinated, missing = report["checks"]
    assert (real["label"], real["verdict"]) == ("real risk", "supported")
    assert (hallucinated["label"], hallucinated["verdict"]) == ("hallucinated risk", "unsupported")
    assert hallucinated["identifiers"]["missing"] == ["retry_forever", "connectionreseterror"]
    assert missing["verdict"] == "file-missing"
    assert report["summary"]["confabulation_suspected"] is True
    assert report["summary"]["overall"] == "suspect"
    assert [c["id"] for c in report["checks"]] == [0, 1, 2]
    assert [c["json_path"] for c in report["checks"]] == ["$.risks[0]", "$.risks[1]", "$.risks[2]"]
    assert failing(report)


def test_a_document_is_judged_exactly_as_the_fact_audit_judges_the_same_citations(shell, repo):
    (repo / "src" / "bin.dat").write_bytes(b"\0\1")
    (repo / "src" / "dir.py").mkdir()
    os.symlink("/etc/hostname", repo / "src" / "out.py")
    evidence = ["src/db.py: `def connect(url):`", "src/db.py: PoolSize and ghost_name",
                "src/db.py: open_pool and missing_one", "src/db.py: plain words only",
                "src/gone.py: x_y", "../outside.py: x_y", "/etc/hostname: x_y",
                "src/bin.dat: x_y", "src/dir.py: x_y", "src/out.py: x_y", "src/db.py:3: x_y"]
    facts = [{"id": f"f-{i}", "evidence": [e]} for i, e in enumerate(evidence)]
    by_fact = audit_facts(shell, facts, repo)
    by_document = audit_claims({"claims": [{"claim": "c", "evidence": e} for e in evidence]},
                               repo)["checks"]
    drop = {"fact_id", "id", "label", "json_path"}
    assert [{k: v for k, v in c.items() if k not in drop} for c in by_document] == \
           [{k: v for k, v in c.items() if k not in drop} for c in by_fact]
    assert [c["verdict"] for c in by_document] == [
        "supported", "unsupported", "partial", "unverifiable", "file-missing", "outside-project",
        "outside-project", "file-unreadable", "file-missing", "outside-project", "file-missing"]


def test_evidence_that_cites_no_file_is_reported_and_does_not_lower_the_call(repo: Path):
    report = audit_claims({"name": "n", "evidence": ["transcript#L3: said so",
                                                     "src/db.py: `def connect(url):`"]}, repo)
    assert [c["verdict"] for c in report["checks"]] == ["no-file-cited", "supported"]
    assert report["summary"]["overall"] == "supported" and not failing(report)


def test_a_missing_file_is_incomplete_not_confabulation_unless_strict(repo: Path):
    report = audit_claims({"name": "n", "evidence": "src/gone.py: `def x():`"}, repo)
    assert report["summary"]["overall"] == "incomplete"
    assert not failing(report) and failing(report, strict=True)


def test_without_base_citations_resolve_against_the_current_projects_root(
        repo: Path, monkeypatch: pytest.MonkeyPatch):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    monkeypatch.chdir(repo / "src")
    report = audit_claims({"name": "n", "evidence": "src/db.py: `def connect(url):`"})
    assert report["base"] == str(repo.resolve())
    assert report["checks"][0]["verdict"] == "supported"


def test_a_base_that_is_not_a_directory_is_a_clear_error(repo: Path):
    with pytest.raises(ClaimgraphError) as raised:
        audit_claims({}, repo / "src" / "db.py")
    assert raised.value.type == "base-not-a-directory"


def test_a_document_without_evidence_has_no_claims(repo: Path):
    report = audit_claims({"plan": ["step one", {"do": "x"}]}, repo)
    assert (report["claims"], report["checks"], report["summary"]["overall"]) == (0, [],
                                                                                  "no-claims")


# --- loading a document -------------------------------------------------------------------

def test_a_document_is_read_from_a_file_or_standard_input(tmp_path: Path):
    path = tmp_path / "plan.json"
    path.write_text('\ufeff{"a": [1]}', encoding="utf-8")
    assert load_document(path) == {"a": [1]}
    assert load_document("-", io.BytesIO(b'[{"evidence": "x"}]')) == [{"evidence": "x"}]


@pytest.mark.parametrize("content, kind, words", [
    (b'{"a": 1,}', "claims-not-json", "line 1 column 9"),
    (b"\xff\xfe{}", "claims-not-json", "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "claims-not-json", "nested too deeply"),
])
def test_a_document_that_is_not_json_is_refused_in_one_line(tmp_path, content, kind, words):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ClaimgraphError) as raised:
        load_document(path)
    assert raised.value.type == kind and words in raised.value.message
    assert "\n" not in raised.value.message and raised.value.hint


def test_a_missing_document_is_refused(tmp_path: Path):
    with pytest.raises(ClaimgraphError) as raised:
        load_document(tmp_path / "nope.json")
    assert raised.value.type == "claims-unreadable" and "nope.json" in raised.value.message


# --- the library surface ------------------------------------------------------------------

def test_audit_claims_is_importable_from_the_package_without_loading_it_eagerly():
    code = ("import sys, claimgraph; eager = 'claimgraph.core.audit_document' in sys.modules; "
            "from claimgraph import audit_claims; print(eager, audit_claims.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "claimgraph.core.audit_document"]
    with pytest.raises(AttributeError):
        import claimgraph
        claimgraph.no_such_thing  # noqa: B018


# --- the deep check -----------------------------------------------------------------------

@pytest.fixture
def model_env(tmp_path: Path) -> dict[str, str]:
    """PATH with python3 for the stand-ins' ``#!/usr/bin/env python3``; report files."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "FAKE_VERIFIER_PROMPT": str(tmp_path / "prompt.txt"),
            "FAKE_MODEL_REPORT": str(tmp_path / "calls.jsonl"),
            "FAKE_MODEL_OUTPUT": str(tmp_path / "reply.txt")}


def deep(document, repo, env, cmd=VERIFIER, timeout_ms=30_000, **more_env):
    return audit_claims(document, repo, deep=True, llm_cmd=str(cmd), timeout_ms=timeout_ms,
                        environ={**env, **more_env}, on_usage=lambda *a, **k: None)


def quoted_but_wrong(repo: Path) -> dict:
    """The floor passes it (both names are in the file); the code it quotes is not."""
    return {"risks": [{"risk": "pool size", "evidence": "src/db.py: `def connect(url):`"},
                      {"risk": "retries", "evidence":
                       "src/db.py: `open_pool(url, size=POOL_SIZE, retries=3)`"}]}


def test_deep_refutes_what_the_floor_let_through_and_the_gate_fails(repo, model_env):
    report = deep(quoted_but_wrong(repo), repo, model_env)
    assert [c["verdict"] for c in report["checks"]] == ["supported", "supported"]
    assert not report["summary"]["confabulation_suspected"]
    assert [c["deep"]["verdict"] for c in report["checks"]] == ["supported", "refuted"]
    assert report["checks"][0]["deep"]["quote"] == "def connect(url):"
    assert report["deep"]["status"] == "ok" and report["deep"]["command"] == "fake_verifier.py"
    assert report["deep"]["counts"] == {"supported": 1, "refuted": 1, "unclear": 0, "unjudged": 0}
    assert failing(report)


def test_the_model_sees_the_cited_source_redacted_and_no_other_file(repo, model_env, tmp_path):
    (repo / "src" / "db.py").write_text(RISKS + 'API_KEY = "sk-ant-api03-' + "A" * 40 + '"\n')
    (repo / "src" / "other.py").write_text("UNCITED_SECRET_MARKER = 1\n")
    deep(quoted_but_wrong(repo), repo, model_env)
    prompt = Path(model_env["FAKE_VERIFIER_PROMPT"]).read_text()
    assert "def connect(url):" in prompt and "POOL_SIZE = 8" in prompt
    assert "sk-ant-api03" not in prompt and "[REDACTED:" in prompt
    assert "UNCITED_SECRET_MARKER" not in prompt and str(repo) not in prompt


@pytest.mark.parametrize("mode, status, ignored", [("draft", "ok", 0), ("edn", "ok", 2),
                                                   ("lines", "ok", 0), ("partial", "partial", 0)])
def test_replies_in_prose_drafts_edn_or_lines_are_all_read(repo, model_env, mode, status, ignored):
    report = deep(quoted_but_wrong(repo), repo, model_env, FAKE_VERIFIER_MODE=mode)
    assert (report["deep"]["status"], report["deep"]["ignored"]) == (status, ignored)
    expected = ["supported", "refuted"] if mode != "partial" else ["supported", None]
    assert [c["deep"] and c["deep"]["verdict"] for c in report["checks"]] == expected


@pytest.mark.parametrize("reply, kind", [
    ("I looked at the code and it seems fine to me.", "deep-reply-unparseable"),
    ("", "deep-reply-unparseable"),
    ('[{"id": 7, "verdict": "refuted"}, {"id": -1, "verdict": "refuted"}]', "deep-reply-unmatched"),
    ('{"relation": "compatible", "confidence": 1}', "deep-reply-unparseable"),
])
def test_a_reply_without_usable_verdicts_fails_the_deep_check_but_keeps_the_floor(
        repo, model_env, reply, kind):
    Path(model_env["FAKE_MODEL_OUTPUT"]).write_text(reply)
    report = deep(reference_document(repo), repo, model_env, cmd=FAKE)
    assert report["deep"]["status"] == "unparseable"
    assert report["deep"]["error"]["type"] == kind and report["deep"]["error"]["hint"]
    assert all(c["deep"] is None for c in report["checks"])
    assert report["summary"]["overall"] == "suspect"  # the floor's finding stands


def test_a_failing_missing_or_hanging_model_command_is_reported_not_raised(repo, model_env):
    failed = deep(quoted_but_wrong(repo), repo, model_env, cmd=FAKE, FAKE_MODEL_MODE="fail")
    assert failed["deep"]["status"] == "failed"
    assert failed["deep"]["error"]["type"] == "llm-command-failed"
    missing = deep(quoted_but_wrong(repo), repo, model_env, cmd="no-such-model-command")
    assert missing["deep"]["error"]["type"] == "llm-command-missing"
    hung = deep(quoted_but_wrong(repo), repo, model_env, cmd=FAKE, timeout_ms=1500,
                FAKE_MODEL_MODE="hang")
    assert hung["deep"]["error"]["type"] == "llm-command-timeout"
    assert all(c["deep"] is None for c in failed["checks"] + missing["checks"] + hung["checks"])


def test_nothing_readable_to_send_skips_the_call(repo, model_env):
    report = deep({"name": "n", "evidence": "src/gone.py: x_y"}, repo, model_env, cmd=FAKE)
    assert (report["deep"]["status"], report["deep"]["reason"]) == (
        "skipped", "none of the cited files could be read here")
    assert not Path(model_env["FAKE_MODEL_REPORT"]).exists()  # no call was made


def test_a_prompt_over_its_limit_is_refused_before_any_call(repo, model_env):
    long_label = "x" * (DEEP_INPUT_CHARS + 10)
    report = deep({"name": long_label, "evidence": "src/db.py: `def connect(url):`"}, repo,
                  model_env, cmd=FAKE)
    assert report["deep"]["error"]["type"] == "deep-prompt-too-large"
    assert not Path(model_env["FAKE_MODEL_REPORT"]).exists()


def test_the_model_command_comes_from_the_settings_when_not_given(repo, model_env):
    env = {**model_env, "CLAIMGRAPH_LLM_CMD": str(VERIFIER),
           "XDG_CONFIG_HOME": str(repo / "no-config")}
    report = audit_claims(quoted_but_wrong(repo), repo, deep=True, environ=env,
                          on_usage=lambda *a, **k: None)
    assert report["deep"]["command"] == "fake_verifier.py"
    assert json.loads(json.dumps(report)) == report  # plain JSON all the way down
