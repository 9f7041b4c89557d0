"""Rules the person asked the session to write down, as the file the session left holds them.

A person often settles how the project is to be worked on by having the agent write it into
the file that holds the project's rules: "put that in AGENTS.md", "add it to the review skill
as a hard rule", "ajoute une section sur les tests dans agents.md". Their own sentence is a
request for today, often in a language the sentence model does not read, and the rule itself
is in the lines the agent then wrote. Those lines are what the project now says, and they are
there because the person asked (docs/capture.md, "Rules the person asked to have written
down"); the reviewers' rubric keeps a rule the session wrote into an instruction file at the
user's request, not advice the agent added on its own.

A line is kept when all of these hold:

- the file is one that holds the project's rules for whoever works on it
  (``rules_file``): an agent instruction file or contributor guide (the names
  ``instructions`` reads), a skill's ``SKILL.md``, a rules folder's ``.mdc``, or a page whose
  name says it holds conventions, guidelines, rules, standards or the project's constitution;
- the session wrote it (a write or an edit that succeeded), in the turn of a message the
  person typed that names that file (its name, its name without the extension, or a skill's
  folder: ``names_file``) -- naming the file is what makes the writing theirs, in any
  language, where a request that never names it leaves the wording to the agent;
- the line is one that write put there (not in the text an edit replaced, nor in an earlier
  look at the file) and it is still in the file when the session ends: a rule the session
  rewrote later counts in its last version only (``reconcile`` holds the citation to the end
  state as well);
- it reads as one rule: a list item or a sentence of prose, four to sixty words, not a
  heading, a table row, a code block's line, a link alone or a template's placeholder
  (``rule_line``);
- at most ``MAX_PER_FILE`` lines of one file, the ones that share most words with what the
  person typed in the session first: a long file written whole holds the agent's padding
  as well as the person's rules.

Each is cited as ``path: `line``` with a project file's trust (the audit checks the file
still says it), as ``instructions`` cites the rules it reads.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from claimgraph.capture.extract.instructions import INSTRUCTION_FILES
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import OK, SessionView, candidate, file_evidence
from claimgraph.capture.extract.statements import CONVENTION, user_texts
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.lazy_regex import lazy_regex

MAX_PER_FILE = 5
#: Share of its words a line has in common with an old one from which it is that line
#: reworded, not a new rule.
_REWORDED = 0.7
_MIN_WORDS, _MAX_WORDS = 4, 60
#: A page name that says it holds the project's rules (``CODING_CONVENTIONS.md``,
#: spec-kit's ``constitution.md``, ``CODING_GUIDELINES.md``).
_RULES_NAME = lazy_regex(r"(?:^|[-_. ])(?:conventions?|guidelines?|rules|standards|"
                         r"constitution|instructions)(?:$|[-_. ])", re.IGNORECASE)
_RULES_EXT = (".md", ".mdc", ".txt", ".rst", "")
_LIST_MARK = lazy_regex(r"^\s*(?:[-*+•]|\d+[.)])\s+")
#: Lines that are no rule's: headings, table rows, quotes, fences, HTML comments.
_NO_BLOCK = ("#", "|", ">", "<!--")
_STEP = lazy_regex(r"^\s*\d+[.)]\s+")
_WORD = lazy_regex(r"[^\W_][\w'’-]*")
_LINK_ONLY = lazy_regex(r"^\W*(?:\[[^\]]*\]\([^)]*\)|<?https?://\S+>?|@\S+)\W*$")
_PLACEHOLDER = lazy_regex(r"\[[A-Z][A-Z0-9_ ]{2,}\]|\{\{|\$ARGUMENTS|<[a-z_-]+>$")
_FRONT_KEY = lazy_regex(r"^[\w-]+:\s")
_LETTER_WORD = lazy_regex(r"[^\W\d_]{3,}")


@dataclass(frozen=True)
class _Found:
    """A rule of the file's end state that a write the person asked for put there."""

    look: SeenFile  # the write
    asking: frozenset[str]  # the words of the message that asked for it
    order: int  # its place in the file
    first: str  # its first line, which the evidence quotes


def asked_rule_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """The rule lines a write or edit put into a rules file in the turn of a message of the
    person's that names the file, still there at the session's end (module docstring)."""
    typed = [(event.line, text) for event, text in user_texts(view) if text.strip()]
    if not typed:
        return
    said = _words(" ".join(text for _, text in typed))
    for looks in surviving_looks(view).values():
        cited = looks[-1].cited
        if not cited or not rules_file(cited):
            continue
        found = _found(looks, cited, typed, _emptied(view, looks[-1].path))
        common = _common_words(found)
        ranked = sorted(found, key=lambda rule: _rank(found[rule], rule, common, said))
        for rule in ranked[:MAX_PER_FILE]:
            look, first = found[rule].look, found[rule].first
            yield candidate("asked_down", view.project or "", CONVENTION, rule,
                            evidence=[file_evidence(cited, first)], object_kind="literal",
                            subject_type="project", at=look.call.timestamp)


def _found(looks: list[SeenFile], cited: str, typed: list[tuple[int, str]],
           emptied: list[tuple[int, str]]) -> dict[str, _Found]:
    """The rules (blocks) of the file's end state with a line a write the person asked for
    put there."""
    asked = _asked_lines(looks, cited, typed)
    found: dict[str, _Found] = {}
    own = _words(posixpath.splitext(posixpath.basename(cited))[0])
    for order, (first, block) in enumerate(blocks(_end_text(looks, emptied))):
        rule = rule_line(" ".join(block))
        if rule is not None and own & _words(rule):
            continue  # it speaks of the file (how it is amended, what it overrides)
        by = next((asked[line] for line in block if line in asked), None)
        if rule is not None and by is not None:
            found.setdefault(rule, _Found(by[0], by[1], order, first))
    return found


def _asked_lines(looks: list[SeenFile], cited: str,
                 typed: list[tuple[int, str]]) -> dict[str, tuple[SeenFile, frozenset[str]]]:
    """Line -> the write that put it in the file, in the turn of a message naming the file,
    and that message's words (the file's own name left out): a line no earlier look showed,
    nor the text an edit replaced, nor one of those reworded."""
    starts = [line for line, _ in typed]
    named = _words(cited.replace("/", " ").replace(".", " "))
    asked: dict[str, tuple[SeenFile, frozenset[str]]] = {}
    seen_before: set[str] = set()
    for look in looks:
        lines = _stripped(look.text)
        asking = _asking(typed, starts, look, cited)
        if look.how in ("write", "edit") and asking is not None:
            old = (_stripped(look.replaced) if look.how == "edit" else set()) | seen_before
            for line in lines - old:
                if not _reworded(line, old):
                    asked.setdefault(line, (look, frozenset(_words(asking) - named)))
        seen_before |= lines
    return asked


def _rank(found: _Found, rule: str, common: set[str], said: set[str]) -> tuple[int, int, int]:
    """First the rules that share most words with the message that asked for them, then
    with all the person typed, then in the file's order (a file's common words left out)."""
    words = _words(rule) - common
    return -len(words & found.asking), -len(words & said), found.order


def rules_file(cited: str) -> bool:
    """A file that holds the project's rules for whoever works on it."""
    name = posixpath.basename(cited).lower()
    stem, ext = posixpath.splitext(name)
    if name in INSTRUCTION_FILES or name == "skill.md" or ext == ".mdc":
        return True
    return ext in _RULES_EXT and _RULES_NAME.search(stem) is not None


def names_file(text: str, cited: str) -> bool:
    """The person's words name the file: its name (its dot typed or not: "AGENTS.md", "agents
    md"), a rules page's name without the extension when that has five letters or more ("the
    constitution", "speckit-constitution"), or a skill's folder ("the review skill",
    "@review"). An agent instruction file or contributor guide is named only whole: "claude",
    "agents", "contributing" alone are words of any sentence, unless typed in the capitals the
    file's name has ("le fichier AGENTS")."""
    lowered = text.lower()
    name = posixpath.basename(cited).lower()
    stem, ext = posixpath.splitext(name)
    names = [re.escape(stem) + (r"[ .]?" + re.escape(ext[1:]) if ext else "")]
    if len(stem) >= 5 and name not in INSTRUCTION_FILES:
        names.append(re.escape(stem))
    folder = posixpath.basename(posixpath.dirname(cited)).lower()
    if name == "skill.md" and len(folder) >= 3:
        names.append(re.escape(folder))
    if any(re.search(rf"(?<!\w){each}(?![\w-])", lowered) for each in names):
        return True
    own = posixpath.splitext(posixpath.basename(cited))[0]
    return own.isupper() and re.search(rf"(?<!\w){re.escape(own)}(?![\w-])", text) is not None


def blocks(text: str) -> Iterator[tuple[str, list[str]]]:
    """The file's list items and paragraphs, each as (its first line, its lines stripped): a
    line wrapped in the source is one rule. Headings, table rows, quotes, fenced code, HTML
    comments and YAML front matter are no block."""
    current: list[str] = []
    fenced = commented = False
    for raw in text.splitlines():
        line = raw.strip()
        if commented:
            commented = "-->" not in line
            continue
        fence = line.startswith(("```", "~~~"))
        fenced ^= fence
        item = _LIST_MARK.match(raw) is not None
        code = raw.startswith(("    ", "\t")) and not current and not item
        skip = fence or fenced or code or not line or line == "---" or line.startswith(_NO_BLOCK)
        if current and (skip or item):
            yield current[0], current
            current = []
        commented = line.startswith("<!--") and "-->" not in line
        if not skip:
            current.append(line)
    if current:
        yield current[0], current


def rule_line(line: str) -> str | None:
    """The block's text as a rule (its bullet set aside), or None when it is not one: a
    numbered step is part of a procedure and means little alone, a row of fields separated
    by bars is metadata."""
    if _STEP.match(line) or line.count(" | ") >= 2:
        return None
    text = _LIST_MARK.sub("", line.strip()).strip()
    if _LINK_ONLY.match(text) or _PLACEHOLDER.search(text) or _FRONT_KEY.match(text):
        return None
    words = _LETTER_WORD.findall(text)
    if not _MIN_WORDS <= len(words) <= _MAX_WORDS or text.endswith(":"):
        return None
    return text


def _asking(typed: list[tuple[int, str]], starts: list[int], look: SeenFile,
            cited: str) -> str | None:
    """The typed message whose turn the write is in, when it names the file."""
    index = bisect.bisect_left(starts, look.call.line) - 1
    return typed[index][1] if index >= 0 and names_file(typed[index][1], cited) else None


def _reworded(line: str, old: set[str]) -> bool:
    """The line is one of the file's lines with a word or two changed (a rename, a typo
    fixed): the rule was there before, and the person asked for the change, not the rule."""
    words = _words(line)
    if not words:
        return False
    return any(len(words & (other := _words(each))) >= _REWORDED * max(len(words), len(other))
               for each in old)


def _emptied(view: SessionView, path: str) -> list[tuple[int, str]]:
    """(line, old text) of each edit of the file that took text out and put nothing in its
    place: no look records it (a look holds what the file shows), yet the text is gone."""
    return [(call.line, old) for call, outcome, ops in session_ops(view) if outcome == OK
            for op in ops if op.kind == "edit" and op.path == path
            for old, new, _ in op.edits if old.strip() and not new.strip()]


def _end_text(looks: list[SeenFile], emptied: Sequence[tuple[int, str]] = ()) -> str:
    """The file's text as the session left it: its last write and every edit after it, each
    edit's new text in place of what it replaced (where the file was never seen whole, what
    the edits put in, one after the other); an edit that only took text out removes it."""
    text: str | None = None
    removals = list(emptied)
    for look in looks:
        while removals and removals[0][0] < look.call.line:
            text = None if text is None else text.replace(removals.pop(0)[1], "", 1)
        if look.how == "write" or look.how == "read" and text is None:
            text = look.text
        elif look.how == "edit":
            if text is not None and look.replaced and look.replaced in text:
                text = text.replace(look.replaced, look.text, 1)
            else:
                text = (text or "") + "\n\n" + look.text
    for _, old in removals:
        text = None if text is None else text.replace(old, "", 1)
    return text or ""


def _common_words(rules: Iterable[str]) -> set[str]:
    """The words many of a file's rules share: in any language, its function words ("the",
    "pour", "les"), which say nothing of what a rule is about."""
    counts: dict[str, int] = {}
    rules = list(rules)
    for rule in rules:
        for word in _words(rule):
            counts[word] = counts.get(word, 0) + 1
    return {word for word, count in counts.items() if count > max(2, len(rules) // 4)}


def _stripped(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip()}


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text) if len(word) >= 3}
