"""A sentence the sentence model is unsure of is kept when its own words say it lasts
(capture/extract/lasting.py, wired into statements)."""

from __future__ import annotations

import pytest

from claimgraph.capture.classify.model import Verdict, shipped
from claimgraph.capture.extract.lasting import lasting_verdict, phrased_as_lasting
from claimgraph.capture.extract.statements import CONVENTION

from .extract_helpers import ROOT, Session

#: Scored between the shipped model's phrase floor and its threshold (checked below), and
#: phrased as lasting: a standing rule the model alone does not keep.
BAND_RULE = "Respect the staging branch and never force push over teammates commits"
BAND_PROHIBITION = "Do not open pull requests against the release branch"


@pytest.mark.parametrize("sentence", [
    "Respect the staging branch and never force push over teammates commits",
    "never merge without a green build",
    "Use tabs, always",
    "Use `pnpm`, always",  # a code span is no quote
    "the dashboard should always show the build number",
    "run the seeds by default when the app starts",
    "from now on we want the changelog updated with every release",
    "Do not open pull requests against the release branch",
    "please don't touch the lockfile",
    "it's a case by case call, never assumed, never inferred",
])
def test_a_lasting_word_in_a_clause_that_directs_is_phrased_as_lasting(sentence):
    assert phrased_as_lasting(sentence)


@pytest.mark.parametrize("sentence", [
    "the sidebar never collapses on mobile and it flickers",  # a report, not a rule
    "the page never loads and it should show the list",  # the rule's clause says no "never"
    "I never got this error before",
    "always the same error when I run it",
    "should we always rebase before merging?",  # a question
    "not always, just sometimes you should",  # taken back
    "never mind, the old layout is fine",
    "find a way to make the version always visible in the header",  # a feature asked for
    "don't worry about the flaky test",  # relax, not a rule
    "I don't know why it fails",
])
def test_a_report_a_question_or_a_described_feature_is_not(sentence):
    assert not phrased_as_lasting(sentence)


def _verdict(score: float, label: str = "request", kept: bool = False) -> Verdict:
    rest = (1.0 - score) / 3
    probabilities = {"convention": score * 0.6, "decision": score * 0.3,
                     "preference": score * 0.1, "personal": 0.0,
                     "request": rest, "question": rest, "other": rest}
    return Verdict(label, score, kept, probabilities)


def test_only_an_unsure_verdict_above_the_floor_is_turned():
    rule = "never merge without a green build"
    turned = lasting_verdict(_verdict(0.55), rule, 0.4)
    assert turned is not None and turned.kept and turned.label == "convention"
    assert turned.score == 0.55  # the model's score stays what it was: shown by --explain
    assert lasting_verdict(_verdict(0.35), rule, 0.4) is None  # below the floor
    assert lasting_verdict(_verdict(0.55, "question"), rule, 0.4) is None
    assert lasting_verdict(_verdict(0.9, "convention", kept=True), rule, 0.4) is None
    assert lasting_verdict(_verdict(0.55), "merge the branch after the build", 0.4) is None


@pytest.mark.parametrize("sentence", [BAND_RULE, BAND_PROHIBITION])
def test_the_examples_sit_in_the_models_unsure_band(sentence):
    model = shipped()
    verdict = model.verdict(sentence)
    assert not verdict.kept and model.phrase_floor <= verdict.score < model.threshold


def _stored(prompt: str, reply: str = "Understood.") -> set[tuple[str, str]]:
    session = Session()
    session.prompt(prompt)
    session.event("assistant", text=reply)
    session.bash("git status", output="On branch main")
    return {(c["predicate"], c["object"]) for c in session.extract(ROOT)
            if c["rule"] == "statements"}


@pytest.mark.parametrize("sentence", [BAND_RULE, BAND_PROHIBITION])
def test_an_unsure_sentence_phrased_as_lasting_is_stored_as_a_convention(sentence):
    assert (CONVENTION, sentence) in _stored(sentence)


def test_an_unsure_report_with_a_lasting_word_is_not_stored():
    # the same band, "never" in it, but no clause that directs: the model's call stands
    sentence = "the sidebar never collapses on mobile and it flickers"
    model = shipped()
    verdict = model.verdict(sentence)
    assert not verdict.kept and model.phrase_floor <= verdict.score
    assert not any(obj == sentence for _, obj in _stored(sentence))


@pytest.mark.parametrize("sentence", [
    "Respect the staging branch and never force push over teammates commits until the demo "
    "is over",
    "For now respect the staging branch and never force push over teammates commits",
    "Do not open pull requests against the release branch until the freeze ends",
])
def test_a_lasting_rule_with_an_end_of_its_own_is_not_stored(sentence):
    # the for-today checks let "never" outweigh "for now" in a sentence the model keeps;
    # for one it is unsure of, an end the sentence gives itself decides
    model = shipped()
    verdict = model.verdict(sentence)
    assert not verdict.kept and model.phrase_floor <= verdict.score
    assert not phrased_as_lasting(sentence)
    assert not any(obj == sentence for _, obj in _stored(sentence))


def test_from_now_on_is_no_bound():
    assert phrased_as_lasting("from now on we want the changelog updated with every release")


@pytest.mark.parametrize("sentence", [
    "Don't ever do that again",  # what it forbids is in the messages around it
    "never push it to the shared branch",
    "Do not open another pull request against the release branch",  # one more than in hand
    "Respect the staging branch and never force push over teammates commits even",  # cut off
    "never force push over teammates commits unless",
    "always run the seeds by default when the",
    "The error says: never call this function from a signal handler",  # a tool's words
    "CLAUDE.md says: always run ruff before committing",
    "the docs say you should never force push over teammates commits",
    'the linter prints "never use bare except" on every file',
])
def test_an_order_pointing_back_or_a_sentence_cut_off_is_not_phrased_as_lasting(sentence):
    assert not phrased_as_lasting(sentence)


def test_an_unsure_sentence_cut_off_is_not_stored():
    sentence = "Respect the staging branch and never force push over teammates commits even"
    model = shipped()
    verdict = model.verdict(sentence)
    assert not verdict.kept and model.phrase_floor <= verdict.score
    assert not any(obj == sentence for _, obj in _stored(sentence))



def test_a_lasting_word_does_not_make_a_sentence_the_persons_across_projects():
    """Kept for its lasting word, a sentence takes its likeliest durable class; "personal"
    (user scope, told to every project) only as any personal sentence does: the person
    speaking of themselves ("always ask me before deleting files"), not a project's rule the
    model leans personal on."""
    from claimgraph.capture.extract.statements import _personal_checked
    leaning = Verdict("request", 0.5, False, {"convention": 0.2, "decision": 0.05,
                                              "preference": 0.0, "personal": 0.25,
                                              "request": 0.3, "question": 0.1, "other": 0.1})
    rule, mine = "never force push over teammates commits", "always ask me before deleting files"
    for sentence, label in ((rule, "convention"), (mine, "personal")):
        turned = lasting_verdict(leaning, sentence, 0.4)
        assert turned is not None and _personal_checked(turned, sentence).label == label
    model = shipped()
    assert model.phrase_floor <= model.verdict(mine).score < model.threshold
    session = Session()
    session.prompt(mine)
    session.event("assistant", text="Understood.")
    assert [(c["scope"], c["object"]) for c in session.extract(ROOT)
            if c["rule"] == "statements"] == [("user", mine)]
