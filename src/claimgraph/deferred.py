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

``gettext`` is deferred differently (``defer_gettext``): ``argparse`` binds its two functions
at import and calls them for every help string, usage line and error it builds, so a plain
stand-in would load the real module at once. The stand-in's own ``gettext``/``ngettext``
answer what the real ones would while nothing can be translated: the default domain's catalogs
live under ``<sys.base_prefix>/share/locale`` (``gettext._default_localedir``), and where that
directory does not exist (the interpreters uv, pyenv and python.org install) every lookup falls
back to the message itself. Where it exists, or once anything else of ``gettext`` is used (a
``textdomain``, a ``bindtextdomain``), they hand each call to the real module. A command's parser
then loads neither ``gettext`` nor ``locale`` and walks no catalog path per string (~3 ms of a
read command's start, issue 29).
"""

from __future__ import annotations

import _thread
import os
import sys
import types

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    import importlib.machinery
    from collections.abc import Iterator, Sequence
    from typing import Any, Callable

#: threading's own lock type, without importing threading (a read never needs it)
_LOADING = _thread.RLock()


class _StandIn(types.ModuleType):
    """A module not loaded yet (module docstring)."""

    def __getattr__(self, name: str) -> object:
        spec = self.__spec__
        if name == "__path__" and spec is not None and spec.submodule_search_locations is None:
            # a plain module has none; ``from m import x`` asks before it reads ``x``
            raise AttributeError(name)
        return getattr(self._load(), name)

    def _load(self) -> types.ModuleType:
        """The real module, loaded now if need be; this stand-in takes its names."""
        with _LOADING:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            __import__(self.__name__)  # a top-level name: the module itself
            real = sys.modules[self.__name__]
            self.__dict__.update(vars(real))
        return real


def find_spec(name: str, path: Sequence[str] | None = None
              ) -> importlib.machinery.ModuleSpec | None:
    """``importlib.util.find_spec`` for a module not loaded yet (``path``: a submodule's
    package's ``__path__``): the finders on ``sys.meta_path`` asked in turn, as an import
    asks them. ``importlib.util`` itself, with its helpers, would cost a read command ~1 ms of
    its start (issue 29)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec: importlib.machinery.ModuleSpec | None = (
            find(name, path) if find is not None else None)
        if spec is not None:
            return spec
    return None


def defer(name: str) -> bool:
    """Put a stand-in for the top-level module ``name`` in ``sys.modules``, unless the module
    is loaded already or cannot be found; True when the stand-in was put there."""
    if name in sys.modules or "." in name:
        return False
    spec = find_spec(name)
    if spec is None:
        return False
    stand_in = _StandIn(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in
    return True


def defer_gettext(localedir: str | None = None) -> bool:
    """``defer`` for ``gettext``, with translating functions of its own (module docstring);
    ``localedir`` is where the default domain's catalogs would be (tests name another)."""
    if "gettext" in sys.modules:
        return False
    spec = find_spec("gettext")
    if spec is None:
        return False
    stand_in = _StandIn("gettext")
    stand_in.__spec__ = spec
    where = localedir or os.path.join(sys.base_prefix, "share", "locale")
    catalogs: list[bool] = []  # whether ``where`` exists, looked up once

    def real() -> types.ModuleType | None:
        """The real module, when it is loaded or a catalog may exist; None when nothing can
        be translated."""
        loaded = sys.modules.get("gettext")
        if loaded is not None and loaded is not stand_in:
            return loaded
        if not catalogs:
            catalogs.append(os.path.isdir(where))
        return stand_in._load() if catalogs[0] else None

    def gettext(message: str) -> str:
        module = real()
        return message if module is None else str(module.gettext(message))

    def ngettext(singular: str, plural: str, n: int) -> str:
        module = real()
        if module is None:
            return singular if n == 1 else plural
        return str(module.ngettext(singular, plural, n))

    stand_in.gettext, stand_in.ngettext = gettext, ngettext  # type: ignore[attr-defined]
    sys.modules["gettext"] = stand_in
    return True


def defer_urllib_parse() -> bool:
    """``defer`` for ``urllib.parse``, which ``pathlib`` imports for the one function it binds
    at import, ``quote_from_bytes`` (its ``as_uri``). The stand-in carries that function,
    which loads the real module when first called; reading any other name from it loads the
    real module at once. A read command parses no URL and asks no file for its URI (the
    store's are built without it, ``store.sqlite_peek.file_uri``): ~2.5 ms of its start, with
    the named tuples and patterns the module makes (issue 29). Only before ``pathlib`` is
    imported (it would hold the real function already)."""
    name = "urllib.parse"
    if name in sys.modules or "pathlib" in sys.modules:
        return False
    import urllib
    spec = find_spec(name, urllib.__path__)
    if spec is None:
        return False
    stand_in = _StandIn(name)
    stand_in.__spec__ = spec

    def quote_from_bytes(bs: bytes, safe: str = "/") -> str:
        loaded = sys.modules.get(name)
        real = loaded if loaded is not None and loaded is not stand_in else stand_in._load()
        return str(real.quote_from_bytes(bs, safe))

    stand_in.quote_from_bytes = quote_from_bytes  # type: ignore[attr-defined]
    sys.modules[name] = stand_in
    urllib.parse = stand_in  # type: ignore[attr-defined]  # ``import urllib.parse`` reads it
    return True


def defer_datetime() -> bool:
    """``defer`` for ``datetime``, carrying the C module's names. ``datetime.py`` first builds
    the whole calendar in Python (a dozen classes and their helpers), then replaces every
    public name with ``_datetime``'s and deletes the helpers: what is left is ``_datetime``'s
    names, the same objects. ``sqlite3`` imports it at once, to name those classes (its
    ``Date``, the adapters it registers), and no read uses anything else: the stand-in
    carries those names, and any other name read from it (``__file__``, the ``sys`` the module
    leaves behind) loads the real module (~1 ms of a read command's start, issue 29). Where
    the interpreter has no ``_datetime``, nothing is deferred."""
    if "datetime" in sys.modules:
        return False
    try:
        import _datetime
    except ImportError:  # pragma: no cover - an interpreter without the C module
        return False
    spec = find_spec("datetime")
    if spec is None:
        return False
    stand_in = _StandIn("datetime", _datetime.__doc__)
    stand_in.__spec__ = spec
    for name in dir(_datetime):
        if not name.startswith("__"):
            setattr(stand_in, name, getattr(_datetime, name))
    sys.modules["datetime"] = stand_in
    return True


def defer_contextlib() -> bool:
    """``defer`` for ``contextlib``, carrying a ``contextmanager`` of its own. Modules a read
    loads decorate blocks it never enters with ``contextlib.contextmanager`` at import (a
    write's transaction and savepoint, a command's write lease), and ``contextlib`` makes some
    twenty classes as it loads (~0.6 ms of a search's start, issue 29); the blocks a read
    does enter (its snapshot, the retrievals guard) are classes of their own. The stand-in's
    ``contextmanager`` gives a function that makes the real one's block at its first call
    (loading the module then) and hands every call to it, so each block behaves as
    ``contextlib`` makes it; any other name read from the stand-in loads the real module at
    once. Only before anything imported ``contextlib``."""
    import functools  # re's already, at a command's entry point
    name = "contextlib"
    if name in sys.modules:
        return False
    spec = find_spec(name)
    if spec is None:
        return False
    stand_in = _StandIn(name)
    stand_in.__spec__ = spec

    def contextmanager(func: Callable[..., Iterator[Any]]) -> Callable[..., Any]:
        made: list[Callable[..., Any]] = []  # the real decorator's function, once made

        def block(*args: Any, **kwargs: Any) -> Any:
            if not made:
                loaded = sys.modules.get(name)
                real = loaded if loaded is not None and loaded is not stand_in \
                    else stand_in._load()
                made.append(real.contextmanager(func))
            return made[0](*args, **kwargs)
        functools.update_wrapper(block, func)
        return block

    stand_in.contextmanager = contextmanager  # type: ignore[attr-defined]
    sys.modules[name] = stand_in
    return True
