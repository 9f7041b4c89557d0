"""One command vocabulary: what a shell command is -- test, lint, format, build, run or install.

Every rule that asks "what does this command do?" asks here: ``tooling`` (a run that worked
is how the project is tested or built), ``lessons`` (the same check failing then passing) and
the recipe readers (what a Justfile recipe or a package.json script is for). One table, so
``mypy`` cannot be a test in one rule and a lint in another, and ``playwright test`` is a test
runner everywhere (docs/contributing-capture.md says how to add a command).

A command is matched on its program and first positional words after the wrappers that only
run it (``uv run``, ``npx``, ``python -m``, ``sudo``, ``FOO=1``) are removed; the longest key
wins. Task runners that run arbitrary targets (``make``, ``just``) match only a whole key:
``make`` is a build, ``make test`` a test, ``make clean`` nothing.
"""

from __future__ import annotations

import re
import shlex

from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.shell import positional, unwrap

KINDS = ("test", "lint", "format", "build", "run", "install")


def _entries(kind: str, *names: str) -> dict[tuple[str, ...], tuple[str, str]]:
    """``"cargo test"`` -> {("cargo", "test"): (kind, "cargo test")}; ``"npm t=npm test"``
    names the runner differently from the words typed."""
    table = {}
    for name in names:
        typed, _, runner = name.partition("=")
        table[tuple(typed.split())] = (kind, runner or typed)
    return table


VOCABULARY: dict[tuple[str, ...], tuple[str, str]] = {
    **_entries("test", "pytest", "py.test=pytest", "unittest", "tox", "nox", "jest", "vitest",
               "mocha", "ava", "rspec", "phpunit", "ctest", "cargo test", "cargo nextest",
               "cargo llvm-cov", "cargo tarpaulin", "go test", "mix test", "deno test",
               "bun test", "dotnet test", "mvn test", "mvn verify", "gradle test",
               "gradlew test=gradle test", "swift test", "stack test", "cabal test",
               "coverage run", "playwright test", "cypress run", "npm test", "npm t=npm test",
               "npm run test=npm test", "pnpm test", "pnpm run test=pnpm test", "yarn test",
               "yarn run test=yarn test", "bun run test", "make test", "just test"),
    **_entries("lint", "ruff=ruff", "ruff check=ruff", "mypy", "pyright", "basedpyright",
               "flake8", "pylint", "eslint", "cargo clippy", "cargo check", "cargo deny",
               "golangci-lint run=golangci-lint", "golangci-lint", "go vet", "staticcheck",
               "mix credo", "mix dialyzer", "mix deps.audit", "rubocop", "next lint",
               "biome lint", "biome check", "shellcheck", "hadolint", "stylelint",
               "markdownlint", "bandit", "vulture", "make lint", "just lint",
               # a package's scripts by their conventional names
               "npm run lint", "pnpm lint", "pnpm run lint=pnpm lint", "yarn lint",
               "yarn run lint=yarn lint", "bun run lint", "npm run typecheck",
               "pnpm typecheck", "pnpm run typecheck=pnpm typecheck", "yarn typecheck",
               "bun run typecheck", "pnpm check-types", "pnpm run check-types=pnpm check-types",
               "npm run check-types"),
    **_entries("format", "ruff format", "black", "isort", "prettier", "cargo fmt", "rustfmt",
               "gofmt", "goimports", "mix format", "dprint", "biome format", "clang-format",
               "shfmt", "stylua", "autopep8", "make format", "just format", "just fmt"),
    **_entries("build", "make", "make all=make", "make build=make", "cargo build", "go build",
               "tsc", "vite build", "next build", "webpack", "esbuild", "rollup", "tsup",
               "mix compile", "python -m build", "uv build", "hatch build", "poetry build",
               "mvn package", "mvn compile", "gradle build", "gradlew build=gradle build",
               "bazel build", "zig build", "swift build", "dotnet build", "npm run build",
               "pnpm build", "pnpm run build=pnpm build", "yarn build",
               "yarn run build=yarn build", "bun run build"),
    **_entries("run", "next dev", "next start", "vite", "uvicorn", "gunicorn", "flask run",
               "mix phx.server", "cargo run", "go run", "nodemon", "docker compose up",
               "rails server", "rails s", "fastapi dev", "streamlit run", "npm start",
               "npm run dev", "pnpm dev", "pnpm run dev", "yarn dev", "bun run dev"),
    **_entries("install", "pip install", "pip3 install", "uv pip install", "uv add", "uv sync",
               "poetry add", "poetry install", "pdm add", "npm install", "npm i", "npm ci",
               "npm add", "pnpm add", "pnpm install", "yarn add", "yarn install", "bun add",
               "bun install", "cargo add", "go get", "mix deps.get", "bundle install"),
}
VOCABULARY[("python -m build",)] = ("build", "python -m build")  # ``unwrap`` keeps it one word
#: Programs whose arguments name arbitrary targets: only a whole key matches them.
EXACT_ONLY = frozenset({"make", "just", "tsc"})
#: Flags that ask about the tool instead of running it, or run no check: they list, collect,
#: print a configuration, plan or compile the tests without running one (``pytest --co``,
#: ``jest --listTests``, ``cargo test --no-run``). Stored as how the project is tested, such
#: a command would test nothing.
NOT_A_RUN = frozenset({
    "--help", "-h", "--version", "-V", "--init", "--watch", "-w",
    "--co", "--collect-only", "--collectonly", "--fixtures", "--fixtures-per-test", "--markers",
    "--setup-plan", "--setup-only", "--list", "-list", "--listTests", "--list-tests",
    "--listenvs", "--listenvs-all", "--dry-run", "--dryrun", "--showConfig", "--show-config",
    "--print-config", "--list-files", "--no-run", "--collect", "--show-settings",
    "--show-files", "--just-print", "--recon", "--question", "--evaluate", "--summary"})
#: Short flags that mean "list" or "only print what would run" to some runners alone
#: (``pytest -l`` shows locals; ``make -n test`` prints the recipe and runs nothing).
_LISTS = {"tox": frozenset({"-l", "-a"}), "nox": frozenset({"-l"}),
          "make": frozenset({"-n", "-q"}), "just": frozenset({"-n", "-l", "-s"})}
#: A runner's mode word that runs no check (``vitest list``, ``cargo nextest list``).
NOT_A_RUN_MODES: dict[tuple[str, ...], frozenset[str]] = {
    ("vitest",): frozenset({"list", "init"}), ("jest",): frozenset({"init"}),
    ("cargo", "nextest"): frozenset({"list", "archive", "show-config"}),
    ("playwright", "test"): frozenset({"list"}),
}
#: Flags that turn a linter into a fixer: ``cargo clippy --fix`` rewrites code, checks nothing.
FIXES = frozenset({"--fix", "--fix-only", "--write", "--apply", "--unsafe-fixes"})
_LONGEST = max(len(key) for key in VOCABULARY)
#: A tox or nox environment that formats code: a format run, not a check.
_FORMAT_ENV = frozenset({"format", "fmt", "formatting", "black", "isort", "reformat"})


def kind_of(argv: tuple[str, ...]) -> tuple[str, str] | None:
    """(kind, runner) of one command's words, e.g. ("test", "cargo test"), or None."""
    found = _match(argv)
    return found[0] if found else None


def typed_key(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The words of ``argv`` that name its check as typed, wrappers removed (``ruff
    check``, ``npm run test``, ``vitest run``): what a shortened form must keep, or it is
    another command (``ruff`` alone runs nothing, ``vitest`` alone watches). () when the
    command is no known check."""
    found = _match(argv)
    return found[1] if found else ()


#: A runner's first word that picks its mode: ``vitest`` alone watches, ``vitest run`` runs
#: once; ``cargo nextest`` needs ``run``. Kept with the runner's own words.
MODES: dict[tuple[str, ...], frozenset[str]] = {
    ("vitest",): frozenset({"run", "bench", "related"}),
    ("cargo", "nextest"): frozenset({"run"}),
    ("cargo", "llvm-cov"): frozenset({"nextest", "test", "run", "report"}),
    ("unittest",): frozenset({"discover"}),
    ("tox",): frozenset({"run", "r", "run-parallel", "p"}),
}


def _match(argv: tuple[str, ...]) -> tuple[tuple[str, str], tuple[str, ...]] | None:
    words = unwrap(argv)
    if not words or NOT_A_RUN & set(words) or _LISTS.get(words[0], frozenset()) & set(words):
        return None
    names = positional(words)
    if words[0] == "tsc" and "--noEmit" in words:
        return ("lint", "tsc --noEmit"), ("tsc",)
    if words[0] in ("tox", "nox") and _FORMAT_ENV & set(env_names(words)):
        return ("format", words[0]), (words[0],)  # ``tox -e format`` rewrites code
    for size in range(min(_LONGEST, len(names)), 0, -1):
        if words[0] in EXACT_ONLY and len(names) != size:
            continue
        key = tuple(names[:size])
        found = VOCABULARY.get(key)
        if found and found[0] == "lint" and FIXES & set(words):
            found = ("format", found[1])
        if found:
            mode = names[size:size + 1]
            if mode and mode[0] in NOT_A_RUN_MODES.get(key, ()):
                return None
            if mode and mode[0] in MODES.get(key, ()):
                key += (mode[0],)
            return found, key
    return None


def env_names(words: tuple[str, ...]) -> list[str]:
    """The environments or sessions a ``tox -e a,b`` / ``nox -s a`` run names."""
    found: list[str] = []
    for flag, value in zip(words, words[1:]):
        if flag in ("-e", "-s", "--session", "--sessions"):
            found += value.split(",")
    return found


#: What a run prints when the check never ran: the program or its module is missing, the
#: runner refused its arguments (pytest's exit 4, argparse, clap, cac, Go's flag package), or
#: the script, target or recipe it names does not exist. A test that fails prints none of
#: these of itself (pytest's "file or directory not found" is its usage error, not a test's;
#: ``python -m x`` without x says "No module named x", a test's import "... named 'x'").
_NOT_RUN = lazy_regex(
    r"command not found|No module named [^'\"\s]|unrecognized arguments|Unrecognized CLI Parameter"
    r"|unknown (?:option|flag|command|compiler option)|invalid option|unexpected argument"
    r"|flag provided but not defined|error: no such (?:command|subcommand)"
    r"|ERROR: usage:|ERROR: file or directory not found|Failed to spawn"
    r"|Missing script|ERR_PNPM_NO_SCRIPT|Script not found|Command \"[^\"\n]*\" not found"
    r"|No rule to make target|does not contain recipe|is not recognized as an internal"
    r"|^(?:\S*/)?(?:ba|z|da)?sh(?::\s*line \d+)?: .*no such file or directory",
    re.IGNORECASE | re.MULTILINE)


def did_not_run(output: str) -> bool:
    """Whether a command's output says the check never ran (``_NOT_RUN``): a usage error,
    a program, module, script or target that is not there. A run whose exit status a pipe
    hid (``pytest 2>&1 | tail -5``) is known to have run the check only by its output."""
    return bool(output) and _NOT_RUN.search(output) is not None


def kind_of_text(command: str) -> tuple[str, str] | None:
    """``kind_of`` for one command written as text (a recipe line)."""
    try:
        argv = tuple(shlex.split(command))
    except ValueError:
        argv = tuple(command.split())
    return kind_of(argv) if argv else None
