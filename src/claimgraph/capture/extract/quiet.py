"""Noise out: candidates that are true but not worth a line of the next session's context.

Run once over a capture's merged candidates, before ``reconcile``. Each test is a class of
noise a reviewer drops whatever the session, not a phrase. Today there is one:

- a convention another convention of the same capture already says, in more words (a style
  guide's "Indentation: Use two spaces for indentation" beside the other instruction file's
  "keep to the house style: two spaces for indentation, trailing commas, …") is the same rule
  twice: the shorter is left out when nearly all its words are in the longer one
  (``restates``). A negation is one of those words, so "never X" is not taken for "always X".
  So is one whose first sentence the longer one says again when what follows it only
  describes (no rule word: "Prefer fixture-based tests for the parser. The fixtures live in
  `tests/data/`." beside a testing paragraph that prefers them too): the rest is where the
  rule's things are, which the rule itself does not need (``first_said_again``).
"""

from __future__ import annotations

import re
from typing import Any

from claimgraph.logic.lazy_regex import lazy_regex

CONVENTION = "x/convention"

#: Of a convention's words, the share another convention must hold for it to say it again.
RESTATED_SHARE = 0.75
#: A word is compared by its first letters ("indentation", "indent"; "quotes", "quoted").
_STEM = 5
_LABEL = lazy_regex(r"^\s*[A-Z][\w-]*(?: [\w-]+)?:\s+")
#: Where one sentence of a rule ends and the next begins.
_SENTENCE_END = lazy_regex(r"(?<=[.!?])\s+(?=[A-Z`*])")
#: Words that make a sentence a rule of its own rather than a description of where things are.
_RULE_WORD = lazy_regex(r"\b(?:must|never|always|should|shall|do not|don't|avoid|prefer|use|"
                        r"keep|run|make sure|ensure|required|only|instead)\b", re.IGNORECASE)
_TOKEN = lazy_regex(r"[a-z0-9][a-z0-9*./_-]*")
#: Words that carry no rule of their own; negations are not among them, on purpose.
_FILLER = frozenset({"a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "as",
                     "with", "by", "is", "are", "be", "it", "its", "this", "that", "use",
                     "using", "always", "e.g.", "e.g", "such", "like", "when", "where",
                     "should", "please", "any", "all", "each", "every"})


def quiet(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` without the noise classes this module names."""
    kept = list(candidates)
    rules = [(index, _words(str(found["object"]))) for index, found in enumerate(kept)
             if found.get("predicate") == CONVENTION]
    said_again = {index for index, words in rules
                  if any(restates(words, other) for at, other in rules if at != index)}
    for index, _ in rules:  # said again only beside a rule that stays: told once, not never
        first = first_said_again(str(kept[index]["object"]))
        if first is not None and any(restates(first, other) for at, other in rules
                                     if at != index and at not in said_again):
            said_again.add(index)
    return [found for index, found in enumerate(kept) if index not in said_again]


def restates(shorter: frozenset[str], longer: frozenset[str]) -> bool:
    """Whether a rule of ``longer``'s words says the rule of ``shorter``'s again: it has
    more words, and nearly all of ``shorter``'s (at least two) are among them."""
    if len(shorter) < 2 or len(longer) <= len(shorter):
        return False
    return len(shorter & longer) >= RESTATED_SHARE * len(shorter)


def first_said_again(text: str) -> frozenset[str] | None:
    """The words of a rule's first sentence when the sentences after it only describe (none
    has a rule word): the part another rule must say for this one to be said again. None
    for a rule of one sentence (``restates`` reads it whole) or one whose later sentences
    are rules too."""
    sentences = _SENTENCE_END.split(_LABEL.sub("", text).strip())
    if len(sentences) < 2 or any(_RULE_WORD.search(later) for later in sentences[1:]):
        return None
    return _words(sentences[0])


def _words(text: str) -> frozenset[str]:
    """A rule's words, by their stems, without its label ("Location: Write tests …")."""
    text = _LABEL.sub("", text)
    return frozenset(token.strip("./:-_")[:_STEM] for token in _TOKEN.findall(text.lower())
                     if token not in _FILLER and token.strip("./:-_"))
