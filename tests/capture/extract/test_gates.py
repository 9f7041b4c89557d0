"""Gates: hooks and pre-commit checks that block the agent, and how a block was cleared."""

from __future__ import annotations

from claimgraph.capture.extract.gates import reasons

from .extract_helpers import ROOT, Session, only

STOP_UNSTAGED = ("Stop hook feedback:\n[${CLAUDE_PLUGIN_ROOT}/scripts/hooks/stop.sh]: "
                 "# Running Quality Checks...\n\n# Uncommitted Changes Detected\n\n"
                 "Cannot exit with unstaged changes.\n\nBefore stopping, please:\n1. Run git")
STOP_UNTRACKED = STOP_UNSTAGED.replace("unstaged changes", "untracked files")


def test_a_stop_hook_is_a_convention_with_every_reason_it_gave():
    session = Session()
    session.event("meta", derived=True, text=STOP_UNSTAGED)
    session.event("meta", derived=True, text=STOP_UNTRACKED)
    [rule] = only(session.extract(), "x/convention")
    assert rule["object"] == ("The Stop hook (scripts/hooks/stop.sh) blocks ending the "
                              "session: Cannot exit with unstaged changes; Cannot exit with "
                              "untracked files")
    assert rule["evidence"] == ["transcript#L1: Cannot exit with unstaged changes.",
                                "transcript#L2: Cannot exit with untracked files."]


def test_a_block_cleared_by_an_edit_is_a_lesson_naming_what_was_added():
    session = Session()
    session.event("meta", derived=True, text=STOP_UNTRACKED)
    session.edit(f"{ROOT}/.gitignore", "# managed\n", "# managed\n\n# Python\n__pycache__/\n")
    [lesson] = only(session.extract(), "core/failure-mode")
    assert lesson["object"] == ("The Stop hook (scripts/hooks/stop.sh) blocked (Cannot exit "
                                "with untracked files); cleared by adding `__pycache__/` to "
                                ".gitignore")


def test_a_block_that_comes_back_for_the_same_reason_was_not_cleared():
    session = Session()
    session.event("meta", derived=True, text=STOP_UNTRACKED)
    session.edit(f"{ROOT}/.gitignore", "a", "b")
    session.event("meta", derived=True, text=STOP_UNTRACKED)
    assert only(session.extract(), "core/failure-mode") == []


def test_a_block_cleared_without_an_edit_is_no_lesson():
    session = Session()
    session.event("meta", derived=True, text=STOP_UNSTAGED)
    session.bash("git add -A && git commit -m wip", output="[main 1] wip")
    assert only(session.extract(), "core/failure-mode") == []


def test_a_commit_refused_by_a_hook_is_a_gate_on_commits():
    session = Session()
    session.bash("git commit -m wip", error=True,
                 output="Pre-commit validation failed:\n\n[FORMAT] Code is not formatted.\n"
                        "Run 'mix format' to fix.\n\n[CREDO] 2 issues")
    [rule] = only(session.extract(), "x/convention")
    assert rule["object"] == ("A pre-commit check blocks commits: [FORMAT] Code is not "
                              "formatted. Run 'mix format' to fix; [CREDO] 2 issues")


def test_a_commit_with_nothing_to_commit_is_no_gate():
    session = Session()
    session.bash("git commit -m wip", error=True, output="nothing to commit, working tree clean")
    assert session.extract() == []


def test_a_pretooluse_block_in_a_tool_result_is_a_gate():
    session = Session()
    session.bash("rm -rf build", error=True,
                 output="PreToolUse:Bash hook error: [./hooks/guard.sh]: Blocked: rm -rf is "
                        "not allowed")
    [rule] = only(session.extract(), "x/convention")
    assert rule["object"].startswith("The PreToolUse hook (./hooks/guard.sh) blocks tool calls")


def test_reasons_skip_headings_and_instructions_to_the_agent():
    assert reasons("# Running checks\n\nCannot exit with untracked files.\n\nBefore stopping,"
                   " please:") == ["Cannot exit with untracked files."]


def test_a_hook_that_let_the_same_call_through_when_made_again_gave_advice_not_a_rule():
    advice = ("PreToolUse:Write hook error: [python3 ${CLAUDE_PLUGIN_ROOT}/hooks/remind.py]: "
              "You are editing a deployment file. Be careful with secrets.")
    session = Session()
    session.write("/home/dev/shop/deploy.yml", "jobs: {}\n", error=True, output=advice)
    session.write("/home/dev/shop/deploy.yml", "jobs: {}\n", output="File created")
    assert [c for c in session.extract() if c["rule"] == "gates"] == []


def test_a_hook_whose_block_needed_a_change_is_a_gate():
    block = ("PreToolUse:Write hook error: [scripts/no-print.sh]: Cannot write print() "
             "calls; use the logger.")
    session = Session()
    session.write("/home/dev/shop/app.py", "print(1)\n", error=True, output=block)
    session.write("/home/dev/shop/app.py", "log.info(1)\n", output="File created")
    gates = [c for c in session.extract() if c["rule"] == "gates"]
    assert any(c["predicate"] == "x/convention" and "Cannot write print()" in c["object"]
               for c in gates)


def test_a_hook_of_the_persons_own_setup_outside_the_project_is_no_project_gate():
    session = Session()
    session.tool("WebFetch", {"url": "https://example.org/a"}, error=True,
                 output="PreToolUse:WebFetch hook error: [/home/someone/.claude/hooks/fetch.sh]: "
                        "Use the reader: reader 'https://example.org/a'")
    session.bash("rm -rf build", error=True,
                 output="PreToolUse:Bash hook error: [~/.hooks/guard.sh]: Blocked: not allowed")
    assert only(session.extract(), "x/convention") == []


def test_a_task_runners_progress_is_no_reason_and_its_failed_task_brings_its_error():
    from claimgraph.capture.extract.gates import reasons
    out = ("[STARTED] Backing up original state...\n[COMPLETED] Backed up original state\n"
           "[STARTED] mdlint --fix\n[FAILED] mdlint --fix [FAILED]\n"
           "[SKIPPED] Skipped because of errors from tasks.\n\n✖ mdlint --fix:\n"
           "/home/dev/shop/a.md:26 error MD040 Fenced code blocks need a language\n"
           "husky - pre-commit script failed (code 1)")
    assert reasons(out) == ["[FAILED] mdlint --fix",
                            "error MD040 Fenced code blocks need a language"]


def test_a_gate_whose_only_reason_is_a_bare_status_is_not_kept():
    """"Exit code 1" says that something failed, not what the gate holds the work to."""
    session = Session()
    session.event("meta", derived=True,
                  text="Stop hook feedback:\n[scripts/hooks/stop.sh]: Exit code 1")
    session.bash("git commit -m wip", error=True,
                 output="Exit code 1\nhusky - pre-commit hook exited with code 1 (error)")
    session.edit(f"{ROOT}/src/app.py", "a = 1", "a = 2")
    assert session.extract() == []


def test_a_bare_status_line_gives_way_to_the_reason_the_gate_printed():
    assert reasons("Exit code 1\nhusky - pre-commit hook exited with code 1 (error)\n"
                   "Missing changelog entry for this change") == [
        "Missing changelog entry for this change"]
    assert reasons("Error: Command failed with exit code 2.") == []
    assert reasons("[FAILED] eslint --max-warnings 0 [FAILED]\nexit status 1") == [
        "[FAILED] eslint --max-warnings 0"]


def test_a_hook_runners_progress_lines_are_no_reason():
    """pre-commit prints one line per hook; the hooks that passed say nothing of the block."""
    report = ("trim trailing whitespace.................................................Passed\n"
              "mypy.................................(no files to check)Skipped\n"
              "detect secrets...........................................................Failed\n"
              "- hook id: detect-secrets\n- exit code: 1\n\n"
              "Please `git add .secrets.baseline`, thank you\n")
    assert reasons(report) == ["Please `git add .secrets.baseline`, thank you"]
    only_failed = ("ruff check.....................................................Passed\n"
                   "conform........................................................Failed\n"
                   "- exit code: 1\n")
    assert reasons(only_failed) == ["conform failed"]
    assert reasons("ruff check.............................................Passed\n"
                   "Exit code 1") == []
