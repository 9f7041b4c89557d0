"""What the user said: standing rules, preferences and decisions, each kept as the whole sentence.

Only words a person typed are read (``Event.is_human_prompt``, plus the arguments typed after a
slash command); never assistant text, harness-injected text or a subagent's prompt (the parent
agent's words). A sentence is kept whole, as a prose literal, because its qualifiers are the
knowledge: "keep the Justfile - update it to run Rust tests instead" loses its point as
"prefers Justfile".

Three kinds, told apart by how the sentence is built, never by what it is about:

- a **convention** (``x/convention``, a commitment): a rule for how work is done -- "always …",
  "never …", "don't <durable verb> …", "… must …", "make sure …", "from now on …", "no <thing>",
  and a bar for done stated as a condition ("don't stop until … 100% coverage");
- a **decision** (``x/decided``, a commitment): a choice for the project -- "we will / we'll /
  we're going to …", "we decided …", "let's go with / use / keep …", "we can keep … while …",
  "we should start with …", "I want to migrate …", "port / migrate / rewrite … to …", "keep the
  X", "(no X needed)";
- a **preference** (``core/prefers``, a preference): "prefer …", "… instead of / rather than …",
  "we should use …", "I like …".

Requests for today's work ("add a test", "run bd ready", "start phoenix"), questions, hedged
guesses ("maybe because …", "I think …") and pasted code or logs are not statements. "I …" speaks
for the user across projects (user scope); everything else is about this project.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.prose import is_paste, request_text, sentences
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence

CONVENTION, DECISION, PREFERS = "x/convention", "x/decided", "core/prefers"
CONFIDENCE = 0.8
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
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
_ASIDE = re.compile(r"\s*\((?:but|and|except|although|though|just)\s+(?P<clause>[^()]{8,})\)",
                    re.IGNORECASE)


def statement_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    for event, text in user_texts(view):
        for sentence in map(statement_of, sentences(text)):
            kind = classify(sentence)
            if kind is None:
                continue
            personal = bool(_PERSONAL.search(_core(sentence)))
            if personal or view.project:
                yield _candidate(view, event, kind, sentence, personal)


def user_texts(view: SessionView) -> Iterator[tuple[Event, str]]:
    """Text a person typed in the main session: prompts, a slash command's arguments, and
    what they typed while turning a tool call down."""
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.is_human_prompt:
            text = request_text(event.text)
        elif event.kind == "meta" and "<command-args>" in event.text:
            text = " ".join(_COMMAND_ARGS.findall(event.text))
        else:
            continue
        if text.strip() and not is_paste(text):
            yield event, text
    for event, text in view.typed_in_results():  # words typed while turning a call down
        if not is_paste(text):
            yield event, text


def statement_of(sentence: str) -> str:
    """The part of a sentence that states something: the whole sentence, unless it is a
    request for today whose aside starts a statement of its own ("Delete the Python files
    (but keep the Justfile - update it …)"). The closing period goes: it is not the claim's."""
    aside = _ASIDE.search(sentence)
    if aside and classify(_ASIDE.sub("", sentence)) is None and classify(aside["clause"]):
        sentence = aside["clause"]
    return sentence.strip().rstrip(".!;:").strip()


def classify(sentence: str) -> str | None:
    """The predicate a sentence states (convention, decision, preference), or None."""
    core = _core(sentence)
    if len(core.split()) < _MIN_WORDS and not core.lower().startswith("no "):
        return None
    if core.endswith("?") or _QUESTION.match(core) or _HEDGE.search(core) \
            or _TEMPORARY.search(core):
        return None
    for predicate, pattern in ((CONVENTION, _CONVENTION), (DECISION, _DECISION),
                               (PREFERS, _PREFERENCE)):
        if pattern.search(core):
            return predicate
    return None


def _core(sentence: str) -> str:
    return _LEAD.sub("", sentence.strip()).strip()


def _candidate(view: SessionView, event: Event, predicate: str, sentence: str,
               personal: bool) -> dict[str, Any]:
    epistemic = "preference" if predicate == PREFERS else "commitment"
    return candidate("statements", "user" if personal else view.project or "", predicate,
                     sentence, evidence=[transcript_evidence(event.line, sentence)],
                     epistemic=epistemic, confidence=CONFIDENCE, source_type="user-assertion",
                     scope="user" if personal else "project", object_kind="literal",
                     subject_type=None if personal else "project", at=event.timestamp)
