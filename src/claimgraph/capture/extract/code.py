"""Which language a file is in, and the top-level definitions a piece of its code contains.

Deliberately shallow: one regular expression per definition form, matched only at column 0.
Top-level names are the ones worth remembering and the ones a line-based reading gets right;
methods (indented) share names across classes (``run``, ``fmt``, ``__init__``) and would
collide under defined-in's one-place rule. Private (``_x``), ``main`` and test code are
skipped: they are either not an interface or not unique.
"""

from __future__ import annotations

import posixpath
from claimgraph.logic.lazy_regex import lazy_regex
from dataclasses import dataclass

LANGUAGES = {
    ".py": "Python", ".pyi": "Python", ".rs": "Rust", ".go": "Go", ".ts": "TypeScript",
    ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".js": "JavaScript",
    ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".rb": "Ruby",
    ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".swift": "Swift", ".c": "C",
    ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".cs": "C#", ".ex": "Elixir",
    ".exs": "Elixir", ".erl": "Erlang", ".clj": "Clojure", ".cljs": "ClojureScript",
    ".cljc": "Clojure", ".scala": "Scala", ".php": "PHP", ".sh": "Shell", ".bash": "Shell",
    ".lua": "Lua", ".dart": "Dart", ".zig": "Zig", ".hs": "Haskell", ".ml": "OCaml",
    ".sql": "SQL", ".jl": "Julia", ".vue": "Vue", ".svelte": "Svelte",
}
_JS_NAME = r"([A-Za-z_$][\w$]*)"
_RUST_VIS = r"(?:pub(?:\([^)]*\))?\s+)?"
_JS_FORMS = (
    (lazy_regex(r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*"
                + _JS_NAME + r"\s*[<(]"), "function"),
    (lazy_regex(r"^(?:export\s+(?:default\s+)?)?(?:abstract\s+)?class\s+" + _JS_NAME), "class"),
    (lazy_regex(r"^(?:export\s+)?const\s+" + _JS_NAME + r"\s*(?::[^=]+)?=\s*(?:async\s+)?"
                r"(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=>"), "function"),
    (lazy_regex(r"^export\s+(?:declare\s+)?(?:interface|enum|const\s+enum)\s+" + _JS_NAME),
     "type"),
    (lazy_regex(r"^export\s+type\s+" + _JS_NAME + r"\s*(?:<[^=]*>)?\s*="), "type"),
)
FORMS = {
    "Python": (
        (lazy_regex(r"^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\("), "function"),
        (lazy_regex(r"^class\s+([A-Za-z_]\w*)\s*[:(]"), "class"),
    ),
    "TypeScript": _JS_FORMS,
    "JavaScript": _JS_FORMS,
    "Rust": (
        (lazy_regex(r"^" + _RUST_VIS + r"(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                    r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_]\w*)"), "function"),
        (lazy_regex(r"^" + _RUST_VIS + r"(?:struct|enum)\s+([A-Za-z_]\w*)"), "class"),
        (lazy_regex(r"^" + _RUST_VIS + r"(?:unsafe\s+)?trait\s+([A-Za-z_]\w*)"), "type"),
    ),
    "Go": (
        (lazy_regex(r"^func\s+([A-Za-z_]\w*)\s*[\[(]"), "function"),
        (lazy_regex(r"^func\s+\(\s*\w*\s*\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*"
                    r"([A-Za-z_]\w*)\s*[\[(]"), "function"),
        (lazy_regex(r"^type\s+([A-Za-z_]\w*)(?:\[[^\]]*\])?\s+(?:struct|interface)\b"), "class"),
    ),
    "Elixir": ((lazy_regex(r"^defmodule\s+([A-Z][\w.]*)\s+do\b"), "module"),),
}
#: Test files by name, in each ecosystem's convention: Python's ``test_x.py``/``x_test.py``/
#: ``conftest.py``, Go's ``x_test.go``, Elixir's ``x_test.exs``, Ruby's ``x_spec.rb``/
#: ``x_test.rb``, Dart's ``x_test.dart``, C/C++'s ``x_test.cc``/``x_unittest.cc``, JavaScript's
#: ``x.test.ts``/``x.spec.js``; and the capitalised suffix of XCTest, JUnit, NUnit/xUnit,
#: PHPUnit and their kin (``CartTests.swift``, ``CartTest.java``, ``CartTests.cs``,
#: ``AppUITests.swift``, ``CartSpec.scala``, ``CartIT.java``), only as a capitalised suffix of a
#: longer name, so a word that merely ends in "test" ("Contest.java", "latest.rb") is not one.
_TEST_FILE = lazy_regex(
    r"(?:^test_.*\.py|_test\.(?:py|go|exs?|rb|dart|cc|cpp|c)|_spec\.rb|_unittest\.(?:cc|cpp)"
    r"|\.(?:test|spec)\.[cm]?[jt]sx?|^conftest\.py"
    r"|(?:[A-Za-z0-9](?:Tests?|Spec)|[a-z0-9]IT)\.(?:swift|java|kt|kts|scala|groovy|cs|fs|vb|php|m|mm)"
    r")$")
#: Test folders by name, case aside (Swift's ``Tests/``, Ruby's ``spec/``, Go's ``testdata/``).
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures"})
#: Test folders named for what they test: Xcode's ``AppTests/`` and ``AppUITests/``, .NET's
#: ``Shop.Tests/`` and ``Shop.UnitTests/``, Gradle's ``androidTest/``, ``commonTest/``,
#: ``jvmTest/`` source sets: a capitalised "Test(s)" suffix of a longer name; or a snake- or
#: kebab-case one (``integration_tests/``, ``e2e-tests/``).
_TEST_DIR_NAME = lazy_regex(r"(?:[A-Za-z0-9.]Tests?|[a-z0-9][_-]tests?)$")
_SKIPPED_NAMES = frozenset({"main"})
MAX_QUOTE = 150


@dataclass(frozen=True)
class Definition:
    name: str
    kind: str
    quote: str  # the definition line as written, the citation an audit re-finds


def language_of(path: str) -> str | None:
    return LANGUAGES.get(posixpath.splitext(path)[1])


def is_test_file(path: str) -> bool:
    """Test modules define helpers and fixtures, not the project's interface: a file named as
    its language's test runner expects, or any file under a test folder (``_TEST_FILE``,
    ``_TEST_DIRS``, ``_TEST_DIR_NAME``)."""
    parts = path.replace("\\", "/").split("/")
    return bool(_TEST_FILE.search(parts[-1])) or any(
        part.lower() in _TEST_DIRS or _TEST_DIR_NAME.search(part) for part in parts[:-1])


def definitions(code: str, language: str) -> list[Definition]:
    """Top-level definitions in order of appearance, each name once."""
    forms = FORMS.get(language, ())
    found: dict[str, Definition] = {}
    for line in code.split("\n") if forms else ():
        if not line[:1].isalpha():
            continue
        for pattern, kind in forms:
            match = pattern.match(line)
            if match:
                name = ".".join(group for group in match.groups() if group)
                if _worth_keeping(name) and name not in found:
                    found[name] = Definition(name, kind, _quote(line))
                break
    return list(found.values())


def _worth_keeping(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return len(last) > 1 and not last.startswith("_") and last not in _SKIPPED_NAMES


def _quote(line: str) -> str:
    """The line up to any backtick (it would end the evidence's code span), capped."""
    return line.split("`", 1)[0].rstrip()[:MAX_QUOTE].rstrip()
