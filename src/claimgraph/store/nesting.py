"""Re-entrant transactions, one rule for every store and wrapper: the outermost block does the
work (begin, commit, roll back); a block opened inside it only joins, counting its depth."""

from __future__ import annotations

from contextlib import contextmanager

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Callable, Iterator, Protocol, TypeVar


if TYPE_CHECKING:
    class Nested(Protocol):
        """Whatever keeps a transaction depth (0: no transaction open)."""

        depth: int

    Owner = TypeVar("Owner", bound=Nested)


@contextmanager
def joined(owner: Nested) -> Iterator[None]:
    """An inner block: nothing begins or ends here; the outermost block decides."""
    owner.depth += 1
    try:
        yield
    finally:
        owner.depth -= 1


def reentrant(outermost: Callable[[Owner], Iterator[None]]
              ) -> Callable[[Owner], AbstractContextManager[None]]:
    """A ``transaction`` method from the body of its outermost block: called while a
    transaction is open, it joins that one instead."""
    begin = contextmanager(outermost)

    @contextmanager
    def transaction(owner: Owner) -> Iterator[None]:
        with joined(owner) if owner.depth else begin(owner):
            yield
    transaction.__doc__ = outermost.__doc__
    return transaction
