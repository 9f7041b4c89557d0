"""MemoryStore's undo journal: a transaction that fails puts back only what it changed.

The memory store used to deep-copy every table at the start of each outer transaction, so a
transaction that wrote one mark into a store of 100,000 facts copied 100,000 facts. Now each
table is a ``Table`` and each row in it a ``Row``: dicts that, while a transaction is open, tell
the ``Journal`` before a key first changes, and the journal keeps that key's value as it was
(a copy of the row, or "absent" for a key the transaction adds). Rolling back puts those values
back; committing forgets them. The cost is one copy per row the transaction touches.

Why the dicts report their own changes rather than each write method calling the journal: a
write method that forgot the call would roll back half its work, and nothing would say so.
Every way to change a dict in place is overridden here (item assignment and deletion,
``update``, ``pop``, ``popitem``, ``setdefault``, ``clear``, ``|=``), on the tables and on the
rows, so a new write method is journaled whatever it does to them. What is not seen is a change
inside a row's value (appending to a fact's ``conflicts`` list): the store's writes assign a new
list instead, and the contract suite's rollback test holds every write method to that
(``tests/store/test_memory_journal.py``).

A table's order of insertion is part of what the store answers (``episode_neighbours``, ties of
``all_facts``): a key put back after a deletion would land at the end, so the first deletion
in a table within a transaction also keeps the table's order of keys, and a rollback restores
it (a transaction that deletes costs the size of that table; deletions are purges, rare).

The same reports keep the store's write counter (``Store.write_count``): a change to a table
other than marks bumps it at once outside a transaction, and once when a transaction that made
one commits (a rolled-back one leaves it as it was). So reading the counter costs nothing,
whatever the store holds.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

#: The memory store's tables.
TABLES = ("entities", "facts", "episodes", "predicates", "marks", "audit")
_ABSENT = object()


class Journal:
    """The values the open transaction replaced, each as it was before its first change."""

    def __init__(self) -> None:
        self.open = False
        self.saved: dict[tuple[int, Any], tuple[Table, Any, Any]] = {}
        self.orders: dict[int, tuple[Table, list[Any]]] = {}
        #: The write counter, and whether the open transaction changed a counted table.
        self.writes, self.written = 0, False

    def begin(self) -> None:
        self.open = True

    def end(self) -> None:
        """Close the transaction: it committed unless ``undo`` ran first."""
        self.open = False
        self.saved.clear()
        self.orders.clear()
        if self.written:
            self.writes, self.written = self.writes + 1, False

    def changing(self, table: Table) -> None:
        """A change to ``table`` is about to be made: count it (marks never count)."""
        if not table.counted:
            return
        if self.open:
            self.written = True
        else:
            self.writes += 1

    def before(self, table: Table, key: Any) -> None:
        """Keep ``table[key]`` as it is now, unless this transaction kept it already."""
        self.changing(table)
        if not self.open or (id(table), key) in self.saved:
            return
        old = dict.get(table, key, _ABSENT)
        self.saved[(id(table), key)] = (table, key, old if old is _ABSENT else _plain(old))

    def before_removal(self, table: Table, keys: Sequence[Any]) -> None:
        """Keep ``keys``' values and, the first time, the table's order of keys: until then
        the transaction only added keys (at the end) or replaced values (in place), so the
        keys it found keep their first order in it."""
        if not self.open:
            if keys:
                self.changing(table)
            return
        if id(table) not in self.orders:
            self.orders[id(table)] = (table, list(dict.keys(table)))
        for key in keys:
            self.before(table, key)

    def undo(self) -> None:
        """Put back every value kept, then the order of each table a key left; what was put
        back was never written, so the counter does not move for it."""
        self.written = False
        for table, key, old in self.saved.values():
            if old is _ABSENT:
                dict.pop(table, key, None)
            else:
                dict.__setitem__(table, key, table.stored(key, old))
        for table, order in self.orders.values():  # keys the transaction added are gone
            rows = [(key, dict.__getitem__(table, key)) for key in order if key in table]
            dict.clear(table)
            dict.update(table, rows)


def _plain(value: Any) -> Any:
    """A copy of a stored value that later changes cannot reach (a row's lists included)."""
    return copy.deepcopy(dict(value)) if isinstance(value, dict) else value


class Table(dict):  # type: ignore[type-arg]
    """A table of the memory store: rows by key, each change told to the journal first."""

    __slots__ = ("journal", "counted")

    def __init__(self, journal: Journal, counted: bool = True) -> None:
        super().__init__()
        self.journal, self.counted = journal, counted

    def stored(self, key: Any, value: Any) -> Any:
        """What the table keeps for ``value``: a dict becomes a ``Row`` of this table."""
        return Row(self, key, value) if isinstance(value, dict) else value

    def __setitem__(self, key: Any, value: Any) -> None:
        self.journal.before(self, key)
        super().__setitem__(key, self.stored(key, value))

    def __delitem__(self, key: Any) -> None:
        if key in self:
            self.journal.before_removal(self, (key,))
        super().__delitem__(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            self.journal.before_removal(self, (key,))
        return super().pop(key, *default)

    def popitem(self) -> tuple[Any, Any]:
        if self:
            self.journal.before_removal(self, (next(reversed(self)),))
        return super().popitem()

    def clear(self) -> None:
        self.journal.before_removal(self, list(self))
        super().clear()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return super().__getitem__(key)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> Table:  # type: ignore[misc]
        self.update(other)
        return self

    def __copy__(self) -> dict[Any, Any]:
        return {key: copy.copy(value) for key, value in self.items()}

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


class Row(dict):  # type: ignore[type-arg]
    """A row of a table: before its first change in a transaction, the journal keeps it."""

    __slots__ = ("table", "key")

    def __init__(self, table: Table, key: Any, value: dict[Any, Any]) -> None:
        super().__init__(value)
        self.table, self.key = table, key

    def _changing(self) -> None:
        if dict.get(self.table, self.key) is self:  # a row its table no longer holds is
            self.table.journal.before(self.table, self.key)  # nobody's to put back

    def __setitem__(self, key: Any, value: Any) -> None:
        self._changing()
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        self._changing()
        super().__delitem__(key)

    def pop(self, key: Any, *default: Any) -> Any:
        self._changing()
        return super().pop(key, *default)

    def popitem(self) -> tuple[Any, Any]:
        self._changing()
        return super().popitem()

    def clear(self) -> None:
        self._changing()
        super().clear()

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._changing()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._changing()
        super().update(*args, **kwargs)

    def __ior__(self, other: Any) -> Row:  # type: ignore[misc]
        self._changing()
        super().update(other)
        return self

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return copy.deepcopy(dict(self), memo)

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))

