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

ROLES = ("test", "lint", "format", "build", "run", "check", "other")


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


def recipe(name: str, invocation: str, commands: list[str], quote: str, source: str,
           role: str | None = None) -> Recipe | None:
    """A Recipe, its role guessed from ``name`` then its commands unless ``role`` is given;
    None when it runs nothing."""
    runs = "; ".join(c.strip() for c in commands if c and c.strip())
    if not runs or not name.strip():
        return None
    role = role or role_of_name(name) or role_of_commands(runs)
    return Recipe(name.strip(), invocation, runs, quote.strip(), role, source)


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
_TYPE_CHECK = re.compile(r"check\W?types?|types?\W?check")


def role_of_name(name: str) -> str | None:
    """The role a recipe name announces: test:watch -> test, check-types -> lint, dev -> run."""
    lowered = _TYPE_CHECK.sub("typecheck", name.lower())
    for role, pattern in _NAME_PATTERNS:
        if pattern.search(lowered):
            return role
    return None


_WRAPPERS = re.compile(
    r"^(?:(?:[A-Z_][A-Z0-9_]*=\S*|sudo|time|env|exec|command)\s+)*"
    r"(?:(?:uv|poetry|pdm|hatch|rye|pipenv)\s+run\s+(?:--\S+\s+)*|npx\s+(?:--\S+\s+)*|"
    r"bunx\s+|pnpm\s+(?:exec|dlx)\s+|yarn\s+dlx\s+|bundle\s+exec\s+|"
    r"python[0-9.]*\s+-m\s+|(?:\S*/)?(?:\.venv|venv|node_modules)/\S*?/(?=\w))?")
_COMMAND_ROLES = (
    ("format", r"ruff format|black|isort|prettier|cargo fmt|rustfmt|gofmt|goimports|"
               r"mix format|dprint|biome format|clang-format|shfmt|stylua|autopep8"),
    ("lint", r"ruff(?: check)?|eslint|cargo clippy|cargo check|mypy|pyright|basedpyright|ty|"
             r"flake8|pylint|tsc\b.*--noEmit|golangci-lint|go vet|mix credo|mix dialyzer|"
             r"rubocop|next lint|biome (?:lint|check)|shellcheck|hadolint|stylelint|"
             r"markdownlint|bandit|vulture|staticcheck|cargo deny|mix deps\.audit"),
    ("test", r"pytest|py\.test|tox|nox|vitest|jest|mocha|ava|rspec|phpunit|ctest|unittest|"
             r"cargo (?:test|nextest|llvm-cov|tarpaulin)|go test|mix test|deno test|bun test|"
             r"dotnet test|mvn (?:test|verify)|(?:\./)?gradlew? test|coverage run|"
             r"playwright test|cypress run|(?:npm|pnpm|yarn) (?:run )?test"),
    ("build", r"cargo build|go build|tsc|vite build|next build|webpack|esbuild|rollup|parcel|"
              r"tsup|mix compile|build|uv build|hatch build|poetry build|docker build|"
              r"mvn (?:package|install|compile)|(?:\./)?gradlew? (?:build|assemble)|cmake|"
              r"bazel build|zig build|swift build|dotnet build"),
    ("run", r"next (?:dev|start)|vite(?: dev)?$|vite --|uvicorn|gunicorn|flask run|"
            r"mix phx\.server|iex -S|cargo run|go run|node|nodemon|docker compose up|"
            r"rails s(?:erver)?|fastapi dev|streamlit run|npm start"),
)
_COMMAND_PATTERN = re.compile("^(?:" + "|".join(
    f"(?P<{role}>{pattern})" for role, pattern in _COMMAND_ROLES) + r")(?:\s|$)")
_DELEGATE = re.compile(r"^(?:npm|pnpm|yarn|bun|just|make|task|poe|turbo|nx|mix|hatch|pdm)"
                       r"(?:\s+run)?\s+([\w:.-]+)")


def role_of_command(command: str) -> str | None:
    """The role of one shell command, wrappers (``uv run``, ``npx``, ``python -m``) removed;
    a delegation to another recipe (``npm run lint``, ``turbo run test``) takes that name's."""
    bare = _WRAPPERS.sub("", command.strip(), count=1)
    found = _COMMAND_PATTERN.match(bare)
    if found:
        return found.lastgroup
    delegate = _DELEGATE.match(bare)
    return role_of_name(delegate.group(1)) if delegate else None


_COMMAND_SEPARATOR = re.compile(r"\s*(?:;|&&|\|\||\|)\s*")


def role_of_commands(runs: str) -> str:
    """One role for a body: its only role, "check" when it runs several of test/lint/format."""
    roles = {role for part in _COMMAND_SEPARATOR.split(runs)
             if (role := role_of_command(part))}
    if len(roles) <= 1:
        return next(iter(roles), "other")
    if roles & {"test", "lint", "format"}:
        return "check"
    return "run" if "run" in roles else "build"
