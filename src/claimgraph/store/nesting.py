"""Re-entrant transactions, one rule for every store and wrapper: the outermost block does the
work (begin, commit, roll back); a block opened inside it only joins, counting its depth."""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager, contextmanager
from typing import Callable, Iterator, Protocol, TypeVar


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


Owner = TypeVar("Owner", bound=Nested)


def reentrant(outermost: Callable[[Owner], Iterator[None]]
              ) -> Callable[[Owner], AbstractContextManager[None]]:
    """A ``transaction`` method from the body of its outermost block: called while a
    transaction is open, it joins that one instead."""
    begin = contextmanager(outermost)

    @contextmanager
    @functools.wraps(outermost)
    def transaction(owner: Owner) -> Iterator[None]:
        with joined(owner) if owner.depth else begin(owner):
            yield
    return transaction
