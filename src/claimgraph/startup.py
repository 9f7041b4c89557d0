"""Settling a process's start-up: the garbage collector and the modules that live until exit.

A command loads tens of thousands of objects (modules, classes, the parser; for the MCP
server, the SDK's pydantic models) that live until the process ends, with hardly a garbage
cycle among them. Collecting while they are made, then walking them all again in every later
collection and in the one at exit, cost a read command about a fifth of its CPU time and the
MCP server a third of its start. So a process's entry point turns the collector off while
they load (``loading``) and then freezes them (``settle``: ``gc.freeze``, never walked
again) and turns it back on: whatever the command itself allocates is collected as usual
(docs/internals.md, "Start-up").

Only the process's own entry point does this: a caller that runs ``main()`` in-process keeps
its collector as it was, and its objects are never frozen by us.
"""

from __future__ import annotations

import gc

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from types import TracebackType

#: Set once this process's entry point settled its imports (then later ones may be, too).
settled = False


def loading() -> None:
    """At the entry point, before the heavy imports: no collection while they load."""
    gc.disable()


def settle() -> None:
    """After them: freeze what was loaded, collect as usual from here on."""
    global settled
    gc.freeze()
    gc.enable()
    settled = True


def more_imports() -> _MoreImports:
    """Imports made later in a settled process (the store's modules, opened by the command
    itself; the MCP SDK, loaded when the server starts) are settled the same way;
    in-process, nothing changes. A class, not ``contextlib``: this module loads before the
    collector is off, and whatever loads then is collected for nothing."""
    return _MoreImports()


class _MoreImports:
    """``more_imports``' block: the collector off inside, what loaded frozen after."""

    def __enter__(self) -> None:
        self.pausing = settled and gc.isenabled()
        if self.pausing:
            gc.disable()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.pausing:
            gc.freeze()
            gc.enable()
