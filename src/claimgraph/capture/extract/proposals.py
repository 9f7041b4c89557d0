"""A change the agent proposed in one closing question and the user accepted in prose.

The single-proposal sibling of ``approvals`` (which reads a choice among labelled options):
the agent ends its message with "Want me to add a `sync` command that …?" and the person
answers "yes add the sync command". The person's sentence alone reads like a request for
today, and the agent's proposal alone is only the agent's words; together, and carried out,
they are the person's decision. Stored only when every one of these holds:

- **the proposal**: the agent's message ends in a paragraph whose question offers the agent's
  own next change ("want me to …", "should I …", "shall I …", "would you like me to …"), the
  question names at least one thing of the project (a code span, a file name, an identifier),
  and it is neither a question about how to go on (``standing.process_question``), nor a step
  of the task in hand (it opens with run, commit, push …, or ``standing.task_scoped`` finds
  it is for today: ``exchanges.step_of_today``), nor hedged ("… and maybe have `sync` mention
  it": the agent's guess, ``logic.requested.left_to_the_agent``), which says nothing settled.
  When the question offers another way ("…, or leave it as is?") only the first is the
  proposal, and the reply must name it by a word the other lacks;
- **the acceptance**: the reply's first sentence opens with a yes (or "let's", "go ahead",
  "please"), asks nothing back, hedges nothing (``approvals``' negations and "but"), is short,
  and names a word of the proposal unless the question offered one thing only; the person's
  next message does not take it back (``exchanges``);
- **the work**: a file the session wrote or edited, or a command it ran, after the reply holds
  one of the named things: a proposal never carried out is not a decision.

A question that ``approvals`` reads as a pick among its options is left to it. What is stored is
the proposal in the agent's words, with the person's accepting sentence quoted (their words may
add to it), in the person's name at the approved tier (``answers.approved``): the person
approved it, the agent worded it. Events in, candidates out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.afterwards import work_after
from claimgraph.capture.extract.approvals import HEDGE, OPTION_WORD, WORD, YES, Option, pick
from claimgraph.capture.extract.exchanges import (
    Exchange, approved_decision, offers_and_replies, step_of_today)
from claimgraph.capture.extract.session import SessionView, short_quote
from claimgraph.capture.extract.standing import process_question
from claimgraph.logic.requested import left_to_the_agent

MAX_ACCEPT_WORDS = 25
MAX_PROPOSAL_CHARS = 320
#: The agent offering its own next change, at the start of a question.
_OFFER = lazy_regex(r"^(?:so,?\s+|then,?\s+)?(?:do you want me to|would you like me to|"
                    r"want me to|should i|shall i|may i|can i)\s+(?P<what>.+)$",
                    re.IGNORECASE | re.DOTALL)
#: Where a question turns to another way ("…, or leave it manual for now?").
_OR = lazy_regex(r",?\s+or\s+", re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"(?<=[.?!])\s+")
#: Named things of a project: code spans, file names, identifiers with _ - or inner capitals.
_SPAN = lazy_regex(r"`([^`\n]{2,80})`")
_FILE = lazy_regex(r"\b[\w-]{2,}(?:/[\w.-]+)*\.[a-z][a-z0-9]{0,4}\b")
#: (A word joined by one hyphen is English as often as a name: "read-only", "auto-refresh".)
_IDENT = lazy_regex(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|"
                    r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+){2,}\b")
#: Ways to say yes that open an acceptance beyond ``approvals``' yes words.
_ACCEPT_LEAD = frozenset("let's lets please go do".split())
#: Words too common to name a proposal.
_COMMON = frozenset("the and that this with for from into then also just make sure would "
                    "could should want like them those these there their what which each "
                    "it's that's".split())


@dataclass(frozen=True)
class Proposal:
    """What the agent offered to do, its named things, and the other way it offered."""

    text: str
    named: tuple[str, ...]
    other: str


def proposal_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """The proposals the person accepted and the session carried out (module docstring)."""
    if not view.project:
        return
    for exchange in offers_and_replies(view):
        offer, reply, said = exchange
        if pick(offer.text, said) is not None:
            continue  # a pick among options: approvals' to read
        found = proposal(offer.text)
        accepted = accepting(found, said) if found else None
        if found and accepted and carried_out(found, work_after(view, reply.line)):
            yield _candidate(view, exchange, found, accepted)


def proposal(message: str) -> Proposal | None:
    """The change the last paragraph of ``message`` proposes in a question, or None."""
    paragraph = message.strip().rsplit("\n\n", 1)[-1].strip()
    sentences = [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]
    asked = [i for i, s in enumerate(sentences) if s.endswith("?")]
    if len(asked) != 1:
        return None  # no question, or several: which one the reply answers is unsure
    question = sentences[asked[0]]
    offered = _OFFER.match(question)
    if offered is None or process_question(question):
        return None
    what = offered["what"].rstrip("?").strip()
    split = _OR.search(what)
    first, other = (what[:split.start()], what[split.start():]) if split else (what, "")
    first = first.strip(" ,")
    if step_of_today(first) or left_to_the_agent(first):
        return None  # a step of today, or hedged ("… and maybe …"): not what was settled
    rest = " ".join(sentences[asked[0] + 1:])
    named = _named(f"{first} {rest}")
    if not _named(first) and not (rest and named):
        return None
    text = first[:1].upper() + first[1:] + (f": {rest}" if rest else "")
    if len(text) > MAX_PROPOSAL_CHARS:
        text = text[:MAX_PROPOSAL_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return Proposal(text, named, other)


def _named(text: str) -> tuple[str, ...]:
    found = [*_SPAN.findall(text), *_FILE.findall(_SPAN.sub(" ", text)),
             *_IDENT.findall(_SPAN.sub(" ", text))]
    return tuple(dict.fromkeys(n.strip() for n in found if len(n.strip()) >= 3))


def accepting(found: Proposal, reply: str) -> str | None:
    """The reply's first sentence when it accepts ``found`` (module docstring), else None."""
    first = next((s.strip() for s in _SENTENCE_END.split(reply.strip()) if s.strip()), "")
    words = [w.lower() for w in WORD.findall(first)]
    if not words or "?" in first or len(words) > MAX_ACCEPT_WORDS or HEDGE & set(words):
        return None
    if words[0] not in YES and words[0] not in _ACCEPT_LEAD:
        return None
    mine, theirs = _content(found.text), _content(found.other)
    shared = {w for w in words if len(w) >= 4 and w not in _COMMON
              and any(t.startswith(w) or w.startswith(t) for t in mine)}
    if not shared:
        return None  # a bare yes may approve a step of today
    if words[0] not in YES and not _same_verb(words[1:2], found.text):
        return None  # "let's …" without a yes accepts only by the proposal's own verb;
        # another verb is a request of its own
    if found.other and not shared - theirs:
        return None  # a yes to an either-or question picks neither
    return first


def _same_verb(said: list[str], proposed: str) -> bool:
    """The reply's verb is the proposal's first word ("patch" and "Patch the tool …")."""
    first = WORD.findall(proposed)[:1]
    return bool(said and first) and said[0][:4] == first[0].lower()[:4]


def _content(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text) if len(w) >= 4 and w.lower() not in _COMMON}


def carried_out(found: Proposal, work: Sequence[str]) -> bool:
    """Some later work holds one of the proposal's named things, every word of it. Each text
    is lowered when it is read, not all at once: the work after an early reply is most of
    what a long session wrote (~11 MB lowered at once at 200 MB, the answers' peak)."""
    wanted = [parts for parts in ([p for p in re.split(r"[\s`:()]+", name.lower()) if len(p) >= 3]
                                  for name in found.named) if parts]
    if not wanted:
        return False
    for text in work:
        lowered = text.lower()
        if any(all(p in lowered for p in parts) for parts in wanted):
            return True
    return False


def _candidate(view: SessionView, exchange: Exchange, found: Proposal,
               accepted: str) -> dict[str, Any]:
    return approved_decision(
        view, exchange, f'{found.text} (the agent\'s proposal, accepted by the user: "{accepted}")',
        short_quote(found.text), short_quote(accepted))


def option_detail(view: SessionView, exchange: Exchange, option: Option) -> str:
    """The change the agent's closing question proposed for the option the person picked
    ("Want me to patch the tool for option 1? …"), when the question names that option, the
    reply accepts it and the session carried it out; else "" (``approvals.Detail``)."""
    offer, reply, said = exchange
    found = proposal(offer.text)
    if found is None or not re.search(rf"\b{OPTION_WORD}\s+{re.escape(option.label)}\b",
                                      found.text, re.IGNORECASE):
        return ""
    if accepting(found, said) and carried_out(found, work_after(view, reply.line)):
        return found.text
    return ""
