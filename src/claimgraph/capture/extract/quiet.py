"""Noise out: candidates that are true but not worth a line of the next session's context.

Run once over a capture's merged candidates, before ``reconcile``. Each test is a class of
noise a reviewer drops whatever the session, not a phrase:

- a file's role that only says what the file holds or what a turn did to it ("verifies layer
  heights and speeds", "updates the key-entity definitions") is one glance at the file; a
  role is kept when it says why -- a reason or a warning the file's text does not give ("…,
  so it isn't re-proposed") (``role_says_why``). What a function does is another matter:
  ``summaries`` keeps it only for a name the person or a lesson named, which is the reason;
- a decision or convention that starts with a joining word ("and "Linked" should appear as
  …", "instead of first counting sessions …") is a clause cut out of a longer sentence: what
  it joins to is missing, so it is no instruction on its own (``is_fragment``);
- a convention another convention of the same capture already says, in more words (a style
  guide's "Indentation: Use tabs for indentation" beside the other instruction file's "follow
  the existing code style: tabs for indentation, semicolons, …") is the same rule twice: the
  shorter is left out when nearly all its words are in the longer one (``restates``). A
  negation is one of those words, so "never X" is not taken for "always X".
"""

from __future__ import annotations

import re
from typing import Any

from claimgraph.logic.lazy_regex import lazy_regex

ROLE, CONVENTION = "x/role", "x/convention"
#: Predicates whose object is an instruction a sentence must carry whole.
INSTRUCTIONS = frozenset({"x/decided", "x/convention"})
#: Words that give a reason or a warning: what a glance at a file does not show.
_WHY = lazy_regex(r"\b(?:so|because|since|why|otherwise|avoids?|to avoid|in order to|"
                  r"instead of|rather than|never|not|isn't|aren't|don't|doesn't|must|"
                  r"do not|does not)\b|n't\b", re.IGNORECASE)
#: A clause's joining word at the very start, in lower case: the sentence began before it.
#: ("so" and "for" are left out: a person's reply often starts with them, whole.)
_EXTENSION = lazy_regex(r"\.[A-Za-z0-9]{1,6}$")
_JOINED = lazy_regex(r"^(?:and|or|but|nor|instead of|rather than)\s")


#: Of a convention's words, the share another convention must hold for it to say it again.
RESTATED_SHARE = 0.75
#: A word is compared by its first letters ("indentation", "indent"; "quotes", "quoted").
_STEM = 5
_LABEL = lazy_regex(r"^\s*[A-Z][\w-]*(?: [\w-]+)?:\s+")
_TOKEN = lazy_regex(r"[a-z0-9][a-z0-9*./_-]*")
#: Words that carry no rule of their own; negations are not among them, on purpose.
_FILLER = frozenset({"a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "as",
                     "with", "by", "is", "are", "be", "it", "its", "this", "that", "use",
                     "using", "always", "e.g.", "e.g", "such", "like", "when", "where",
                     "should", "please", "any", "all", "each", "every"})


def quiet(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` without the noise classes this module names."""
    kept = [found for found in candidates if not noise(found)]
    rules = [(index, _words(str(found["object"]))) for index, found in enumerate(kept)
             if found.get("predicate") == CONVENTION]
    said_again = {index for index, words in rules
                  if any(restates(words, other) for at, other in rules if at != index)}
    return [found for index, found in enumerate(kept) if index not in said_again]


def restates(shorter: frozenset[str], longer: frozenset[str]) -> bool:
    """Whether a rule of ``longer``'s words says the rule of ``shorter``'s again: it has
    more words, and nearly all of ``shorter``'s (at least two) are among them."""
    if len(shorter) < 2 or len(longer) <= len(shorter):
        return False
    return len(shorter & longer) >= RESTATED_SHARE * len(shorter)


def _words(text: str) -> frozenset[str]:
    """A rule's words, by their stems, without its label ("Location: Write tests …")."""
    text = _LABEL.sub("", text)
    return frozenset(token.strip("./:-_")[:_STEM] for token in _TOKEN.findall(text.lower())
                     if token not in _FILLER and token.strip("./:-_"))


def noise(found: dict[str, Any]) -> bool:
    said = str(found.get("object") or "")
    if found.get("predicate") == ROLE:
        return is_file(str(found.get("subject") or "")) and not role_says_why(said)
    if found.get("predicate") in INSTRUCTIONS:
        return is_fragment(said)
    return False


def is_file(subject: str) -> bool:
    """A path (``src/cart.py``, ``web/Makefile``), not a function's name."""
    return "/" in subject or bool(_EXTENSION.search(subject))


def role_says_why(role: str) -> bool:
    """A role that gives a reason or a warning, not only what the file holds or does."""
    return bool(_WHY.search(role))


def is_fragment(text: str) -> bool:
    """A clause cut from a longer sentence: it opens with a joining word in lower case."""
    return bool(_JOINED.match(text.strip()))
