"""The session's end state decides (issue 22, item 1), checked by principle on whole sessions.

Each test writes a small session as the agent's harness logs it (Claude Code JSONL, a Codex
rollout), reads it back with the real reader and runs the whole extractor: first without the
later turn, to show the earlier fact is stored at all, then with it, to show the end of the
session overrules it. The categories are the issue's: an option not picked, a design reverted
or its file deleted, a rule rewritten, a claim a tool refuted, a decision overridden or
called temporary, a state changed later. The wording is varied on purpose: the stage must
hold on sessions nobody tuned it for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.undone import deletions
from claimgraph.capture.readers import read_transcript

from .jsonl_sessions import ClaudeSession, CodexSession, GeminiSession

Builder = Callable[[ClaudeSession, bool], None]


def _objects(session: ClaudeSession | CodexSession | GeminiSession,
             tmp_path: Path) -> list[str]:
    return [str(found["object"]) for found in session.extract(tmp_path)]


def _holds(marker: str, objects: list[str]) -> bool:
    return any(marker.lower() in said.lower() for said in objects)


def _before_and_after(build: Builder, tmp_path: Path,
                      agent: type[ClaudeSession] | type[CodexSession] | type[GeminiSession]
                      = ClaudeSession
                      ) -> tuple[list[str], list[str]]:
    before, after = agent(), agent()
    build(before, False)  # type: ignore[arg-type]
    build(after, True)  # type: ignore[arg-type]
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    return _objects(before, tmp_path / "before"), _objects(after, tmp_path / "after")


# --- b. a design reverted, or its file deleted -----------------------------------------------

RULES = ("# Contributing\n\n- Always run `make check` before pushing.\n"
         "- Always wrap every outbound call in the `circuit_breaker` helper.\n")


def _rules_written(session: ClaudeSession) -> None:
    session.user("Write our contribution rules down in CONTRIBUTING.md.")
    session.write("CONTRIBUTING.md", RULES)


def test_a_rule_an_edit_took_out_with_nothing_in_its_place_is_dropped(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        _rules_written(session)
        if later:
            session.user("Leave the breaker line out, we are not there yet.")
            session.edit("CONTRIBUTING.md",
                         "- Always wrap every outbound call in the `circuit_breaker` helper.\n", "")
        session.agent("Updated.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not any("wrap every outbound call" in said for said in after)
    assert _holds("make check", after), "the line the edit left stays"


def test_a_rule_from_a_file_a_git_revert_deleted_is_dropped(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        _rules_written(session)
        session.bash("git add CONTRIBUTING.md && git commit -m 'docs: rules'",
                     "[main 1a2b3c4] docs: rules\n 1 file changed, 4 insertions(+)\n"
                     " create mode 100644 CONTRIBUTING.md")
        if later:
            session.user("Undo that commit, the team has not agreed on these yet.")
            session.bash("git revert --no-edit HEAD",
                         "[main 5d6e7f8] Revert \"docs: rules\"\n 1 file changed, 4 deletions(-)\n"
                         " delete mode 100644 CONTRIBUTING.md")
        session.agent("Done.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after) and not _holds("make check", after)


def test_a_deletion_git_log_tells_of_is_no_deletion_now(tmp_path: Path):
    session = ClaudeSession()
    _rules_written(session)
    session.bash("git log --summary -3", "commit 9f8e7d6\n    old docs\n\n"
                                         " delete mode 100644 CONTRIBUTING.md\n")
    session.agent("OK.")
    assert _holds("circuit_breaker", _objects(session, tmp_path))


@pytest.mark.parametrize("command", ["rm CONTRIBUTING.md", "git rm -f CONTRIBUTING.md",
                                     "git checkout -- CONTRIBUTING.md",
                                     "git restore CONTRIBUTING.md"])
def test_a_rule_from_a_file_the_session_deleted_or_restored_is_dropped(tmp_path: Path,
                                                                       command: str):
    def build(session: ClaudeSession, later: bool) -> None:
        _rules_written(session)
        if later:
            session.bash(command)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)


def _rules_committed(session: ClaudeSession) -> None:
    _rules_written(session)
    session.bash("git add CONTRIBUTING.md && git commit -m 'docs: rules'",
                 "[main 1a2b3c4] docs: rules\n 1 file changed, 4 insertions(+)\n"
                 " create mode 100644 CONTRIBUTING.md")


def _deleted(session: ClaudeSession, tmp_path: Path) -> list[str]:
    path = tmp_path / "11111111-2222-4333-8444-555555555555.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in session.records), encoding="utf-8")
    view = SessionView.of(read_transcript(str(path)), session.cwd)
    return [gone for _line, gone in deletions(view)]


@pytest.mark.parametrize("bring_back", ["git checkout -- CONTRIBUTING.md",
                                        "git restore CONTRIBUTING.md"])
def test_a_rule_file_deleted_and_brought_back_is_not_deleted(tmp_path: Path, bring_back: str):
    """Deleted after its commit, then restored from it: the file is there again (what it
    holds is ``shell_edited``'s to judge). Deleted once more after that, it is gone."""
    session = ClaudeSession()
    _rules_committed(session)
    session.bash("rm CONTRIBUTING.md")
    session.bash(bring_back)
    assert _deleted(session, tmp_path) == []
    session.bash("rm CONTRIBUTING.md")
    assert _deleted(session, tmp_path) == ["CONTRIBUTING.md"]


def test_a_whole_tree_checkout_does_not_bring_back_a_deleted_file(tmp_path: Path):
    """``git checkout .`` may not hold the file (one never committed): still deleted."""
    session = ClaudeSession()
    _rules_written(session)
    session.bash("rm CONTRIBUTING.md")
    session.bash("git checkout .")
    assert _deleted(session, tmp_path) == ["CONTRIBUTING.md"]


def test_a_commit_reporting_a_moved_rule_file_deleted_keeps_its_rules(tmp_path: Path):
    """``git mv`` then a commit whose summary shows the old path deleted (git pairs a
    rename only when the contents stayed alike): the rules moved, nothing was deleted."""
    session = ClaudeSession()
    _rules_committed(session)
    session.bash("git mv CONTRIBUTING.md docs/CONTRIBUTING.md")
    session.bash("git commit -m 'docs: move the rules'",
                 "[main 2b3c4d5] docs: move the rules\n 2 files changed, 4 insertions(+), "
                 "4 deletions(-)\n delete mode 100644 CONTRIBUTING.md\n"
                 " create mode 100644 docs/CONTRIBUTING.md")
    session.agent("Moved.")
    assert _holds("circuit_breaker", _objects(session, tmp_path))


def test_a_codex_heredoc_rule_file_removed_later_is_dropped(tmp_path: Path):
    def build(session: CodexSession, later: bool) -> None:  # type: ignore[override]
        session.user("Write our contribution rules down in CONTRIBUTING.md.")
        session.shell("cat > CONTRIBUTING.md <<'EOF'\n" + RULES + "EOF")
        if later:
            session.shell("rm CONTRIBUTING.md")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path, CodexSession)  # type: ignore[arg-type]
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)


def test_a_gemini_session_deleting_its_rule_file_and_revising_a_rule_keeps_neither(
        tmp_path: Path):
    def build(session: GeminiSession, later: bool) -> None:  # type: ignore[override]
        session.user("Write our contribution rules down in CONTRIBUTING.md.")
        session.write("CONTRIBUTING.md", RULES)
        session.user("Always use tabs for indentation in the Go files.")
        session.agent("OK.")
        if later:
            session.shell("rm CONTRIBUTING.md")
            session.user("Actually, use spaces, not tabs, for indentation in the Go files.")
            session.agent("OK.")
    before, after = _before_and_after(build, tmp_path, GeminiSession)  # type: ignore[arg-type]
    assert _holds("circuit_breaker", before) and _holds("use tabs", before)
    assert not _holds("circuit_breaker", after) and not _holds("use tabs", after)


SUMMARY = ("Done.\n\n## Summary\n\n- Added retries to the invoice mailer.\n"
           "- Fixed the rounding test.\n\n## Decisions\n\n"
           "- The invoice mailer wraps `smtp_send` in `retry_later` (3 attempts).\n"
           "- Kept rounding in `src/money.py` rather than in the template.\n")


def _mailer_decided(session: ClaudeSession) -> None:
    session.user("The invoice mailer gives up when the mail server hiccups.")
    session.read("src/mailer.py", "def send(invoice):\n    smtp_send(invoice)\n")
    session.edit("src/mailer.py", "    smtp_send(invoice)\n",
                 "    retry_later(smtp_send, invoice)\n")
    session.bash("pytest -q", "4 passed in 0.1s")
    session.agent(SUMMARY)


@pytest.mark.parametrize("undo", ["git checkout -- src/mailer.py", "git restore src/mailer.py",
                                  "git stash", "git checkout .", "git reset --hard"])
def test_an_agents_design_whose_file_git_threw_back_is_dropped(tmp_path: Path, undo: str):
    def build(session: ClaudeSession, later: bool) -> None:
        _mailer_decided(session)
        if later:
            session.user("Throw that away, retries belong in the queue.")
            session.bash(undo)
            session.agent("Back to how it was.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("retry_later", before)
    assert not _holds("retry_later", after)


def test_an_agents_design_a_sed_substitution_took_out_is_dropped(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        _mailer_decided(session)
        if later:
            session.user("The queue retries already.")
            session.bash("sed -i 's/retry_later(smtp_send, invoice)/smtp_send(invoice)/' "
                         "src/mailer.py")
            session.agent("Back to a plain send.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("retry_later", before)
    assert not _holds("retry_later", after)


def test_a_sed_substitution_on_what_an_earlier_one_wrote_takes_the_design_out(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        _mailer_decided(session)
        session.bash("sed -i 's/invoice)$/invoice, 3)/' src/mailer.py")
        if later:  # matches only the text the first substitution left
            session.bash("sed -i 's/retry_later(smtp_send, invoice, 3)/smtp_send(invoice)/' "
                         "src/mailer.py")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("retry_later", before)
    assert not _holds("retry_later", after)


def test_a_sed_substitution_elsewhere_leaves_the_design(tmp_path: Path):
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("sed -i 's/def send/def deliver/' src/mailer.py")
    session.agent("Renamed the function.")
    assert _holds("retry_later", _objects(session, tmp_path))


@pytest.mark.parametrize("undo", [
    ["git checkout main"],  # a branch switch
    ["git restore --staged src/mailer.py"],  # unstaged, the change stays
    ["git add src/mailer.py", "git checkout -- src/mailer.py"],  # restored from the index
    ["git commit -am 'retry'", "git reset --hard"],  # committed first
    ["git stash", "git stash pop"],  # put back
    ["git restore -p src/mailer.py"],  # hunk by hunk: which ones went back is unknown
    ["git checkout --patch -- src/mailer.py"],
])
def test_what_git_keeps_or_brings_back_is_no_revert(tmp_path: Path, undo: list[str]):
    session = ClaudeSession()
    _mailer_decided(session)
    for command in undo:
        session.bash(command)
    session.agent("OK.")
    assert _holds("retry_later", _objects(session, tmp_path))


def test_a_whole_tree_revert_leaves_a_file_the_session_created(tmp_path: Path):
    for undo in ("git stash", "git checkout .", "git reset --hard"):
        session = ClaudeSession()
        session.user("The invoice mailer gives up when the mail server hiccups.")
        session.write("src/mailer.py", "def send(invoice):\n    retry_later(smtp_send, invoice)\n")
        session.bash("pytest -q", "4 passed in 0.1s")
        session.agent(SUMMARY)
        session.bash(undo)
        session.agent("OK.")
        place = tmp_path / str(len(undo))
        place.mkdir()
        assert _holds("retry_later", _objects(session, place)), undo


def test_a_design_written_again_after_the_revert_stands(tmp_path: Path):
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("git checkout -- src/mailer.py")
    session.write("src/mailer.py", "def send(invoice):\n    retry_later(smtp_send, invoice)\n")
    session.agent("Put it back.")
    assert _holds("retry_later", _objects(session, tmp_path))


# --- c / e. a rule the person rewrote, overrode, took back or called temporary ---------------

@pytest.mark.parametrize("earlier, later", [
    ("Always use tabs for indentation in the Go files.",
     "Actually, use spaces, not tabs, for indentation in the Go files."),
    ("Always name the JSON fields in snake_case.",
     "Change of plan: always name the JSON fields in camelCase, not snake_case."),
    ("Always name the JSON fields in snake_case.",
     "Change of plan: the JSON fields go in camelCase, not snake_case, to match the app."),
    ("We'll use Redis for the rate limiter.",
     "Forget Redis. Use the in-process token bucket for the rate limiter."),
    ("Always use the mock payment provider in the checkout tests.",
     "The mock payment provider thing was only temporary, until the sandbox keys came."),
    ("The dev server should always run on port 8080.",
     "Scratch what I said about the port, let's make the dev server use port 3000."),
    ("Always put the test fixtures under tests/data.",
     "Ignore what I said about the test fixtures; they go next to each test file."),
    ("We always format the Python code with black.",
     "I take that back about formatting the Python code with black, we use ruff now."),
])
def test_the_persons_later_word_in_other_words_retires_the_earlier_one(
        tmp_path: Path, earlier: str, later: str):
    def build(session: ClaudeSession, revised: bool) -> None:
        session.user(earlier)
        session.agent("OK, noted.")
        if revised:
            session.user(later)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert earlier.rstrip(".") in before
    assert earlier.rstrip(".") not in after


def test_a_codex_user_revising_a_rule_retires_it_too(tmp_path: Path):
    def build(session: CodexSession, revised: bool) -> None:  # type: ignore[override]
        session.user("Always use tabs for indentation in the Go files.")
        session.agent("OK, noted.")
        if revised:
            session.user("Actually, use spaces, not tabs, for indentation in the Go files.")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path, CodexSession)  # type: ignore[arg-type]
    assert _holds("tabs", before) and not _holds("always use tabs", after)


@pytest.mark.parametrize("later", [
    "Display the dates in local time, not UTC, in the invoice view.",  # another use of it
    "Why are the dates not stored as UTC timestamps?",  # a question
    "Also store the times as UTC timestamps, not strings.",  # no opener: not a revision
])
def test_other_words_on_the_same_thing_leave_the_earlier_stance(tmp_path: Path, later: str):
    session = ClaudeSession()
    session.user("Always store the dates as UTC timestamps.")
    session.agent("OK.")
    session.user(later)
    session.agent("OK.")
    assert _holds("Always store the dates as UTC timestamps", _objects(session, tmp_path))


# --- d. a command the fact says works no longer runs at the end ------------------------------

@pytest.mark.parametrize("command, missing", [
    ("make test", "make: *** No rule to make target 'test'.  Stop."),
    ("npm test", 'npm ERR! Missing script: "test"'),
])
def test_a_test_command_whose_last_run_says_it_is_not_there_is_dropped(
        tmp_path: Path, command: str, missing: str):
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Run the tests.")
        session.bash(command, "ok  shop/api  0.2s\nPASS\n12 passed")
        if later:
            session.user("I renamed the targets, run them again.")
            session.bash(command, missing, error=True)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert command in before and command not in after


def test_a_test_command_that_ran_and_failed_at_the_end_stays(tmp_path: Path):
    session = ClaudeSession()
    session.user("Run the tests.")
    session.bash("make test", "PASS\n12 passed")
    session.edit("src/price.py", "round(x, 2)", "round(x)")
    session.bash("make test", "--- FAIL: TestRound\nFAIL\nmake: *** [test] Error 1", error=True)
    session.agent("One test fails now.")
    assert "make test" in _objects(session, tmp_path)


def test_a_dev_server_whose_script_is_gone_is_dropped(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Start the dev server.")
        session.tool("Bash", {"command": "npm run dev", "run_in_background": True},
                     "Command running in background with ID: b1")
        if later:
            session.bash("npm run dev", 'npm ERR! Missing script: "dev"', error=True)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("npm run dev", before) and not _holds("npm run dev", after)


# --- a. an option the person turned down or did not pick (already handled; kept as a guard) --

OPTIONS = ("Two ways to do it:\n\n"
           "**Option 1: File cache** - keep lookups in a local `lookups.db`.\n"
           "**Option 2: Memcached** - run a `memcached` service for the lookups.\n\n"
           "Which one?")


@pytest.mark.parametrize("reply", ["Let's go with option 2.", "Not option 1. Go with 2."])
def test_only_the_option_picked_is_stored(tmp_path: Path, reply: str):
    session = ClaudeSession()
    session.user("Add a cache for the lookups.")
    session.agent(OPTIONS)
    session.user(reply)
    session.agent("OK.")
    objects = _objects(session, tmp_path)
    assert _holds("memcached", objects) and not _holds("lookups.db", objects)


def test_options_nobody_picked_are_not_stored(tmp_path: Path):
    session = ClaudeSession()
    session.user("Add a cache for the lookups.")
    session.agent(OPTIONS)
    session.user("Neither for now, let me think about it.")
    session.agent("OK.")
    objects = _objects(session, tmp_path)
    assert not _holds("memcached", objects) and not _holds("lookups.db", objects)


# --- f. a state a later event changed (already handled; kept as a guard) ---------------------

def test_a_pull_request_closed_later_is_not_told_as_open(tmp_path: Path):
    session = ClaudeSession()
    session.user("Open a PR.")
    session.bash("gh pr create --fill", "https://github.com/acme/shop/pull/42")
    session.bash("gh pr close 42", "\u2713 Closed pull request acme/shop#42 (fix rounding)")
    session.agent("Done.")
    states = [said for said in _objects(session, tmp_path) if "PR #42" in said]
    assert states and all("closed" in said for said in states)


def test_a_push_the_session_then_rewrote_is_not_told_as_pushed(tmp_path: Path):
    session = ClaudeSession()
    session.user("Commit and push.")
    session.bash("git commit -am 'fix: rounding'", "[feature/x 1a2b3c4] fix: rounding")
    session.bash("git push -u origin feature/x",
                 "To github.com:acme/shop.git\n * [new branch]      feature/x -> feature/x")
    session.bash("git commit --amend --no-edit", "[feature/x 9f8e7d6] fix: rounding")
    session.agent("Done.")
    states = [said for said in _objects(session, tmp_path) if "left the work in git" in said]
    assert states and all("not pushed since" in said for said in states)


@pytest.mark.parametrize("earlier, later", [
    ("Always run the migrations before the tests.",
     "The migrations failing before the tests was only temporary, rerun them."),
    ("Always use tabs in the Makefiles.", "Actually, the Go files use spaces, not tabs."),
    ("We always use Postgres for the job queue.",
     "No, not the Postgres from docker compose, the local one."),
    ("Always deploy the Helm charts to the staging cluster first.",
     "Stop using kubectl apply for the staging cluster."),
    ("Always use Redis for the session cache.",  # "not X yet" and asked for in one breath
     "Wait, the session cache is not Redis yet, set Redis up for it."),
    ("Always run the database migration before the integration tests.",
     "Don't forget the database migration before the integration tests."),  # a reminder
    ("Always run the database migration before the integration tests.",
     "Do not forget about the database migration before the integration tests, please."),
])
def test_a_later_word_on_something_else_leaves_the_stance(tmp_path: Path, earlier: str,
                                                          later: str):
    def build(session: ClaudeSession, said_later: bool) -> None:
        session.user(earlier)
        session.agent("OK.")
        if said_later:
            session.user(later)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert earlier.rstrip(".") in before and earlier.rstrip(".") in after


# --- f. a package the session added, then removed again --------------------------------------

@pytest.mark.parametrize("add, remove", [
    ("npm install lodash", "npm uninstall lodash"),
    ("uv add requests", "uv remove requests"),
    ("cargo add serde", "cargo rm serde"),
])
def test_a_package_removed_again_is_no_dependency(tmp_path: Path, add: str, remove: str):
    name = add.split()[-1]

    def build(session: ClaudeSession, later: bool) -> None:
        session.user(f"Add {name}.")
        session.bash(add, f"added 1 package: {name}")
        if later:
            session.user(f"On reflection we do not need {name}.")
            session.bash(remove, f"removed 1 package: {name}")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert name in before and name not in after


def test_a_package_added_again_after_its_removal_stays(tmp_path: Path):
    session = ClaudeSession()
    session.user("Add lodash.")
    session.bash("npm install lodash", "added 1 package")
    session.bash("npm uninstall lodash", "removed 1 package")
    session.bash("npm install lodash@4", "added 1 package")
    session.agent("OK.")
    assert "lodash" in _objects(session, tmp_path)


# --- c. a doc rewritten several times: only its last version counts --------------------------

def test_only_the_last_version_of_a_rewritten_instruction_file_counts(tmp_path: Path):
    session = ClaudeSession()
    session.user("Write the project rules into CLAUDE.md.")
    session.write("CLAUDE.md", "# Rules\n\n- Always run `make lint` before committing.\n"
                               "- Never commit generated files under `dist/`.\n")
    session.user("Reword it, the pre-commit hook runs lint.")
    session.write("CLAUDE.md", "# Rules\n\n- The pre-commit hook runs `make lint`.\n"
                               "- Never commit generated files under `dist/`.\n")
    session.user("Drop the dist rule, dist is ignored now.")
    session.edit("CLAUDE.md", "- Never commit generated files under `dist/`.\n", "")
    session.user("And say that tests run with `make test`.")
    session.edit("CLAUDE.md", "- The pre-commit hook runs `make lint`.\n",
                 "- The pre-commit hook runs `make lint`.\n"
                 "- Always run the tests with `make test` before pushing.\n")
    session.agent("Done.")
    objects = _objects(session, tmp_path)
    assert _holds("make test", objects)
    assert not _holds("dist/", objects) and not _holds("before committing", objects)


@pytest.mark.parametrize("run, missing", [
    ("make test", "make: *** No rule to make target 'fixtures/db.sql', needed by 'test'.  Stop."),
    ("make test-unit", "make: *** No rule to make target 'test-unit'.  Stop."),
    ("make test TESTS=tests/gone", "make: *** No rule to make target 'tests/gone'.  Stop."),
])
def test_a_missing_prerequisite_or_another_target_leaves_the_test_command(
        tmp_path: Path, run: str, missing: str):
    session = ClaudeSession()
    session.user("Run the tests.")
    session.bash("make test", "ok  shop/api  0.2s\nPASS\n12 passed")
    session.bash(run, missing, error=True)
    session.agent("OK.")
    assert "make test" in _objects(session, tmp_path)


def test_another_missing_target_leaves_the_build_command(tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Build it.")
        session.bash("make", "cc -o shop main.c\n")
        if later:
            session.bash("make lint", "make: *** No rule to make target 'lint'.  Stop.",
                         error=True)
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert "make" in before and "make" in after


@pytest.mark.parametrize("add, remove", [
    ("npm install lodash", "npm uninstall lodash -w packages/legacy"),  # another workspace
    ("npm install lodash", "cd tools/legacy && npm uninstall lodash"),  # another folder
    ("npm install lodash", "npm uninstall -g lodash"),  # the global install, not the project
    ("pnpm add lodash", "pnpm remove --filter legacy lodash"),
    ("cargo add serde", "cargo remove -p legacy serde"),
    ("uv add requests", "pip uninstall -y requests"),  # the environment, not the manifest
])
def test_a_package_removed_somewhere_else_stays_a_dependency(tmp_path: Path, add: str,
                                                            remove: str):
    name = add.split()[-1]
    session = ClaudeSession()
    session.user(f"Add {name}.")
    session.bash(add, f"added 1 package: {name}")
    session.bash(remove, f"removed 1 package: {name}")
    session.agent("OK.")
    assert name in _objects(session, tmp_path)


def test_a_package_installed_and_uninstalled_in_the_same_place_is_no_dependency(
        tmp_path: Path):
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Add requests.")
        session.bash("cd api && pip install requests", "Successfully installed requests")
        if later:
            session.bash("cd api && pip uninstall -y requests", "Successfully uninstalled")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert "requests" in before and "requests" not in after


@pytest.mark.parametrize("elsewhere", [
    ["edit", "tests/test_mailer.py", "from mailer import retry_later\n", ""],  # emptying edit
    ["edit", "tests/test_mailer.py", "from mailer import retry_later\n",
     "from mailer import send\n"],
    ["sed -i 's/retry_later/later_retry/' tests/test_mailer.py"],
])
def test_a_name_taken_out_of_another_file_leaves_the_design_the_code_still_holds(
        tmp_path: Path, elsewhere: list[str]):
    session = ClaudeSession()
    _mailer_decided(session)
    session.write("tests/test_mailer.py",
                  "from mailer import retry_later\n\ndef test_send():\n    assert True\n")
    if elsewhere[0] == "edit":
        session.edit(*elsewhere[1:])
    else:
        session.bash(elsewhere[0])
    session.agent("OK.")
    assert _holds("retry_later", _objects(session, tmp_path))


# --- b. a commit that modified a file, reverted or reset away --------------------------------

MAILER_COMMIT = ("[main 3c4d5e6] mailer: retry\n"
                 " 1 file changed, 1 insertion(+), 1 deletion(-)")
REVERT_OUTPUT = ("[main 7e8f9a0] Revert \"mailer: retry\"\n"
                 " 1 file changed, 1 insertion(+), 1 deletion(-)")


@pytest.mark.parametrize("commit", ["git commit -am 'mailer: retry'",
                                    "git add src/mailer.py && git commit -m 'mailer: retry'"])
@pytest.mark.parametrize("undo", ["git revert --no-edit HEAD", "git revert 3c4d5e6",
                                  "git revert --no-commit 3c4d5e6",
                                  "git reset --hard HEAD~1", "git reset --hard HEAD^",
                                  "git reset --hard @~1"])
def test_an_agents_design_whose_commit_git_took_back_is_dropped(tmp_path: Path, commit: str,
                                                                 undo: str):
    """A commit that MODIFIED a file names no file in git's summary: what it changed is the
    session's own edits it took in. ``git revert`` applies their inverse; ``git reset --hard
    HEAD~1`` moves the branch back past the commit and makes the tree match (git-revert(1),
    git-reset(1))."""
    def build(session: ClaudeSession, later: bool) -> None:
        _mailer_decided(session)
        session.bash(commit, MAILER_COMMIT)
        if later:
            session.user("Take that back out, retries belong in the queue.")
            session.bash(undo, REVERT_OUTPUT if undo.startswith("git revert --no-edit")
                         or undo == "git revert 3c4d5e6" else "")
            session.agent("Back to how it was.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("retry_later", before)
    assert not _holds("retry_later", after)


def test_a_revert_of_a_commit_whose_diff_the_session_saw_drops_what_it_added(tmp_path: Path):
    """The change came before the session: ``git show`` printed its diff, the session read the
    file, and a revert of that commit takes the added line out again (the line the diff
    kept as context stays)."""
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Who added the breaker rule?")
        session.bash("git show 9a8b7c6", "commit 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b\n"
                     "Author: Dev <dev@example.com>\n\n    docs: breaker rule\n\n"
                     "diff --git a/CONTRIBUTING.md b/CONTRIBUTING.md\n"
                     "index 1111111..2222222 100644\n--- a/CONTRIBUTING.md\n"
                     "+++ b/CONTRIBUTING.md\n@@ -2,2 +2,3 @@\n \n"
                     " - Always run `make check` before pushing.\n"
                     "+- Always wrap every outbound call in the `circuit_breaker` helper.\n")
        session.read("CONTRIBUTING.md", RULES)
        if later:
            session.user("Revert that commit, the team never agreed on it.")
            session.bash("git revert --no-edit 9a8b7c6",
                         "[main 5d6e7f8] Revert \"docs: breaker rule\"\n"
                         " 1 file changed, 1 deletion(-)")
        session.agent("Done.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)
    assert _holds("make check", after)


@pytest.mark.parametrize("steps", [
    ["git reset --hard HEAD~1"],  # before the session's only commit: no commit of it to hold
    ["git reset HEAD~1"],  # the tree stays as it is (mixed)
    ["git reset --soft HEAD~1"],
    ["git revert --no-edit HEAD", "git revert --no-edit HEAD"],  # the revert reverted
    ["git pull", "git reset --hard HEAD~1"],  # the pull may have moved HEAD: HEAD~1 unknown
])
def test_what_a_later_commit_keeps_or_git_puts_back_is_no_undo(tmp_path: Path,
                                                               steps: list[str]):
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("git commit -am 'mailer: retry'", MAILER_COMMIT)
    if steps[0] == "git reset --hard HEAD~1":
        session.bash("git commit -am 'mailer: docs'", "[main 4d5e6f7] mailer: docs\n"
                     " 1 file changed, 1 insertion(+)")
    for n, command in enumerate(steps):
        session.bash(command, f"[main 7e8f9a{n}] Revert\n 1 file changed"
                     if command.startswith("git revert") else "")
    session.agent("OK.")
    assert _holds("retry_later", _objects(session, tmp_path))


def test_a_rule_a_reverted_commit_added_to_a_file_is_dropped(tmp_path: Path):
    """A rule quoted from a file the session edited, committed and then reverted."""
    def build(session: ClaudeSession, later: bool) -> None:
        session.user("Write our contribution rules down in CONTRIBUTING.md.")
        session.read("CONTRIBUTING.md", "# Contributing\n\n- Always run `make check` before "
                                        "pushing.\n")
        session.edit("CONTRIBUTING.md", "- Always run `make check` before pushing.\n",
                     RULES.split("\n\n", 1)[1])
        session.bash("git commit -am 'docs: breaker rule'",
                     "[main 1a2b3c4] docs: breaker rule\n 1 file changed, 1 insertion(+)")
        if later:
            session.bash("git revert --no-edit 1a2b3c4",
                         "[main 5d6e7f8] Revert \"docs: breaker rule\"\n"
                         " 1 file changed, 1 deletion(-)")
        session.agent("Done.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)
    assert _holds("make check", after), "the rule the commit did not add stays"


@pytest.mark.parametrize("commit, kept", [
    ("git add README.md && git commit -m 'docs'", True),  # the mailer's change never committed
    ("git add -p && git commit -m 'mailer: retry'", True),  # hunks the person chose: unknown
    ("cd src && git add mailer.py && cd .. && git commit -m 'mailer: retry'", False),
    ("git add . && git commit -m 'mailer: retry'", False),
])
def test_a_revert_takes_back_only_what_the_commit_took_in(tmp_path: Path, commit: str,
                                                          kept: bool):
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash(commit, MAILER_COMMIT)
    session.bash("git revert --no-edit HEAD", REVERT_OUTPUT)
    session.agent("OK.")
    assert _holds("retry_later", _objects(session, tmp_path)) is kept


def test_a_rule_file_a_reset_took_back_past_its_commit_is_gone(tmp_path: Path):
    """git-reset(1) --hard: a file the undone commit created (its ``create mode`` line) is no
    longer in the tree."""
    def build(session: ClaudeSession, later: bool) -> None:
        _rules_committed(session)
        if later:
            session.bash("git reset --hard HEAD~1", "HEAD is now at 0a1b2c3 chore: init")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path)
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)


@pytest.mark.parametrize("undo", ["git reset --hard HEAD~1", "git revert --no-edit HEAD"])
def test_head_counted_from_another_folder_than_the_commit_is_not_followed(tmp_path: Path,
                                                                          undo: str):
    """A folder of the project may hold a repository of its own (a nested checkout): the
    root's ``HEAD`` need not be the commit made there."""
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("cd src && git commit -am 'mailer: retry'", MAILER_COMMIT)
    session.bash(undo, REVERT_OUTPUT if "revert" in undo else "HEAD is now at 0a1b2c3 init")
    session.agent("OK.")
    assert _holds("retry_later", _objects(session, tmp_path))
    again = ClaudeSession()
    _mailer_decided(again)
    again.bash("cd src && git commit -am 'mailer: retry'", MAILER_COMMIT)
    again.bash(f"cd src && {undo}", REVERT_OUTPUT if "revert" in undo else "HEAD is now at x")
    again.agent("OK.")
    (tmp_path / "again").mkdir()
    assert not _holds("retry_later", _objects(again, tmp_path / "again"))


def test_a_codex_rule_file_a_reset_took_back_is_dropped(tmp_path: Path):
    def build(session: CodexSession, later: bool) -> None:  # type: ignore[override]
        session.user("Write our contribution rules down in CONTRIBUTING.md.")
        session.shell("cat > CONTRIBUTING.md <<'EOF'\n" + RULES + "EOF")
        session.shell("git add -A && git commit -m 'docs: rules'",
                      "[main 1a2b3c4] docs: rules\n 1 file changed, 4 insertions(+)\n"
                      " create mode 100644 CONTRIBUTING.md")
        if later:
            session.shell("git reset --hard HEAD~1", "HEAD is now at 0a1b2c3 chore: init")
        session.agent("OK.")
    before, after = _before_and_after(build, tmp_path, CodexSession)  # type: ignore[arg-type]
    assert _holds("circuit_breaker", before)
    assert not _holds("circuit_breaker", after)


@pytest.mark.parametrize("undo", ["git checkout -- src/mailer.py", "git stash"])
def test_reading_back_what_the_session_wrote_does_not_keep_it_through_a_revert(
        tmp_path: Path, undo: str):
    """A read after the session's own edit shows the edit, not the file before the session:
    git throws both away. A read showing the thing before the session touched the file is
    the file's own text, and git brings that back."""
    def build(session: ClaudeSession, read_first: bool) -> None:
        if read_first:
            session.read("src/mailer.py", "def resend(invoice):\n"
                         "    retry_later(smtp_send, invoice)\n")
        _mailer_decided(session)
        session.read("src/mailer.py", "def send(invoice):\n    retry_later(smtp_send, invoice)\n")
        session.bash(undo)
        session.agent("Back to how it was.")
    fresh, known = _before_and_after(build, tmp_path)
    assert not _holds("retry_later", fresh)
    assert _holds("retry_later", known)


def _with_subagent(session: ClaudeSession, directory: Path, sub: ClaudeSession) -> list[str]:
    """The session and a subagent's transcript, as Claude Code lays them out
    (``<session>/subagents/agent-<id>.jsonl``): the subagent's lines are numbered in its own
    file, so they cannot be placed among the parent's."""
    folder = directory / "11111111-2222-4333-8444-555555555555" / "subagents"
    folder.mkdir(parents=True)
    for record in sub.records:
        record.update(isSidechain=True, agentId="a1b2c3")
    (folder / "agent-a1b2c3.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in sub.records), encoding="utf-8")
    return _objects(session, directory)


def test_a_reset_after_a_subagent_committed_counts_no_commit_of_the_sessions(tmp_path: Path):
    """A subagent the session handed a task to committed too: the parent's ``git reset --hard
    HEAD~1`` afterwards undid the subagent's commit, or one the walk cannot place (the
    subagent's lines come from its own file), never the session's own commit for certain."""
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("git commit -am 'mailer: retry'", MAILER_COMMIT)
    session.tool("Task", {"description": "docs", "prompt": "Document the mailer."},
                 "Done: README updated and committed.")
    session.bash("git reset --hard HEAD~1", "HEAD is now at 3c4d5e6 mailer: retry")
    session.agent("Dropped the docs commit.")
    sub = ClaudeSession()
    sub.user("Document the mailer.")
    sub.edit("README.md", "# Shop\n", "# Shop\n\nThe mailer sends invoices.\n")
    sub.bash("git commit -m 'docs: mailer' README.md", "[main 4d5e6f7] docs: mailer\n"
             " 1 file changed, 2 insertions(+)")
    sub.agent("Done.")
    assert _holds("retry_later", _with_subagent(session, tmp_path, sub))


@pytest.mark.parametrize("then", [
    ("git reset --hard", ""),  # the tree back to HEAD: the revert's changes gone
    ("git revert --abort", ""),  # back to before the revert
])
def test_a_revert_left_uncommitted_and_then_thrown_away_takes_nothing_back(
        tmp_path: Path, then: tuple[str, str]):
    """git-revert(1) ``-n`` leaves the inverse in the tree and index, uncommitted; git throwing
    the tree's changes away afterwards puts the commit's text back."""
    session = ClaudeSession()
    _mailer_decided(session)
    session.bash("git commit -am 'mailer: retry'", MAILER_COMMIT)
    session.bash("git revert --no-commit 3c4d5e6")
    session.bash(*then)
    session.agent("Left it as it was.")
    assert _holds("retry_later", _objects(session, tmp_path))


def test_a_reset_keep_leaves_the_trees_changes_for_the_next_commit(tmp_path: Path):
    """git-reset(1) ``--keep`` moves the branch and the files that differ between the two
    commits, keeping the tree's uncommitted changes: the next ``commit -a`` takes them in, and
    reverting that commit takes them back."""
    session = ClaudeSession()
    session.bash("git commit -am 'wip'", "[main 1b1b1b1] wip\n 1 file changed")
    _mailer_decided(session)
    session.bash("git reset --keep HEAD~1", "")
    session.bash("git commit -am 'mailer: retry'", MAILER_COMMIT)
    session.bash("git revert --no-edit HEAD", REVERT_OUTPUT)
    session.agent("Reverted.")
    assert not _holds("retry_later", _objects(session, tmp_path))
