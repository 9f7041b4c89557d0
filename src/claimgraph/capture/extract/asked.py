"""The agent's questions to the user and the answers the user gave (Claude Code's AskUserQuestion).

The call lists each question with its options; the result says, per question, which option
was picked or what the person typed instead ("Other"). A picked option is a choice the agent
worded; a typed answer is the person's own words, read like a prompt (``SessionView``'s
``typed_in_results``). Pure parsing of one call and its result.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from claimgraph.capture.events import Event

_ANSWER = re.compile(r'"(?P<q>(?:[^"\\]|\\.)+?)"="(?P<a>(?:[^"\\]|\\.)*?)"(?=,\s*"|\.\s|\.?$)')
_RECOMMENDED = re.compile(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)


def parse_answers(text: str) -> dict[str, str]:
    """``"question"="answer"`` pairs of an AskUserQuestion result."""
    return {m["q"].replace('\\"', '"'): m["a"].replace('\\"', '"')
            for m in _ANSWER.finditer(text)}


def questions(call: Event) -> list[Mapping[str, Any]]:
    """The questions the call asked, each a mapping with at least a ``question`` string."""
    asked = (call.tool_input or {}).get("questions")
    return [q for q in asked if isinstance(q, Mapping) and isinstance(q.get("question"), str)] \
        if isinstance(asked, list) else []


def option_labels(question: Mapping[str, Any]) -> list[str]:
    options = question.get("options") or []
    return [o["label"] for o in options if isinstance(o, Mapping) and isinstance(o.get("label"), str)] \
        if isinstance(options, list) else []


def typed(answer: str, question: Mapping[str, Any]) -> bool:
    """The answer is not one of the offered options (nor several of them, for a question that
    takes more than one): the person typed it."""
    labels = {_RECOMMENDED.sub(" ", label).strip().lower() for label in option_labels(question)}
    if not labels:
        return False
    picked = [part.strip().lower() for part in (answer, *answer.split(", "))]
    whole = _RECOMMENDED.sub(" ", answer).strip().lower()
    return whole not in labels and not all(
        _RECOMMENDED.sub(" ", part).strip() in labels for part in picked[1:])


def typed_answers(call: Event, result: Event) -> list[tuple[str, str]]:
    """(question, what the person typed) for each answer that is not an offered option."""
    answered = parse_answers(result.text)
    return [(q["question"], answered[q["question"]]) for q in questions(call)
            if answered.get(q["question"], "").strip() and typed(answered[q["question"]], q)]
