"""A person's standing request that the same person later revised: only the last word counts.

A user asks "the export should zip its files by default", and several turns later says "no,
make zipping a separate command, export stays plain" or "let's not zip after all". Both were
typed by the user, both may be kept by the rules that read requests (statements, corrections,
briefs, picks); storing the first would tell the next session a withdrawn request is decided.

The earlier request gives way to a later sentence of the same person when

- the two are about the same subject: they share a named thing (a code span, an identifier,
  a command, option or file name) or most of the earlier request's content words; and
- the later sentence retracts it outright (``revision_cues.RETRACT``: "never mind", "let's
  not … after all"), or turns it around (``revision_cues.CHANGE``: "instead", "separate",
  "not … by default", or the negation flipped) AND is itself kept as a request on that
  subject: the new word replaces the old, so nothing the user decided is lost.

When unsure the earlier request stays; the later one is never dropped here.
Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.session import taught_at
from claimgraph.logic.query_words import STOPWORDS
from claimgraph.logic.revision_cues import CHANGE, RETRACT

Candidate = dict[str, Any]

#: Stances a person can revise (lessons and runners are about what happened, not asks).
STANCES = frozenset({"x/convention", "x/decided", "core/prefers", "core/decided-against"})
_CODE_SPAN = lazy_regex(r"`([^`\n]{2,80})`")
#: A named thing shaped like an identifier, a command option or a file name.
_NAMED = lazy_regex(r"(?<![\w@/.-])(?:--?[a-z][\w-]+|@?[A-Za-z][\w]*(?:[-_./][\w]+)+|"
                    r"[a-z]+[A-Z][A-Za-z]+)(?![\w/-])")
_WORD = lazy_regex(r"[A-Za-z][\w'-]{2,}")
_SENTENCE = lazy_regex(r"(?<=[.!?;])\s+|\n+")
_NEGATION = lazy_regex(r"\b(?:no|not|nothing|none|never|don'?t|do not|doesn'?t|shouldn'?t|"
                       r"won'?t|without|avoid|stop|skip)\b", re.IGNORECASE)
#: Content words an earlier request must share with the later sentence, at least, and the
#: share of its own content words they must make up, when no named thing is shared.
_MIN_SHARED_WORDS = 3
_MIN_SHARED_PART = 0.5
#: Content words a flipped sentence must share (a named thing alone is not enough).
_MIN_FLIP_WORDS = 3
#: The share of the earlier request's content words a same-polarity restatement repeats.
_RESTATED_PART = 0.8
#: Words too general to tie two requests to one subject.
_GENERAL = frozenset({"make", "use", "add", "want", "need", "should", "please", "let's", "lets",
                      "sure", "thing", "things", "way", "code", "file", "files", "default",
                      "instead", "rather", "separate", "actually", "keep", "stay", "stays",
                      "plain", "after", "all", "mind", "never", "always", "one", "new"})


def revised_away(kept: Sequence[Candidate], user_said: Iterable[tuple[int, str]]
                 ) -> list[Candidate]:
    """``kept`` without the user's stances their own later words revised (module docstring)."""
    said = [(at, sentences(text)) for at, text in user_said]
    requests = [(line, found) for found in kept
                for line in [taught_at(found)] if line is not None and is_request(found)]
    revised = {id(found) for line, found in requests
               if any(at > line and _revised_by(found, parts, _kept_at(at, found, requests))
                      for at, parts in said)}
    return [found for found in kept if id(found) not in revised]


def _revised_by(found: Candidate, parts: Sequence[str], later_kept: Sequence[Candidate]) -> bool:
    """One later message revises ``found``: a sentence of it does, and none says it again (a
    message that repeats the request among other points confirms it)."""
    earlier = str(found.get("stance") or found.get("object") or "")
    if any(restates(earlier, sentence) for sentence in parts):
        return False
    return any(revises(found, sentence, later_kept) for sentence in parts)


def is_request(found: Candidate) -> bool:
    """A stance in the user's own words (what a later word of theirs can revise)."""
    return found.get("source_type") == "user-assertion" and found.get("predicate") in STANCES


def revises(found: Candidate, sentence: str, later_kept: Sequence[Candidate]) -> bool:
    """``sentence`` (the person's, later) revises the request ``found``: same subject, and
    either an outright retraction, or a change of stance that a kept later request on the same
    subject carries."""
    earlier = str(found.get("stance") or found.get("object") or "")
    if sentence.rstrip().endswith("?") or not same_subject(earlier, sentence):
        return False  # a question asks, it does not revise
    if restates(earlier, sentence):
        return False
    if RETRACT.search(sentence) and not RETRACT.search(earlier):
        return True
    turned = bool(new_cues(earlier, sentence)) or (
        flipped(earlier, sentence) and _closely_tied(earlier, sentence))
    return turned and any(same_subject(earlier, str(other.get("object") or ""))
                          and str(other.get("object")) != earlier for other in later_kept)


def same_subject(earlier: str, later: str) -> bool:
    """Both name one thing, or the later shares most of the earlier's content words."""
    if named(earlier) & named(later):
        return True
    words = content_words(earlier)
    shared = words & content_words(later)
    return len(shared) >= _MIN_SHARED_WORDS and len(shared) >= _MIN_SHARED_PART * len(words)


def _closely_tied(earlier: str, later: str) -> bool:
    """A flipped negation alone is a weak sign (a list of points names one file in stances of
    every polarity): it counts only when the sentences share most of the earlier request's
    content words, not just a name."""
    words = content_words(earlier)
    shared = words & content_words(later)
    return len(shared) >= _MIN_FLIP_WORDS and len(shared) >= _MIN_SHARED_PART * len(words)


def restates(earlier: str, later: str) -> bool:
    """The later sentence says the earlier request again (pasted back, or in nearly the same
    words with the same polarity): a repetition confirms, it does not revise."""
    words, again = content_words(earlier), content_words(later)
    return bool(words) and not flipped(earlier, later) and \
        len(words & again) >= _RESTATED_PART * len(words)


def new_cues(earlier: str, later: str) -> set[str]:
    """The change cues of the later sentence that the earlier request does not hold itself
    ("separate bundles" asked for twice is no change)."""
    had = {cue.lower() for cue in CHANGE.findall(earlier)}
    return {cue.lower() for cue in CHANGE.findall(later)} - had


def flipped(earlier: str, later: str) -> bool:
    """One says no where the other says yes."""
    return bool(_NEGATION.search(earlier)) != bool(_NEGATION.search(later))


def named(text: str) -> set[str]:
    """The named things in ``text``, lower-cased: code spans and identifier-shaped words."""
    found = {span.strip().lower() for span in _CODE_SPAN.findall(text)}
    found |= {word.lower() for word in _NAMED.findall(text)}
    return {word for word in found if len(word) >= 3}


def content_words(text: str) -> set[str]:
    return {w for w in (word.lower() for word in _WORD.findall(text))
            if w not in STOPWORDS and w not in _GENERAL}


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part.strip()]


def _kept_at(at: int, found: Candidate, requests: Sequence[tuple[int, Candidate]]
             ) -> list[Candidate]:
    return [other for line, other in requests if line == at and other is not found]
