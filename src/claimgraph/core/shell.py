"""The shell's context: the store, the clock and the id mint, passed to every verb.

Time and fresh ids are injected so tests can pin them and so ``logic`` never reads a clock.
"""

from __future__ import annotations

import time
import os

from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable

    from claimgraph.store.base import Store


def wall_clock_ms() -> int:
    """Milliseconds since the epoch, UTC: the only clock the shell reads."""
    return time.time_ns() // 1_000_000


def uuid_ids(prefix: str) -> str:
    """``f-<uuid4>``, ``e-<uuid4>``, ``ep-<uuid4>``: ids that never collide across writers.

    Formatted straight from random bytes (version and variant bits set as uuid4 sets them):
    the write path mints one per fact, and ``uuid.uuid4()`` costs several times more.
    """
    h = _random_hex()
    return f"{prefix}-{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


_VARIANT = "89ab"
#: 16 random bytes per id, read from the OS 256 ids at a time: one system call per id was a
#: twentieth of a batch ingest. Emptied in a forked child, so parent and child never share one.
_POOL_IDS = 256
_pool: list[str] = []
os.register_at_fork(after_in_child=_pool.clear)


def _random_hex() -> str:
    """32 hex digits no other call has had (safe across threads: pop is atomic)."""
    while True:
        try:
            return _pool.pop()
        except IndexError:
            h = os.urandom(16 * _POOL_IDS).hex()
            _pool.extend(h[i:i + 32] for i in range(0, len(h), 32))


class Shell:
    """What every shell verb needs: a store, a clock, an id mint and the decay half-life.

    A plain class, not a dataclass: every CLI command builds one, and ``dataclasses`` pulls
    ``inspect`` (and ``ast``, ``dis``, ``tokenize``) into a read command's start-up."""

    def __init__(self, store: Store, clock: Callable[[], int] = wall_clock_ms,
                 new_id: Callable[[str], str] = uuid_ids,
                 half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> None:
        self.store = store
        self.clock = clock
        self.new_id = new_id
        self.half_life_days = half_life_days
        #: Predicate rows by id, loaded once; writes that register rows keep it in step.
        self._predicates: dict[str, dict[str, Any]] | None = None
        #: Derived registry answers (name resolution, group-mates), dropped with the cache.
        self.registry_memo: dict[tuple[str, str], Any] = {}

    def __repr__(self) -> str:
        return f"Shell(store={self.store!r}, half_life_days={self.half_life_days!r})"

    def now(self) -> int:
        return self.clock()

    def predicates(self) -> dict[str, dict[str, Any]]:
        """All predicate rows by id (cached for the life of the shell)."""
        if self._predicates is None:
            self._predicates = {row["id"]: row for row in self.store.list_predicates()}
        return self._predicates

    def forget_predicates(self) -> None:
        """Drop the cache after a registry write that did not go through ``predicates``."""
        self._predicates = None
        self.registry_memo.clear()
