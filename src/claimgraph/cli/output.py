"""The CLI's only way out: human lines for people, JSON for machines, errors on stderr.

Every command prints through here, so the shapes stay consistent across commands and tests can
compare exact output; how a record reads (its JSON shape, its one line) is
``logic.present_records``, shared with the MCP server.
"""

from __future__ import annotations

import json
import sys

from claimgraph.logic.present_records import fact_line, jsonable

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping


def emit(text: str = "") -> None:
    print(text, file=sys.stdout)


def emit_json(data: Any) -> None:
    """One JSON document per command on stdout."""
    print(json.dumps(jsonable(data), ensure_ascii=False), file=sys.stdout)


def emit_error(line: str) -> None:
    print(line, file=sys.stderr)


def emit_fact_lines(facts: Iterable[Mapping[str, Any]], empty: str, indent: str = "") -> None:
    facts = list(facts)
    if not facts:
        emit(empty)
    for fact in facts:
        emit(indent + fact_line(fact))
