"""A way of checking the project's own rules forbid is not stored as how the project is checked.

The rules are read (``logic.forbidden_commands``) from the project's instruction files the
session saw (CLAUDE.md, AGENTS.md, a contributor guide, a docs page: ``instructions
.is_instruction_file``, the project's own only), the ones the agent's harness injected into
the conversation (Codex's "# AGENTS.md instructions"), and the person's own words. A
``tested-by`` / ``built-with`` whose command one of them forbids is left out whole; a
``runs`` fact loses the recipes it forbids (by the recipe as typed or by what it runs), and
is left out when none is left; the dev server likewise. A CI workflow's or pre-commit
file's steps stay: nobody types them, and the rule is about what whoever works on the code
runs. Which kind of check a command is (test, unit, e2e, lint, format, build) comes from the
one command vocabulary (``commands``, ``recipe_common``): ``pnpm exec playwright test`` and
``pnpm test:e2e`` are e2e tests, ``pytest`` a unit test run.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from claimgraph.capture.extract.commands import VOCABULARY, kind_of_text
from claimgraph.capture.extract.prose import injected_files, split_sentences
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.recipe_common import role_of_command
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.statements import user_texts
from claimgraph.logic.forbidden_commands import (
    Forbidden, commands_of, first_forbidding, normalized, rules_in)
from claimgraph.logic.lazy_regex import lazy_regex

#: Programs a rule may name bare ("Don't use npm"): the vocabulary's runners, package
#: managers and task runners. Any other bare word is prose.
PROGRAMS = frozenset({key[0] for key in VOCABULARY} | {
    "npm", "pnpm", "yarn", "bun", "npx", "bunx", "pnpx", "pip", "pip3", "uv", "poetry", "pdm",
    "make", "just", "task", "mise", "turbo", "nx", "tox", "nox", "cargo", "go", "mix",
    "gradle", "gradlew", "mvn", "dotnet", "deno", "node", "python", "python3"})
#: A command's word that names an end-to-end check (a script ``test:e2e``, a target ``e2e``).
_E2E_WORD = lazy_regex(r"(?:^|[:_/.-])(?:e2e|playwright|cypress)(?:$|[:_/.-])", re.IGNORECASE)
_E2E_RUNNERS = frozenset({"playwright test", "cypress run"})
_SCRIPT_PATH = lazy_regex(r"^(?:\./|scripts?/|bin/|tools?/)[\w./-]+$")
_CLAUSE = lazy_regex(r"(?:script `(?P<script>[^`]+)`|`(?P<typed>[^`]+)`) runs `(?P<runs>[^`]*)`")
_SCREENED = frozenset({"core/tested-by", "core/built-with", "x/runs"})
#: The command a dev-server fact names ("its dev server with `npm run dev`").
_DEV_SERVER = lazy_regex(r"`([^`]+)`")


def screen_forbidden(view: SessionView, candidates: list[dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    """``candidates`` without the commands the project's rules forbid (module docstring)."""
    if not any(found["predicate"] in _SCREENED for found in candidates):
        return candidates
    rules = project_rules(view)
    if not rules:
        return candidates
    kept = []
    for found in candidates:
        screened = _screened(found, rules) if found["predicate"] in _SCREENED else found
        if screened is not None:
            kept.append(screened)
    return kept


def project_rules(view: SessionView) -> list[Forbidden]:
    """Every forbidding rule the project's files and the person's words state."""
    return list(dict.fromkeys(rule for text, typed in _rule_texts(view)
                              for sentence in _sentences(text)
                              for rule in rules_in(sentence, is_command, is_program,
                                                   typed=typed)))


def _rule_texts(view: SessionView) -> Iterator[tuple[str, bool]]:
    """(text, whether the person typed it): the project's instruction files, the ones the
    harness injected, the person's own words."""
    from claimgraph.capture.extract.instructions import is_instruction_file

    for looks in surviving_looks(view).values():
        cited = looks[-1].cited
        if cited and " " not in cited and is_instruction_file(cited):
            yield from ((text, False) for text in dict.fromkeys(look.text for look in looks))
    for event in view.transcript.events:
        if event.kind in ("meta", "prompt") and not event.is_sidechain:
            yield from ((text, False) for text in injected_files(event.text))
    for _, text in user_texts(view):
        yield text, True


def _sentences(text: str) -> Iterator[str]:
    """The sentences of a text, line by line (a list item is its own sentence), code blocks
    left out."""
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and _HAS_RULE_WORD.search(line):
            yield from split_sentences(_EMPHASIS.sub("", line))


_EMPHASIS = lazy_regex(r"\*\*|__")
_HAS_RULE_WORD = lazy_regex(
    r"\b(?:never|not|use|should|don'?t|avoid|instead|rather|always|only|must)\b", re.IGNORECASE)


def is_program(word: str) -> bool:
    """A bare word a rule can forbid as a program (``PROGRAMS``)."""
    return word in PROGRAMS


def is_command(text: str) -> bool:
    """A code span that is a command someone runs: a known check, a recipe or script run
    through a task runner or package manager, or a script by its path."""
    words = normalized(text.split())
    if not words:
        return False
    return words[0] in PROGRAMS or bool(_SCRIPT_PATH.match(words[0])) \
        or kind_of_text(" ".join(words)) is not None


def kinds_of(words: tuple[str, ...]) -> frozenset[str]:
    """Which kinds of check one simple command is, in the one command vocabulary: its role
    (test, lint, format, build, run, install), and for a test "e2e" (a browser runner, or a
    script or target named for one) or else "unit"."""
    line = " ".join(words)
    found = kind_of_text(line)
    role = found[0] if found else role_of_command(line)
    kinds = {role} if role else set()
    e2e = (found is not None and found[1] in _E2E_RUNNERS) or (
        role == "test" and any(_E2E_WORD.search(word) for word in words[1:]))
    if e2e:
        kinds |= {"test", "e2e"}
    elif role == "test":
        kinds.add("unit")
    return frozenset(kinds)


def forbidden_by(rules: list[Forbidden], line: str) -> Forbidden | None:
    """The rule that forbids a line of shell (any of its simple commands), else None. A rule
    that sends a kind of check through one command lets that command's own runner pass
    (``pytest -x`` where the rule says "use `pytest` for tests")."""
    for command in commands_of(line):
        if not command or command[0] == "cd":
            continue
        kinds = kinds_of(command)
        rule = first_forbidding([r for r in rules if not _same_runner(r, command)], command,
                                kinds)
        if rule is not None:
            return rule
    return None


def _same_runner(rule: Forbidden, command: tuple[str, ...]) -> bool:
    if not (rule.kind and rule.via):
        return False
    wanted, ran = kind_of_text(" ".join(rule.via)), kind_of_text(" ".join(command))
    return wanted is not None and ran is not None and wanted[1] == ran[1]


def _screened(found: dict[str, Any], rules: list[Forbidden]) -> dict[str, Any] | None:
    if found["predicate"] != "x/runs":
        return None if forbidden_by(rules, str(found["object"])) else found
    if found.get("rule") != "recipes":
        spans = _DEV_SERVER.findall(str(found["object"]))
        return None if any(forbidden_by(rules, span) for span in spans) else found
    if _untyped(str(found["subject"])):
        return found
    return _without_forbidden_recipes(found, rules)


def _untyped(subject: str) -> bool:
    """A CI workflow or pre-commit file: its steps run on every change, nobody types them."""
    lowered = subject.lower()
    return "/.github/workflows/" in "/" + lowered or lowered.endswith(
        (".pre-commit-config.yaml", ".pre-commit-config.yml"))


def _without_forbidden_recipes(found: dict[str, Any], rules: list[Forbidden]
                               ) -> dict[str, Any] | None:
    said = str(found["object"])
    clauses = list(_CLAUSE.finditer(said))
    if not clauses:
        return found
    kept = [clause for clause in clauses
            if not forbidden_by(rules, clause["typed"] or "")
            and not forbidden_by(rules, clause["runs"])]
    if len(kept) == len(clauses):
        return found
    if not kept:
        return None
    dropped = [clause for clause in clauses if clause not in kept]
    evidence = [item for item in found["evidence"]
                if not any(_quotes(item, clause["runs"]) for clause in dropped)
                or any(_quotes(item, clause["runs"]) for clause in kept)]
    return {**found, "object": "; ".join(clause.group(0) for clause in kept),
            "evidence": evidence or found["evidence"][:1]}


def _quotes(evidence: str, runs: str) -> bool:
    """The evidence's quoted line is part of what a recipe runs."""
    quoted = evidence.split(": `", 1)[-1].rstrip("`").strip()
    return bool(quoted) and quoted in runs
