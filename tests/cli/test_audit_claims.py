"""``claimgraph audit --claims`` end to end: exit codes, output, no store, and the docs' hooks.

The document is tests/fixtures/claims/review.json (an agent's review of the project beside
it); docs/claims-audit.md shows this command's output and its commit-hook recipes, and the
tests here run exactly what the page shows.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "claims"
DOC = (REPO / "docs" / "claims-audit.md").read_text(encoding="utf-8")
VERIFIER = REPO / "tests" / "fixtures_bin" / "fake_verifier.py"
FAKE = REPO / "tests" / "fixtures_bin" / "fake_model.py"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture
def review(tmp_path: Path, project_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture project as the current directory, its review.json one level up."""
    shutil.copytree(FIXTURE / "project", tmp_path / "claims" / "project")
    shutil.copy(FIXTURE / "review.json", tmp_path / "claims" / "review.json")
    monkeypatch.chdir(tmp_path / "claims" / "project")
    return tmp_path / "claims" / "project"


@pytest.fixture
def model_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` on PATH for the stand-ins' shebang line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def test_the_output_the_docs_show_is_the_real_output(cli, review, db):
    [block] = re.findall(r"```text\n\$ (claimgraph audit --claims .*?)\n(.*?)```", DOC, re.DOTALL)
    command, shown = block
    run = cli(*shlex.split(command)[1:])
    assert run.code == 5 and "The exit status was 5" in DOC
    assert run.out.replace(str(review.resolve()), "<project>") == shown
    assert not db.exists() and not list(db.parent.glob("*"))  # the store was never opened


def test_json_output_is_the_whole_report(cli, review):
    run = cli("audit", "--claims", "../review.json", "--base", ".", "--json")
    assert run.code == 5
    report = run.json()
    assert report["claims"] == 4 and report["base"] == str(review.resolve())
    assert report["summary"] == {"total": 5, "by_verdict": {"file-missing": 1, "supported": 3,
                                                            "unsupported": 1},
                                 "confabulation_suspected": True, "files_missing": 1,
                                 "overall": "suspect"}
    [bad] = [c for c in report["checks"] if c["verdict"] == "unsupported"]
    assert (bad["id"], bad["json_path"]) == (2, "$.findings[1]")
    assert bad["identifiers"]["missing"] == ["fetch_exchange_rate", "with_retries"]


def test_a_clean_document_exits_0_and_strict_fails_only_on_missing_files(cli, review, tmp_path):
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps([{"name": "rounds per line", "evidence":
                                  "billing/invoice.py: `rounding=ROUND_HALF_UP`"}]))
    assert cli("audit", "--claims", str(clean)).code == 0
    assert cli("audit", "--claims", str(clean), "--strict").code == 0
    missing = tmp_path / "missing.json"
    missing.write_text(json.dumps({"name": "n", "evidence": "billing/settings.py: x_y"}))
    assert cli("audit", "--claims", str(missing)).code == 0
    assert cli("audit", "--claims", str(missing), "--strict").code == 5


def test_the_document_can_come_from_standard_input(cli, review, monkeypatch):
    document = json.dumps({"claim": "c", "evidence": "billing/invoice.py: `def ghost():`"})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(document.encode())))
    run = cli("audit", "--claims", "-")
    assert run.code == 5 and "in -, checked against" in run.out


def test_no_evidence_anywhere_says_no_claims(cli, review, tmp_path):
    plain = tmp_path / "plain.json"
    plain.write_text('{"steps": ["write code", "ship it"]}')
    run = cli("audit", "--claims", str(plain))
    assert run.code == 0 and run.out.splitlines()[0] == "audit: 0 claims — overall no-claims"


@pytest.mark.parametrize("content, words", [("{oops", "is not valid JSON: Expecting property "
                                                       "name enclosed in double quotes at line 1"),
                                            (None, "cannot read the claims document")])
def test_a_bad_document_is_one_line_and_exit_1(cli, review, tmp_path, content, words):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    run = cli("audit", "--claims", str(path))
    assert run.code == 1 and run.out == ""
    assert len(run.err.strip().splitlines()) == 1 and words in run.err
    as_json = cli("audit", "--claims", str(path), "--json")
    assert as_json.error()["type"] in ("claims-not-json", "claims-unreadable")


def test_deep_needs_claims_and_base_must_be_a_directory(cli, review):
    run = cli("audit", "--deep")
    assert run.code == 1 and "--deep checks a document's claims: it needs --claims" in run.err
    run = cli("audit", "--claims", "../review.json", "--base", "nowhere")
    assert run.code == 1 and "--base nowhere is not a directory" in run.err


# --- --deep -------------------------------------------------------------------------------

def test_deep_prints_each_verdict_and_fails_on_a_refuted_claim(cli, review, tmp_path, model_path,
                                                               monkeypatch):
    monkeypatch.setenv("CLAIMGRAPH_LLM_CMD", str(VERIFIER))
    only_real = tmp_path / "real.json"
    only_real.write_text(json.dumps({"findings": [
        {"title": "per-line rounding", "evidence": "billing/invoice.py: "
         "`quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)` in line_total"},
        {"title": "tax applied twice", "evidence": "billing/invoice.py: "
         "`subtotal * (1 + TAX_RATE) * (1 + TAX_RATE)` in invoice_total"}]}))
    run = cli("audit", "--claims", str(only_real), "--deep")
    assert "confabulation suspected" not in run.out  # the floor let both through
    assert run.code == 5
    assert "deep: supported — the line is there" in run.out
    assert "deep: refuted — no 'subtotal * (1 + TAX_RATE) * (1 + TAX_RATE)'" in run.out
    assert run.out.splitlines()[-1] == ("deep (fake_verifier.py): ok — 1 supported, 1 refuted, "
                                        "0 unclear, 0 unjudged")


def test_deep_with_an_unusable_reply_prints_the_floor_then_fails_in_one_line(
        cli, review, tmp_path, model_path, monkeypatch):
    reply = tmp_path / "reply.txt"
    reply.write_text("Looks good to me!\n")
    monkeypatch.setenv("FAKE_MODEL_OUTPUT", str(reply))
    monkeypatch.setenv("CLAIMGRAPH_LLM_CMD", str(FAKE))
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"name": "n", "evidence": "billing/invoice.py: `TAX_RATE`"}))
    run = cli("audit", "--claims", str(clean), "--deep")
    assert run.code == 1
    assert run.out.startswith("audit: 1 claim (1 supported) — overall supported")
    assert "deep (fake_model.py): unparseable" in run.out
    [line] = run.err.strip().splitlines()
    assert line.startswith("claimgraph: deep check failed: the model command 'fake_model.py' "
                           "answered, but its reply holds no verdict vector (it begins: "
                           "'Looks good to me!')")
    monkeypatch.setenv("CLAIMGRAPH_LLM_CMD", "no-such-model-command")
    run = cli("audit", "--claims", str(clean), "--deep", "--json")
    assert run.code == 1 and run.json()["deep"]["status"] == "failed"
    assert run.error()["type"] == "llm-command-missing"


# --- the docs' commit hooks, run for real -------------------------------------------------

def git(repo: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def hooked_repo(tmp_path: Path, isolated_home: Path) -> tuple[Path, dict[str, str]]:
    """A git repository with the fixture project, `claimgraph` on PATH, the docs' hook."""
    repo = tmp_path / "hooked"
    shutil.copytree(FIXTURE / "project", repo)
    bin_dir = tmp_path / "hookbin"
    bin_dir.mkdir()
    (bin_dir / "claimgraph").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m claimgraph "$@"\n')
    (bin_dir / "claimgraph").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    assert git(repo, "init", "-q", env=env).returncode == 0
    [script] = re.findall(r"```sh\n(#!/bin/sh\n.*?)```", DOC, re.DOTALL)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(script)
    hook.chmod(0o755)
    assert git(repo, "add", "billing", env=env).returncode == 0
    assert git(repo, "commit", "-q", "-m", "code", env=env).returncode == 0
    (repo / ".agent").mkdir()
    return repo, env


@needs_git
def test_the_docs_pre_commit_hook_refuses_a_report_that_cites_missing_code(hooked_repo):
    repo, env = hooked_repo
    (repo / ".agent" / "review.json").write_text((FIXTURE / "review.json").read_text())
    git(repo, "add", ".agent", env=env)
    refused = git(repo, "commit", "-q", "-m", "agent review", env=env)
    assert refused.returncode != 0
    assert "confabulation suspected" in refused.stdout + refused.stderr
    assert git(repo, "log", "--oneline", env=env).stdout.count("\n") == 1


@needs_git
def test_the_docs_pre_commit_hook_lets_a_sound_report_through(hooked_repo):
    repo, env = hooked_repo
    (repo / ".agent" / "plan one.json").write_text(json.dumps(
        {"steps": [{"name": "round once",
                    "evidence": "billing/invoice.py: `def invoice_total(`"}]}))
    git(repo, "add", ".agent", env=env)
    done = git(repo, "commit", "-q", "-m", "agent plan", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    (repo / "notes.txt").write_text("no report staged\n")
    git(repo, "add", "notes.txt", env=env)
    assert git(repo, "commit", "-q", "-m", "no reports", env=env).returncode == 0


@needs_git
def test_the_pre_commit_framework_entry_runs_each_file_and_fails_on_the_bad_one(
        hooked_repo, tmp_path):
    """pre-commit runs ``entry`` split like a shell would, with the matching files appended."""
    repo, env = hooked_repo
    [entry] = re.findall(r"^\s+entry: (.*)$", DOC, re.MULTILINE)
    good = repo / ".agent" / "good.json"
    good.write_text(json.dumps({"name": "n", "evidence": "billing/invoice.py: `TAX_RATE`"}))
    bad = repo / ".agent" / "bad.json"
    bad.write_text(json.dumps({"name": "n", "evidence": "billing/invoice.py: `ghost_fn()`"}))
    run = lambda *files: subprocess.run([*shlex.split(entry), *files], cwd=repo, env=env,  # noqa: E731
                                        capture_output=True, text=True, timeout=120)
    assert run(".agent/good.json").returncode == 0
    failed = run(".agent/good.json", ".agent/bad.json")
    assert failed.returncode == 1 and "confabulation suspected" in failed.stdout
