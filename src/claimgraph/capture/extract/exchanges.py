"""The agent's offer and the person's reply: the exchange three readers of decisions share.

``approvals`` (a pick among the agent's labelled options), ``adopted`` (every option taken at
once) and ``proposals`` (one proposed change accepted in prose) each read the same exchange:
the agent's last message before a prompt (what it offered), the prompt (the reply), and what
the person typed in it. They read it the same way, so it is walked once, here:

- **the offer** is the main session's last assistant message with text before the prompt
  (``offered.agent_before_each_prompt``: sub-agents, side chains and messages the harness
  derived are not the agent speaking to the person); a prompt with no such message since the
  one before it answers nothing;
- **what was said** is what the person typed (``statements.user_texts``), or, for a reply too
  short for that (a bare "2", which it drops as pasted output), the typed part of the prompt
  when it is at most ``MAX_REPLY_WORDS`` words;
- **taken back**: a reply the person's very next message takes back ("no wait", "actually …",
  in a few languages) is no reply to read.

Beside the walk, the few judgements of an offer the three readers share: whether a list is led
in as the agent's own next steps (``led_in_as_steps``: a menu, not a choice), whether an
option is a step of the task in hand (``step_of_today``), and the decision they store
(``approved_decision``: the project's, in the person's name at the approved tier, citing the
offer and the reply). Events in, exchanges out.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from claimgraph.capture.events import Event
from claimgraph.capture.extract.offered import agent_before_each_prompt
from claimgraph.capture.extract.prose import request_text, typed_part, without_injected
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.standing import task_scoped
from claimgraph.capture.extract.statements import not_generated, user_texts
from claimgraph.logic.lazy_regex import lazy_regex

DECIDED = "x/decided"
#: The most words of a reply read as a pick; a reply this short is read even where
#: ``user_texts`` drops it.
MAX_REPLY_WORDS = 10
#: How far before a list its lead-in is looked for.
LEAD_IN_CHARS = 200
#: A reply that opens by taking the choice back ("no wait", "actually…").
_TAKEN_BACK = lazy_regex(r"^\W*(?:no|non|nein|wait|actually|hmm|en fait|aspetta|warte|"
                         r"attends|scratch that|undo|revert)\b", re.IGNORECASE)
#: A list led in as things the agent offers to do ("Do you want me to: 1. … 2. …"): a menu of
#: its next steps, not a choice of design.
_MENU = lazy_regex(r"\b(?:want me to|would you like me to|should i|shall i|i can|i could|"
                   r"next steps?)\b", re.IGNORECASE)
#: An option that is a step of the task in hand, by its opening verb (English: the agents
#: whose options were read write them in English even to a person who types French).
_ONE_OFF = lazy_regex(r"^(?:commit|push|merge|run|re-?run|retry|revert|undo|stop|continue|"
                      r"proceed|skip|wait|deploy|release|publish|restart|debug|investigate|"
                      r"try|check|look|leave it|do nothing|abort|cancel|file|open|find|search|"
                      r"show|list|explain|read|review|analy[sz]e|tell|re-?install|install)\b",
                      re.IGNORECASE)


class Exchange(NamedTuple):
    """The agent's last message before a reply, the reply, and what the person typed in it."""

    offer: Event
    reply: Event
    said: str


def offers_and_replies(view: SessionView) -> tuple[Exchange, ...]:
    """Every reply of the main session that follows an agent's message and that the person's
    next message does not take back, in order (module docstring); walked once per view."""
    return view.remembered("exchanges.replies", _offers_and_replies)


def _offers_and_replies(view: SessionView) -> tuple[Exchange, ...]:
    turns = _turns(view)
    found = []
    for index, (offer, reply, said) in enumerate(turns):
        following = turns[index + 1][2] if index + 1 < len(turns) else ""
        if offer is not None and not _TAKEN_BACK.match(following):
            found.append(Exchange(offer, reply, said))
    return tuple(found)


def _turns(view: SessionView) -> list[tuple[Event | None, Event, str]]:
    """(the agent's last message before the reply, the reply, what the person typed in it),
    for every prompt the person typed something in."""
    typed = {event.line: text for event, text in user_texts(view)}
    found: list[tuple[Event | None, Event, str]] = []
    for reply, offer in agent_before_each_prompt(view):
        said = typed.get(reply.line) or _short_reply(reply)
        if said:
            found.append((offer, reply, said))
    return found


def _short_reply(event: Event) -> str:
    """A reply too short for ``user_texts``, which drops a bare "2" as pasted output."""
    text = typed_part(not_generated(request_text(without_injected(event.text)))).strip()
    return text if len(text.split()) <= MAX_REPLY_WORDS else ""


def led_in_as_steps(message: str, start: int) -> bool:
    """The list that starts at ``start`` of ``message`` is led in as the agent's own next
    steps ("Do you want me to: 1. … 2. …"): a menu of what it may do, not a choice."""
    return bool(_MENU.search(message[max(0, start - LEAD_IN_CHARS):start]))


def step_of_today(text: str) -> bool:
    """An option or a proposal that is a step of the task in hand: it opens with a verb of
    doing now (commit, run, push, revert …), or the standing checks find it is for today
    (``standing.task_scoped``). Picking such a step settles nothing for the project."""
    return bool(_ONE_OFF.match(text)) or bool(task_scoped(text))


def approved_decision(view: SessionView, exchange: Exchange, text: str, offer_quote: str,
                      reply_quote: str, stance: str | None = None) -> dict[str, Any]:
    """A decision of the project in the person's name at the approved tier
    (``answers.approved``: the person approved it, the agent worded it), valid from the reply,
    citing ``offer_quote`` on the offer's line and ``reply_quote`` on the reply's; ``stance``
    is what later words may retire, when that is not ``text`` (``reconcile``)."""
    evidence = [transcript_evidence(exchange.offer.line, offer_quote),
                transcript_evidence(exchange.reply.line, reply_quote)]
    return candidate("answers", view.project or "", DECIDED, text, evidence=evidence,
                     trust="answers.approved", object_kind="literal", subject_type="project",
                     at=exchange.reply.timestamp, stance=stance)
