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

CONVENTION, DECISION, PREFERS = "x/convention", "x/decided", "core/prefers"
_LEAD = re.compile(r"^(?:(?:please|also|and|but|so|ok|okay|btw|note|important|fyi|just|oh|"
                   r"alright|great|good|cool|thanks|yes|no,)\b[,:!]?\s*)+", re.IGNORECASE)
_QUESTION = re.compile(r"^(?:should|could|can|would|will|do(?!\s+not\b)|does|did|is|are|was|"
                       r"were|what|why|how|when|where|which|who|shall|may|have|has)\b",
                       re.IGNORECASE)
_HEDGE = re.compile(r"\b(?:maybe|perhaps|might|probably|possibly|i think|i guess|i suspect|"
                    r"not sure|wonder|whether|seems?|apparently)\b", re.IGNORECASE)
_TEMPORARY = re.compile(r"\b(?:for now|right now|this time|today|tonight|at the moment|"
                        r"in this (?:pr|task|session|commit))\b", re.IGNORECASE)
_DURABLE_VERBS = (
    r"use|add|import|install|commit|push|merge|mock|hard-?code|log|print|swallow|rely|depend|"
    r"vendor|pin|bypass|disable|suppress|force-push|expose|store|call|catch|ignore|edit|modify|"
    r"touch|delete|remove|change|skip|leak|return|raise|throw|write|run|rebase|amend|squash|"
    r"upgrade|bump|reformat|generate|introduce|block|deploy|release|publish|create|put|keep|"
    r"test|format|lint|document|type|annotate|name|prefix|check|validate|include|follow|"
    r"update|wrap|handle|sort|escape|sanitize|target|support|set|prefer|avoid|require|export")
_CONVENTION = re.compile(
    r"^(?:(?:we|i|you)\s+)?(?:always|never)\s+(?:" + _DURABLE_VERBS + r")\b|"
    r"^(?:(?:we|you)\s+)?(?:don't|dont|do not|must not|mustn't|should never)\s+(?:"
    + _DURABLE_VERBS + r")\b|"
    r"\b(?:must|should always|has to be|have to be)\b|^make sure\b|^ensure\b|"
    r"\bfrom now on\b|"
    r"^no\s+(?!idea|problem|worries|thanks|need|way|one|it\b|that\b|this\b)[\w@`'\"/-]+"
    r"(?:\s+[\w@`'\"/.-]+){0,7}\s*[.!]?$|"
    r"^(?:don't|do not) (?:stop|finish|end)\b.*\buntil\b.*(?:\d+\s*%|tests? pass|"
    r"no warnings|green|clean)", re.IGNORECASE)
_DECISION = re.compile(
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
_PREFERENCE = re.compile(r"\bprefer(?:s|red)?\b|\brather than\b|\binstead of\b|"
                         r"^(?:we|you)\s+should\s+(?:use|go\s+with|pick|choose)\b|"
                         r"^i\s+(?:like|love)\s+\S+|^use\s+\S+.*\b(?:over|not)\b",
                         re.IGNORECASE)
_PERSONAL = re.compile(r"^i\s+(?:always|never|prefer|like|love|don't|do not|use)\b|"
                       r"\bmy\s+(?:preference|rule|convention)\b", re.IGNORECASE)
_MIN_WORDS = 3


def classify(sentence: str) -> str | None:
    """The predicate a sentence states (convention, decision, preference), or None."""
    text = core(sentence)
    if len(text.split()) < _MIN_WORDS and not text.lower().startswith("no "):
        return None
    if text.endswith("?") or _QUESTION.match(text) or _HEDGE.search(text) \
            or _TEMPORARY.search(text):
        return None
    for predicate, pattern in ((CONVENTION, _CONVENTION), (DECISION, _DECISION),
                               (PREFERS, _PREFERENCE)):
        if pattern.search(text):
            return predicate
    return None


def phrase_hits(sentence: str) -> list[str]:
    """Which of the phrase lists a sentence matches, each on its own (no gate, no order):
    features for the sentence model, which weighs them against everything else it sees."""
    text = core(sentence)
    hits = [name for name, pattern in (
        ("phrase_convention", _CONVENTION), ("phrase_decision", _DECISION),
        ("phrase_preference", _PREFERENCE), ("phrase_personal", _PERSONAL),
        ("phrase_hedge", _HEDGE)) if pattern.search(text)]
    if text.endswith("?") or _QUESTION.match(text):
        hits.append("phrase_question")
    return hits


def core(sentence: str) -> str:
    """The sentence without its lead-in ("please", "ok,", "FYI")."""
    return _LEAD.sub("", sentence.strip()).strip()
