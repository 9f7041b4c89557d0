"""Building many records in one go: the cyclic garbage collector paused meanwhile.

A whole-store read (``select_facts()`` of 100k facts) builds about half a million containers
(a dict per fact, a copy of each end's entity, the lists of links, evidence and aliases).
CPython runs a collection every 700 new containers and a full one each time the survivors
grow by a quarter, and each walks every container alive, so building them cost about as much
again as the building itself (issue 29: 0.4 s more CPU of ~0.85 at 100k). Records made from
rows hold no cycles, so nothing the collector could find is made while it is paused:
reference counting frees all of it as before. Mercurial's ``util.nogc`` does the same for
the same reason.
"""

from __future__ import annotations

import gc


class collector_paused:  # noqa: N801 -- used as a ``with`` block, named like one
    """The collector off inside the block, and back on after it if it was on before (a caller
    that turned it off keeps it off; a nested pause leaves it to the outermost). A class, not
    ``contextlib.contextmanager``: read commands must not import ``contextlib`` at start-up
    (tests/cli/test_startup_imports.py)."""

    __slots__ = ("_was_on",)

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        if self._was_on:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._was_on:
            gc.enable()
