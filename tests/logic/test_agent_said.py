"""A reviewer's guards on an agent's sentence before it is believed as standing (pure logic).

Every sentence here is invented for the test, in several wordings per guard; the second half
of each test is the precision side: sentences of a near shape that must pass the guard.
"""

from __future__ import annotations

import pytest

from claimgraph.logic.agent_said import (
    DESCRIBES_CODE, FRAGMENT, OFFERED, OWN_ACTIVITY, QUESTION, SPECULATIVE, describes_code,
    fragment, not_standing, offered, own_activity, question, speculative)


@pytest.mark.parametrize("sentence", [
    "The flaky upload test could be a race in the temp dir cleanup",
    "Switching the queue to Redis would remove the polling loop entirely",
    "Either the lockfile is stale or the registry mirror dropped the package",
    "The deploy fails on arm64, or the runner image hasn't been rebuilt since",
    "The migration is safe unless someone wrote rows with the old enum",
    "The build passes if the cache is warm",
    "Hopefully the retry wrapper covers the timeout case",
    "This should fix the intermittent 502s from the proxy",
    "Assuming the mirror is reachable, the install step is fine",
    "Whether the importer keeps comments depends on the parser version",
    "The fixture loads in order or not at all depending on the seed",
])
def test_a_guess_or_an_open_alternative_is_speculative(sentence):
    assert speculative(sentence)
    assert not_standing(sentence) in (SPECULATIVE, OFFERED)


@pytest.mark.parametrize("sentence", [
    # a condition on a directive is the rule's scope
    "If the schema changes, bump `SCHEMA_VERSION` in `db.py`",
    "Never push tags unless the release workflow is green",
    "When a fixture file changes, regenerate the snapshots with `make snap`",
    # a condition on the input is a specification, not a doubt
    "Falls back to the bundled defaults if the config file is missing",
    "If the value is within the allowed range, the cell is drawn opaque",
    "Exits 0 on success and 2 if any check reported an error",
    # nouns joined by "or" / "and/or", and a rule with what happens otherwise
    "The parser accepts either a path or a URL as its source",
    "Colours come from the palette and/or the per-theme overrides",
    "Pin the toolchain version, or the nightly build breaks",
    # a modal inside a relative clause says what the thing would do, not a doubt
    "No retry wrapper around the upload path that could hide partial writes",
    "`sync --dry-run` prints what would be uploaded, file by file",
    # a choice, whatever it says may follow
    "Old clients are deliberately unsupported: callers on the v1 token or a missing app id "
    "will be refused",
    # quoted or code text is someone else's words
    "Use `retry_if_failed` as the hook name for the upload stage",
])
def test_a_rule_under_a_condition_or_a_spec_is_not_a_guess(sentence):
    assert not speculative(sentence)


@pytest.mark.parametrize("sentence", [
    "Chose Redis over Postgres because polling would add a second of latency",
    "Use a write-ahead log instead of rewriting the file, since a crash could corrupt it",
    "Keep the parser pure: a clock inside it would make tests flaky",
    "Never retry a POST, as it could charge the card twice",
])
def test_a_modal_in_the_reason_for_a_rule_or_a_choice_is_its_rationale(sentence):
    """"because polling would add latency" says why the other way was refused: the rule or
    the choice before it is said as settled."""
    assert not speculative(sentence)
    assert not_standing(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The deploy fails on arm64 because the runner image could be stale",
    "Redis would be faster, since polling adds a second of latency",
    "Maybe use Redis: polling would add latency",
    "Update: the cache could be stale after a deploy",
    "Chosen approach for caching: Redis could work here",
])
def test_a_modal_in_a_reason_leaves_a_guess_a_guess(sentence):
    assert not_standing(sentence) == SPECULATIVE


@pytest.mark.parametrize("sentence", [
    "Should the config loader fall back to environment variables?",
    "Is the nightly job still needed after the move to tags?",
])
def test_a_question_is_not_a_decision(sentence):
    assert question(sentence)
    assert not_standing(sentence) == QUESTION


def test_a_question_mark_in_code_or_a_quotation_is_not_a_question():
    assert not question("Match optional groups with `(?:x)?` in the route table")
    assert not question('The banner reads "Ready?" before the first sync finishes')


@pytest.mark.parametrize("sentence", [
    "One option is to vendor the parser and drop the dependency",
    "Another approach: keep both readers behind a feature flag",
    "Alternatively, the exporter can stream rows instead of buffering them",
    "We could move the schema checks into a pre-commit hook",
    "Consider splitting the CLI module into subcommands",
    "A lighter cache layer is worth trying before adding Redis",
])
def test_one_of_several_proposals_is_offered_not_chosen(sentence):
    assert offered(sentence)
    assert not_standing(sentence) == OFFERED


@pytest.mark.parametrize("sentence", [
    "You can only deploy from the main branch",
    "We can never ship a release without a changelog entry",
    "You can no longer push to `main` directly",
])
def test_can_with_a_limit_after_it_is_a_rule_not_an_offer(sentence):
    """"you can only …", "we can never …": what is allowed, said as settled."""
    assert not offered(sentence)
    assert not_standing(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The dialog reads the buffer directly so you can preview before saving",
    "Options are read from `pyproject.toml` before the environment",
    "We cannot ship the old wire format to new clients",
])
def test_a_purpose_clause_or_a_word_like_option_is_no_proposal(sentence):
    assert not offered(sentence)


@pytest.mark.parametrize("sentence", [
    "Let me check whether the lockfile pins the right version",
    "I'll now rerun the integration suite with the fixed seed",
    "Next, I will wire the new flag into the release script",
    "Moving on to the documentation for the export command",
    "Now I'm going through the remaining handlers one by one",
    "Going to rebuild the wheel and retry the upload",
])
def test_the_agents_own_activity_is_its_turn_not_the_project(sentence):
    assert own_activity(sentence)
    assert not_standing(sentence) in (OWN_ACTIVITY, QUESTION)


@pytest.mark.parametrize("sentence", [
    "Letters in ids are lowercased before lookup",
    "Next steps are tracked in the issue tracker, never in code comments",
])
def test_a_rule_that_starts_like_a_step_is_not_the_agents_activity(sentence):
    assert not own_activity(sentence)


@pytest.mark.parametrize("sentence", [
    "Retry budget and",
    "Cache invalidation via",
    "Caches every lookup for the",
    "Database Migration Strategy Overview",
    "| `--strict` | fails on unknown keys |",
    "Supported runtimes: Node 20, Bun, Deno",
    "Checked formats: CSV, JSON, Parquet and Avro",
    "Keep the `run_id column",
    "Store ids as UUIDs (not integers",
    "Two words",
    "Widen the column to…",
])
def test_a_fragment_is_no_claim(sentence):
    assert fragment(sentence)
    assert not_standing(sentence) == FRAGMENT


@pytest.mark.parametrize("sentence", [
    "No `make docs` target",
    "Releases use `just`",
    "Store timestamps as UTC milliseconds, never as local time",
    "Use `httpx` rather than `requests` for the API client",
    "Exports: keep column order stable, since downstream scripts index by position",
    "Lints tracked sources only: `src/`, `tests/`, `tools/`",
    "Config files are read as TOML or JSON, chosen by extension",
])
def test_a_short_whole_stance_is_no_fragment(sentence):
    assert not fragment(sentence)
    assert not_standing(sentence) is None


@pytest.mark.parametrize("sentence", [
    "所有依赖统一用pnpm安装，不要用npm。",
    "依存関係はすべてpnpmで入れる。",
    "数据库迁移必须先在预发布环境运行",
])
def test_a_whole_sentence_in_a_script_without_spaces_is_no_fragment(sentence):
    """Chinese and Japanese put no space between words: a whole sentence there is one
    "word" to ``str.split``, and the English verb list never finds its verb."""
    assert not fragment(sentence)
    assert not_standing(sentence) is None


@pytest.mark.parametrize("sentence", ["缓存层", "数据库迁移", "キャッシュ"])
def test_a_scrap_in_a_script_without_spaces_is_still_a_fragment(sentence):
    assert fragment(sentence)


@pytest.mark.parametrize("sentence", [
    "`load_settings()` reads the config file twice on startup",
    "Currently the handler retries three times before giving up",
    "The `sync_worker` function iterates over every tenant on each tick",
    "At the moment the exporter writes one file per table",
])
def test_what_the_code_does_today_is_no_decision(sentence):
    assert describes_code(sentence)
    assert not_standing(sentence) == DESCRIBES_CODE


@pytest.mark.parametrize("sentence", [
    "`load_settings()` reads the file once instead of per request",
    "`parse_row()` must return a typed error, never raise",
    "The `orders` table is append-only by design",
    "Timestamps are stored as UTC milliseconds in every table",
])
def test_a_description_with_a_choice_or_a_rule_in_it_decides(sentence):
    assert not describes_code(sentence)


def test_a_files_role_is_judged_on_its_mood_and_wholeness_only():
    """A role is a description by nature, said without its file: what it does today is the
    point, and three words make one."""
    assert not_standing("parses the lockfile", role=True) is None
    assert not_standing("reads the config twice on startup", role=True) is None
    assert not_standing("probably wraps the old client", role=True) is None  # claim_mood's
    assert not_standing("could wrap the legacy client", role=True) == SPECULATIVE
    assert not_standing("does it wrap the client?", role=True) == QUESTION
    assert not_standing("wraps the", role=True) == FRAGMENT


@pytest.mark.parametrize("sentence", [
    "Callers are expected to close the handle after each batch",
    "Plugins are expected to register their hooks at import time",
])
def test_a_duty_said_as_expected_is_no_guess(sentence):
    """"expected to" + a duty is what someone must do; only an expected outcome guesses."""
    assert not speculative(sentence)
    assert not_standing(sentence) is None


@pytest.mark.parametrize("sentence", [
    "The new index is expected to fix the slow search page",
    "The upgrade is expected to work on the older runners too",
])
def test_an_expected_outcome_is_still_a_guess(sentence):
    assert speculative(sentence)


@pytest.mark.parametrize("sentence", [
    "Releases always run 1) lint 2) the unit suite 3) the smoke test",
    "The deploy script runs in order: a) migrate b) restart the workers",
])
def test_list_markers_in_a_sentence_are_not_unbalanced_brackets(sentence):
    assert not fragment(sentence)


def test_a_paren_left_open_is_still_a_fragment_with_a_marker_beside_it():
    assert fragment("Run 1) lint then (the unit suite")


@pytest.mark.parametrize("sentence", [
    "Going to production requires a signed release tag",
    "Going to the staging cluster needs the VPN profile loaded",
])
def test_a_rule_whose_subject_is_going_to_somewhere_is_not_the_agents_turn(sentence):
    assert not own_activity(sentence)
    assert not_standing(sentence) is None
