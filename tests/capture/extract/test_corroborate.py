"""An agent's note is kept only when the session's record bears it out (pure logic)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from claimgraph.capture.extract.corroborate import (
    Record, asserted, backed, named, read_outputs, replaced_later, unsupported)

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


def test_a_named_thing_only_a_tool_showed_or_a_read_found_backs_nothing():
    shown = Record(outputs=[SimpleNamespace(text="cursor.rs:12: fn next_page(&self)")])
    assert not backed("Paging goes through `next_page`", shown)
    read = SimpleNamespace(kind="read", line=2, old="", new="fn next_page(&self) {}")
    assert not backed("Paging goes through `next_page`", Record(looks={"cursor.rs": [read]}))
    assert backed("Paging goes through `next_page`",
                  Record(written={"cursor.rs": "fn next_page(&self) {}"}))


def test_the_named_things_must_be_left_together_in_one_file():
    apart = Record(written={"src/a.py": "SCHEMA_VERSION = 3", "docs/notes.md": "see `RELEASE.md`"})
    together = Record(written={"src/a.py": "SCHEMA_VERSION = 3  # bumped per RELEASE.md"})
    claim = "Check `SCHEMA_VERSION` and wire it into `RELEASE.md`"
    assert not backed(claim, apart)
    assert backed(claim, together)
    # most of them will do: four of five in one file
    many = "`alpha_one`, `beta_two`, `gamma_three`, `delta_four` and `omega_five` are exported"
    assert backed(many, Record(written={"x.py": "alpha_one beta_two gamma_three delta_four"}))
    assert not backed(many, Record(written={"x.py": "alpha_one beta_two"}))


@pytest.mark.parametrize(("claim", "left", "kept"), [
    ("Replaced `is_done()` with atomic `claim_event()`", "def claim_event(): ...", True),
    ("Replaced `is_done()` with atomic `claim_event()`", "def is_done(): ...", False),
    ("Used `FastMap` instead of `HashMap` for the index", "use HashMap;", False),
    ("Used `FastMap` instead of `HashMap` for the index", "use FastMap;", True),
    ("Maps to `attempt_rate`, not `pass_rate`", "pass_rate = 1", False),
])
def test_what_a_note_says_it_chose_must_be_there_the_old_thing_may_be_gone(claim, left, kept):
    assert backed(claim, Record(written={"src/m.py": left})) is kept


def test_a_type_with_placeholder_parameters_is_looked_for_by_its_head():
    record = Record(written={"src/m.rs": "fn f(n: i64) -> Result<u64, NegError> {}"})
    assert backed("Used `Result<T, E>` instead of raising exceptions for `f()`", record)
    assert asserted("Used `Result<T, E>` instead of raising for `f()`") == ({"result<"}, {"f"})


def test_words_joined_by_a_slash_in_prose_name_nothing():
    chose, _ = asserted("Colors come from extruders and/or `spool_banks`")
    assert chose == {"spool_banks"}
    assert backed("Colors come from extruders and/or `spool_banks`",
                  Record(written={"schema.json": '"spool_banks": []'}))


def _change(line: int, kind: str, new: str, old: str = "") -> SimpleNamespace:
    return SimpleNamespace(line=line, kind=kind, new=new, old=old)


def test_a_note_whose_named_thing_a_later_edit_replaced_is_dropped():
    looks = {"src/store.py": [
        _change(3, "write", "BACKEND = redis_store\n"),
        _change(9, "edit", "BACKEND = memory_store", "BACKEND = redis_store")]}
    record = Record(written={"src/store.py": "BACKEND = memory_store\n",
                             "docs/store.md": "Sessions use redis_store."}, looks=looks)
    note = _note("Sessions are kept in `redis_store`")
    assert replaced_later(note["object"], 5, record)
    assert unsupported(note, 5, record) == "replaced"
    # the same edit before the note is not a later replacement (the note then stands or
    # falls on the end state alone: here another file the session left still holds it)
    assert not replaced_later(note["object"], 10, record)
    assert unsupported(note, 10, record) is None
    # code the session left still using it: the edit took it out of one file only
    in_code = Record(written={**record.written, "src/cache.py": "from store import redis_store\n"},
                     looks=looks)
    assert not replaced_later(note["object"], 5, in_code)


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


@pytest.mark.parametrize(("claim", "why"), [
    ("`parse()` could return a `ParseError` when the input is empty", "speculative"),
    ("One option is a `ParseError` result from `parse()`", "offered"),
    ("Should `parse()` return a `ParseError`?", "question"),
    ("Let me make `parse()` return a `ParseError`", "own-activity"),
    ("`parse()` returns a `ParseError` on", "fragment"),
    ("`parse()` returns a `ParseError` for every malformed row", "describes-code"),
])
def test_a_reviewers_guard_drops_a_note_even_when_the_session_wrote_what_it_names(claim, why):
    """The file the session left holds `parse` and `ParseError` (``backed``), yet the
    sentence is no standing decision by its form (``logic.agent_said``)."""
    assert backed(claim, WROTE)
    assert unsupported(_note(claim), 5, WROTE) == why


@pytest.mark.parametrize("source_type", ["user-assertion", "session-log", "code"])
@pytest.mark.parametrize("claim", [
    "`parse()` could return a `ParseError` when the input is empty",
    "Should `parse()` return a `ParseError`?", "Let me make `parse()` return a `ParseError`",
    "`parse()` returns a `ParseError` on", "所有依赖统一用pnpm", "Nur pnpm",
])
def test_the_reviewers_guards_never_judge_what_is_not_the_agents_note(claim, source_type):
    """The guards read the agent's words only: a person's own words, however short, unsure
    or in whatever language, and what a tool or the code showed, are never dropped here."""
    assert unsupported(_note(claim, source_type=source_type), 5, WROTE) is None


def test_a_stance_whose_object_is_a_name_is_not_read_as_a_sentence():
    """"decided against `parse()`" holds a name, not a sentence: no guard reads it."""
    against = _note("`parse()`", predicate="core/decided-against")
    assert unsupported(against, 5, WROTE) != "fragment"


def test_a_settled_note_on_the_same_record_stands():
    claim = "`parse()` returns a `ParseError` instead of panicking"
    assert unsupported(_note(claim), 5, WROTE) is None


def test_a_files_role_stands_on_the_file_written_or_read_and_the_user_asking():
    role = _note("exports the shared database client", predicate="x/role",
                 subject="src/db.ts")
    named = [(1, "look at db.ts, where does the client come from?")]
    assert unsupported(role, 5, Record(user_said=named)) == "uncorroborated"
    assert unsupported(role, 5, Record(written={"src/db.ts": "x"}, user_said=named)) is None
    read = SimpleNamespace(kind="read", new="export const client = database.connect()")
    assert unsupported(role, 5, Record(looks={"src/db.ts": [read]}, user_said=named)) is None
    other = SimpleNamespace(kind="read", new="nothing here but comments")
    assert unsupported(role, 5, Record(looks={"src/db.ts": [other]},
                                       user_said=named)) == "uncorroborated"
    finding = _note("hits `/items`, missing the `/v2` prefix", predicate="x/role",
                    subject="src/db.ts")
    assert unsupported(finding, 5, Record(written={"src/db.ts": "x"})) == "finding"


def test_a_role_nobody_asked_for_is_what_any_reader_of_the_file_sees():
    role = _note("records the rejected alternatives", predicate="x/role",
                 subject="docs/design.md")
    wrote = {"docs/design.md": "## Rejected alternatives"}
    assert unsupported(role, 5, Record(written=wrote)) == "unasked"
    assert unsupported(role, 5, Record(written=wrote, user_said=[(
        2, "Please review the entire codebase and propose a plan")])) is None
    assert unsupported(role, 5, Record(written=wrote, user_said=[(
        2, "put the rejected options in design.md")])) is None
    # named only after the note: the role was not what they asked
    assert unsupported(role, 5, Record(written=wrote, user_said=[(
        8, "ok, commit design.md")])) == "unasked"


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


def test_outputs_are_read_once_for_all_roles_and_decide_as_a_lazy_check_would():
    outputs = [_CountedOutput("grep: src/pool.py:3: POOL_SIZE = 4"),
               _CountedOutput("tests/test_pool.py: checks the pool sizing and the limits")]
    notes = [_note("The pool size lives in `POOL_SIZE`"),
             _note("checks the pool sizing limits", predicate="x/role",
                   subject="tests/test_pool.py"),
             _note("renders the dashboard widgets", predicate="x/role",
                   subject="tests/test_pool.py")]
    lazy = Record(outputs=outputs, user_said=[(1, "explain how the project tests its pool")])
    expected = [unsupported(note, 5, lazy) for note in notes]
    assert expected == ["uncorroborated", None, "uncorroborated"]
    for output in outputs:
        output.reads = 0
    prepared = read_outputs(lazy, notes)
    assert [unsupported(note, 5, prepared) for note in notes] == expected
    assert all(output.reads == 1 for output in outputs)


def test_outputs_are_not_read_when_no_role_is_at_hand():
    output = _CountedOutput("src/pool.py: POOL_SIZE = 4")
    read_outputs(Record(outputs=[output]), [_note("The pool size lives in `POOL_SIZE`")])
    assert output.reads == 0


def test_the_users_words_back_a_note_that_restates_them_a_plurals_s_aside():
    said = Record(user_said=[(4, "pass rates should align with the linter skills; they count "
                                 "assertions")])
    assert backed("`pass_rate` counts assertion results, aligned with the linter skill", said)
    assert not backed("`pass_rate` is computed per attempt in the nightly job", said)
