"""Standing or for today: a user's sentence tied to the work at hand is not stored as a rule."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.prose import split_run_on
from claimgraph.capture.extract.standing import (
    agent_report, not_one_rule, process_question, task_scoped)
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import Session, only


@pytest.mark.parametrize("sentence", [
    "We need to ship version 2.4.1 to the registry and tag it",
    "we don't need to keep the old config loader around",
    "Now switch the importer over to the streaming parser",
    "For now leave the cache disabled",
    "We were blocked on the vendor's approval, but the mirror works",
    "We are going to be rich",
    "I'm so happy",
    "you explained the caching layer really well",
    "and we could use a queue or a cron job to refresh the index",
    "also note in the README.md that the importer needs a running database",
    "in agents md mention the three style guides we follow",
    "also add to CONTRIBUTING.md that releases always go out on Mondays",
    "Add it to `CLAUDE.md` (under Conventions) and refresh the summary",
    "add the retry rule to `docs/ops.md`",
    "That's quite close, I don't think this design is workable then given the memory cap",
    "ok if it's to work around a slow build then that is a problem we should fix here",
    "and if that is always the case make it part of the setup notes in SETUP.md",
    "we have a bucket for this already so just upload them there",
    "just the changelog, not every page",
])
def test_a_sentence_tied_to_the_work_at_hand_is_for_today(sentence):
    assert task_scoped(sentence)


@pytest.mark.parametrize("sentence, why", [
    ("rename the flag to `--quick`", "an act done once for the task"),
    ("we should rename the workflow to release.yml since the token is set up there",
     "an act done once for the task"),
    ("ok let's bump the version and tag it", "an act done once for the task"),
    ("please fix the broken import in the loader", "an act done once for the task"),
    ("Change the page title to Reports", "an act done once for the task"),
    ("Move the date helpers into utils.py", "an act done once for the task"),
    ("add a regression test for the empty basket", "an act done once for the task"),
    ("do not create any new fixtures", "an act done once for the task"),
    ("I don't want to delete these files", "an act done once for the task"),
    ("make the card titles shorter", "an act done once for the task"),
    ("for all the pages we link to make the summaries longer and more detailed",
     "an act done once for the task"),  # the comparative after a scope, not at the head
    ("No, let's expand the exporter's checks and guidance", "a step of today's plan"),
    ("then let's make sure our cli and gui support the new fields", "a step of today's plan"),
    ("I'd love to see a first draft of the migration", "a request to the agent"),
    ("I'd like for you to double-check the cache keys", "a request to the agent"),
    ("We'll handle the archived projects in a different view later", "tied to now"),
    ("keep the logging verbose for this PR", "tied to now"),
    ("our latest release is v0.2.0", "a state that expires, not a rule"),
    ("if so we can use the remote and drop the alias", "leans on what was said before"),
    ("I just mean drop the note, keep the skill", "leans on what was said before"),
])
def test_an_instruction_for_the_task_in_hand_is_not_a_standing_rule(sentence, why):
    """Rename this, add a test for that, let's do X, later, for this PR: what the person asks
    of today's work is done once; the code then holds it (issue 22)."""
    assert task_scoped(sentence) == why


@pytest.mark.parametrize("sentence", [
    "Always rename files to kebab-case",       # a standing marker outranks the act
    "Add a test for every bug you fix",
    "Never fix a flaky test by adding a sleep",
    "Don't add comments that restate the code",
    "do not expose the region as a command-line flag since it can only have one value",
    "Let's use pnpm for every package",
    "Let's keep the singular folder name, like src",
    "let's make sure we're using US English everywhere",
    "I'd like our local tests to replicate production as closely as possible",
    "we should move away from mythology names in the app",
    "Python 3.10 or later is required",
    "If not available, use the initials in the avatar",
    "don't tell me what to do, do it yourself without asking",
    "yes, option b, but we also then widen this to cover the proxy settings as well",
    "no. you should run it in the second tmux window",
    # a comparative after a recurring occasion or a modal subject says what the project does
    "If a request fails, make the retry delay longer",
    "When the table has more than 50 rows, make the page size smaller",
    "Error messages should make the cause clearer",
])
def test_a_rule_that_looks_like_an_instruction_may_still_stand(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Always run the migrations before the tests",
    "We never need to support Python 2",  # a standing marker outranks "need"
    "The uploader must retry on a 503",
    "Create a standalone parser library (no runtime dependencies needed)",
    "Config values should be read from the environment, not from files",
    "From now on, commit with conventional commit subjects",
    "If we need to add a config flag, name it after the feature, not the ticket",
    "If a second tenant appears, we would split the schema per tenant",
    "I would prefer small pull requests over one large one",
    "Document every public function",
    "Always note breaking changes in the CHANGELOG.md",
    "Only the release job may publish packages",
    "we can drop the legacy importer and its cron entry",
])
def test_a_sentence_that_may_stand_is_left_to_the_model(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "I suppose we don't have any fixed rule for naming the builders",
    "Maybe we should always run the linter before committing",
    "perhaps we should just drop the plugin loader",
    "Probably the cache must be cleared on every deploy",
    "seems like the old importer is no longer needed",
    "I guess we never use tabs here",
    "Vielleicht sollten wir immer pnpm benutzen",
    # "may be" written as two words hedges as "maybe" does, "must" after it or not
    "may be the exporter must be the one place that writes files otherwise we lose track",
    "ok, maybe the cache must always be cleared on deploy",
    "hmm may be we should never retry the upload",
])
def test_a_sentence_that_opens_with_a_guess_is_not_a_rule(sentence):
    assert task_scoped(sentence) == "a guess, not a decision"


@pytest.mark.parametrize("sentence", [
    "Always run the linter, maybe twice if it is flaky",  # the doubt is not the sentence's
    "Use the maybe-monad helpers for optional values",
    "The seemingly dead importer must stay",
    "The export may be large, so it must always stream",  # "may be" as a verb, not a hedge
    "so the maybe-monad helpers must stay",
])
def test_a_guess_later_in_a_sentence_or_inside_a_word_leaves_it_to_the_rest(sentence):
    assert task_scoped(sentence) != "a guess, not a decision"


def test_a_question_about_how_to_go_on_is_about_the_task():
    assert process_question("This is a large change. How would you like to proceed?")
    assert process_question("Should I continue with the remaining files?")
    assert not process_question("Which database should we use?")


def test_a_durable_looking_sentence_for_today_is_read_but_not_stored():
    from claimgraph.capture.classify import tally

    session = Session()
    session.prompt("We need to publish release 3.2.0 to the package index today.")
    with tally.collecting() as heard:
        found = session.extract()
    assert [c for c in found if c["rule"] == "statements"] == []
    assert len(heard) == 1 and not heard[0]["kept"]


@pytest.mark.parametrize("sentence", [
    "Don't stop until every module is migrated, the suite passes and coverage is at 100%.",
    "Do not stop until all handlers are converted and you have full branch coverage",
    "Keep working until the integration tests pass and the linter is clean",
    "ok, keep going till the importer reads both formats",
    "Never give up until the parser handles all the fixtures",
    "please iterate until the benchmark runs under a second",
    "continue fixing the exporter until the golden files match",
    "Take no action until I have read the plan",
])
def test_a_directive_that_lasts_until_the_task_is_done_is_for_today(sentence):
    """Going on (or not stopping) until this task's goal is reached ends with the task: stored
    as a convention it would tell every later session to port modules that are long ported
    (issue 22). "every" and "all" there count the goal, not the occasions it holds on."""
    assert task_scoped(sentence) == "lasts until the task in hand is done"


@pytest.mark.parametrize("sentence", [
    "Always keep going until the whole suite is green before you hand back",
    "When a test fails, keep fixing until it passes rather than skipping it",
    "Whenever the build breaks, don't stop until you know why",
    "Don't merge until CI is green",            # a gate on an act of the workflow
    "Never push until the linters pass",
    "continue to support Python 3.9 until its end of life",
])
def test_a_persistence_rule_with_a_marker_a_condition_or_a_gate_may_stand(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "This bug must not come back",
    "the fix for this regression should go in the fixture, not the assertion",
    "Make sure this PR only touches the exporter",
    "Keep these changes out of the public API",
    "those two failures should be reported upstream, not patched here",
])
def test_a_directive_about_the_passing_things_of_the_work_is_for_today(sentence):
    """Pointed at by "this" or "these", a bug, a failure, a PR, a change of the work in hand
    lasts as long as the task: what is asked of it is for this task, and the words alone no
    longer say which it was."""
    assert task_scoped(sentence) == "about the passing things of the work in hand (this bug, " \
        "these changes)"


@pytest.mark.parametrize("sentence", [
    "Never edit these generated files by hand",        # a standing marker keeps it
    "I want these pages to stay short and skimmable",  # pages stay after the task
    "Keep the public signatures of these functions unchanged",
    "This project keeps its functions free of I/O",
    "Every public function needs a docstring",
    "Keep the parser's functions pure",
    "The public API must stay backwards compatible",
])
def test_a_rule_about_things_that_stay_named_or_all_is_left_to_the_model(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "For this PR, every new module needs a license header",
    "In this branch, keep each change behind the feature flag",
    "Until this task is done, every commit should stay small",
    "for the current ticket, always log the raw payload",
])
def test_the_task_named_as_the_scope_outranks_every_and_always(sentence):
    """"every" and "always" quantify within the task the sentence names as its scope."""
    assert task_scoped(sentence) == "tied to now"


@pytest.mark.parametrize("sentence", [
    "Write commit subjects in the imperative, and squash the fixups of this PR before merging",
    "Tag releases from main only, and keep the release notes for this PR short",
])
def test_a_clause_of_its_own_about_the_task_leaves_the_rule_it_follows(sentence):
    assert task_scoped(sentence) is None


def test_a_directive_until_the_task_is_done_is_read_but_not_stored():
    """The model reads "don't stop until …" as a convention (its words are a rule's); the form
    says it ends with the task, and the report shows why it was not stored."""
    from claimgraph.capture.classify import tally

    session = Session()
    session.prompt("Port the helpers to Go. Don't stop until every helper is ported, "
                   "the tests pass and coverage is at 100%.")
    with tally.collecting() as heard:
        found = session.extract()
    assert [c for c in found if c["rule"] == "statements"] == []
    bounded = [h for h in heard if "Don't stop" in h["sentence"]]
    assert len(bounded) == 1 and bounded[0]["class"] == "convention"
    assert not bounded[0]["kept"] and "until the task in hand is done" in bounded[0]["why"]


ASK = {"questions": [
    {"question": "The export is large. How would you like to proceed?", "header": "Workflow",
     "options": [{"label": "Split it up (Recommended)", "description": "Several commits"},
                 {"label": "One commit", "description": "All at once"}]},
    {"question": "Which format should exports use?", "header": "Format",
     "options": [{"label": "CSV", "description": "Plain"},
                 {"label": "Parquet", "description": "Columnar, through pyarrow.parquet"}]},
]}


def test_an_answer_about_how_to_go_on_is_a_choice_for_today():
    session = Session()
    session.tool("AskUserQuestion", ASK, output=(
        'User has answered your questions: "The export is large. How would you like to '
        'proceed?"="One commit", "Which format should exports use?"="Parquet". You can now '
        "continue with the user's answers in mind."))
    session.write("/home/dev/shop/export.py", "import pyarrow.parquet as pq\n")
    found = session.extract()
    assert {c["object"] for c in only(found, "x/decided")} == {
        'Format: Parquet — Columnar, through pyarrow.parquet '
        '(asked "Which format should exports use?")'}
    assert only(found, "core/decided-against") == []  # the turned-down "Split it up" too


def test_an_answer_typed_instead_of_an_option_is_the_users_own_words():
    typed = "Always write exports as Parquet files, never CSV"
    session = Session()
    session.tool("AskUserQuestion", ASK, output=(
        f'User has answered your questions: "Which format should exports use?"="{typed}". '
        "You can now continue with the user's answers in mind."))
    view = SessionView.of(session.transcript(), None)
    assert [text for _, text in user_texts(view)] == [typed]
    found = session.extract()
    assert not any(c["object"].startswith("Format:") for c in found)  # not an offered option
    assert all(c["rule"] == "statements" and c["source_type"] == "user-assertion"
               for c in found)


def test_several_offered_options_picked_together_are_not_typed():
    from claimgraph.capture.extract.asked import typed

    question = {"question": "Which checks?", "options": [
        {"label": "Lint (Recommended)"}, {"label": "Types"}, {"label": "Tests"}]}
    assert not typed("Lint (Recommended), Tests", question)
    assert not typed("Types", question)
    assert typed("Only the tests, the linter is too slow", question)


# --- a sentence that does not read as one rule ----------------------------------------------------

def test_a_speech_to_text_restart_does_not_read_as_one_rule():
    assert not_one_rule("Don't write code in the notes, but first with all the details inside, "
                        "all the details about the bugs, about the strategy we first build a "
                        "plan") == "repeats itself"


@pytest.mark.parametrize("sentence", [
    "Failed to load the profile: profile check failed: field 'colors' must be a list",
    "upload rejected: validation error: size must be below 10 MB",
])
def test_an_error_chained_through_its_callers_is_a_programs_check_not_a_rule(sentence):
    assert not_one_rule(sentence) == "an error message, not a rule"


def test_two_dictated_sentences_without_a_stop_are_split_where_the_second_starts():
    assert split_run_on("I care about clean release notes for every version If we need a flag "
                        "for it, name it notes_flag") == [
        "I care about clean release notes for every version",
        "If we need a flag for it, name it notes_flag"]
    assert split_run_on("Yes and also Our app should show every payment") == [
        "Yes and also", "Our app should show every payment"]
    # a name in the middle of a sentence is not a new sentence
    assert split_run_on("Always call the Stripe API from GitHub Actions") == [
        "Always call the Stripe API from GitHub Actions"]


@pytest.mark.parametrize("sentence", [
    "Show only the time, not the full date, unless the run takes more than a day, and even then "
    "only the day and time, not the full date",
    'Instead of writing "Owner" and "Guest", use the owner title and the guest title',
    "Always call the Stripe API through the GitHub Actions secrets",
    "use the vendor docs or reported issues as guidance do not make assumptions",
    "Imports: use absolute ones, see https://example.org/style",
    "Commit messages: one line, imperative",
    "oh, almost forgot this: Code standard: every new file needs a comment citing the ticket",
])
def test_a_plain_rule_reads_as_one(sentence):
    assert not_one_rule(sentence) is None


@pytest.mark.parametrize("text, why", [
    ("No config files touched by me", "the agent speaks of itself"),
    ("I'll keep the retry loop as is", "the agent speaks of itself"),
    ("Now running the integration tests against staging", "says what the agent is doing"),
    ("No source file was modified in the shared clone", "reports what happened"),
    ("The branch is still 3 commits behind `main`; it must rebase before review",
     "a state that holds for now"),
    ("If you cut tags, a CI check on the version would prevent drift", "addresses the person"),
    ("`docs/charter.md`: write down your team principles there", "addresses the person"),
])
def test_the_agents_report_of_its_turn_is_not_a_rule(text, why):
    assert agent_report(text) == why


@pytest.mark.parametrize("text", [
    "The cache key is now the commit hash `sha`; `ttl` must stay under an hour",
    "No backward compatibility for `.cache/results/`",
    "Used `Result<T, E>` instead of raising exceptions for `parse()`",
    "All public functions include doc comments with doctests",
    'Ends with an invitation ("tell us what you think") rather than a sales pitch',
])
def test_a_rule_in_the_agents_words_is_not_a_report(text):
    assert agent_report(text) is None


@pytest.mark.parametrize("sentence, why", [
    ("We should first sketch the data model before writing any handler",
     "a step of today's plan"),
    ("first let's list which pages link to the old domain", "a step of today's plan"),
    ("ok, but we will still rerun the smoke suite after all the migrations",
     "a step of today's plan"),
    ("we should also think about which endpoints keep the old auth",
     "a plan to deliberate, nothing decided"),
    ("let's look into how the importer handles empty rows",
     "a plan to deliberate, nothing decided"),
    ("The changelog draft, I want everything we talked about in it",
     "a want for what is being made now"),
    ("I'd like this page to cover the three install paths", "a want for what is being made now"),
    ("I am on a linux laptop", "a remark on the situation, no rule in it"),
    ("hmm I'm not getting any output from the worker", "a remark on the situation, no rule in it"),
])
def test_a_plan_a_want_for_the_deliverable_or_a_remark_is_for_today(sentence, why):
    assert task_scoped(sentence) == why


@pytest.mark.parametrize("sentence", [
    "Run the formatter first, then the linter",  # an order of steps with no plan subject
    "The first line of a commit message must be under 72 characters",
    "If the cache is cold, then we should warm it from the nightly dump",
    "We're going to publish the image to the public registry",
    "I want commit messages in the imperative mood",
    "I'm on call, so keep pages short",  # a rule rides on the remark
    "I'm in favour of small pull requests",
])
def test_an_order_a_condition_or_a_rule_with_a_remark_may_stand(sentence):
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "Run each service from its own compose file, and extend with more containers later",
    "Keep the importers in src/importers; we can add a streaming one later",
    "Name the migrations by date, and for now add the new ones by hand",
])
def test_a_later_cue_scopes_only_its_own_clause(sentence):
    """"… and extend with more containers later" puts off the extension, not the rule the
    sentence opens with."""
    assert task_scoped(sentence) is None


@pytest.mark.parametrize("sentence", [
    "For now keep the cache in memory, and add the disk tier later",
    "Use SQLite, and we'll switch to Postgres later",
    "Store the tokens in a file, at least for now",
    "Keep the flag off until later",
])
def test_a_later_cue_that_scopes_the_rule_itself_still_drops_it(sentence):
    assert task_scoped(sentence) is not None


@pytest.mark.parametrize("message, provisional", [
    ("We're building a quick prototype. Keep the UI functional.", True),
    ("Build a proof of concept first; keep the UI functional.", True),
    ("this is just a spike, keep the UI functional", True),
    ("Keep the UI functional; the prototype folder is old and can go.", False),
    ("Keep the UI functional.", False),
])
def test_a_message_that_calls_the_work_a_prototype_scopes_its_sentences(message, provisional):
    from claimgraph.capture.extract.standing import for_provisional_work
    assert bool(for_provisional_work("Keep the UI functional.", message)) is provisional
    assert for_provisional_work("Keep the UI functional in this project.", message) is None
