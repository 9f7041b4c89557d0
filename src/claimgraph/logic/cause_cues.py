"""Words an agent uses to name a cause, in a few languages.

A sentence holding one of these says why something happened ("the test failed because the
fixture was cached", "root cause: the index was stale"). Capture keeps such a sentence only
when the session's record proves it (``capture/extract/causes.py``); this list only finds the
candidates. It is short on purpose: a cue missing here costs a lesson, a cue too loose costs
nothing but work, since the record decides.

Pure logic: no I/O.
"""

from __future__ import annotations

import re
from claimgraph.logic.lazy_regex import lazy_regex

#: One alternative per language; each names a cause, not a goal or a plan.
CAUSE_CUES: tuple[str, ...] = (
    # English
    r"\bbecause\b", r"\bcaused by\b", r"\broot[- ]cause\b", r"\bthe (?:real )?reason\b",
    r"\bturn(?:s|ed) out\b", r"\bthe (?:actual |real )?cause\b", r"\bdue to\b",
    # French
    r"\bparce que?\b", r"\bà cause de?\b", r"\bla cause\b", r"\bcause racine\b",
    # Spanish, Italian, Portuguese
    r"\bporque\b", r"\bdebido a\b", r"\bperché\b", r"\bcausa principale\b",
    # German
    r"\bweil\b", r"\bUrsache\b",
    # Chinese, Japanese
    r"因为", r"原因", r"导致", r"原因は",
)
_CUE = lazy_regex("|".join(CAUSE_CUES), re.IGNORECASE)
#: A guess, a plan or an advice is no cause the agent found.
_HEDGE = lazy_regex(r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|i think|i suspect|"
                    r"i believe|seems?|appears? to|not sure|could be|if|whether|unless|"
                    r"i'?m|i am|i'?ll|i will|we'?ll|let me|let'?s|i need|should|optionally|"
                    r"peut-être|probablement|vielleicht|quizás|forse)\b|\?", re.IGNORECASE)


def names_cause(sentence: str) -> bool:
    """Does the sentence state a cause outright (a cue, no hedge, no question)?"""
    return bool(_CUE.search(sentence)) and not _HEDGE.search(sentence)
