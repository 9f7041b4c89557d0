"""Paths recorded on another kind of machine: a Windows cwd or file path in a transcript
(docs/capture.md, "The pass, step by step", step 4). Pure logic.

A transcript's paths are the RECORDING machine's. ``C:\\Users\\me\\git\\app`` is absolute
there, but not to ``posixpath``/``os.path`` on Linux or macOS, where it reads as a relative
name and gets joined to whatever directory capture runs in. So a Windows path (a drive letter,
a UNC share, or either behind the ``\\\\?\\`` long-path prefix) is turned into one POSIX form
that every path rule can work with unchanged: ``/C:/Users/me/git/app`` (drive letter upper,
backslashes as slashes, ``.``/``..`` folded) and ``//server/share/dir`` for a share. Windows
paths compare without regard to case only in the drive letter here: the rest keeps the case
the agent recorded, which is the case the same machine records every time.
"""

from __future__ import annotations

import posixpath
import re
from claimgraph.logic.lazy_regex import lazy_regex

_LONG_PREFIX = lazy_regex(r"^[\\/]{2}[?.][\\/]")  # \\?\C:\… and \\.\C:\…
_DRIVE = lazy_regex(r"^(?P<drive>[A-Za-z]):(?:[\\/](?P<rest>.*))?$", re.DOTALL)
_UNC = lazy_regex(r"^[\\/]{2}(?P<host>[^\\/]+)[\\/](?P<share>[^\\/]+)(?P<rest>(?:[\\/].*)?)$",
                  re.DOTALL)


def windows_path(path: str) -> str | None:
    """The POSIX form of an absolute Windows path (module docstring); None for anything else
    (a POSIX path, a relative one, a drive-relative ``C:file``)."""
    if not path or ("\\" not in path and ":" not in path[:3]):
        return None
    text = _LONG_PREFIX.sub("", path, count=1)
    if text.upper().startswith("UNC\\") and text is not path:
        text = "\\\\" + text[4:]
    drive = _DRIVE.match(text)
    if drive:
        rest = (drive["rest"] or "").replace("\\", "/")
        return posixpath.normpath(f"/{drive['drive'].upper()}:/{rest}")
    unc = _UNC.match(text) if text.startswith(("\\\\", "//")) and "\\" in text else None
    if unc:
        rest = unc["rest"].replace("\\", "/")
        return "/" + posixpath.normpath(f"/{unc['host']}/{unc['share']}{rest}")
    return None


_MSYS_DRIVE = lazy_regex(r"^/(?P<drive>[A-Za-z])(?P<rest>/.*)?$", re.DOTALL)
_WINDOWS_ROOT = lazy_regex(r"^/[A-Z]:(?:/|$)")


def beside_windows_root(path: str, root: str) -> str:
    """``path`` in the POSIX form of a Windows drive when the session's ``root`` is on one and
    ``path`` is written as Git Bash (MSYS) writes drives: ``/c/Users/me/app`` is
    ``C:\\Users\\me\\app`` there. Only beside a Windows root: on any other machine ``/c/...`` is
    an ordinary folder."""
    found = _MSYS_DRIVE.match(path) if _WINDOWS_ROOT.match(root) else None
    if not found:
        return path
    return posixpath.normpath(f"/{found['drive'].upper()}:/{(found['rest'] or '/')[1:]}")


def as_posix(path: str) -> str:
    """``path`` in the POSIX form when it is a Windows path, else unchanged."""
    return windows_path(path) or path


def display_id(posix: str) -> str:
    """The project id of a Windows directory (no remote known): ``C:/Users/me/git/app``, or
    ``//server/share/dir`` -- the recording machine's path, written with forward slashes."""
    return posix[1:] if re.match(r"^/[A-Z]:(?:/|$)", posix) else posix
