"""A sentence that names a file the next turn deleted asked for today's change."""

from __future__ import annotations

import pytest

from claimgraph.logic.carried_out import names_a_removed_file


@pytest.mark.parametrize("sentence", [
    "we can drop notes.md and the related pre-push hook",
    "Remove `docs/old-guide.md`, nobody reads it",
    "the legacy script build.sh should go away.",
])
def test_a_sentence_naming_a_file_the_turn_deleted_was_the_request(sentence):
    assert names_a_removed_file(sentence, {"notes.md", "old-guide.md", "build.sh"})


@pytest.mark.parametrize(("sentence", "removed"), [
    ("we can drop notes.md and the related pre-push hook", set()),
    ("keep notes.md as the single place for release notes", {"guide.md"}),
    ("version 1.2 is the one we support", {"1.2"}),
    ("drop the notes file", {"notes.md"}),
])
def test_a_sentence_naming_no_deleted_file_is_left_to_the_other_checks(sentence, removed):
    assert not names_a_removed_file(sentence, removed)
