"""Dependency manifests, recognised by file name and read from text alone.

The extractor sees a manifest as a Write's content, an Edit's new text (a fragment) or a Read
result (numbered lines); it never opens the file, because what matters is what the session
wrote or saw. ``parse_manifest`` therefore takes a path (only its name is used) and a text,
undoes the Read tool's line numbering, and returns what that text declares: dependencies with
their constraint, kind and the exact line they came from, the language/runtime constraint, the
package name. Each format's module says what its fragments can and cannot tell. The parse is
pure and never raises: junk, binary or truncated text gives ``None`` or fewer dependencies;
a text declaring more than ``MAX_DEPENDENCIES`` yields the first ones (see manifest_common).
"""

from __future__ import annotations

import posixpath
import re
from typing import Callable
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.manifest_common import (
    KINDS, MAX_DEPENDENCIES, Dependency, Manifest, Setting, strip_line_numbers)
from claimgraph.capture.extract.manifest_structured import parse_package_json, parse_pom
from claimgraph.capture.extract.manifest_text import (
    parse_gemfile, parse_go_mod, parse_gradle, parse_mix_exs, parse_requirements,
    requirements_kind)
from claimgraph.capture.extract.manifest_toml import parse_cargo, parse_pyproject

__all__ = ["KINDS", "MAX_DEPENDENCIES", "Dependency", "Manifest", "Setting", "manifest_format",
           "parse_manifest", "strip_line_numbers"]

MAX_TEXT = 2_000_000  # characters; a manifest beyond this is not a manifest a session wrote

_BY_NAME: dict[str, Callable[[str], Manifest | None]] = {
    "pyproject.toml": parse_pyproject, "package.json": parse_package_json,
    "cargo.toml": parse_cargo, "go.mod": parse_go_mod, "mix.exs": parse_mix_exs,
    "gemfile": parse_gemfile, "build.gradle": parse_gradle, "build.gradle.kts": parse_gradle,
    "pom.xml": parse_pom,
}
_REQUIREMENTS = lazy_regex(r"^(?:[\w.-]*[-_])?requirements(?:[-_.][\w.-]*)?\.(?:txt|in)$", re.I)


def manifest_format(path: str) -> str | None:
    """The manifest format a path names ("pyproject.toml", "requirements", ...), else None.

    File names are matched as their tools match them: ``Cargo.toml``, ``Gemfile`` and
    ``package.json`` are case-sensitive on Linux but written in other cases by hand often
    enough that a case-insensitive match costs nothing. Any ``*.txt`` under a
    ``requirements/`` folder counts as a requirements file.
    """
    normalized = (path or "").replace("\\", "/")
    name = posixpath.basename(normalized)
    if name.lower() in _BY_NAME:
        return name.lower()
    folder = posixpath.basename(posixpath.dirname(normalized)).lower()
    if _REQUIREMENTS.match(name) or (folder == "requirements" and name.endswith((".txt", ".in"))):
        return "requirements"
    return None


def parse_manifest(path: str, text: str) -> Manifest | None:
    """What ``text`` (whole file, fragment or Read output) declares, if ``path`` names a
    manifest; None for other paths and for text that declares nothing."""
    kind = manifest_format(path)
    if kind is None or not isinstance(text, str) or not text or len(text) > MAX_TEXT \
            or "\x00" in text:
        return None
    text = strip_line_numbers(text)
    if kind == "requirements":
        normalized = path.replace("\\", "/")
        folder = posixpath.basename(posixpath.dirname(normalized))
        base = posixpath.basename(normalized)
        return parse_requirements(text, requirements_kind(base, folder), base)
    return _BY_NAME[kind](text)
