"""A claim a tool's outcome proved wrong: the correction is the lesson, the claim is dropped."""

from __future__ import annotations

from claimgraph.capture.extract.refutations import correction

from .extract_helpers import ROOT, Session, only

CLAIM = ("Decisions:\n- Used the local config file instead of the shared one, so the local one "
         "overrides the shared one\n- Kept retries at 3\n- Must always read both files")


def _tested(after: str, *, prompt_between: bool = False) -> Session:
    session = Session()
    session.prompt("Which config file wins?")
    session.bash("python -m app.show_config",
                 output="retry=3 (shared) retry=5 (local) both applied")
    if prompt_between:
        session.prompt("Look again.")
    session.event("assistant", text=after)
    return session


def test_a_correction_right_after_a_tool_result_is_the_lesson():
    said = "I was wrong: both config files are applied, the local one does not override."
    found = only(_tested(said).extract(), "core/failure-mode")
    assert [c["object"] for c in found] == [
        "I was wrong: both config files are applied, the local one does not override"]
    assert found[0]["source_type"] == "failure-report"
    assert found[0]["evidence"][1].startswith("transcript#L3: ")  # the result that proved it


def test_no_lesson_from_a_hedge_a_plain_discovery_or_what_the_user_said_in_between():
    assert correction("My earlier assumption was wrong: it is probably the cache.") is None
    assert correction("It turns out the parser reads both files.") is None
    said = "My previous claim was incorrect. Both files are applied."
    assert only(_tested(said, prompt_between=True).extract(), "core/failure-mode") == []


def test_the_refuted_claim_of_the_agent_is_dropped():
    def session(correcting: bool) -> list[str]:
        made = Session()
        made.prompt("Which config file wins?")
        made.write(f"{ROOT}/docs/config.md", "The local config file overrides the shared one.")
        made.event("assistant", text=CLAIM)
        made.prompt("Check it.")
        made.bash("python -m app.show_config", output="both applied")
        if correcting:
            made.event("assistant", text="I was wrong: the local config file does not override "
                                         "the shared one; both retry settings are applied.")
        return [c["object"] for c in made.extract()]

    claim = "Used the local config file instead of the shared one, so the local one overrides"
    assert any(o.startswith(claim) for o in session(False))
    corrected = session(True)
    assert not any(o.startswith(claim) for o in corrected)
    assert any(o.startswith("I was wrong") for o in corrected)


def test_an_admission_with_nothing_true_instead_is_no_lesson():
    for said in ("I was wrong.", "The reviewer was right and I was wrong.",
                 "Two corrections to make, and I was wrong on one of them."):
        assert correction(said) is None, said
    assert correction("I was wrong about the cache: the timeout comes from nginx.") == (
        "I was wrong about the cache: the timeout comes from nginx")


def test_a_sentence_restating_the_claim_taken_back_is_no_lesson():
    said = ("**But I was wrong last turn.** I told you the release merged with a human "
            "co-author, implying majors get human review.")
    assert correction(said) is None
    found = only(_tested(said).extract(), "core/failure-mode")
    assert found == []
