"""UserPromptSubmit as the agent runs it: the coach's briefing as hook JSON, or silence."""

from __future__ import annotations

import json
import subprocess
import sys

from claimgraph import retrievals
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_OPEN, strip_injected

from .conftest import Hooks
from .test_hook_fast_path import imported_modules
from .test_session_start import HEAVY, remember


def prompt(hooks: Hooks, text: str, **fields) -> dict:
    return hooks.payload(hook_event_name="UserPromptSubmit", prompt=text, reason=None,
                         transcript_path=None, **fields)


def briefing(run) -> str:
    assert run.code == 0 and run.err == b""
    output = json.loads(run.out)
    assert list(output) == ["hookSpecificOutput"]
    assert output["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    return output["hookSpecificOutput"]["additionalContext"]


def stances(hooks: Hooks, scope: str | None = None) -> None:
    remember(hooks, ("billing", "decided-against", "GraphQL"), ("billing", "prefers", "REST"),
             ("billing", "failure-mode", "double charges when the webhook retries"),
             ("billing", "depends-on", "stripe"), scope=scope)


def test_a_relevant_prompt_gets_the_standing_decisions_and_hazards(hooks: Hooks):
    stances(hooks)
    run = hooks.run(prompt(hooks, "add a retry to the billing webhook"), "user-prompt-submit")
    text = briefing(run)
    assert text.startswith(CONTEXT_OPEN) and text.endswith(CONTEXT_CLOSE)
    assert 'billing decided-against "GraphQL" (you said)' in text  # its tier, as at start
    assert "double charges" in text and "stripe" not in text
    [line] = hooks.log()
    assert line["event"] == "hook.coach-pushed" and line["hazards"] == 1
    assert hooks.spooled() == [] and hooks.no_child_started()


def test_an_irrelevant_prompt_gets_nothing_at_all(hooks: Hooks):
    stances(hooks)
    run = hooks.run(prompt(hooks, "write a haiku about autumn leaves"), "user-prompt-submit")
    assert (run.code, run.out, run.err) == (0, b"", b"")
    assert hooks.log() == []


def test_another_projects_decisions_are_not_pushed(hooks: Hooks):
    stances(hooks, scope="github.com/some/other")
    run = hooks.run(prompt(hooks, "billing webhook retry"), "user-prompt-submit")
    assert (run.code, run.out) == (0, b"")


def test_our_own_injected_block_in_the_prompt_is_not_searched(hooks: Hooks):
    stances(hooks)
    pasted = f"{CONTEXT_OPEN}\n- billing decided-against GraphQL\n{CONTEXT_CLOSE}\nwrite a haiku"
    run = hooks.run(prompt(hooks, pasted), "user-prompt-submit")
    assert (run.code, run.out) == (0, b"")


def test_the_briefing_is_stripped_from_a_transcript_that_saved_it(hooks: Hooks):
    stances(hooks)
    text = briefing(hooks.run(prompt(hooks, "billing webhook"), "user-prompt-submit"))
    assert strip_injected(f"user: billing webhook\n{text}\nassistant: ok").split() == [
        "user:", "billing", "webhook", "assistant:", "ok"]


def test_the_hook_mode_reads_tool_input_when_there_is_no_prompt(hooks: Hooks):
    stances(hooks)
    payload = hooks.payload(hook_event_name="PreToolUse", reason=None, transcript_path=None,
                            tool_input={"command": "curl billing webhook", "timeout": 5})
    assert "double charges" in briefing(hooks.run(payload, "user-prompt-submit"))


def test_the_hook_does_not_log_to_retrievals(hooks: Hooks):
    stances(hooks)
    briefing(hooks.run(prompt(hooks, "billing webhook"), "user-prompt-submit"))
    assert not retrievals.path_for(hooks.db).exists()


def test_no_store_means_no_output_and_no_store_created(hooks: Hooks):
    run = hooks.run(prompt(hooks, "billing webhook"), "user-prompt-submit")
    assert (run.code, run.out, run.err) == (0, b"", b"")
    assert not hooks.db.exists()


def test_a_broken_store_is_logged_and_the_prompt_goes_through_untouched(hooks: Hooks):
    hooks.db.parent.mkdir(parents=True, exist_ok=True)
    hooks.db.write_bytes(b"this is not a database" * 100)
    run = hooks.run(prompt(hooks, "billing webhook"), "user-prompt-submit")
    assert (run.code, run.out, run.err) == (0, b"", b"")
    [line] = hooks.log()
    assert line["event"] == "hook.coach-failed" and line["reason"]


def test_garbage_on_stdin_is_silence(hooks: Hooks):
    stances(hooks)
    assert hooks.run(b"{not json", "user-prompt-submit").out == b""


def test_the_coach_path_imports_the_standard_library_and_our_store_code_only(hooks: Hooks):
    stances(hooks)
    payload = json.dumps(prompt(hooks, "billing webhook")).encode()
    before = imported_modules(["-c", "import runpy"], hooks, b"")
    during = imported_modules(["-m", "claimgraph.hooks", "user-prompt-submit"], hooks,
                              payload) - before
    foreign = {n for n in during if n.split(".")[0] not in sys.stdlib_module_names
               and n.split(".")[0] not in ("claimgraph", "org")}
    assert foreign == set()
    assert not {n for n in during if n in HEAVY or any(n.startswith(h + ".") for h in HEAVY)}
    assert "claimgraph.core.coach" in during


def test_the_coach_ranks_with_the_configured_half_life_as_the_coach_command_does(hooks: Hooks):
    """Which hazards make the three the coach pushes depends on their decayed confidence: the
    hook ranks with the configured half-life (here from the environment), as ``claimgraph
    coach`` does, not with the default one."""
    remember(hooks, *[("billing", "failure-mode", f"webhook failure {when}")
                      for when in ("retried twice", "on refunds", "at night")], when=-60)
    remember(hooks, ("billing", "failure-mode", "a timeout"))  # today, and less relevant
    task = "billing webhook failure"

    def command(env: dict[str, str]) -> str:
        done = subprocess.run([sys.executable, "-m", "claimgraph", "coach", "--cwd",
                               str(hooks.home), task], env=env, capture_output=True,
                              timeout=60, check=True, cwd=hooks.home)
        return done.stdout.decode().rstrip("\n")
    short = {**hooks.env, "CLAIMGRAPH_HALF_LIFE_DAYS": "5"}
    by_default = briefing(hooks.run(prompt(hooks, task), "user-prompt-submit"))
    assert by_default == command(hooks.env) and "a timeout" not in by_default
    configured = briefing(hooks.run(prompt(hooks, task), "user-prompt-submit", env=short))
    assert configured == command(short) and "a timeout" in configured  # the rest decayed
