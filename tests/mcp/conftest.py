"""A real ``python -m claimgraph.mcp`` process per test, driven by the SDK's own stdio client.

``served`` is a git project (the server's working directory, so its project scope) and a store
holding a few facts in that project's scope, the user's scope and another project's. ``talk``
runs an async conversation with a fresh server and returns what it returned; ``call`` unpacks a
tool result into ``(is_error, decoded JSON)``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client, StdioServerParameters

from claimgraph.core import Shell
from claimgraph.core.vocabulary import seed
from claimgraph.core.writes import assert_fact
from claimgraph.opening import open_store
from claimgraph.project import resolve_project

T = TypeVar("T")
OTHER = "github.com/acme/other"
SERVER_TIMEOUT_S = 60


@dataclass
class Served:
    project: Path
    project_id: str
    db: Path
    env: dict[str, str] = field(default_factory=dict)
    problems: list[Any] = field(default_factory=list)

    def params(self, **env: str) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=["-m", "claimgraph.mcp"],
                                     cwd=str(self.project), env={**self.env, **env})

    def client(self, mode: str = "auto", **env: str) -> Client:
        """A client that records anything on the wire that is not protocol."""
        async def on_message(message: Any) -> None:
            if isinstance(message, Exception):
                self.problems.append(message)
        return Client(self.params(**env), mode=mode, message_handler=on_message,
                      read_timeout_seconds=SERVER_TIMEOUT_S)

    @property
    def log(self) -> Path:
        return Path(f"{self.db}.mcp.log")

    def log_events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()
                if line.startswith("{")]


def seeded(db: Path, project_id: str) -> None:
    sh = Shell(open_store(db))
    seed(sh)
    for subject, predicate, obj, scope in (
            ("billing", "decided-against", "GraphQL", project_id),
            ("billing", "depends-on", "stripe", project_id),
            ("billing", "failure-mode", "double charges when the webhook retries", project_id),
            ("stripe", "has-version", "12.1", project_id),
            ("user", "prefers", "uv", "user"),
            ("billing", "depends-on", "stripe-legacy", OTHER)):
        assert_fact(sh, subject, predicate, obj, scope=scope)
    sh.store.close()


@pytest.fixture
def served(tmp_path: Path, isolated_home: Path) -> Served:
    project = tmp_path / "shop"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    project_id = resolve_project(project).id
    db = Path(os.environ["CLAIMGRAPH_DB"])
    seeded(db, project_id)
    env = {k: v for k, v in os.environ.items()
           if k in ("PATH", "HOME", "LANG") or k.startswith(("XDG_", "CLAIMGRAPH_"))}
    return Served(project, project_id, db, env)


def talk(conversation: Callable[[], Awaitable[T]]) -> T:
    """Run one async conversation to its end (the server exits when its client leaves)."""
    async def bounded() -> T:
        with anyio.fail_after(SERVER_TIMEOUT_S * 2):
            return await conversation()
    return anyio.run(bounded)


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None
               ) -> tuple[bool, Any]:
    result = await client.call_tool(name, arguments or {})
    [content] = result.content
    return result.is_error, json.loads(content.text)
