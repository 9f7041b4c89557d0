"""package.json and pom.xml: manifests whose structure (not their lines) says what a value is.

package.json is read leaf by leaf through ``lenient_json``. A fragment that does not show the
key of the block it sits in (``"vitest": "^3.2.4",`` without ``"devDependencies": {``) cannot
tell a dev dependency from a runtime one: such a line counts only when its value reads as a
version or a workspace/npm/file reference and its key is not a package.json field; it comes
back as kind "runtime" with ``section=None``.

pom.xml is parsed by ``xml.etree`` (stdlib, no network: a DOCTYPE or entity declaration is
refused before parsing, so nothing is fetched or expanded). A fragment that is not one XML
document is read ``<dependency>`` block by block.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.lenient_json import JsonLeaf, read_json
from claimgraph.capture.extract.manifest_common import Draft, Manifest, looks_like_version

_NODE_SECTIONS = {"dependencies": "runtime", "devDependencies": "dev",
                  "peerDependencies": "peer", "optionalDependencies": "optional"}
PACKAGE_JSON_FIELDS = frozenset({
    "name", "version", "description", "main", "module", "types", "typings", "type", "license",
    "author", "private", "homepage", "bugs", "repository", "keywords", "files", "bin",
    "browser", "exports", "scripts", "packageManager", "engines", "workspaces", "sideEffects",
    "publishConfig", "node", "npm", "pnpm", "yarn", "bun", "deno"})
PACKAGE_JSON_SOURCES = (("workspace:", "workspace"), ("npm:", "alias"), ("file:", "path"),
                 ("link:", "path"), ("git", "git"), ("github:", "git"), ("http", "url"))


def parse_package_json(text: str) -> Manifest | None:
    """Dependencies of every kind, engines (Node is the runtime), packageManager, workspaces."""
    draft = Draft("node")
    for leaf in read_json(text):
        if draft.full:
            break
        _node_leaf(draft, leaf)
    return draft.build()


def _node_leaf(draft: Draft, leaf: JsonLeaf) -> None:
    path, value = leaf.path, leaf.value
    if len(path) == 2 and path[0] in _NODE_SECTIONS and isinstance(value, str):
        draft.dep(path[1], value, _NODE_SECTIONS[path[0]], leaf.quote, path[0],
                  _node_flags(value))
    elif path == ("name",) and isinstance(value, str):
        draft.set_package(value)
    elif len(path) == 2 and path[0] == "engines" and isinstance(value, str):
        draft.setting("engines." + path[1], value, leaf.quote)
        if path[1] == "node":
            draft.set_runtime("Node", value, leaf.quote)
    elif path == ("packageManager",) and isinstance(value, str):
        draft.setting("packageManager", value, leaf.quote)
    elif path in (("workspaces",), ("workspaces", "packages")) and isinstance(value, list):
        draft.setting("workspaces", ", ".join(map(str, value)), leaf.quote)
    elif len(path) == 1 and path[0] not in PACKAGE_JSON_FIELDS and isinstance(value, str) \
            and (looks_like_version(value) or _node_flags(value)):
        draft.dep(path[0], value, "runtime", leaf.quote, None, _node_flags(value))


_VERSION_STARTS = frozenset("0123456789^~<>=*")


def _node_flags(value: str) -> tuple[str, ...]:
    if value[:1] in _VERSION_STARTS:
        return ()
    return tuple(flag for prefix, flag in PACKAGE_JSON_SOURCES if value.startswith(prefix))[:1]


_REFUSED_XML = lazy_regex(r"<!(?:DOCTYPE|ENTITY)", re.I)
_DEPENDENCY_BLOCK = lazy_regex(r"<dependency>.*?</dependency>", re.S)
_JAVA_PROPERTIES = ("maven.compiler.release", "maven.compiler.source", "java.version",
                    "maven.compiler.target")
_MAVEN_KINDS = {"test": "test", "provided": "build"}


def parse_pom(text: str) -> Manifest | None:
    """<dependencies> with scope and optional, <artifactId> as the package, the Java release."""
    if _REFUSED_XML.search(text):
        return None
    draft = Draft("maven")
    root = _xml(text)
    root = root if root is not None else _xml(f"<project>{text}</project>")
    if root is None or root.tag != "project":
        blocks = [root] if root is not None else [
            _xml(block) for block in _DEPENDENCY_BLOCK.findall(text)]
        root = ET.Element("project")
        root.extend(block for block in blocks if block is not None)
    properties = {child.tag: (child.text or "").strip() for child in root.findall("properties/*")}
    lines = _Lines(text)
    draft.set_package(root.findtext("artifactId"))
    for name in _JAVA_PROPERTIES:
        if properties.get(name):
            draft.set_runtime("Java", properties[name], lines.find(f"<{name}>") or name)
    managed = {id(dep) for dep in root.iterfind("dependencyManagement/dependencies/dependency")}
    for dep in root.iter("dependency"):
        if draft.full:
            break
        _maven_dependency(draft, dep, properties, lines, id(dep) in managed)
    return draft.build()


def _xml(text: str) -> ET.Element | None:
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return None
    for element in root.iter():
        if isinstance(element.tag, str) and "}" in element.tag:
            element.tag = element.tag.rsplit("}", 1)[1]
    return root


def _maven_dependency(draft: Draft, dep: ET.Element, properties: dict[str, str],
                      lines: _Lines, managed: bool) -> None:
    artifact = (dep.findtext("artifactId") or "").strip()
    if not artifact:
        return
    group = (dep.findtext("groupId") or "").strip()
    scope = (dep.findtext("scope") or "compile").strip()
    version = _resolve((dep.findtext("version") or "").strip(), properties)
    kind = _MAVEN_KINDS.get(scope, "runtime")
    if (dep.findtext("optional") or "").strip() == "true":
        kind = "optional"
    flags = ((f"scope: {scope}",) if scope != "compile" else ()) + (("managed",) if managed
                                                                     else ())
    quote = lines.find(f"<artifactId>{artifact}</artifactId>") or artifact
    section = "dependencyManagement" if managed else "dependencies"
    draft.dep(f"{group}:{artifact}" if group else artifact, version, kind, quote, section, flags)


def _resolve(version: str, properties: dict[str, str]) -> str:
    """``${spring.version}`` -> the value the pom's <properties> give it, when they do."""
    return re.sub(r"\$\{([^}]+)\}", lambda m: properties.get(m.group(1), m.group(0)), version)


class _Lines:
    """Finds the stripped line holding a needle, searching onward from the last find so
    repeated needles resolve in document order."""

    def __init__(self, text: str) -> None:
        self.lines = [line.strip() for line in text.splitlines()]
        self.cursor = 0

    def find(self, needle: str) -> str | None:
        order: list[Any] = [range(self.cursor, len(self.lines)), range(0, self.cursor)]
        for span in order:
            for index in span:
                if needle in self.lines[index]:
                    self.cursor = index + 1
                    return self.lines[index]
        return None
