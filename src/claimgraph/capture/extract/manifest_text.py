"""Line-oriented manifests: requirements files, go.mod, mix.exs, Gemfile, build.gradle(.kts).

Each of these formats puts one dependency on one line, so each line is read on its own and a
fragment yields exactly the lines it holds. What a fragment cannot show is the block around
it: a Gemfile ``gem`` line outside its ``group :test do`` block reads as runtime, a go.mod line
without ``require (`` still reads as a requirement (only ``=>`` lines, replacements, are
skipped). mix.exs and Gradle lines carry their own kind (``only: :test``,
``testImplementation``), so their fragments lose nothing.
"""

from __future__ import annotations

import re
from typing import Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.manifest_common import (
    Draft, Manifest, kind_for_group, split_requirement)



_OPTION_OR_COMMENT = lazy_regex(r"(?:^|\s)#|\s--?[a-z]")


def parse_requirements(text: str, kind: str = "runtime", section: str | None = None
                       ) -> Manifest | None:
    """pip requirement lines; -r/-c/-e and other options, URLs, paths and comments skipped."""
    draft = Draft("python")
    for raw, quote in _joined_lines(text):
        if draft.full:
            break
        line = _OPTION_OR_COMMENT.split(raw, maxsplit=1)[0].strip()
        if not line or line.startswith(("-", ".", "/", "~")) or "://" in line \
                or line.startswith("git+"):
            continue
        parsed = split_requirement(line)
        if parsed and not parsed[2]:
            draft.dep(parsed[0], parsed[1], kind, quote, section)
    return draft.build()


def _joined_lines(text: str) -> Iterator[tuple[str, str]]:
    """(logical line, its first physical line): backslash continuations are joined for
    parsing, and the first physical line is what gets quoted, as it appears in the text."""
    pending: list[str] = []
    for raw in text.splitlines():
        if raw.rstrip().endswith("\\"):
            pending.append(raw)
            continue
        yield " ".join([*(p.rstrip()[:-1] for p in pending), raw]), (pending or [raw])[0].strip()
        pending = []
    if pending:
        yield " ".join(p.rstrip()[:-1] for p in pending), pending[0].strip()


def requirements_kind(basename: str, folder: str) -> str:
    """requirements-dev.txt, dev-requirements.txt, requirements/test.txt -> dev / test."""
    stem = basename.lower().rsplit(".", 1)[0]
    words = [w for w in re.split(r"[-_.]", stem) if w and w != "requirements"]
    if folder.lower() == "requirements":
        words = words or ["base"]
    return next((kind for kind in (kind_for_group(w, "") for w in words) if kind), "runtime")


_GO_REQUIRE = lazy_regex(r"^(?:require\s+)?([A-Za-z0-9][\w.~/-]*[\w~])\s+(v[0-9][\w.+-]*)"
                         r"\s*(//\s*indirect)?")


_GO_BLOCK = lazy_regex(r"^(require|replace|exclude|retract|tool|godebug)\s*\($")
_GO_VERSION = lazy_regex(r"^go\s+[0-9]")


def parse_go_mod(text: str) -> Manifest | None:
    """module, go directive (the runtime), toolchain, require lines (``// indirect`` flagged)."""
    draft, block = Draft("go"), ""
    for raw in text.splitlines():
        if draft.full:
            break
        line = raw.strip()
        opened = _GO_BLOCK.match(line)
        if opened or line == ")":
            block = opened.group(1) if opened else ""
            continue
        if line.startswith("module "):
            draft.set_package(line.split()[1].strip('"'))
        elif _GO_VERSION.match(line):
            draft.set_runtime("Go", line.split()[1], line)
        elif line.startswith("toolchain "):
            draft.setting("toolchain", line.split()[1], line)
        elif block in ("", "require") and "=>" not in line:
            found = _GO_REQUIRE.match(line)
            if found and not line.startswith(("replace", "exclude", "retract")):
                draft.dep(found.group(1), found.group(2), "runtime", line, "require",
                          ("indirect",) if found.group(3) else ())
    return draft.build()


_MIX_DEP = lazy_regex(r"\{\s*:([a-z_][\w]*)\s*,([^{}]*)\}")
_MIX_OPTION = lazy_regex(r"(\w+):\s*(\[[^\]]*\]|\"[^\"]*\"|:\w+|true|false|[^,]+)")
_MIX_SOURCES = ("github", "git", "path", "in_umbrella", "hex", "organization", "repo")
_MIX_FLAGS = ("runtime", "override", *_MIX_SOURCES)
_MIX_OPTIONS = frozenset(_MIX_SOURCES + ("only", "runtime", "optional", "override", "app",
                                         "env", "manager", "compile", "targets", "sparse",
                                         "submodules", "tag", "branch", "ref", "system_env"))


_MIX_APP = lazy_regex(r"(?:^|[\[,\s])app:\s*:(\w+)")
_MIX_ELIXIR = lazy_regex(r"(?:^|[\[,\s])elixir:\s*\"([^\"]+)\"")
_MIX_VERSION = lazy_regex(r"\"([^\"]*)\"\s*(?:,|$)")
_MIX_REQUIREMENT = lazy_regex(r"^\s*(~>|>=|<=|==|!=|>|<|[0-9])")
_WORD = lazy_regex(r"\w+")


def parse_mix_exs(text: str) -> Manifest | None:
    """The app name, the ``elixir:`` requirement, and every ``{:dep, ...}`` tuple."""
    draft = Draft("elixir")
    for raw in text.splitlines():
        if draft.full:
            break
        line = raw.strip()
        if line.startswith("#"):
            continue
        app = _MIX_APP.search(line) if "app:" in line else None
        elixir = _MIX_ELIXIR.search(line) if "elixir:" in line else None
        if app:
            draft.set_package(app.group(1))
        if elixir:
            draft.set_runtime("Elixir", elixir.group(1), line)
        for name, rest in _MIX_DEP.findall(line.split(" #")[0]):
            _mix_dep(draft, name, rest, line)
    return draft.build()


def _mix_dep(draft: Draft, name: str, rest: str, quote: str) -> None:
    rest = rest.strip()
    version = _MIX_VERSION.match(rest)
    options = dict(_MIX_OPTION.findall(rest[version.end():] if version else rest))
    if version and not _MIX_REQUIREMENT.match(version.group(1)):
        return
    if not version and not (options and set(options) <= _MIX_OPTIONS):
        return
    only = set(_WORD.findall(options.get("only", "")))
    kind = "optional" if options.get("optional") == "true" else "runtime"
    if only and "prod" not in only:
        kind = "test" if only == {"test"} else "dev"
    flags = tuple(f"{key}: {options[key].strip()}" for key in _MIX_FLAGS if key in options)
    draft.dep(name, version.group(1) if version else None, kind, quote, "deps", flags)


_GEM = lazy_regex(r"^gem\s*\(?\s*[\"']([^\"']+)[\"']\s*(.*)$")
_GEM_VERSION = lazy_regex(r"^,\s*[\"']([^\"']+)[\"']")
_RUBY = lazy_regex(r"^ruby\s*\(?\s*[\"']([^\"']+)[\"']")
_BLOCK = lazy_regex(r"\bdo(\s*\|[^|]*\|)?\s*$")
_SYMBOL = lazy_regex(r":(\w+)")
_GEM_GROUPS = lazy_regex(r"groups?:\s*(\[[^\]]*\]|:\w+)")
_GEM_SOURCE = lazy_regex(r"\b(git|github|path):")


def parse_gemfile(text: str) -> Manifest | None:
    """``gem`` lines with their versions and groups (``group :test do`` blocks and ``group:``)."""
    draft, groups = Draft("ruby"), []
    for raw in text.splitlines():
        if draft.full:
            break
        line = raw.split(" #")[0].strip()
        ruby, gem = _RUBY.match(line), _GEM.match(line)
        if _BLOCK.search(line):
            groups.append(_SYMBOL.findall(line) if line.startswith("group") else [])
        elif line == "end" and groups:
            groups.pop()
        elif ruby:
            draft.set_runtime("Ruby", ruby.group(1), raw.strip())
        elif gem:
            _gem(draft, gem, [g for block in groups for g in block], raw.strip())
    return draft.build()


def _gem(draft: Draft, found: re.Match[str], groups: list[str], quote: str) -> None:
    rest, versions = found.group(2), []
    while (version := _GEM_VERSION.match(rest.strip())):
        versions.append(version.group(1))
        rest = rest.strip()[version.end():]
    inline = _GEM_GROUPS.search(rest) if "group" in rest else None
    groups = groups + (_WORD.findall(inline.group(1)) if inline else [])
    kinds = {kind_for_group(g, "runtime") for g in groups}
    kind = "test" if kinds == {"test"} else "dev" if "dev" in kinds else "runtime"
    flags = tuple(_GEM_SOURCE.findall(rest)[:1])
    draft.dep(found.group(1), ", ".join(versions), kind, quote,
              "group " + ", ".join(groups) if groups else None, flags)


_GRADLE_CONFIG = (r"(implementation|api|compileOnly|runtimeOnly|annotationProcessor|kapt|ksp|"
                  r"classpath|developmentOnly|compile|runtime|testCompile|testRuntime|"
                  r"[a-z]\w*(?:Implementation|Api|CompileOnly|RuntimeOnly|AnnotationProcessor))")
_GRADLE_STRING = lazy_regex(rf"^{_GRADLE_CONFIG}\s*\(?\s*(?:(?:enforced)?[pP]latform\s*\(\s*)?"
                            r"[\"']([^\"':]+:[^\"':]+)(?::([^\"']+))?[\"']")
_GRADLE_MAP = re.compile(rf"^{_GRADLE_CONFIG}\s*\(?\s*group\s*[:=]\s*[\"']([^\"']+)[\"']\s*,"
                         r"\s*name\s*[:=]\s*[\"']([^\"']+)[\"']"
                         r"(?:\s*,\s*version\s*[:=]\s*[\"']([^\"']+)[\"'])?")
_GRADLE_CATALOG = lazy_regex(rf"^{_GRADLE_CONFIG}\s*\(?\s*(libs\.[\w.]+)")
_JAVA_VERSION = lazy_regex(r"JavaVersion\.VERSION_([0-9_]+)|jvmToolchain\s*\(\s*([0-9]+)|"
                           r"JavaLanguageVersion\.of\s*\(\s*([0-9]+)|"
                           r"(?:source|target)Compatibility\s*=\s*[\"']?([0-9.]+)")


def parse_gradle(text: str) -> Manifest | None:
    """Dependency declarations (string, map and version-catalog forms) and the Java version."""
    draft = Draft("gradle")
    for raw in text.splitlines():
        if draft.full:
            break
        line = raw.strip()
        java = _JAVA_VERSION.search(line)
        if java:
            version = next(group for group in java.groups() if group)
            draft.set_runtime("Java", version.replace("_", "."), line)
        found = _GRADLE_STRING.match(line) or _GRADLE_MAP.match(line)
        if found:
            config, name, version = found.group(1), found.group(2), found.group(3)
            if found.re is _GRADLE_MAP:
                name, version = f"{found.group(2)}:{found.group(3)}", found.group(4)
            draft.dep(name, version, _gradle_kind(config), line, config)
        elif (catalog := _GRADLE_CATALOG.match(line)):
            draft.dep(catalog.group(2), None, _gradle_kind(catalog.group(1)), line,
                      catalog.group(1), ("version catalog",))
    return draft.build()


def _gradle_kind(config: str) -> str:
    lowered = config.lower()
    if "test" in lowered:
        return "test"
    if lowered in ("compileonly", "annotationprocessor", "kapt", "ksp", "classpath"):
        return "build"
    return "dev" if lowered.startswith(("debug", "development")) else "runtime"
