"""Which later stance plausibly replaces an earlier one from another session (docs/curator.md).

Capture reconciles what one session said with its own later words; across sessions nothing did,
so a decision a later session replaced stood beside its replacement. This finds such pairs among
free-text stances (decided, convention, prefers) of one scope: the newer one is not the agent's
own note, it says it replaces something ("instead of", "rather than", "no longer", "from now
on", "switch to", "replace … with"), and the two are about one thing -- either they share
specific words of their topic (after light stemming: at least two, and at least two thirds of
the shorter one's), or the newer one turns the older one's "no" around: the older says not to
put a thing in ("never show the email addresses") and the newer puts the same thing in
("show the owner's address"), the thing named by the head noun of the verb's object
("addresses" / "address").
Opposite polarity alone is not taken as a replacement: negations in passing are too common.

Precision first: a pair found here is only linked as an open conflict for a person to settle;
nothing is ever invalidated on this evidence. Pure: facts in, pairs out.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any, Iterable, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.retrieval import fact_valid_at

Fact = Mapping[str, Any]
REPLACED = "replaced-later"
#: Stances stated in free text: the only ones whose words say what they are about.
TEXT_STANCES = frozenset({"x/decided", "x/convention", "core/prefers"})
#: Words that say the statement replaces something said before.
CUE = lazy_regex(
    r"\b(?:instead\s+of|instead|rather\s+than|no\s+longer|not\s+any\s*more|anymore|"
    r"from\s+now\s+on|switch(?:ed|ing)?\s+(?:back\s+)?to|replace\b[^.;]*?\bwith|"
    r"stop\s+(?:using|adding|writing))\b", re.IGNORECASE)
WORD = lazy_regex(r"[a-z][a-z0-9_]*")
#: A link's host and path words say where, not what: "github", "com", "pull" are no topic.
URL = lazy_regex(r"\b[a-z][a-z0-9+.-]*://\S+")
#: Function words, the cue's own words, and verbs and nouns too general to name a topic.
GENERIC = frozenset("""
a an the and or but if then else of in on at to for from by with without within into onto
over under as is are be been being was were it its this that these those there here we you
i me my our your they them their he she his her so too also just only still even more most
less very all any some each every both either neither other such same than when while where
which who whom what why how not no never don dont doesn doesnt shouldn shouldnt won wont
do does did done can could should would will shall may might must let lets please
use used using uses make made making makes add added adding adds get got put set keep want
need needs like go going try change changed way thing things one two new old now later
instead rather longer anymore replace replaced replaces replacing switch switched stop
always avoid drop remove time case part kind sure able available
update updated updates updating create created look check work write writes writing written
""".split())
MIN_WORD = 3
#: Topic words two statements must share, at the least: one word is too thin a topic.
MIN_SHARED = 2
#: The share of the shorter statement's topic words the two must have in common (2 of 3).
MIN_COVERAGE = (2, 3)
#: Sources whose words never retire anyone's stance: the agent's own (docs/capture.md).
AGENT_SOURCES = frozenset({"agent-note", "inferred"})
#: Verbs that put a thing in (or leave it out, negated): "add the names", "use the names",
#: "show the names" say the same thing of the names.
_PUT = r"(?:add|use|include|show|display|put|keep|render|print|mention|have|write)"
_NEGATED_PUT = lazy_regex(r"\b(?:do\s+not|don'?t|never|avoid|no\s+need\s+to|stop)\s+"
                          r"(?:(?:ever|also|even)\s+)?(?:" + _PUT + r")(?:ing)?\s+"
                          r"(?P<what>[^,.;:!?()\[\]\"]+)", re.IGNORECASE)
_PLAIN_PUT = lazy_regex(r"\b" + _PUT + r"\s+(?P<what>[^,.;:!?()\[\]\"]+)", re.IGNORECASE)
_NEGATION_BEFORE = lazy_regex(r"\b(?:not|don'?t|never|avoid|no|stop|without)\s+(?:\w+\s+)?$",
                              re.IGNORECASE)
#: What the cue says was replaced ("instead of writing X", "rather than X"): not what stands.
_REPLACED_PART = lazy_regex(r"\b(?:instead\s+of|rather\s+than)\b[^,.;:]*", re.IGNORECASE)
#: Where a noun phrase ends: a preposition, a conjunction, a clause.
_PHRASE_END = frozenset("""of for to in on at with from by and or as instead rather than unless
when if that which so but because while where""".split())
_DETERMINERS = frozenset("a an the any all every each its their our your my this that these "
                         "those some no".split())


def stem(word: str) -> str:
    """Light stemming, so "names" meets "name" and "caching" meets "cached": one suffix off
    (-ies → -y, -ing, -ed, -s but not -ss), then a final "e"."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if (word.endswith(suffix) and not word.endswith("ss")
                and len(word) - len(suffix) >= MIN_WORD):
            word = word[: len(word) - len(suffix)] + keep
            break
    return word[:-1] if word.endswith("e") and len(word) > MIN_WORD else word


def topic_words(text: str) -> frozenset[str]:
    """The statement's specific words, stemmed: what it is about, not how it is said."""
    lowered = URL.sub(" ", text.lower()).replace("'s", "")
    return frozenset(stem(w) for w in WORD.findall(lowered)
                     if len(w) >= MIN_WORD and w not in GENERIC)


def has_cue(text: str) -> bool:
    return CUE.search(text) is not None


def replaces(newer_text: str, older_text: str) -> bool:
    """Whether ``newer_text``, said later, plausibly replaces ``older_text``.

    The two must be about one topic: they share at least two topic words, and those are at
    least two thirds of the shorter one's (``MIN_COVERAGE``), so a word or two of the
    project's common vocabulary ("agent", "test") does not make two statements about
    different things a pair. And the newer must say it replaces something (a cue the older
    lacks). Or, with the cue, the newer turns the older's "no" around on the same thing
    (``turns_around``): one shared word is enough when it is the head of what the older said
    not to put in and the newer puts in. Opposite polarity alone ("do not X" after "X") is
    not enough: negations are too common in passing ("not live", "no fallback") to retire
    anything by themselves. A question replaces nothing."""
    if newer_text.rstrip().endswith("?") or not has_cue(newer_text) or has_cue(older_text):
        return False
    newer, older = topic_words(newer_text), topic_words(older_text)
    shared = len(newer & older)
    part, whole = MIN_COVERAGE
    if shared >= MIN_SHARED and shared * whole >= part * min(len(newer), len(older)):
        return True
    return turns_around(newer_text, older_text)


def head_noun(phrase: str) -> str | None:
    """The stemmed head of a noun phrase: its last word before a preposition, a conjunction
    or a clause ("the email address of the owner" -> "address"); None when it is a generic
    word."""
    words: list[str] = []
    for word in WORD.findall(phrase.lower().replace("'s", "")):
        if word in _PHRASE_END:
            break
        if word not in _DETERMINERS:
            words.append(word)
    if not words or len(words[-1]) < MIN_WORD or words[-1] in GENERIC:
        return None
    return stem(words[-1])


def turns_around(newer_text: str, older_text: str) -> bool:
    """The older says not to put a thing in; the newer puts the same thing in (the head of
    the object one of the put-in verbs takes), outside what its cue says it replaced."""
    refused = {head for match in _NEGATED_PUT.finditer(older_text)
               for head in [head_noun(match["what"])] if head}
    if not refused:
        return False
    standing = _REPLACED_PART.sub(" ", newer_text)
    for match in _PLAIN_PUT.finditer(standing):
        if _NEGATION_BEFORE.search(standing[:match.start()]):
            continue
        if head_noun(match["what"]) in refused:
            return True
    return False


def _text(fact: Fact) -> str | None:
    if fact.get("predicate") not in TEXT_STANCES or fact.get("object_kind") == "entity":
        return None
    text = fact.get("object_lit")
    return text if isinstance(text, str) and text.strip() else None


def _when(fact: Fact) -> tuple[int, int, str]:
    return (fact.get("t_valid") or 0, fact.get("recorded_at") or 0, str(fact["id"]))


def _linked(a: Fact, b: Fact) -> bool:
    return b["id"] in (a.get("conflicts") or ()) or a["id"] in (b.get("conflicts") or ())


def replacement_pairs(facts: Iterable[Fact], at: int) -> Iterator[dict[str, Any]]:
    """``{"fact": newer, "candidate": older, "reason": REPLACED}`` for each pair of valid
    free-text stances of one scope, from different episodes (sessions), said at different
    times, not already linked, where the newer plausibly replaces the older."""
    by_scope: dict[Any, dict[str, Fact]] = {}
    for fact in facts:
        if _text(fact) is not None and fact_valid_at(fact, at) and fact.get("episode"):
            by_scope.setdefault(fact.get("scope"), {}).setdefault(fact["id"], fact)
    for group in by_scope.values():
        for a, b in combinations(sorted(group.values(), key=_when), 2):
            if (a.get("episode") == b.get("episode")
                    or (a.get("t_valid") or 0) == (b.get("t_valid") or 0) or _linked(a, b)):
                continue
            if b.get("source_type") in AGENT_SOURCES:
                continue
            if replaces(_text(b) or "", _text(a) or ""):
                yield {"fact": b, "candidate": a, "reason": REPLACED}
