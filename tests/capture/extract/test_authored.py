"""Text the person pasted from another author is not what the person said (extract/authored.py)."""

from __future__ import annotations

from claimgraph.capture.extract.authored import AgentText, own_words
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.statements import user_texts

from .extract_helpers import Session

USER_PREDICATES = ("x/convention", "x/decided", "core/prefers")
#: A rule a person might state, and a review finding might contain word for word.
RULE = "Never write the access token to the application log."

BOT_COMMENT = (
    "_Potential issue_ | _Major_\n\n"
    "**Do not log the token.**\n\n"
    f"The handler prints the request headers. {RULE}\n\n"
    "<details>\n<summary>Prompt for AI Agents</summary>\n\n"
    "In src/api/handler.py around line 40, remove the header dump.\n"
    "</details>")


def _stored(session: Session) -> list[str]:
    return [c["object"] for c in session.extract()
            if c["predicate"] in USER_PREDICATES and c["source_type"] == "user-assertion"]


def _texts(session: Session) -> list[str]:
    return [text for _, text in user_texts(SessionView.of(session.transcript(), None))]


def test_the_rule_typed_by_the_person_is_stored():
    # the control for the tests below: the same words, typed, are a convention the model keeps
    session = Session()
    session.prompt(RULE)
    assert any("access token" in text for text in _stored(session))


def test_a_review_bots_comment_pasted_after_a_lead_in_is_not_the_persons():
    session = Session()
    session.prompt("fix this:\n\n" + BOT_COMMENT)
    assert _texts(session) == ["fix this:"]
    assert not any("access token" in text for text in _stored(session))


def test_the_persons_short_question_after_a_pasted_comment_is_theirs():
    assert own_words(BOT_COMMENT + "\n\nis this valid?") == "is this valid?"


def test_a_comment_without_any_lead_in_is_pasted_from_its_start():
    assert own_words(f"Some context first.\n\n**coder[bot]** reviewed\n\n{RULE}") == ""


def test_a_short_comment_after_its_badge_is_the_comments():
    # a badge opens the comment and its text follows, however short: not the person's words
    text = f"look at this one:\n\n![P1 Badge](https://img.example/p1.svg) **Token**\n\n{RULE}"
    assert own_words(text) == "look at this one:"


def test_a_message_with_no_pasted_markup_is_left_as_it_is():
    text = f"Two things.\n\n{RULE}\n\nAlso keep the CHANGELOG up to date."
    assert own_words(text) == text


NOTE = ("The worker pool now starts one consumer per queue, so the two queues the scheduler "
        "still fills will never be read and every job sent to them will wait forever. Unless "
        "the queues are removed everywhere, these consumers need to stay enabled.")


def test_a_note_the_person_asks_about_is_not_theirs():
    text = f"Why would jobs go to those queues? I thought there was one shared queue:\n\n{NOTE}"
    assert own_words(text) == ("Why would jobs go to those queues? I thought there was one "
                               "shared queue:")
    session = Session()
    session.prompt(text)
    assert not any("consumers" in stored for stored in _stored(session))


def test_the_persons_own_points_after_a_question_are_theirs():
    # a list of points answering the agent is the person's, however the lead-in asks
    text = ("This will break the count, isn't it?\nAlso, on your points:\n\n"
            "1. Yes, we need to measure performance as well\n2. Keep the session counts exact")
    assert own_words(text) == text


def test_the_persons_own_rules_after_a_colon_are_theirs():
    text = f"Here is what I want:\n\n{RULE} Keep the retries at three for every client."
    assert own_words(text) == text


SCREEN = ("\u2714 Database ready\n\u280b Discovering files...\n"
          "    You should never sync files that are empty.\n\u2714 Found 600 files")


def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def test_a_programs_screen_is_pasted_but_the_prose_after_it_is_the_persons():
    text = ("this is what it prints now:\n\n" + SCREEN
            + "\nThe sync should skip empty files before it counts them.")
    assert _lines(own_words(text)) == ["this is what it prints now:",
                                       "The sync should skip empty files before it counts them."]


AGENT = ("Here is the plan. I recommend we **always** run the integration tests against a real "
         "database container before merging, because the mocks hid two bugs last week. Then "
         "we publish the image.")


def test_the_agents_text_pasted_back_rewrapped_is_the_agents():
    said = AgentText()
    said.add(AGENT)
    pasted = ("you wrote:\n  always run the integration tests against a real database\n"
              "container before merging, because the mocks hid two\n  bugs last week.\n"
              "I disagree, mocks are fine here.")
    assert own_words(pasted, said) == "you wrote:\nI disagree, mocks are fine here."


def test_a_line_merely_like_the_agents_text_is_the_persons():
    said = AgentText()
    said.add(AGENT)
    typed = ("you wrote about tests:\nrun the integration tests against a staging database\n"
             "before merging, every time.\nThat is the rule.")
    assert own_words(typed, said) == typed


def test_an_agent_message_pasted_back_in_a_session_is_not_stored():
    session = Session()
    session.prompt("How should we test the migrations?")
    session.event("assistant", text=AGENT)
    session.prompt("Quick question about this part:\n  I recommend we always run the integration "
                   "tests against a real\ndatabase container before merging, because the mocks "
                   "hid\n  two bugs last week.\nHow long does that take?")
    texts = _texts(session)
    assert texts[-1] == "Quick question about this part:\nHow long does that take?"
    assert not any("integration tests" in text for text in _stored(session))


def test_a_terminal_screen_pasted_into_a_line_of_the_persons_is_not_theirs():
    text = ("the plugin should convert the logs, why is that not working:\n"
            "\u25cf Let me check whether the raw session log was kept.\n"
            "\u25cf Read 1 file (ctrl+o to expand)\n"
            "  \u23bf  If you meant a release you should revert these changes first.")
    assert own_words(text) == "the plugin should convert the logs, why is that not working:"


def test_a_single_symbol_line_is_the_persons():
    text = "\u2705 tests pass now\nNever call the payment API from a unit test."
    assert own_words(text) == text


def test_rows_of_a_copied_table_are_not_the_persons():
    text = ("Stage\tDescription\nBefore print\tYou must always home the axes first.\n"
            "After print\tPark the head.\nSupport all of these stages in the format.")
    assert _lines(own_words(text)) == ["Support all of these stages in the format."]
    assert own_words("Key\tValue\nKeep the defaults.\nAnd more.") == \
        "Key\tValue\nKeep the defaults.\nAnd more."


def test_markup_inside_code_the_person_pasted_is_not_a_comment():
    text = ("Update this template:\n\n```html\n<!-- header -->\n<details>\n<h1>Hi</h1>\n"
            "</details>\n```\n\nAlways keep the header comment in every template we ship.")
    assert own_words(text) == text


def test_a_mail_pasted_after_a_lead_in_is_the_senders():
    text = ("the client answered:\n\nOn Mon, Ann Lee <ann@example.org> wrote:\n"
            f"{RULE}\nWe also need the export by Friday.")
    assert own_words(text) == "the client answered:"
    assert own_words("Mail ann@example.org about it.\n" + RULE) == \
        "Mail ann@example.org about it.\n" + RULE


def test_the_agent_texts_filter_answers_as_a_full_search_does():
    """``AgentText.holds`` asks a filter of the text's pieces before searching: it must say
    exactly what ``in`` says, at every offset a piece can fall on, for texts there and texts
    that differ by one character, across messages added at several times."""
    import random

    chooser = random.Random(29)
    words = ["run", "the", "tests", "before", "you", "commit", "uv", "pytest", "-q", "src/app.py",
             "always", "never", "merge", "main", "é", "日本", "config"]
    agent = AgentText()
    for _ in range(6):
        for _ in range(40):
            agent.add(" ".join(chooser.choice(words) for _ in range(chooser.randint(3, 30))))
        said = agent.flat().data.decode("utf-8", "surrogatepass")  # held as UTF-8
        for _ in range(400):
            start = chooser.randrange(len(said))
            key = said[start:start + chooser.randint(1, 80)]
            assert agent.holds(key) == (key in said) is True
            changed = key[:-1] + ("x" if key[-1:] != "x" else "y")
            assert agent.holds(changed) == (changed in said)
            made_up = " ".join(chooser.choice(words) for _ in range(chooser.randint(2, 12)))
            assert agent.holds(made_up) == (made_up in said)
