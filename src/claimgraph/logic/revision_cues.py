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
    # de / fr / es
    r"vergiss (?:das|es)|doch nicht|lass(?:en wir)? das|"
    r"laisse tomber|oublie (?:ça|ca)|finalement (?:non|pas)|"
    r"olvídalo|olvidalo|mejor no)\b",
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
