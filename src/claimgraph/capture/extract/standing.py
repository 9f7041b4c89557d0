"""Standing or for today: whether a sentence the user typed can be remembered as a rule.

The sentence model says whether a sentence is durable; it reads one sentence without the
session around it, and it was trained on prompts where a rule and a request often look alike.
What it cannot weigh, this module checks by the sentence's form (docs/capture.md, "What is
kept"): a sentence is remembered as standing only when nothing in it ties it to the work at
hand. Precision comes first: a wrong standing decision misleads every later session, a missed
one costs one reminder.

A sentence is for today, not standing, when (unless it says it holds beyond today: "always",
"never", "from now on", "whenever", "by default", "in this repo"):

- it states what the current work **needs** ("we need to release …", "we don't need …"):
  necessity is about the task in hand (a need under a condition, "if we need to add a flag,
  name it …", is a rule for that case and may stand);
- it **asks for an edit to a file** ("also note in the README that …"): the file holds the
  result afterwards, and the file is what a later session reads;
- it is **anchored in time** ("now", "today", "for now", "next", "yet", "at the moment");
- it is a **possibility** ("we could use …", "we would …"), unless a condition says when;
- it **narrates** what happened ("we were waiting on …", "I was trying …");
- it is **mood**, not a decision: a short sentence saying what the people are or will be
  ("we are going to be famous", "I'm so happy");
- it is **a step of today's plan** ("we should first get a design", "we will still check X
  after all the updates"), or **a plan to deliberate** ("we should also think about which
  …"): an order of work, or nothing decided yet (a condition makes it a rule for that case);
- it **wants something of the thing being made now** ("this document, I want everything we
  discussed in it");
- it **remarks on the person's situation** with no rule in it ("I am on a mac");
- it talks about **the agent's turn** ("you described …", "you missed …"): feedback on the
  conversation, not a rule of the project;
- it **leans on what was said before** ("that approach is not an option", "just push it
  there", "if so we can …", "I just mean …"), or is a scope with
  no verb of its own ("just the readme, not all md"): what it is about stays in the
  conversation;
- its message calls the work in hand a prototype, an MVP, a proof of concept or a first
  draft (``for_provisional_work``): "keep the UI functional rather than polished" is for
  that prototype, not a preference for the project;
- it is **an instruction for the task in hand** (``one_off``, issue 22): an act done once
  ("rename the flag to X", "we should rename it to …", "let's bump the version", "fix the
  import"), a value changed once ("change the title to …", "move the helpers into utils.py",
  "make the cards shorter"), a test asked for ("add a test for Y"), a "don't" about the
  things in hand with no reason given ("do not create any new tests", "I don't want to
  delete these files"), "let's" with a verb of doing work ("let's expand the checks"; not
  "let's use / keep / go with …", a choice), a wish that asks the agent for something ("I'd
  love to see a first draft", "I'd like for you to double-check …"), work put off or kept
  to one change ("… later", "in a follow-up", "for this PR"), or a state that expires ("our
  latest release is v0.2.0": ``logic.expiring``). Once done, the code holds the result; the
  words were the day's instruction, not a rule for later work.
- it **lasts until the task in hand is done** (``until_done``): the agent going on, or not
  stopping, until a point of this task ("don't stop until every handler is converted and
  coverage is 100%", "keep working until the tests pass"). Read before the standing markers,
  since "every" and "all" after the "until" count the task's goal; a marker or a condition
  before the directive ("always keep going until …", "when a test fails, keep fixing until
  …") still lets it stand, and a gate on an act ("don't merge until CI is green") is not
  this shape;
- it is about **the passing things of the work in hand**, pointed at rather than named
  ("this bug", "these failures", "this PR", "these changes": ``_THIS_WORK``): they last as
  long as the task, and the words alone no longer say which they were. (A thing the work
  leaves in the project, "these files", "these functions", is left to the other checks: "I
  want these pages to stay short and skimmable" is about documents that stay.)
- it **names the task in hand as its scope** ("for this PR, every new module needs a header",
  "until this task is done, …": ``_THIS_TASK``), read before the standing markers too:
  "every" and "always" then hold within that task.

A sentence that **opens with a guess** ("I suppose we don't have a rule for …", "maybe we
should …", "may be X must be Y otherwise …", "probably …", "seems like …", after an "ok",
"so" or "hmm" too) is the person thinking aloud, not deciding: what
they settle on comes later in the session, often the opposite. It is not stored even when it
says "always" (the person is unsure whether it always holds).

A request to write something the conversation named before into a file ("if this is needed,
make it part of the docs in release.md") is an edit request wherever it stands in the
sentence.

A sentence **does not read as one rule** (``not_one_rule``) when it repeats itself (the same
three words again a few words on: a speech-to-text restart, "all the details inside, all the
details about …"): which part is the rule is a guess, and a guess is not stored. Nor when it
is a program's error chained through its callers ("X failed: Y failed: field z must be …"),
pasted with a page the person copied: the "must" is the program's check, not their rule.
(Two sentences dictated without a stop between them are split before this, by
``prose.split_run_on``.)

The agent's own notes have a test of their own (``agent_report``): a bullet in which the
agent speaks of itself ("No config files touched by me", "I'll keep X as is"), reports
what happened ("No source file was modified"), says what it is doing ("Now running the
tests"), or describes a state that holds only for now ("still 3 commits behind `main`") is
a report of the turn, not a convention of the project; a bullet that speaks to the person
("If you tag releases, a check would prevent drift": ``addresses_person``) is advice the
session did not take up, whatever the bullet's kind.

A question the agent asks about how to go on with the task ("How would you like to
proceed?", "Should I continue …?") is about the task too: its answer is a choice for today.
Pure: text in, a reason (or None) out.
"""

from __future__ import annotations

import re
from typing import Any
from claimgraph.logic.expiring import expiring_state
from claimgraph.logic.lazy_regex import lazy_regex

#: Words that say a sentence holds beyond the task at hand.
_STANDING = lazy_regex(
    r"\b(?:always|never|ever|every(?:\s+time)?|each time|whenever|any ?time|from now on|"
    r"going forward|in (?:the )?future|by default|as a rule|in general|as always|no longer|"
    r"in (?:this|the|our|all|every) (?:repo(?:sitory)?|project|codebase|code ?base|team|"
    r"projects|repos))\b", re.IGNORECASE)
_NEED = lazy_regex(r"\bneeds?\s+to\b|\b(?:do|does|did|don'?t|doesn'?t|didn'?t|won'?t|"
                   r"will not|do not|does not|shouldn'?t)\s+need\b|\b(?:we|i|you)\s+need\b",
                   re.IGNORECASE)
#: "also note in the README that …", "in AGENTS.md mention …": a change to a file the
#: agent then makes; the file holds it afterwards, the sentence is the request.
_FILE = (r"(?:the\s+)?[`'\"]?(?:[\w./-]+\.(?:md|mdx|rst|txt|json|ya?ml|toml)|readme|changelog|"
         r"(?:agents|claude|gemini|contributing)(?:\s*|\.)md)\b")
_EDIT_VERB = r"(?:add|note|mention|write|document|update|remove|delete|rename|put|append|insert)"
_EDIT_REQUEST = lazy_regex(
    r"^(?:(?:also|and|then|please|now|yes|ok(?:ay)?|so)[,\s]+)*(?:" + _EDIT_VERB
    + r"\b[^.;:]*?\b(?:in|to|into|from)\s+" + _FILE + r"|in\s+" + _FILE + r"[,\s]+(?:also\s+)?"
    + _EDIT_VERB + r"\b)", re.IGNORECASE)
#: "make it part of the docs in release.md", "add this to the README": the thing to write
#: is one the conversation named before (a pronoun), wherever the request stands in the
#: sentence (after "if this is needed …" too): a change to a file for the task at hand.
_EDIT_IT = lazy_regex(
    r"\b(?:" + _EDIT_VERB + r"|make|include)\s+(?:it|this|that|them|these|those)\b[^.;:]*?"
    r"\b(?:in|to|into|part of)\s+" + _FILE, re.IGNORECASE)
#: A need under a condition ("if we need to add a flag, name it …") is a rule for that case.
_CONDITION = lazy_regex(r"\b(?:if|when|whenever|in case|unless|once)\b[^,.;:]*$", re.IGNORECASE)
_NOW = lazy_regex(r"\b(?:right now|now|today|tonight|tomorrow|for now|for the moment|at the moment|"
                  r"this time|next|yet|currently|in this (?:session|task|pr|change|commit))\b",
                  re.IGNORECASE)
#: "we would use …", "we could …": a possibility, not a decision ("I would prefer" is a
#: preference; "if …, I would name it …" a rule for that case).
_HYPOTHETICAL = lazy_regex(r"\b(?:we|i)\s+(?:would|could|might)\s+(?!prefer|like|rather|love|"
                           r"want|always|never)", re.IGNORECASE)
_ANY_CONDITION = lazy_regex(r"\b(?:if|when|whenever|unless|in case)\b", re.IGNORECASE)
_NARRATION = lazy_regex(r"\b(?:we|i)\s+(?:were|was|had been)\b", re.IGNORECASE)
_MOOD = lazy_regex(r"^(?:(?:ok(?:ay)?|wow|yes|yeah|great|so|and|oh)[,!.]?\s+)*"
                   r"(?:we|i|you|this|it|that)(?:'re|'m|'s|\s+are|\s+am|\s+is|\s+will|'ll)\s+"
                   r"(?:(?:so|really|totally|going to|gonna|be|definitely|very)\s+)*"
                   r"[\w*-]+(?:\s+[\w*-]+)?[\s!.]*$", re.IGNORECASE)
_AGENT_TURN = lazy_regex(r"\byou(?:\s+\w+ly)?\s+(?:\w+ed|did|made|wrote|got|forgot|missed|"
                         r"took|went|gave|left|broke|understood|nailed)\b", re.IGNORECASE)
#: A sentence whose subject is something said before it ("That's close", "if it's flaky …",
#: "that approach is not an option"): its referent stays in the conversation.
_LEANS_BACK = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|no|so|and|but|well)[,!.]?\s+)*(?:if\s+)?"
    r"(?:it|that|this|they|those|these)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\b|"
    r"\b(?:that|this|the above|the same)\s+(?:approach|option|one|idea|way|solution|plan)\b",
    re.IGNORECASE)
#: "just push it there", "put them here": what and where are in the conversation before.
_DEICTIC = lazy_regex(r"\b(?:it|them)\s+(?:there|here)\b", re.IGNORECASE)
#: "just the readme, not all md": a scope for the request at hand, with no verb of its own.
_SCOPE_ONLY = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|no|so|and|but)[,!.]?\s+)*(?:just|only)\s+"
    r"(?:(?:the|this|that|these|those)\s+)?[\w.-]+(?:\s+[\w.-]+)?\s*,\s*(?:(?:but|and)\s+)?not\b",
    re.IGNORECASE)
#: The people's own plan for the work in hand, put in order ("we should first get a design",
#: "first let's clarify …", "we will still check X after all the updates"): a step of
#: today's sequence, not a rule. A plan under a condition ("if …, then we use …") is left alone.
_PLAN_SUBJECT = r"(?:we|i)(?:'ll|\s+(?:will|shall|should|can|must|are going to|am going to))|let'?s"
_SEQUENCED = lazy_regex(
    r"\b(?:" + _PLAN_SUBJECT + r")\s+(?:\w+\s+)?first\b|\bfirst,?\s+(?:" + _PLAN_SUBJECT
    + r")\b|\b(?:" + _PLAN_SUBJECT + r")\b[^.;:]*\b(?:afterwards|after (?:all|every|each) "
    r"(?:the |of the )?\w+s|after (?:that|this|these|those))\b", re.IGNORECASE)
#: A plan to deliberate ("we should also think about which …", "let's research how …"):
#: it decides nothing yet; what was decided is in what the session then did.
_DELIBERATE = lazy_regex(
    r"\b(?:" + _PLAN_SUBJECT + r")\s+(?:also\s+|first\s+|still\s+)*(?:think about|think "
    r"through|research|look into|investigate|explore|figure out|find out|find a way|clarify|"
    r"discuss|brainstorm|consider)\b", re.IGNORECASE)
#: A want whose object is the thing being made in this conversation: "this document, I want
#: everything we discussed in it", "I'd like the plan to cover what we talked about".
_WANT = lazy_regex(r"\b(?:i|we)(?:\s+(?:really|also|just))*(?:\s+(?:want|would like|wish)|"
                   r"'d like)\b", re.IGNORECASE)
_DELIVERABLE = lazy_regex(
    r"\b(?:this|the current)\s+(?:document|doc|page|file|pr|pull request|feature|plan|spec|"
    r"report|script|section|change|draft|ticket|issue|task|summary|prompt)\b|"
    r"\b(?:we|you|i)(?:'ve|\s+have)?\s+(?:just\s+)?(?:discussed|talked about|agreed on|went "
    r"over|covered)\b", re.IGNORECASE)
#: A remark on the person's situation with no rule in it ("I am on a mac", "I'm not seeing
#: the project on github"): a state of the moment, stated, not decided.
_SITUATION = lazy_regex(
    r"^(?:(?:ok(?:ay)?|so|and|but|well|hmm|also|btw)[,!.]?\s+)*i(?:'m|\s+am)\s+(?:not\s+|"
    r"currently\s+|still\s+|just\s+)*(?:on|seeing|getting|running|looking at|working on|"
    r"having|trying|stuck)\b", re.IGNORECASE)
_RULE_WORD = lazy_regex(r"\b(?:should|must|shall|need|have to|has to|want|prefer|like|use|"
                        r"don'?t|do not|avoid|keep|make sure|only|let'?s)\b", re.IGNORECASE)


#: Who is asked to do something now, before the verb: "we should", "let's", "please", "can
#: you", "I want you to", and the fillers a prompt opens with ("ok", "also", "then").
_ASKED_TO = (r"(?:(?:we|i|you)\s+(?:should|must|need to|have to|will|can|could|want to|"
             r"are going to|am going to)|we'll|i'll|you'll|let'?s|lets|please|pls|"
             r"(?:can|could|would|will) you|go ahead and|i (?:want|need) you to|just|also|now|"
             r"then|so|and|ok(?:ay)?|yes|yeah|sure)")
_OPENING = r"^\W*(?:" + _ASKED_TO + r"[,\s]+)*"
#: An act done once, whoever is asked to do it ("rename the flag to `--quick`", "we should
#: rename it to publish.yml", "let's bump the version", "fix the failing import"): once it
#: is done, the code holds the result and the words were an instruction for the task, not a
#: rule for later work. Not a verb of this list: one that names a way of working as often as
#: a step ("commit …", "release …", "use …", "drop …").
_ONCE_ACT = lazy_regex(
    _OPENING + r"(?:rename|bump|revert|undo|roll ?back|fix|finish|retry|re-?run|debug|"
    r"investigate|cherry-?pick|rebase|squash)\b(?!\s+(?:should|must|is|are|will|can)\b)",
    re.IGNORECASE)
#: A value changed once ("change the title to …", "set the timeout to 30s", "move the
#: helpers into utils.py"): the file holds the new value afterwards.
_VALUE_CHANGE = lazy_regex(
    _OPENING + r"(?:change|set|update|move(?!\s+(?:away|on|forward|fast)\b))\b[^.;:!?]{1,80}?"
    r"\b(?:to|into|under)\b", re.IGNORECASE)
#: A test asked for ("add a test for the parser", "write regression tests covering …"): a
#: test for one thing is part of today's change.
_TEST_ASKED = lazy_regex(
    _OPENING + r"(?:add|write|create)\s+(?:(?:a|an|the|some|more|another|one|two|few)\s+)?"
    r"(?:[\w-]+\s+){0,2}tests?\s+(?:for|to|that|covering|which|of|on|in)\b", re.IGNORECASE)
#: A step of today's work the people set themselves ("let's expand the checks", "then let's
#: add the exporter", "let's focus on the parser"): "let's" with a verb of doing work. "Let's
#: use / keep / go with / stick to …" is a choice and is left to the other checks.
_LETS_STEP = lazy_regex(
    r"^\W*(?:(?:ok(?:ay)?|so|and|then|now|no|yes|yeah|alright|great|also|first)[,.!\s]+)*"
    r"let'?s\s+(?:also\s+|just\s+|now\s+|first\s+|then\s+)*(?:add|implement|build|create|expand|"
    r"extend|refactor|fix|update|change|remove|delete|write|finish|start|begin|do|try|test|"
    r"check|look|see|run|rename|clean|split|merge|wire|hook|integrate|port|migrate|set up|"
    r"setup|install|deploy|release|publish|ship|focus|work|continue|proceed|tackle|handle|"
    r"address|revisit|investigate|debug|get|put|redo|rework|rewrite|simplify|polish|improve|"
    r"review|draft|commit|push|make sure (?:(?:our|the|this|that|these|those|all)\s+)"
    r"(?:[\w-]+\s+){0,6}(?:supports?|works?|handles?|covers?|includes?|has|have))\b",
    re.IGNORECASE)
#: A thing made bigger or smaller once ("make the descriptions longer", "make these
#: cards more compact"), wherever the order stands in the sentence ("for all the projects we
#: reference, make the descriptions longer"): a comparative is measured against the thing as
#: it is today, and once the change is made it asks for nothing more.
_MAKE_MORE = (r"make\s+(?:the|these|those|this|that|our|all|its|their)\b[^.;:!?]{1,60}?\b"
              r"(?:longer|shorter|bigger|smaller|wider|narrower|larger|richer|simpler|clearer|"
              r"darker|lighter|faster|slower|more\s+\w+|less\s+\w+)\b")
_MADE_MORE_OPENING = lazy_regex(_OPENING + _MAKE_MORE, re.IGNORECASE)
_MADE_MORE = lazy_regex(r"\b" + _MAKE_MORE, re.IGNORECASE)
#: What before a "make … longer" later in the sentence makes it a rule: an occasion that
#: recurs ("if a request fails, make the retry delay longer") or a subject with a modal
#: ("error messages should make the cause clearer") says what the project does every time.
_RULE_BEFORE = lazy_regex(r"\b(?:if|when|whenever|unless|each time|every time)\b|"
                          r"\b(?:should|must|shall|will|would|can|could)\s+$", re.IGNORECASE)


def made_more(sentence: str) -> bool:
    """A thing made bigger or smaller once (``_MADE_MORE``): the order opening the sentence,
    or after a scope ("for all the pages we link to make …") with no recurring occasion or
    modal subject before it (``_RULE_BEFORE``)."""
    if _MADE_MORE_OPENING.search(sentence):
        return True
    found = _MADE_MORE.search(sentence)
    return found is not None and not _RULE_BEFORE.search(sentence[:found.start()])
#: A "don't" about the things in hand ("do not create any new unit tests", "don't delete
#: these files", "do not write any code"): what not to do in this task, not a rule (unless
#: it gives a reason or a condition, checked by the caller).
_NOT_NOW = lazy_regex(
    r"^\W*(?:(?:please|pls|and|also|but|so|ok(?:ay)?|no)[,\s]+)*(?:do not|don'?t|dont|"
    r"i (?:do not|don'?t) want (?:you )?to)\s+(?:add|create|write|run|delete|remove|change|"
    r"touch|modify|edit|rename|move|update|make|implement|build|start)\s+(?:any(?:\s+(?:new|"
    r"more|other))?|these|those|this|that|it|them)\b", re.IGNORECASE)
_REASON = lazy_regex(r"\b(?:because|since|as|so that|unless|if|when|until|otherwise)\b",
                     re.IGNORECASE)
#: A wish that is a request to the agent ("I'd love to see a first draft", "I'd like for you
#: to double-check …", "I want to know the pros and cons"): what the person wants from this
#: turn, not how the project is done.
_WISH_REQUEST = lazy_regex(
    r"^\W*(?:(?:also|and|so|ok(?:ay)?|yes|yeah|but|now|first)[,\s]+)*i(?:(?:'d|\s+would)\s+"
    r"(?:really\s+|also\s+)*(?:love|like)|\s+(?:really\s+|also\s+)*want)\s+(?:(?:for\s+)?you\s+to\b|to\s+(?:see|know|hear|"
    r"get|understand|learn|review|read|look|try|check|discuss|go over|talk)\b)", re.IGNORECASE)
#: Work put off to later or kept to one change ("we'll handle that later", "for this PR",
#: "in a follow-up"): the time it is tied to is today's ("or later", a version bound, is not).
_LATER = lazy_regex(
    r"(?<!\bor )\blater\b(?!\s+than\b)|\bin a (?:later|follow-?up|separate|future|next|"
    r"subsequent) (?:pr|pull request|commit|change|step|iteration|phase|session|ticket|issue|"
    r"round)\b|\bas a follow-?up\b|\bfor (?:this|the current) (?:pr|pull request|task|change|"
    r"commit|branch|ticket|issue|release|feature|story|sprint|iteration|phase|run|fix|"
    r"migration)\b|\bin this (?:conversation|chat|thread|branch)\b", re.IGNORECASE)
def bounded_in_time(sentence: str) -> bool:
    """The sentence ties itself to now or to the task in hand ("for now", "today", "yet",
    "for this PR", "later"), whatever lasting word it also holds: ``task_scoped`` lets
    "never"/"always" outweigh these, ``lasting`` (for a sentence the model is unsure of)
    does not."""
    return bool(_NOW.search(sentence) or _LATER.search(sentence))


#: What the words before it settle: "if so …", "in that case …" hang on an answer; "I just
#: mean …" explains the last message. (Not "… as well" at the end: it adds to a pick as often
#: as to a correction, "yes, option a, but also support the http config as well"; nor "do it
#: in …": where to do a thing is a correction that stands as often, "no, do it in window 1".)
_HANGS_ON = lazy_regex(
    r"^\W*(?:(?:ok(?:ay)?|yes|yeah|no|so|and|but)[,.!\s]+)*(?:if (?:so|"
    r"not)(?=\s*[,;:]|\s+(?:we|i|you|then|just|let'?s)\b)|in that case|in which case)|"
    r"^\W*(?:(?:no|yes|yeah|ok(?:ay)?|sorry|well)[,.!\s]+)*i (?:just |only )?mean\b",
    re.IGNORECASE)


#: Where a sentence's clauses meet: "; ", ", and", ", but", " and then".
_CLAUSE_BREAK = lazy_regex(r";\s*|,\s*(?:and|but|then|so)\s+|\s+(?:and then|but)\s+")
#: A later clause that replaces what the first one set ("…, and we'll switch to Postgres
#: later"): the first clause is then the temporary state, not a rule.
_REPLACES = lazy_regex(r"\b(?:switch|migrate|move|replace|change|swap|revisit|reconsider|"
                       r"remove|drop|rewrite|upgrade|port|convert|deprecate|revert|get rid|"
                       r"undo|redo)\w*\b", re.IGNORECASE)
#: Words a time cue's clause may hold without saying anything of its own.
_CUE_WORDS = frozenset("at least just only until unless for now later the moment this time "
                       "then and but so".split())


def cue_in_own_clause(sentence: str, cue: Any) -> bool:
    """Every match of the time cue ``cue`` ("later", "for now") sits in a later clause of
    its own that adds to the rule the sentence opens with ("…, and extend with more
    containers later"): it puts off that clause, not the rule. Not when the first clause
    holds the cue ("For now keep …"), the cue's clause says nothing but the cue ("…, at
    least for now") or replaces what the first clause set ("…, and we'll switch … later")."""
    clauses = [c for c in _CLAUSE_BREAK.split(sentence) if c.strip()]
    if len(clauses) < 2 or cue.search(clauses[0]) or len(clauses[0].split()) < 3:
        return False
    cued = [c for c in clauses[1:] if cue.search(c)]
    if not cued or any(_REPLACES.search(c) for c in cued):
        return False
    return all(len([w for w in re.findall(r"[\w'-]+", cue.sub(" ", c))
                    if w.lower() not in _CUE_WORDS]) >= 2 for c in cued)


#: ``one_off``'s reason for an act done once: ``requests`` keeps such a carried-out request as
#: done once (shown with its date), never as a standing decision.
DONE_ONCE = "an act done once for the task"


def one_off(sentence: str) -> str | None:
    """Why ``sentence`` is an instruction for the task in hand rather than a rule for later
    work (module docstring, "one-off"); None when nothing in its form says so. The caller
    has already let a standing marker ("always", "from now on") keep it."""
    if _ONCE_ACT.search(sentence) or _VALUE_CHANGE.search(sentence) \
            or _TEST_ASKED.search(sentence) or made_more(sentence):
        return DONE_ONCE
    if _NOT_NOW.search(sentence) and not _REASON.search(sentence):
        return DONE_ONCE
    if _LETS_STEP.search(sentence):
        return "a step of today's plan"
    if _WISH_REQUEST.search(sentence):
        return "a request to the agent"
    if _LATER.search(sentence) and not cue_in_own_clause(sentence, _LATER):
        return "tied to now"
    if expiring_state(sentence):
        return "a state that expires, not a rule"
    return None


#: The message says the work in hand is provisional: a prototype, a proof of concept, an
#: MVP, a spike, a throwaway, a first draft (what is asked for it holds for it alone).
_PROVISIONAL = lazy_regex(
    r"\b(?:this is|it'?s|it is|we'?re (?:building|making|doing|writing)|(?:build|make|write|"
    r"do|building|making|writing)|for|as)\s+(?:(?:a|an|the|this|our|just|only|quick|simple|"
    r"rough|first)\s+){0,3}(?:prototype|proof[- ]of[- ]concept|poc|mvp|spike|throw-?away|"
    r"mock-?up|first draft)\b", re.IGNORECASE)
PROVISIONAL = "for the work in hand: a prototype"


def for_provisional_work(sentence: str, message: str) -> str | None:
    """Why a sentence of a message that calls the work in hand a prototype (an MVP, a
    proof of concept, a spike, a first draft) is an instruction for that work, not a
    standing preference ("We're building a quick prototype. Keep the UI functional rather
    than polished."): unless the sentence itself says it holds beyond the task ("always",
    "in this project", "from now on")."""
    if _PROVISIONAL.search(message) and not _STANDING.search(sentence):
        return PROVISIONAL
    return None


#: Two reasons a caller may have answered from the session's record (``lenient``).
LEANS_BACK = "leans on what was said before"
NEEDS_NOW = "what the current work needs"


#: The person thinking aloud: a sentence that opens with a guess or a doubt (a few languages).
_GUESS = lazy_regex(
    r"^\W*(?:(?:ok(?:ay)?|so|hm+|and|but|also|well|yes|yeah)\b[,.!]?\s+)*"
    r"(?:i (?:suppose|guess|assume|believe|wonder)|i'?m not sure|not sure|perhaps|maybe|may be|"
    r"probably|possibly|presumably|(?:it )?seems? (?:like|that|to)|je (?:suppose|crois)|"
    r"peut-être|vielleicht|ich (?:glaube|vermute)|quizás?|tal vez|supongo|forse|suppongo|"
    r"talvez)(?![\w'])", re.IGNORECASE)


#: What makes a directive last beyond the task, said of the directive itself: the markers of
#: ``_STANDING`` but the bare quantifier "every" ("keep going until every test passes": there
#: it counts the task's goal, not the occasions the directive holds on).
_LASTING = lazy_regex(
    r"\b(?:always|never|ever|every\s+time|each time|whenever|any ?time|from now on|"
    r"going forward|in (?:the )?future|by default|as a rule|in general|as always|"
    r"in (?:this|the|our|all|every) (?:repo(?:sitory)?|project|codebase|code ?base|team|"
    r"projects|repos))\b", re.IGNORECASE)
#: The agent going on with the work, or stopping it, up to a point of this task ("don't stop
#: until every handler is converted", "keep going until the tests pass", "iterate until it
#: builds", "take no action until I have reviewed it"): the directive lasts as long as the task
#: and ends with it. The verb is the agent's going on, never an act of the project's workflow
#: ("don't merge until CI is green" gates an act, and is left to the other checks).
_GOING_ON = (r"(?:(?:do not|don'?t|dont|never|no)\s+(?:stop(?:ping)?|quit(?:ting)?|give up|"
             r"pause|finish|end|return|yield|hand (?:it |this |them )?back|come back|report "
             r"back|proceed|continue|move on)|stop|keep (?:on\s+)?(?:going|working|at it|trying|"
             r"iterating|fixing|looping|pushing)|carry on|go on|continue(?!\s+to\b)\w*|iterate|"
             r"loop|grind|churn|take no action|do nothing|(?:do not|don'?t) do anything)")
_UNTIL_DONE = lazy_regex(r"\b" + _GOING_ON + r"\b[^.;:!?]{0,60}?\b(?:until|till|untill)\b",
                         re.IGNORECASE)
#: A condition before the directive makes it a procedure for that case ("when a test fails,
#: keep fixing until it passes"), a rule that may stand.
_OCCASION = lazy_regex(r"\b(?:if|when|whenever|in case|each time|every time|after|before)\b",
                       re.IGNORECASE)
UNTIL_DONE = "lasts until the task in hand is done"
#: Not the agent's going on after all: "never" gating the next step ("never proceed until the
#: tests pass" is a rule), stopping or pausing a thing ("don't stop the dev server until …"),
#: or going on using one ("continue using the old client until …").
_NOT_GOING_ON = lazy_regex(
    r"never\s+(?:proceed|continue|move on)\b|"
    r"(?:(?:do not|don'?t|dont|never|no)\s+)?(?:stop(?:ping)?|pause|quit(?:ting)?)\s+"
    r"(?:the|a|an|any|your|its|this|that|these|those|our|my)\s|"
    r"continue\w*\s+(?:using|with)\b", re.IGNORECASE)
#: A thing's behaviour said just before the directive ("the worker must not stop until …",
#: "the deploy script should loop until …"): a program's rule, not the agent told to go on.
_THING_DOES = lazy_regex(
    r"\b(?!(?:you|we|i|u)\b)[\w'-]+\s+(?:should|must|will|shall|can|needs?\s+to|has\s+to|"
    r"is\s+to)\s+(?:not\s+|never\s+)?$", re.IGNORECASE)
#: The task in hand named as the directive's scope ("for this PR, every new file needs a
#: header", "in this branch, always squash", "until this task is done, …"): whatever the
#: sentence then quantifies ("every", "always") holds within that task, not beyond it.
_THIS_TASK = lazy_regex(
    r"\b(?:for|in|within|throughout|during|until the end of|until|till)\s+(?:this|the current)\s+"
    r"(?:pr|pull request|task|change|commit|branch|ticket|issue|session|conversation|chat|"
    r"thread|sprint|iteration|phase)\b", re.IGNORECASE)


def until_done(sentence: str) -> str | None:
    """Why ``sentence`` is a directive bounded by the task's completion (``_UNTIL_DONE``):
    going on, or not stopping, until this task's goal is reached. None when a marker or a
    condition before the directive says it holds beyond the task ("always keep going until
    the suite is green", "when a test fails, keep fixing until it passes")."""
    for going in _UNTIL_DONE.finditer(sentence):
        if _NOT_GOING_ON.match(going.group()):
            continue
        before = sentence[:going.start()]
        if _LASTING.search(before) or _OCCASION.search(before) or _THING_DOES.search(before):
            return None
        return UNTIL_DONE
    return None


#: The work's own passing things pointed at ("this bug", "these failures", "this PR", "these
#: changes"): they exist only while the task does, and only the conversation identifies them.
#: What the sentence asks of them is for this task; once it is done they are gone, and stored
#: alone the words no longer say which things they meant. Not a thing the work leaves in the
#: project (a file, a function, a test: "I want these pages to stay short and skimmable" is a
#: preference about documents that stay), which the other checks read.
_WORK_ITEM = (r"(?:changes?|edits?|diffs?|bugs?|issues?|errors?|failures?|warnings?|"
              r"crash(?:es)?|regressions?|problems?|fix(?:es)?|tasks?|tickets?|todos?|steps?|"
              r"prs?|pull requests?|branch(?:es)?|commits?)")
_THIS_WORK = lazy_regex(
    r"\b(?:these|those)\s+(?!(?:kinds?|types?|sorts?|classes|categories)\s+of\b)"
    r"(?:[\w-]+\s+){0,2}?" + _WORK_ITEM + r"\b(?!\s*(?:\.\w|/))|"
    r"\bthis\s+(?:(?:failing|broken|flaky|new|last|current|same|particular|one)\s+)?"
    r"(?:bug|issue|error|failure|warning|crash|regression|problem|fix|task|ticket|todo|step|"
    r"pr|pull request|branch|commit|change|diff|session)\b(?!\s*(?:\.\w|/))", re.IGNORECASE)
THIS_WORK = "about the passing things of the work in hand (this bug, these changes)"


def task_scoped(sentence: str, lenient: frozenset[str] = frozenset()) -> str | None:
    """Why ``sentence`` is for the task at hand rather than standing; None when it may stand.
    A reason in ``lenient`` is not given: the caller knows from the session that it does not
    hold (a correction the agent conceded and carried out, ``statements``)."""
    if _EDIT_REQUEST.search(sentence) or _EDIT_IT.search(sentence):
        return "asks for an edit to a file"  # first: what it asks to write may say "always"
    if _SCOPE_ONLY.match(sentence.strip()):  # "just the X, not every Y": no rule in it
        return "leans on what was said before"
    if _GUESS.match(sentence):  # before the standing markers: "maybe always…" is unsure
        return "a guess, not a decision"
    bounded = until_done(sentence)  # before the markers: "until every test passes" is the goal
    if bounded:
        return bounded
    if _THIS_TASK.search(sentence) and not cue_in_own_clause(sentence, _THIS_TASK):
        return "tied to now"  # before the markers: "for this PR, every file …" is within it
    if _STANDING.search(sentence):
        return None
    need = _NEED.search(sentence)
    if need and not _CONDITION.search(sentence[:need.start()]) and NEEDS_NOW not in lenient:
        return NEEDS_NOW
    if _NOW.search(sentence) and not cue_in_own_clause(sentence, _NOW):
        return "tied to now"
    maybe = _HYPOTHETICAL.search(sentence)
    if maybe and not _ANY_CONDITION.search(sentence[:maybe.start()]):
        return "hypothetical"
    if _NARRATION.search(sentence):
        return "narrates what happened"
    if not _ANY_CONDITION.search(sentence):
        if _SEQUENCED.search(sentence):
            return "a step of today's plan"
        if _DELIBERATE.search(sentence):
            return "a plan to deliberate, nothing decided"
    if _WANT.search(sentence) and _DELIVERABLE.search(sentence):
        return "a want for what is being made now"
    if _SITUATION.match(sentence.strip()) and not _RULE_WORD.search(sentence):
        return "a remark on the situation, no rule in it"
    if _MOOD.match(sentence.strip()):
        return "mood, not a decision"
    if _AGENT_TURN.search(sentence):
        return "about the agent's turn"
    once = one_off(sentence)
    if once:
        return once
    if _THIS_WORK.search(sentence) and not cue_in_own_clause(sentence, _THIS_WORK):
        return THIS_WORK  # after ``one_off``: an act done once keeps its reason
    if (_LEANS_BACK.search(sentence) or _DEICTIC.search(sentence) or _HANGS_ON.search(sentence)) \
            and LEANS_BACK not in lenient:
        return LEANS_BACK
    return None


#: Going on with the work, whatever the work is ("continue", not "continue using X": a
#: verb of going on followed by another verb is about that other thing).
_GO_ON = (r"(?:proceed|continue|go ahead|go on|carry on|keep going|move on|move forward|"
          r"go forward|start|begin|stop|resume)\b(?!\s+\w+ing\b)")
#: Whether or how to go on: "How do you want me to proceed?", "Shall I continue?", "Should I go
#: ahead with the migration?", "Ready to proceed?", "Proceed with the rest?".
_GOING_ON = lazy_regex(
    r"\bhow (?:would|do|should|shall) (?:you|we|i) (?:(?:like|want|prefer) (?:me |us )?to )?"
    + _GO_ON + r"|"
    r"\b(?:shall|should|can|may) (?:i|we) (?:now |then |just |still )?" + _GO_ON + r"|"
    r"\b(?:want|like|prefer) (?:me|us) to (?:now |then |just |still )?" + _GO_ON + r"|"
    r"\b(?:ready|ok(?:ay)?|fine|good) to " + _GO_ON + r"|"
    r"^(?:proceed|continue|go ahead)\b|\b(?:proceed|continue|go ahead) (?:with|now)\b|"
    r"\bnext steps?\b", re.IGNORECASE)
#: What to do, or in which order: "What would you like me to do next?", "Which should I
#: tackle first?", "In what order should I fix them?".
_ORDER = lazy_regex(
    r"\bin (?:what|which) order\b|\bwhich (?:\w+ )?(?:first|next)\b|"
    r"\b(?:which|what)\b[^?]*\b(?:should|shall|do you want|would you like) (?:i|we|me|us)\b"
    r"[^?]*\b(?:first|next)\b|"
    r"^what (?:should|shall|would you like|do you want) (?:i|me|us|we) (?:to )?do\b",
    re.IGNORECASE)
#: A question choosing among things ("Which approach should I go ahead with?"): the options
#: decide what it is about, unless it asks for an order.
_CHOICE = lazy_regex(r"^(?:which|what)\b", re.IGNORECASE)
#: A yes/no offer of the agent's own next step ("Want me to commit this?", "Would you like me
#: to add tests?", "Shall I open a PR?"): the one thing asked is whether it goes on. With "or"
#: it offers alternatives ("Want me to use Redis or SQLite?"), and naming one of the options
#: laid out ("Want me to patch the tool for option 1?") it puts that option up for choosing:
#: then the options decide what it is about.
_OFFER = lazy_regex(
    r"^(?:(?:so|ok(?:ay)?|and|also|then|now)\W+)*(?:(?:do|would) you (?:want|like) me to|"
    r"want me to|shall i|shall we)\b", re.IGNORECASE)
_ALTERNATIVE = lazy_regex(
    r"\bor\b|\bwhich\b|\beither\b|\b(?:option|approach|alternative|variant|choice)\s*#?\s*"
    r"(?:\d+|(?<=[\s#])[A-E])\b|\b(?:first|second|third|last|other) (?:one|option|approach)\b",
    re.IGNORECASE)
#: A question of a message: a run of words up to its "?"; in a text that asks nothing, each
#: sentence or line is read on its own.
_ASKED = lazy_regex(r"[^.?!\n]*\?")
_SAID = lazy_regex(r"[^.?!\n]+")
#: Markup and list marks before a question's first word.
_LEAD = lazy_regex(r"^[\s>*_#`-]*(?:\d+[.)]\s*)?(?:[*_`]+\s*)?")


def process_question(text: str) -> bool:
    """A question of ``text`` (an agent's question, or the end of its message) asks how the
    agent should go on in general terms: its subject is the agent's next step, a go-ahead or
    the order of work, not what a thing of the project should be. Its answer is a choice for
    today, whatever the options say. Text with no "?" is read sentence by sentence."""
    asked = _ASKED.findall(text) or _SAID.findall(text)
    return any(_going_on(_LEAD.sub("", question).strip()) for question in asked)


def _going_on(question: str) -> bool:
    if _ORDER.search(question):
        return True
    if _CHOICE.match(question):
        return False  # which thing: the options say what it is about
    return bool(_GOING_ON.search(question)) or bool(
        _OFFER.match(question) and not _ALTERNATIVE.search(question))


_TOKEN = lazy_regex(r"[a-z0-9']+")
#: A speech-to-text restart says the same three words again within a few words; a
#: sentence that repeats a phrase further on ("only time and not full date … only day and
#: time and not full date") is stressing it.
_RESTART_WORDS = 6
_FILLER = frozenset("a an the and or but of to in on at for with is are be it this that we i "
                    "you they as so if".split())


#: A program's error as it prints it: a message wrapped in the messages of its callers, each
#: ending in ": " ("fetch failed: validation failed: field x must be …"), one of the callers
#: saying it failed. A person's rule has one label at most ("Imports: use absolute ones"), and
#: a label that is no failure ("almost forgot: code standard: every file needs …") is theirs.
_ERROR_CHAIN = re.compile(r"^([^:\n]{3,80}):\s+([^:\n]{3,120}):\s+\S")
_FAILED = re.compile(r"\b(?:fail(?:s|ed|ure)?|errors?|invalid|unable|cannot|can't|refused|"
                     r"denied|not found|rejected|exception)\b", re.IGNORECASE)


def not_one_rule(sentence: str) -> str | None:
    """Why ``sentence`` does not read as one rule (module docstring); None when it may."""
    chain = _ERROR_CHAIN.match(sentence.strip())
    if chain and (_FAILED.search(chain[1]) or _FAILED.search(chain[2])):
        return "an error message, not a rule"
    words = _TOKEN.findall(sentence.lower())
    seen: dict[tuple[str, ...], int] = {}
    for index in range(len(words) - 2):
        gram = tuple(words[index:index + 3])
        if any(word not in _FILLER for word in gram) \
                and index - seen.get(gram, -_RESTART_WORDS - 1) <= _RESTART_WORDS:
            return "repeats itself"
        seen[gram] = index
    return None


#: The agent speaking of itself: its own turn, not the project.
_FIRST_PERSON = lazy_regex(r"(?:^|[^\w'])(?:I|I'm|I've|I'll|I'd|me|my|myself)(?![\w'])")
#: What happened this turn ("was edited", "were changed", "has been updated").
_REPORTED = lazy_regex(r"\b(?:was|were|has been|have been|had been|got)\s+(?:\w+ly\s+)?"
                       r"(?:\w+ed|made|done|run|written|built|left|kept|set|put|taken|given|"
                       r"found|shown|seen|touched|changed)\b", re.IGNORECASE)
_PROGRESS = lazy_regex(r"^(?:now|next|then|first|still)\b|^(?:running|checking|adding|updating|"
                       r"looking|waiting|starting|working|trying|fixing|investigating)\b",
                       re.IGNORECASE)
#: A state that holds only for now (a branch behind its base, work still pending).
_FOR_NOW = lazy_regex(r"\b(?:still|currently|at the moment|so far|as of now|for now|yet|"
                      r"pending|in progress|by \d+ commits?)\b", re.IGNORECASE)


#: The person addressed ("If you tag releases, …", "capture your team principles"): the
#: agent's advice or instructions to them, outside any quotation.
_SECOND_PERSON = lazy_regex(r"(?<![\w'])(?:you|your|yours|you'll|you're|you've|you'd)(?![\w'])",
                            re.IGNORECASE)
_QUOTED = lazy_regex(r"\"[^\"]*\"|“[^”]*”|'[^']*'|`[^`]*`|\([^()]*\)")


def addresses_person(text: str) -> bool:
    """The agent's bullet speaks to the person (outside quotes, code spans and asides): a
    suggestion ("If you tag releases, a check would prevent drift") or a step for them to take,
    which the session never took up -- not a fact about the project."""
    return bool(_SECOND_PERSON.search(_QUOTED.sub(" ", text)))


def agent_report(text: str) -> str | None:
    """Why the agent's bullet ``text`` reports its turn rather than states a rule of the
    project (module docstring); None when it may be a rule."""
    if _FIRST_PERSON.search(text):
        return "the agent speaks of itself"
    if _PROGRESS.match(text.strip()):
        return "says what the agent is doing"
    if _REPORTED.search(text):
        return "reports what happened"
    if _FOR_NOW.search(text):
        return "a state that holds for now"
    if addresses_person(text):
        return "addresses the person"
    return None
