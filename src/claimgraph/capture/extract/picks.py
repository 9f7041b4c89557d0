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
  …"), or agrees with one by name ("I agree with queue-ingest", "Redis is a good choice",
  "Redis it is": then only a line of a list of the agent's names it, and agreeing with what
  the agent said, "I agree with your analysis", is none); not a motion or a task ("let's go
  back to …", "let's go ahead and …", "let's go implement …"; a bare "let's go X" names at
  most three words); or with keeping something
  ("so keep it shopdb") when the agent's line it names is a question about that thing ("is
  the database still `shopdb` on the host?"): otherwise "keep …" is a request;
- what is picked is short (a name, not a specification) and has words of its own;
- most of those words are in the agent's message just before, in one sentence or list line:
  the pick names something the agent offered. That line, quoted under the heading it sits
  in, is stored beside the user's words, since "Postgres" alone does not say what it was
  chosen for.

The pick is stored here whatever the sentence model makes of the sentence: the sentence alone
says only which option, so ``statements`` never stores it (``offered``), and a model that
would keep it cannot put the bare words in the place of the option they name. A pick by label
("Let's patch for option 1") or by position ("the second one") is not read here:
``approvals`` (a short reply picking one of the agent's numbered or labelled options) and
``reconcile`` (a kept "option 2" or "the second one" rewritten to the option's text) read
those.
"""

from __future__ import annotations

from typing import Any, Iterator

from claimgraph.capture.classify.phrases import DECISION
from claimgraph.capture.extract.offered import last_agent_text, offered_line, pick_words
from claimgraph.capture.extract.prose import sentences
from claimgraph.capture.extract.session import SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.standing import process_question
from claimgraph.capture.extract.statements import user_texts

__all__ = ["offered_line", "pick_candidates"]

#: How far from the end of the agent's message its question to the person is looked for.
_QUESTION_TAIL = 1200


def pick_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Decisions the user made by naming one of the agent's alternatives (module docstring)."""
    before = last_agent_text(view)
    for event, text in user_texts(view):
        offered = before.get(event.line)
        if not offered:
            continue
        tail = offered[-_QUESTION_TAIL:]
        if process_question(tail):
            continue  # how to go on with the task: a choice for today
        for sentence in sentences(text):
            said = pick_words(sentence)
            line = offered_line(said, offered)
            if line is None:
                continue
            yield candidate(
                "picks", view.project or "", DECISION, f"{said} — {line}",
                trust="answers.approved",
                evidence=[transcript_evidence(event.line, said)], scope="project",
                object_kind="literal", subject_type="project", at=event.timestamp)
