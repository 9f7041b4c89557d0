"""What the project depends on, from the manifests the session wrote or edited -- when the
session established something about the dependency.

A manifest is the project's own statement of its dependencies, so a dependency is cited as the
manifest line it was read from (``mix.exs: `{:credo, "~> 1.7", only: [:dev, :test]}```): the
version constraint and whether it is dev/test-only are in that line, and the audit can check
the file still says it. Only what the session added or changed counts (the edit's new text,
never the file re-read from disk, and never a line the edit kept): a manifest it merely read
is a glance away for the next session too, so its list is not a memory.

Nor is a list the session wrote: a ``requirements-dev.txt`` written whole is ten packages the
next session reads in one glance, and storing each as a fact buried what the session learned.
A dependency the session added is stored only when the session established something about it
(``established``, pure):

- the person named it in their own words (they chose it): in their prose, not a log they
  pasted, and a name that is also an ordinary word (``markdown``, ``rich``) set in code or
  in a sentence about packages (``names_package``);
- a command's failure said it was missing before it was added (``No module named 'httpx'``,
  ``Cannot find module 'zod'``: the failure proved the project needs it);
- it replaced another in the same edit (one dependency out, another in: a choice).

Anything else is not stored: when unsure, do not store.

A manifest the session created is the new project's scaffold: that the person named a
package it lists (they asked for a Next.js app, the file lists ``next`` and ``react``) says no
more than the file does, so only a failure that proved the package missing counts there.

Besides dependencies a manifest states the language and its version (``elixir: "~> 1.19"``,
``requires-python``, a Rust edition) and a few settings worth a convention (a lint level,
the package manager, the workspace layout); those count only from a manifest the session
wrote or edited (one fact each, not a list), and the language's version only when the
session changed it from another (``runtime_changed``): in a manifest only read they are the file's
trivia, a glance away like its dependency list, and nothing the session decided. A manifest
the session deleted says nothing. A manifest below the
project root speaks for its own package (``apps/web/package.json`` is ``@repo/web``, or
``apps/web`` when it names none).
"""

from __future__ import annotations

import bisect
import posixpath
import re
from itertools import accumulate
from typing import Any, Iterable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.commands import kind_of_text
from claimgraph.capture.extract.prose import is_paste, paragraphs
from claimgraph.capture.extract.manifests import Manifest, manifest_format, parse_manifest
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import (
    SessionView, candidate, failed_outputs, file_evidence)
from claimgraph.capture.extract.statements import user_texts

#: A package name shorter than this is too likely an ordinary word or a fragment to be
#: recognised in prose.
_MIN_NAME = 3
#: A failure's line that says something is missing: only such a line naming a package proves
#: the project needs it (a test run's banner naming its runner proves nothing).
_MISSING_WORDS = (r"no module named|cannot find (?:module|package)|could not (?:find|resolve)|"
                  r"module not found|unresolved import|not found|not installed|missing|"
                  r"no matching|is required|requires?\b")
_MISSING = lazy_regex(_MISSING_WORDS, re.IGNORECASE)
#: ``_MISSING`` for an ASCII text lowered: its words are written in lower case, and on ASCII
#: text ignoring case is lowering it (``re``'s case-blind matching of other letters, "ſ" or
#: the Kelvin sign, needs a non-ASCII text). Case-blind alternatives are tried at every
#: character; these are looked for from their first letters: ~8x faster.
_MISSING_LOWER = lazy_regex(_MISSING_WORDS)
#: The non-ASCII letters ``re`` matches ASCII letters with when ignoring case (İ ı ſ K).
_CASE_BLIND_ASCII = "\u0130\u0131\u017f\u212a"
#: Any other text's UTF-8 lowered, which holds every match in its ASCII bytes; the closing
#: ``\b`` counts only ASCII as word bytes, so it finds a match wherever ``_MISSING`` would
#: (and after "require" before an accented letter, where it would not): a text it finds
#: nothing in is given no line without the case-blind search.
_MISSING_BYTES = lazy_regex(_MISSING_WORDS.encode())
#: Settings that say how the project is worked on (prefix match on the setting's key).
_CONVENTION_SETTINGS = ("lints.", "workspace.lints.", "packageManager", "toolchain")


def dependency_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    for looks in surviving_looks(view).values():
        cited = looks[-1].cited
        if manifest_format(looks[-1].path) is None:  # looks of one path: no text rendered
            continue
        parsed = [(look, parse_manifest(look.path, look.text)) for look in looks]
        parsed = [(look, manifest) for look, manifest in parsed if manifest]
        if cited is None or " " in cited or not parsed:
            continue
        subject = _subject(view, cited, parsed)
        yield from _declared(view, cited, subject, parsed)


def _subject(view: SessionView, cited: str, parsed: list[tuple[SeenFile, Manifest]]) -> str:
    if posixpath.dirname(cited) in ("", "."):
        return view.project or ""
    package = next((m.package for _, m in parsed if m.package), None)
    return package or posixpath.dirname(cited)


def _declared(view: SessionView, cited: str, subject: str,
              parsed: list[tuple[SeenFile, Manifest]]) -> Iterator[dict[str, Any]]:
    written = any(look.how != "read" for look, _ in parsed)
    seen: dict[str, tuple[SeenFile, Any]] = {}
    for index, (look, manifest) in enumerate(parsed if written else []):
        if look.how == "read":
            continue  # only what the session put in a manifest it changed
        before = _earlier_names(parsed[:index])
        for dependency in manifest.dependencies:
            if dependency.quote in look.replaced or dependency.name.lower() in before:
                continue  # the edit kept it, or the file said it already
            seen[dependency.name] = (look, dependency)
    trust = "manifests" if written else "manifests.read"
    created = bool(parsed) and parsed[0][0].how == "write"
    for look, dependency in seen.values():
        said = [] if created else _said(view)  # a new manifest's list: the scaffold's
        failures = [] if checks_the_project(dependency.name) else _failures_before(view, look)
        if not established(dependency.name, said, failures, _replaced_names(look)):
            continue
        yield _fact(cited, subject, "core/depends-on", dependency.name, dependency.quote, look,
                    trust, kind="entity", object_type="package")
    for look, manifest in parsed[-1:] if written else []:
        if manifest.runtime and manifest.runtime_quote \
                and runtime_changed(manifest.runtime, _earlier_runtimes(parsed)):
            language, version = manifest.runtime
            yield _fact(cited, subject, "core/written-in", f"{language} {version}",
                        manifest.runtime_quote, look, trust)
        for setting in manifest.settings:
            if setting.key.startswith(_CONVENTION_SETTINGS):
                value = setting.value.split("+sha", 1)[0]  # a corepack integrity hash
                yield _fact(cited, subject, "x/convention",
                            f"{cited} sets {setting.key} = {value}", setting.quote,
                            look, trust)


def checks_the_project(name: str) -> bool:
    """Whether a package is the tool the project is tested, linted or formatted with (the one
    command vocabulary's ``pytest``, ``ruff``, ``eslint``): a failure saying it is missing
    proves the environment lacks a dev tool -- the lesson is to install it (a failure-mode),
    and how the project is checked is ``tested-by``'s; its manifest line decides nothing."""
    found = kind_of_text(name.strip().lower())
    return bool(found) and found[0] in ("test", "lint", "format")


def runtime_changed(runtime: tuple[str, str], earlier: Iterable[tuple[str, str]]) -> bool:
    """Whether the session changed the language's version: the file declared another one
    before. A version floor a new manifest starts with (``requires-python = ">=3.11"``) is
    the template's, one glance at the file; moving it is a decision."""
    return any(known != runtime for known in earlier)


def _earlier_runtimes(parsed: list[tuple[SeenFile, Manifest]]) -> list[tuple[str, str]]:
    """The runtimes the file declared before the session's last look: each earlier look's,
    and what each edit replaced."""
    found = [manifest.runtime for _, manifest in parsed[:-1] if manifest.runtime]
    for look, _ in parsed:
        before = parse_manifest(look.path, look.replaced) if look.replaced else None
        if before is not None and before.runtime:
            found.append(before.runtime)
    return found


def _earlier_names(parsed: list[tuple[SeenFile, Manifest]]) -> set[str]:
    """The dependencies earlier looks at the file showed: one a rewrite repeats is no new
    one, whatever its line now looks like."""
    return {dependency.name.lower() for _, manifest in parsed
            for dependency in manifest.dependencies}


def established(name: str, said: Iterable[str], failures: Iterable[str],
                replaced: Iterable[str]) -> bool:
    """Whether the session established something about a dependency it added: the person
    named it (``said``), a failure's line saying something is missing named it before it was
    added (``failures``), or
    the same edit took another dependency out (``replaced``: the names the edit's old text
    declared that its new text no longer does)."""
    if any(True for _ in replaced):
        return True
    pattern = _name_pattern(name)
    if pattern is None:
        return False
    return (any(names_package(name, pattern, text) for text in said)
            or any(pattern.search(text) for text in failures))


#: Words that make a sentence about packages (what one is, or adding one): an ordinary word
#: in it names one ("add credo for linting", "use rich for the output", "the markdown
#: library").
_PACKAGE_WORDS = lazy_regex(r"\b(?:packages?|librar(?:y|ies)|libs?|dependenc(?:y|ies)|deps?|"
                            r"modules?|crates?|gems?|plugins?|install(?:s|ed|ing)?|"
                            r"add(?:s|ed|ing)?|use|using|needs?|requirements|"
                            r"switch(?:ed|ing)? to)\b",
                            re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"(?<=[.!?])\s+|\n+")
_LETTERS_ONLY = lazy_regex(r"^[a-z]+$")


def names_package(name: str, pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` names the package ``name`` (``pattern``: ``_name_pattern``'s), pure.
    A name with more than letters (``pytest-cov``, ``@types/node``, ``h5py``) names the
    package wherever it stands; a name that is also an ordinary word (``markdown``,
    ``rich``, ``requests``) does only set in a code span or in a sentence about packages
    ("add the markdown library"): "these fields are markdown" names a format, and the
    person chose no dependency by saying it."""
    if not _LETTERS_ONLY.match(name.strip().lower()):
        return bool(pattern.search(text))
    if pattern.search(text) is None:
        # a match in a sentence is one in the text: no sentence holds one. Nearly every
        # prompt holds none, and every package a tool call added is held against every
        # prompt of the session: one search in C here, not a split into sentences in
        # Python first, keeps that pairing cheap (issue 29: 70 names x 1,394 prompts of a
        # 200 MB pass, 0.48 -> 0.10 s)
        return False
    for sentence in _SENTENCE_END.split(text):
        for found in pattern.finditer(sentence):
            spanned = sentence[:found.start()].count("`") % 2 == 1 \
                and "`" in sentence[found.end():]
            if spanned or _PACKAGE_WORDS.search(sentence):
                return True
    return False


def _name_pattern(name: str) -> re.Pattern[str] | None:
    """A package name as a whole word, ``-`` and ``_`` alike (``pytest_cov`` is
    ``pytest-cov``); a scope or path prefix is part of the name."""
    bare = name.strip().lower()
    if len(bare) < _MIN_NAME or not re.search(r"[a-z]", bare):
        return None
    body = ["[-_]" if char in "-_" else re.escape(char) for char in bare]
    # the look back after the first character, spanning it too: the same matches, but a
    # pattern that opens with a look back is tried at every position of every text (~2x)
    first, rest = body[0], "".join(body[1:])
    return re.compile(rf"{first}(?<![\w./@-]{first}){rest}(?![\w-])", re.IGNORECASE)


def said_of(view: SessionView) -> list[str]:
    """What the person typed in the session (prompts and words typed into tool results)."""
    return _said(view)


def failures_before(view: SessionView, line: int) -> list[str]:
    """The lines saying something is missing in every tool call that failed before ``line``."""
    return [text for at, text in _missing_lines(view) if at < line]


def _missing_lines(view: SessionView) -> list[tuple[int, str]]:
    return view.remembered("dependencies.missing", lambda v: [
        (at, line) for at, text in failed_outputs(v) for line in _lines_saying_missing(text)])


def _lines_saying_missing(text: str) -> list[str]:
    """``[line for line in text.splitlines() if _MISSING.search(line)]``, from one search of
    the whole text: the pattern has no anchor, no look-behind and matches no line break (its
    closing ``\\b`` holds at a line's end either way), so a line holds a match exactly when
    one of the text's own matches starts in it. Searching each line again cost as much as
    searching every failed output."""
    if text.isascii():  # the same matches (``_MISSING_LOWER``); lowering keeps every offset
        found = [match.start() for match in _MISSING_LOWER.finditer(text.lower())]
    elif not any(letter in text for letter in _CASE_BLIND_ASCII) and _MISSING_BYTES.search(
            text.encode("utf-8", "surrogatepass").lower()) is None:
        return []  # what the case-blind search could find, the bytes' would find too
    else:
        found = [match.start() for match in _MISSING.finditer(text)]
    if not found:
        return []
    pieces = text.splitlines(keepends=True)
    starts = list(accumulate((len(piece) for piece in pieces[:-1]), initial=0))
    hit = dict.fromkeys(bisect.bisect_right(starts, at) - 1 for at in found)
    return [pieces[index].splitlines()[0] for index in hit]


def _said(view: SessionView) -> list[str]:
    """The person's own prose (``prose.paragraphs``; a message that is mostly a paste -- a
    CI log saying ``sphinx-build: command not found`` -- is what a tool said, not the person's
    choice) and what they typed into tool results."""
    return view.remembered("dependencies.said",
                           lambda v: ["\n".join(paragraphs(text)) for _, text in user_texts(v)
                                      if not is_paste(text)]
                           + [text for _, text in v.typed_in_results()])


def _failures_before(view: SessionView, look: SeenFile) -> list[str]:
    """The lines saying something is missing in every tool call that failed before
    ``look``'s call."""
    return failures_before(view, look.call.line)


def _replaced_names(look: SeenFile) -> list[str]:
    """What an edit took out of a manifest: the dependencies its old text declared that its
    new text does not."""
    if look.how != "edit" or not look.replaced:
        return []
    before, after = parse_manifest(look.path, look.replaced), parse_manifest(look.path, look.text)
    if before is None:
        return []
    kept = {dep.name.lower() for dep in after.dependencies} if after else set()
    return [dep.name for dep in before.dependencies if dep.name.lower() not in kept]


def _fact(cited: str, subject: str, predicate: str, obj: str, quote: str, look: SeenFile,
          trust: str, kind: str = "literal", **types: Any) -> dict[str, Any]:
    return candidate("manifests", subject, predicate, obj,
                     evidence=[file_evidence(cited, quote)], trust=trust, object_kind=kind,
                     subject_type="project", at=look.call.timestamp, **types)
