"""What the agent's own shell could not do here, and the person took up: an environment limit.

A ``git push`` refused for the SSH key, a Docker daemon the shell cannot reach, a program that
is not installed: the next session in this place meets the same wall, and time goes into
finding it again (the person has to say "you don't have access to docker here" a second
time). Such a failure is kept only with three proofs (precision before recall):

- the output says it in the refusal's own words (``logic/out_of_reach.py``), outside a
  harness's sandbox (a sandbox's refusal is the session's settings, not the machine);
- the wall stood to the end: no later run of the same step in the agent's shell passed
  (a key added, a program installed, the daemon started: then it was a moment, not a place);
- the person took it up: a sentence of their reply to it names the step and speaks
  of it as a wall ("never mind, i pushed", "docker is running on your host";
  ``logic/out_of_reach.takes_up``: "go ahead" names ``go`` and takes nothing up). Without
  that, a failure nobody spoke of may be a detour the agent alone took, and it is not stored.

A missing program counts only when the command line itself ran it (a script's own missing
command, ``bash: line 2: $'\\r'``, is the script's failure, ``lessons``'s to read). The fact
quotes the failed step, the output's line and the person's sentence, and cites both lines.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import (
    FAILED, OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import command_text, invocations
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.out_of_reach import Refusal, naming_sentence, refusals

#: The git steps that talk to the project's remote over SSH, and so can meet a refused key.
#: (``clone`` is left out: it reaches another repository, or another copy, never this one.)
_REMOTE_STEPS = frozenset({"push", "pull", "fetch", "ls-remote"})
#: A remote named by its address (``git@host:owner/repo.git``, ``https://…``, ``ssh://…``)
#: rather than by the project's configured name: another repository's, as far as the line
#: tells.
_REMOTE_URL = lazy_regex(r"^(?:[a-z][\w+.-]*://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)
#: The person telling the agent to install the missing program: not a limit of the place
#: ("it isn't installed here" says the wall).
_INSTALL = lazy_regex(r"\binstall(?!ed)", re.IGNORECASE)


def out_of_reach_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    calls = [call for call in view.calls() if command_text(call)]
    seen: set[tuple[str, ...]] = set()
    for index, call in enumerate(calls):
        result = view.results.get(call.call_id or "")
        if result is None or view.outcome(call) != FAILED:
            continue
        for refusal in refusals(result.text):
            step = _step(command_text(call) or "", refusal)
            if step is None or step in seen:
                continue
            if any(_passed(view, later, step) for later in calls[index + 1:]):
                seen.add(step)
                continue  # got past it later: a moment, not the place
            taken_up = _taken_up(view, call.line, step)
            if taken_up is None:
                continue  # the person's reply to a later refusal of the step may take it up
            seen.add(step)
            yield _fact(view, call, step, refusal, taken_up)


def _step(command: str, refusal: Refusal) -> tuple[str, ...] | None:
    """The step the refusal stopped, as the words that name it (``("git", "push")``,
    ``("docker",)``), when the command line itself ran it; a refused key only on the way
    to the project's own remote (a configured name, not another repository's address)."""
    runs = [run.argv for run in invocations(command)]
    if refusal.kind == "ssh-key":
        steps = {("git", argv[1]) for argv in runs
                 if len(argv) > 1 and argv[0] == "git" and argv[1] in _REMOTE_STEPS
                 and not any(_REMOTE_URL.match(word) for word in argv[2:])}
        return steps.pop() if len(steps) == 1 else None
    program = "docker" if refusal.kind == "docker-daemon" else refusal.program
    ran = any(argv and posixpath.basename(argv[0]) == program for argv in runs)
    return (program,) if program and ran else None


def _passed(view: SessionView, call: Event, step: tuple[str, ...]) -> bool:
    """Did this later call run the step in the agent's shell and pass? Only a run whose
    line's success implies its own counts (``which docker || /usr/local/bin/docker version``
    passing says nothing of the second part)."""
    if view.outcome(call) != OK:
        return False
    return any(_runs(run.argv, step) for run in invocations(command_text(call) or "")
               if run.confirmed)


def _runs(argv: tuple[str, ...], step: tuple[str, ...]) -> bool:
    if not argv or posixpath.basename(argv[0]) != step[0]:
        return False
    return len(step) == 1 or (len(argv) > 1 and argv[1] == step[1])


def _taken_up(view: SessionView, after: int, step: tuple[str, ...]) -> tuple[int, str] | None:
    """The sentence of the person's reply to the failure (the first words they typed after
    line ``after``) that takes the step up (its last word: "push" for ``git push``), with
    its line. Words typed later may be about anything by then ("don't push yet")."""
    typed = [(event.line, event.text) for event in view.transcript.events
             if event.is_human_prompt and event.line > after]
    typed += [(event.line, words) for event, words in view.typed_in_results()
              if event.line > after]
    for line, text in sorted(typed)[:1]:
        sentence = naming_sentence(text, step[-1])
        if sentence:
            if len(step) == 1 and _INSTALL.search(sentence):
                return None  # "you can install it": the wall is the agent's to remove
            return line, sentence
    return None


def _fact(view: SessionView, call: Event, step: tuple[str, ...], refusal: Refusal,
          taken_up: tuple[int, str]) -> dict[str, Any]:
    shown = " ".join(step)
    line, sentence = taken_up
    text = (f"`{shown}` does not work from the agent's shell here ({refusal.line}) and no "
            f"later try got past it; the person said afterwards: \"{sentence}\"")
    evidence = [transcript_evidence(call.line, f"{shown}: {refusal.line}"),
                transcript_evidence(line, sentence)]
    return candidate("out-of-reach", view.project or "", "core/failure-mode", text,
                     trust="lessons", evidence=evidence, object_kind="literal",
                     subject_type="project", at=call.timestamp)
