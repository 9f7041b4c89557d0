"""Whether a decision in the agent's summary is one somebody took (issue 22).

An agent's summary lists "Design decisions" or "Key decisions": often the agent describing
what it built ("An `effect` persists its state automatically", "No async APIs"), not a
decision anybody took. A decision is the user's: the user said it, or the agent proposed
it and the user accepted it in words. So a decision bullet of the agent's summary stands
only when

- one sentence the user typed says the same thing (``said_by_user``): it holds half of
  the bullet's content words or more (a code span's name counts as one word: the topic
  named alone, "build the `effect` store", says nothing of what was decided about it),
  and it does not turn the bullet around (one of the two negated, the other not: "I don't
  want monthly-rotating machine ids" is the user's "no" to the agent's "monthly-rotating
  machine ID", not their word for it); or
- the agent's message that holds it asked the user (a question at its end: a design put
  forward) and the user's next message accepts it in words ("yes", "sounds good, go
  ahead"): ``accepted``. A reply that goes on to something else, or only says "thanks",
  accepts nothing.

When unsure the bullet is not kept: the agent's note is trusted least, and a wrong
standing decision costs more than a missed one.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from claimgraph.capture.extract.corroborate import content_words
from claimgraph.logic.lazy_regex import lazy_regex

#: Share of the bullet's content words one user sentence must hold (when no name is shared).
MIN_SHARE = 0.5
MIN_WORDS = 2
_SENTENCE = lazy_regex(r"(?<=[.!?;])\s+|\n+")
_NEGATED = lazy_regex(r"\b(?:no|not|none|never|nothing|without|avoid|don'?t|doesn'?t|"
                      r"shouldn'?t|won'?t|can'?t|isn'?t|aren'?t|do not|does not|must not|"
                      r"should not|off the table)\b|n't\b", re.IGNORECASE)
#: A reply that takes up what was put to the user: its opening words say yes.
_YES = lazy_regex(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|agreed?|approved?|lgtm|sounds? good|looks? good|"
    r"perfect|great,? (?:go|let'?s|do)|go ahead|go for it|do it|let'?s do (?:it|that|this)|"
    r"let'?s go|proceed|ship it|makes sense|that works|works for me)\b", re.IGNORECASE)
#: ... unless the same reply turns it down or changes it ("yes, but not the cache").
_BUT = lazy_regex(r"\b(?:but|however|except|instead|rather|change|don'?t|do not|no)\b",
                  re.IGNORECASE)
#: The agent's message puts something to the user: a question in its last lines.
_ASKS = lazy_regex(r"\?\s*(?:\*\*)?\s*$", re.MULTILINE)
_LAST_LINES = 6


#: Words are compared by their first letters ("derive", "derived", "derives").
_STEM = 5


def _stem(word: str) -> str:
    return word.removesuffix("s")[:_STEM]


def _words(text: str) -> set[str]:
    return {_stem(word) for word in content_words(text)}


def _sentences(texts: Iterable[str]) -> Iterable[str]:
    for text in texts:
        yield from (part for part in _SENTENCE.split(text) if part.strip())


def said_by_user(bullet: str, user_texts: Iterable[str]) -> bool:
    """One sentence the user typed says what the bullet says (module docstring)."""
    words = _words(bullet)
    need = max(MIN_WORDS, round(len(words) * MIN_SHARE))
    negated = bool(_NEGATED.search(bullet))
    for sentence in _sentences(user_texts):
        shares = len(words) >= MIN_WORDS and len(words & _words(sentence)) >= need
        if shares and bool(_NEGATED.search(sentence)) == negated:
            return True
    return False


def accepted(message: str, reply: str | None) -> bool:
    """The agent's message asked the user, and the user's next message says yes to it."""
    if reply is None:
        return False
    tail = "\n".join(message.rstrip().splitlines()[-_LAST_LINES:])
    if not _ASKS.search(tail):
        return False
    opening = _SENTENCE.split(reply.strip(), maxsplit=1)[0]
    return bool(_YES.match(opening)) and not _BUT.search(reply)


def agreed(bullet: str, message: str, line: int,
           prompts: Sequence[tuple[int, str]]) -> bool:
    """A decision in the agent's message at ``line`` is one the user took: they said it
    (any time in the session), or accepted the message that put it forward."""
    if said_by_user(bullet, (text for _, text in prompts)):
        return True
    reply = next((text for at, text in prompts if at > line), None)
    return accepted(message, reply)
