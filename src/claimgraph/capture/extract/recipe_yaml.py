"""YAML-shaped recipes: GitHub Actions ``run:`` steps, pre-commit hooks, Taskfile tasks.

No YAML library is a dependency, and these files are read as fragments as often as whole, so
a small line reader is used instead: each line is an indentation, an optional ``- `` list
marker, and a ``key: value`` pair or a bare item; block scalars (``run: |``) take the more
indented lines that follow. Anchors, flow mappings and multi-document streams are not
understood; the shapes these three formats use in practice are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.recipe_common import (
    Recipe, recipe, role_of_commands, role_of_name)

_ITEM = lazy_regex(r"^(-\s+)?(?:(\"[^\"]*\"|'[^']*'|[^\s#\"'\-][^:#]*?|-[^\s:#][^:#]*?)\s*:"
                   r"(?:\s+(.*))?|(.*))$")
_BLOCK_SCALAR = lazy_regex(r"^[|>][+-]?[0-9]?\s*(?:#.*)?$")


@dataclass(slots=True)
class YamlLine:
    column: int  # where the key (or bare item) starts, after any "- "
    dash: bool
    key: str | None
    value: str  # scalar text, unquoted; "" for a nested mapping or a block scalar
    body: tuple[str, ...]  # a block scalar's (| or >) stripped non-blank lines
    text: str  # the stripped source line, for quotes

    @property
    def block(self) -> bool:
        return bool(self.body)


def yaml_lines(text: str) -> Iterator[YamlLine]:
    """Each non-blank, non-comment line as a YamlLine; a block scalar's lines are its
    ``body``, not lines of their own."""
    lines, index = text.splitlines(), 0
    while index < len(lines):
        raw, index = lines[index], index + 1
        text_ = raw.strip()
        found = _ITEM.match(text_) if text_ and not text_.startswith("#") else None
        if not found:
            continue
        dash, key, value, bare = found.groups()
        raw_value = (value if key is not None else bare) or ""
        indent = len(raw) - len(raw.lstrip())
        column = indent + (len(dash) if dash else 0)
        body: list[str] = []
        if _BLOCK_SCALAR.match(raw_value):
            parent = indent if key is None else column  # content must be indented past it
            while index < len(lines) and (not lines[index].strip() or
                                          len(lines[index]) - len(lines[index].lstrip()) > parent):
                body.extend([lines[index].strip()] if lines[index].strip() else [])
                index += 1
        yield YamlLine(column, bool(dash), _unquote(key) if key else None,
                       "" if _BLOCK_SCALAR.match(raw_value) else scalar(raw_value),
                       tuple(body), text_)


def scalar(value: str) -> str:
    """A plain or quoted scalar's text, a trailing comment removed."""
    value = value.strip()
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        return _unquote(value[:end + 1]) if end > 0 else value
    return re.split(r"\s+#", value, maxsplit=1)[0].strip()


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace("''", "'") if text[0] == "'" else text[1:-1]
    return text


def parse_workflow(file_name: str, text: str) -> Iterator[Recipe | None]:
    """Each ``run:`` step, named by its step name (else its job), invoked as "CI <file> job <job>".

    The role comes from the step's name or its commands, never from the job's name: a job
    called "test" also installs dependencies.
    """
    jobs, job_column, job, step = False, None, None, None
    for line in yaml_lines(text):
        if line.column == 0 and not line.dash:
            jobs, job_column, job, step = line.key == "jobs", None, None, None
            continue
        if jobs and not line.dash and line.key and job_column in (None, line.column):
            job_column, job, step = line.column, line.key, None
            continue
        if line.dash:
            step = None
        if line.key == "name":
            step = line.value
        if line.key == "run" and (line.value or line.block):
            commands = [c for c in (line.body or (line.value,)) if not c.startswith("#")]
            if commands:
                role = role_of_name(step or "") or role_of_commands("; ".join(commands))
                invocation = f"CI {file_name}" + (f" job {job}" if job else "")
                yield recipe(step or job or "run", invocation, commands,
                             commands[0] if line.block else line.text, "github-actions",
                             role=role)


def parse_precommit(text: str) -> Iterator[Recipe | None]:
    """Each hook id with the repo (and rev) it comes from, or its ``entry`` for local hooks."""
    repo, rev, hook = "", "", None
    for line in yaml_lines(text):
        if line.key in ("repo", "id") and hook:
            yield _hook(hook)
            hook = None
        if line.key == "repo":
            repo, rev = line.value, ""
        elif line.key == "rev":
            rev = line.value
        elif line.key == "id":
            hook = {"id": line.value, "quote": line.text, "repo": repo, "rev": rev}
        elif hook and line.key in ("entry", "args") and line.value:
            hook[line.key] = line.value
    if hook:
        yield _hook(hook)


def _hook(hook: dict[str, str]) -> Recipe | None:
    args = " ".join(scalar(a) for a in hook.get("args", "").strip("[]").split(",") if a.strip())
    command = " ".join(filter(None, (hook.get("entry") or hook["id"], args)))
    origin = _GITHUB.sub("", hook["repo"])
    if origin and origin not in ("local", "meta"):
        command += f" (from {origin}" + (f" {hook['rev']})" if hook["rev"] else ")")
    return recipe(hook["id"], f"pre-commit run {hook['id']}", [command], hook["quote"],
                  "pre-commit")


_TASKS_KEY = lazy_regex(r"^tasks:\s*$", re.M)
_GITHUB = lazy_regex(r"^https?://(www\.)?github\.com/")


def parse_taskfile(text: str) -> Iterator[Recipe | None]:
    """Tasks under ``tasks:`` with their ``cmds`` (strings, ``cmd:``, ``task:`` calls, blocks).

    A fragment without the ``tasks:`` line is read as if its least indented keys were tasks.
    """
    inside = fragment = not _TASKS_KEY.search(text)
    task_column, name, commands = None, None, []
    for line in yaml_lines(text):
        starts_task = inside and not line.dash and line.key and task_column in (None, line.column)
        leaves = line.column == 0 and not line.dash and not fragment
        if name and (starts_task or leaves):
            yield _task(name, commands)
            name = None
        if leaves:
            inside, task_column = line.key == "tasks", None
        elif starts_task:
            task_column, name = line.column, line.key
            commands = [(line.value, line.text)] if line.value else []
        elif inside and name is not None and line.column > (task_column or 0):
            commands.extend(_task_commands(line))
    if name:
        yield _task(name, commands)


def _task_commands(line: YamlLine) -> list[tuple[str, str]]:
    """(command, quote) pairs one Taskfile line contributes."""
    is_command = line.key == "cmd" or (line.dash and line.key is None)
    if is_command and line.block:
        return [("; ".join(line.body), line.body[0])]
    if is_command and line.value:
        return [(line.value, line.text)]
    if line.key == "task" and line.value:
        return [(f"task {line.value}", line.text)]
    return []


def _task(name: str, commands: list[tuple[str, str]]) -> Recipe | None:
    if not commands:
        return None
    return recipe(name, f"task {name}", [c for c, _ in commands], commands[0][1], "taskfile")
