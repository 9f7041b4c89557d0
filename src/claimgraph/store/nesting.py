"""Re-entrant transactions, one rule for every store and wrapper: the outermost block does the
work (begin, commit, roll back); a block opened inside it only joins, counting its depth."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Protocol


class Nested(Protocol):
    """Whatever keeps a transaction depth (0: no transaction open)."""

    depth: int


@contextmanager
def joined(owner: Nested) -> Iterator[None]:
    """An inner block: nothing begins or ends here; the outermost block decides."""
    owner.depth += 1
    try:
        yield
    finally:
        owner.depth -= 1
