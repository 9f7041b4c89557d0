"""A package installed by hand is a lesson only when the project does not declare it.

After ``No module named 'click'``, ``pip install click`` repaired one environment. When a
manifest of the project the session saw lists ``click``, the lesson is only that the
environment was not set up, which the manifest already tells the next agent. When the session
saw no manifest of that ecosystem, whether the project declares it is unknown. Only a package
the manifests the session saw leave out must be installed by hand, and that is worth keeping.
An install of what the project declares (``pip install -r …``, ``pip install -e .``,
``npm install``) is a different lesson, "this must run first", and is not judged here.
"""

from __future__ import annotations

from claimgraph.capture.extract.manifests import manifest_format, parse_manifest
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import invocations, unwrap
from claimgraph.capture.extract.tooling import PACKAGE_ADDS, changes_manifest, packages_added


def hand_installs(view: SessionView, fix: str) -> tuple[list[str], bool] | None:
    """For a fix that only installs named packages into an environment (``pip install
    click``; chained installs too): (the names, whether that is no lesson). None for any other
    fix (``pip install -r …``, ``pip install -e .``, ``npm install``, a formatter): those
    install what the project declares, or are no install at all.

    A package a manifest of the project declares, installed by hand after an import failed,
    says the environment was not set up, which the manifest already tells: no lesson. So is
    one installed while the session saw no manifest of its ecosystem at all: whether the
    project declares it is unknown. Only a package the manifests the session saw leave out
    must be installed by hand, and that is the lesson."""
    names: list[str] = []
    ecosystems: set[str] = set()
    for invocation in invocations(fix, None):
        words = unwrap(invocation.argv)
        spec = next((PACKAGE_ADDS[tuple(words[:size])] for size in (3, 2)
                     if tuple(words[:size]) in PACKAGE_ADDS), None)
        added = packages_added(invocation.argv)
        if spec is None or not added or changes_manifest(invocation.argv):
            return None
        names.extend(added)
        ecosystems.add(_ECOSYSTEMS.get(spec[0], spec[0]))
    if not names:
        return None
    declared = declared_packages(view)
    unseen = any(not declared.get(ecosystem) for ecosystem in ecosystems)
    listed = all(any(_normal(name) in found for found in declared.values()) for name in names)
    return names, unseen or listed


#: ``tooling.PACKAGE_ADDS``'s ecosystem names as manifests name theirs.
_ECOSYSTEMS = {"js": "node"}


def declared_packages(view: SessionView) -> dict[str, frozenset[str]]:
    """Per ecosystem (python, node, ...), every package a manifest of the project the session
    saw (read, written or edited, and not deleted since) declares, names normalized (``_``
    and ``.`` as ``-``, lower case); an ecosystem whose manifest declares nothing maps to an
    empty set, one with no manifest seen is absent."""
    return view.remembered("declared_packages", _declared)


def _declared(view: SessionView) -> dict[str, frozenset[str]]:
    names: dict[str, set[str]] = {}
    for looks in surviving_looks(view).values():
        if looks[-1].cited is None or manifest_format(looks[-1].path) is None:
            continue
        for look in looks:
            manifest = parse_manifest(look.path, look.text)
            if manifest:
                names.setdefault(manifest.ecosystem, set()).update(
                    _normal(dependency.name) for dependency in manifest.dependencies)
    return {ecosystem: frozenset(found) for ecosystem, found in names.items()}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")
