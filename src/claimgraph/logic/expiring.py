"""A state whose truth expires: not a decision, whoever said it (docs/context.md).

"Our latest release is v0.2.0", "the current version is 1.4.2", "we're now on 3.1.0", "the
branch is 3 commits ahead of main", "PR #12 is merged": each was true on the day it was said
and goes stale by itself, without anyone deciding otherwise. Told to the next session as a
standing decision, it outlives its truth and reads as a rule ("the latest release is v0.2.0"
a month and three releases later). Capture does not store such a sentence as a rule
(``capture.extract.standing``), and the context block never lists a stance that states one
among the standing decisions: it is shown as a fact with the date it was learned.

A sentence that says it holds beyond the moment ("the latest release is always tagged from
main", "the current version must be bumped on every release") is a rule about versions, not
a state. Pure: text in, a yes or no out.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

#: "latest release is", "current version:", "newest tag was", "last deploy = …".
_NAMED_STATE = lazy_regex(
    r"\b(?:latest|current|newest|most recent|last|present)\s+(?:stable\s+|published\s+|public\s+|"
    r"released\s+)?(?:release|version|tag|build|deploy(?:ment)?|branch|commit|sha|head)s?"
    r"(?:\s+(?:of|on|in|for)\s+[\w./@-]+)?\s*(?:is|are|was|were|'s|=|:)\s", re.IGNORECASE)
#: "we're now on 3.1.0", "it is currently at v2.4", "main is now v1.2".
_NOW_AT_VERSION = lazy_regex(
    r"\b(?:is|are|'s|'re|am)\s+(?:now|currently)\s+(?:at\s+|on\s+)?(?:version\s+|release\s+)?"
    r"v?\d+(?:\.\d+)+\b|\b(?:we|it)(?:'re|'s|\s+are|\s+is)\s+(?:now\s+|currently\s+)?on\s+"
    r"(?:version\s+|release\s+)?v?\d+(?:\.\d+)+\b", re.IGNORECASE)
#: Where a branch or a pull request stands: "the branch is 3 commits ahead", "PR #12 is merged".
_WORK_STANDS = lazy_regex(
    r"\b(?:branch|pr|pull request|main|master)(?:\s+#?\d+)?\s+(?:is|was|has been)\s+(?:now\s+|"
    r"already\s+|still\s+)?(?:merged|open|opened|closed|ahead|behind|up to date|up-to-date|"
    r"pushed|rebased|green|red|\d+\s+commits?)\b", re.IGNORECASE)
#: Any of the three, in one pattern: one scan of the text, not three (the viewer's project page
#: judges every stance of a project with it, a quarter of 100,000 facts in its benchmark).
_STATE = lazy_regex("|".join(f"(?:{state.pattern})" for state in (
    _NAMED_STATE, _NOW_AT_VERSION, _WORK_STANDS)), re.IGNORECASE)
#: Words that make a sentence about versions a rule for every day, not a state of one day.
_LASTING = lazy_regex(r"\b(?:always|never|every|each|whenever|must|should|shall|has to|have to|"
                      r"needs? to|by default|from now on|going forward)\b", re.IGNORECASE)


def expiring_state(text: str) -> bool:
    """Does ``text`` state how things stand on the day it was said (a latest release, the
    version in use, where a branch or pull request stands), rather than a rule?"""
    if not _STATE.search(text):
        return False  # tested first: most texts state none, and then the rule words need no look
    return not _LASTING.search(text)

