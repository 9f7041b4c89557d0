"""The words with which a person revises what they asked for earlier (pure, no I/O).

A person's standing request ("the export should zip the files by default") may be revised by
the same person several turns later, in other words ("no, make zipping a separate command,
export stays plain"; "let's not zip after all"). Only their last word on that subject is their
decision (docs/capture.md, "The pass, step by step"). Two small cue lists tell a revision from
a restatement:

- ``CHANGE``: words that turn a stance around without taking it back outright ("instead",
  "rather", "separate", "not … by default", "drop", "revert", "actually"). A sentence with one
  of them revises an earlier request on the same subject only when that sentence is itself
  kept as the person's new request (the new word replaces the old; nothing is lost);
- ``RETRACT``: words that take a request back outright ("never mind", "scratch that", "let's
  not … after all", "forget that", "changed my mind"): enough alone;
- ``OPENER``, ``RETIRES``, ``REFUSES``, ``TAKES_BACK``, ``TEMPORARY``: a person turning an
  earlier stance's own thing down by name ("actually, spaces, not tabs"; "forget Redis"),
  taking back what they said about it, or saying it held only for a while ("that was only
  temporary"). These retire the earlier stance even when the later sentence is not kept
  itself (``revised.turned_away``): what was said is no longer
  the person's word, and storing nothing is better than storing what they took back;
- ``DEFER``: words that put a request off or move it elsewhere ("just add a TODO", "later",
  "a separate command", "out of scope", "not now", "park it"), and ``FOCUS`` ("let's
  concentrate on …"), which puts off whatever it does not name. A deferral retires an earlier
  request only when the deferred clause itself names the request's thing: the user took it
  off this session's table, so it is not a standing decision.

The lists hold English, German, French and Spanish forms of the most common cues. They are
deliberately short: an unrecognised revision only leaves the earlier request stored beside the
later one (as before), while a false cue would drop a standing request.
"""

from __future__ import annotations

import re
from claimgraph.logic.lazy_regex import lazy_regex

#: A person taking back what they asked for, outright.
RETRACT = lazy_regex(
    r"\b(?:never\s*mind|nevermind|scratch that|forget (?:about )?(?:that|it|this)|"
    r"(?:i )?changed my mind|on second thought|let'?s not|let us not|"
    r"(?:don'?t|do not|no need to|not) \w+(?: \w+)? after all|after all,? (?:no|don'?t|not)\b|"
    r"undo (?:that|this|it)|revert (?:that|this|it)|"
    r"(?:scratch|forget|ignore|disregard) what i (?:said|wrote|asked)|i take (?:that|it) back|"
    # de / fr / es
    r"vergiss (?:das|es)|doch nicht|lass(?:en wir)? das|"
    r"laisse tomber|oublie (?:ça|ca)|finalement (?:non|pas)|"
    r"olvídalo|olvidalo|mejor no)\b",
    re.IGNORECASE)

#: A person opening a message or sentence by correcting what was said before ("actually, …",
#: "no, …", "wait, …", "change of plan: …"): it marks the rest of the sentence as a revision.
OPENER = lazy_regex(
    r"^\W*(?:actually|no[,.!:]|nope\b|wait\b|hmm+,?\s+(?:actually|no)\b|on second thought|"
    r"change of plans?|correction\b|i changed my mind|scratch that|oops\b|sorry,?\s+(?:i meant|"
    r"actually)\b|"
    # de / fr / es
    r"doch\b|eigentlich\b|en fait\b|finalement\b|en realidad\b|mejor\b)",
    re.IGNORECASE)

#: The words before a verb that ask NOT to do it: "don't forget the migration" is a
#: reminder, "never drop the index" a rule; neither turns the thing down.
NOT_ASKED_NOT_TO = (r"(?<!n't )(?<!n\u2019t )(?<!\bnot )(?<!\bnever )(?<!\bdont )"
                    r"(?<!\bn')")

#: A person turning a named thing down outright, wherever in the sentence: "forget Redis",
#: "drop the sidecar", "no more mocks", "stop using tabs" (the word after it is the thing);
#: not when asked not to (``NOT_ASKED_NOT_TO``).
RETIRES = lazy_regex(
    r"\b" + NOT_ASKED_NOT_TO + r"(?:forget(?: about)?|drop|ditch|get rid of|no more|"
    r"stop using|do away with|vergiss|oublie|olvida)\s+"
    r"(?:the\s+|a\s+|an\s+|all\s+|any\s+)?(?P<what>[`\w][\w.`/-]*)",
    re.IGNORECASE)

#: The same after an ``OPENER``: "actually, spaces, not tabs"; "no, the bucket instead of
#: Redis". Alone, "not X" is too common ("display local time, not UTC" beside "store UTC").
REFUSES = lazy_regex(
    r"\b(?:(?<!whether )(?<!or )not(?!\s+(?:only|just|even|yet|sure|really)\b)|instead of|"
    r"rather than)\s+(?:the\s+|a\s+|an\s+)?(?P<what>[`\w][\w.`/-]*)",
    re.IGNORECASE)

#: A person taking back what they said about a topic: "ignore what I said about the test
#: fixtures", "I take that back about formatting with black" (``topic``: what it was about).
TAKES_BACK = lazy_regex(
    r"\b(?:(?:scratch|forget|ignore|disregard) what i (?:said|wrote|asked(?: for)?)|"
    r"i take (?:that|it|this) back)\b(?:\s+(?:about|regarding|on|for)\s+"
    r"(?P<topic>[^.,;:!?\n]{3,80}))?",
    re.IGNORECASE)

#: A person saying an earlier stance held only for a while ("that was only temporary", "the
#: mock thing was just for the demo", "X is no longer needed").
TEMPORARY = lazy_regex(
    r"\b(?:was|were)\s+(?:only\s+|just\s+)?(?:temporary|temporarily|a one-?off|a stopgap|"
    r"a (?:temporary )?workaround)\b|\b(?:was|were)\s+(?:only|just)\s+(?:for now|for (?:the|a|"
    r"that|this) [\w-]+|until)\b|\bno longer (?:needed|applies|necessary|required|the case)\b|"
    r"\bdon'?t need (?:it|that|this|them|the [\w-]+(?: [\w-]+)?) any ?more\b",
    re.IGNORECASE)

#: Words that turn a stance around: a revision when the sentence is itself kept as a request.
CHANGE = lazy_regex(
    r"\b(?:instead|rather|separate(?:ly)?|standalone|on its own|its own (?:command|flag|option|"
    r"step|script|file|module)|"
    r"not\b[^.;:!?\n]{0,30}\bby default|by default\b[^.;:!?\n]{0,20}\bnot|opt[- ]in|"
    r"drop|remove|revert|undo|get rid of|no longer|anymore|any more|actually|"
    r"keep (?:it|\w+) (?:plain|simple|as (?:is|it is))|stays? (?:plain|simple|as (?:is|it is))|"
    # de / fr / es
    r"stattdessen|lieber|getrennt|separat|"
    r"plutôt|plutot|à la place|a la place|séparée?s?|"
    r"en su lugar|en vez de|por separado|aparte)\b",
    re.IGNORECASE)

#: Words that put a request off or move it elsewhere (a separate command, task or change).
DEFER = lazy_regex(
    r"(?-i:\bTODOs?\b)|\b(?:add|leave|put|write|make|open|file)\s+(?:a\s+|an?\s+)?"
    r"(?:todo|issue|ticket)\b|"
    r"\b(?:for|until|till|to) later\b|\blater(?=\s*(?:on\b|[.;,!)\n]|$))|"
    r"\b(?:separate|its own|their own) (?:sub)?(?:command|task|pr|pull request|issue|ticket|"
    r"change|session)s?\b|\b(?:another|a new|a follow-?up|a later|a future) (?:task|pr|"
    r"pull request|issue|ticket|change|session)\b|"
    r"\bas a follow-?up\b|\bin a follow-?up\b|\bout of scope\b|\bnot (?:for )?now\b|"
    r"\bnot (?:in|for|part of) this (?:pr|pull request|change|task|session|branch|round)\b|"
    r"\bpark(?:ed|ing)?\b|\bpostpone\w*|\bdefer(?:red|ring)?\b|"
    r"\b(?:another|some other) time\b|\bon hold\b|\bbacklog\b|"
    # de / fr / es
    r"\bspäter\b|\bspaeter\b|\bplus tard\b|\bmás tarde\b|\bmas tarde\b",
    re.IGNORECASE)

#: Turning to something else ("here let's concentrate on the parser"): what it names is kept
#: on the table, so it puts off only a thing named before it.
FOCUS = lazy_regex(r"\b(?:concentrate|focus)(?:ing)? on\b|\bstick to\b|"
                   r"\bkonzentrier\w* (?:uns |dich )?auf\b|\bconcentr\w+ sur\b|"
                   r"\bcentr\w+ en\b", re.IGNORECASE)
