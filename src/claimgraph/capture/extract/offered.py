"""Which of the agent's options a sentence of the user's picks: the resolution an option pick
needs, shared by ``picks`` (which stores the pick with the line it names), ``statements``
(which therefore never stores the bare pick sentence) and ``reconcile`` (which rewrites a kept
pick by position to the option's text).

A pick sentence ("let's go with Apache", "we'll stick with cookie sessions", "let's go with
the second one") says which option, not what it is: stored alone it tells a later session
nothing, and stored beside the option it would stand in its place. So the sentence itself
carries no fact; the option it resolves to does (docs/capture.md, "What the built-in extractor
reads"). ``offered_line`` resolves a pick by name, ``position_pick`` reads a pick by position;
a pick by label ("option 2") is ``reconcile``'s and ``approvals``'. Pure apart from reading the
session's events (``last_agent_text``).
"""

from __future__ import annotations

import re
from typing import Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.packed import blank
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView

#: A sentence that opens with a pick: a few assent words, then "let's/we'll/I'll" and a verb
#: of choosing.
_PICK = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then)\W+){0,3}"
    r"(?:(?:let'?s|let us|we'?ll|we will|i'?ll|i will)\s+"
    r"(?:go with|go for|stick with|stay with|settle on|opt for|pick|choose|go)"
    r"|go with|stick with|settle on|opt for)\s+(?P<choice>.+)$",
    re.IGNORECASE)
#: Keeping what is there ("so keep it shopdb"): a pick only as the answer to the agent's
#: question about that very thing ("is the database still `shopdb` on the host?").
_KEEP = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then|so)\W+){0,3}"
    r"(?:(?:let'?s|let us|we'?ll|we will|just)\s+)?(?:keep|stay with|stay on)"
    r"(?:\s+(?:it|them|using))?\s+(?P<choice>.+)$", re.IGNORECASE)
#: Agreement that names the option ("I agree with queue-ingest", "agreed on the Redis one"), or
#: the option named and then judged a good choice ("Redis is a good choice", "Redis it
#: is"): a pick, but only of a line of the agent's list (``offered_line``'s ``listed``).
_AGREE = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then|so)\W+){0,3}"
    r"(?:i\s+)?(?:(?:fully|totally|also)\s+)?(?:agree|agreed)\s+(?:with|on)\s+(?P<choice>.+)$",
    re.IGNORECASE)
_JUDGED = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then|so)\W+){0,3}"
    r"(?P<choice>[^,;:]+?)\s+(?:(?:is|seems|sounds like|looks like)\s+(?:a|the)\s+"
    r"(?:good|great|solid|fine|sound|sensible|right|better|best|safe)\s+"
    r"(?:choice|selection|pick|call|option|fit)|it is)\b(?:[\s,;:.!-].*)?$",
    re.IGNORECASE)
#: Words of an agreement that name no option ("I agree with your analysis", "agreed on all
#: of that"): agreeing with what the agent said, not picking among what it offered.
_NOT_AN_OPTION = frozenset(
    "you analysis assessment recommendation recommendations suggestion suggestions point "
    "points take reasoning everything most all some part parts above said what here there "
    "so far rest".split())
#: A line of a list or a heading of the agent's message: where options are laid out.
_LISTED = lazy_regex(r"^\s*(?:[-*•+]\s+|\d{1,2}[.)]\s+|[A-Ea-e][.)]\s+|\|?\s*\*\*|#{1,6}\s+)")
#: A list of options has two lines at least.
_MIN_LISTED = 2
#: What follows a bare "go" when it is a motion or a task ("let's go back to …", "let's go
#: implement phase 2"), not a pick.
_MOTION = lazy_regex(r"^(?:back|ahead|on|through|over|into|to|and|now|further|deeper|forward|"
                     r"step|one|live|home|up|down|out|in|there|here|across|around|check|fix|"
                     r"see|look|find|try|do|make|the next|implement|run|build|test|write|add|"
                     r"start|finish|ship|deploy|merge|commit|push|update|read|get|clean|"
                     r"refactor|create|code|work|review|debug|investigate|explore|figure|verify|"
                     r"install|set|configure|change|remove|delete|rename|move|tackle|handle)\b",
                     re.IGNORECASE)
#: A bare "let's go X" picks a name ("let's go stateless"), not a phrase.
_MAX_BARE_GO_WORDS = 3
_WORD = lazy_regex(r"[^\W_]+")
#: Words that name nothing a person could pick.
_FILLER = frozenset(
    "a an the this that these those it them one ones each all both of for to with and or but "
    "then now for now just only instead please same as other option approach way version "
    "idea plan first second last your my our we you i".split())
#: A pick is a name or a short phrase, never a specification.
_MAX_CHOICE_WORDS = 12
_MAX_OFFERED_CHARS = 240
#: "option 2", "approach B": a pick by label, which other rules read.
_LABEL = lazy_regex(r"\b(?:option|approach|alternative)\s*#?\s*(?P<label>\d+|(?<=[\s#])[A-E])\b",
                    re.IGNORECASE)
#: A markdown heading line of the agent's message.
_HEADING = lazy_regex(r"^\s{0,3}#{1,6}\s+\S")


def offered_line(sentence: str, offered: str) -> str | None:
    """The agent's sentence or list line that the user's pick names, or None when the
    sentence is no pick or names nothing the agent offered."""
    if not view_words(sentence):
        return None
    match = _PICK.match(sentence.strip())
    keeping = _KEEP.match(sentence.strip()) if match is None else None
    agreeing = None if match or keeping else \
        _AGREE.match(sentence.strip()) or _JUDGED.match(sentence.strip())
    if agreeing and view_words(agreeing["choice"]) & _NOT_AN_OPTION:
        return None  # agreeing with what the agent said, not with an option
    match = match or keeping or agreeing
    if not match or _MOTION.match(match["choice"]) or _LABEL.search(match["choice"]):
        return None  # a motion; or a pick by label, which other rules read
    if re.search(r"\bgo$", sentence[:match.start("choice")].rstrip(), re.IGNORECASE) \
            and len(match["choice"].split()) > _MAX_BARE_GO_WORDS:
        return None
    words = view_words(match["choice"]) - _FILLER
    if not words or len(_WORD.findall(match["choice"])) > _MAX_CHOICE_WORDS:
        return None
    best, best_shared, under, heading = None, 0, None, None
    lines = offered.splitlines()
    if agreeing:  # only a line of the agent's list, and only when it lists some
        lines = [line for line in lines if _LISTED.match(line) or _HEADING.match(line)]
        if len(lines) < _MIN_LISTED:
            return None
    for line in lines:
        if _HEADING.match(line):
            heading = _plain(line)
        for part in sentences(line):
            shared = len(words & view_words(part))
            if shared > best_shared:
                best, best_shared, under = part, shared, heading
    if best is None or 2 * best_shared < len(words):
        return None
    if keeping and not best.rstrip().endswith("?"):
        return None  # "keep X" answers a question about X, or it is a request
    best = _plain(best)
    if under and under != best:
        best = f"{under}: {best}"  # the heading names what the alternatives were for
    return best[:_MAX_OFFERED_CHARS]


def view_words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _plain(text: str) -> str:
    text = re.sub(r"\*\*|__|`", "", text)
    return re.sub(r"^\s*(?:#{1,6}|[-*•]|\d+[.)])\s*", "", " ".join(text.split())).strip()


def last_agent_text(view: SessionView) -> Mapping[int, str]:
    """For each prompt's line, the agent's last message before it (none after another prompt
    or at the start): what the person was answering."""
    return view.remembered("offered.last_agent_text", _last_agent_text)


def resolved_pick(view: SessionView, line: int, sentence: str) -> str | None:
    """The agent's line that ``sentence``, typed at ``line``, picks (``offered_line`` against
    the agent's message just before it), or None when it picks nothing offered."""
    offered = last_agent_text(view).get(line)
    return offered_line(pick_words(sentence), offered) if offered else None


def pick_words(sentence: str) -> str:
    """The sentence as a pick is read: without its closing stop."""
    return sentence.strip().rstrip(".!;:").strip()


def agent_before_prompts(view: SessionView, *, command_args: bool = False
                         ) -> Iterator[tuple[int, str | None]]:
    """Each prompt's line with the text of the agent's last message before it
    (``agent_before_each_prompt``). The walk both the pick reader and the sentence model's
    "answers the agent" feature use."""
    for prompt, last in agent_before_each_prompt(view, command_args=command_args):
        yield prompt.line, last.text if last else None


def agent_before_each_prompt(view: SessionView, *, command_args: bool = False
                             ) -> Iterator[tuple[Event, Event | None]]:
    """Each prompt of the main session with the agent's last message before it (None after
    another prompt or at the start); ``command_args``: the arguments typed after a slash
    command count as a prompt too. A sub-agent's, a side chain's or a derived message is not
    the agent speaking to the person. The one walk of what each prompt answers (``picks``,
    ``statements``, ``exchanges``). Only the message a prompt answers is read whole (an
    agent's long message is held compressed: ``packed``)."""
    last: Event | None = None
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.kind == "assistant" and not event.derived and not blank(event):
            last = event
        elif event.is_human_prompt or (command_args and event.kind == "meta"
                                       and "<command-args>" in event.text):
            yield event, last
            last = None


def _last_agent_text(view: SessionView) -> Mapping[int, str]:
    return AgentTextByLine(view)


class AgentTextByLine(Mapping[int, str]):
    """Prompt line -> the text of the agent's last message before it (``agent_before_prompts``,
    the prompts after none left out), each read from its event when asked: the event holds a
    long message compressed, and a dict of the texts held every message a prompt answered
    inflated while the statements and picks ran (~3 MB each at 200 MB)."""

    __slots__ = ("_events",)

    def __init__(self, view: SessionView, *, command_args: bool = False) -> None:
        self._events = {prompt.line: last for prompt, last
                        in agent_before_each_prompt(view, command_args=command_args)
                        if last is not None}  # a message ``blank`` let through has text

    def __getitem__(self, line: int) -> str:
        return self._events[line].text

    def __iter__(self) -> Iterator[int]:
        return iter(self._events)

    def __len__(self) -> int:
        return len(self._events)


#: A sentence that is nothing but a pick by position ("let's go with the second one", "the
#: last option please", "OK, I'll take the first"): which option, by its place in the list.
_POSITION_PICK = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then|so)\W+){0,3}"
    r"(?:(?:(?:let'?s|let us|we'?ll|we will|i'?ll|i will)\s+)?(?:go with|go for|stick with|"
    r"settle on|opt for|pick|choose|take|use)\s+)?(?:the\s+)?"
    r"(?P<position>first|second|third|fourth|last)"
    r"(?:\s+(?:one|option|approach|alternative|choice|variant))?(?:\W+please)?\W*$",
    re.IGNORECASE)
_POSITIONS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}


def position_pick(sentence: str) -> int | None:
    """The index (0-based, -1 for the last) of the option a sentence that is only a pick by
    position names; None for any other sentence."""
    match = _POSITION_PICK.match(sentence.strip())
    return _POSITIONS[match["position"].lower()] if match else None
