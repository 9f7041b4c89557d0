"""A user's stance later words of the same session overtook: a rename carried out, a design
they approved that states the choice otherwise, a narrower word of theirs (pure logic)."""

from __future__ import annotations

from claimgraph.capture.extract.overtaken import approved_passages, overtaken
from claimgraph.capture.extract.reconcile import digest, reconcile
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session


def _stance(obj: str, line: int, *, rule: str = "statements",
            source_type: str = "user-assertion", predicate: str = "x/decided") -> dict:
    return {"subject": "shop", "predicate": predicate, "object": obj, "scope": "project",
            "source_type": source_type, "rule": rule,
            "evidence": [f"transcript#L{line}: {obj[:40]}"], "epistemic": "commitment",
            "confidence": 0.7}


def _run(kept, user=(), agent=(), done=(), approved=()):
    return overtaken(list(kept), list(user), list(agent), list(done), list(approved))


# --- a rename the session carried out ---------------------------------------------------------

def test_a_stance_naming_a_renamed_file_is_rewritten_to_the_new_name():
    stance = _stance("`ledger.csv` is the source of truth for balances", 3)
    user = [(20, "ok rename `ledger.csv` to `journal.csv`")]
    done = [(24, "git mv ledger.csv journal.csv")]
    [renamed] = _run([stance], user, done=done)
    assert renamed["object"] == "`journal.csv` is the source of truth for balances"
    assert renamed["evidence"][-1].startswith("transcript#L20:")


def test_a_bare_rename_takes_the_old_name_from_the_agents_comparison_just_before():
    stance = _stance("rows.jsonl/run metadata is authoritative for the target", 3)
    agent = [(18, "Yes. `ledger_rows.jsonl` is clearer than `rows.jsonl` here."),
             (30, "Renamed.")]
    user = [(20, "ok lets rename to ledger_rows, go")]
    done = [(25, "write ledger_rows.jsonl in the writer")]
    [renamed] = _run([stance], user, agent, done)
    assert renamed["object"] == "ledger_rows.jsonl/run metadata is authoritative for the target"


def test_a_rename_the_session_never_carried_out_changes_nothing():
    stance = _stance("`ledger.csv` is the source of truth for balances", 3)
    user = [(20, "rename `ledger.csv` to `journal.csv` at some point")]
    assert _run([stance], user, done=[(24, "pytest -q")]) == [stance]


def test_a_rename_before_the_stance_or_of_another_name_changes_nothing():
    stance = _stance("`ledger.csv` is the source of truth for balances", 30)
    user = [(20, "rename `ledger.csv` to `journal.csv`")]
    done = [(24, "git mv ledger.csv journal.csv")]
    assert _run([stance], user, done=done) == [stance]
    other = _stance("`ledger.csv.bak` stays out of git", 3)
    assert _run([other], user, done=done) == [other]


def test_a_no_to_the_old_name_is_left_alone_and_an_unsafe_rewrite_drops():
    refused = _stance("Not one shared `ledger.csv` for every account", 3)
    user = [(20, "rename `ledger.csv` to `journal.csv`")]
    done = [(24, "git mv ledger.csv journal.csv")]
    assert _run([refused], user, done=done) == [refused]
    # the new name's shape differs from the old one's: no safe rewrite, so nothing is kept
    shapeless = _stance("`ledger.csv` is the source of truth", 3)
    assert _run([shapeless], [(20, "rename `ledger.csv` to `journal`")],
                done=[(24, "mv ledger.csv journal")]) == []


def test_a_plain_word_is_no_name_to_rename():
    stance = _stance("Each function in `billing.py` logs its input", 3)
    user = [(20, "rename the function to helper")]
    assert _run([stance], user, done=[(24, "edit billing.py: def helper")]) == [stance]


def test_the_agents_notes_and_the_rename_request_itself_are_not_touched():
    note = _stance("`ledger.csv` is the source of truth", 3, source_type="agent-note")
    request = _stance("rename `ledger.csv` to `journal.csv`", 20)
    user = [(20, "rename `ledger.csv` to `journal.csv`")]
    done = [(24, "git mv ledger.csv journal.csv")]
    assert _run([note, request], user, done=done) == [note, request]


# --- a design the person approved later states the choice otherwise ---------------------------

_PICK = ("Two panes, output inline — `Editor` · `Console` · and output renders below the "
         "form. No separate Output pane — you see it where you ran it. (option B of the "
         "agent's, chosen by the user)")


def test_a_pick_saying_no_to_a_thing_a_later_approved_design_has_is_dropped():
    pick = _stance(_PICK, 10, rule="answers")
    design = (40, "**Three panes** (top, not sidebar): `Editor` · `Console` · `Output`.")
    assert _run([pick], approved=[design]) == []


def test_the_later_design_must_share_two_named_things_and_say_yes_to_the_refused_one():
    pick = _stance(_PICK, 10, rule="answers")
    one_name = (40, "Panes: `Editor` and an Output pane.")
    refused_again = (40, "Panes: `Editor` · `Console`; no Output pane, output inline.")
    removed = (40, "Panes: `Editor` · `Console` · the Output pane is removed.")
    earlier = (5, "Panes: `Editor` · `Console` · `Output`.")
    for design in (one_name, refused_again, removed, earlier):
        assert _run([pick], approved=[design]) == [pick], design


def test_a_stance_without_a_named_refusal_is_not_held_against_designs():
    plain = _stance("Panes: `Editor` · `Console`, output renders inline", 10, rule="answers")
    assert _run([plain], approved=[(40, "`Editor` · `Console` · `Output` panes.")]) == [plain]


def test_approved_passages_are_the_messages_and_files_the_person_said_yes_to():
    user = [(10, "B"), (30, "scan from a folder too"), (50, "yes"), (70, "Yes, commit it")]
    agent = [(20, "Section 3: panes"), (40, "Addendum: folder picker"),
             (60, "Please review docs/spec.md and tell me if you want changes.")]
    written = {"docs/spec.md": (55, "# Spec"), "notes/other.md": (56, "# Other")}
    passages = approved_passages(user, agent, [(5, "# Plan")], written)
    assert (5, "# Plan") in passages and (40, "Addendum: folder picker") in passages
    assert (55, "# Spec") in passages
    assert (20, "Section 3: panes") not in passages  # answered with more words, not a yes
    assert (56, "# Other") not in passages  # never put to the person


def test_a_list_under_a_heading_line_is_one_passage():
    pick = _stance(_PICK, 10, rule="answers")
    spec = (60, "## Layout\n\nThree panes at the top:\n\n- **Editor**\n- **Console**\n"
                "- **Output** (`/output`)\n\n## Routes\n\nOther text with `Editor`.")
    named = _stance(_PICK.replace("`Editor` · `Console`", "`editor` · `console`"), 10,
                    rule="answers")
    assert _run([pick, named], approved=[spec]) == []


# --- a narrower word of the same person -------------------------------------------------------

_SHOWS = ("Transcript: Inline — Render user turns prominently and show tool calls/results as "
          "compact rows within the agent turn")


def test_a_later_only_these_word_that_leaves_out_what_the_stance_shows_drops_it():
    stance = _stance(_SHOWS, 8, rule="answers")
    for later in ("Do not display any block that is not an agent reply or tool call.",
                  "Show only text messages and tool calls by the agent."):
        assert _run([stance], [(40, later)]) == [], later


def test_a_limit_that_shares_no_two_word_thing_or_keeps_everything_changes_nothing():
    stance = _stance(_SHOWS, 8, rule="answers")
    unrelated = "Do not display any block that is not a log line."
    everything = "Show only user turns and tool calls/results."
    question = "Should we show only tool calls?"
    refusal = "Do not render content that is empty."
    for later in (unrelated, everything, question, refusal):
        assert _run([stance], [(40, later)]) == [stance], later
    assert _run([stance], [(4, "Show only tool calls.")]) == [stance]  # said before


# --- end to end: the plan approved through the harness ----------------------------------------

def test_reconcile_holds_a_pick_against_a_plan_approved_later():
    session = Session()
    session.prompt("How should the layout look?")
    session.event("assistant", text="A. one pane\n\nB. Two panes, output inline")
    session.prompt("B")
    plan = session.tool("ExitPlanMode", {"plan": "# Plan\n\nPanes: `Editor` · `Console` · "
                                                 "`Output`."},
                        output="User has approved your plan. You can now start coding.")
    later = digest(SessionView.of(session.transcript(), ROOT))
    assert later.plans == [(plan.line, "# Plan\n\nPanes: `Editor` · `Console` · `Output`.")]
    pick = _stance(_PICK, 2, rule="answers")
    assert reconcile([pick], later) == []
    refused = session.tool("ExitPlanMode", {"plan": "# Other"}, output="The user doesn't want "
                           "to proceed with this tool use.")
    assert (refused.line, "# Other") not in digest(
        SessionView.of(session.transcript(), ROOT)).plans
