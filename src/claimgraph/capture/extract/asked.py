"""The agent's questions to the user and the answers the user gave, whatever the agent.

Three shapes, one meaning. Claude Code's AskUserQuestion result says, per question text,
``"question"="answer"``: an offered option's label (several joined by ", " for a question that
takes more than one), or what the person typed instead ("Other"); an option shown with a
preview is followed by `` selected preview:`` (or ``selected markdown:``) and the preview's
text, which is the agent's; words the person added to an answer follow it as `` user notes:
…`` (newer versions), up to the next answer or the harness's closing sentence. Codex's
``request_user_input`` result is JSON, ``{"answers": {<question id>: {"answers": [...]}}}``:
the labels of the options picked, and the person's own words as ``user_note: …`` entries (or
any entry that is not an offered label). Gemini's ``ask_user`` result is JSON too,
``{"answers": {"0": "…"}}``: one string per question, by its index, the option's label or the
person's words (all of it for a question that offered no options).

Both become ``Answer``s: what was ``picked`` (the agent worded it: a choice among its options)
and what was ``typed`` (the person's own words, read like a prompt: ``SessionView``'s
``typed_in_results``). An option not picked is never an answer. A Codex answer record carrying
anything besides its ``answers`` list is not read: whether the person chose is then unknown.
So is the recommended option of a question asked with a time-out (``autoResolutionMs``): when
the time runs out the harness picks the recommendation itself, so that answer may be nobody's
choice (the words a person typed still are theirs). Pure parsing of one call and its result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event

_ANSWER = lazy_regex(r'"(?P<q>(?:[^"\\]|\\.)+?)"="(?P<a>(?:[^"\\]|\\.)*?)"'
                     r'(?=,\s*"|\.\s|\.?$|\s+(?:selected \w+|user notes):)')
#: What the person added to an answer in their own words: `` user notes: …`` after it.
_NOTES = lazy_regex(r"\suser notes:\s*")
#: The harness's closing sentence about the answers ("You can now continue with the user's
#: answers in mind.", "Read the answers carefully — …"), after the last answer.
_CLOSING = lazy_regex(r"(?<=[.!?])\s+[^.!?\n]*\banswers\b[^\n]*\Z")
_RECOMMENDED = lazy_regex(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)
#: How Codex marks the words a person added to (or typed instead of) an option.
_NOTE = lazy_regex(r"^\s*user_note\s*:\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """One question's answer: the offered option(s) picked, and the words the person typed
    (either may be empty)."""

    question: Mapping[str, Any]
    picked: str = ""
    typed: str = ""


def parse_answers(text: str) -> dict[str, str]:
    """``"question"="answer"`` pairs of an AskUserQuestion result."""
    return {m["q"].replace('\\"', '"'): m["a"].replace('\\"', '"')
            for m in _ANSWER.finditer(text)}


def parse_notes(text: str) -> dict[str, str]:
    """The notes the person typed to go with each answer of an AskUserQuestion result
    (``"question"="answer" user notes: …``), by question: from the mark to the next
    answer, or for the last answer to the harness's closing sentence."""
    if "user notes:" not in text:
        return {}
    found: dict[str, str] = {}
    matches = list(_ANSWER.finditer(text))
    for index, match in enumerate(matches):
        last = index + 1 == len(matches)
        tail = text[match.end():matches[index + 1].start() if not last else len(text)]
        note = _NOTES.match(tail)
        if note is None:
            continue
        words = tail[note.end():]
        words = _CLOSING.sub("", words) if last else words.rstrip().rstrip(",")
        words = words.strip().rstrip(".").strip()
        if words:
            found[match["q"].replace('\\"', '"')] = words
    return found


def questions(call: Event) -> list[Mapping[str, Any]]:
    """The questions the call asked, each a mapping with at least a ``question`` string."""
    asked = (call.tool_input or {}).get("questions")
    return [q for q in asked if isinstance(q, Mapping) and isinstance(q.get("question"), str)] \
        if isinstance(asked, list) else []


def option_labels(question: Mapping[str, Any]) -> list[str]:
    options = question.get("options") or []
    return [o["label"] for o in options if isinstance(o, Mapping)
            and isinstance(o.get("label"), str)] \
        if isinstance(options, list) else []


def bare(label: str) -> str:
    """An option's label without the agent's "(Recommended)" mark."""
    return _RECOMMENDED.sub(" ", label).strip()


def typed(answer: str, question: Mapping[str, Any]) -> bool:
    """The answer is not one of the offered options (nor several of them, for a question that
    takes more than one): the person typed it."""
    labels = {bare(label).lower() for label in option_labels(question)}
    if not labels:
        return False
    picked = [part.strip().lower() for part in (answer, *answer.split(", "))]
    whole = bare(answer).lower()
    return whole not in labels and not all(bare(part) in labels for part in picked[1:])


def answers(call: Event, result: Event) -> list[Answer]:
    """Every question's answer, in the order the questions were asked; a question with no
    answer (or an answer record of an unknown shape) is left out."""
    structured = _json_answers(result.text)
    if structured is None:
        return _quoted_answers(call, result)
    found = []
    timed = _times_out(call)
    for index, question in enumerate(questions(call)):
        given = structured.get(str(question.get("id") or question["question"]))
        if given is None:
            given = structured.get(str(index))
        if given is None:
            continue
        answer = _one(question, given) if isinstance(given, str) else _split(question, given)
        if timed and answer.picked and _RECOMMENDED.search(answer.picked):
            answer = Answer(question, typed=answer.typed)  # the harness may have picked it
        found.append(answer)
    return [a for a in found if a.picked or a.typed]


def _times_out(call: Event) -> bool:
    """The question resolves itself after a while (module docstring)."""
    return any(key.lower().startswith("autoresol") and value
               for key, value in (call.tool_input or {}).items())


def typed_answers(call: Event, result: Event) -> list[tuple[str, str]]:
    """(question, what the person typed) for each answer that holds the person's own words."""
    return [(a.question["question"], a.typed) for a in answers(call, result) if a.typed]


def _quoted_answers(call: Event, result: Event) -> list[Answer]:
    answered = parse_answers(result.text)
    noted = parse_notes(result.text)
    found = []
    for question in questions(call):
        answer = answered.get(question["question"], "")
        note = noted.get(question["question"], "")
        if not answer.strip():
            continue
        if typed(answer, question):
            words = answer if not note or note.rstrip(". ") == answer.rstrip(". ") \
                else f"{answer}\n{note}"
            found.append(Answer(question, typed=words))
        else:
            found.append(Answer(question, picked=answer, typed=note))
    return found


def _one(question: Mapping[str, Any], answer: str) -> Answer:
    """Gemini's answer to one question, a string: an offered option's label (or several),
    or the person's words, typed instead of an option or as the answer to a question that
    offered none (type ``text``); a yes or no is a pick."""
    if not answer.strip():
        return Answer(question)
    if option_labels(question):
        return Answer(question, typed=answer.strip()) if typed(answer, question) \
            else Answer(question, picked=answer.strip())
    if str(question.get("type") or "text").lower() != "text":
        return Answer(question, picked=answer.strip())
    return Answer(question, typed=answer.strip())


def _json_answers(text: str) -> dict[str, list[str] | str] | None:
    """``{question id: [entries]}`` of a ``{"answers": {...}}`` result; None when the text is
    not that shape. An answer record with more than its list is dropped (module docstring)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    table = parsed.get("answers") if isinstance(parsed, dict) else None
    if not isinstance(table, dict):
        return None
    found: dict[str, list[str] | str] = {}
    for key, record in table.items():
        if isinstance(record, str):  # Gemini: {"answers": {"0": "…"}}, by the question's index
            found[key] = record
            continue
        if not isinstance(record, dict) or set(record) != {"answers"}:
            continue
        entries = record["answers"]
        if isinstance(entries, list) and all(isinstance(e, str) for e in entries):
            found[key] = entries
    return found


def _split(question: Mapping[str, Any], entries: list[str]) -> Answer:
    """Entries naming an offered option are picked; notes and any other text were typed."""
    labels = {bare(label).lower(): label for label in option_labels(question)}
    picked, words = [], []
    for entry in entries:
        note = _NOTE.match(entry)
        if note:
            words.append(entry[note.end():].strip())
        elif bare(entry).lower() in labels:
            picked.append(entry.strip())
        elif entry.strip():
            words.append(entry.strip())
    return Answer(question, ", ".join(picked), "\n".join(w for w in words if w))
