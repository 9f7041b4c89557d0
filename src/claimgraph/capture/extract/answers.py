"""Answers to the agent's questions: what the user chose, what they turned down, what they approved.

Two harness exchanges carry a user's decision without the user typing a sentence:

- **AskUserQuestion** (Claude Code) and **request_user_input** (Codex): the call lists each
  question with its options; the result says which option was picked, and what the person
  typed (asked.py reads both shapes). A picked option is a decision (``x/decided``, "<header>:
  <label> — <what its description decides>") only when ``pick_scope`` finds it settles the
  project rather than today's turn, was not overridden by a later prompt, and shows in the
  work that followed. When the agent marked an option "(Recommended)" and the
  user picked a part of it, the rest was turned down: ``core/decided-against`` names what the
  recommendation had and the choice lacks ("All four" minus the three chosen is "Sobelow").
  An option merely not picked is never a fact, the recommended one included: choosing one
  place for a panel over another says what was chosen, not that the other is ruled out.
- **ExitPlanMode**: an approved plan's explicit exclusions (a "No-gos" / "Out of scope" /
  "Non-goals" list) are decisions against those things; its title is the approved plan. A
  rejected plan's feedback is the user's own words and is read like a prompt (the same
  checks of a rule's form: not for today, one rule).

The question and the answer are cited from the transcript; the agent's recommendation is never
a fact on its own (the user did not take it).
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.adopted import adopted_candidates
from claimgraph.capture.extract.afterwards import known_before, prompts_after, work_after
from claimgraph.capture.extract.approvals import approval_candidates
from claimgraph.capture.extract.asked import answers
from claimgraph.capture.extract.proposals import option_detail, proposal_candidates
from claimgraph.capture.extract.pick_scope import decision_text, picked_labels, verdict
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import (
    SessionView, candidate, refusal_words, short_quote, transcript_evidence)
from claimgraph.capture.extract.standing import not_one_rule, process_question, task_scoped
from claimgraph.capture.extract.statements import classify, statement_of
from claimgraph.capture.extract.tools import ASK, PLAN

DECIDED, AGAINST = "x/decided", "core/decided-against"
_RECOMMENDED = lazy_regex(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)
_ITEMS = lazy_regex(r"\s*(?:\+|,|&|/|\band\b|\bplus\b)\s*", re.IGNORECASE)
_APPROVED = ("User has approved", "User approved")
_EXCLUSIONS = lazy_regex(r"^(?:no[- ]gos?|out of scope|non[- ]goals?|not (?:in scope|doing)|"
                         r"won'?t do|excluded|scope fences?)\b", re.IGNORECASE)
#: An exclusion that is only put off ("Out of scope (future)", "Not yet", "- CI (separate
#: task)"): the plan leaves it for later work, it does not decide against it.
_DEFERRED = lazy_regex(r"\b(?:future|later|for now|(?:not )?yet|deferred|postponed|follow[- ]?ups?|"
                       r"separate (?:task|pr|ticket|issue|change)|next (?:phase|iteration|step|"
                       r"release|version)|phase \d|v\d)\b", re.IGNORECASE)
_HEADING = lazy_regex(r"^\s*(?:>\s*)?#{1,6}\s*(?P<title>.+?)\s*#*$")
_BULLET = lazy_regex(r"^\s*(?:>\s*)?[-*•]\s+(?P<text>.+)$")
_MAX_EXCLUSIONS = 6
_NEGATION = lazy_regex(r"^(?:no|not|don'?t|do not|never|skip)\s+", re.IGNORECASE)


def answer_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    # options the agent wrote, one picked in a reply (plus the change its question proposed)
    yield from approval_candidates(view, option_detail)
    yield from adopted_candidates(view)  # every option laid out, adopted in one reply
    yield from proposal_candidates(view)  # one change the agent proposed, accepted in a reply
    for action in of_kind(view, ASK, PLAN):
        if action.result is None:
            continue
        if action.kind == ASK:
            yield from _answers(view, action.call, action.result)
        else:
            yield from _plan_verdict(view, action.call, action.result)


def _answers(view: SessionView, call: Event, result: Event) -> Iterator[dict[str, Any]]:
    for answer in answers(call, result):
        if not answer.picked:
            continue  # typed: the person's own words, which the statements rule reads
        question = answer.question
        if process_question(question["question"]) or task_scoped(answer.picked):
            continue  # how to go on with the task in hand: a choice for today
        picked = picked_labels(question, answer.picked)
        found = verdict(question, picked, work_after(view, result.line),
                        prompts_after(view, result.line), known_before(view, call.line))
        if not found.keep:
            continue  # a choice for today's turn, overridden, or unsure: not stored
        # a choice nothing carried yet is held at the tier of an option the user approved
        trust = "answers" if found.evidence == "work" else "answers.approved"
        yield _candidate(view, DECIDED, decision_text(question, picked), call, result,
                         trust, question["question"])
        rejected = turned_down(question.get("options") or [], answer.picked)
        if rejected:
            yield _candidate(view, AGAINST, rejected, call, result, "answers",
                             question["question"])


def turned_down(options: list[Any], answer: str) -> str | None:
    """What a recommended option had that the chosen one lacks (the choice is a part of the
    recommendation); None when nothing was recommended, the recommendation was taken, or
    another option was simply picked instead (module docstring)."""
    labels = [o for o in options if isinstance(o, Mapping) and isinstance(o.get("label"), str)]
    recommended = next((o for o in labels if _RECOMMENDED.search(o["label"])), None)
    if recommended is None or recommended["label"] in answer:
        return None
    name = _RECOMMENDED.sub(" ", recommended["label"]).strip()
    offered = _items(str(recommended.get("description") or "")) or _items(name)
    chosen = {item.lower() for item in _items(answer)}
    missing = [item for item in offered if item.lower() not in chosen]
    if chosen and missing and len(missing) < len(offered):
        return ", ".join(_described(item, labels) for item in missing)
    return None


def _described(item: str, options: list[Mapping[str, Any]]) -> str:
    """An item with the gloss an option gave it ("Sobelow (Phoenix security scanner)")."""
    pattern = re.compile(re.escape(item) + r"\s*(\([^()]{3,60}\))", re.IGNORECASE)
    for option in options:
        found = pattern.search(f"{option['label']} {option.get('description') or ''}")
        if found:
            return f"{item} {found.group(1)}"
    return item


def _items(text: str) -> list[str]:
    parts = [p.strip(" .()") for p in _ITEMS.split(text) if p.strip(" .()")]
    return parts if len(parts) > 1 and all(len(p.split()) <= 3 for p in parts) else []


def _plan_verdict(view: SessionView, call: Event, result: Event) -> Iterator[dict[str, Any]]:
    if result.text.startswith(_APPROVED):
        plan, source = _plan_text(view, call)
        for item in exclusions(plan)[:_MAX_EXCLUSIONS]:
            yield _candidate(view, AGAINST, _NEGATION.sub("", item), source, result,
                             "answers.plan", item)
        return
    said = refusal_words(result.text)
    for sentence in map(statement_of, sentences(said) if said else []):
        predicate = classify(sentence)
        if predicate and not task_scoped(sentence) and not not_one_rule(sentence):
            yield _candidate(view, predicate, sentence, call, result, "answers",
                             sentence)


def _plan_text(view: SessionView, call: Event) -> tuple[str, Event]:
    """The plan the user approved and where it is written: the call's own ``plan``, else the
    longest of the last agent messages before it (where the plan was laid out for approval)."""
    plan = (call.tool_input or {}).get("plan")
    if isinstance(plan, str) and plan.strip():
        return plan, call
    before = [e for e in view.transcript.events if e.kind == "assistant" and e.line < call.line
              and not e.is_sidechain][-3:]
    source = max(before, key=lambda e: len(e.text)) if before else call
    return source.text, source


def exclusions(plan: str) -> list[str]:
    """The bullets under a plan's "No-gos" / "Out of scope" / "Non-goals" heading, except
    what the heading or the bullet only puts off (``_DEFERRED``)."""
    found: list[str] = []
    inside = False
    for line in plan.splitlines():
        heading = _HEADING.match(line) or re.match(r"^\s*(?:>\s*)?\*\*(?P<title>[^*]+)\*\*:?\s*$",
                                                    line)
        if heading:
            title = heading["title"].strip(" :*")
            inside = bool(_EXCLUSIONS.match(title)) and not _DEFERRED.search(title)
            continue
        bullet = _BULLET.match(line)
        if inside and bullet:
            if not _DEFERRED.search(bullet["text"]):
                found.append(bullet["text"].strip(" *"))
        elif inside and line.strip(" >") and not bullet:
            inside = False
    return list(dict.fromkeys(found))


def _candidate(view: SessionView, predicate: str, obj: str, call: Event, result: Event,
               trust: str, quote: str) -> dict[str, Any]:
    evidence = [transcript_evidence(call.line, short_quote(quote)),
                transcript_evidence(result.line, result.text)]
    kind = "literal" if predicate == DECIDED or len(obj.split()) > 3 or "(" in obj \
        else "entity"
    return candidate("answers", view.project or "", predicate, obj, evidence=evidence,
                     trust=trust, object_kind=kind, subject_type="project",
                     at=result.timestamp)
