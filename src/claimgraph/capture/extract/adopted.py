"""The user adopting every option the agent just laid out: "we'll take all of them".

``approvals`` reads a reply that picks one of the agent's options and never several ("1 and
3", "both"), since most "yes to all" replies approve a list of next steps. Yet a person also
takes a whole recommendation at once: the agent sets out where each kind of knowledge should
live (a table: design decisions in ``notes/decisions/``, gotchas in ``notes/GOTCHAS.md`` …)
and the person answers "OK, we'll take all of them." Each row is
then the project's decision, in the agent's words and the person's name.

Such a reply is read only when all of this holds (precision first):

- **the offer**: the agent's last message before the reply ends its body with one list of
  two to ``MAX_OPTIONS`` entries: a run of labelled options (``approvals.options``), or else
  the last markdown table (its body rows) or bulleted list; a list led in as the agent's own
  next steps ("Do you want me to: …", ``exchanges.led_in_as_steps``) is no offer, and neither is one
  whose closing question asks how to go on (``standing.process_question``);
- **the reply**: its first sentence is nothing but adopting them all: a verb of taking
  (adopt, accept, take, go with, approve, keep) and "all", "each", "both", "every one" of
  "those", "them", "these" or "the above"; no negation, no hedge, nothing asked. A verb of
  doing ("do all of them", "fix each of those") is a task, not a choice;
- **the options**: none is a step of the task in hand (``exchanges.step_of_today``: a one-off
  verb, or the standing checks' ``task_scoped``);
- **the work**: the session carried it out: an artefact the options name (a path, a file
  name, an identifier) shows newly in what the session wrote or ran afterwards
  (``pick_scope.carried``). A recommendation adopted in words and then not acted on is not
  stored, and neither is one the person's very next message takes back (``exchanges``).

What is kept: one decision listing every entry (``MAX_DECISION_CHARS`` at most, cut at a
word), in the project's scope, at the tier of an option the user approved
(``answers.approved``); the evidence cites the offer and the reply.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.extract.afterwards import known_before, work_after
from claimgraph.capture.extract.approvals import (
    MAX_OPTIONS, MIN_OPTIONS, bounded, options, unmarked)
from claimgraph.capture.extract.exchanges import (
    Exchange, approved_decision, led_in_as_steps, offers_and_replies, step_of_today)
from claimgraph.capture.extract.pick_scope import artefacts, carried
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView, short_quote
from claimgraph.capture.extract.standing import process_question
from claimgraph.logic.lazy_regex import lazy_regex

MAX_DECISION_CHARS = 700
#: A first sentence that adopts every option laid out, and nothing else.
_ALL = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|great|good|perfect|agreed)\W+){0,3}"
    r"(?:(?:let'?s|let us|we'?ll|we will|i'?ll|i will|please)\s+)?"
    r"(?:adopt|accept|take|go with|approve|keep)\s+"
    r"(?:(?:all|each|both|every one)(?:\s+(?:three|four|five))?(?:\s+of)?\s+"
    r"(?:those|them|these|the above|the (?:options|recommendations|suggestions))"
    r"|(?:all|both)(?:\s+(?:three|four|five))?|them all|those all)\W*$",
    re.IGNORECASE)
_HEDGE = lazy_regex(r"\b(?:not|no|don'?t|never|maybe|perhaps|probably|but|except|instead|"
                    r"rather|unless)\b", re.IGNORECASE)
#: A markdown table's row, and the rule under its header.
_ROW = lazy_regex(r"^\s*\|(?P<cells>.*)\|\s*$")
_RULE = lazy_regex(r"^\s*\|?[\s:|-]+\|?\s*$")
_BULLET = lazy_regex(r"^[-*•+]\s+(?P<text>\S.*)$")


def adopted_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """One decision for each reply that adopts every option of the offer (module docstring)."""
    if not view.project:
        return
    for exchange in offers_and_replies(view):
        if not adopts_all(exchange.said):
            continue
        entries = offered_entries(exchange.offer.text)
        if not entries or not _carried_out(view, exchange, entries):
            continue
        yield _candidate(view, exchange, entries)


def adopts_all(said: str) -> bool:
    """The reply's first sentence adopts every option laid out, and says nothing else."""
    first = next(iter(sentences(said)), "").strip()
    return bool(first) and "?" not in first and bool(_ALL.match(first)) \
        and not _HEDGE.search(first)


def offered_entries(message: str) -> list[str]:
    """The entries of the agent's offer, each in plain words (module docstring: "the
    offer"); empty when the message offers no such list."""
    if process_question(message[-400:]):
        return []
    labelled = options(message)
    if labelled:
        entries = [o.whole or o.text for o in labelled]
    else:
        found = _last_list(message)
        if not found:
            return []
        start, entries = found
        if led_in_as_steps(message, start):
            return []
    if not MIN_OPTIONS <= len(entries) <= MAX_OPTIONS:
        return []
    if any(step_of_today(e) for e in entries):
        return []
    return entries


def _last_list(message: str) -> tuple[int, list[str]] | None:
    """(where it starts, its entries) of the message's last table or bulleted list."""
    blocks: list[tuple[int, list[str]]] = []
    offset, current, start, kind = 0, [], 0, ""
    for line in message.splitlines(keepends=True):
        row, bullet = _ROW.match(line), _BULLET.match(line.rstrip("\n"))
        now = "table" if row else "bullet" if bullet else ""
        if now != kind and current:
            blocks.append((start, _entries(kind, current)))
            current = []
        if now:
            if not current:
                start = offset
            current.append(line.strip())
        kind = now
        offset += len(line)
    if current:
        blocks.append((start, _entries(kind, current)))
    blocks = [b for b in blocks if b[1]]
    return blocks[-1] if blocks else None


def _entries(kind: str, lines: list[str]) -> list[str]:
    if kind == "bullet":
        return [unmarked(_BULLET.sub(r"\g<text>", line)) for line in lines]
    body = [line for line in lines[1:] if not _RULE.match(line)] \
        if len(lines) > 2 and _RULE.match(lines[1]) else []
    return ["; ".join(cell for cell in (unmarked(c.strip()) for c in
                                        _ROW.match(line)["cells"].split("|")) if cell)
            for line in body]


def _carried_out(view: SessionView, exchange: Exchange, entries: list[str]) -> bool:
    """An artefact the entries name shows newly in the work after the reply."""
    named = set().union(*(artefacts(entry) for entry in entries))
    return carried(named, work_after(view, exchange.reply.line),
                   known_before(view, exchange.offer.line))


def _candidate(view: SessionView, exchange: Exchange, entries: list[str]) -> dict[str, Any]:
    listed = " | ".join(re.sub(r"\s+", " ", entry).strip(" ;.") for entry in entries)
    text = bounded(f"Adopted by the user, every entry the agent laid out: {listed}",
                   MAX_DECISION_CHARS)
    return approved_decision(view, exchange, text, short_quote(entries[0]),
                             short_quote(exchange.said))
