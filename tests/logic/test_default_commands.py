"""A check that is only its toolchain's default says nothing the manifest does not."""

from __future__ import annotations

import pytest

from claimgraph.logic.default_commands import is_ecosystem_default


@pytest.mark.parametrize("form", [
    "cargo test", "cargo build", "cargo build --release", "cargo clippy", "cargo check",
    "go test", "go test ./...", "go build ./...", "go vet", "mix test", "mix compile",
    "dotnet test", "swift build"])
def test_a_toolchain_default_is_recognised(form):
    assert is_ecosystem_default(form)


@pytest.mark.parametrize("form", [
    "cargo test --features fuse", "cargo clippy -- -D warnings", "cargo llvm-cov",
    "go test -race ./...", "mix compile --warnings-as-errors", "pnpm test", "bun run test",
    "npm test", "pytest", "python -m pytest", "uv run pytest", "just check", "make test",
    "GOFLAGS=-mod=mod go test", "cargo", "", "tox -e lint"])
def test_a_form_that_says_more_than_the_default_is_not(form):
    assert not is_ecosystem_default(form)
