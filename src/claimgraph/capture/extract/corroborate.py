"""The agent's own words become a fact only when the session's record bears them out.

An agent's summary is its account of the session, not the session. What it says is kept as a
standing fact (docs/capture.md, "The agent's own words") only by the test the reviewers' rubric
states: the session carried it out, or the user agreed to it. So a note stands only when:

- its form says it is one: not a plan or next step, not a guess, not a figure about this run,
  not a comment on somebody's quoted wording (``logic.claim_mood``); a file's role is not a
  reviewer's finding about the file (a defect, a paragraph);
- and an edit that implements it survived: the named things it asserts (code spans,
  identifiers, paths) are together in what the session left in ONE file it wrote -- the end
  state, after every later edit -- most of them, and at least one of the things it says it
  chose (a name in "instead of X", "rather than X", ", not X" or in what "Replaced X with Y"
  replaced is the old thing: it may be gone); a claim naming nothing shares most of its words
  with one such file. A name that merely shows somewhere (a tool's output, a file the session
  only read, another file than the rest) carries nothing: reading about a thing is not doing
  it;
- or the user's own words say it: one message they typed shares most of its words (the agent
  restating the user's decision, or the user agreeing to the agent's words after them);
- and no later edit replaced it: a thing it names that the session's edits took out of a file
  after the note, and that the file's end state lacks, makes the note stale;
- a file's role (``x/role``) is kept only when the user named that file or asked for an
  account of the code (``claim_mood.asks_for_account``), and the file's text bears it out (the
  session wrote and left it, or a read or a search showed two of the role's words). A role the
  session's own writing gives a file is what any reader of the file sees;
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

from claimgraph.logic.agent_said import not_standing
from claimgraph.logic.claim_mood import asks_for_account, finding, not_a_fact

AGENT = "agent-note"
ROLE, LESSON = "x/role", "core/failure-mode"
#: What is said in a sentence of the agent's, which a reviewer's guards read
#: (``logic.agent_said``); a stance's object is a name ("`load_config()`"), not a sentence.
_PROSE = frozenset({"x/decided", "x/convention", ROLE})
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
#: Words joined by slashes outside a code span ("and/or", "X11/Wayland", "items/lists"): a
#: pair of alternatives in prose, not a path (a path the claim means is in a code span).
_PROSE_PAIR = lazy_regex(r"^[A-Za-z][A-Za-z0-9]*(?:/[A-Za-z][A-Za-z0-9]*)+$")
#: Where a claim names what it did NOT take: the rest of its clause after "instead of",
#: "rather than", "in place of" or a contrasting ", not" (the old thing may be gone).
_REJECTED = lazy_regex(r"(?:\binstead\s+of|\brather\s+than|\bin\s+place\s+of|[,;(—–]\s*not)\b"
                       r"(?P<old>(?:`[^`\n]*`|[^;.)`]|\.(?!\s|$))*)", re.IGNORECASE)
#: "Replaced X with Y", "switched from X to Y", "renamed X to Y", "X → Y": X is what the
#: change took out.
_REPLACED = lazy_regex(r"^\W*(?:replaced?|swapped|renamed|switched(?:\s+from)?|moved\s+from|"
                       r"migrated\s+from)\s+(?P<old>.+?)\s+(?:with|by|to|for|as)\s|"
                       r"^(?P<before>[^→]+?)\s*(?:→|->)\s", re.IGNORECASE)
#: A type written with placeholder parameters (`Result<T, E>`, `Vec<T>`): the code spells the
#: parameters out, so its head and bracket is what is looked for.
_PLACEHOLDER_TYPE = lazy_regex(r"^([\w.:]+)<\s*[A-Z]{1,2}\s*(?:,\s*[A-Z]{1,2}\s*)*>$")
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
    #: What ``read_outputs`` found in ``outputs`` in one pass: the (file, role) pairs they
    #: bear out. None until then (each check then reads the outputs).
    shown_roles: frozenset[tuple[str, str]] | None = None

    @cached_property
    def left(self) -> list[tuple[str, str, set[str]]]:
        """Each file the session left: its path and its text, lowered, with its content
        words: read once per session, not once per note."""
        return [(path.lower(), lowered(text), _stemmed(content_words(text)))
                for path, text in self.written.items()]

    @cached_property
    def left_text(self) -> dict[str, str]:
        """Path (as cited) -> what the session left in it, lowered once."""
        return {path: text for (_, text, _), path in zip(self.left, self.written)}

    @cached_property
    def said_words(self) -> list[set[str]]:
        """The content words of each thing the user said (a plural's "s" off)."""
        return [_stemmed(content_words(said)) for _, said in self.user_said]


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
    """The record with its tool outputs read once for every file role at hand: a long
    session holds thousands of outputs, each decompressed when read (capture/packed.py), and
    reading them again per note would make reconciling quadratic. Only a role is looked for
    there (its file's text showing the role's words); what a claim names is never taken from
    an output (reading about a thing is not doing it)."""
    roles = [(str(found.get("subject") or ""), str(found.get("object") or ""))
             for found in candidates
             if found.get("source_type") == AGENT and found.get("predicate") == ROLE]
    shown_roles: set[tuple[str, str]] = set()
    wanted = [(path, role, posixpath.basename(path.removeprefix("./")).lower(), _stems(role))
              for path, role in roles]
    for output in record.outputs if wanted else ():
        text = str(getattr(output, "text", "") or "").lower()
        shown_roles |= {(path, role) for path, role, base, stems in wanted
                        if base and base in text and _bears(text, stems)}
    return replace(record, shown_roles=frozenset(shown_roles))


def unsupported(found: Mapping[str, object], line: int | None, record: Record) -> str | None:
    """Why an agent's note is not kept as a fact ("intent", "hedge", "figure", "quote",
    "finding", "unasked", "replaced", "uncorroborated", "refuted", or a reviewer's guard of
    ``logic.agent_said``: "speculative", "offered", "question", "fragment", "own-activity",
    "describes-code"), or None when it stands.
    Anything that is not the agent's note is never judged here."""
    if found.get("source_type") != AGENT:
        return None
    text = str(found.get("object") or "")
    predicate = str(found.get("predicate") or "")
    if line is not None and refuted(text, predicate, line, record):
        return "refuted"
    if predicate == LESSON:
        return None  # judged by its own rule: a failure seen, a fix that held
    why = not_a_fact(text) or (not_standing(text, role=predicate == ROLE)
                               if predicate in _PROSE else None)
    if why:
        return why
    if predicate == ROLE:
        path = str(found.get("subject") or "")
        if finding(text):
            return "finding"
        if not _file_backed(path, text, record):
            return "uncorroborated"
        return None if _role_asked(path, line, record) else "unasked"
    if line is not None and replaced_later(text, line, record):
        return "replaced"
    return None if backed(text, record) else "uncorroborated"


def backed(text: str, record: Record) -> bool:
    """The session carried the claim out or the user said it: its named things are together
    in the end state of one file the session wrote (``_left_together``), or, naming nothing,
    most of its words are in one such file; or most of its words are in one thing the user
    said."""
    chose, old = asserted(text)
    words = _stemmed(content_words(text))
    if chose or old:
        if _left_together(chose, old, record):
            return True
    elif _shares_most(words, (said for _, _, said in record.left)):
        return True
    return _shares_most(words, record.said_words)


def asserted(text: str) -> tuple[set[str], set[str]]:
    """(what the claim says was chosen, what it says was not) among its named things, each
    lowered as looked for: a name in a rejected clause ("instead of `X`", "Replaced `X`
    with …") is the old thing; prose pairs ("and/or") name nothing."""
    rejected = " ".join(match["old"] for match in _REJECTED.finditer(text))
    replaced = _REPLACED.match(text)
    if replaced:
        rejected += " " + (replaced["old"] or replaced["before"])
    old_names = named(rejected) if rejected.strip() else set()
    spans = {span.strip().removesuffix("()") for span in _CODE_SPAN.findall(text)}
    names = {name for name in named(text) if name in spans or not _PROSE_PAIR.match(name)}
    return ({_looked_for(n) for n in names - old_names},
            {_looked_for(n) for n in names & old_names})


def _looked_for(name: str) -> str:
    generic = _PLACEHOLDER_TYPE.match(name)
    return (generic.group(1) + "<" if generic else name).lower()


def _left_together(chose: set[str], old: set[str], record: Record) -> bool:
    """One file the session left holds most of the claim's named things and at least one of
    what it says was chosen (the old things count when still there, but are not needed). A
    name that is the file's own path is in the right place."""
    need = len(chose) // 2 + 1 if chose else 1
    for path, text, _ in record.left:
        held = [name for name in chose if name in text or _same_file(name, path)]
        if (held or not chose) and len(held) + sum(name in text for name in old) >= need:
            return True
    return False


def _stemmed(words: set[str]) -> set[str]:
    """Words as compared between a claim and what backs it: a plural's "s" off ("rates",
    "rate"), so the user's "pass rates for assertions" holds "pass rate" and "assertion"."""
    return {word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss")
            else word for word in words}


def _shares_most(words: set[str], sources: Iterable[set[str]]) -> bool:
    if len(words) < _MIN_WORDS:
        return False
    need = max(_MIN_WORDS, round(len(words) * _MIN_SHARE))
    return any(len(words & said) >= need for said in sources)


#: Files that describe the code rather than run it.
_DOC_SUFFIXES = (".md", ".mdx", ".rst", ".txt", ".adoc")


def replaced_later(text: str, line: int, record: Record) -> bool:
    """A thing the claim says was chosen that an edit or write after the note took out of a
    file, and that the file's end state lacks: a later edit replaced what the note says.
    A name another file the session left still holds in its code is not gone (an import of
    it taken out of a test file leaves the code that uses it); a doc still naming it is no
    such sign (docs lag behind the code)."""
    chose, _ = asserted(text)
    if not chose:
        return False
    for path, looks in record.looks.items():
        end = record.left_text.get(path)
        if end is None or not any(look.line > line and look.kind in ("write", "edit")
                                  for look in looks):
            continue  # not left by the session, or not changed after the note
        gone = {name for name in chose if name not in end
                and not any(name in other for other_path, other in record.left_text.items()
                            if not other_path.lower().endswith(_DOC_SUFFIXES))}
        if gone and _taken_out_after(gone, line, looks):
            return True
    return False


def _taken_out_after(names: set[str], line: int, looks: Sequence[Any]) -> bool:
    """Whether a change after ``line`` removed one of ``names`` from the text known before
    it (the file as last read or written, or what an edit replaced)."""
    known = ""
    for look in looks:
        kind, new = look.kind, str(look.new).lower()
        before = known + "\n" + str(getattr(look, "old", "") or "").lower()
        if kind in ("write", "edit") and look.line > line \
                and any(name in before and name not in new for name in names):
            return True
        if kind in ("read", "write"):
            known = new
        elif kind == "edit":
            old = str(getattr(look, "old", "") or "").lower()
            known = known.replace(old, new, 1) if old and old in known else known + "\n" + new
    return False


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
    # session left in its files, ``Record.left``) was extraction's peak memory.
    return {match.group().lower() for match in _WORD.finditer(text)} - _COMMON


def _file_backed(path: str, role: str, record: Record) -> bool:
    """A file's role holds for a file the session wrote and left, or one whose text as a
    tool showed it (a read, a search's hits) bears the role's words out (``_MIN_WORDS`` of
    them); a function's, for one a file the session left holds."""
    bare = path.removeprefix("./")
    if not bare:
        return False
    if any(_same_file(bare, written) for written in record.written):
        return True
    if "/" not in bare and "." not in bare:  # a function: defined in a file the session left
        return any(bare.lower() in text for _, text, _ in record.left)
    base = posixpath.basename(bare).lower()
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


def _role_asked(path: str, line: int | None, record: Record) -> bool:
    """The user wanted this file's role told: before the note, their own words named the
    file or asked for an account of the code (a review, an explanation of how it works).
    Otherwise the role is what any reader of the file sees, and the file is there to read."""
    base = posixpath.basename(path.removeprefix("./")).lower()
    before = [said for at, said in record.user_said if line is None or at < line]
    return any((base and base in said.lower()) or asks_for_account(said) for said in before)


def _stems(role: str) -> set[str]:
    """A role's words as looked for in a file's text: by their first letters (a plural's
    "s" off), the long ones only."""
    return {word.removesuffix("s") for word in content_words(role) if len(word) >= _MIN_STEM}


def _bears(lowered: str, stems: set[str]) -> bool:
    return sum(stem in lowered for stem in stems) >= _MIN_WORDS


def _same_file(named_path: str, path: str) -> bool:
    named_path = named_path.removeprefix("./")
    return named_path == path or path.endswith("/" + named_path)


def refuted(text: str, predicate: str, line: int, record: Record) -> bool:
    """The agent said it was fixed or works, and the user's next message pasted a failing log
    or said it still fails."""
    if predicate != LESSON and not _FIXED.search(text):
        return False
    reply = next((said for at, said in record.prompts if at > line), None)
    return reply is not None and bool(_STILL_FAILS.search(reply) or _FAILING_LOG.search(reply))
