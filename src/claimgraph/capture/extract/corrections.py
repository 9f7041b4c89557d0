"""A correction the session carried out: the person's standing word on how the work is done.

The person watches the agent act and says what is wrong with it ("the lint script should be
local only", "we should not file issues this way"); the agent concedes ("You're right", "Good
point") and undoes or changes what it did. Read alone, such a sentence leans on what was said
before it and the sentence model often calls it a request; the session's record says more: the
agent conceded and the change it then made touches what the sentence names. That is the
person's decision, confirmed by the end state (docs/capture.md, "Corrections").

Nothing is stored on a concession alone (agents concede to anything), nor on a change alone
(the agent changes things all the time): both must follow the sentence, before the person's
next prompt, and the change must name one of the sentence's own words.

``acknowledges``, ``stems`` and ``carried_out`` are pure; ``corrected_prompts`` reads the
session once.
"""

from __future__ import annotations

import re
from typing import Iterable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import command_text, only_reads
from claimgraph.capture.extract.writes import file_ops

#: The agent's reply opens by conceding the person's point (a few languages). Not "Got it",
#: "Sure", "OK": those take any request, not a correction.
_CONCEDES = lazy_regex(
    r"^\W*(?:(?:yes|yeah|ah|oh|ok(?:ay)?)[,.!\s—-]+)?(?:"
    r"you(?:'re|’re| are) (?:\w+ )?(?:right|correct)|"
    r"(?:good|fair|great|valid|excellent|important) (?:point|call|challenge|catch)|"
    r"fair enough|agreed|that makes sense|makes sense|"
    r"(?:vous avez|tu as) raison|bonne (?:remarque|idée)|hai ragione|ha ragione|giusto|"
    r"du hast recht|sie haben recht|tienes razón|tiene razón|"
    r"你说得对|说得对|有道理|确实)", re.IGNORECASE)
#: How far into the reply the concession may come: a prompt typed while the agent worked is
#: answered after the step in hand ("Now let me extend the spec … Good point — …").
_REPLIES_READ = 3
_WORD = lazy_regex(r"[^\W\d_][\w-]{3,}", re.UNICODE)
#: Words that name no thing the work could touch.
_NO_THING = frozenset(
    "about also always anything because before being could doesn does done each even every "
    "everything first from have here into just like make more most much must need needs never "
    "nothing only ought other over probably really same should some something still such sure "
    "than that their them then there these they thing things this those through very want "
    "wants were what when where which while will with without would your file files code "
    "way ways idea think guess maybe please instead actually already anymore rather".split())
#: A stem keeps this many letters: "issues" and "issue", "linting" and "lint" meet.
_STEM = 5


def acknowledges(reply: str) -> bool:
    """The agent's message opens by conceding the person's point."""
    return bool(_CONCEDES.match(reply.strip()))


def stems(sentence: str) -> set[str]:
    """The sentence's words that could name something the work touches, cut to a stem."""
    return {word.lower()[:_STEM] for word in _WORD.findall(sentence)
            if word.lower() not in _NO_THING}


def word_stems(text: str) -> set[str]:
    """Every word of a change's text, cut to a stem (what ``stems`` of a sentence meets).
    A word is lowered once however often the text repeats it (code does)."""
    return {word[:_STEM] for word in map(str.lower, set(_WORD.findall(text)))}


def carried_out(sentence: str, changes: Iterable[str]) -> bool:
    """A change made after the concession names one of the sentence's own words."""
    wanted = stems(sentence)
    if not wanted:
        return False
    return any(wanted & word_stems(change) for change in changes)


def corrected_prompts(view: SessionView) -> dict[int, list[str]]:
    """For each prompt the agent conceded to (in one of its first replies) after acting in
    the turn before: what it then changed before the person's next prompt (the text of each
    file written or edited -- the removed text too: an undo is a change -- and each command
    that is not a plain read). Prompts with no concession, or no action before them, are
    absent."""
    found: dict[int, list[str]] = view.remembered("corrections.prompts", _corrected)
    return found


def _corrected(view: SessionView) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    acted = False
    current: int | None = None
    replies = 0
    conceded = False
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.is_human_prompt:
            current = event.line if acted else None
            acted, replies, conceded = False, 0, False
            continue
        if event.kind == "assistant" and not event.derived and current is not None \
                and not conceded and replies < _REPLIES_READ:
            # only a reply that could still concede is read (a long one is held compressed);
            # the count matters only until then
            text = event.text
            if text.strip():
                replies += 1
                if acknowledges(text):
                    conceded = True
                    found[current] = []
            continue
        if event.kind != "tool_call" or event.derived:
            continue
        ops = file_ops(view, event)
        command = command_text(event)
        texts = [text for op in ops for text in (op.path, op.content,
                                                 *(part for old, new, _ in op.edits
                                                   for part in (old, new)))]
        if not ops and command and not only_reads(command):
            texts.append(command)
        if texts:
            acted = True
            if current is not None and conceded:
                found[current].extend(text for text in texts if text)
    return {line: changes for line, changes in found.items() if changes}
