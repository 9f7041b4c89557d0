"""defined-in from the files a session changed, as the session left them, for the names the
user or a lesson names.

Each successful operation is replayed on a per-file model. A whole-file write makes the
content known, and later edits are applied to it, so a definition an edit removed is gone
and a renamed one is reported by its new line. For a file known only by edits (it existed
before the session), the definitions are tracked edit by edit: a name found in an edit's old
text but not its new text was removed. A definition is cited only when its line occurs
verbatim in text the session itself wrote (a Write's content or an edit's new text), so an
audit that re-reads those writes, or the file, finds the quote.

Files outside the project (plans under ~/.claude, scratch files in /tmp), in dependency or
build folders, and files deleted later in the session yield nothing. A name defined in two
files is dropped: defined-in says "exactly one place".
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.review_findings import carries_findings

from claimgraph.capture.extract.code import (
    Definition, definitions, is_test_file, language_of)
from claimgraph.capture.extract.lessons import lessons_of
from claimgraph.capture.extract.prose import is_paste, paragraphs
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.session import (
    OK, SessionView, candidate, file_evidence, transcript_evidence)
from claimgraph.capture.extract.statements import user_texts
from claimgraph.capture.extract.writes import FileOp, removes, session_ops

MAX_DEFINITIONS_PER_FILE = 20
_RUST_MODS = lazy_regex(r"^[ \t]*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.MULTILINE)
#: A crate's root: its ``mod`` lines are the crate's layout, the one map of where each part
#: of it lives. A folder's index (``mod.rs``, ``__init__.py``, ``index.ts``) only lists the
#: submodules beside it, which a glance at the folder shows: it yields nothing.
_INDEX_FILES = {"lib.rs": _RUST_MODS, "main.rs": _RUST_MODS}
_IDENTIFIER = lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*")
#: A word of letters only, lower-case ("config", "db", "dashboard") or capitals ("GET",
#: "POST", "API"): in a person's prose, or as a command's argument in a lesson, it is a word
#: (or an acronym), not a name of the code -- unless the person set it in a code span. Where
#: such a word is defined is one glance at the CLI, or in every route file.
_PLAIN_WORD = lazy_regex(r"^(?:[a-z]+|[A-Z]+)$")
_CODE_SPAN = lazy_regex(r"`([^`\n]+)`")
_VENDORED = frozenset({"node_modules", ".venv", "venv", "site-packages", "_build", "target",
                       "dist", "build", "vendor", ".git", "deps", "__pycache__"})


@dataclass
class FileModel:
    """What the session did to one file."""

    language: str
    origin: str  # the transcript citation of the session's first change to the file
    at: int | None = None  # when that change was made: the definition is valid from then
    content: str | None = None  # known whole only after a whole-file write
    tracked: dict[str, Definition] = field(default_factory=dict)  # when content is unknown
    written: list[str] = field(default_factory=list)  # every text the session put in it
    #: Names the file defined before the session put them there: in a read before its first
    #: change, or in the text an edit replaced that no earlier change of the session wrote.
    existed: set[str] = field(default_factory=set)
    #: Names the session put in the file that it did not define before.
    introduced: set[str] = field(default_factory=set)

    def apply(self, op: FileOp) -> None:
        if op.kind == "write":
            self._wrote(op.content)
            self.content, self.tracked = op.content, {}
            self.written.append(op.content)
        elif op.kind == "append":
            self._append(op.content)
        for old, new, replace_all in op.edits:
            self._edit(old, new, replace_all)

    def _wrote(self, text: str, old: str = "") -> None:
        """What a text the session put in the file says of where names came from: a name
        the replaced text defined was there (unless the session put it there), a name only
        the new text defines is the session's."""
        before = {d.name for d in definitions(old, self.language)} if old else set()
        self.existed.update(before - self.introduced)
        self.introduced.update({d.name for d in definitions(text, self.language)}
                               - before - self.existed)

    def placed_here(self, name: str) -> bool:
        """Whether the session put the definition of ``name`` in this file (wrote it new,
        or moved it here), rather than changing one that was there."""
        return name in self.introduced and name not in self.existed

    def _append(self, text: str) -> None:
        self._wrote(text)
        self.written.append(text)
        if self.content is not None:
            self.content += text
        else:
            self.tracked.update((d.name, d) for d in definitions(text, self.language))

    def _edit(self, old: str, new: str, replace_all: bool) -> None:
        self._wrote(new, old)
        self.written.append(new)
        if self.content is not None and old and old in self.content:
            self.content = self.content.replace(old, new, -1 if replace_all else 1)
            return
        if self.content is not None:  # changed behind our back: fall back to tracking
            self.tracked = {d.name: d for d in definitions(self.content, self.language)}
            self.content = None
        kept = {d.name for d in definitions(new, self.language)}
        for gone in {d.name for d in definitions(old, self.language)} - kept:
            self.tracked.pop(gone, None)
        self.tracked.update((d.name, d) for d in definitions(new, self.language))

    def current_definitions(self) -> list[Definition]:
        """Definitions still present, each quoted from a text the session wrote."""
        found = definitions(self.content, self.language) if self.content is not None \
            else list(self.tracked.values())
        return [d for d in found if any(d.quote in text for text in self.written)]


def replay(view: SessionView) -> dict[str, FileModel]:
    """Absolute path -> model of every project code file the session changed and kept."""
    return view.remembered("replay", _replay)


def _replay(view: SessionView) -> dict[str, FileModel]:
    models: dict[str, FileModel] = {}
    for call, outcome, ops in session_ops(view):
        if outcome != OK:
            continue
        for op in ops:
            if op.kind == "delete":
                for path in [p for p in models if removes(op.path, p)]:
                    del models[path]
                continue
            language = language_of(op.path)
            cited = view.relative(op.path)
            if language is None or cited is None or _VENDORED & set(cited.split("/")):
                continue
            if op.path not in models:
                origin = transcript_evidence(call.line, f"{call.tool_name} {op.path}")
                models[op.path] = FileModel(language, origin, call.timestamp,
                                            existed=_read_before(view, op.path, call.line,
                                                                 language))
            models[op.path].apply(op)
    return models


def _read_before(view: SessionView, path: str, line: int, language: str) -> set[str]:
    """The names a file defined in what the session read of it before its first change."""
    looks = surviving_looks(view).get(path, [])
    text = "\n".join(look.text for look in looks if look.how == "read" and look.call.line < line)
    return {d.name for d in definitions(text, language)} if text else set()


def structure_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """defined-in for the definitions the user or a lesson names, and only where the session
    settled the place: it put the definition in that file (new, or moved there), or it
    removed another definition the person named beside it (two that do the same, one
    kept). A definition the session only changed where it was is where the person or the
    code already said it is; a file's language and every other name it holds (the agent's
    own talk included) are one glance away."""
    models = replay(view)
    found = {path: model.current_definitions() for path, model in models.items()}
    per_name = Counter(d.name for path, defs in found.items()
                       if not is_test_file(view.relative(path) or path) for d in defs)
    per_name.update(read_elsewhere(view, models))
    talked = named(view)
    merged = kept_of_merges(named_together(view), removed_names(models, found))
    for path, model in models.items():
        cited = view.relative(path) or path
        if is_test_file(cited) or any(char.isspace() for char in cited):
            continue  # a path with spaces cannot be cited in ``path: `code``` form
        unique = [d for d in found[path] if per_name[d.name] == 1 and d.name in talked
                  and (model.placed_here(d.name) or d.name in merged)]
        for definition in unique[:MAX_DEFINITIONS_PER_FILE]:
            yield _defined_in(cited, definition, model)


def read_elsewhere(view: SessionView, models: dict[str, FileModel]) -> Counter[str]:
    """Each top-level name defined in a file of this project the session read but did not
    change, once per file: a name the session saw defined there too is not in "exactly one
    place" (every route file's ``GET``), whatever the file it wrote says."""
    seen: Counter[str] = Counter()
    for path, looks in surviving_looks(view).items():
        cited = looks[0].cited
        language = language_of(path)
        if path in models or cited is None or language is None or is_test_file(cited) \
                or _VENDORED & set(cited.split("/")):
            continue
        text = "\n".join(look.text for look in looks if look.how == "read")
        seen.update({d.name for d in definitions(text, language)})
    return seen


def removed_names(models: dict[str, FileModel],
                  found: dict[str, list[Definition]]) -> frozenset[str]:
    """Names a changed file defined before the session and no longer defines anywhere."""
    left = {d.name for defs in found.values() for d in defs}
    left.update(name for model in models.values() for name in model.tracked)
    return frozenset(name for model in models.values() for name in model.existed
                     if name not in left)


def kept_of_merges(messages: Iterable[frozenset[str]], removed: frozenset[str]
                   ) -> frozenset[str]:
    """The names of a message of the person's that also names a definition the session
    removed: of the things named together (two types that do the same), the ones still
    defined are where the session settled them (pure)."""
    return frozenset(name for names in messages if names & removed for name in names
                     if name not in removed)


def named_together(view: SessionView) -> list[frozenset[str]]:
    """The names of each message of the person's own prose (``named``'s reading)."""
    return [frozenset(_names_in("\n".join(paragraphs(message))))
            for _, message in user_texts(view)
            if not is_paste(message) and not carries_findings(message)]


#: A word of prose written with a capital: one capital, then lower-case letters.
_CAPITALISED = lazy_regex(r"^[A-Z][a-z]+$")
#: What may stand before the first word of a sentence, a list item or a heading.
_OPENS = lazy_regex(r"(?:^|[.!?:;\n]|^\s*[-*\u2022]|\n\s*[-*\u2022]|\d[.)])\s*$")


def _names_in(text: str) -> set[str]:
    found = list(_IDENTIFIER.finditer(text))
    words = {match[0] for index, match in enumerate(found)
             if not _PLAIN_WORD.match(match[0]) and not _title_word(text, found, index)}
    words.update(name for span in _CODE_SPAN.findall(text) if (name := _span_name(span)))
    return words


def _title_word(text: str, found: list[re.Match[str]], index: int) -> bool:
    """A capitalised word of prose (``_CAPITALISED``) set in Title Case, not a class the
    person named: one of a run of such words ("Orders Page Layout", "- Region Filters: …";
    the word that opens a sentence is no part of the next one's run: "Added Cart, …"), or the
    label that opens a list item or a heading ("- Export: download the rows"). A word that
    only opens a sentence ("Config should load once") may still be the class. Pure."""
    word = found[index]
    if not _CAPITALISED.match(word[0]):
        return False
    if _OPENS.search(text[:word.start()]) and text.startswith(":", word.end()):
        return True
    return any(0 <= other < len(found) and _CAPITALISED.match(found[other][0])
               and not _OPENS.search(text[:found[other].start()])
               and not text[min(word.end(), found[other].end()):
                            max(word.start(), found[other].start())].strip()
               for other in (index - 1, index + 1))


def named(view: SessionView) -> frozenset[str]:
    """Identifiers the user typed or a lesson of this session names: where such a name lives
    is worth remembering; a name only the agent mentions is a detail a glance finds. A plain
    word counts only as the whole of the person's code span (``_PLAIN_WORD``,
    ``_span_name``). Only the person's own prose is read: a message that is mostly a paste
    (a log, a diff, code), a review tool's findings forwarded whole
    (``review_findings.carries_findings``) and the pasted lines of another (code blocks,
    quoted lines, log and code lines) name what someone or something else wrote -- an
    automated review's handler names, a stack trace's frames. Read once per view: the
    summaries ask for it
    for each claim they hold against it, and each reading went through every message of
    the person's, so the cost grew with the session's length squared (issue 29)."""
    return view.remembered("structure.named", _named)


def _named(view: SessionView) -> frozenset[str]:
    words: set[str] = set().union(*named_together(view))
    for lesson in lessons_of(view):
        words.update(name for name in _IDENTIFIER.findall(lesson["object"])
                     if not _PLAIN_WORD.match(name))
    return frozenset(words)


_SPAN_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?")


def _span_name(span: str) -> str | None:
    """The name a code span holds when it holds one name and nothing else (`config`,
    `init()`); a span with more is a command line or an expression (`wakil init`,
    `git config --global`), whose plain words are a CLI's subcommands and arguments, not
    names of the code -- its other identifiers are read from the prose all the same."""
    whole = _SPAN_NAME.fullmatch(span.strip())
    return whole.group(1) if whole else None


def module_index_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """What a crate root the session wrote declares: its ``mod`` lines, the layout of the
    crate in one fact (a folder's index file is left out: ``_INDEX_FILES``). Only when the
    session wrote the root of one crate: one that wrote the roots of several scaffolded a
    workspace, and each member's module list is its scaffold's, a glance at its folder."""
    roots = {path: model for path, model in replay(view).items()
             if posixpath.basename(path) in _INDEX_FILES}
    if len({_crate_of(path) for path in roots}) > 1:
        return
    for path, model in roots.items():
        cited = view.relative(path) or path
        pattern = _INDEX_FILES[posixpath.basename(path)]
        if model.content is None or " " in cited:
            continue
        found = [(m.group(0).strip(), m.group(1)) for m in pattern.finditer(model.content)]
        names = list(dict.fromkeys(name for _, name in found))
        if len(names) >= 2:
            yield candidate("module-index", cited, "x/role",
                            "declares the modules " + ", ".join(names[:12]),
                            evidence=[file_evidence(cited, found[0][0]), model.origin],
                            object_kind="literal", subject_type="file", at=model.at)


def _crate_of(root: str) -> str:
    """The crate a root file belongs to: the folder above its ``src/`` (``lib.rs`` and
    ``main.rs`` of one crate are one crate)."""
    folder = posixpath.dirname(root)
    return posixpath.dirname(folder) if posixpath.basename(folder) == "src" else folder


def _defined_in(cited: str, definition: Definition, model: FileModel) -> dict[str, Any]:
    evidence = [file_evidence(cited, definition.quote), model.origin]
    return candidate("defined-in", definition.name, "core/defined-in", cited,
                     evidence=evidence, object_kind="entity",
                     subject_type=definition.kind, object_type="file", at=model.at)
