"""Modules loaded when something uses them, not when something imports them.

``import structlog`` imports ``asyncio`` (for its async logging methods, which capture never
calls), and asyncio imports ``ssl`` and its C library: ~7 MB of a bare interpreter's resident
memory, ~3.5 MB of a capture's after its imports and ~2.5 MB of a 200 MB transcript's peak
(issue 29: it must stay under 100 MB), and ~25 ms of its start, for nothing.
``defer("asyncio")`` puts a stand-in in ``sys.modules`` carrying the real module's
``__spec__``, so ``import asyncio`` takes it as loaded; the first name read from it
(``asyncio.run``, ``from asyncio import …``, a submodule's import, which reads ``__path__``)
loads the real module, which then replaces the stand-in in ``sys.modules``, and the stand-in
takes the real module's names, so whoever imported it sees the real module from then on.

Only a process's own entry point defers, before anything imported the module (``cli.main``,
``mcp.__main__``); a caller running ``main()`` in-process keeps its modules as they are.
Every such process defers ``ipaddress``: ``urllib.parse`` (which ``pathlib`` imports) loads
it to check bracketed URL hosts, which no read parses (~1.5 ms of a read command's start).
"""

from __future__ import annotations

import _thread
import importlib
import importlib.util
import sys
import types

#: threading's own lock type, without importing threading (a read never needs it)
_LOADING = _thread.RLock()


class _StandIn(types.ModuleType):
    """A module not loaded yet (module docstring)."""

    def __getattr__(self, name: str) -> object:
        with _LOADING:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            real = importlib.import_module(self.__name__)
            self.__dict__.update(vars(real))
        return getattr(real, name)


def defer(name: str) -> bool:
    """Put a stand-in for the top-level module ``name`` in ``sys.modules``, unless the module
    is loaded already or cannot be found; True when the stand-in was put there."""
    if name in sys.modules or "." in name:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    stand_in = _StandIn(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in
    return True
