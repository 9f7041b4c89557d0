"""The decisions of a plan the person approved: kept as the agent's notes, with the approval."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph.capture.extract.approved_plan import plan_decisions
from claimgraph.capture.extract.builtin import extract
from claimgraph.capture.readers import read_transcript

from .extract_helpers import ROOT, Session

PLAN = """# Plan: Session storage

## Context

Sessions are kept in memory today and lost on restart.

## Decisions

- Use SQLite for session storage, not JSON files
- Store the database in `data/sessions.sqlite3`
- **Expiry**: sessions expire after 30 days of inactivity
- Add a `SessionStore` class in `src/store.py`
  - Keep the old cache as a read-through layer
- We could also add Redis later

## Steps

1. Create `src/store.py` with the `SessionStore` class
2. Run the tests

## Files to modify

- `src/app.py` — wire the store in
"""
APPROVED = "User has approved your plan. You can now start coding."
REFUSED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. "
           "if it was a file edit, the new_string was NOT written to the file).")
CHOSEN = {"Use SQLite for session storage, not JSON files",
          "Store the database in `data/sessions.sqlite3`",
          "Expiry: sessions expire after 30 days of inactivity"}


def _kept(found: list[dict]) -> list[dict]:
    return [c for c in found if c["rule"] == "approved_plan"]


def test_a_plans_decisions_are_its_choices_never_its_steps_files_or_offers():
    assert set(plan_decisions(PLAN)) == CHOSEN


#: What the session left after carrying the plan out: the code bears its decisions out.
STORE = ('"""Sessions live in SQLite, not JSON files: sessions expire after 30 days of '
         'inactivity."""\nimport sqlite3\nPATH = "data/sessions.sqlite3"\n'
         "EXPIRY_DAYS = 30  # of inactivity\n")


def _carried_out(plan: str = PLAN) -> tuple[Session, int]:
    session = Session()
    session.prompt("Sessions get lost on restart, plan a fix.")
    call = session.tool("ExitPlanMode", {"plan": plan}, output=APPROVED)
    session.write(f"{ROOT}/src/store.py", STORE)
    return session, call.line


def test_an_approved_plans_decisions_are_agent_notes_with_the_approval_on_record():
    session, line = _carried_out()
    kept = _kept(session.extract())
    assert {c["object"] for c in kept} == CHOSEN
    for found in kept:
        assert found["source_type"] == "agent-note"
        assert found["predicate"] == "x/decided"
        assert found["approved"] == line + 1  # the result that says approved
        assert found["evidence"][0].startswith(f"transcript#L{line}:")
        assert "approved your plan" in found["evidence"][1]


def test_the_approval_alone_does_not_make_a_decision_a_fact():
    """Approved and never carried out (the session ended first): a lead, not a fact."""
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, output=APPROVED)
    assert _kept(session.extract()) == []


def test_a_plan_the_person_turned_down_is_not_read():
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, error=True, output=REFUSED)
    session.write(f"{ROOT}/src/store.py", STORE)
    assert _kept(session.extract()) == []


def test_only_the_last_approved_version_of_a_revised_plan_counts():
    revised = PLAN.replace("Use SQLite for session storage, not JSON files",
                           "Use PostgreSQL for session storage, not SQLite")
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, output=APPROVED)
    session.prompt("Actually we already run Postgres, use that.")
    session.tool("ExitPlanMode", {"plan": revised}, output=APPROVED)
    session.write(f"{ROOT}/src/store.py", STORE.replace("import sqlite3", "import psycopg")
                  .replace("in SQLite", "in PostgreSQL, not SQLite"))
    objects = {c["object"] for c in _kept(session.extract())}
    assert "Use PostgreSQL for session storage, not SQLite" in objects
    assert "Use SQLite for session storage, not JSON files" not in objects


def test_a_decision_a_later_edit_reversed_is_dropped():
    session, _ = _carried_out()
    session.edit(f"{ROOT}/src/store.py", 'PATH = "data/sessions.sqlite3"',
                 'PATH = "var/sessions.db"')
    objects = {c["object"] for c in _kept(session.extract())}
    assert "Store the database in `data/sessions.sqlite3`" not in objects
    assert "Use SQLite for session storage, not JSON files" in objects


def test_a_plan_in_a_proposal_message_without_approval_is_not_read():
    session = Session()
    session.event("assistant", text=PLAN + "\nShall I proceed?")
    assert _kept(session.extract()) == []


def test_a_plan_handed_over_to_a_new_context_is_read_from_the_harness_message(tmp_path: Path):
    """Accepted with the context cleared, the plan arrives as a user record the harness
    composed (``planContent``): the person typed none of it, yet approved it."""
    text = ("Implement the following plan:\n\n" + PLAN + "\n\nIf you need specific details from "
            "before exiting plan mode (like exact code snippets), read the full transcript at: "
            "/home/dev/.claude/projects/x.jsonl")
    write = {"type": "tool_use", "id": "w1", "name": "Write",
             "input": {"file_path": f"{ROOT}/src/store.py", "content": STORE}}
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s1", "cwd": ROOT,
         "timestamp": "2026-01-01T10:00:00.000Z", "planContent": PLAN,
         "message": {"role": "user", "content": text}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s1", "cwd": ROOT,
         "timestamp": "2026-01-01T10:00:05.000Z",
         "message": {"role": "assistant", "content": [write]}},
        {"type": "user", "uuid": "u2", "sessionId": "s1", "cwd": ROOT,
         "timestamp": "2026-01-01T10:00:06.000Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "w1",
              "content": "File created successfully at: " + f"{ROOT}/src/store.py"}]}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    found = extract(read_transcript(str(path), "claude-code"), project_root=ROOT)
    kept = _kept(found)
    assert {c["object"] for c in kept} == CHOSEN
    assert all(c["approved"] == 1 and c["source_type"] == "agent-note" for c in kept)
    # the person's own words are not claimed for it
    assert not [c for c in found if c["source_type"] == "user-assertion"
                and "SQLite" in str(c["object"])]


def test_a_plan_without_a_decision_section_yields_no_decision():
    steps_only = ("# Release v1.2.0\n\n## Version bump\n\n- `pyproject.toml` — bump to 1.2.0\n\n"
                  "## Release steps\n\n1. Bump the version\n2. Run the gates\n3. Tag and push\n"
                  "\n## Verification\n\n- Install from PyPI and run `app doctor`\n")
    assert list(plan_decisions(steps_only)) == []


def test_a_goal_line_is_a_decision_but_a_sentence_leaning_on_it_is_not():
    plan = ("# Plan\n\n**Goal**: Keep `AGENTS.md` as the single source of instructions. "
            "This applies at every directory level.\n\n## Steps\n\n- Update the loader\n")
    assert list(plan_decisions(plan)) == [
        "Keep `AGENTS.md` as the single source of instructions"]


def test_code_blocks_and_weighed_sections_are_not_decisions():
    plan = ("# Plan\n\n## Design alternatives\n\n- Use Redis for the cache\n\n## Approach\n\n"
            "```python\n- Use this in a code block\n```\n- Prefer one process per worker\n")
    assert list(plan_decisions(plan)) == ["Prefer one process per worker"]


def test_a_conventions_numbered_items_are_its_rules_with_the_lines_they_wrap_onto():
    plan = ("# Constructor convention\n\n## Convention\n\n"
            "1. **Derive `Default` whenever possible.** Exception: construction can\n"
            "   fail.\n"
            "2. **`new()` delegates to `Self::default()`**, never the reverse.\n"
            "3. Update `AGENTS.md` with the rule\n\n"
            "## Changes\n\n### 1. Refactor `StdIO`\n\n- Use `Self::default()` in `new()`\n")
    assert list(plan_decisions(plan)) == [
        "Derive `Default` whenever possible. Exception: construction can fail",
        "`new()` delegates to `Self::default()`, never the reverse"]


def test_a_prose_pair_is_no_file_path_but_a_file_list_entry_is_no_decision():
    plan = ("# Plan\n\n## Design decisions\n\n"
            "- Parameterized/fallible constructors take their arguments in `new(args)`\n"
            "- `src/store.py` — holds the store\n")
    assert list(plan_decisions(plan)) == [
        "Parameterized/fallible constructors take their arguments in `new(args)`"]


# --- review (session 24): what the person approved, and where a section ends -----------------

#: Claude Code's result when the person edited the plan before approving it: the approved
#: text is the result's, after its heading; the call's ``plan`` input is the agent's draft.
EDITED_RESULT = (APPROVED + " Start with updating your todo list if applicable\n\nYour plan has "
                 "been saved to: /home/dev/.claude/plans/x.md\nYou can refer back to it if "
                 "needed during implementation.\n\n## Approved Plan (edited by user):\n")
POSTGRES = PLAN.replace("- Use SQLite for session storage, not JSON files\n",
                        "- Use PostgreSQL for session storage, not SQLite\n")
POSTGRES_STORE = (STORE.replace("import sqlite3", "import psycopg")
                  .replace("in SQLite, not JSON files", "in PostgreSQL, not SQLite"))


def test_a_plan_the_person_edited_before_approving_counts_as_edited():
    """The person's edit is what they approved: the agent's draft in the call's input is not."""
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, output=EDITED_RESULT + POSTGRES)
    session.write(f"{ROOT}/src/store.py", POSTGRES_STORE)
    objects = {c["object"] for c in _kept(session.extract())}
    assert "Use PostgreSQL for session storage, not SQLite" in objects
    assert "Use SQLite for session storage, not JSON files" not in objects


def test_a_plan_whose_later_version_was_turned_down_does_not_count():
    """Approved, then presented again (the same title) and turned down: the person's last word
    on the plan is no."""
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, output=APPROVED)
    session.write(f"{ROOT}/src/store.py", STORE)
    session.tool("ExitPlanMode", {"plan": POSTGRES}, error=True,
                 output=REFUSED + " To tell you how to proceed, the user said:\nno, scrap it")
    assert _kept(session.extract()) == []


def test_a_plan_turned_down_then_a_later_version_approved_counts_as_approved():
    session = Session()
    session.tool("ExitPlanMode", {"plan": POSTGRES}, error=True, output=REFUSED)
    session.tool("ExitPlanMode", {"plan": PLAN}, output=APPROVED)
    session.write(f"{ROOT}/src/store.py", STORE)
    assert {c["object"] for c in _kept(session.extract())} == CHOSEN


def test_a_handed_over_plan_is_claude_codes_only():
    """"Implement the following plan:" is Claude Code's harness message; another agent's
    person typing it wrote a prompt, and no plan mode approved anything."""
    for agent in ("codex", "gemini"):
        session = Session(agent=agent)
        session.prompt("Implement the following plan:\n\n" + PLAN)
        session.write(f"{ROOT}/src/store.py", STORE)
        assert _kept(session.extract()) == [], agent


def test_a_code_block_inside_an_item_is_no_part_of_the_decision():
    plan = ("# P\n\n## Decisions\n\n- Keep the settings in TOML\n  ```toml\n  [store]\n"
            "  path = \"data/x.db\"\n  ```\n- Use SQLite for session storage\n")
    assert list(plan_decisions(plan)) == ["Keep the settings in TOML",
                                          "Use SQLite for session storage"]


def test_a_setext_or_label_line_naming_alternatives_ends_the_decisions():
    head = "# P\n\n## Decisions\n\n- Use SQLite for session storage, not JSON files\n\n"
    for title in ("Alternatives considered\n-----------------------\n",
                  "Alternatives considered:\n", "Rejected options:\n"):
        plan = head + title + "\n- Use Redis as the session store\n"
        assert list(plan_decisions(plan)) == [
            "Use SQLite for session storage, not JSON files"], title


def test_a_setext_decisions_heading_opens_its_section():
    plan = "Plan\n====\n\nDecisions\n---------\n\n- Use SQLite for session storage\n"
    assert list(plan_decisions(plan)) == ["Use SQLite for session storage"]


def test_a_numbered_section_heading_is_not_taken_for_a_step():
    for heading in ("## 3. Approach", "## 2) Design decisions", "**4. Key decisions**"):
        plan = f"# P\n\n{heading}\n\n- Use SQLite for session storage\n"
        assert list(plan_decisions(plan)) == ["Use SQLite for session storage"], heading
    assert list(plan_decisions(
        "# P\n\n## 2. Decide the approach\n\n- Use SQLite for session storage\n")) == []


def test_the_harness_tail_is_cut_after_any_run_of_blank_lines():
    """The harness's closing note is found by its words from the end (a pattern tried at
    every line start took seconds on a plan of many blank lines; the time is not measured
    here, what is cut is)."""
    from claimgraph.capture.extract.approved_plan import without_harness_tail
    text = PLAN + "\n" * 200_000 + "\nIf you need specific details from before exiting plan " \
        "mode (like exact code snippets), read the full transcript at: /x.jsonl"
    assert without_harness_tail(text).rstrip() == PLAN.rstrip()
    assert without_harness_tail(PLAN) == PLAN


def test_an_edited_plan_capture_capped_is_read_up_to_the_cut():
    """A long result is stored capped (head, marker, tail): the edited plan is read from its
    head only, so nothing after the cut is taken for a decision out of its section."""
    from claimgraph.capture.segment import cap_output
    filler = "## Context\n\n" + "Background words here. " * 400 + "\n\n"
    tail = "## Decisions\n\n- Use Redis as the session store\n"
    result = cap_output(EDITED_RESULT + POSTGRES + filler + "x" * 5_000 + "\n\n" + tail)
    assert "omitted by claimgraph" in result
    session = Session()
    session.tool("ExitPlanMode", {"plan": PLAN}, output=result)
    session.write(f"{ROOT}/src/store.py", POSTGRES_STORE + "\n# Redis as the session store\n")
    objects = {c["object"] for c in _kept(session.extract())}
    assert "Use PostgreSQL for session storage, not SQLite" in objects
    assert "Use Redis as the session store" not in objects


def test_an_approach_sections_numbered_items_are_its_steps():
    """Numbered under "Approach", items are a sequence (the work in order), whatever verb
    leads them; under "Decisions" or "Conventions" they are a list of choices."""
    steps = "1. Validate the schema on load\n2. Emit a warning for unknown keys\n"
    assert list(plan_decisions(f"# P\n\n## Approach\n\n{steps}")) == []
    assert list(plan_decisions(f"# P\n\n## Approach\n\n- Prefer one process per worker\n"
                               f"\n## Steps\n\n{steps}")) == ["Prefer one process per worker"]
    assert list(plan_decisions(f"# P\n\n## Design decisions\n\n{steps}")) == [
        "Validate the schema on load", "Emit a warning for unknown keys"]


def test_a_subagents_plan_and_handover_are_not_the_persons_approval():
    """A subagent's ExitPlanMode is answered inside its own run, and a sidechain's prompt is
    the parent agent's words: neither is the person approving a plan."""
    session = Session()
    session.event("tool_call", tool_name="ExitPlanMode", tool_input={"plan": PLAN},
                  call_id="sub-1", is_sidechain=True, subagent_id="agent-1")
    session.event("tool_result", call_id="sub-1", text=APPROVED, is_sidechain=True,
                  subagent_id="agent-1")
    session.event("prompt", text="Implement the following plan:\n\n" + PLAN,
                  is_sidechain=True, subagent_id="agent-1")
    session.write(f"{ROOT}/src/store.py", STORE)
    assert _kept(session.extract()) == []
