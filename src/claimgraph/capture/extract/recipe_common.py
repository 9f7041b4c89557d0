"""A recipe -- how a project is worked on -- and the guess of what it is for.

A recipe pairs what a developer types (``just check``, ``npm run test``) with what that runs
(``cargo llvm-cov --fail-under-lines 100``), plus the line it was read from so a fact built on
it can be cited verbatim. Its ``role`` lets the extractor tell the test command from the dev
server: the recipe's own name says it best (people name recipes for their purpose), and only
an uninformative name falls back to the programs the body runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.commands import kind_of_text

ROLES = ("test", "lint", "format", "build", "run", "install", "check", "other")


@dataclass(frozen=True)
class Recipe:
    """``name`` as defined, ``invocation`` as typed, ``runs`` the commands joined with "; ",
    ``quote`` the stripped source line of the first command (the definition line when the
    command sits on it), ``role`` one of ``ROLES``, ``source`` the format it came from
    (justfile, makefile, package.json, mix, tox, nox, pre-commit, github-actions, poe, hatch,
    pdm, taskfile)."""

    name: str
    invocation: str
    runs: str
    quote: str
    role: str
    source: str
    #: The text showed the object the entry sits in (a package.json script under
    #: ``"scripts": {``); False for a fragment that started inside an object it did not name,
    #: which may as well be a tool's configuration (``"testEnvironment": "node"``).
    placed: bool = True


def recipe(name: str, invocation: str, commands: list[str], quote: str, source: str,
           role: str | None = None, placed: bool = True) -> Recipe | None:
    """A Recipe, its role guessed from ``name`` then its commands unless ``role`` is given;
    None when it runs nothing."""
    runs = "; ".join(c.strip() for c in commands if c and c.strip())
    if not runs or not name.strip():
        return None
    role = role or role_of_name(name) or role_of_commands(runs)
    return Recipe(name.strip(), invocation, runs, quote.strip(), role, source, placed)


_NAME_WORDS = (
    ("test", ("test", "spec", "e2e", "coverage", "cov", "unit", "integration", "pytest")),
    ("format", ("fmt", "format", "prettier", "black", "isort")),
    ("lint", ("lint", "clippy", "credo", "dialyzer", "typecheck", "typing", "mypy",
              "pyright", "eslint", "ruff", "vet", "audit")),
    ("build", ("build", "compil", "bundle", "dist")),
    ("check", ("check", "ci", "verify", "validat", "quality", "precommit", "gate")),
    ("run", ("dev", "serve", "server", "start", "watch", "up")),
)


def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Whole name tokens; a word longer than three letters also matches as a token's prefix
    (tests, linting, compile, validate)."""
    forms = [w + "[a-z0-9]*" if len(w) > 3 else w for w in words]
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(forms) + r")(?![a-z0-9])")


_NAME_PATTERNS = tuple((role, _word_pattern(words)) for role, words in _NAME_WORDS)
_TYPE_CHECK = lazy_regex(r"check\W?types?|types?\W?check")


def role_of_name(name: str) -> str | None:
    """The role a recipe name announces: test:watch -> test, check-types -> lint, dev -> run."""
    lowered = _TYPE_CHECK.sub("typecheck", name.lower())
    for role, pattern in _NAME_PATTERNS:
        if pattern.search(lowered):
            return role
    return None


#: A launcher before a task runner (``pnpm exec turbo run test``, ``npx nx run lint``): the
#: runner it starts is the one delegated to.
_LAUNCHER = r"(?:(?:npm|pnpm|yarn|bun)\s+exec\s+|npx\s+|bunx\s+|pnpm\s+dlx\s+)?"
_DELEGATE = lazy_regex(r"^" + _LAUNCHER +
                       r"(?:npm|pnpm|yarn|bun|just|make|task|poe|turbo|nx|mix|hatch|pdm)"
                       r"(?:\s+run)?\s+([\w:.-]+)")


def role_of_command(command: str) -> str | None:
    """The role of one shell command in the one command vocabulary (``commands``); a
    delegation to another recipe (``npm run lint``, ``turbo run test``, also behind a
    launcher: ``pnpm exec turbo run test:unit``) takes that name's."""
    found = kind_of_text(command.strip())
    if found:
        return found[0]
    delegate = _DELEGATE.match(command.strip())
    return role_of_name(delegate.group(1)) if delegate else None


_COMMAND_SEPARATOR = lazy_regex(r"\s*(?:;|&&|\|\||\|)\s*")
#: Another recipe called by its name alone: ``make X``, ``just X``, ``task X``, ``npm run X``
#: (a package manager's own command -- ``npm publish`` -- is a command, not a recipe).
_BARE_DELEGATE = lazy_regex(r"^(?:(?:just|make|task)\s+|(?:npm|pnpm|yarn|bun)\s+run\s+)"
                            r"[\w:.-]+$")
#: Roles a recipe name may announce for a list of other recipes to be worth telling: the
#: gate to pass before work is done (``verify: build typecheck lint test``).
_GATE_ROLES = frozenset({"test", "lint", "check"})


def only_calls_others(item: Recipe) -> bool:
    """A recipe that runs nothing of its own, only other recipes by name (``all: build
    test``, ``$(MAKE) lint``), and whose name does not announce a check: what it does is
    what those others do, told by their own lines. A gate that chains checks stays."""
    parts = [part for part in _COMMAND_SEPARATOR.split(item.runs) if part]
    return bool(parts) and all(_BARE_DELEGATE.match(part) for part in parts) \
        and role_of_name(item.name) not in _GATE_ROLES


def role_of_commands(runs: str) -> str:
    """One role for a body: its only role, "check" when it runs several of test/lint/format."""
    roles = {role for part in _COMMAND_SEPARATOR.split(runs)
             if (role := role_of_command(part))}
    if len(roles) <= 1:
        return next(iter(roles), "other")
    if roles & {"test", "lint", "format"}:
        return "check"
    return "run" if "run" in roles else "build"
