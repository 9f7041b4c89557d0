"""The agent's own words become a fact only when the session's record bears them out.

An agent's summary is its account of the session, not the session. What it says is kept as a
standing fact (docs/capture.md, "The agent's own words") only when:

- its form says it is one: not a plan or next step, not a guess, not a figure about this run,
  not a comment on somebody's quoted wording (``logic.claim_mood``); a file's role is not a
  reviewer's finding about the file (a defect, a paragraph);
- and the record backs it: the named things it asserts (code spans, identifiers, paths) are
  in what the session left in the files it wrote -- the end state, after every later edit --
  or in the user's own words; a claim that names nothing must share most of its words with
  one such file or one thing the user said; a file's role holds for a file the session wrote
  and did not delete, or one the user named;
- and the user did not answer it with a failure: a summary saying something was fixed or now
  works, followed by the user's next message pasting a failing log or saying it still fails,
  is refuted. What then made it pass is learned from the runs themselves (``lessons``), with
  a tool output's trust: a pasted log is the tool's voice, not the user's.

Past-tense narration ("Used `Result<T, E>` instead of exceptions for `factorial()`") is kept
only through its record: the code it names is still there, which is the lasting property the
change left. The agent's failure-mode lessons are judged by their own rule (a failure seen in
a tool's output, a fix that held: ``summaries``) and here only for a refuting reply.

Pure logic on plain data: ``Record`` is built by ``reconcile.digest`` from the session.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Iterable, Mapping, Sequence
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.claim_mood import finding, not_a_fact

AGENT = "agent-note"
ROLE, LESSON = "x/role", "core/failure-mode"
_CODE_SPAN = lazy_regex(r"`([^`\n]{2,80})`")
#: A word that names something: a path, a dotted or snake_case identifier, a call, a flag.
_NAMING = lazy_regex(r"(?<![\w@/.-])(?:@?[A-Za-z][\w-]*(?:[_./:][\w-]+)+(?:\(\))?|[A-Za-z_]\w*\(\)|"
                     r"[a-z]+[A-Z]\w*|--?[a-z][\w-]{2,})")
_WORD = lazy_regex(r"[^\W\d_][\w'-]{3,}")
_COMMON = frozenset("""
that this with from into when then than they them have will would should could also only
just used uses using file files instead each every which where what there their these those
make makes made does done been being more most some such other after before while about
""".split())
#: Share of a plain claim's content words that one file or one user message must hold.
_MIN_SHARE = 0.6
_MIN_WORDS = 2
#: A role's word is looked for in a file's text by its first letters (stem), when this long.
_MIN_STEM = 5
#: A claim that the trouble is over.
_FIXED = lazy_regex(r"\b(?:fix(?:ed|es)?|resolved|works?|working|passes|passing|done|"
                    r"succeeds?|no longer)\b", re.IGNORECASE)
#: The user's reply that it is not over.
_STILL_FAILS = lazy_regex(
    r"\b(?:still\s+(?:fail\w*|broken|(?:not|n't)\b|get(?:ting)?|see(?:ing)?|errors?|"
    r"crash\w*|the\s+same)|same\s+(?:error|problem|issue|failure)|(?:not|isn'?t|wasn'?t)\s+"
    r"fixed|does(?:n'?t| not)\s+work|didn'?t\s+(?:work|help|fix)|still\s+an?\s+(?:error|issue))",
    re.IGNORECASE)
#: What a failing log pasted into a message looks like.
_FAILING_LOG = lazy_regex(r"Traceback \(most recent call last\)|^\s*(?:E\s|FAILED\b|FAIL\b)|"
                          r"\b[A-Z]\w*(?:Error|Exception)\b|\berror(?:\[\w+\])?:|"
                          r"npm ERR!|\bpanicked at\b|\bexit (?:code|status) [1-9]",
                          re.MULTILINE)


@dataclass(frozen=True)
class Record:
    """What the session shows, as plain data."""

    #: Relative path -> the text the session's own writes and edits left in it (files it
    #: deleted are absent).
    written: Mapping[str, str] = field(default_factory=dict)
    #: (line, text) the person typed (their own words, no pasted document).
    user_said: Sequence[tuple[int, str]] = ()
    #: (line, whole message) of every human prompt, pasted logs included.
    prompts: Sequence[tuple[int, str]] = ()
    #: What the session's successful tool calls returned (anything with a ``text``: read
    #: only when a claim needs it, since a long session's outputs are large).
    outputs: Sequence[Any] = ()
    #: Relative path -> the session's looks at it in order (anything with ``kind`` and
    #: ``new``: a read's ``new`` is the text it showed), for files it did not delete.
    looks: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    #: What ``read_outputs`` found in ``outputs`` in one pass: the names they show, and the
    #: (file, role) pairs they bear out. None until then (each check then reads the outputs).
    shown: frozenset[str] | None = None
    shown_roles: frozenset[tuple[str, str]] | None = None

    @cached_property
    def said_or_left(self) -> list[tuple[str, set[str]]]:
        """Each file the session left and each thing the user said, lowered, with its
        content words: read once per session, not once per note."""
        sources = [*self.written.values(), *(said for _, said in self.user_said)]
        return [(lowered(source), content_words(source)) for source in sources]


#: ``lowered`` lowers a longer text a block of lines at a time.
_LOWER_BLOCK = 65_536


def lowered(text: str) -> str:
    """``text.lower()``, in blocks of whole lines when the text is long: lowering a
    non-ASCII string takes a scratch buffer of twelve bytes a character, which for what a
    long session left in a file (a megabyte of text) was extraction's peak memory. The same
    string: a line break ends the context lowering looks at (a final sigma's), so lowering
    line by line gives what lowering the whole does."""
    if len(text) <= _LOWER_BLOCK or text.isascii():
        return text.lower()
    parts: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start + _LOWER_BLOCK)
        end = len(text) if end < 0 else end + 1
        parts.append(text[start:end].lower())
        start = end
    return "".join(parts)


def read_outputs(record: Record, candidates: Iterable[Mapping[str, object]]) -> Record:
    """The record with its tool outputs read once for every agent's note at hand: a long
    session holds thousands of outputs, each decompressed when read (capture/packed.py), and
    reading them again per note would make reconciling quadratic."""
    names: set[str] = set()
    roles: list[tuple[str, str]] = []
    for found in candidates:
        if found.get("source_type") != AGENT:
            continue
        text = str(found.get("object") or "")
        if found.get("predicate") == ROLE:
            roles.append((str(found.get("subject") or ""), text))
        else:
            names |= named(text)
    shown: set[str] = set()
    shown_roles: set[tuple[str, str]] = set()
    wanted = [(path, role, posixpath.basename(path.removeprefix("./")).lower(), _stems(role))
              for path, role in roles]
    for output in record.outputs if names or roles else ():
        if not wanted and len(shown) == len(names):
            break  # every name is shown already: the outputs left have nothing to add
        text = str(getattr(output, "text", "") or "")
        shown |= {name for name in names - shown if name in text}
        if wanted:
            lowered = text.lower()
            shown_roles |= {(path, role) for path, role, base, stems in wanted
                            if base and base in lowered and _bears(lowered, stems)}
    return replace(record, shown=frozenset(shown), shown_roles=frozenset(shown_roles))


def unsupported(found: Mapping[str, object], line: int | None, record: Record) -> str | None:
    """Why an agent's note is not kept as a fact ("intent", "hedge", "figure", "quote",
    "finding", "uncorroborated", "refuted"), or None when it stands. Anything that is not the
    agent's note is never judged here."""
    if found.get("source_type") != AGENT:
        return None
    text = str(found.get("object") or "")
    predicate = str(found.get("predicate") or "")
    if line is not None and refuted(text, predicate, line, record):
        return "refuted"
    if predicate == LESSON:
        return None  # judged by its own rule: a failure seen, a fix that held
    why = not_a_fact(text)
    if why:
        return why
    if predicate == ROLE:
        if finding(text):
            return "finding"
        return None if _file_backed(str(found.get("subject") or ""), text, record) \
            else "uncorroborated"
    return None if backed(text, record) else "uncorroborated"


def backed(text: str, record: Record) -> bool:
    """The record bears the claim out: a thing it names is in the session's end state, in
    the user's words or in what a tool returned (as the claim spells it); or, naming nothing,
    most of its words are in one file the session left or one thing the user said."""
    sources = record.said_or_left
    names = named(text)
    if names:
        if any(name.lower() in lowered for name in names for lowered, _ in sources):
            return True
        if record.shown is not None:
            return bool(names & record.shown)
        return any(name in str(getattr(output, "text", "") or "")
                   for output in record.outputs for name in names)
    words = content_words(text)
    if len(words) < _MIN_WORDS:
        return False
    need = max(_MIN_WORDS, round(len(words) * _MIN_SHARE))
    return any(len(words & said) >= need for _, said in sources)


def named(text: str) -> set[str]:
    """The named things a claim asserts, as it spells them: its code spans and
    identifier-shaped words (a path, ``snake_case``, ``dotted.name``, ``call()``,
    ``camelCase``, ``--flag``)."""
    found = {span.strip().removesuffix("()") for span in _CODE_SPAN.findall(text)
             if len(span.strip()) >= 3}
    bare = _CODE_SPAN.sub(" ", text)
    found |= {token.removesuffix("()") for token in _NAMING.findall(bare)
              if len(token) >= 4}
    return {name for name in found if name}


def content_words(text: str) -> set[str]:
    # One word at a time: ``findall``'s list of every word of a long text (what a long
    # session left in its files, ``Record.said_or_left``) was extraction's peak memory.
    return {match.group().lower() for match in _WORD.finditer(text)} - _COMMON


def _file_backed(path: str, role: str, record: Record) -> bool:
    """A file's role holds for a file the session wrote and left, one the user named, or one
    whose text as a tool showed it (a read, a search's hits) bears the role's words out
    (``_MIN_WORDS`` of them)."""
    bare = path.removeprefix("./")
    if not bare:
        return False
    if any(_same_file(bare, written) for written in record.written):
        return True
    base = posixpath.basename(bare).lower()
    if any(base in said.lower() for _, said in record.user_said):
        return True
    stems = _stems(role)
    for looked, looks in record.looks.items():
        if _same_file(bare, looked) and any(
                look.kind == "read" and _bears(str(look.new).lower(), stems) for look in looks):
            return True
    if record.shown_roles is not None:
        return (path, role) in record.shown_roles
    return any(base in shown and _bears(shown, stems)
               for output in record.outputs
               for shown in [str(getattr(output, "text", "") or "").lower()])


def _stems(role: str) -> set[str]:
    """A role's words as looked for in a file's text: by their first letters (a plural's
    "s" off), the long ones only."""
    return {word.removesuffix("s") for word in content_words(role) if len(word) >= _MIN_STEM}


def _bears(lowered: str, stems: set[str]) -> bool:
    return sum(stem in lowered for stem in stems) >= _MIN_WORDS


def _same_file(named_path: str, path: str) -> bool:
    return named_path == path or path.endswith("/" + named_path)


def refuted(text: str, predicate: str, line: int, record: Record) -> bool:
    """The agent said it was fixed or works, and the user's next message pasted a failing log
    or said it still fails."""
    if predicate != LESSON and not _FIXED.search(text):
        return False
    reply = next((said for at, said in record.prompts if at > line), None)
    return reply is not None and bool(_STILL_FAILS.search(reply) or _FAILING_LOG.search(reply))
