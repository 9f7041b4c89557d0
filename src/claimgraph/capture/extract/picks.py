"""The user's pick, in their own words, of one of the things the agent just laid out.

When the agent ends a turn by setting out alternatives ("- **Stateless workers** — …",
"If you prefer typed settings, we can add a section … and have the loader read that"), the
person often answers with a bare pick: "Let's go stateless.", "let's go with Postgres". The
sentence model reads such a sentence as a request for today (it has the form of one), and
without the agent's words it says little anyway. Yet it is the project's decision, and the
user's word, not the agent's.

A pick is kept only when all of these hold, so a request that merely starts the same way is
not taken for one:

- the sentence *opens* with a pick ("let's go with …", "we'll stick with …", "OK, let's go
  …"), not a motion or a task ("let's go back to …", "let's go ahead and …", "let's go
  implement …"; a bare "let's go X" names at most three words); or with keeping something
  ("so keep it shopdb") when the agent's line it names is a question about that thing ("is
  the database still `shopdb` on the host?"): otherwise "keep …" is a request;
- what is picked is short (a name, not a specification) and has words of its own;
- most of those words are in the agent's message just before, in one sentence or list line:
  the pick names something the agent offered. That line, quoted under the heading it sits
  in, is stored beside the user's words, since "Postgres" alone does not say what it was
  chosen for.

A pick the sentence model already keeps is left to ``statements``. A pick by label ("Let's patch
for option 1") is not read here: ``approvals`` (a short reply picking one of the agent's
numbered or labelled options) and ``reconcile`` (a kept "option 2" rewritten to the option's
text) read those.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.classify.phrases import DECISION
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.standing import process_question
from claimgraph.capture.extract.statements import user_texts

#: A sentence that opens with a pick: a few assent words, then "let's/we'll/I'll" and a verb
#: of choosing.
_PICK = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then)\W+){0,3}"
    r"(?:(?:let'?s|let us|we'?ll|we will|i'?ll|i will)\s+"
    r"(?:go with|go for|stick with|stay with|settle on|opt for|pick|choose|go)"
    r"|go with|stick with|settle on|opt for)\s+(?P<choice>.+)$",
    re.IGNORECASE)
#: Keeping what is there ("so keep it shopdb"): a pick only as the answer to the agent's
#: question about that very thing ("is the database still `shopdb` on the host?").
_KEEP = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|alright|fine|great|good|right|then|so)\W+){0,3}"
    r"(?:(?:let'?s|let us|we'?ll|we will|just)\s+)?(?:keep|stay with|stay on)"
    r"(?:\s+(?:it|them|using))?\s+(?P<choice>.+)$", re.IGNORECASE)
#: What follows a bare "go" when it is a motion or a task ("let's go back to …", "let's go
#: implement phase 2"), not a pick.
_MOTION = re.compile(r"^(?:back|ahead|on|through|over|into|to|and|now|further|deeper|forward|"
                     r"step|one|live|home|up|down|out|in|there|here|across|around|check|fix|"
                     r"see|look|find|try|do|make|the next|implement|run|build|test|write|add|"
                     r"start|finish|ship|deploy|merge|commit|push|update|read|get|clean|"
                     r"refactor|create|code|work|review|debug|investigate|explore|figure|verify|"
                     r"install|set|configure|change|remove|delete|rename|move|tackle|handle)\b",
                     re.IGNORECASE)
#: A bare "let's go X" picks a name ("let's go stateless"), not a phrase.
_MAX_BARE_GO_WORDS = 3
_WORD = re.compile(r"[^\W_]+")
#: Words that name nothing a person could pick.
_FILLER = frozenset(
    "a an the this that these those it them one ones each all both of for to with and or but "
    "then now for now just only instead please same as other option approach way version "
    "idea plan first second last your my our we you i".split())
#: A pick is a name or a short phrase, never a specification.
_MAX_CHOICE_WORDS = 12
_MAX_OFFERED_CHARS = 240
#: "option 2", "approach B": a pick by label, which other rules read.
_LABEL = re.compile(r"\b(?:option|approach|alternative)\s*#?\s*(?P<label>\d+|[A-E])\b",
                    re.IGNORECASE)
#: How far from the end of the agent's message its question to the person is looked for.
_QUESTION_TAIL = 1200
#: A markdown heading line of the agent's message.
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")


def pick_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Decisions the user made by naming one of the agent's alternatives (module docstring)."""
    from claimgraph.capture.classify.model import shipped

    before = _last_agent_text(view)
    model = None
    for event, text in user_texts(view):
        offered = before.get(event.line)
        if not offered:
            continue
        tail = offered[-_QUESTION_TAIL:]
        if process_question(tail):
            continue  # how to go on with the task: a choice for today
        for sentence in sentences(text):
            said = sentence.strip().rstrip(".!;:").strip()
            line = offered_line(said, offered)
            if line is None:
                continue
            model = model or shipped()
            if model.verdict(said, 0, 1, True).kept:
                continue  # the sentence model keeps it already (statements)
            yield candidate(
                "picks", view.project or "", DECISION, f"{said} — {line}",
                trust="answers.approved",
                evidence=[transcript_evidence(event.line, said)], scope="project",
                object_kind="literal", subject_type="project", at=event.timestamp)


def offered_line(sentence: str, offered: str) -> str | None:
    """The agent's sentence or list line that the user's pick names, or None when the
    sentence is no pick or names nothing the agent offered."""
    if not view_words(sentence):
        return None
    match = _PICK.match(sentence.strip())
    keeping = _KEEP.match(sentence.strip()) if match is None else None
    match = match or keeping
    if not match or _MOTION.match(match["choice"]) or _LABEL.search(match["choice"]):
        return None  # a motion; or a pick by label, which other rules read
    if re.search(r"\bgo$", sentence[:match.start("choice")].rstrip(), re.IGNORECASE) \
            and len(match["choice"].split()) > _MAX_BARE_GO_WORDS:
        return None
    words = view_words(match["choice"]) - _FILLER
    if not words or len(_WORD.findall(match["choice"])) > _MAX_CHOICE_WORDS:
        return None
    best, best_shared, under, heading = None, 0, None, None
    for line in offered.splitlines():
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


def _last_agent_text(view: SessionView) -> dict[int, str]:
    """For each prompt's line, the agent's last message before it (none after another prompt
    or at the start): what the person was answering."""
    found: dict[int, str] = {}
    last: str | None = None
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.kind == "assistant" and not event.derived and event.text.strip():
            last = event.text
        elif event.is_human_prompt:
            if last:
                found[event.line] = last
            last = None
    return found
