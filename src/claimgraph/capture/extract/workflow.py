"""How the project is worked on: the task-runner recipes, scripts, hooks and CI steps the
session wrote, edited or read -- one fact per file ("`just check` runs `cargo llvm-cov
--fail-under-lines 100`; `just test` runs `cargo test`"), not one per script, and never a
recipe body longer than one short line of shell.

A recipe is cited as its file line, so the audit can check it still says so. The file as the
session left it wins: a whole read or write replaces what was known of it, an edit adds to it
(so a Justfile rewritten for another language forgets its old recipes). From a file the session
only read, only the recipes the session ran count (by their name, ``npm run test``, or by their
command): a runner file read is a list a glance gives, and its every script -- what builds the
docs, a placeholder ``echo "no test specified"`` -- is nothing the session learnt. A CI workflow
or pre-commit file only read is the exception: nobody types its steps, so the session cannot
have run them, and the ones that test, lint, format, build or check are gates every change
meets. Of a recipe the session ran in a file it only read, not one
whose one command only says its name again (``typecheck`` runs ``turbo run typecheck``).
From a runner file it created (not a CI workflow or pre-commit file: every hook of one it
wrote is told, and every step that checks), the recipes it ran or that run a script it
wrote: the rest is the new file's scaffold (``next dev``, ``vite build``). From a file it
edited or rewrote but did
not create, the recipes the edit changed or added, plus the ones that check or build the project
(test, lint, typecheck, a format check, build, check: the one command vocabulary decides), and
the ones it ran -- never a dev server, a start, a publish or a release chore the edit left as it
was: a version bump in a package.json is no lesson about its every script, yet an edited file
tells no less than one only read. An edit's unchanged context line is no recipe the edit
changed, and a recipe an edit's fragment shows keeps the name the whole file gave it (the
fragment hides the package manager). Of the runner files of one kind the
session only read (a monorepo's root `package.json` and each workspace's), the one nearest the
root speaks for the project: a workspace's own scripts are a glance away when it is worked on.
A CI step that one workflow file already runs is told once, not again for each workflow that
repeats it. A runner file only read whose told recipes only serve, start or watch (``npm run
dev`` runs ``vite``) is left out: the dev server is ``tooling``'s fact.

A CI step, written or read, is told only when it is one command that checks or builds the
project (``ci_check``), by its command, else by its name's first word (``ci_role``): a step
of several commands is a script, one that installs, caches, packs or deploys is CI's
plumbing, and a build for a target only CI's environment names is its release matrix's,
however the session came by the file. Each step
of a job is its own (unnamed steps share the job's name, ``_key``). Nothing that runs as
another user (``sudo``, in any runner file) is told: it is the machine's plumbing.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Any, Iterable, Iterator

from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.recipe_common import (
    only_calls_others, role_of_commands, role_of_name)
from claimgraph.capture.extract.package_manager import manager_of
from claimgraph.capture.extract.recipes import (
    SOME_MANAGER, Recipe, parse_recipes, recipe_format)
from claimgraph.capture.extract.session import SessionView, candidate, file_evidence
from claimgraph.capture.extract.shell import command_text, invocations, unwrap
from claimgraph.capture.extract.tooling import command_form

MAX_PER_FILE = 8
#: A recipe body longer than this (or spanning lines) is a script, not a command to remember.
MAX_COMMAND_CHARS = 100
#: Recipes nobody types: CI runs them on every push, pre-commit on every commit. The session
#: cannot run them, and what of them checks the project is a gate every change meets.
UNTYPED = frozenset({"github-actions", "pre-commit"})
CI = "github-actions"
WORKING_ROLES = frozenset({"test", "lint", "format", "build", "check"})
#: Of a runner file the session edited, the recipes told even though the edit left them as
#: they were: what checks or builds the project (a formatter only in its check mode).
EDITED_ROLES = frozenset({"test", "lint", "build", "check"})
_CHECK_MODE = re.compile(r"(?<![a-z0-9])check(?![a-z0-9])")
#: A recipe that rewrites code (``--fix``, ``--write``) or keeps running (a watcher:
#: ``test:watch``, ``tsc -w``): a chore of the work in hand, not a check the next agent runs.
_CHORE = re.compile(r"(?<![\w-])(?:--fix|--write|-w|--watch|watch)(?![\w-])")


def recipe_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """One fact per task-runner file: the commands that matter and what each runs."""
    if not view.project:
        return
    ran = ran_lines(view)
    scripts = own_scripts(view)
    found: list[tuple[str, bool, list[tuple[SeenFile, Recipe]]]] = []
    for looks in surviving_looks(view).values():
        cited = looks[-1].cited
        if cited is None or " " in cited:
            continue
        current = _with_manager(view, looks, _as_left(looks))
        written = any(look.how != "read" for look in looks) and bool(current)
        created = looks[0].how == "write"
        chosen = [(look, recipe) for look, recipe in current.values()
                  if _told(look, recipe, was_run(recipe, ran),
                           written, created, runs_own_script(recipe, cited, scripts))
                  and one_line(recipe) and not only_calls_others(recipe)
                  and not privileged(recipe)
                  and (recipe.source != CI or ci_check(recipe))]
        if chosen:  # what the session changed first: MAX_PER_FILE never cuts it
            chosen.sort(key=lambda pair: pair[0].how == "read")
            found.append((cited, written, chosen))
    nearest = _nearest_depths(cited for cited, _, _ in found)
    told: set[str] = set()
    found.sort(key=lambda item: ships(item[0]))  # a gate's step is told from the gate
    for cited, written, chosen in found:
        if not written and _depth(cited) > nearest[posixpath.basename(cited)]:
            continue  # a workspace's own runner file, only read: the root's speaks for it
        chosen = [(look, recipe) for look, recipe in chosen
                  if recipe.source not in UNTYPED or recipe.runs not in told]
        told.update(recipe.runs for _, recipe in chosen if recipe.source in UNTYPED)
        if not written:  # the session ran it, yet its body only says its name again
            chosen = [(look, recipe) for look, recipe in chosen if not self_named(recipe)]
        if not written and only_chores(chosen):
            continue
        if chosen:  # a CI step another workflow already runs is told once
            yield _fact(cited, chosen[:MAX_PER_FILE], "recipes" if written else "recipes.read")


#: The words of a workflow's file name that say it ships what the gates passed: it releases,
#: publishes or deploys (``release.yml``, ``publish-crate.yml``, ``deploy_docs.yml``).
#: ``cd`` alone, not the gate's own "ci-cd.yml" / "ci_cd.yml".
_SHIPS = re.compile(r"(?<![a-z])(?:release|releases|publish|deploy|(?<!ci[-_])cd|nightly|pages)"
                    r"(?![a-z])")


def ships(cited: str) -> bool:
    """A CI workflow that ships (``_SHIPS``): a check it repeats (``cargo test`` before a
    release's build) is told from the workflow that gates every change (``ci.yml``), which
    the told-once rule would otherwise drop when the session happened to read the release's
    file first."""
    name = posixpath.basename(cited).lower()
    return "/workflows/" in f"/{cited}" and bool(_SHIPS.search(posixpath.splitext(name)[0]))


#: One command line the session ran, as the words of each simple command it holds.
Line = tuple[tuple[str, ...], ...]


def ran_lines(view: SessionView) -> list[Line]:
    """Every command line the session ran, each simple command as its words with any wrapper
    removed (``uv run``, ``npx``, ``sudo``); a line the shell parser cannot read is left out."""
    return [tuple(unwrap(run.argv) for run in invocations(text))
            for text in filter(None, map(command_text, view.calls()))]


def was_run(recipe: Recipe, ran: list[Line]) -> bool:
    """Whether the session ran ``recipe``, word for word: its invocation as whole words of
    a command (``pnpm run test``, also behind a launcher: ``corepack pnpm run test``), or
    its body from the start of a command (``vitest run``, also ``npx vitest run``). So
    ``pnpm run test:unit`` or ``make lint-fix`` is not ``pnpm run test`` or ``make lint``,
    a commit message or a grep pattern that names ``make image`` runs nothing, and trailing
    arguments (``pnpm run test -- --run``) still count. A multi-command body counts when
    one line ran each of its commands in order. An invocation whose manager the record
    never named (``SOME_MANAGER``) is no command line."""
    for text, anywhere in ((recipe.invocation, True), (recipe.runs, False)):
        if text.startswith(SOME_MANAGER):
            continue
        wanted = tuple(unwrap(run.argv) for run in invocations(text))
        if wanted and any(_runs_in_order(wanted, line, anywhere) for line in ran):
            return True
    return False


def _runs_in_order(wanted: Line, line: Line, anywhere: bool) -> bool:
    """Each of ``wanted`` is in a command of ``line`` (its start, or ``anywhere`` in its
    words), in order."""
    commands = iter(line)
    return all(any(_holds(words, command, anywhere) for command in commands)
               for words in wanted)


def _holds(words: tuple[str, ...], command: tuple[str, ...], anywhere: bool) -> bool:
    starts = range(len(command) - len(words) + 1) if anywhere else range(1)
    return bool(words) and any(command[at:at + len(words)] == words for at in starts)


def _told(look: SeenFile, recipe: Recipe, ran: bool, written: bool, created: bool,
          own_script: bool) -> bool:
    """Whether a recipe of the file as the session left it is worth telling (see the module's
    docstring): of a runner file the session created, what it ran or wired to its own script
    (the rest is the scaffold's: ``next dev``, ``vite build``); of a file that was there,
    what the session changed or ran, what checks or builds in a file it edited, and an unrun
    CI or pre-commit step that checks."""
    if created and recipe.source not in UNTYPED:
        return ran or own_script
    return look.how != "read" or ran or (written and checks_or_builds(recipe)) \
        or (recipe.source in UNTYPED and working(recipe))


#: Words that only say which runner runs a task, not what the task does.
_RUNNER_WORDS = frozenset({"npm", "pnpm", "yarn", "bun", "bunx", "npx", "node", "turbo", "nx",
                           "lerna", "run", "run-many", "exec", "workspaces", "foreach"})
#: Runner options whose value names where the task runs (a workspace, a folder), not what.
_PLACE_OPTIONS = frozenset({"--filter", "-F", "--cwd", "-C", "--workspace", "--dir",
                            "--prefix", "--scope", "--project", "-p"})
_WORD_PARTS = re.compile(r"[a-z0-9]+")
_ONE_COMMAND = re.compile(r"&&|\|\||[;|]")


def self_named(recipe: Recipe) -> bool:
    """A recipe whose one command says nothing its name does not: the tool of its own name
    (``changeset`` runs ``changeset``) or the task of its name in another runner (``typecheck``
    runs ``turbo run typecheck``, ``check:web`` runs ``pnpm --filter web run check``)."""
    if _ONE_COMMAND.search(recipe.runs):
        return False
    words, rest, skip = recipe.runs.split(), set(), False
    for word in words:
        if skip:
            skip = False
        elif word in _PLACE_OPTIONS:
            skip = True
        elif not word.startswith("-") and word.lower() not in _RUNNER_WORDS:
            rest.update(_WORD_PARTS.findall(word.lower()))
    return bool(rest) and rest <= set(_WORD_PARTS.findall(recipe.name.lower()))


#: What a script the session wrote is written in: a CI step or recipe that runs one is the
#: session wiring its own tool in, not a standard command a glance at the file gives.
_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1")


def own_scripts(view: SessionView) -> list[str]:
    """The project's scripts the session wrote or edited (and did not delete), by path."""
    return [looks[-1].cited for looks in surviving_looks(view).values()
            if looks[-1].cited and looks[-1].cited.endswith(_SCRIPT_SUFFIXES)
            and any(look.how != "read" for look in looks)]


def runs_own_script(recipe: Recipe, cited: str, scripts: list[str]) -> bool:
    """Whether ``recipe`` (of the runner file ``cited``) runs one of ``scripts``, named from
    the project root or from the runner file's folder."""
    folder = posixpath.dirname(cited)
    for script in scripts:
        forms = {script}
        if folder and script.startswith(folder + "/"):
            forms.add(script[len(folder) + 1:])
        if any(re.search(rf"(?<![\w./-])(?:\./)?{re.escape(form)}(?![\w/-])", recipe.runs)
               for form in forms):
            return True
    return False


def only_chores(chosen: list[tuple[SeenFile, Recipe]]) -> bool:
    """A runner file only read whose told recipes only serve, start or watch: the dev
    server the session started is its own fact (``tooling``), and the rest is a glance."""
    return bool(chosen) and all(recipe.role == "run" for _, recipe in chosen)


def _depth(cited: str) -> int:
    return cited.removeprefix("./").count("/")


def _nearest_depths(cited: Iterable[str]) -> dict[str, int]:
    """Per file name, the depth of the runner file of that name nearest the project root."""
    nearest: dict[str, int] = {}
    for path in cited:
        name = posixpath.basename(path)
        nearest[name] = min(nearest.get(name, _depth(path)), _depth(path))
    return nearest


def working(recipe: Recipe) -> bool:
    """A recipe that checks or builds the project."""
    return recipe.role in WORKING_ROLES


def checks_or_builds(recipe: Recipe) -> bool:
    """A recipe the next agent runs to check its work: test, lint, typecheck, build, check,
    or a formatter run to check (``format:check``, ``prettier --check``), never one that
    rewrites code, watches, serves or publishes."""
    if _CHORE.search(recipe.name.lower().replace(":", " ")) or _CHORE.search(recipe.runs):
        return False
    if recipe.role == "format":
        return bool(_CHECK_MODE.search(recipe.name.lower()) or "--check" in recipe.runs)
    return recipe.role in EDITED_ROLES


_PRIVILEGED = re.compile(r"(?<![\w./-])(?:sudo|doas|pkexec)(?![\w-])")


def privileged(recipe: Recipe) -> bool:
    """A body that runs something as another user (``sudo make install``, ``sudo chown
    -R``): the machine's plumbing, not a command the next agent types to check its work."""
    return bool(_PRIVILEGED.search(recipe.runs))


def ci_check(recipe: Recipe) -> bool:
    """A CI step worth telling: one command that checks or builds the project, by its command
    in the one command vocabulary, else by what its name says it does (``ci_role``). A step
    of several commands is a script (setting up, copying, fixing permissions); one that
    installs, caches, uploads or deploys is CI's plumbing; and a build for what only CI's
    environment names (``cargo build --target "$TARGET"``, a matrix's) is an artifact of its
    release matrix, not how the next agent builds the project. A check CI parametrises
    (``--shard=${{ matrix.shard }}/4``, a PR's refs) is still the gate every change meets."""
    if _ONE_COMMAND.search(recipe.runs) or not _EXPRESSION.sub("", recipe.runs).strip():
        return False  # a script; or only a value CI fills in (``${{ matrix.cmd }}``)
    role = ci_role(recipe)
    if role == "build" and "$" in recipe.runs:
        return False
    return checks_or_builds(replace(recipe, role=role))


#: A value CI fills in (``${{ matrix.name }}``): a step named only by one says nothing of what
#: it does, so its command's program and subcommand tell it.
_EXPRESSION = re.compile(r"\$\{\{.*?\}\}")
#: Words a step's name may open with before saying what it does ("Run tests").
_RUN_WORDS = frozenset({"run", "runs", "running"})


def ci_role(recipe: Recipe) -> str:
    """What a CI step does: its command's role when the one command vocabulary knows the
    command (``npm ci`` installs whatever the step is called), else the role its name's first
    word says -- a step's name says what it does first ("Build site", "Validate the manifest
    against its schema", "Run tests"): "Create test database" and "Clean test database" name
    a test database, they run no test. A step with no name of its own (``parse_recipes`` gives an
    unnamed step its job's: "job test" names what the job is for, not what ``flutter pub
    get`` in it does), or named only by a value CI fills in (``${{ matrix.name }}``), goes by
    its program's subcommand (``subcommand_role``)."""
    known = role_of_commands(recipe.runs)
    if known != "other":
        return known
    own_name = not recipe.invocation.endswith(f" job {recipe.name}")
    named = _EXPRESSION.sub(" ", recipe.name.lower()) if own_name else ""
    words = named.split()
    while words and words[0] in _RUN_WORDS:
        words = words[1:]
    return (role_of_name(words[0]) if words else None) or subcommand_role(recipe.runs) \
        or "other"


_PLAIN_SUBCOMMAND = re.compile(r"[a-z]+")


def subcommand_role(runs: str) -> str | None:
    """The role a program's subcommand says, for a command the one command vocabulary does
    not know (``flutter test``, ``sbt test``, ``./gradlew --no-daemon check``, ``bazel test
    //...``): an unnamed CI step of another ecosystem says what it does there. Only a plain
    word, the first after the program's flags: ``flutter create test_app`` creates."""
    found = invocations(runs)
    argv = found[-1].argv if len(found) == 1 else ()
    word = next((arg for arg in argv[1:] if not arg.startswith("-")), "")
    return role_of_name(word) if _PLAIN_SUBCOMMAND.fullmatch(word) else None


def one_line(recipe: Recipe) -> bool:
    """A command someone would type: one short line of shell, not a script."""
    return "\n" not in recipe.runs and len(recipe.runs) <= MAX_COMMAND_CHARS


def _key(recipe: Recipe) -> str:
    """What tells two recipes of a file apart: how each is typed, and for a CI step also what
    it runs -- the unnamed steps of one job share "CI ci.yml job test", and keyed by that
    alone each replaced the one before, leaving only the job's last step told."""
    return f"{recipe.invocation}\0{recipe.runs}" if recipe.source == CI else recipe.invocation


def _steps_taken_out(current: dict[str, tuple[SeenFile, Recipe]], look: SeenFile
                     ) -> tuple[dict[str, tuple[SeenFile, Recipe]], list[Recipe]]:
    """``current`` without the CI steps an edit took out, and those steps: a step keyed by
    what it runs is not replaced by its new version, so a step whose line the edit replaced
    and no longer holds goes."""
    if look.how != "edit" or not look.replaced:
        return current, []
    replaced = {line.strip() for line in look.replaced.splitlines()}
    kept = {line.strip() for line in look.text.splitlines()}
    gone = [key for key, (_, recipe) in current.items() if recipe.source == CI
            and recipe.quote in replaced and recipe.quote not in kept]
    return ({key: pair for key, pair in current.items() if key not in gone},
            [current[key][1] for key in gone])


def _in_job_of(recipe: Recipe, gone: list[Recipe]) -> Recipe:
    """An edit's CI step shown without its job (the fragment starts at the step) takes the
    job of the step it replaced."""
    if recipe.source != CI or " job " in recipe.invocation or not gone:
        return recipe
    return replace(recipe, invocation=gone[0].invocation,
                   name=recipe.name if recipe.name != "run" else gone[0].name)


def _as_left(looks: list[SeenFile]) -> dict[str, tuple[SeenFile, Recipe]]:
    """Key (``_key``) -> (look, recipe) for the file as the session left it, each recipe with
    the look that last changed it: a write or edit that leaves a recipe as it was (a rewrite
    that bumps a version, an edit's context line) keeps the look it was known from."""
    current: dict[str, tuple[SeenFile, Recipe]] = {}
    for look in looks:
        # the name first: a file that is no runner is not rendered (reads.SeenFile)
        recipes = parse_recipes(look.path, look.text) if recipe_format(look.path) else []
        current, gone = _steps_taken_out(current, look)
        recipes = [_in_job_of(recipe, gone) for recipe in recipes]
        before = current
        if look.how in ("read", "write") and recipes:
            current = {}
        named = {(known.source, known.name): known for _, known in before.values()}
        for recipe in recipes:
            same = named.get((recipe.source, recipe.name))
            if not _placed(recipe, same, list(named.values()), look):
                continue
            recipe = replace(recipe, placed=True)
            if look.how == "edit" and same is not None:
                # an edit's fragment hides the package manager: the whole file named it
                recipe = replace(recipe, invocation=same.invocation)
            known = before.get(_key(recipe))
            kept = look.how != "read" and (
                (known is not None and known[1].runs == recipe.runs)
                or (look.how == "edit" and _unchanged_line(recipe, look.replaced)))
            if kept:  # as it was: known from its earlier look, else from this one as seen
                current[_key(recipe)] = known or (replace(look, how="read"), recipe)
            else:
                current[_key(recipe)] = (look, recipe)
    return current


def _with_manager(view: SessionView, looks: list[SeenFile],
                  current: dict[str, tuple[SeenFile, Recipe]]
                  ) -> dict[str, tuple[SeenFile, Recipe]]:
    """A package.json's scripts with the manager the session's record names
    (``package_manager``) in place of ``SOME_MANAGER``; left in place when it names none."""
    if not any(recipe.invocation.startswith(SOME_MANAGER) for _, recipe in current.values()):
        return current
    manager = manager_of(view, (look.text for look in looks))
    if manager is None:
        return current
    return {key: (look, replace(recipe, invocation=recipe.invocation.replace(
                SOME_MANAGER, manager, 1)) if recipe.invocation.startswith(SOME_MANAGER)
                  else recipe) for key, (look, recipe) in current.items()}


def _placed(recipe: Recipe, same: Recipe | None, before: list[Recipe], look: SeenFile) -> bool:
    """A package.json entry a fragment showed outside any object it named counts as a script
    only when the file as known before says so: a script of that name was there, or the edit
    replaced text around the lines of a known script (it sits in ``"scripts"``). Else it may
    be a key of a tool's configuration (``"jest": {"testEnvironment": "node"}``)."""
    if recipe.placed:
        return True
    if same is not None and same.placed:
        return True
    return look.how == "edit" and any(
        known.placed and known.source == recipe.source and known.quote
        and known.quote in look.replaced for known in before)


def _unchanged_line(recipe: Recipe, replaced: str) -> bool:
    """An edit's recipe every command of which was there before the edit: context, not a
    change (a step that gained a second command was changed)."""
    return bool(replaced) and all(part.strip() in replaced for part in recipe.runs.split("; "))


def _fact(cited: str, chosen: list[tuple[SeenFile, Recipe]],
          trust: str) -> dict[str, Any]:
    """"`just check` runs `cargo llvm-cov …`; `just test` runs `cargo test`", the file as
    its subject (it also says where the commands are run from)."""
    said = "; ".join(f"{_invoked(recipe)} runs `{recipe.runs}`" for _, recipe in chosen)
    evidence = [file_evidence(cited, recipe.quote) for _, recipe in chosen][:3]
    return candidate("recipes", cited, "x/runs", said, evidence=evidence,
                     trust=trust,
                     object_kind="literal", subject_type="file",
                     at=min((look.call.timestamp for look, _ in chosen
                          if look.call.timestamp is not None), default=None))


def _invoked(recipe: Recipe) -> str:
    """How a recipe is typed, quoted; a script whose manager the record never named is told
    by its name alone ("script `test`"): ``npm run test`` would be a guess."""
    if recipe.invocation.startswith(SOME_MANAGER):
        return f"script `{recipe.name}`"
    return f"`{recipe.invocation}`"


_TOLD = re.compile(r"`([^`]+)` runs `")


def one_fact_per_command(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``candidates`` without a tested-by or built-with that names a recipe a recipes fact of
    the same session already tells (``bun run typecheck`` beside "`bun run typecheck` runs
    `turbo run typecheck`"): one command, one fact, the one that says what it runs; nor one
    whose form a lesson shows failing (``failing_forms``) when no run it cites is that form
    without a setting (``only_with_settings``): the lesson tells the one that works."""
    told = {invocation for found in candidates if found["rule"] == "recipes"
            for invocation in _TOLD.findall(found["object"])}
    failing = failing_forms(candidates)
    return [found for found in candidates
            if not (found["rule"] == "tooling"
                    and found["predicate"] in ("core/tested-by", "core/built-with")
                    and (found["object"] in told
                         or (found["object"] in failing and only_with_settings(found))))]


_CITED_RUN = re.compile(r"^transcript#L\d+: (.*)$", re.S)
_SEGMENT = re.compile(r"&&|\|\||[;|\n]")
_LEADING_SETTING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*\s")


def only_with_settings(found: dict[str, Any]) -> bool:
    """Every run a fact cites carried a ``NAME=value`` setting in front of a command (pure): a
    form keeps no setting, so the plain form it tells was never seen passing."""
    runs = [match[1] for item in found.get("evidence") or ()
            if (match := _CITED_RUN.match(str(item)))]
    return bool(runs) and all(any(_LEADING_SETTING.match(part.strip() + " ")
                                  for part in _SEGMENT.split(run)) for run in runs)


#: A lesson of another form: "`pytest -q` fails: E; `PYTHONPATH=. pytest -q` works".
_FORM_LESSON = re.compile(r"^`(?P<failed>[^`]+)` fails\b.*; `(?P<works>[^`]+)` works$", re.S)


def failing_forms(candidates: list[dict[str, Any]]) -> set[str]:
    """The command forms (``tooling.command_form``) a lesson of the same capture shows
    failing where another form of the command worked: "`pytest -q` fails: No module named
    'acme'; `PYTHONPATH=. pytest -q` works" makes ``pytest`` no way to test the project, though
    the runs behind it passed with the setting (a form keeps no setting); the lesson says
    the form that works. A lesson whose two forms are one (the code was fixed) says nothing
    against the form."""
    forms = set()
    for found in candidates:
        lesson = _FORM_LESSON.match(str(found["object"])) \
            if found["predicate"] == "core/failure-mode" else None
        if lesson is None or lesson["failed"].strip() == lesson["works"].strip():
            continue
        runs = invocations(lesson["failed"])
        if runs:
            forms.add(command_form(runs[-1].argv))
    return forms
