"""Regular expressions compiled on first use, not at import.

Capture's rule modules hold ~550 module-level patterns, and ``re`` compiles in Python: a
capture process spent ~0.15 s of CPU compiling them at import, about half of it for patterns
that the transcript at hand never reached (a 50 MB transcript used 218 of 509, issue 29).
``lazy_regex`` stands in for ``re.compile`` at module level: the pattern is compiled the first time
one of its methods is called, and the compiled pattern then takes the stand-in's place under
every name the defining module's globals bind it to, so the module's functions call the
compiled pattern itself from then on. A call through the stand-in (it sits in a tuple, or
another module imported the name) costs ~60 ns more than a compiled pattern's: on a 50 MB
capture, where the rules make millions of calls, leaving every call to go through it made
the whole pass ~10% slower than compiling at import. The stand-in also keeps the compiled
pattern's bound methods in its instance, for those other holders. ``pattern`` is there from
the start; any other attribute (``flags``, ``groups``, ``groupindex``) compiles it.

The stand-in is no ``re.Pattern``: ``re.sub(PATTERN, …)``, ``isinstance`` checks and a match
asked which pattern made it (``match.re is PATTERN``: a match's ``re`` is the compiled one)
need the real one, so such a pattern keeps ``re.compile`` (a test looks for the last kind).
"""

from __future__ import annotations

import re

_METHODS = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split")
_ATTRIBUTES = ("flags", "groups", "groupindex")


class LazyPattern:
    """A pattern compiled on the first call of one of its methods (module docstring)."""

    def __init__(self, pattern: str, flags: int = 0,
                 home: dict[str, object] | None = None) -> None:
        self.pattern = pattern
        self._flags = flags
        self._home = home  # the defining module's globals

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet): it replaces the stand-in in
        its module's globals, and its methods move into the stand-in (module docstring)."""
        done: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if done is None:
            done = re.compile(self.pattern, self._flags)
            for name in _METHODS + _ATTRIBUTES:
                self.__dict__[name] = getattr(done, name)
            self.__dict__["_compiled"] = done
            home, self._home = self._home, None
            if home is not None:
                for name in [name for name, value in home.items() if value is self]:
                    home[name] = done
        return done

    # Until the first call, each method compiles; after it, the instance's own attribute (the
    # compiled pattern's bound method) is found before these.
    def match(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().match(*args, **kwargs)

    def search(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().search(*args, **kwargs)

    def fullmatch(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().fullmatch(*args, **kwargs)

    def finditer(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().finditer(*args, **kwargs)

    def findall(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().findall(*args, **kwargs)

    def sub(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().sub(*args, **kwargs)

    def subn(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().subn(*args, **kwargs)

    def split(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return self.compiled().split(*args, **kwargs)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        """``flags``, ``groups``, ``groupindex``: only there once compiled."""
        if name in _ATTRIBUTES:
            return getattr(self.compiled(), name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"lazy_regex({self.pattern!r}, {self._flags!r})"


def lazy_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used (module docstring). Typed as
    the pattern it stands for: callers use it as one. Call it at a module's top level: the
    caller's globals are where the compiled pattern replaces it."""
    return LazyPattern(pattern, flags, _caller_globals())  # type: ignore[return-value]


def _caller_globals() -> dict[str, object] | None:
    """The globals of ``lazy_regex``'s caller, read from a traceback's frame (the pure core
    imports no ``sys``, whose ``_getframe`` would say the same)."""
    try:
        raise LookupError
    except LookupError as caught:
        here = caught.__traceback__.tb_frame if caught.__traceback__ else None
    called = here.f_back if here is not None else None  # lazy_regex
    caller = called.f_back if called is not None else None
    return caller.f_globals if caller is not None else None
