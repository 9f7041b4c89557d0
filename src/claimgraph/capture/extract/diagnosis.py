"""The cause of a failure, in the words the session found it, attached to the lesson it explains.

A failure-mode lesson from the record (``lessons``, ``ci_lessons``, ``reported``) says what
broke and what made the same check pass. What the next agent most needs is often the cause:
"the runner image lacks libEGL", "`charmcraft pack` does not accept `--resource`", "root
cause: the dialog is imported at module import". Sessions say it in prose between the failure
and the proof. That prose is the agent's (or the person's) hypothesis; here it is kept only
where the record already proved the lesson, and only when ALL hold:

- it was said (by the agent, or by the person in a prompt) after the failure the lesson
  starts from and no later than the run (or the person's word) that proved the fix: the
  window the lesson's own evidence spans; of several,
  the LAST one in that window counts (the understanding the fix acted on), earlier guesses
  never do;
- it is a settled diagnosis in one clean sentence (``logic.diagnosis``): a cause word, a named
  problem or a thing's limit stated outright; no hedge, no question, no condition, no advice,
  not in the first or second person;
- it names something the failure or the fix names: a code span, path, identifier or flag of
  the sentence (``corroborate.named``, at least ``_MIN_NAME`` characters) that the lesson's
  text (its command, error and fixed files) or the failed run's output spells, or a plain
  word of it (a program, a package: "rockcraft", "libEGL") that the lesson's own text holds,
  other than the words every failure says ("failed", "error", "fixed"). A cause that names
  none of it explains something else.

The end-state checks are the lesson's own: only a lesson that survived them (the same failure
back, an outside change, the person acting) gets a cause. The cause is attached to that one
fact, never a second fact beside it: the fact keeps its command, error and fix and reads
"… Cause: <sentence>", and cites the sentence's line among its evidence. Its tier stays the
observed one (``failure-report``): the agent said the cause, the observed fix bears it out.
A ``causes`` fact (the agent's cause proved on its own) saying the same sentence is then the
same knowledge twice, and is left out.
"""

from __future__ import annotations

from typing import Any, Iterable

from claimgraph.capture.extract.corroborate import content_words, named
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.diagnosis import clean, is_diagnosis
from claimgraph.logic.lazy_regex import lazy_regex

FAILURE_MODE = "core/failure-mode"
#: Rules whose lessons the record proved; the agent's own summaries and causes are not.
_PROVED_BY_RECORD = frozenset({"lessons", "ci_lessons", "reported"})
#: A name this short ("test", "app") is in every run: it proves nothing.
_MIN_NAME = 5
CAUSE_MARK = " Cause: "
#: How many citations a fact keeps once the cause's line is among them.
_MAX_EVIDENCE = 4


def attach_diagnoses(view: SessionView, candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` with each proved lesson's cause attached where the session said one."""
    attached: set[str] = set()
    for found in candidates:
        if found.get("predicate") != FAILURE_MODE or found.get("rule") not in _PROVED_BY_RECORD:
            continue
        cause = _diagnosis(view, found)
        if cause is None:
            continue
        line, sentence = cause
        found["object"] = f"{str(found['object']).rstrip('. ')}.{CAUSE_MARK}{sentence}"
        evidence = list(found.get("evidence") or [])
        cited = f"transcript#L{line}: {sentence}"
        found["evidence"] = [*evidence[:1], cited, *evidence[1:]][:_MAX_EVIDENCE]
        attached.add(_key(sentence))
    return [found for found in candidates
            if not (found.get("rule") == "causes" and _key(str(found["object"])) in attached)]


def _key(text: str) -> str:
    return " ".join(clean(text).lower().rstrip(". ").split())


def _diagnosis(view: SessionView, lesson: dict[str, Any]) -> tuple[int, str] | None:
    """The last settled cause said within the lesson's window that names what it names."""
    lines = _cited_lines(lesson)
    if len(lines) < 2:
        return None
    failed, proved = lines[0], max(lines[1:])
    if proved <= failed:
        return None
    told = str(lesson["object"])
    shown = f"{told}\n{_output_at(view, failed)}"
    last: tuple[int, str] | None = None
    for event in view.transcript.events:
        if event.line <= failed:
            continue
        if event.line > proved:
            break
        if not (event.kind == "assistant" or event.is_human_prompt) or event.derived \
                or event.is_sidechain or event.subagent_id:
            continue
        for sentence in sentences(event.text or ""):
            if is_diagnosis(sentence) and (_names_shown(sentence, shown)
                                           or _shares_word(sentence, told)) \
                    and not _restates(sentence, shown):
                last = (event.line, clean(sentence))
    return last


def _cited_lines(lesson: dict[str, Any]) -> list[int]:
    """The transcript lines a lesson's evidence cites, in its order (the failure first)."""
    lines = []
    for cited in lesson.get("evidence") or []:
        head = str(cited).split(":", 1)[0]
        if head.startswith("transcript#L") and head[12:].isdigit():
            lines.append(int(head[12:]))
    return lines


def _output_at(view: SessionView, line: int) -> str:
    """What the failure at ``line`` showed: the text of its events and of their results."""
    texts: list[str] = []
    for event in _events_at(view, line):
        texts.append(event.text or "")
        result = view.results.get(event.call_id or "") if event.kind == "tool_call" else None
        if result is not None:
            texts.append(result.text or "")
    return "\n".join(texts)


def _events_at(view: SessionView, line: int) -> Iterable[Any]:
    return (event for event in view.transcript.events if event.line == line)


def _names_shown(sentence: str, shown: str) -> bool:
    """Does the sentence name (a code span, path, identifier, flag) something ``shown``
    spells?"""
    lowered = shown.lower()
    return any(len(name) >= _MIN_NAME and name.lower() in lowered for name in named(sentence))


#: Words that name a failure without saying why: "the bug was a `KeyError` in `total`".
_NAMING = frozenset("bug bugs issue problem culprit crash crashed crashes exception".split())


def _restates(sentence: str, shown: str) -> bool:
    """Does the sentence only name the failure ("The bug was a `ClashingIds` error in
    `show`"): every word it says, but the words a failure is named with, is in the lesson's
    text or the failed run's output already? Then it tells nothing of why; an earlier sentence
    that does is the cause."""
    said = content_words(clean(sentence)) - _GENERIC - _NAMING
    return not said - content_words(shown)


_CODE_OR_PATH = lazy_regex(r"`[^`]*`|\S*[/\\]\S*")
#: Words every failure and every fix says: sharing one ties a cause to nothing.
_GENERIC = frozenset("""
failed fails failing failure error errors fixed fixes editing edited running command commands
exit code test tests build step works work working missing found cannot could because
""".split())


def _shares_word(sentence: str, told: str) -> bool:
    """Does the sentence say a plain word (of ``_MIN_NAME`` letters or more, not a generic
    failure word, outside its code spans and paths: a path's folder is no program it names)
    that the lesson's own text says?"""
    prose = _CODE_OR_PATH.sub(" ", sentence)
    said = {word for word in content_words(prose) if len(word) >= _MIN_NAME} - _GENERIC
    return bool(said & content_words(told))
