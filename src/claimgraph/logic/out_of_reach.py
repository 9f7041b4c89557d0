"""What a command's output says the agent's own environment cannot do: pure text rules.

Some failures are not the project's and not a bug of the moment: the shell the agent runs in
has no key the git remote accepts, no Docker daemon it may reach, no such program at all. The
next session in the same place meets the same wall, and the useful thing to know is that it is
there (and, often, that the person does that step themselves). This module only reads text:
which refusal an output shows, and which sentence of the person's names the step that hit it.
Deciding that the wall stood to the end of the session is ``capture/extract/out_of_reach.py``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.terminal import without_escapes

#: git's words when the remote refused the agent's SSH key (``git push``, ``git fetch``).
_SSH_KEY = lazy_regex(r"Permission denied \(publickey[^)\n]*\)")
#: The Docker client unable to reach a daemon: none running, or a socket it may not open.
_DOCKER = lazy_regex(r"Cannot connect to the Docker daemon|permission denied while "
                     r"trying to connect to the Docker daemon socket")
#: A shell that found no such program: bash's ``bash: line 1: gh: command not found`` and
#: zsh's ``zsh:1: command not found: docker``.
_MISSING = lazy_regex(r"^(?:.*?:\s*)?(?:(?P<bash>[A-Za-z][\w.+-]{0,40}): command not found"
                      r"|command not found: (?P<zsh>[A-Za-z][\w.+-]{0,40}))\s*$", re.MULTILINE)
#: A harness's sandbox turning the call down: the session's sandbox settings, not the machine.
_SANDBOX = lazy_regex(r"sandbox denied|failed in sandbox", re.IGNORECASE)
#: Words one of the refusals above always contains: a cheap test before any regex.
_CUES = ("publickey", "Docker daemon", "command not found")
#: What follows a word when it names another thing than the step: a ``pull request``.
_ANOTHER_THING = lazy_regex(r"\s+requests?\b", re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"(?<=[.!?])\s+|\n+")
#: Words that make a sentence naming the step speak of the wall: it is not there, not
#: reachable, only elsewhere ("you dont have access to docker here", "podman only runs on the
#: build box"), or the person does it ("I'll push from my laptop"). A sentence that only
#: names the word ("go ahead", "make sure", "open a pull request") does not take the wall up.
_WALL_WORDS = lazy_regex(
    r"n[’']t\b|\b(?:not|no|never|cannot|cant|dont|doesnt|isnt|arent|wont|unable|without|"
    r"only|elsewhere|myself|manually|host|machine|laptop|locally)\b", re.IGNORECASE)
#: The person as the subject right before the step's word: they do it ("I'll push", "i
#: already pushed"); "I" elsewhere in the sentence ("I want to go with B") says nothing.
_I_DO = lazy_regex(r"\bi(?:[’']ll|[’']ve|[’']d|\s+(?:will|can|could|just|already|have|did|"
                   r"will just))?\s+$", re.IGNORECASE)
QUOTE_CHARS = 160


@dataclass(frozen=True, slots=True)
class Refusal:
    """One wall an output shows: its ``kind`` (``ssh-key``, ``docker-daemon``,
    ``missing-program``), the ``program`` a missing-program refusal names, and the ``line``: the
    output's words that say it, without the account, host or path around them."""

    kind: str
    line: str
    program: str | None = None


def refusals(output: str) -> list[Refusal]:
    """The walls an output shows, in a fixed order; none for a sandbox's refusal."""
    if not any(word in (output or "") for word in _CUES):
        return []  # most failures say none of these: no regex runs over their output
    text = without_escapes(output)
    if _SANDBOX.search(text):
        return []
    # only the refusal's own words: the account, host, socket address or script path around
    # them (``alice@10.0.0.5: …``, ``… at ssh://alice@build-01``) is not the wall's, and a
    # fact may travel further than the machine
    found = []
    if match := _SSH_KEY.search(text):
        found.append(Refusal("ssh-key", match.group(0)))
    if match := _DOCKER.search(text):
        found.append(Refusal("docker-daemon", match.group(0)))
    for match in _MISSING.finditer(text):
        program = match["bash"] or match["zsh"]
        found.append(Refusal("missing-program", f"{program}: command not found", program))
    return found


def naming_sentence(text: str, word: str) -> str | None:
    """The first sentence of ``text`` that names ``word`` (as a word, or its ``-ed`` /
    ``-ing`` / ``-s`` form: "i pushed" names ``push``) and takes the wall up
    (``takes_up``), cut to a quote's length."""
    for sentence in _SENTENCE_END.split(text or ""):
        if takes_up(sentence, word):
            sentence = " ".join(sentence.split())
            return sentence if len(sentence) <= QUOTE_CHARS else (
                sentence[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …")
    return None


def takes_up(sentence: str, word: str) -> bool:
    """Does the sentence speak of the step ``word`` names as a wall? It names the word (not
    in ``pull request``: another thing) and either says it is done already (``pushed``), has
    the person doing it ("I'll push"), or holds a word of the wall's (``_WALL_WORDS``). A
    program named like an English word (``go``, ``make``, ``just``, ``open``) is otherwise
    named by every "go ahead" and "make sure"."""
    named = [m for m in re.finditer(
        rf"(?<![\w./-]){re.escape(word)}(?P<form>ed|es|ing|s)?(?![\w/-])", sentence,
        re.IGNORECASE) if not _ANOTHER_THING.match(sentence, m.end())]
    return bool(named) and (any(m["form"] == "ed" or _I_DO.search(sentence, 0, m.start())
                                for m in named)
                            or _WALL_WORDS.search(sentence) is not None)

