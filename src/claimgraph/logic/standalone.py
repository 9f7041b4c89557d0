"""Whether a sentence the person typed stands alone as something to tell the next session.

What the context shows as "you said" or "you asked" must read, months later, as a standing
statement about the project. The for-today checks (``capture/extract/standing.py``) ask
whether a sentence is tied to the task in hand; these ask whether it says anything at all
once the conversation around it is gone (docs/capture.md, "Sentences that do not stand
alone"). A sentence does not stand alone when:

- **it is a piece cut out of what came before** (``cut_out``): it opens as an example of the
  sentence before it ("For example, the build area, the filaments, etc."), it is only the
  "instead of …" (or "because …", "so that …", "or …") half of a sentence, with no main clause
  ("instead of first counting the rows and then printing them"), or it stops mid-way (a
  comma, "and", "the" last): what it elaborates, replaces or goes on with is elsewhere;
- **it is the next step of an order of work** (``cut_out``): it opens with "then", "after
  that", "afterwards" or "once that is done" and goes on to an act ("Then let's make sure the
  CLI supports …"): a step of today's sequence, and which step came first is in the message
  before it;
- **it asks the agent for something in the conversation** (``to_the_agent``): "give me a
  command …", "show me …", "tell me …", "let me know …", "in your answer …", "this
  message …": what it wants is a reply, not a way the project is;
- **it is a vague aspiration** (``vague``): the whole code, library or app "should be" a
  quality and nothing else ("The code should be simple as possible", "The library should be
  more flexible for everyday use"): no thing of the project named, no property a later session
  could check. A rule with a checkable edge ("There should be no over-engineering: one module
  per command", "The public API must stay backwards compatible") is not this shape.

A request carried out as one act (a rename, a relabel) that opens by saying yes to the agent's
offer (``accepts_an_offer``: "yes please add the exporter and rename the flag to --quick") is
the agent's proposed step for the task in hand, accepted: the end state shows it done, and the
words add nothing for a later session.

Each check reads the sentence's form only; the caller says which sentences it applies to.
Pure: text in, a reason (or None) out.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

#: Fillers a typed sentence opens with before what it says.
_FILLER = r"^\W*(?:(?:ok(?:ay)?|so|yes|yeah|and|also|but|no|well|alright|right)\b[,.!:;\s-]*)*"

#: An example of what the sentence before it said: it elaborates, it does not state.
_EXAMPLE = lazy_regex(_FILLER + r"(?:for (?:example|instance)|e\.\s?g\.?|i\.\s?e\.?|"
                      r"such as)(?![\w-])", re.IGNORECASE)
#: The "instead of …" half of a sentence, or a clause that hangs on one said before ("because
#: …", "so that …", "which …", "or …", "as well as …"): a main clause follows only after a
#: comma or a dash. ("When …", "if …", "unless …", "since …" open rules without a comma as
#: often: "when deploying always run the migrations".)
_INSTEAD = lazy_regex(_FILLER + r"(?:instead of|rather than|as opposed to|because|so that|"
                      r"which|whereas|although|though|whereby|as well as|along with|or)\b",
                      re.IGNORECASE)
#: A sentence that stops mid-way: a comma, a conjunction or an article last ("Use these
#: linters: ruff, mypy and"): the rest of it was lost when it was cut out. (Not a lone "a":
#: "go with option a" names an option; nor a preposition: "a repo to work out of" is whole.)
_UNFINISHED = lazy_regex(r"(?:,|\b(?:and|or|but|including|such as|e\.g|i\.e|the|an))\s*$",
                         re.IGNORECASE)
_CLAUSE_AFTER = lazy_regex(r"[,;:]\s+\S|\s[—–-]\s+\S")
#: The next step of an order of work: a sequencing word, then an act or "let's".
_NEXT_STEP = lazy_regex(
    _FILLER + r"(?:then|after that|afterwards|after this|once (?:that|this) is done|"
    r"once done)\b[,\s]+(?:(?:we|you|i)\s+(?:should|must|need to|have to|will|can)\s+|"
    r"let'?s\s+|please\s+|also\s+|just\s+)*(?:make sure|ensure|add|implement|build|create|"
    r"update|change|move|write|remove|delete|fix|run|test|check|wire|hook|integrate|support|"
    r"refactor|rename|set up|commit|push|go|do|start|continue|proceed|each|every|all)\b",
    re.IGNORECASE)
#: Words that say the sentence holds beyond the task ("Then always run X"): a rule after all.
_STANDING = lazy_regex(r"\b(?:always|never|from now on|going forward|by default|whenever|"
                       r"every time|each time|as a rule)\b", re.IGNORECASE)


def cut_out(sentence: str) -> str | None:
    """Why ``sentence`` is a piece of the message around it rather than a statement of its
    own (module docstring), or None."""
    text = sentence.strip()
    if _EXAMPLE.match(text):
        return "an example of what was said before it"
    instead = _INSTEAD.match(text)
    if instead and not _CLAUSE_AFTER.search(text, instead.end()):
        return "a clause with no main clause of its own"
    if _UNFINISHED.search(text.rstrip(" .!;:")):
        return "it stops mid-sentence"
    if _NEXT_STEP.match(text) and not _STANDING.search(text):
        return "the next step of an order of work"
    return None


#: The agent asked for a reply, or the conversation itself named: "give me …", "can you show
#: me …", "… and tell me …", "let me know …", "in your answer", "this message". An act said of
#: the product ("the app should show me the diff") is not asked of the agent: only the verb
#: at the head of a request counts.
_TO_THE_AGENT = lazy_regex(
    r"(?:" + _FILLER + r"|\b(?:and|then|please|pls|just|(?:can|could|would|will) you(?: please)?)"
    r"\s+)(?:give|show|tell|send|explain to|walk|get|find|list)\s+me\b(?!\s+(?:to|and)\b)|"
    r"\blet me know\b|\byour\s+(?:answer|reply|response)\b|"
    r"\b(?:this|my last|my previous)\s+(?:message|chat|conversation)\b|"
    r"\bin this (?:chat|conversation|thread)\b", re.IGNORECASE)


def to_the_agent(sentence: str) -> str | None:
    """Why ``sentence`` asks the agent for something in the conversation (module docstring),
    or None."""
    if _TO_THE_AGENT.search(sentence):
        return "asks the agent for a reply, not how the project is"
    return None


#: The whole of what is made, named generically: no one thing of the project.
_WHOLE = (r"(?:the|our|my|this|your)?\s*(?:whole\s+|entire\s+|overall\s+)?(?:code|codebase|"
          r"code ?base|source code|library|lib|app|application|project|tool|package|program|"
          r"software|system|solution|implementation|product|api|ui|ux|design|architecture|"
          r"website|site|service|backend|frontend|server|client|cli|gui|interface|everything|"
          r"it)")
#: Qualities nobody can check: how good, not what.
_QUALITY = (r"(?:easy|easier|simple|simpler|clean|cleaner|readable|maintainable|understandable|"
            r"powerful|robust|good|better|great|nice|nicer|elegant|beautiful|modern|intuitive|"
            r"user[- ]friendly|friendly|flexible|scalable|efficient|performant|fast|faster|"
            r"smooth|polished|professional|high[- ]quality|quality|solid|reliable|usable|"
            r"lightweight|minimal|straightforward|awesome|amazing|perfect|production[- ]ready|"
            r"best|state[- ]of[- ]the[- ]art|well[- ]\w+)")
_DEGREE = r"(?:(?:as|more|very|really|super|much|extremely|highly|most|so|quite|even)\s+)*"
_TO_DO = r"(?:to\s+\w+(?:(?:\s*,\s*|\s+(?:and|or)\s+)\w+)*)"
_AS_POSSIBLE = (r"(?:as\s+(?:possible|it can be|we can)|for\s+(?:public|general|everyday|daily|"
                r"real[- ]world|wider|production|everyone'?s?)\s+use|"
                r"for\s+(?:everyone|users|people))")
_VAGUE = lazy_regex(
    _FILLER + _WHOLE + r"\s+(?:should|must|shall|needs? to|has to|have to|ought to|will)"
    r"\s+be\s+" + _DEGREE + _QUALITY + r"(?:\s+" + _TO_DO + r")?"
    r"(?:(?:\s*,\s*|\s+(?:and|or)\s+|\s*,\s*(?:and|or)\s+)" + _DEGREE + _QUALITY + r"(?:\s+"
    + _TO_DO + r")?)*(?:\s+" + _AS_POSSIBLE + r")?[\s.!]*$", re.IGNORECASE)


def vague(sentence: str) -> str | None:
    """Why ``sentence`` is a vague aspiration (module docstring), or None: the whole code,
    library or app should be a quality, and the sentence says nothing more."""
    if _VAGUE.match(sentence.strip()):
        return "a vague aspiration: no thing named, nothing to check"
    return None


#: A reply that opens by saying yes to what the agent offered ("yes please add …", "ok, rename
#: …", "sure, go ahead and …").
_ACCEPTS = lazy_regex(r"^\W*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|agreed|sounds good|go ahead|"
                      r"please do|do it|perfect|great)\b", re.IGNORECASE)


#: The agent offering its next step in prose, not only as a question: "I can add them to the
#: tab", "If you want, I could …", "Want me to …", "let me know if …".
_OFFERS = lazy_regex(r"\b(?:i can|i could|i'?d be happy to|happy to|want me to|should i|shall i|"
                     r"let me know if|if you(?:'d)? (?:want|like|prefer))\b", re.IGNORECASE)
#: How much of the end of the agent's message holds its offer.
_OFFER_TAIL = 600


def offers_a_step(agent_text: str) -> bool:
    """The end of the agent's message asks a question or offers its next step in prose."""
    tail = agent_text[-_OFFER_TAIL:]
    return "?" in tail or bool(_OFFERS.search(tail))


def accepts_an_offer(sentence: str) -> bool:
    """The sentence opens by saying yes: typed right after the agent asked or offered, its
    act is the agent's proposed step for the task in hand, accepted (``requests``: such an
    act done once is the day's work, which the end state already shows)."""
    return bool(_ACCEPTS.match(sentence))


def not_standalone(sentence: str) -> str | None:
    """The first reason ``sentence`` does not stand alone (module docstring), or None."""
    return cut_out(sentence) or to_the_agent(sentence) or vague(sentence)
