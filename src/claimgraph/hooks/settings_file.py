"""Reading and rewriting someone else's JSON settings file without ever damaging it.

The file belongs to the user and to the other tools that keep their hooks in it, so: a file that
does not parse is refused, never rewritten; the original is copied once to
``<file>.claimgraph-backup`` (only if no backup exists yet, so the copy is always the file as it
was before claimgraph first touched it); writes go through a temp file and a rename, keep the
file's mode and indentation, and follow a symlink to the real file (dotfile managers link it).
"""

from __future__ import annotations

import json
import os
from collections import namedtuple
from pathlib import Path

from claimgraph.errors import ClaimgraphError
from claimgraph.sidecar import atomic_write_text

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping

BACKUP_SUFFIX = ".claimgraph-backup"
DEFAULT_INDENT = 2


class SettingsFile(namedtuple("SettingsFile", "path data text mode")):
    """A settings file as read: its parsed object, its text (None when absent), its mode.
    (A named tuple: ``claimgraph status`` loads this module, and a read command should not
    pay for ``dataclasses``.)"""

    __slots__ = ()
    if TYPE_CHECKING:  # the fields' types, for a type checker
        path: Path
        data: dict[str, Any]
        text: str | None
        mode: int | None

    @property
    def backup_path(self) -> Path:
        return self.path.with_name(self.path.name + BACKUP_SUFFIX)


def read(path: Path) -> SettingsFile:
    """The file at ``path`` (absent or whitespace-only: an empty object), or a refusal."""
    try:
        text = path.read_text(encoding="utf-8")
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return SettingsFile(path, {}, None, None)
    except (OSError, UnicodeDecodeError) as error:
        raise ClaimgraphError("settings-unreadable", f"cannot read {path}: {error}",
                              hint="check the file's permissions and encoding (UTF-8)",
                              path=str(path)) from None
    if not text.strip():
        return SettingsFile(path, {}, text, mode)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ClaimgraphError(
            "settings-not-json", f"{path} is not valid JSON ({error}), so claimgraph leaves it "
            "alone", hint="fix the file (or move it aside) and run the command again; "
            "claimgraph never rewrites a file it cannot parse", path=str(path)) from None
    if not isinstance(data, dict):
        raise refusal(path, f"its top level is a JSON {type(data).__name__}, not an object")
    return SettingsFile(path, data, text, mode)


def refusal(path: Path, why: str) -> ClaimgraphError:
    return ClaimgraphError(
        "settings-unexpected-shape", f"{path} does not have the shape claimgraph expects: {why}",
        hint="fix that part of the file by hand, or add the hooks yourself "
             "(`claimgraph install --dry-run` shows them)", path=str(path))


def render(data: dict[str, Any], like: str | None) -> str:
    """``data`` as JSON text indented like the original (``like``), with a final newline."""
    return json.dumps(data, indent=indent_of(like), ensure_ascii=False) + "\n"


def indent_of(text: str | None) -> int | str:
    """The indentation of the first indented line of ``text`` (2 spaces when there is none)."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[:len(line) - len(stripped)]
            return lead if "\t" in lead else len(lead)
    return DEFAULT_INDENT


def diff(before: SettingsFile, after_text: str) -> str:
    """A unified diff from the file as it is to ``after_text``."""
    source = str(before.path) if before.text is not None else "/dev/null"
    import difflib  # for --dry-run only
    lines = difflib.unified_diff((before.text or "").splitlines(keepends=True),
                                 after_text.splitlines(keepends=True),
                                 fromfile=source, tofile=str(before.path))
    return "".join(lines)


def back_up_once(current: SettingsFile) -> Path | None:
    """Copy the original beside it unless a backup exists (or there is no original)."""
    if current.text is None or current.backup_path.exists():
        return None
    write(current.backup_path, current.text, current.mode)
    return current.backup_path


def drop_redundant_backup(current: SettingsFile, now: Mapping[str, Any]) -> Path | None:
    """After our entries are removed, a backup that holds exactly what the file now holds
    keeps nothing the user could want back: it goes, so an uninstall leaves nothing behind.
    A backup that differs (the user changed the file since) stays."""
    backup = current.backup_path
    try:
        if not backup.exists() or read(backup).data != dict(now):
            return None
        backup.unlink()
    except (OSError, ClaimgraphError):
        return None
    return backup


def write(path: Path, text: str, mode: int | None) -> None:
    """Atomically replace the file a path names (through a symlink), keeping ``mode``."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)
    os.chmod(target, default_mode() if mode is None else mode)


def default_mode() -> int:
    """What a new file gets from ``open()``: 0o666 less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
