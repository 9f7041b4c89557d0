"""SessionStart leaves out what the starting agent reads anyway in its own instruction file.

Real SQLite stores, the hook run as each agent runs it (its ``--agent`` and the payload its
SessionStart sends), the curator's stored shortlist against a full live read, per agent."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.opening import open_store
from claimgraph.project import resolve_project

from .conftest import Hooks
from .test_session_start import WholeStore, injected, store_shortlists

CLAUDE_RULE = "Never edit the generated parsers by hand"
CODEX_RULE = "Run the schema check before every commit"
GEMINI_RULE = "Keep public functions documented"
SAID_RULE = "Prefer table-driven tests"
TWO_FILES_RULE = "Use the shared logger, never print"
SUB_RULE = "The web package pins its node version"


def payload(hooks: Hooks, agent: str, cwd: str | None = None) -> dict:
    """The SessionStart payload each agent sends (the fields it sets, as recorded)."""
    base = {"session_id": "0b6d1c52-5a4e-4f2e-9a51-3f1f2b7c9d10", "cwd": cwd or str(hooks.home),
            "hook_event_name": "SessionStart", "transcript_path": str(hooks.transcript)}
    if agent == "claude-code":
        return {**base, "source": "startup"}
    if agent == "codex":
        return {**base, "model": "gpt-5-codex", "source": "startup"}
    return {**base, "timestamp": "2026-12-06T10:00:00.000Z", "source": "startup"}


def argv(agent: str) -> tuple[str, ...]:
    return ("session-start",) if agent == "claude-code" else ("session-start", "--agent", agent)


def remember_rules(hooks: Hooks) -> None:
    """Rules as capture stores them: conventions cited ``path: `line```, a project file's, in
    a git repository (so a session in its ``web`` folder is in the same project)."""
    subprocess.run(["git", "init", "-q", str(hooks.home)], env=hooks.env, check=True, timeout=60)
    (hooks.home / "web").mkdir(exist_ok=True)
    project = resolve_project(hooks.home).id
    store = open_store(hooks.db)
    try:
        sh = Shell(store)
        seed(sh)
        for rule, evidence, source in [
                (CLAUDE_RULE, [f"CLAUDE.md: `- {CLAUDE_RULE}.`"], "session-log"),
                (CODEX_RULE, [f"AGENTS.md: `{CODEX_RULE}.`"], "session-log"),
                (GEMINI_RULE, [f"GEMINI.md: `{GEMINI_RULE}.`"], "session-log"),
                (SAID_RULE, [f"CLAUDE.md: `{SAID_RULE}`"], "user-assertion"),
                (TWO_FILES_RULE, [f"CLAUDE.md: `{TWO_FILES_RULE}`",
                                  f"CONTRIBUTING.md: `{TWO_FILES_RULE}`"], "session-log"),
                (SUB_RULE, [f"web/CLAUDE.md: `{SUB_RULE}`"], "session-log")]:
            assert_fact(sh, "proj", "x/convention", rule, scope=project, epistemic="commitment",
                        source_type=source, confidence=0.7, evidence=evidence)
    finally:
        store.close()


def live_block(hooks: Hooks, agent: str, cwd: str) -> str:
    """A full read of the store compiled now for ``agent`` (no shortlist, stored or fresh)."""
    from claimgraph.core.briefing import compile_for
    from claimgraph.hooks.own_files import files_loaded

    project = resolve_project(cwd)
    store = open_store(hooks.db, read_only=True)
    try:
        now = time.time_ns() // 1_000_000
        return compile_for(WholeStore(store), project.id, now,
                           loaded=files_loaded(agent, project.root, cwd))["text"]
    finally:
        store.close()


SHOWN = {"claude-code": {CODEX_RULE, GEMINI_RULE},
         "codex": {CLAUDE_RULE, GEMINI_RULE},
         "gemini": {CLAUDE_RULE, CODEX_RULE}}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_each_agent_is_not_told_its_own_files_rules_again(hooks: Hooks, agent: str):
    remember_rules(hooks)
    text = injected(hooks.run(payload(hooks, agent), *argv(agent)))
    everyone = {CLAUDE_RULE, CODEX_RULE, GEMINI_RULE}
    assert {r for r in everyone if r in text} == SHOWN[agent]
    # the user's words, a second file and a file the agent does not load stay for everyone
    assert SAID_RULE in text and TWO_FILES_RULE in text and SUB_RULE in text
    assert hooks.log()[-1]["read_anyway"] == 1


def test_an_agent_started_in_a_sub_folder_loads_that_folders_file_too(hooks: Hooks):
    remember_rules(hooks)
    web = hooks.home / "web"
    text = injected(hooks.run(payload(hooks, "claude-code", str(web)), "session-start"))
    assert SUB_RULE not in text and CLAUDE_RULE not in text
    assert CODEX_RULE in text and hooks.log()[-1]["read_anyway"] == 2
    codex = injected(hooks.run(payload(hooks, "codex", str(web)), *argv("codex")))
    assert SUB_RULE in codex and CLAUDE_RULE in codex


def test_codex_loads_the_override_instead_of_agents_md_and_stops_at_its_limit(hooks: Hooks):
    remember_rules(hooks)
    (hooks.home / "AGENTS.override.md").write_text("Local override.\n")
    text = injected(hooks.run(payload(hooks, "codex"), *argv("codex")))
    assert CODEX_RULE in text  # AGENTS.md is not what Codex loaded here
    (hooks.home / "AGENTS.override.md").unlink()
    (hooks.home / "AGENTS.md").write_text(f"{CODEX_RULE}.\n" + "x" * 40_000)
    text = injected(hooks.run(payload(hooks, "codex"), *argv("codex")))
    assert CODEX_RULE in text  # past Codex's 32 KiB: cut, so not counted as loaded
    (hooks.home / "AGENTS.md").write_text(f"{CODEX_RULE}.\n")
    assert CODEX_RULE not in injected(hooks.run(payload(hooks, "codex"), *argv("codex")))


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_the_stored_shortlist_renders_the_live_block_for_every_agent(hooks: Hooks, agent: str):
    remember_rules(hooks)
    assert store_shortlists(hooks)["counts"]["stored"] == 1
    for cwd in (str(hooks.home), str(hooks.home / "web")):
        stored = injected(hooks.run(payload(hooks, agent, cwd), *argv(agent)))
        assert hooks.log()[-1]["shortlist"] == "stored"
        assert stored == live_block(hooks, agent, cwd)
        assert stored != live_block(hooks, "none", cwd)  # something was left out


def test_the_cli_shows_the_rule_unless_told_the_agent_and_facts_always_do(hooks: Hooks):
    remember_rules(hooks)

    def cli(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "claimgraph", *args], env=hooks.env,
                              cwd=hooks.home, capture_output=True, text=True, timeout=60,
                              check=True)
        return done.stdout

    assert CLAUDE_RULE in cli("context")
    told = cli("context", "--agent", "claude-code")
    assert CLAUDE_RULE not in told and CODEX_RULE in told
    assert told == injected(hooks.run(payload(hooks, "claude-code"), "session-start")) + "\n"
    assert json.loads(cli("context", "--agent", "claude-code", "--json"))["read_anyway"] == 1
    assert CLAUDE_RULE in cli("facts", "proj")


def test_claude_code_is_not_told_the_rules_of_a_file_its_claude_md_imports(hooks: Hooks):
    """A CLAUDE.md that is only ``@AGENTS.md`` loads AGENTS.md: its rules are no news to
    Claude Code, and still news to Gemini CLI, which loads neither."""
    remember_rules(hooks)
    (hooks.home / "AGENTS.md").write_text(f"{CODEX_RULE}.\n")
    (hooks.home / "CLAUDE.md").write_text("`@AGENTS.md` is kept below.\n")
    claude = injected(hooks.run(payload(hooks, "claude-code"), *argv("claude-code")))
    assert CODEX_RULE in claude  # a reference in code is no import
    (hooks.home / "CLAUDE.md").write_text("@AGENTS.md\n")
    claude = injected(hooks.run(payload(hooks, "claude-code"), *argv("claude-code")))
    assert CODEX_RULE not in claude and CLAUDE_RULE not in claude
    assert GEMINI_RULE in claude and hooks.log()[-1]["read_anyway"] == 2
    gemini = injected(hooks.run(payload(hooks, "gemini"), *argv("gemini")))
    assert CODEX_RULE in gemini and CLAUDE_RULE in gemini
