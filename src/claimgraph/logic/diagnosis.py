"""Is a sentence a settled diagnosis of a failure: the cause, said as a fact about the world?

A failure-mode lesson built from the record ("`pytest -q` failed: ImportError: libEGL.so.1 …;
fixed by editing main_window.py") says what broke and what changed; the next agent also wants
to know WHY, and the session usually said it in words between the failure and the change that
made the same check pass ("Root cause: main_window imported the dialog at module import",
"the runner image lacks libEGL", "charmcraft pack does not accept --resource"). This module
only judges one sentence's shape; whether the record bears it out is the capture rule's
question (``capture/extract/diagnosis.py``).

A diagnosis here is:

- **a cause, not a plan or a status line**: a cause word (``logic.cause_cues``), a named
  problem ("the problem is", "the issue was", "root cause:"), or a limit of a thing stated
  outright ("X does not support Y", "X cannot Y", "X only accepts Y", "X lacks Y", "Y is not
  installed");
- **settled**: no hedge ("might", "probably", "I think", "seems", "could be"), no question, no
  condition ("if"), no advice ("should"), no status of the moment ("still …");
- **about the world, not the speaker**: a sentence in the first or second person ("I'll …",
  "we need …", "you can …") reports the agent's turn or advises the person;
- **one clean sentence**: not the lead-in of a list (ends with ":"), no table or code debris,
  short enough to read in one line.

Pure logic: no I/O.
"""

from __future__ import annotations

import re

from claimgraph.logic.cause_cues import CAUSE_CUES
from claimgraph.logic.lazy_regex import lazy_regex

#: Longer than this is a paragraph, not a sentence the next agent reads at a glance.
MAX_CHARS = 260
#: Shorter than this is a label ("Root cause found."), not a cause.
MIN_WORDS = 5

#: A named problem, and a thing's limit stated outright (English; the cause words of
#: ``cause_cues`` cover the other languages).
_PROBLEM_CUES: tuple[str, ...] = (
    r"\b(?:the|this|that) (?:real |actual |underlying )?(?:problem|issue|culprit|bug|"
    r"failure) (?:is|was)\b",
    # the same, said as a label: "The problem: the cache key leaves out the locale"
    r"^\s*(?:the )?(?:real |actual |underlying )?(?:problem|issue|culprit|bug)\s*:",
    r"\b(?:does|do|did|is|are|was|were)(?:n'?t| not) (?:support|accept|exist|allow|"
    r"include|install|export|recogni[sz]e|resolve|bump|run|load|read|set|pass|fire|"
    r"installed|available|allowed|supported|exported|defined|set|shared|committed|tracked)\w*",
    r"\bcan(?:not|'t)\b", r"\bonly (?:supports?|accepts?|works?|runs?|reads?|allows?)\b",
    r"\blacks?\b", r"\bno longer\b", r"\bnever (?:runs?|ran|fires?|fired|sees?|saw|reads?)\b",
    # a report's labelled cause ("- Cause: the subcommands were registered twice"), and a
    # cause said as where the failure came from ("the failures stemmed from …")
    r"^\s*(?:[-*•+]\s+|\d+[.)]\s+)?(?:\*\*|__)?cause(?:\*\*|__)?\s*:", r"\bstem(?:s|med)? from\b",
)


def _boundary_once(cues: tuple[str, ...]) -> str:
    r"""``\bA|\bB|C`` as ``\b(?:A|B)|C``: a search finds a match in the same texts (only
    whether one exists is asked), but the boundary is tried once at each position rather than
    once per cue there, which made this search most of the causes rule's time."""
    bounded = [cue[2:] for cue in cues if cue.startswith(r"\b")]
    return "|".join([r"\b(?:" + "|".join(bounded) + ")",
                     *(cue for cue in cues if not cue.startswith(r"\b"))])


_CUE = lazy_regex(_boundary_once((*CAUSE_CUES, *_PROBLEM_CUES)), re.IGNORECASE)
#: A guess, a condition, advice, or a step still to take: not a settled cause.
_HEDGE = lazy_regex(
    r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|presumably|apparently|suspect|"
    r"guess|i think|i believe|seems?|seemed|appears?|appeared|not sure|unclear|could|would|"
    r"if|whether|unless|should|need(?:s|ed)? to|still|let'?s|let me|todo|to-do|hypothes\w+|"
    r"peut-être|probablement|vielleicht|quizás|forse)\b|\?", re.IGNORECASE)
#: The speaker or the person addressed: a report of the agent's turn, or advice.
_PERSON = lazy_regex(r"\b(?:I|I'm|I'll|I've|I'd|we|we're|we'll|we've|our|us|you|your|"
                     r"you're|you'll)\b", re.IGNORECASE)
#: What is no sentence of prose: table cells, code fences, a list's lead-in.
_DEBRIS = lazy_regex(r"\||```|^\s*#|:\s*$|\n")
#: Emphasis and a list's or heading's marker, removed before the sentence is kept.
_MARKUP = lazy_regex(r"\*\*|^\s*(?:[-*•+]|\d+[.)])\s+|^\s*>\s*")
#: ``__bold__``, opened where a word can start: a name's own underscores (``__main__.py``,
#: ``__init__``) are the name, not emphasis.
_UNDERSCORE_BOLD = lazy_regex(r"(?<![\w/\\.`])__(?=\S)(.+?)(?<=\S)__(?![\w.])")
#: A label in front of the cause ("Root cause:", "The problem is that"), dropped: the fact
#: already says "Cause:".
_LABEL = lazy_regex(r"^(?:(?:the )?(?:real |actual |underlying )?(?:root[- ]cause|cause|problem|"
                    r"issue|reason|culprit|diagnosis)(?: of [^:]{1,40})?"
                    r"(?:\s*[:—–-]\s*|\s+(?:is|was)\s+(?:that\s+)?)|confirmed\s*[:—–-]\s*)",
                    re.IGNORECASE)


def clean(sentence: str) -> str:
    """The sentence without emphasis, list marker or leading label, spaces collapsed."""
    text = " ".join(_MARKUP.sub("", _UNDERSCORE_BOLD.sub(r"\1", sentence)).split())
    stripped = _LABEL.sub("", text)
    if stripped != text and stripped:
        stripped = stripped[0].upper() + stripped[1:]
    return stripped.strip()


def is_diagnosis(sentence: str) -> bool:
    """Does ``sentence`` (as written) state a cause outright, settled, about the world, in
    one clean sentence?"""
    if _DEBRIS.search(sentence.strip()):
        return False
    text = clean(sentence)
    if not text or len(text) > MAX_CHARS or len(text.split()) < MIN_WORDS:
        return False
    if not _CUE.search(" ".join(sentence.split())) or _HEDGE.search(text) \
            or _PERSON.search(text):
        return False
    return True
