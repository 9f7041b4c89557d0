"""A sentence the sentence model is unsure of, kept because its own words say it lasts.

The model reads a sentence alone and scores many of the person's conversational rules in
the middle of its range ("respect the dirty checkout and never revert user changes" reads
half like a request for today). When it is unsure -- the probability that the sentence is
durable at least the model's phrase floor, below its threshold -- one more thing of the
sentence itself can settle it: the person said it holds beyond today (docs/capture.md,
"Phrased as lasting"). All of these must hold:

- a word of lasting time (``always``, ``never``, ``from now on``, ``by default``,
  ``whenever`` ...), not hedged ("not always", "almost never", "never mind");
- in a clause that directs: one that opens with "always" or "never" and a verb ("never
  revert user changes"), or holds a modal or a wish ("it should always …", "we want … by
  default"), or opens with a verb in its base form and says when it holds ("run the seeds by
  default", "from now on"): an imperative whose "always" only describes the thing it asks
  for ("make the URL always visible") asks for a feature, today;
- or the sentence opens by forbidding something ("Do not implement features in the main
  checkout"): an order not to do a thing holds until it is lifted, as "never" does;
- not a question, and not a question by the model's reading either;
- the person's own order: no one else's words reported or quoted ("the docs say never …");
- whole and standing alone: not cut off ("… even if" with nothing after), and not an order
  whose object points back at the conversation ("don't ever do that again", "never push
  it", "do not open another pull request");
- no end of its own: not tied to now or the task in hand ("for now", "today", "yet", "for
  this PR", "later") nor given an end ("until the freeze ends", "while the demo runs"). The
  for-today checks let "never" outweigh such words in a sentence the model keeps; for a
  sentence it is unsure of, they decide.

The checks of "Standing or for today" still apply afterwards (``statements._not_stored``),
and what the person says later still decides (``reconcile``). Two other ways to settle the
middle band were measured and left out (docs/capture.md): that the session's later work uses
what the sentence names (requests are followed by work just as much: it admitted requests),
and that the sentence answers the agent's question (a "?" anywhere near the end of the
agent's message is most replies; narrowed to a choice the reply names, it admitted almost
nothing).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from claimgraph.capture.extract.standing import bounded_in_time
from claimgraph.logic.lazy_regex import lazy_regex

#: Why a sentence was kept this way (``capture --explain``).
VIA = "phrased as lasting (a word of lasting time in a clause that directs)"
DURABLE = ("convention", "decision", "preference", "personal")
#: Words that say the sentence holds beyond today.
_LASTS = lazy_regex(
    r"\b(?:always|never|from now on|from here on(?: out)?|going forward|moving forward|"
    r"by default|whenever|every time|each time|as a rule|in (?:the )?future)\b",
    re.IGNORECASE)
#: A lasting word taken back: "not always", "almost never", "never mind", "if ever".
_HEDGED = lazy_regex(r"\b(?:not|almost|nearly|hardly|rarely)\s+(?:always|never|every time)\b|"
                     r"\bnever\s+mind\b|\bnever\s+(?:been|had|got|seen|heard|used|done|did|"
                     r"worked|happened)\b", re.IGNORECASE)
#: An end the sentence gives itself ("… until the freeze ends", "while the demo runs"): a
#: rule with an end is for the time being (``standing.bounded_in_time`` reads "for now",
#: "today", "for this PR").
_UNTIL = lazy_regex(r"\b(?:until|till|while|during|temporarily|for the time being|"
                    r"this (?:week|month|sprint|release|session))\b", re.IGNORECASE)
#: "From now on" holds "now" and says the opposite of a bound.
_FROM_NOW_ON = lazy_regex(r"\bfrom now on\b", re.IGNORECASE)
#: Where one clause ends and the next begins.
_CLAUSE = lazy_regex(r"\s*(?:[,;:]|\s[—–-]\s|\band\b|\bbut\b|\bso\b)\s*", re.IGNORECASE)
#: What makes a clause direct: a modal or a wish ("should", "must", "we want").
_DIRECTS = lazy_regex(
    r"\b(?:should|shall|must|needs? to|have to|has to|want|wants|would like|'d like|prefer|"
    r"make sure|ensure|let'?s|please)\b", re.IGNORECASE)
#: A clause that opens with the lasting word itself before a verb ("never revert …", not
#: "always the same error").
_NEVER_OR_ALWAYS_FIRST = lazy_regex(
    r"^\W*(?:(?:please|just|also|then)\s+)?(?:always|never)(?!\s+(?:the|a|an|same|this|that|"
    r"it|is|was)\b)", re.IGNORECASE)
#: The lasting words that say when a directive holds, not what the thing it asks for is.
_WHEN = lazy_regex(r"\b(?:from now on|from here on(?: out)?|going forward|moving forward|"
                   r"by default|whenever|every time|each time|as a rule|in (?:the )?future)\b",
                   re.IGNORECASE)
#: A sentence that opens by forbidding something ("Do not spawn workers without a task"): an
#: order not to do a thing has no end of its own, it holds as "never" does. Not the ways of
#: saying "no need" or "relax" ("don't worry about it", "don't bother"), nor "I don't know".
_PROHIBITS = lazy_regex(
    r"^\W*(?:(?:please|also|and|so|but|just|then)\s+)?(?:do not|don'?t|dont)\s+"
    r"(?!(?:worry|bother|mind|care|know|think|understand|see|get|forget|need|have)\b)[a-z]",
    re.IGNORECASE)
#: An order whose object is a word pointing back at the conversation ("don't ever do that
#: again", "never push it", "do not open another one"): what it forbids is only in the
#: messages around it, or tied to the thing in hand.
_POINTS_BACK = lazy_regex(
    r"^\W*(?:(?:please|also|and|so|but|just|then)\s+)?(?:do not|don'?t|dont|never|always)\s+"
    r"(?:ever\s+)?[a-z]+\s+(?:that|this|it|these|those|them|another)\b", re.IGNORECASE)
#: A sentence cut off: it ends on a word that needs more after it ("… even", "… if", "… the")
#: or a dangling mark; what it says is not all there.
_CUT_OFF = lazy_regex(
    r"(?:\b(?:and|or|but|if|even|unless|when|whenever|while|because|so|than|the|a|an|to|of|"
    r"with|for|by|in|on|at|from|that|which|as|into)|[,;:(/–—-]|\.\.\.|…)\s*$",
    re.IGNORECASE)
#: Someone else's words reported or quoted before the lasting word ("the docs say never …",
#: "CLAUDE.md says: always …", "the error reads: never call …"): what a file, a tool or
#: another person says is no order of the person's.
_REPORTS = lazy_regex(
    r"(?:\b(?:says?|said|states|according to)\b|\breads?:)[^.]*?\b(?:always|never|do not|"
    r"don'?t|from now on|by default)\b|[\"“][^\"”]*\b(?:always|never)\b[^\"”]*[\"”]",
    re.IGNORECASE)
#: A clause that opens with its verb in its base form.
_OPENS = lazy_regex(
    r"^\W*(?:(?:please|just|also|then)\s+)?(?:don'?t|do not|use|run|keep|"
    r"make|put|write|add|avoid|prefer|respect|find|treat|name|place|store|show|call|check|"
    r"follow|stick|ask|wait|leave|build|test|commit|push|merge|open|create|set|send|log|"
    r"default|start|stop|skip|mark|report)\b", re.IGNORECASE)


def phrased_as_lasting(sentence: str) -> bool:
    """The sentence says in its own words that it holds beyond today (module docstring)."""
    if "?" in sentence or _HEDGED.search(sentence) or _UNTIL.search(sentence) \
            or bounded_in_time(_FROM_NOW_ON.sub(" ", sentence)) \
            or _POINTS_BACK.match(sentence) or _CUT_OFF.search(sentence) \
            or _REPORTS.search(sentence):
        return False
    if _PROHIBITS.match(sentence):
        return True
    return any(_directs_lastingly(clause) for clause in _CLAUSE.split(sentence) if clause)


def _directs_lastingly(clause: str) -> bool:
    """The clause holds a word of lasting time and directs: it opens with "always"/"never"
    and a verb, or holds a modal or a wish, or opens with a verb and says when it holds ("run
    the seeds by default"). An imperative whose "always" only describes the thing it asks
    for ("make the URL always visible") asks for a feature, today."""
    if not _LASTS.search(clause):
        return False
    if _NEVER_OR_ALWAYS_FIRST.match(clause) or _DIRECTS.search(clause):
        return True
    return bool(_OPENS.match(clause)) and bool(_WHEN.search(clause))


def lasting_verdict(verdict: Any, sentence: str, floor: float) -> Any | None:
    """The verdict that keeps ``sentence`` (its likeliest durable class), or None: only a
    sentence the model did not keep, scored at least ``floor`` (the model's phrase floor),
    not read as a question, and phrased as lasting."""
    if verdict.kept or verdict.score < floor or verdict.label == "question":
        return None
    if not phrased_as_lasting(sentence):
        return None
    label = max(DURABLE, key=lambda name: (verdict.probabilities.get(name, 0.0), name))
    return dataclasses.replace(verdict, label=label, kept=True)
