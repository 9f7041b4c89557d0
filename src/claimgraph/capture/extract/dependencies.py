"""What the project depends on, from the manifests the session wrote or edited.

A manifest is the project's own statement of its dependencies, so a dependency is cited as the
manifest line it was read from (``mix.exs: `{:credo, "~> 1.7", only: [:dev, :test]}```): the
version constraint and whether it is dev/test-only are in that line, and the audit can check
the file still says it. Only what the session added or changed counts (the edit's new text,
never the file re-read from disk, and never a line the edit kept): a manifest it merely read
is a glance away for the next session too, so its list is not a memory.

Besides dependencies a manifest states the language and its version (``elixir: "~> 1.19"``,
``requires-python``, a Rust edition) and a few settings worth a convention (a lint level,
the package manager, the workspace layout); those count from a manifest only read too (one
fact each, not a list). A manifest the session deleted says nothing. A manifest below the
project root speaks for its own package (``apps/web/package.json`` is ``@repo/web``, or
``apps/web`` when it names none).
"""

from __future__ import annotations

import posixpath
from typing import Any, Iterator

from claimgraph.capture.extract.manifests import Manifest, manifest_format, parse_manifest
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import SessionView, candidate, file_evidence

#: Settings that say how the project is worked on (prefix match on the setting's key).
_CONVENTION_SETTINGS = ("lints.", "workspace.lints.", "packageManager", "toolchain")


def dependency_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    for looks in surviving_looks(view).values():
        cited = looks[-1].cited
        if manifest_format(looks[-1].path) is None:  # looks of one path: no text rendered
            continue
        parsed = [(look, parse_manifest(look.path, look.text)) for look in looks]
        parsed = [(look, manifest) for look, manifest in parsed if manifest]
        if cited is None or " " in cited or not parsed:
            continue
        subject = _subject(view, cited, parsed)
        yield from _declared(view, cited, subject, parsed)


def _subject(view: SessionView, cited: str, parsed: list[tuple[SeenFile, Manifest]]) -> str:
    if posixpath.dirname(cited) in ("", "."):
        return view.project or ""
    package = next((m.package for _, m in parsed if m.package), None)
    return package or posixpath.dirname(cited)


def _declared(view: SessionView, cited: str, subject: str,
              parsed: list[tuple[SeenFile, Manifest]]) -> Iterator[dict[str, Any]]:
    written = any(look.how != "read" for look, _ in parsed)
    seen: dict[str, tuple[SeenFile, Any]] = {}
    for look, manifest in parsed if written else []:
        if look.how == "read":
            continue  # only what the session put in a manifest it changed
        for dependency in manifest.dependencies:
            if dependency.quote in look.replaced:
                continue  # the edit kept it: it was there before the session
            seen[dependency.name] = (look, dependency)
    trust = "manifests" if written else "manifests.read"
    for look, dependency in seen.values():
        yield _fact(cited, subject, "core/depends-on", dependency.name, dependency.quote, look,
                    trust, kind="entity", object_type="package")
    for look, manifest in parsed[-1:]:
        if manifest.runtime and manifest.runtime_quote:
            language, version = manifest.runtime
            yield _fact(cited, subject, "core/written-in", f"{language} {version}",
                        manifest.runtime_quote, look, trust)
        for setting in manifest.settings:
            if setting.key.startswith(_CONVENTION_SETTINGS):
                value = setting.value.split("+sha", 1)[0]  # a corepack integrity hash
                yield _fact(cited, subject, "x/convention",
                            f"{cited} sets {setting.key} = {value}", setting.quote,
                            look, trust)


def _fact(cited: str, subject: str, predicate: str, obj: str, quote: str, look: SeenFile,
          trust: str, kind: str = "literal", **types: Any) -> dict[str, Any]:
    return candidate("manifests", subject, predicate, obj,
                     evidence=[file_evidence(cited, quote)], trust=trust, object_kind=kind,
                     subject_type="project", at=look.call.timestamp, **types)
