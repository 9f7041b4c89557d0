"""A fix commit's message read for its change and its stated cause: only a fix subject with a
first body paragraph that says, settled, what went wrong."""

from __future__ import annotations

from claimgraph.logic.fix_message import (
    MAX_CAUSE_CHARS, commit_message, fix_lesson, fix_subject, stated_cause)

CAUSE = ("The export job wrote `report.csv` before `flush_rows` ran, so the last batch was "
         "never written.")
MESSAGE = f"fix(export): flush rows before writing the report\n\n{CAUSE}\n\nCall flush_rows " \
          "first.\n\nCo-Authored-By: Someone <someone@example.com>"


def test_a_heredoc_message_is_read_whole():
    command = ("git add export.py && git commit -m \"$(cat <<'EOF'\n"
               f"{MESSAGE}\nEOF\n)\"")
    assert commit_message(command) == MESSAGE


def test_each_quoted_message_is_a_paragraph():
    command = 'git commit -m "fix: flush rows first" -m "The job never flushed, so rows were lost."'
    assert commit_message(command) == ("fix: flush rows first\n\n"
                                       "The job never flushed, so rows were lost.")


def test_no_message_without_a_commit_or_a_message():
    assert commit_message('git log -m "fix: x"') is None
    assert commit_message("git commit --amend --no-edit") is None


def test_fix_subjects():
    assert fix_subject("fix(ci): stage the file before the diff") == \
        "stage the file before the diff"
    assert fix_subject("Fix crash on empty input.") == "crash on empty input"
    assert fix_subject("feat: add export") is None
    assert fix_subject("docs: fix typo") is None
    assert fix_subject("fix: typo") is None  # one word says nothing


def test_the_cause_is_the_first_paragraph_saying_what_went_wrong():
    assert fix_lesson(MESSAGE) == ("flush rows before writing the report", CAUSE)


def test_a_body_opening_with_the_change_states_no_cause():
    assert stated_cause("Replace the default with an explicit list, because it broke.") is None
    assert fix_lesson("fix: flush rows before writing\n\nCall flush_rows first.") is None


def test_a_hedged_or_personal_cause_is_not_settled():
    assert stated_cause("The export probably failed because the rows were never flushed.") \
        is None
    assert stated_cause("I think the rows were never flushed before the write happened.") is None
    assert stated_cause("Was the cache stale when the export job wrote the file?") is None


def test_a_paragraph_saying_nothing_went_wrong_is_no_cause():
    assert stated_cause("This makes the export clearer to read for the next person.") is None


def test_lists_and_trailers_are_never_the_cause():
    body = "- the job never flushed rows, so data was lost\n- more\n\nCo-Authored-By: A <a@b>"
    assert stated_cause(body) is None


def test_a_long_cause_is_cut_to_whole_sentences_or_a_clause():
    first = "The page cache keyed each entry by `CACHE_VERSION` alone."
    second = ("That key never held the locale, so one language was served to all — "
              + "which " + "left the translated pages out of every deploy " * 8 + "since then.")
    cause = stated_cause(f"{first} {second}")
    assert cause == f"{first} That key never held the locale, so one language was served to " \
                    "all."
    assert len(cause) <= MAX_CAUSE_CHARS


def test_only_the_commits_own_message_is_read_not_another_command_of_the_chain():
    pr_body = "Fixes the page cache\n\nThe cache key never held the locale, so one was served."
    command = ('git commit -m "feat: add locales" && git push -u origin HEAD && '
               "gh pr create --title 'Locales' --body \"$(cat <<'EOF'\n"
               f"{pr_body}\nEOF\n)\"")
    assert commit_message(command) == "feat: add locales"
    tagged = 'git commit -m "fix: flush rows first" && git tag -a v2 -m "Release: rows lost before"'
    assert commit_message(tagged) == "fix: flush rows first"
    assert commit_message('git commit -a && git tag -a v2 -m "fix: flush rows first"') is None
    spaced = "git commit -q -m \"$(cat <<'EOF'\n" f"{MESSAGE}\nEOF\n)\" && git push"
    assert commit_message(spaced) == MESSAGE
    continued = 'git commit \\\n  -m "fix: flush rows first" \\\n  -m "The job never flushed."'
    assert commit_message(continued) == "fix: flush rows first\n\nThe job never flushed."


def test_a_message_after_bundled_short_flags_is_read():
    """``git commit -am "…"`` is ``-a -m "…"``; ``-nm`` is ``--no-verify -m``."""
    assert commit_message('git commit -am "fix: flush rows first"') == "fix: flush rows first"
    assert commit_message("git commit -nm 'fix: flush rows first'") == "fix: flush rows first"
    assert commit_message('git commit -a "fix: x"') is None
