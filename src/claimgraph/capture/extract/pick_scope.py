"""Whether the user's pick among the agent's options settles the project or only today's turn.

An answer to the agent's question is in the user's name, so it outranks almost anything the
capture pass reads; yet about half of the questions agents ask are about the turn itself: how
deep to dig, whether to explain or to change things, which tool to drive the work with, how far
to go before checking back. Their answers settle nothing a later session needs, and a later
prompt often overrides them ("just explain" and then "ok, now change it"). So a pick is kept as
a standing decision only when all of this holds (precision first: when unsure, nothing is
stored):

- **the question is not about this turn**: it does not point at the present work ("here",
  "now", "first", "next", "this session"), ask for a go-ahead ("OK to proceed?"), or ask
  for an extent ("how deep / far / thorough …"). "Want me to go with X or Y?" is no go-ahead:
  with options it offers a choice, and the options decide what it is about;
- **the question is not about the task's aim, voice or reach**: what to optimize or
  prioritize, the style of a report or write-up, a tone or an audience, what a review
  covers (``about_the_task``): the answer steers today's deliverable;
- **the picked option is not a step of someone's**: its text does not open with the agent or
  the person as the one acting ("I run …", "I'll …", "You create …"): a way to carry the work
  out, not a property of the project;
- **the choice shows in what the session wrote afterwards** (or see below): a project
  artefact that only the picked option names (a path, a package or image name, a flag, a
  config key, an identifier, a version) appears in a later file write or edit, or in a
  command the session ran, and in neither the files written nor the person's prompts before
  the question (a name the project used all along is no sign of this choice; commands before
  it are probes of the options);
  or the picked option's label shows there as a name ("Editor Panel" as ``editorPanel``)
  while no other option's label does. Options about depth, scope or ordering name no such
  artefact, and a choice nobody acted on is no evidence of a standing one;
- **no later prompt asks for an option that was not picked**: the person naming what the
  answer ruled out (its own artefact, or its whole label) overrides the answer; the session's
  end state decides.

A pick nothing carries yet still stands when the question asks what a thing of the project
should do or be ("Where should the details panel appear?"), not what someone should do ("Which
linters should we set up?", "What do you want?"): ``Verdict.evidence`` says which, and the
caller stores the weaker one a tier lower.

A kept pick is written by its content, not only its label: the option's label and its
description trimmed to the decision ("Base image: Swap to registry.suse.com — Change both FROM
lines to registry.suse.com/bci/python:3.13"), and the question itself only by its last
interrogative sentence: the premises before it describe the state when it was asked (often
the very thing the answer replaces), not the decision. Pure: strings in, verdicts out.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence
from claimgraph.capture.extract.word_index import Query, found_in, pieces
from claimgraph.logic.lazy_regex import lazy_regex

#: A question about the turn in hand: its present work, a go-ahead, or an extent.
_THIS_TURN = lazy_regex(
    r"\b(?:here|now|first|next|today|so far|for this|this (?:session|task|turn|time|run|pass|"
    r"request|round|step)|go ahead|proceed|ok(?:ay)? to|"
    r"how (?:deep|far|thorough|detailed|exhaustive)|without checking)\b",
    re.IGNORECASE)
#: A question about what the task in hand aims at, how its write-up sounds or how far it
#: reaches: what to optimize or prioritize, a report's style, a tone or an audience, a scope.
_TASK_AIM = lazy_regex(
    r"\boptimi[sz]e (?:for|toward)|\bprioriti[sz]e\b|\bfocus on\b|\b(?:tone|voice|audience|"
    r"register|reading level)\b|\bstyle\b.*\b(?:report|memo|write-?up|summary|deck|slides|"
    r"presentation|comparison|brief|post|email|letter|answer|response)\b|\b(?:report|memo|"
    r"write-?up|summary|deck|slides|presentation|comparison)\b.*\bstyle\b|"
    r"\b(?:this|the) (?:audit|review|task|write-?up|report|investigation) (?:cover|include|"
    r"span)\b", re.IGNORECASE)
#: A header that names the task's aim, extent or voice rather than a thing of the project
#: ("Target" or "Scope" alone is not one: a platform or a version is targeted by the project,
#: the platforms in scope are the project's).
_TASK_HEADER = lazy_regex(r"^(?:depth|tone|voice|audience|target audience|goals?|focus|"
                          r"priorit(?:y|ies)|objective|optimi[sz]ation|report style|"
                          r"writing style)$", re.IGNORECASE)
#: An option written as someone's step: the agent's ("I run …") or the person's ("You create …").
_SOMEONES_STEP = lazy_regex(r"^(?:i|i'll|i'd|i'm|we'll|let me|you|you'll)\b", re.IGNORECASE)
#: A project artefact as options name it: code in backticks, or a token holding a path, a
#: dot, a colon, an underscore, a dash or a digit inside it, a flag, or mixed case (a bare
#: acronym is not one: "API", "MIT" also stand in sentences about anything).
_BACKTICKED = lazy_regex(r"`([^`\n]{2,80})`")
_TOKEN = lazy_regex(r"[\w~.@/:+-]+")
_INNER = lazy_regex(r"\w[./:_-]\w|\d")
_FLAG = lazy_regex(r"^--?[a-z][\w-]+$")
_MIXED = lazy_regex(r"^[A-Za-z]*[a-z][A-Z]")
_PARTS = lazy_regex(r"[/:=,]")
MIN_ARTEFACT_CHARS = 3
_RECOMMENDED = lazy_regex(r"\s*\((?:recommended|suggested|default)\)\s*", re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"(?<=[a-z0-9)\]`'\"])[.!](?=\s+[A-Z(`])")
MAX_DESCRIPTION_CHARS = 180
#: A first sentence this short is a tag line: the next one says what it decides.
SHORT_SENTENCE_CHARS = 50
MIN_QUESTION_WORDS = 5
#: Where an English question names its subject: right after its modal or auxiliary verb.
_MODAL_SUBJECT = lazy_regex(r"\b(?:should|shall|will|would|must|can|could|does|do|is|are)\s+",
                            re.IGNORECASE)
_DETERMINERS = frozenset("the a an these those each every all both".split())
#: A person or a word pointing back: the question is about someone's doing, or unsure.
_PERSONS = frozenset("i we you me us they them he she it this that my our your their its "
                     "there".split())
#: Words a label shares with any sentence, too common to name an option.
_COMMON = frozenset("a an the and or of to in on for with by as at is are be it this that only "
                    "just all both yes no keep use new one".split())


@dataclass(frozen=True)
class Verdict:
    """Whether a pick stands as a project decision, and why not when it does not."""

    keep: bool
    reason: str = ""
    #: What says the pick stands: "work" (the session acted on it), "question" (what the
    #: question asks about is a thing of the project, but nothing carries the choice yet).
    evidence: str = ""


def bare(label: str) -> str:
    """An option's label without the agent's "(Recommended)" mark."""
    return _RECOMMENDED.sub(" ", label).strip()


def option_text(option: Mapping[str, Any]) -> str:
    return f"{option.get('label') or ''} {option.get('description') or ''}"


def about_this_turn(question: str) -> bool:
    """The question points at the work in hand, asks for a go-ahead or for an extent."""
    return bool(_THIS_TURN.search(re.sub(r"\([^()]*\)", " ", question)))


def about_the_task(question: str, header: str = "") -> bool:
    """The question asks what the task in hand aims at, how its write-up should sound or how
    far it reaches (``_TASK_AIM``), or its header names that (``_TASK_HEADER``): the answer
    steers today's work; it is no standing decision of the project."""
    return bool(_TASK_AIM.search(question) or _TASK_HEADER.match(header.strip()))


def someones_step(option: Mapping[str, Any]) -> bool:
    """The option is written as what the agent or the person will do now."""
    description = str(option.get("description") or "").strip()
    return bool(_SOMEONES_STEP.match(bare(str(option.get("label") or "")))
                or _SOMEONES_STEP.match(description))


def artefacts(text: str) -> set[str]:
    """The project artefacts a text names, lowercased: backticked code, and tokens shaped
    like paths, names, flags, keys, versions or acronyms (plain words are not artefacts), each
    also split at ``/`` ``:`` ``=`` so that a part written elsewhere still counts."""
    found = {m.strip().lower() for m in _BACKTICKED.findall(text)}
    for raw in _TOKEN.findall(text):
        token = raw.strip(".:,;-/+@")
        if raw.startswith("--") and _FLAG.match(raw.rstrip(".,;:")):
            found.add(raw.rstrip(".,;:").lower())
            continue
        if _shaped(token):
            found.add(token.lower())
            found.update(part.lower() for part in _PARTS.split(token)
                         if len(part) >= MIN_ARTEFACT_CHARS + 1 and _shaped(part))
    return {a for a in found if len(a) >= MIN_ARTEFACT_CHARS}


def _shaped(token: str) -> bool:
    """A name, not a word: a lowercase compound of plain words ("low-latency", "opt-in") is
    English, so only a digit, a dot, a slash, a colon, an underscore or mixed case makes one."""
    if len(token) < MIN_ARTEFACT_CHARS or not any(c.isalpha() for c in token):
        return False
    if re.fullmatch(r"[a-z]+(?:-[a-z]+)*", token.lower()) and not _MIXED.match(token):
        return False
    return bool(_INNER.search(token) or _MIXED.match(token))


def _mentions(text: str, token: str) -> bool:
    """``token`` occurs in ``text`` as a whole (not "mit" inside "commit"), case aside."""
    return _mention(token).search(text) is not None


@functools.lru_cache(maxsize=256)  # a question's few names, each searched in every text
def _mention(token: str) -> re.Pattern[str]:
    return re.compile(_no_word_before(token, "A-Za-z0-9_") + r"(?![A-Za-z0-9_])",
                      re.IGNORECASE)


def _no_word_before(token: str, word: str) -> str:
    """``(?<![word])token`` with the look back taken after the token's first character, not
    before it: the same matches (the look back now spans that character too), but a pattern
    that opens with a look back is tried at every position of a long text (the work after a
    question, a session's every write) and took three times as long."""
    if not token:
        return rf"(?<![{word}])"
    first = re.escape(token[0])
    return rf"{first}(?<![{word}]{first}){re.escape(token[1:])}"


def distinctive(chosen: Sequence[Mapping[str, Any]],
                others: Sequence[Mapping[str, Any]]) -> set[str]:
    """The artefacts the chosen option(s) name that no other option's text holds."""
    rest = " ".join(option_text(o) for o in others)
    mine = set().union(*(artefacts(option_text(o)) for o in chosen)) if chosen else set()
    return {a for a in mine if not _mentions(rest, a)}


def carried(tokens: Iterable[str], later_work: Sequence[str],
            earlier_work: Sequence[str] = ()) -> bool:
    """Some artefact only the chosen option named shows newly in the work that followed: it
    is in a later write or command and in none the session did before the question (a name
    the project used all along, say the product's, is no sign of this choice)."""
    return any(_new(later_work, earlier_work, Query(_mention(t), pieces(t), whole=True))
               for t in tokens if t)


def label_phrase(label: str) -> re.Pattern[str] | None:
    """An option's label of two words or more as a name in code or prose: its words in order,
    joined by anything but a letter or digit ("Editor Panel": ``editorPanel``, ``editor-panel``,
    "editor panel"); None for a one-word label, too common to tell anything."""
    words = re.findall(r"[^\W_]+", bare(label))
    if len([w for w in words if len(w) >= MIN_ARTEFACT_CHARS and w.lower() not in _COMMON]) < 2:
        return None
    return re.compile(_no_word_before(words[0], r"^\W_") + "".join(
        r"[\W_]*" + re.escape(word) for word in words[1:]) + r"(?![^\W_])", re.IGNORECASE)


def named(option: Mapping[str, Any], later_work: Sequence[str],
          earlier_work: Sequence[str] = ()) -> bool:
    """The option's label shows newly, as a name, in the work that followed."""
    label = str(option.get("label") or "")
    phrase = label_phrase(label)
    return phrase is not None and _new(later_work, earlier_work,
                                       Query(phrase, pieces(bare(label)), whole=False))


def _new(later: Sequence[str], earlier: Sequence[str], query: Query) -> bool:
    """The query's pattern matches some text of ``later`` and none of ``earlier``: through
    their index when the session's work is searched (``word_index``), question after
    question, else text by text."""
    return found_in(later, query) and not found_in(earlier, query)


def shows(chosen: Sequence[Mapping[str, Any]], others: Sequence[Mapping[str, Any]],
          later_work: Sequence[str], earlier_work: Sequence[str] = ()) -> bool:
    """The choice shows in the work that followed: an artefact only the chosen option names
    appears there newly, or its label does as a name while no other option's label does
    (a label is plainer than an artefact: work naming two labels is no evidence of either).
    Another option's artefact appearing too is no counter-evidence: work explains a choice by
    what it replaced ("registry X publishes no amd64 image")."""
    if carried(distinctive(chosen, others), later_work, earlier_work):
        return True
    return any(named(o, later_work, earlier_work) for o in chosen) \
        and not any(named(o, later_work, earlier_work) for o in others)


def overridden(chosen: Sequence[Mapping[str, Any]], others: Sequence[Mapping[str, Any]],
               later_prompts: Iterable[str]) -> bool:
    """A later prompt of the person's asks for an option that was not picked: one of its own
    artefacts, or its whole label (two words or more beyond common ones)."""
    asked_for = []  # per option: its own artefacts, its label when it names the option
    for option in others:
        own = distinctive([option], chosen)
        label = " ".join(bare(str(option.get("label") or "")).lower().split())
        named = len([w for w in re.findall(r"\w+", label) if w not in _COMMON]) >= 2
        if own or named:
            asked_for.append((own, label if named else None))
    # each prompt lowered once, and none when no option could be asked for: this ran once a
    # question and lowered every later prompt first (~0.5 s of a 200 MB pass, issue 29)
    for prompt in later_prompts if asked_for else ():
        lowered = prompt.lower()
        for own, label in asked_for:
            if any(_mentions(lowered, a) for a in own) or (label is not None and label in lowered):
                return True
    return False


def verdict(question: Mapping[str, Any], picked: Sequence[str], later_work: Sequence[str],
            later_prompts: Iterable[str], earlier_work: Sequence[str] = (), *,
            acted_on: bool = True) -> Verdict:
    """Whether the pick of ``picked`` (labels) stands as a project decision (module docstring);
    ``acted_on=False`` leaves out the test of the later work (a reply to options in prose has
    passed stricter checks of its own, ``approvals``)."""
    chosen, others = split_options(question, picked)
    if not chosen:
        return Verdict(False, "the pick names no offered option")
    if about_this_turn(str(question.get("question") or "")) \
            or about_this_turn(str(question.get("header") or "")):
        return Verdict(False, "asks about the turn in hand")
    if about_the_task(str(question.get("question") or ""), str(question.get("header") or "")):
        return Verdict(False, "asks what the task in hand aims at, how it sounds or reaches")
    if any(someones_step(o) for o in chosen):
        return Verdict(False, "the option is a step of the work, not a property of the project")
    if overridden(chosen, others, later_prompts):
        return Verdict(False, "a later prompt asks for what the answer ruled out")
    if not acted_on or shows(chosen, others, later_work, earlier_work):
        return Verdict(True, evidence="work")
    if asks_about_a_thing(str(question.get("question") or "")):
        return Verdict(True, evidence="question")
    return Verdict(False, "nothing the session wrote afterwards carries the choice, and the "
                          "question is about what someone does")


def asks_about_a_thing(question: str) -> bool:
    """The question's own sentence asks what a thing of the project should do or be ("Where
    should the details panel appear?", "Which rig do these beads belong to?", "How should the
    evidence be published?"): its subject, after the modal verb, is neither a person (I, we,
    you: how someone carries out the work, or their situation) nor a pronoun standing for
    something said before; every clause of it ("…, or should it …?") must. A question with no
    interrogative sentence of its own asks nothing."""
    asked = interrogative(question)
    subjects = [_subject(asked[found.end():]) for found in _MODAL_SUBJECT.finditer(asked)]
    return bool(subjects) and all(subjects)


def _subject(rest: str) -> bool:
    """The words after a modal verb name a thing, not a person or a pointer back."""
    words = [w.lower() for w in re.findall(r"[\w'-]+", rest)[:4]]
    head = next((w for w in words if w not in _DETERMINERS), "")
    return bool(head) and head not in _PERSONS and words[0] not in _PERSONS


def picked_labels(question: Mapping[str, Any], answer: str) -> list[str]:
    """The labels an answer names: the whole answer when it is one label (a label may hold a
    comma: "Yes, use it"), else the labels found in it, longest first, else its ", " parts."""
    labels = sorted((o["label"] for o in question.get("options") or []
                     if isinstance(o, Mapping) and isinstance(o.get("label"), str)),
                    key=len, reverse=True)
    lowered = {bare(label).lower(): label for label in labels}
    if bare(answer).lower() in lowered:
        return [answer]
    rest, found = answer, []
    for label in labels:
        for form in (label, bare(label)):
            if form and form in rest:
                found.append(form)
                rest = rest.replace(form, " ", 1)
                break
    return found or [part for part in answer.split(", ") if part.strip()]


def split_options(question: Mapping[str, Any],
                  picked: Sequence[str]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(the options picked, the others), matched by bare label, case aside."""
    options = [o for o in question.get("options") or []
               if isinstance(o, Mapping) and isinstance(o.get("label"), str)]
    wanted = {bare(p).lower() for p in picked}
    chosen = [o for o in options if bare(o["label"]).lower() in wanted]
    return chosen, [o for o in options if o not in chosen]


def decision_text(question: Mapping[str, Any], picked: Sequence[str]) -> str:
    """The decision by its content: header, the picked option's label and what it decides,
    and the question's own interrogative sentence (module docstring)."""
    chosen, _ = split_options(question, picked)
    header = question.get("header") if isinstance(question.get("header"), str) else ""
    if len(chosen) == 1:
        what = bare(chosen[0]["label"])
        gloss = trimmed(str(chosen[0].get("description") or ""))
        if gloss:
            what = f"{what} — {gloss}"
    else:
        what = ", ".join(bare(p) for p in picked)
    asked = interrogative(str(question.get("question") or ""))
    text = f"{header}: {what}" if header else what
    return f'{text} (asked "{asked}")' if asked else text


def trimmed(description: str) -> str:
    """An option's description cut to what it decides: its first sentence (two when the first
    is a tag line), at most ``MAX_DESCRIPTION_CHARS``."""
    flat = " ".join(description.split())
    cuts = [m.end() for m in _SENTENCE_END.finditer(flat)]
    end = next((c for c in cuts if c >= SHORT_SENTENCE_CHARS), len(flat))
    text = flat[:end].rstrip(" .")
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[:MAX_DESCRIPTION_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:—-") + "…"
    return text


def interrogative(question: str) -> str:
    """The question's last sentence that asks (premises before it dropped), parentheses out;
    empty when it asks nothing or too little to stand alone."""
    flat = " ".join(re.sub(r"\s*\([^()]*\)", "", question).split())
    asks = re.findall(r"[^.?!]*\?", flat)
    sentence = asks[-1].strip() if asks else ""
    return sentence if len(sentence.split()) >= MIN_QUESTION_WORDS else ""
