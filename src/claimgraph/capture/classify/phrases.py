"""The phrase lists that decided, before the sentence model, whether a sentence states a
convention, a decision or a preference -- by how it is built, never by what it is about.

They stay (docs/capture.md, "The sentence model"): as features of the model
(``phrase_hits``), and as ``classify`` for the rules that read text no model was trained on
(instruction files, the agent's summaries, the user's answers) and as the proposals the
model may veto in the statements rule. Pure: no I/O, imports nothing of capture.

- a **convention** (``x/convention``): "always …", "never …", "don't <durable verb> …",
  "… must …", "make sure …", "from now on …", "no <thing>", a bar for done ("don't stop
  until … 100% coverage");
- a **decision** (``x/decided``): "we will / we'll / we're going to …", "we decided …",
  "let's go with / use / keep …", "we can keep … while …", "I want to migrate …",
  "port / migrate … to …", "keep the X", "(no X needed)";
- a **preference** (``core/prefers``): "prefer …", "… instead of / rather than …", "we should
  use …", "I like …".

Questions, hedged guesses ("maybe …", "I think …") and what holds only for now are none.
"""

from __future__ import annotations

import re
from functools import lru_cache
from claimgraph.logic.lazy_regex import lazy_regex

CONVENTION, DECISION, PREFERS = "x/convention", "x/decided", "core/prefers"
_LEAD = lazy_regex(r"^(?:(?:please|also|and|but|so|ok|okay|btw|note|important|fyi|just|oh|"
                   r"alright|great|good|cool|thanks|yes|no,)\b[,:!]?\s*)+", re.IGNORECASE)
_QUESTION = lazy_regex(r"^(?:should|could|can|would|will|do(?!\s+not\b)|does|did|is|are|was|"
                       r"were|what|why|how|when|where|which|who|shall|may|have|has)\b",
                       re.IGNORECASE)
_HEDGE = lazy_regex(r"\b(?:maybe|perhaps|might|probably|possibly|wonder|whether|seems?|"
                    r"apparently)\b|\b(?:i think|i guess|i suspect|not sure)\b", re.IGNORECASE)
_TEMPORARY = lazy_regex(r"\b(?:for now|right now|this time|today|tonight|at the moment|"
                        r"in this (?:pr|task|session|commit))\b", re.IGNORECASE)
_DURABLE_VERBS = (
    r"use|add|import|install|commit|push|merge|mock|hard-?code|log|print|swallow|rely|depend|"
    r"vendor|pin|bypass|disable|suppress|force-push|expose|store|call|catch|ignore|edit|modify|"
    r"touch|delete|remove|change|skip|leak|return|raise|throw|write|run|rebase|amend|squash|"
    r"upgrade|bump|reformat|generate|introduce|block|deploy|release|publish|create|put|keep|"
    r"test|format|lint|document|type|annotate|name|prefix|check|validate|include|follow|"
    r"update|wrap|handle|sort|escape|sanitize|target|support|set|prefer|avoid|require|export")
_CONVENTION = lazy_regex(
    r"^(?:(?:we|i|you)\s+)?(?:always|never)\s+(?:" + _DURABLE_VERBS + r")\b|"
    r"^(?:(?:we|you)\s+)?(?:don't|dont|do not|must not|mustn't|should never)\s+(?:"
    + _DURABLE_VERBS + r")\b|"
    r"\b(?:must|should always|has to be|have to be)\b|^make sure\b|^ensure\b|"
    r"\bfrom now on\b|"
    r"^no\s+(?!idea|problem|worries|thanks|need|way|one|it\b|that\b|this\b)[\w@`'\"/-]+"
    r"(?:\s+[\w@`'\"/.-]+){0,7}\s*[.!]?$|"
    r"^(?:don't|do not) (?:stop|finish|end)\b.*\buntil\b.*(?:\d+\s*%|tests? pass|"
    r"no warnings|green|clean)", re.IGNORECASE)
_DECISION = lazy_regex(
    r"^(?:we|i)\s*(?:'ve|\s+have)?\s+decided\b|"
    r"\bwe(?:'ll|\s+will|\s+are\s+going\s+to|'re\s+going\s+to|\s+need\s+to|'ll\s+have\s+to|"
    r"\s+have\s+to)\s+(?!be\s+able|see|try|look|check|need)\w+|"
    r"^let's\s+(?:go\s+with|use|keep|stick\s+with|switch|move|migrate|adopt|drop|start\s+with|"
    r"stay\s+with|standardi[sz]e)\b|"
    r"^we\s+(?:can|could|should)\s+(?:keep|start\s+with|stick\s+with|stay\s+with|migrate|"
    r"switch|move|drop)\b|"
    r"^i\s+(?:want|'d\s+like|would\s+like)\s+(?:us\s+)?to\s+(?:migrate|move|switch|port|"
    r"rewrite|convert|replace|adopt|standardi[sz]e)\b|"
    r"^(?:port|migrate|rewrite|convert|switch|move)\s+(?:this|the|our|it|everything|all)\b.*"
    r"\b(?:to|from)\b|"
    r"\bkeep\s+(?:the|our|using)\s+\S+|\(no\s+[^()]+\s+needed\)|\binstead\b",
    re.IGNORECASE)
_PREFERENCE = lazy_regex(r"\bprefer(?:s|red)?\b|\brather than\b|\binstead of\b|"
                         r"^(?:we|you)\s+should\s+(?:use|go\s+with|pick|choose)\b|"
                         r"^i\s+(?:like|love)\s+\S+|^use\s+\S+.*\b(?:over|not)\b",
                         re.IGNORECASE)
_PERSONAL = lazy_regex(r"^i\s+(?:always|never|prefer|like|love|don't|do not|use)\b|"
                       r"\bmy\s+(?:preference|rule|convention)\b", re.IGNORECASE)
_MIN_WORDS = 3

#: Each pattern cut into its alternatives, each alternative with the words (``\w+`` runs of the
#: lowercased sentence) at least one of which every match of it contains. A pattern matches
#: when one of its alternatives does, and an alternative is searched only when the sentence has
#: one of its words: an unanchored "\bword" alternative costs a search at every position, and
#: those searches were most of what the sentence model spent on a sentence. A test checks the gates
#: never change a verdict (tests/capture/classify/test_shortcuts.py).
_WORD = lazy_regex(r"\w+")


def _alternatives(pattern: re.Pattern[str]) -> list[str]:
    """The top-level alternatives of ``pattern`` (``a|(b|c)|d`` -> a, (b|c), d)."""
    parts, current, depth, in_class, escaped = [], "", 0, False, False
    for char in pattern.pattern:
        if escaped or char == "\\":
            escaped = not escaped and char == "\\"
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return parts + [current]


def _gated(pattern: re.Pattern[str], needs: dict[int, str]) -> tuple[tuple[re.Pattern[str],
                                                                          frozenset[str]],
                                                                    ...]:
    parts = _alternatives(pattern)
    gated = tuple((re.compile(part, pattern.flags),
                   frozenset(needs[i].split()))
                  for i, part in enumerate(parts))
    assert len(needs) == len(parts), pattern.pattern
    return gated


_PATTERNS = tuple((name, _gated(pattern, needs)) for name, pattern, needs in (
    ("phrase_convention", _CONVENTION, {
        0: "always never", 1: "don dont do must mustn should", 2: "must should has have",
        3: "make", 4: "ensure", 5: "from", 6: "no", 7: "until"}),
    ("phrase_decision", _DECISION, {
        0: "decided", 1: "we", 2: "let", 3: "can could should",
        4: "migrate move switch port rewrite convert replace adopt standardise standardize",
        5: "port migrate rewrite convert switch move", 6: "keep", 7: "needed", 8: "instead"}),
    ("phrase_preference", _PREFERENCE, {
        0: "prefer prefers preferred", 1: "rather", 2: "instead", 3: "should", 4: "like love",
        5: "use"}),
    ("phrase_personal", _PERSONAL, {0: "i", 1: "my"}),
    ("phrase_hedge", _HEDGE, {0: "maybe perhaps might probably possibly wonder whether seem seems "
                                 "apparently", 1: "think guess suspect sure"})))


def _matches(text: str, words: frozenset[str], alternatives: tuple[tuple[re.Pattern[str],
                                                                          frozenset[str]],
                                                                    ...]) -> bool:
    return any(not words.isdisjoint(needs) and alternative.search(text)
               for alternative, needs in alternatives)


_TEMPORARY_NEEDS = frozenset("for right this today tonight at in".split())


def classify(sentence: str) -> str | None:
    """The predicate a sentence states (convention, decision, preference), or None."""
    return _read(sentence)[0]


def phrase_hits(sentence: str) -> list[str]:
    """Which of the phrase lists a sentence matches, each on its own (no gate, no order):
    features for the sentence model, which weighs them against everything else it sees."""
    return list(_read(sentence)[1])


@lru_cache(maxsize=512)
def _read(sentence: str) -> tuple[str | None, tuple[str, ...]]:
    """``classify`` and ``phrase_hits`` from one pass of the patterns: the sentence model reads
    the hits as features and then asks ``classify`` of the same sentence (kept: the last few
    hundred sentences), and the patterns are most of what a sentence costs it."""
    text = core(sentence)
    words = frozenset(_WORD.findall(text.lower()))
    hits = [name for name, alternatives in _PATTERNS if _matches(text, words, alternatives)]
    if text.endswith("?") or _QUESTION.match(text):
        hits.append("phrase_question")
    return _predicate(text, hits, words), tuple(hits)


def _predicate(text: str, hits: list[str], words: frozenset[str]) -> str | None:
    stated = next((predicate for predicate, name in (
        (CONVENTION, "phrase_convention"), (DECISION, "phrase_decision"),
        (PREFERS, "phrase_preference")) if name in hits), None)
    if stated is None or (len(text.split()) < _MIN_WORDS
                          and not text.lower().startswith("no ")):
        return None
    if "phrase_question" in hits or "phrase_hedge" in hits or (
            not words.isdisjoint(_TEMPORARY_NEEDS) and _TEMPORARY.search(text)):
        return None
    return stated


def core(sentence: str) -> str:
    """The sentence without its lead-in ("please", "ok,", "FYI")."""
    return _LEAD.sub("", sentence.strip()).strip()
