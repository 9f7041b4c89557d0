"""The memory_* tools (docs/mcp.md): names, arguments and when to call them — what
``tools/list`` says — and, in ``verbs``, what they do.

Argument names, defaults and coercions live in ``arguments``, descriptions in ``tools_args``.
The table loads none of the store's modules: the server answers ``tools/list`` before they
load, and a tool's ``run`` loads ``verbs`` (the search path) on the first call, when the
server has not warmed it up already (docs/mcp.md, "Start-up").
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from claimgraph.logic.model import EPISTEMIC_STRENGTH
from claimgraph.mcp import tools_args as A
from claimgraph.mcp.arguments import Arg
from claimgraph.mcp.session import ServerState


class Tool(NamedTuple):
    name: str
    description: str
    args: tuple[Arg, ...]
    writes: bool = False

    def run(self, ctx: ServerState, a: dict[str, Any]) -> dict[str, Any]:
        """The tool's verb (``verbs.<name>``) over parsed arguments."""
        from claimgraph.mcp import verbs

        verb: Callable[[ServerState, dict[str, Any]], dict[str, Any]] = getattr(verbs, self.name)
        return verb(ctx, a)


TOOLS: tuple[Tool, ...] = (
    Tool("memory_search", A.SEARCH_DOC, A.SEARCH),
    Tool("memory_recall", A.RECALL_DOC, A.RECALL),
    Tool("memory_facts", A.FACTS_DOC, A.FACTS),
    Tool("memory_neighbor", A.NEIGHBOR_DOC, A.NEIGHBOR),
    Tool("memory_history", A.HISTORY_DOC, A.HISTORY),
    Tool("memory_conflicts", A.CONFLICTS_DOC, ()),
    Tool("memory_coach", A.COACH_DOC, A.COACH),
    Tool("memory_assert", A.ASSERT_DOC, A.assert_args(tuple(EPISTEMIC_STRENGTH),
                                                      A.AGENT_SOURCE_TYPES), writes=True),
    Tool("memory_forget", A.FORGET_DOC, A.FORGET, writes=True),
)
BY_NAME = {tool.name: tool for tool in TOOLS}
