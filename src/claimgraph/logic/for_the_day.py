"""Orders that only steer the day: whether a sentence the person typed governs later work.

The sentence model and the for-today checks (``capture/extract/standing.py``) read a sentence
for what ties it to the task in hand; a prohibition or a firm "should" still passes them when
its surface is a rule's ("Do not reply with code, just explain the plan" reads like "Don't use
mocks, just use real SQLite files"). What tells them apart is what the order is about, and
that shows in the sentence's structure, not in its words of rule (docs/capture.md, "Orders
that only steer the day"). A sentence steers only the day when:

- **it is about this conversation's own reply or turn** (``about_the_reply``): a clause opens
  with a directive whose verb is a verb of replying (reply, respond, answer, explain,
  describe, summarize, elaborate, clarify, show, tell) and the clause names nothing of the
  project (no code span, no path or file name, no identifier, none of the texts the project
  keeps: a commit message, a pull request, a docstring, the changelog), or a "don't" whose
  object is a part of the reply itself (code in the answer, markdown, an explanation, a
  preamble, a summary; not comments or emojis, which the code and commits hold too). What
  it asks for is how the next message reads.
- **it is a step of today's order of work** (``order_of_work``): it ties itself to an act
  the people are about to do or just did ("before we merge …", "once we have the schema …",
  "when you're done, …", "… and then move on to …", "first … then …" said of "we" or "I"):
  the occasion is one event of this session, not a kind of event ("before merging", "after
  each release" name a kind, and are rules for it).
- **it is a pick whose options are not in it** (``bare_pick``): it names what it picks only
  as the agent's ("your suggested approach", "what you recommended", "the latter", "proposal
  2") and says nothing else of its own once the pick is taken out: what was picked is in the
  agent's message, which the fact does not carry. (A pick by name is stored with its option,
  ``picks``; a pick by "option 2" or "the second one" is rewritten to its option's text by
  ``reconcile``; this is the pick neither reads.)
- **it points at one thing of the conversation without naming it** (``unnamed_thing``): a
  directive whose object is "the function", "the file", "the test" (one thing of a generic
  kind, with nothing after it that says which): which one is only in the messages around
  it. A plural or a kind ("the generated files", "tests") is a class that outlasts the
  task, and is left to the other checks.
- **it is a vague aspiration** (``no_thing_named``): once the words of wanting, of quality
  and of the whole ("the code", "everything") are taken out, nothing is left: no thing of
  the project named, no property a later session could check ("I want everything to be
  clean, simple and easy to maintain").

- **it wishes for something it only points at** (``wish_for_it``): "I want it in every
  service", "we need those to be cached": the wish's object is a pronoun, and the sentence names
  nothing (no thing of the project, no name) that says what it is.
A word that says the sentence holds beyond today ("always", "never", "from now on", "by
default", "whenever", "every time") keeps it from the first two tests: "never reply with code
blocks" is a standing way to answer, "always run the linter before we push" a rule. The last
three ask whether the sentence can be read alone, which no such word changes.

Pure: text in, a reason (or None) out. Precision first: each test fires only on the
structure it names, and when unsure it lets the sentence through to the other checks.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

#: Fillers a typed sentence or clause opens with before what it says.
_FILLER = (r"(?:(?:ok(?:ay)?|so|yes|yeah|and|also|but|no|well|alright|right|now|then|please|"
           r"pls|just|instead|rather)\b[,.!:;\s-]*)*")
#: Words that say the sentence holds beyond today.
_LASTING = lazy_regex(
    r"\b(?:always|never|ever|from now on|from here on|going forward|moving forward|"
    r"by default|whenever|every (?:time|session|conversation|answer|reply|response)|"
    r"each time|any ?time|as a rule|in (?:the )?future|"
    r"in general|in (?:this|the|our|all|every) (?:repo(?:sitory)?|project|codebase|team))\b",
    re.IGNORECASE)
#: A thing of the project named: a code span, a path or a file name, an identifier
#: (snake_case, camelCase, a dotted name), a URL, a flag.
_NAMED = lazy_regex(
    r"`[^`]+`|\[[^\]]+\]\([^)]+\)|\b[\w-]+/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b|"
    r"\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|\bhttps?://|(?<![\w-])--?[a-z][\w-]*")
#: Where one clause of a sentence ends and the next begins.
_CLAUSES = lazy_regex(r"\s*(?:[,;:]|\s[—–-]\s|\bjust\b|\bbut\b|\band then\b|\binstead\b)\s*",
                      re.IGNORECASE)

#: A directive opening its clause: an imperative, a "don't", a "can you", an "I want you to".
_DIRECTIVE = (r"^\W*" + _FILLER + r"(?:(?:do not|don'?t|dont|no need to|never mind)\s+|"
              r"(?:can|could|would|will) you\s+(?:please\s+)?|i (?:want|need|would like|'d "
              r"like) you to\s+|(?:you )?(?:should|must|need to)\s+)?")
#: Verbs of replying: what the next message says, not what the project does.
_REPLY_VERB = (r"(?:reply|respond|answer|explain|describe|summari[sz]e|elaborate|clarify|"
               r"spell out|walk me through|go over|tell me|show me|give me|remind me|"
               r"ask me|repeat|rephrase|apologi[sz]e)\b")
_REPLY_ORDER = lazy_regex(_DIRECTIVE + _REPLY_VERB, re.IGNORECASE)
#: "don't tell me what to do, do it yourself": keeping the agent from handing work back is a
#: way of working as often as a turn's order; only the verbs of the answer itself count when
#: negated.
_NOT_HANDED_BACK = lazy_regex(r"^\W*" + _FILLER + r"(?:do not|don'?t|dont)\s+(?:tell|show|give|"
                              r"ask|remind)\b", re.IGNORECASE)
#: A part of the reply itself: what a "don't" about the answer keeps out of it.
_REPLY_PART = lazy_regex(
    r"^\W*" + _FILLER + r"(?:do not|don'?t|dont|no need to)\s+(?:add|include|give|write|"
    r"output|print|show|use|put|paste|produce|send)\s+(?:me\s+)?(?:any\s+)?(?:more\s+)?"
    r"(?:code|markdown|explanations?|commentary|preamble|summary|summaries|"
    r"introduction|caveats|disclaimers|apolog(?:y|ies)|the code|a summary|code "
    r"(?:blocks?|snippets?))\b(?:\s+(?:or|and)\s+\w+)?\s*$", re.IGNORECASE)
#: A text the project keeps, which a verb of replying may be about as well as the reply is:
#: "explain the reasoning in the commit message", "describe each change in the PR" say how
#: the project's history and documents read, for every change to come. (Comments and
#: emojis are not parts of the reply for ``_REPLY_PART`` for the same reason: "don't add
#: comments" is about the code a session writes.)
#: Only where the words go ("in the commit message"): "explain the error message" asks
#: about one in the reply.
_PROJECT_TEXT = lazy_regex(
    r"\b(?:in|into|to|on)\s+(?:(?:the|each|every|a|an|our|its|their|your)\s+)?"
    r"(?:commits?|commit messages?|pull requests?|PRs?|merge requests?|MRs?|docstrings?|"
    r"comments?|readme|changelog|docs|documentation|release notes|wiki|issues?|tickets?|"
    r"log messages?|error messages?|help text|man pages?)\b", re.IGNORECASE)
#: A reply order that sets the language of every answer ("respond in Spanish", "reply to me
#: in English only"): who the person is, as "I'm on fish, so give me fish commands" is,
#: and how they want to be answered from now on. Not "explain in plain English what this
#: does": a verb of explaining asks about one thing.
_IN_LANGUAGE = lazy_regex(
    _DIRECTIVE + r"(?:reply|respond|answer|write|speak|talk)\s+(?:to me\s+)?(?:only\s+)?in\s+"
    r"(?:english|spanish|french|german|italian|portuguese|dutch|russian|ukrainian|polish|"
    r"czech|turkish|arabic|hebrew|hindi|chinese|mandarin|cantonese|japanese|korean|"
    r"vietnamese|thai|indonesian|swedish|norwegian|danish|finnish|greek|romanian|"
    r"hungarian|persian|farsi)\b", re.IGNORECASE)
#: An occasion that is a kind of event ("before making changes", "before you run any
#: migration", "after each deploy"): a reply order for every such event is a way of
#: working ("explain your reasoning before making changes"), as ``order_of_work`` leaves
#: "before merging" to the rules.
_KIND_OF_OCCASION = lazy_regex(
    r"\b(?:before|after|when|whenever|while|until)\s+(?:[a-z]+ing\b|"
    r"(?:you|we|i)\s+[a-z]+\s+(?:any|a|an|each|every)\b|(?:each|every|any)\b)",
    re.IGNORECASE)
REPLY = "an order about this conversation's own reply"


def about_the_reply(sentence: str) -> str | None:
    """Why ``sentence`` is an order about the conversation's own reply or turn (module
    docstring), or None: its first clause opens with a verb of replying and names nothing of
    the project, or a "don't" keeps a part of the reply out; not with a word of lasting time.
    A reply order after a clause about the person ("I'm on fish, so give me fish commands",
    "I'm a backend person, explain frontend things in more detail") is how they want to be
    answered from now on, and is left alone."""
    if _LASTING.search(sentence) or _KIND_OF_OCCASION.search(sentence):
        return None
    clause = next((part for part in _CLAUSES.split(sentence) if part.strip()), "")
    if _NAMED.search(clause) or _NOT_HANDED_BACK.match(clause) \
            or _PROJECT_TEXT.search(clause) or _IN_LANGUAGE.match(clause):
        return None
    if _REPLY_ORDER.match(clause) or _REPLY_PART.match(clause):
        return REPLY
    return None


#: The people's own next act, as the occasion of the sentence: "before we merge", "once we
#: start …", "after I push", "when you're done", "once that is done". Only the acts of the
#: session's own flow (going on, starting, committing, merging, pushing): a milestone of the
#: project ("after we release 2.0, drop Python 3.8", "until we migrate the last customer")
#: is when a decision takes effect, and a kind of event ("before merging", "after each
#: release", "when a test fails") is a rule's occasion.
_FLOW = (r"(?:continue|proceed|move on|go on|go any further|go further|begin|start|get started|"
         r"dive in|commit|merge|push|implement|test|try|run|do anything|make any|write any|"
         r"change anything|touch|finish|wrap up)\b")
_OUR_ACT = lazy_regex(
    r"\b(?:before|after|once)\s+(?:we|i)\s+(?:can\s+|will\s+|actually\s+|even\s+)?" + _FLOW + r"|"
    r"\b(?:when|once|after)\s+(?:you(?:'re|'ve| are| have)|we(?:'re|'ve| are| have)|"
    r"i(?:'m|'ve| am| have)|that(?:'s| is| has been)|this(?:'s| is| has been)|it(?:'s| is| has "
    r"been))\s+(?:all\s+)?(?:done|finished|complete|completed|through|merged)\b",
    re.IGNORECASE)
#: "we", "I" or "let's" with a next act of the work itself after "then": "… merge and publish,
#: and then move on to …", "first …, then we review". Only acts of the workflow count: "we'll
#: keep the old importer until …, then delete it" decides what the project does.
_OUR_SEQUENCE = lazy_regex(
    r"(?:\b(?:and|,|-|first\b[^.;:]*)\s*then\s+(?:we\s+(?:can\s+|will\s+|should\s+)?|"
    r"i\s+(?:can\s+|will\s+)?|let'?s\s+)?(?:move on|go on|continue|proceed|come back|get back|"
    r"go back|revisit|review|merge|commit|push|publish|release|wrap up|finish|start|work on|"
    r"tackle|focus|look at|go from there|test it|ship)\b)", re.IGNORECASE)
#: Who does the acts of the sequence: the people themselves.
_WE_OR_I = lazy_regex(r"\b(?:we|i|let'?s)\b", re.IGNORECASE)
#: A habit of the person's ("I like to see your plan first before we implement it"): how they
#: work every time, not one step.
_HABIT = lazy_regex(r"\bi (?:like|prefer|love|hate|tend|usually|normally|generally)\b",
                    re.IGNORECASE)
ORDER = "a step of today's order of work"


def order_of_work(sentence: str) -> str | None:
    """Why ``sentence`` is a step of today's order of work (module docstring), or None: its
    occasion is the people's own next act, or it puts their acts in order; not with a word
    of lasting time."""
    if _LASTING.search(sentence) or _HABIT.search(sentence):
        return None
    if _OUR_ACT.search(sentence):
        return ORDER
    sequence = _OUR_SEQUENCE.search(sentence)
    if sequence and _WE_OR_I.search(sentence):
        return ORDER
    return None


#: An option named in a way nothing else resolves: the agent's suggestion named as such ("your
#: suggested approach", "what you recommended"), "the former" or "the latter", a proposal, a
#: variant or a solution by label, "#3". A pick by "option 2", "approach B" or position ("the
#: second one") is not here: ``reconcile`` rewrites it to the text of the option it names,
#: or drops it when no earlier message lists one.
_PICKED = lazy_regex(
    r"\b(?:variant|proposal|solution)\s*#?\s*(?:\d+|[a-e])\b|#\d+\b|"
    r"\bthe\s+(?:former|latter)\b|"
    r"\b(?:your|the)\s+(?:suggest(?:ed|ion)|recommend(?:ed|ation)|proposed|proposal)\b"
    r"(?:\s+(?:one|option|approach|solution|plan|fix|way))?|\bwhat you (?:suggest(?:ed)?|"
    r"recommend(?:ed)?|proposed?)\b", re.IGNORECASE)
#: Words that say no more than "I pick": the verbs, the fillers, the go-ahead.
_PICK_WORDS = frozenset(
    "ok okay so yes yeah yep sure and also but no well alright right now then please pls just "
    "let's lets let us we i i'd i'll we'll we'd you go going with do use take pick choose "
    "chose choosing prefer like love want would should can could will shall the a an for "
    "plan that this it one is sounds good great fine perfect is fine proceed implement "
    "moving forward agree agreed think makes sense of course definitely do it with as "
    "recommended suggested".split())
PICK = "a pick whose options are not in it"


def bare_pick(sentence: str) -> str | None:
    """Why ``sentence`` is a pick that cannot be read without the options it picks from
    (module docstring), or None: it names an option by label or place and, once the pick
    and the words of picking are taken out, says nothing else."""
    if not _PICKED.search(sentence):
        return None
    rest = _PICKED.sub(" ", sentence)
    words = [w for w in re.findall(r"[a-z0-9'+#.-]+", rest.lower()) if w.strip(".'-")]
    return PICK if all(w.strip(".'") in _PICK_WORDS for w in words) else None


#: One thing of a generic kind, pointed at by "the" with nothing after it that names it.
_THING = (r"(?:function|method|class|file|test|component|module|variable|script|endpoint|"
          r"page|button|field|column|table|route|handler|hook|query|struct|type|interface|"
          r"constant|parameter|argument|flag|option|config|setting|line|block|snippet|"
          r"folder|directory|package|dependency|import|call|loop|check|command|step|job|"
          r"workflow|migration|model|schema|view|screen|modal|dialog|form|list|menu|icon|"
          r"image|label|message|title|text|name|value|key|comment|docstring|section)")
_POINTED = lazy_regex(
    _DIRECTIVE + r"(?:\w+\s+){0,1}?(?:rename|change|modify|touch|edit|delete|remove|move|"
    r"refactor|rewrite|revert|replace|update|reformat|split|merge|inline|drop|undo)\s+"
    r"(?:the|this|that)\s+(?:(?:new|old|existing|same|current|whole|entire)\s+)?" + _THING
    + r"\s*[.!]?\s*$", re.IGNORECASE)
UNNAMED = "points at one thing of the conversation without naming it"


def unnamed_thing(sentence: str) -> str | None:
    """Why ``sentence`` is an order about one thing the conversation points at without a
    name (module docstring), or None: a directive to change "the function", "the file"
    and nothing more."""
    return UNNAMED if _POINTED.match(sentence.strip()) else None


#: Words of wanting, of degree and of quality, the whole of what is made, and the words
#: that hold a sentence together: what is left once they go is what the sentence names.
_FRAME_WORDS = frozenset(
    "i we you i'd we'd i'm we're want wants would like love wish hope need needs should must "
    "shall will can could to be is are was were being been it its it's this that these those "
    "the a an and or but also just really very more most much as so too quite always all "
    "every everything anything things thing our my your their make makes made keep keeps "
    "stay remain become get getting feel look looks possible can't overall whole entire "
    "general generally of for in on with at by from up out about over ensure sure let's "
    "lets please try trying continually continuously constantly better best good great nice "
    "clean cleaner simple simpler easy easier readable maintainable understandable robust "
    "reliable solid elegant beautiful modern intuitive friendly user-friendly flexible "
    "scalable efficient performant fast faster smooth polished professional quality "
    "high-quality lightweight minimal straightforward awesome amazing perfect "
    "production-ready well high standard standards practice practices improve improved "
    "improving improvement improvements code codebase project app application product "
    "software system solution work working job tool library experience at "
    "maintain use read understand follow following mind yourself ourselves together "
    "etc level top notch state-of-the-art industry best-in-class".split())
VAGUE = "a vague aspiration: no thing of the project named"
_MIN_WORDS = 4


def no_thing_named(sentence: str) -> str | None:
    """Why ``sentence`` is a vague aspiration (module docstring), or None: of four words or
    more, every word is one of wanting, quality, the whole or grammar."""
    if _NAMED.search(sentence) or re.search(r"\d", sentence):
        return None
    words = re.findall(r"[a-z][a-z'-]*", sentence.lower())
    if len(words) < _MIN_WORDS:
        return None
    return VAGUE if all(word in _FRAME_WORDS for word in words) else None


#: A wish whose object is a pronoun: "I want it …", "we need that …", "I'd like them …"
#: ("this", "that", "these", "those" only before "to", a preposition or the end: "I'd like
#: those environments …" names what it wants).
_WISH_FOR_IT = lazy_regex(
    r"^\W*" + _FILLER + r"(?:i|we)(?:'d\s+(?:like|prefer)|\s+(?:really\s+|still\s+|just\s+|"
    r"only\s+|also\s+)?(?:want(?:ed)?|need(?:ed)?|would like|would prefer|prefer))\s+"
    r"(?:it|them|(?:this|that|these|those)(?=\s*(?:$|[,.;:!?]|(?:to|in|on|across|for|at|"
    r"by|with|everywhere|too|as well)\b)))\b(?!\s*(?:is|are|was|were)\b)", re.IGNORECASE)
#: A word written with a capital inside the sentence: a name (a tool, a product, a person).
_PROPER = lazy_regex(r"(?<=\s)(?!I\b)[A-Z][\w.+-]*")
WISH_FOR_IT = "a wish for something the sentence only points at (it, this, that)"


def wish_for_it(sentence: str) -> str | None:
    """Why ``sentence`` is a wish whose object is only a pronoun (module docstring), or None:
    "I want it in every service", "we need that to run nightly": what "it" is was said
    before, by the agent or in an earlier sentence, and the fact would not carry it. Not
    when the sentence names a thing of the project or a name (a capitalised word): what is
    wished for may then be read from it."""
    if not _WISH_FOR_IT.match(sentence) or _NAMED.search(sentence) \
            or _PROPER.search(sentence) or re.search(r"\d", sentence):
        return None
    return WISH_FOR_IT


def steers_the_day(sentence: str) -> str | None:
    """Why ``sentence`` only steers the day (an order about the reply, a step of today's
    order of work), or None."""
    return about_the_reply(sentence) or order_of_work(sentence)


def cannot_be_read_alone(sentence: str) -> str | None:
    """Why ``sentence`` says nothing once the conversation around it is gone (a bare pick, a
    thing pointed at without a name, a vague aspiration, a wish for what it only points at),
    or None."""
    return (bare_pick(sentence) or unnamed_thing(sentence) or no_thing_named(sentence)
            or wish_for_it(sentence))
