"""Whether a remembered way of testing or building a project is only its ecosystem's default.

A project with a ``Cargo.toml`` builds with ``cargo build`` and runs its tests with ``cargo test``;
a Go module with ``go build`` / ``go test ./...``; a Mix project with ``mix test``. A fact
that says so tells the next agent nothing the manifest does not: it is the first command any
agent would guess. What is worth remembering about such a project is what differs from the
default -- a flag the gate needs (``cargo clippy -- -D warnings``, ``go test -race``), a
feature (``cargo test --features fuse``), a wrapper or a recipe (``just check``) -- and those
forms are not defaults.

Only toolchains with one built-in build and test command are listed. A package manager's
script (``pnpm test``, ``bun run test``) says which manager and script the project uses, and
Python has no single test runner (``pytest``, ``python -m unittest``, ``uv run pytest``): those
are never defaults here. Pure: no I/O.
"""

from __future__ import annotations

#: program -> its built-in subcommands that every project of that toolchain answers to.
_DEFAULT_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "cargo": frozenset({"build", "test", "check", "clippy", "fmt", "run"}),
    "go": frozenset({"build", "test", "vet", "run"}),
    "mix": frozenset({"test", "compile", "format"}),
    "dotnet": frozenset({"build", "test"}),
    "swift": frozenset({"build", "test"}),
}
#: Words that do not make a default run different: the whole tree (``./...``), a release
#: build, all targets of the one package.
_PLAIN_WORDS = frozenset({"./...", "...", "--release", "--all", "-r"})


def is_ecosystem_default(form: str) -> bool:
    """True for ``cargo test``, ``cargo build --release``, ``go test ./...``, ``mix test``;
    False for ``cargo test --features fuse``, ``cargo clippy -- -D warnings``,
    ``go test -race ./...``, ``pnpm test`` or anything with a wrapper or setting before it."""
    words = form.split()
    if len(words) < 2:
        return False
    program, subcommand, rest = words[0], words[1], words[2:]
    return subcommand in _DEFAULT_SUBCOMMANDS.get(program, frozenset()) \
        and all(word in _PLAIN_WORDS for word in rest)
