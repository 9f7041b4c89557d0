"""A decided version that the session's own later work replaced (reconcile's end-state check).

A decision that names a versioned reference -- a container image and its tag
(``registry.example/team/app:1.0.0``), a package at a version (``left-pad@1.3.0``,
``requests==2.31.0``), an action at a ref (``actions/checkout@v4``) -- is about the version
the project goes on with. When the work the session did after it (commands that worked,
text it wrote into files) names that same reference again, the last such mention is the
version the session ended on: if it carries another version and not the decided one, the
decision is stale, and the next session would build, push or pin the version the session
itself moved away from. Such a decision is not stored (its last value is what the work
shows, not a decision anyone stated).

Precision first: only references with a registry path (``a/b:tag``), a dotted tag
(``redis:7.2``), or a package's ``@``/``==`` version are read (``host:8080`` is a port, not
a tag); a name the later work never mentions with a version leaves the decision alone.

Pure logic: reads the decision's text and ``(line, text)`` of the work after it.
"""

from __future__ import annotations

import re
from typing import Iterable

#: an image: a path with at least one ``/`` and a tag, or a bare name with a dotted tag
_IMAGE = re.compile(
    r"(?<![\w./:@$-])(?P<name>[a-z0-9][a-z0-9._-]*(?::\d+)?(?:/[a-z0-9][a-z0-9._-]*)+"
    r"|[a-z][a-z0-9_-]*):(?P<tag>[A-Za-z0-9_][\w.-]{0,127})(?![\w:/@-])", re.IGNORECASE)
#: a package or action at a version: ``name@1.2.3``, ``@scope/name@1.2``, ``owner/act@v4``,
#: ``name==1.2.3``
_PINNED = re.compile(
    r"(?<![\w./@$-])(?P<name>@?[a-z][\w.-]*(?:/[\w.-]+)?)(?:@|==)(?P<tag>v?\d[\w.+-]*)"
    r"(?![\w@/-])", re.IGNORECASE)
#: tags that float to whatever was pushed last: a mention of one names no other version
_FLOATING = frozenset({"latest", "stable", "edge", "main", "master", "dev", "nightly"})
#: the predicates whose object is a choice the project goes on with
DECISIONS = frozenset({"x/decided"})


def references(text: str) -> dict[str, set[str]]:
    """``name -> versions`` of every versioned reference the text names (names lowered)."""
    found: dict[str, set[str]] = {}
    for match in _IMAGE.finditer(text):
        name, tag = match["name"], match["tag"].rstrip(".")
        if "/" not in name and "." not in tag:
            continue  # ``host:8080``, ``note:todo``: not an image's tag
        found.setdefault(name.lower(), set()).add(tag)
    for match in _PINNED.finditer(text):
        found.setdefault(match["name"].lower(), set()).add(match["tag"].rstrip("."))
    return found


def superseded(decided: str, line: int | None, work: Iterable[tuple[int, str]]) -> bool:
    """The decision names a versioned reference whose last mention in the work after
    ``line`` carries other versions and not the decided one (module docstring)."""
    if line is None:
        return False
    named = references(decided)
    if not named:
        return False
    last: dict[str, set[str]] = {}
    for at, text in sorted(work, key=lambda item: item[0]):
        if at <= line:
            continue
        lowered = text.lower()
        if not any(name in lowered for name in named):
            continue  # cheap: most work names none of them
        for name, versions in references(text).items():
            pinned = {v for v in versions if v.lower() not in _FLOATING}
            if name in named and pinned:
                last[name] = pinned
    return any(name in last and not (last[name] & versions)
               for name, versions in named.items())
