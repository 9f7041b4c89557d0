"""A stance in prose that a later edit undid (extract/undone.py, called from reconcile)."""

from __future__ import annotations

from claimgraph.capture.extract.corroborate import Record
from claimgraph.capture.extract.reconcile import FileChange, Later, digest, reconcile
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.undone import distinct

from .extract_helpers import ROOT, Session

CONFIG = "import tomllib\n\ndef load_config():\n    return tomllib.load(open('settings.toml'))\n"
RENAMED = "def read_settings():"
SUMMARY = ("Done. Summary:\n\n### Key decisions:\n"
           "- `load_config()` reads `settings.toml` at startup by design\n"
           "- Kept the settings file at the project root\n"
           "- Used `tomllib` from the standard library\n")


def _note(obj: str, line: int = 5, *, predicate: str = "x/decided",
          source_type: str = "agent-note", rule: str = "summaries", **extra: object) -> dict:
    return {"subject": "shop", "predicate": predicate, "object": obj, "scope": "project",
            "source_type": source_type, "rule": rule, "evidence": [f"transcript#L{line}: …"],
            "epistemic": "commitment", "confidence": 0.5, **extra}


def _said(obj: str, line: int = 5, **extra: object) -> dict:
    return _note(obj, line, source_type="user-assertion", rule="statements", **extra)


def _later(files: dict[str, list[FileChange]], **fields: object) -> Later:
    """A session whose record bears the notes out (an agent's note the record does not back
    is dropped before this check: test_corroborate)."""
    backed = Record(written={"notes.md": "load_config read_settings settings.toml scripts/build.sh "
                                         "--frozen-lockfile pnpm docs/rules.md Makefile "
                                         "cleanup is one-time and idempotent",
                             "src/old.ts": "// holds the legacy adapter\n"})
    return Later(files=files, record=backed, **fields)


def _renamed_at(line: int) -> list[FileChange]:
    return [FileChange(2, "read", "", CONFIG),
            FileChange(line, "edit", "def load_config():", RENAMED)]


# --- a named thing a later edit took out ------------------------------------------------------

def test_a_note_on_a_function_a_later_edit_renamed_is_dropped():
    note = _note("`load_config()` reads `settings.toml` at startup by design")
    assert reconcile([note], _later({"src/config.py": _renamed_at(9)})) == []


def test_an_edit_before_the_note_says_nothing_about_it():
    note = _note("`read_settings()` reads `settings.toml` at startup by design", line=12)
    assert reconcile([note], _later({"src/config.py": _renamed_at(9)})) == [note]


def test_the_thing_shown_again_or_held_elsewhere_keeps_the_note():
    note = _note("`load_config()` reads `settings.toml` at startup by design")
    shown_again = _later({"src/config.py": [*_renamed_at(9),
                                            FileChange(11, "read", "", CONFIG)]})
    elsewhere = _later({"src/config.py": _renamed_at(9),
                        "src/app.py": [FileChange(3, "read", "", "cfg = load_config()\n")]})
    assert reconcile([note], shown_again) == [note]
    assert reconcile([note], elsewhere) == [note]


def test_an_edit_the_session_cannot_place_in_a_known_text_leaves_the_note():
    """Without the file's text, the name may stand elsewhere in it: unknown keeps."""
    note = _note("`load_config()` reads `settings.toml` at startup by design")
    blind = _later({"src/config.py": [FileChange(9, "edit", "def load_config():", RENAMED)]})
    assert reconcile([note], blind) == [note]


def test_an_edit_that_carries_the_note_out_keeps_it():
    note = _note("`load_config()` reads `settings.toml` at startup by design")
    carried = _later({"src/config.py": [
        FileChange(2, "read", "", "def read_settings():\n    pass\n"),
        FileChange(9, "edit", RENAMED, "def load_config():")]})
    assert reconcile([note], carried) == [note]


def test_what_the_note_itself_says_is_gone_or_replaced_is_not_held_against_it():
    renamed = _note("Renamed `load_config()` to `read_settings()`")
    unused = _note("`load_config()` is no longer used by the CLI")
    arrow = _note("`load_config()` → `read_settings()` everywhere")
    later = _later({"src/config.py": _renamed_at(9)})
    assert reconcile([renamed, unused, arrow], later) == [renamed, unused, arrow]


def test_only_named_things_count_never_a_word():
    assert distinct(["one-time", "true/false", "Binary-only", "load_config", "fetchUser",
                     "app.py", "REQ-008"], "a one-time fix, true/false, Binary-only") == [
        "load_config", "fetchUser", "app.py", "REQ-008"]
    assert distinct(["pre-commit", "true/false"], "run `pre-commit` with `true/false`") == [
        "pre-commit", "true/false"]
    note = _note("Cleanup is one-time and idempotent")
    later = _later({"src/job.py": [FileChange(2, "read", "", "# one-time cleanup\n"),
                                   FileChange(9, "edit", "# one-time cleanup", "# cleanup")]})
    assert reconcile([note], later) == [note]


def test_a_stance_against_the_thing_or_a_lesson_agrees_with_its_removal():
    against = _note("`load_config()`", predicate="core/decided-against")
    lesson = _note("`load_config()` crashed on a missing file; fixed: a default",
                   predicate="core/failure-mode", source_type="failure-report", rule="lessons")
    later = _later({"src/config.py": _renamed_at(9)})
    assert reconcile([against, lesson], later) == [against, lesson]


# --- a file deleted, a count outgrown -----------------------------------------------------------

def test_a_note_naming_a_file_deleted_later_is_dropped_unless_written_again():
    note = _note("Releases are built by `scripts/build.sh`")
    deleted = _later({}, deleted=[(9, "scripts/build.sh")])
    again = _later({"scripts/build.sh": [FileChange(12, "write", "", "#!/bin/sh\n")]},
                   deleted=[(9, "scripts/build.sh")])
    before = _later({}, deleted=[(3, "scripts/build.sh")])
    assert reconcile([note], deleted) == []
    assert reconcile([note], again) == [note]
    assert reconcile([note], before) == [note]


def test_a_role_note_on_a_file_deleted_later_is_dropped():
    role = _note("holds the legacy adapter", predicate="x/role", subject="src/old.ts",
                 subject_type="file")
    later = _later({"src/old.ts": [FileChange(2, "write", "", "// the legacy adapter\n")]},
                   deleted=[(9, "src/old.ts")])
    assert reconcile([role], later) == []


def test_an_agents_count_of_a_file_it_changed_afterwards_is_dropped():
    count = _note("`docs/rules.md` lists 3 rules for reviewers")
    rules = "- one\n- two\n- three\n"
    grown = _later({"docs/rules.md": [FileChange(2, "write", "", rules),
                                      FileChange(9, "edit", "- three\n", "- three\n- four\n")]})
    reworded = _later({"docs/rules.md": [FileChange(2, "write", "", rules),
                                         FileChange(9, "edit", "- two\n", "- 2\n")]})
    assert reconcile([count], grown) == []
    assert reconcile([count], reworded) == [count]


def test_a_measure_is_not_a_count_and_the_users_count_stands():
    measure = _note("`docs/rules.md` asks reviewers to wait two days")
    users = _said("`docs/rules.md` has 3 rules")
    grown = _later({"docs/rules.md": [FileChange(2, "write", "", "- one\n"),
                                      FileChange(9, "edit", "- one\n", "- one\n- two\n")]})
    assert reconcile([measure, users], grown) == [measure, users]


# --- the user's words: only after the thing they named failed ----------------------------------

FLAGGED = "install:\n\tpnpm install --frozen-lockfile\n"
PLAIN = "install:\n\tpnpm install\n"


def _flag_dropped_at(line: int) -> list[FileChange]:
    return [FileChange(2, "write", "", FLAGGED),
            FileChange(line, "edit", "pnpm install --frozen-lockfile", "pnpm install")]


def test_a_users_request_replaced_after_it_failed_is_dropped():
    request = _said("Always install with `--frozen-lockfile` in CI")
    failed = [(7, "pnpm install --frozen-lockfile\nERR_PNPM_OUTDATED_LOCKFILE")]
    assert reconcile([request], _later({"Makefile": _flag_dropped_at(9)}, failed=failed)) == []


def test_a_users_request_replaced_without_a_failure_is_kept():
    request = _said("Always install with `--frozen-lockfile` in CI")
    unrelated = [(7, "make lint\nE501 line too long")]
    late = [(11, "pnpm install --frozen-lockfile\nERR_PNPM_OUTDATED_LOCKFILE")]
    for failed in ([], unrelated, late):
        later = _later({"Makefile": _flag_dropped_at(9)}, failed=failed)
        assert reconcile([request], later) == [request]


def test_a_bare_tool_name_counts_only_once_a_command_ran_it_and_failed():
    request = _said("Use `pnpm` for installs")
    switched = [FileChange(2, "write", "", PLAIN),
                FileChange(9, "edit", "pnpm install", "npm install")]
    failed = [(7, "pnpm install\nERR_PNPM_META_FETCH_FAIL")]
    assert reconcile([request], _later({"Makefile": switched}, failed=failed)) == []
    assert reconcile([request], _later({"Makefile": switched})) == [request]
    note = _note("Installs use `pnpm`")
    assert reconcile([note], _later({"Makefile": switched})) == [note]


# --- read from a session -------------------------------------------------------------------------

def test_digest_lists_deletions_and_failures_and_the_pass_drops_the_undone_note():
    session = Session()
    session.prompt("Move the settings into a TOML file.")
    session.write(f"{ROOT}/src/config.py", CONFIG)
    session.write(f"{ROOT}/scripts/old.sh", "#!/bin/sh\n")
    session.event("assistant", text=SUMMARY)
    session.bash("pytest", error=True, output="ImportError: load_config")
    session.edit(f"{ROOT}/src/config.py", "def load_config():", RENAMED)
    session.bash(f"rm {ROOT}/scripts/old.sh")
    later = digest(SessionView.of(session.transcript(), None))
    assert later.deleted == [(11, "scripts/old.sh")]
    assert [(at, text.split("\n")[0]) for at, text in later.failed] == [(7, "pytest")]
    kept = [c["object"] for c in session.extract() if c["rule"] == "summaries"]
    assert kept and not any("load_config" in said for said in kept)


def test_the_same_note_stands_when_the_session_kept_the_function():
    session = Session()
    session.prompt("Move the settings into a TOML file.")
    session.write(f"{ROOT}/src/config.py", CONFIG)
    session.event("assistant", text=SUMMARY)
    session.edit(f"{ROOT}/src/config.py", "import tomllib", "import tomllib  # stdlib")
    kept = [c["object"] for c in session.extract() if c["rule"] == "summaries"]
    assert "`load_config()` reads `settings.toml` at startup by design" in kept


def test_a_count_names_its_file_by_path_or_by_a_name_only_one_file_has():
    count = _note("The `Makefile` has 4 targets")
    targets = "build:\n\ttrue\ntest:\n\ttrue\nlint:\n\ttrue\nfmt:\n\ttrue\n"
    grown = [FileChange(2, "read", "", targets),
             FileChange(9, "edit", "fmt:\n\ttrue\n", "fmt:\n\ttrue\ndocs:\n\ttrue\n")]
    assert reconcile([count], _later({"api/Makefile": grown})) == []
    twice = _later({"api/Makefile": grown, "web/Makefile": [FileChange(3, "read", "", "x:\n")]})
    assert reconcile([count], twice) == [count]


def test_a_clause_that_turns_the_thing_down_is_not_held_against_it():
    off = _note("`load_config()` is off the table — no upstream basis. TOML stays")
    instead = _note("Settings come from env vars, `load_config()` was rejected")
    said = _note("`load_config()` reads `settings.toml`, not env vars")
    later = _later({"src/config.py": _renamed_at(9)})
    assert reconcile([off, instead, said], later) == [off, instead]
