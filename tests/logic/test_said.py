"""A typed sentence that states how a thing of the project is (logic/said.py)."""

from __future__ import annotations

from claimgraph.logic.said import grounded, is_rule, is_statement, names, subject_of


def test_a_settled_statement_about_a_named_thing_passes():
    for sentence in ("the loader only supports ${VAR} expansion",
                     "parse_row.py must never import the network client",
                     "[mapView.ts](src/mapView.ts) should have nothing to do with routing",
                     "OK, the staging bucket lives in eu-west-1",
                     "but cache.json is not jsonl so it can hold one summary"):
        assert is_statement(sentence), sentence


def test_questions_hedges_reports_and_reactions_do_not_pass():
    for sentence in ("is the loader only supporting ${VAR} expansion?",
                     "maybe the loader only supports ${VAR} expansion",
                     "I think the loader only supports ${VAR} expansion",
                     "the loader was only supporting ${VAR} expansion",
                     "the loader still only supports ${VAR} expansion",
                     "the current loader only supports ${VAR} expansion",
                     "the loader is broken on ${VAR} expansion",
                     "the loader is fine now",
                     "you keep breaking the loader config",
                     "it is only for ${VAR} expansion",
                     "Add a loader that supports ${VAR} expansion",
                     "4.4 After Filament Load is inserted here",
                     "✔ Synced 4 files, loader is up to date",
                     "The PR is https://example.org/pull/12"):
        assert not is_statement(sentence), sentence


def test_a_subject_is_short_and_has_no_clause_list_or_pronoun():
    assert not is_statement("Active handles, branches, and paths are listed in the file")
    assert not is_statement("The only thing it mustn't do is to follow the links")
    assert not is_statement("one two three four five six seven eight is the loader")
    assert subject_of("OK, the staging bucket lives in eu-west-1") == "the staging bucket"
    assert subject_of("nothing of a rule here") == ""


def test_names_are_code_shaped_or_plain_words_that_are_not_generic():
    shaped, plain = names("the `render_map` helper only supports playwright output")
    assert "render_map" in shaped
    assert "playwright" in plain and "output" not in plain and "helper" in plain


def test_grounded_only_when_the_session_names_the_same_thing():
    sentence = "deployment logic is in flop-core"
    assert grounded(sentence, "ls packages/flop-core/src", frozenset())
    assert not grounded(sentence, "ls packages/other/src", frozenset({"packages"}))
    plain = "playwright is what the suite runs on"
    assert grounded(plain, "", frozenset({"playwright"}))
    assert not grounded(plain, "playwright appears in a long file", frozenset())


def test_what_happens_now_is_no_standing_statement():
    for sentence in ("the uploader is retrying the batch without end",
                     "the poller does not stop after the job exits",
                     "But the status route is returning 2.1.0"):
        assert not is_statement(sentence), sentence
    assert is_statement("the poller does not depend on the scheduler")
    for sentence in ("the sidecar pods not exiting are the ones in the default namespace",
                     "so the cron jobs not firing are the hourly ones"):
        assert not is_statement(sentence), sentence  # named by what they fail to do: a bug
    assert is_statement("the totals are computed not including archived rows")
    for sentence in ("Windows is not something the `cli` supports",  # no verb: a rule
                     "the `api` package is not anything the workers import",
                     "files not matching `*.py` are skipped by the `lint` step"):
        assert is_statement(sentence), sentence
    assert is_statement("the uploader doesn't support multipart bodies")


def test_the_sessions_own_state_is_no_standing_statement():
    for sentence in ("Both api and web are at v2.3.1",
                     "the repository is stored at /srv/code/thing",
                     "The project is called Marmot",
                     "the indexer worker is in tmux session indexing"):
        assert not is_statement(sentence), sentence
    assert is_statement("the build image must be 11.2 for the kernel")
    assert is_statement("the credentials file is in ~/keys/marmot/token.txt")


def test_the_aim_of_the_work_is_no_standing_statement():
    for sentence in ("The plan is to split parse_row.py into two readers",
                     "the fix is to keep the old column around",
                     "The status of a run should be obvious at a glance"):
        assert not is_statement(sentence), sentence
    assert is_statement("The status column should never hold free text")


def test_brochure_prose_and_pointers_are_no_standing_statements():
    for sentence in ("The Ledgerly board is a key feature for finance teams",
                     "The Ledgerly board is the seamless way for finance teams to track spend",
                     "See how fixtures are built in ../sibling-repo",
                     "the cache layer is built like in ../sibling/cache.py"):
        assert not is_statement(sentence), sentence


def test_a_rule_is_told_from_a_finding():
    assert is_rule("parse_row.py must never import the network client")
    assert is_rule("the exporter only writes jsonl")
    assert not is_rule("cache.json is jsonl")
    assert not is_rule("the exporter writes one file per run")
