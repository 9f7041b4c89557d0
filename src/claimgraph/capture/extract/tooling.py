"""tested-by / built-with / depends-on from shell commands that demonstrably succeeded.

Only known runners count, matched on the program and its first positional words, because a
project's own scripts say nothing general. A run counts when the tool's verdict was success
and the line's structure implies this command's own success (see ``shell``); a pipe into
``tail``/``head`` is accepted for test and build runs: the runner ran in this project, which
is the fact, even when its exit status was hidden. Package additions are stricter: an
install into an environment only (``pip install x``, not ``uv add x``) counts only for a
package the person named; never through a pipe's masked status, never global or user
installs, never requirement files, editable paths, URLs or local paths -- only a plain
package name, its version pin removed -- and only a package the session established
something about, as for a manifest's list (``dependencies.established``): the person named
it, or a failure before the install said it was missing. A run of installs that fills an
environment by hand is what the project's manifest already lists: a glance, eighteen facts
of noise in one session.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.commands import (
    did_not_run, env_names, kind_of, kind_of_text, typed_key)
from claimgraph.capture.extract.dependencies import established, failures_before, said_of
from claimgraph.capture.extract.lenient_json import read_json
from claimgraph.capture.extract.manifests import parse_manifest
from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.statements import user_texts
from claimgraph.logic.default_commands import is_ecosystem_default
from claimgraph.capture.extract.session import (
    OK, SessionView, candidate, transcript_evidence)
from claimgraph.capture.extract.shell import (
    Invocation, call_cwd, command_text, invocations, unwrap)

def runner_of(argv: tuple[str, ...]) -> tuple[str, str] | None:
    """(predicate, runner) for a test or lint run (``tested-by``) or a build (``built-with``),
    as the one command vocabulary (``commands``) names it; else None."""
    found = kind_of(argv)
    if found is None:
        return None
    kind, runner = found
    if kind in ("test", "lint"):
        return "core/tested-by", runner
    return ("core/built-with", runner) if kind == "build" else None


# manager key -> (ecosystem, flags that take a value, flags that make it not a project dependency)
_PIP_VALUES = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i",
               "--index-url", "--extra-index-url", "-f", "--find-links", "--python-version",
               "--platform", "--implementation", "--abi", "--src", "--upgrade-strategy",
               "--cache-dir", "--trusted-host", "--proxy", "--timeout", "--retries",
               "--only-binary", "--no-binary", "--config-settings", "-C", "--report", "--python",
               "-p"}
_PIP_NOT_PROJECT = {"--user", "-t", "--target", "--prefix", "--root", "--system"}
_JS_VALUES = {"--prefix", "--workspace", "-w", "--registry", "--tag", "--filter", "-F", "--dir",
              "-C", "--cwd", "--omit", "--include"}
_JS_NOT_PROJECT = {"-g", "--global", "--location"}
_UV_VALUES = _PIP_VALUES | {"--group", "--optional", "--extra", "--index", "--default-index",
                            "--package", "--requirements", "--constraints", "--directory",
                            "--project", "--tag", "--branch", "--rev", "--marker", "-m",
                            "--bounds", "--script", "--source", "-G", "--extras", "-E",
                            "--markers"}
_CARGO_VALUES = {"--features", "-F", "--rename", "--path", "--git", "--branch", "--tag", "--rev",
                 "--registry", "--package", "-p", "--target", "--manifest-path"}
PACKAGE_ADDS = {
    ("pip", "install"): ("python", _PIP_VALUES, _PIP_NOT_PROJECT),
    ("pip3", "install"): ("python", _PIP_VALUES, _PIP_NOT_PROJECT),
    ("uv", "pip", "install"): ("python", _UV_VALUES, _PIP_NOT_PROJECT),
    ("uv", "add"): ("python", _UV_VALUES, set()), ("poetry", "add"): ("python", _UV_VALUES, set()),
    ("pdm", "add"): ("python", _UV_VALUES, set()),
    ("npm", "install"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("npm", "i"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("npm", "add"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("pnpm", "add"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("yarn", "add"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("bun", "add"): ("js", _JS_VALUES, _JS_NOT_PROJECT),
    ("cargo", "add"): ("rust", _CARGO_VALUES, set()), ("go", "get"): ("go", set(), set()),
}
_NAME_SHAPES = {
    "python": lazy_regex(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"),
    "js": lazy_regex(r"(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*", re.IGNORECASE),
    "rust": lazy_regex(r"[A-Za-z0-9][A-Za-z0-9_-]*"),
    "go": lazy_regex(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:/[\w.~-]+)+", re.IGNORECASE),
}
_PYTHON_PIN = lazy_regex(r"\[.*$|[=<>!~;@ ].*$")
_PACKAGING_TOOLS = frozenset({"pip", "setuptools", "wheel"})


def packages_added(argv: tuple[str, ...]) -> list[str]:
    """The package names a successful ``pip install X`` / ``npm i X`` ... added, or []."""
    words = unwrap(argv)
    for size in (3, 2):
        spec = PACKAGE_ADDS.get(tuple(words[:size]))
        if spec:
            return _names(words[size:], *spec)
    return []


#: Installers that fill an environment and leave the project's manifest as it was.
_ENVIRONMENT_ONLY = frozenset({("pip", "install"), ("pip3", "install"), ("uv", "pip", "install")})


def changes_manifest(argv: tuple[str, ...]) -> bool:
    """The install writes the package into the project's manifest (``uv add``, ``npm i x``,
    ``cargo add``), not only into an environment (``pip install x``): a package put in a
    virtualenv after an import failed is no dependency the session gave the project (the
    manifest already says it, or the environment was repaired); the failure it cured is the
    lesson (``lessons``)."""
    words = unwrap(argv)
    return not any(tuple(words[:size]) in _ENVIRONMENT_ONLY for size in (2, 3))


def _names(args: tuple[str, ...], ecosystem: str, takes_value: set[str],
           not_project: set[str]) -> list[str]:
    names: list[str] = []
    skip = False
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag in not_project:
            return []
        if skip or arg.startswith("-"):
            skip = not skip and "=" not in arg and flag in takes_value
            continue
        name = _bare_name(arg, ecosystem)
        if name and name not in _PACKAGING_TOOLS:
            names.append(name)
    return names


def _bare_name(spec: str, ecosystem: str) -> str | None:
    """``requests[socks]>=2`` -> requests, ``@types/node@20`` -> @types/node; paths, URLs
    and anything not shaped like a package name -> None."""
    if ecosystem == "python":
        name = _PYTHON_PIN.sub("", spec)
    elif ecosystem == "js":
        name = spec if spec.rfind("@") <= 0 else spec[: spec.rfind("@")]
    else:
        name = spec.split("@", 1)[0]
    return name if _NAME_SHAPES[ecosystem].fullmatch(name) else None


#: Commands that start a project's development server (matched on the unwrapped command).
DEV_SERVERS = (
    "mix phx.server", "iex -S mix phx.server", "npm run dev", "npm start", "pnpm dev",
    "pnpm run dev", "yarn dev", "bun run dev", "bun dev", "next dev", "vite", "rails server",
    "rails s", "bin/dev", "python manage.py runserver", "manage.py runserver", "flask run",
    "uvicorn", "hugo server", "jekyll serve", "php artisan serve", "cargo watch",
    "docker compose up")
#: A dev server named in a person's words: the whole command, not letters inside a word
#: ("vite" is in "invite", "rails s" in "rails server's").
_DEV_SERVER_NAMED = {form: lazy_regex(rf"(?<![\w.-]){re.escape(form)}(?![\w-])")
                     for form in DEV_SERVERS}
#: Flags that change how a run reports, not what it checks: left out of the remembered form.
_REPORTING_FLAGS = frozenset({
    "-v", "-vv", "-vvv", "-q", "-qq", "-x", "-s", "--verbose", "--quiet", "--color", "--colors",
    "--no-header", "--tb", "--seed", "--maxfail", "--bail", "--silent", "--reporter",
    "--watch=false", "--run", "--no-cache", "--lf", "--ff", "--trace", "--max-cases", "--html",
    "--open", "--json", "--lcov"})
#: Flags whose value is left out with them: reporting settings, and the selection of which
#: tests to run (``-k``, ``--grep``, ``-t``, Go's ``-run``): a filtered run is how the session
#: ran a few tests that day, not how the project is tested.
_TAKES_VALUE = frozenset({"--tb", "--seed", "--maxfail", "--reporter", "--max-cases", "-k",
                          "--grep", "-g", "-t", "--testNamePattern", "--test-name-pattern",
                          "-run"})


def command_form(argv: tuple[str, ...]) -> str:
    """How the project runs a check, as the session ran it, minus what varies per run: the
    files or tests it was pointed at and the reporting flags (``python -m pytest tests/x.py
    -v`` is ``python -m pytest``; ``cargo llvm-cov --fail-under-lines 100`` stays whole).
    What makes it the same command stays: the words that name the check as typed (``ruff
    check``, ``npm run test``, ``vitest run``: ``commands.typed_key``), a package pattern
    (``go test ./...``), and ``--`` with what follows it (``npm test -- --coverage`` is not
    ``npm test --coverage``; ``cargo clippy -- -D warnings``)."""
    key_end = _key_end(argv)
    words: list[str] = []
    skip = False
    for index, word in enumerate(argv):
        if skip:
            skip = False
            continue
        flag = word.split("=", 1)[0]
        if flag in _REPORTING_FLAGS or flag in _TAKES_VALUE:
            skip = flag in _TAKES_VALUE and "=" not in word
            continue
        # ``./...`` is every package of the module; ``./internal/x/...`` picks some of them
        aimed = (index > key_end or _is_target(word)) and word != "./..."
        if index and not word.startswith("-") and aimed and not _follows_flag(argv, index):
            if words and _is_flag(words[-1]) and words[-1] == argv[index - 1]:
                words.pop()  # its value is left out: a flag cut from it would be half a command
            continue
        words.append(word)
    while words and words[-1] == "--":
        words.pop()  # nothing of what followed it stays
    return " ".join(words)


def _key_end(argv: tuple[str, ...]) -> int:
    """Where in ``argv`` the words naming the check end (wrappers before them included)."""
    key = typed_key(argv)
    index = -1
    for position, word in enumerate(key):
        index = next((i for i in range(index + 1, len(argv))
                      if (posixpath.basename(argv[i]) if position == 0 else argv[i]) == word),
                     -1)
        if index < 0:
            break
    if index >= 0:
        return index
    runner = runner_of(argv)
    if runner is None:
        return len(argv)  # no known check: only files and reporting flags are left out
    last = runner[1].split()[-1]
    return max((i for i, w in enumerate(argv) if posixpath.basename(w) == last), default=0)


def reporting_flag(word: str) -> bool:
    """A flag that changes how a run reports, not what it checks (``-v``, ``--tb=short``)."""
    return word.split("=", 1)[0] in _REPORTING_FLAGS


def takes_filter(word: str) -> bool:
    """A flag that, with its value, says which tests to run or how to report (``-k``,
    ``-run``, ``--grep``, ``--tb``): how the session ran a few tests that day."""
    return word.split("=", 1)[0] in _TAKES_VALUE


def is_target(word: str) -> bool:
    """A file, directory or test id a run was aimed at (``tests/x.py``, ``a::b``)."""
    return _is_target(word)


def _is_flag(word: str) -> bool:
    return word.startswith("-") and "=" not in word and word not in _REPORTING_FLAGS \
        and word != "--"


#: A scoped npm package (``@biomejs/biome``, ``@playwright/test@1.44``): the tool ``npx`` or
#: ``bunx`` runs, not a path. Left out, ``npx @biomejs/biome lint`` became ``npx lint``, which
#: fetches and runs an unrelated package called "lint".
_SCOPED_PACKAGE = lazy_regex(r"^@[\w.-]+/[\w.-]+(?:@[\w.^~<>=*-]+)?$")


def _is_target(word: str) -> bool:
    """A file, directory or test id the run was aimed at (not a subcommand or a value)."""
    if _SCOPED_PACKAGE.match(word):
        return False
    return "/" in word or "::" in word or bool(re.search(r"\.\w{1,5}$", word))


def _follows_flag(argv: tuple[str, ...], index: int) -> bool:
    """The word is the value of the flag before it (``--config ci.toml``, ``tox -e lint``):
    kept with it, so a command is stored whole (``tox -e`` alone runs nothing). After a short
    flag, a file or test id is taken for what the run was aimed at, not for the value."""
    previous = argv[index - 1]
    if not previous.startswith("-") or "=" in previous or previous in _REPORTING_FLAGS \
            or previous == "--":
        return False
    return previous.startswith("--") or not _is_target(argv[index])


def tooling_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """One candidate per check (``one_form_per_check``: ``timeout 900 python -m pytest`` beside
    ``python -m pytest`` is one way of testing, stored once), per package, and the dev server,
    which runs in the background (no verdict) or is named by the user. A check that is only
    its toolchain's default (``cargo test``, ``go build``: ``is_ecosystem_default``) is what
    the manifest already says, and is left out."""
    if not view.project:
        return
    found = list(_tooling(view))
    forms = [(c["predicate"], c["object"]) for c in found if c["rule"] == "tooling"]
    kept = one_form_per_check(forms, " ".join(text for _, text in user_texts(view)))
    for fact in found:
        if fact["rule"] != "tooling" or ((fact["predicate"], fact["object"]) in kept
                                         and not is_ecosystem_default(fact["object"])):
            yield fact


#: A flag that makes a run do less than the plain one: compile the tests without running
#: them, skip a part of the check (``cargo test --no-run``, ``tsc --skipLibCheck``).
_NARROWING = lazy_regex(r"^--?(?:no-?run|no-?emit-?only|skip|compile-?only|exclude|only)",
                        re.IGNORECASE)


def check_of(predicate: str, form: str) -> tuple[str, ...]:
    """Which check a remembered form runs: the predicate, the runner (program and subcommand,
    wrappers removed) and, for tox/nox, the environments named -- ``tox -e lint`` and ``tox -e
    py312`` are two checks, ``timeout 900 pytest`` and ``uv run pytest`` one."""
    found = kind_of_text(form)
    if found is None:
        return (predicate, form)
    words = tuple(form.split())
    return (predicate, found[1], *sorted(env_names(unwrap(words))))


def one_form_per_check(forms: list[tuple[str, str]], typed: str) -> set[tuple[str, str]]:
    """The (predicate, form) pairs to keep, one per check (``check_of``), from ``forms`` in
    the order first run (all of them seen to pass): a form the person typed wins (the longest
    of them); else a form with a flag that does less is left out (``cargo test --no-run``
    beside ``cargo test``, ``tsc --noEmit --skipLibCheck`` beside ``tsc --noEmit``), then a
    form another one extends with a stricter setting (``mix compile`` beside
    ``mix compile --warnings-as-errors``: the gate the project holds to); of what is left,
    the plainest -- fewest words, then the first run (``python -m pytest`` beside
    ``timeout 900 python -m pytest``, ``dotnet test`` beside ``dotnet test -c Release``)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for predicate, form in dict.fromkeys(forms):
        groups.setdefault(check_of(predicate, form), []).append(form)
    return {(key[0], _chosen(group, typed)) for key, group in groups.items()}


def _chosen(group: list[str], typed: str) -> str:
    said = [form for form in group
            if re.search(rf"(?<![\w./-]){re.escape(form)}(?![\w-])", typed)]
    if said:
        return max(said, key=lambda form: len(form.split()))
    left = [form for form in group
            if not any(_NARROWING.match(word) for word in form.split())] or group
    left = [form for form in left if not any(_extends(other, form) for other in left)] or left
    return min(left, key=lambda form: (len(form.split()), group.index(form)))


def _extends(form: str, other: str) -> bool:
    return form.startswith(other + " ")


def _tooling(view: SessionView) -> Iterator[dict[str, Any]]:
    for call in view.calls():
        command = command_text(call)
        if command is None:
            continue
        runs = invocations(command, call_cwd(call))
        if view.outcome(call) == OK:
            for invocation in runs:
                yield from _facts_of(view, call, command, invocation)
        elif (call.tool_input or {}).get("run_in_background") is True and runs \
                and dev_server(runs[-1].argv):
            yield _dev_server(view, dev_server(runs[-1].argv), call.line, command,
                              call.timestamp)
    for event, text in user_texts(view):  # never from a plan the person pasted
        named = next((form for form in DEV_SERVERS if _DEV_SERVER_NAMED[form].search(text)),
                     None)
        if named:
            yield _dev_server(view, named, event.line, text, event.timestamp)


def dev_server(argv: tuple[str, ...]) -> str | None:
    """The dev-server command a run is, if it is one (``mix phx.server``, ``npm run dev``)."""
    text = " ".join(unwrap(argv))
    return next((form for form in DEV_SERVERS if text == form or text.startswith(form + " ")),
                None)


def _dev_server(view: SessionView, form: str, line: int, quote: str,
                at: int | None) -> dict[str, Any]:
    return candidate("dev-server", view.project or "", "x/runs", f"its dev server with `{form}`",
                     evidence=[transcript_evidence(line, quote)], object_kind="literal",
                     subject_type="project", at=at)


def _facts_of(view: SessionView, call: Event, command: str,
              invocation: Invocation) -> Iterator[dict[str, Any]]:
    if not invocation.confirmed or (invocation.piped and not invocation.filtered):
        return
    evidence = [transcript_evidence(call.line, command)]
    runner = runner_of(invocation.argv)
    fetched = fetched_name(invocation.argv)
    if runner and fetched and fetched not in installed(view):
        runner = None  # npx would fetch whatever package has that name: unsure, not stored
    if runner and not (_in_project(view, call, invocation) and _ran(view, call, invocation)):
        runner = None
    if runner and runner[0] == "core/built-with" and stamped(invocation.argv):
        runner = None  # one release's build, its version and date typed in
    if runner:
        yield candidate("tooling", view.project or "", runner[0], command_form(invocation.argv),
                        evidence=evidence, object_kind="entity",
                        subject_type="project", object_type="tool", at=call.timestamp)
    # into an environment only: the person must have named it; a failure it cured says the
    # environment lacked it (the lesson), not that the session gave the project a dependency
    failures = failures_before(view, call.line) if changes_manifest(invocation.argv) else []
    for name in [] if invocation.piped else packages_added(invocation.argv):
        if not established(name, said_of(view), failures, ()):
            continue  # installed, and nothing said why: the manifest or a glance tells it
        yield candidate("packages", view.project or "", "core/depends-on", name,
                        evidence=evidence, object_kind="entity",
                        subject_type="project", object_type="package", at=call.timestamp)


#: A value set into the build for one release: a linker's ``-X name=value`` (Go's
#: ``-ldflags "-X main.version=0.3.0"``), or a setting whose name ends in a version, date,
#: commit or release (``-DAPP_VERSION=1.4.2``, ``BUILD_DATE=2026-01-31``, ``-PbuildDate=…``).
#: The name's last part decides: ``--update=false``, ``--validate=strict`` and
#: ``CMAKE_POLICY_VERSION_MINIMUM=3.5`` only hold those letters; ``--python=3.12`` picks a
#: toolchain.
_LINKER_STAMP = lazy_regex(r"(?:^|\s)-X\s*[\w./-]+=\S")
_SETTING = lazy_regex(r"(?:^|\s)(?:-[DP](?=\w)|-*)([\w./:-]+)=\S")
_NAME_PART = lazy_regex(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
_STAMP_WORDS = frozenset({"version", "date", "commit", "revision", "release"})


def stamped(argv: tuple[str, ...]) -> bool:
    """A build that stamps one release's values into what it makes (its version, date or
    commit, typed in): a release chore with values made up for the day, not how the next
    agent builds the project (the plain build, or the project's recipe, is)."""
    return any(_LINKER_STAMP.search(word) or any(
        (parts := _NAME_PART.findall(name)) and parts[-1].lower() in _STAMP_WORDS
        for name in _SETTING.findall(word)) for word in argv[1:])


def _in_project(view: SessionView, call: Event, invocation: Invocation) -> bool:
    """The run was in the project: not after a ``cd`` out of it (``cd /tmp/x && pytest``
    checks someone else's code), nor after one the record cannot follow (``cd "$TMP/x"``).
    A session placed away from the folder it was recorded in (a path of the recording
    machine) is judged against that folder: ``cd apps/web && pnpm test`` stays inside it."""
    if invocation.cwd is None:
        return call_cwd(call) is None
    if view.own(invocation.cwd) is not None:
        return True
    started = view.started_in()
    return (started is not None and started != view.root
            and SessionView._relative(invocation.cwd, started) is not None)


def _ran(view: SessionView, call: Event, invocation: Invocation) -> bool:
    """The check ran: a run whose exit status a pipe hid (``pytest 2>&1 | tail -5``) counts
    only when its output does not say the check never started (``commands.did_not_run``:
    "No module named pytest", "unrecognized arguments", "Missing script")."""
    if not invocation.piped:
        return True
    result = view.results.get(call.call_id or "")
    return result is None or not did_not_run(result.text or "")


#: Runners that run a project's installed binary, else fetch the package of that name.
_FETCHERS = frozenset({"npx", "bunx", "pnpx"})
_SKIPPED = frozenset({"sudo", "time", "nice", "command", "exec", "env", "nohup"})
#: Well-known binaries whose package has another name (``tsc`` is typescript's; the npm
#: package "tsc" is an unrelated one): installed when the manifest lists that package.
BIN_PACKAGES = {"tsc": ("typescript",), "tsserver": ("typescript",),
                "playwright": ("@playwright/test", "playwright"),
                "markdownlint": ("markdownlint-cli",), "biome": ("@biomejs/biome",),
                "vue-tsc": ("vue-tsc",), "ng": ("@angular/cli",),
                "svelte-check": ("svelte-check",), "eslint": ("eslint",)}


def fetched_name(argv: tuple[str, ...]) -> str | None:
    """The unscoped name an ``npx``/``bunx`` run asks for (``npx markdownlint`` ->
    "markdownlint"); None for any other command, a scoped package (``npx @biomejs/biome``:
    the package is named) or a package given with ``--package``."""
    words = list(argv)
    while words and (words[0] in _SKIPPED or words[0] == "timeout"
                     or ("=" in words[0] and not words[0].startswith("-"))):
        words = words[2:] if words[0] == "timeout" else words[1:]
    if not words or posixpath.basename(words[0]) not in _FETCHERS:
        return None
    for word in words[1:]:
        if word in ("-p", "--package") or word.startswith("--package="):
            return None
        if not word.startswith("-"):
            return None if word.startswith("@") else word.split("@", 1)[0]
    return None


def installed(view: SessionView) -> frozenset[str]:
    """The binaries a project's own manifest the session saw installs: its packages by name,
    and the well-known binaries of those packages (``BIN_PACKAGES``)."""
    return view.remembered("npx_installed", _installed)


def _script_programs(text: str) -> set[str]:
    """The programs a package.json's own scripts run (``"test": "vitest run"``: vitest): a
    script runs the project's installed binaries, so the project has them."""
    found: set[str] = set()
    for leaf in read_json(text):
        if len(leaf.path) == 2 and leaf.path[0] == "scripts" and isinstance(leaf.value, str):
            for part in re.split(r"&&|\|\||[;|]", leaf.value):
                words = [w for w in part.split() if not _ASSIGNED.match(w)]
                if words:
                    found.add(posixpath.basename(words[0]))
    return found


_ASSIGNED = lazy_regex(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _installed(view: SessionView) -> frozenset[str]:
    names: set[str] = set()
    for path, looks in surviving_looks(view).items():
        if posixpath.basename(path) != "package.json" or looks[-1].cited is None:
            continue
        for look in looks:
            manifest = parse_manifest(look.path, look.text)
            if manifest:
                names.update(dependency.name for dependency in manifest.dependencies)
            names.update(_script_programs(look.text))
    return frozenset(names | {binary for binary, packages in BIN_PACKAGES.items()
                              if names & set(packages)})
