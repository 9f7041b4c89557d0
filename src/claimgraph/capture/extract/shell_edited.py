"""A fact that quotes a file holds for the file's last content, also after a shell edit.

Capture reads a file's content from what the session saw of it (a read, a write, an edit:
``reads``). A shell command can change a file without showing it: ``sed -i
's/1\\.0\\.0/1.0.1/' Makefile``, ``perl -pi -e …``, ``echo … > f``, ``tee f``, ``cp``/``mv``
onto it, ``git checkout -- f`` / ``git restore f``. When such a command worked after the
session's last look at the file, what the session saw is not what the file says:

- a plain substitution (``logic.sed_edit``: ``sed -i 's/a/b/g'``, ``perl -pi -e 's/a/b/'``)
  is applied to what the session saw. A ``runs`` fact takes each recipe as the changed file
  defines it (a Makefile's ``TAG ?= 1.0.0`` bumped to 1.0.1 changes what ``make image`` runs,
  though the recipe's own line did not change) and drops a recipe the change removed; any
  other fact whose quoted line or text the substitution changes is left out (its detail is
  the old one, and rewriting prose by a pattern is no reading of it);
- any other change (a script the record cannot apply, a rewrite by redirection, a copy onto
  the file, a checkout of it) says nothing of what the file now holds: a fact quoting that
  file is left out.

An append (``>>``, ``tee -a``) leaves the lines seen as they were, and a later look at the
file (a read after the edit) is what the fact was built from: neither changes anything here.
A command that failed changed nothing.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any, Iterator

from claimgraph.capture.events import Event
from claimgraph.capture.extract.observed import observations, observed_after
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.recipes import parse_recipes, recipe_format
from claimgraph.capture.extract.session import OK, SessionView
from claimgraph.capture.extract.shell import Invocation, call_cwd, command_text, invocations
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.observed_lines import (
    GONE, KEPT, UNKNOWN, SeenLines, index_of, overlaid, verdict)
from claimgraph.logic.sed_edit import (
    Substitution, apply_all, perl_substitutions, sed_substitutions)

#: ``path: `quote``` (``session.file_evidence``).
_FILE_EVIDENCE = lazy_regex(r"^(?P<path>[^\s`]+): `(?P<quote>.*)`$", re.DOTALL)
_CLAUSE = lazy_regex(r"(?P<head>(?:script `[^`]+`|`[^`]+`) runs )`(?P<runs>[^`]*)`")
#: An output redirection that replaces a file (not ``>>``, ``2>``, ``&>``, ``>&2``).
_OVERWRITE = lazy_regex(r"(?<![<>&\d])>(?![>&])\s*(?P<target>[^\s;&|<>()]+)")
_MAX_RUNS = 200


@dataclass(frozen=True)
class ShellEdit:
    """A shell command at ``line`` that changed ``path``: ``substitutions`` when it is a plain
    one the record can apply, else None (what it changed is not known)."""

    line: int
    path: str
    substitutions: tuple[Substitution, ...] | None


def screen_shell_edited(view: SessionView, candidates: list[dict[str, Any]]
                        ) -> list[dict[str, Any]]:
    """``candidates`` as the files they quote now read (module docstring)."""
    quoting = [found for found in candidates if _quoted_files(found)]
    if not quoting:
        return candidates
    edits = _edits_after_looks(view)
    if not edits:
        return candidates
    kept = []
    for found in candidates:
        settled = _settled(found, edits)
        if settled is not None:
            kept.append(settled)
    return kept


def _quoted_files(found: dict[str, Any]) -> list[str]:
    """The files (as cited) a candidate quotes: its subject when that is a file, and every
    file its evidence cites."""
    cited = [str(found["subject"])] if found.get("subject_type") == "file" else []
    for item in found.get("evidence") or ():
        match = _FILE_EVIDENCE.match(str(item))
        if match:
            cited.append(_plain(match["path"]))
    return list(dict.fromkeys(cited))


def _plain(cited: str) -> str:
    return cited[2:] if cited.startswith("./") else cited


@dataclass(frozen=True)
class _Changed:
    """What the session last saw of a cited file, and the shell edits made after it."""

    looks: tuple[SeenFile, ...]
    edits: tuple[ShellEdit, ...]
    #: The harness's latest record of the file's lines after the last of ``edits`` (after
    #: the last look when a change no command shows made it: ``observed``), or None.
    seen: SeenLines | None = None

    @property
    def known(self) -> bool:
        return all(edit.substitutions is not None for edit in self.edits)

    @property
    def lines_up(self) -> bool:
        """The record's lines fall in place in the file as last seen, and change it."""
        last = self.looks[-1].text
        return self.seen is not None and overlaid(last, self.seen) != last

    def now(self, text: str) -> str:
        for edit in self.edits:
            text = apply_all(edit.substitutions or (), text)
        return overlaid(text, self.seen) if self.seen is not None else text


def _edits_after_looks(view: SessionView) -> dict[str, _Changed]:
    """Cited path -> its looks and the shell edits after the last of them, for every file
    a shell command changed after the session last saw it."""
    by_path: dict[str, list[ShellEdit]] = {}
    for edit in shell_edits(view):
        by_path.setdefault(edit.path, []).append(edit)
    if not by_path and not observations(view):
        return {}
    changed: dict[str, _Changed] = {}
    for path, looks in surviving_looks(view).items():
        cited = looks[-1].cited
        last = looks[-1].call.line
        later = tuple(edit for edit in by_path.get(path, ()) if edit.line > last)
        seen = observed_after(view, path, later[-1].line if later else last)
        if cited and (later or seen):
            changed[cited] = _Changed(tuple(looks), later, seen.seen if seen else None)
    return changed


def shell_edits(view: SessionView) -> Iterator[ShellEdit]:
    """Every file a shell command that worked changed in place, in order."""
    for call in view.calls():
        command = command_text(call)
        if not command or view.outcome(call) != OK or not _may_edit(command):
            continue
        written = {op.path for op in file_ops(view, call)}
        for invocation in invocations(command, call_cwd(call)):
            yield from _edits_of(view, call, invocation)
        for match in _OVERWRITE.finditer(command):
            path = _target(view, match["target"], call_cwd(call))
            if path and path not in written:  # a heredoc write is a look (``writes``)
                yield ShellEdit(call.line, path, None)


_EDITING = lazy_regex(r"\bsed\b|\bperl\b|>|\btee\b|\bcp\b|\bmv\b|\bgit\b")


def _may_edit(command: str) -> bool:
    return _EDITING.search(command) is not None


def _target(view: SessionView, word: str, cwd: str | None) -> str | None:
    if word.startswith(("/dev/", "&", "$")) or any(mark in word for mark in "$`*?"):
        return None
    word = word.strip("'\"")
    return view.resolve(word, cwd) if word else None


def _edits_of(view: SessionView, call: Event, invocation: Invocation) -> Iterator[ShellEdit]:
    argv = invocation.argv
    program = posixpath.basename(argv[0]) if argv else ""
    found: tuple[tuple[Substitution, ...] | None, list[str]] | None = None
    if program == "sed":
        found = _sed(argv[1:])
    elif program == "perl":
        found = _perl(argv[1:])
    elif program == "tee" and not ({"-a", "--append"} & set(argv[1:])):
        found = None, [word for word in argv[1:] if not word.startswith("-")]
    elif program in ("cp", "mv"):
        words = [word for word in argv[1:] if not word.startswith("-")]
        found = (None, words[-1:]) if len(words) >= 2 else None
    elif program == "git" and len(argv) > 2 and (argv[1] == "restore" or (
            argv[1] == "checkout" and "--" in argv)):
        words = argv[argv.index("--") + 1:] if "--" in argv else [
            word for word in argv[2:] if not word.startswith("-")]
        found = None, list(words)
    if found is None:
        return
    substitutions, files = found
    for word in files:
        path = _target(view, word, invocation.cwd)
        if path:
            yield ShellEdit(call.line, path, substitutions)


def _sed(args: tuple[str, ...]) -> tuple[tuple[Substitution, ...] | None, list[str]] | None:
    """(substitutions or None, files) of ``sed -i …``; None when it edits nothing in place."""
    in_place, extended, unsure = False, False, False
    scripts: list[str] = []
    positional: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word in ("-e", "--expression") and index < len(args):
            scripts.append(args[index])
            index += 1
        elif word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif word.startswith("--in-place"):
            in_place = True
        elif word in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif word == "-i" and index < len(args) and (args[index] == ""
                                                     or args[index].startswith(".")):
            in_place = True  # BSD sed: ``-i ''`` / ``-i .bak``
            index += 1
        elif word.startswith("-") and len(word) > 1 and not word.startswith("--"):
            letters = word[1:]
            if "i" in letters:
                in_place = True
                letters = letters[:letters.index("i")]  # -i.bak, -Ei: the rest is a suffix
            extended = extended or "E" in letters or "r" in letters
            unsure = unsure or bool(set(letters) - set("Er"))  # -n, -f, -z, -s ...
        elif word.startswith("--"):
            unsure = True
        else:
            positional.append(word)
    if not in_place:
        return None
    if not scripts and positional:
        scripts.append(positional.pop(0))
    parsed = [sed_substitutions(script, extended) for script in scripts]
    if unsure or not parsed or any(subs is None for subs in parsed):
        return None, positional
    return tuple(sub for subs in parsed for sub in subs or ()), positional


def _perl(args: tuple[str, ...]) -> tuple[tuple[Substitution, ...] | None, list[str]] | None:
    """(substitutions or None, files) of ``perl -pi -e 's/a/b/' f``; None when not in place."""
    in_place, printing, unsure = False, False, False
    scripts: list[str] = []
    files: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word.startswith("-") and len(word) > 1 and not scripts and not files:
            letters = word[1:]
            if "i" in letters:
                in_place = True
                letters = letters[:letters.index("i")]
            printing = printing or "p" in letters
            takes_script = letters.endswith("e") or word == "-e"
            unsure = unsure or bool(set(letters) - set("pe"))
            if takes_script and index < len(args):
                scripts.append(args[index])
                index += 1
        elif word == "-e" and index < len(args):
            scripts.append(args[index])
            index += 1
        else:
            files.append(word)
    if not in_place:
        return None
    parsed = [perl_substitutions(script) for script in scripts]
    if unsure or not printing or not parsed or any(subs is None for subs in parsed):
        return None, files
    return tuple(sub for subs in parsed for sub in subs or ()), files


def _settled(found: dict[str, Any], edits: dict[str, _Changed]) -> dict[str, Any] | None:
    cited = [path for path in _quoted_files(found) if path in edits]
    if not cited:
        return found
    for path in cited:
        changed = edits[path]
        shown = _as_recorded(found, path, changed)
        if _from_recipes(found, path):
            if not changed.known or (shown == GONE and not changed.lines_up):
                return None  # what the file's recipes now run is not known
            updated = _runs_now(found, changed)
        elif shown == GONE:
            return None  # the harness's record shows the quoted line gone
        elif not changed.edits or shown == KEPT:
            continue  # no command changed it, or the record shows every quoted line
        elif not changed.known:
            return None  # what the file now holds is not known
        else:
            updated = _unless_changed(found, path, changed)
        if updated is None:
            return None
        found = updated
    return found


def _from_recipes(found: dict[str, Any], path: str) -> bool:
    """A ``runs`` fact of this task-runner file: what it says may come from other lines of
    the file (a variable a recipe uses), so a quoted line alone does not bear it out."""
    return found.get("predicate") == "x/runs" and found.get("rule") == "recipes" \
        and str(found["subject"]) == path


def _as_recorded(found: dict[str, Any], path: str, changed: _Changed) -> str:
    """What the harness's record of the file says of the lines the candidate quotes from
    it: ``GONE`` when one of them is shown gone, ``KEPT`` when all are shown, else
    ``UNKNOWN`` (``logic.observed_lines``)."""
    if changed.seen is None:
        return UNKNOWN
    verdicts = []
    for item in found.get("evidence") or ():
        match = _FILE_EVIDENCE.match(str(item))
        if match and _plain(match["path"]) == path:
            verdicts.append(_line_as_recorded(match["quote"], changed))
    if GONE in verdicts:
        return GONE
    return KEPT if verdicts and all(found == KEPT for found in verdicts) else UNKNOWN


def _line_as_recorded(quote: str, changed: _Changed) -> str:
    """``verdict`` of the quoted line, read where the session last saw it."""
    seen = changed.seen
    if seen is None:
        return UNKNOWN
    for look in reversed(changed.looks):
        before = look.text.split("\n")
        index = index_of(quote, before)
        if index is not None:
            return verdict(seen, before, index)
    return KEPT if seen.shows(quote) else UNKNOWN


def _evidence_now(evidence: list[str], path: str, changed: _Changed) -> list[str]:
    """Each quote of ``path`` as the line reads after the substitutions."""
    out = []
    for item in evidence:
        match = _FILE_EVIDENCE.match(item)
        if match and _plain(match["path"]) == path:
            quote = _line_now(match["quote"], changed)
            item = f"{match['path']}: `{quote}`"
        out.append(item)
    return out


def _line_now(quote: str, changed: _Changed) -> str:
    """A quoted (stripped) line as it reads now: the raw line the session saw, changed."""
    for look in reversed(changed.looks):
        lines = look.text.split("\n")
        for index, raw in enumerate(lines):
            if raw.strip() == quote:
                after = changed.now(look.text).split("\n")  # the record's lines in place
                return (after[index] if len(after) == len(lines) else changed.now(raw)).strip()
    return changed.now(quote).strip()


def _unless_changed(found: dict[str, Any], path: str, changed: _Changed
                    ) -> dict[str, Any] | None:
    """The candidate as it was when the substitutions change none of what it quotes from
    ``path`` nor its own text; else None."""
    evidence = [str(item) for item in found.get("evidence") or ()]
    if _evidence_now(evidence, path, changed) != evidence:
        return None
    said = str(found["object"])
    return None if changed.now(said) != said else found


def _runs_now(found: dict[str, Any], changed: _Changed) -> dict[str, Any] | None:
    """A runs fact with each recipe as the changed file defines it; None when none is left."""
    before, after = _recipes(changed, False), _recipes(changed, True)
    now: dict[str, str | None] = {}
    for key, runs in before.items():
        if after.get(key) != runs:
            now[runs] = after.get(key)
    clauses = []
    for clause in _CLAUSE.finditer(str(found["object"])):
        runs = clause["runs"]
        if runs in now:
            runs = now[runs]
            if runs is None or "\n" in runs or len(runs) > _MAX_RUNS:
                continue  # the recipe is gone, or no longer one line
        clauses.append(f"{clause['head']}`{runs}`")
    if not clauses:
        return None
    evidence = _evidence_now([str(item) for item in found.get("evidence") or ()],
                             str(found["subject"]), changed)
    return {**found, "object": "; ".join(clauses), "evidence": evidence}


def _recipes(changed: _Changed, now: bool) -> dict[tuple[str, str], str]:
    """(source, name) -> what it runs, from every look at the file (later ones win), as the
    session saw it or as it reads after the substitutions."""
    found: dict[tuple[str, str], str] = {}
    for look in changed.looks:
        if not recipe_format(look.path):
            continue
        text = changed.now(look.text) if now else look.text
        for recipe in parse_recipes(look.path, text):
            found[(recipe.source, recipe.name)] = recipe.runs
    return found

