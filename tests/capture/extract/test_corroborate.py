"""An agent's note is kept only when the session's record bears it out (pure logic)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from claimgraph.capture.extract.corroborate import (
    Record, backed, named, read_outputs, unsupported)

from .extract_helpers import ROOT, Session


def _note(obj: str, *, predicate: str = "x/decided", subject: str = "shop",
          source_type: str = "agent-note") -> dict:
    return {"subject": subject, "predicate": predicate, "object": obj,
            "source_type": source_type}


WROTE = Record(written={"src/parse.rs": "pub fn parse(s: &str) -> Result<Item, ParseError> {}",
                        "docs/api.md": "Pagination uses opaque cursors; offsets are refused."},
               user_said=[(3, "keep the exit codes stable for scripts")])


@pytest.mark.parametrize(("claim", "kept"), [
    ("Used a `ParseError` result instead of panicking in `parse()`", True),  # named, written
    ("Used `Outcome<T>` everywhere instead of results", False),  # named, nowhere in the record
    ("Pagination uses opaque cursors instead of offsets", True),  # plain, most words written
    ("Exit codes stay stable for scripts", True),  # plain, the user's words
    ("All modules carry doctests and examples", False),  # plain, in nothing the session left
])
def test_a_claim_stands_on_what_the_session_left_or_the_user_said(claim, kept):
    assert backed(claim, WROTE) is kept


def test_a_named_thing_a_tool_showed_backs_the_claim_as_spelled():
    shown = Record(outputs=[SimpleNamespace(text="cursor.rs:12: fn next_page(&self)")])
    assert backed("Paging goes through `next_page`", shown)
    assert not backed("Paging goes through `NEXT_PAGE`", shown)


def test_names_are_code_spans_and_identifier_shaped_words():
    assert named("Used `Result<T, E>` for `parse()`; see src/io.rs and --dry-run, not a "
                 "read-and-delete step") == {"Result<T, E>", "parse", "src/io.rs", "--dry-run"}


def test_what_is_not_the_agents_note_is_never_judged_here():
    assert unsupported(_note("All modules carry doctests", source_type="user-assertion"),
                       5, Record()) is None


@pytest.mark.parametrize(("claim", "why"), [
    ("We'll have to migrate `parse()` in stages", "intent"),
    ("`parse()` probably allocates twice", "hedge"),
    ("41,220 input tokens across 12 calls", "figure"),
])
def test_a_note_whose_form_is_no_fact_goes_whatever_backs_it(claim, why):
    assert unsupported(_note(claim), 5, WROTE) == why


def test_a_files_role_stands_on_the_file_written_read_or_named():
    role = _note("exports the shared database client", predicate="x/role",
                 subject="src/db.ts")
    assert unsupported(role, 5, Record()) == "uncorroborated"
    assert unsupported(role, 5, Record(written={"src/db.ts": "x"})) is None
    assert unsupported(role, 5, Record(user_said=[(1, "look at db.ts")])) is None
    read = SimpleNamespace(kind="read", new="export const client = database.connect()")
    assert unsupported(role, 5, Record(looks={"src/db.ts": [read]})) is None
    other = SimpleNamespace(kind="read", new="nothing here but comments")
    assert unsupported(role, 5, Record(looks={"src/db.ts": [other]})) == "uncorroborated"
    finding = _note("hits `/items`, missing the `/v2` prefix", predicate="x/role",
                    subject="src/db.ts")
    assert unsupported(finding, 5, Record(written={"src/db.ts": "x"})) == "finding"


@pytest.mark.parametrize(("reply", "refuted"), [
    ("still failing, same error", True),
    ("Traceback (most recent call last):\n  File \"app.py\"\nKeyError: 'pool'", True),
    ("npm ERR! code ELIFECYCLE", True),
    ("great, thanks — now add the docs", False),
])
def test_a_fix_the_users_next_message_refutes_is_not_kept(reply, refuted):
    record = Record(written={"src/pool.py": "pool_size = 4"}, prompts=[(9, reply)])
    claim = _note("Fixed the crash by setting `pool_size` in src/pool.py")
    assert (unsupported(claim, 5, record) == "refuted") is refuted
    before = Record(written=record.written, prompts=[(2, reply)])
    assert unsupported(claim, 5, before) is None  # said before the claim: no answer to it


def test_a_summary_kept_through_the_whole_pass_only_when_its_record_backs_it():
    summary = ("Done. Summary:\n\n### Key decisions:\n"
               "- Used `ParseError` results instead of panics in the parser\n"
               "- Chose cursors instead of offsets because the table is large\n"
               "- We'll need to revisit the schema instead of patching it\n")
    session = Session()
    session.prompt("Make the parser stop panicking.")
    session.write(f"{ROOT}/src/parse.rs", "pub fn parse() -> Result<(), ParseError> {}\n")
    session.event("assistant", text=summary)
    kept = [c["object"] for c in session.extract() if c["rule"] == "summaries"]
    assert kept == ["Used `ParseError` results instead of panics in the parser"]


class _CountedOutput:
    """A tool output that counts how often its text is read (each read of a packed output
    decompresses it)."""

    def __init__(self, text: str) -> None:
        self._text, self.reads = text, 0

    @property
    def text(self) -> str:
        self.reads += 1
        return self._text


def test_outputs_are_read_once_for_all_notes_and_decide_as_a_lazy_check_would():
    outputs = [_CountedOutput("grep: src/pool.py:3: POOL_SIZE = 4"),
               _CountedOutput("tests/test_pool.py: checks the pool sizing and the limits")]
    notes = [_note("The pool size lives in `POOL_SIZE`"), _note("Timeouts live in `TIMEOUT_S`"),
             _note("checks the pool sizing limits", predicate="x/role",
                   subject="tests/test_pool.py"),
             _note("renders the dashboard widgets", predicate="x/role",
                   subject="tests/test_pool.py")]
    lazy = Record(outputs=outputs)
    expected = [unsupported(note, 5, lazy) for note in notes]
    assert expected == [None, "uncorroborated", None, "uncorroborated"]
    for output in outputs:
        output.reads = 0
    prepared = read_outputs(lazy, notes)
    assert [unsupported(note, 5, prepared) for note in notes] == expected
    assert all(output.reads == 1 for output in outputs)
