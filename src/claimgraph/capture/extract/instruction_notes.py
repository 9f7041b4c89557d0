"""Instruction-file lines that are no standing rule: the agent's own note, a claim said twice.

Two cases the ``instructions`` rule leaves out, both judged from the session alone:

- **The agent's own note.** A line the session itself put into an instruction file
  (CLAUDE.md, AGENTS.md, CONTRIBUTING.md …: a file written whole, or lines an edit added) is
  the project's rule when the person asked for it: one message they typed before the write
  holds at least half of the line's words (the agent spells out, with names and reasons, what
  a short request asked for: "mention X, Y and Z as standards we follow" becomes a line naming
  X, Y and Z). Otherwise it is advice the agent added on its own -- "Use single quotes", "Prefer
  fixture-backed tests" in the guide it was asked to write -- its taste of the day, not a rule
  anybody set. One kind of line stands whoever wrote it: one that gives a command (a program
  and its subcommand or flag in a code span, "Run `pnpm test` to …"), which is how this project
  is run, concrete and checkable. When the person asked for the file itself by its name
  ("update CLAUDE.md with what we learned about the deploy"), what the agent wrote down for
  them stands too when it names a thing of the project (a code span, a path, an identifier, a
  proper name) or forbids something; the generic advice it adds around it ("Prefer small
  commits") is still its own. A docs page is not judged here: the lines a session adds to one
  are its account of the work, read by their own tests (``instructions``).
- **The same claim twice.** A line whose words are mostly (two thirds, three at least) in a
  line the session kept from another file says again what that fuller line says: a guide
  written from the AGENTS.md beside it ("Use short, imperative subjects" under "Recent history
  uses short, imperative commit subjects …"). The fuller line is kept, the repeat is not.

Pure: plain strings and line numbers in, a verdict out.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, Sequence, TypeVar

from claimgraph.capture.extract.corroborate import content_words
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.query_words import content_words as query_content_words

T = TypeVar("T")

#: Share of a line's words one message of the person must hold for the line to be asked for.
ASKED_SHARE = 0.5
#: Share of a line's words (and the least number) a fuller line of another file must hold.
REPEAT_SHARE = 2 / 3
REPEAT_MIN_WORDS = 3
_CODE_SPAN = lazy_regex(r"`([^`\n]+)`")
#: Short verbs a rule opens with ("Use …", "Run …"): shared by any two rules.
_RULE_VERBS = frozenset({"use", "run", "add", "set", "put", "get", "let", "try"})
#: Something named, outside a code span: a file (``setup.cfg``), a path (``src/api``), an
#: identifier (``snake_case``, ``camelCase``, ``NODE_ENV``), a flag (``--force``).
_NAMED_TOKEN = lazy_regex(r"\b\w[\w-]*\.[a-z]{1,5}\b|\b[a-z][\w.-]*/[\w./-]+|\b[A-Za-z]\w*_\w+|"
                          r"\b[a-z]+[A-Z]\w*|(?<!\w)--?[a-z][\w-]+")
#: A proper name: a capitalised word (a capital, then lower case) where no sentence, clause
#: or label starts.
_PROPER = lazy_regex(r"(?<![.!?:;\"'(\[—–*-])(?<![.!?:;\"'(\[—–*-]\s)(?<!^)\b[A-Z][a-z]+\b")
_SENTENCES = lazy_regex(r"(?<=[.!?:;])\s+")
#: A rule that forbids.
_FORBIDS = lazy_regex(r"\b(?:never|do not|don't|must not|mustn't|may not|should not|"
                      r"shouldn't)\b", re.IGNORECASE)
_PROGRAM = lazy_regex(r"^[a-z][\w.-]*$")


def words_of(text: str, short: bool = False) -> frozenset[str]:
    """A line's content words (four letters or more), lowered, a plural's "s" off
    ("subjects" meets "subject"); with ``short``, its short names too ("uv", "pip", "npm":
    two or three letters, not a function word nor a verb a rule opens with) -- what a
    person's request may name and nothing else of the line ("we use uv")."""
    names = {word for word in query_content_words(text) if 2 <= len(word) <= 3
             and word.isalpha() and word not in _RULE_VERBS} if short else set()
    return frozenset({word[:-1] if len(word) > 4 and word.endswith("s")
                      and not word.endswith("ss") else word
                      for word in content_words(text)} | names)


def gives_command(line: str) -> bool:
    """A code span of the line is a command: a program and a subcommand or a flag
    (``pnpm test``, ``ruff check --fix``), not a path, a name or a commit prefix."""
    for span in _CODE_SPAN.findall(line):
        words = span.split()
        if len(words) >= 2 and _PROGRAM.match(words[0]) and (
                words[1].startswith("-") or _PROGRAM.match(words[1])):
            return True
    return False


def asked_for(line: str, written_at: int, said: Sequence[tuple[int, str]]) -> bool:
    """One thing the person typed before ``written_at`` holds half the line's words (two
    at least; a one-word line, that word)."""
    words = words_of(line, short=True)
    if not words:
        return False
    need = max(min(2, len(words)), math.ceil(len(words) * ASKED_SHARE))
    return any(len(words & words_of(text, short=True)) >= need
               for at, text in said if at < written_at)


def agents_note(line: str, written_at: int, said: Sequence[tuple[int, str]],
                file_asked: bool = False) -> bool:
    """A line the session wrote into an instruction file on its own: nobody asked for it,
    and it gives no command. When the person asked for the file ("update CLAUDE.md with
    what we learned"), a line that names a thing of the project (``names_something``) is
    what they asked to have written down, and so is a prohibition ("The ledger must never
    call the network"); the generic advice the agent adds around them is still its own."""
    if gives_command(line) or asked_for(line, written_at, said):
        return False
    return not (file_asked and (names_something(line) or bool(_FORBIDS.search(line))))


def names_something(line: str) -> bool:
    """A code span, a file, path, identifier or flag, or a proper name (a language, a tool,
    a service: "British English", "Postgres") where no sentence or label starts."""
    if _CODE_SPAN.search(line) or _NAMED_TOKEN.search(line):
        return True
    return any(_PROPER.search(sentence.strip()) for sentence in _SENTENCES.split(line))


def said_again(lines: Iterable[tuple[T, str, str]]) -> set[T]:
    """Of (key, file, line) triples, the keys of lines a fuller line of another file already
    says: most of their words are in it. The fullest lines are kept first, so of two that
    say the same the longer stays (of two alike, the first)."""
    items = [(key, where, words_of(line)) for key, where, line in lines]
    order = sorted(range(len(items)), key=lambda i: -len(items[i][2]))
    kept: list[tuple[str, frozenset[str]]] = []
    again: set[T] = set()
    for index in order:
        key, where, words = items[index]
        need = max(REPEAT_MIN_WORDS, math.ceil(len(words) * REPEAT_SHARE))
        if any(other != where and len(words & fuller) >= need for other, fuller in kept):
            again.add(key)
        else:
            kept.append((where, words))
    return again
