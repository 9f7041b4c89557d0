"""Private by default: every file the store writes is 0600, every directory 0700.

The store holds transcript excerpts, so nothing of it may be world-readable, whatever the
user's umask (022 makes 0644 files) and whoever creates it (hook, capture, curator, daemon,
CLI). Two layers:
- each process narrows its umask to at least 077 when it starts (``restrict_umask``: the CLI,
  the hook, and so every child they spawn), so files made by any library (SQLite's WAL and
  SHM, lock files) are private too; the agents we run for model calls get the user's own
  umask back (``ORIGINAL_UMASK``), since what they write is theirs;
- the creation points name their modes anyway (``private_dir``, ``open_private``), so code
  used as a library stays private.
Files made before this rule are tightened when the store is opened (``tighten_store``), each
change logged. Only what is the store's own is touched: ``<db>``, ``<db>-wal``/``-shm``,
``<db>.*`` sidecars, and the directory holding them when nothing else lives there.

Standard library only: the hook imports this.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # pathlib and typing load where used: `claimgraph --version` needs neither
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO

FILE_MODE, DIR_MODE = 0o600, 0o700
_OPEN_BITS = 0o077
#: Never follow a symlink planted where a sidecar should be (docs/store.md, "Trust").
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
#: A session id (or agent name) is an id: what agents use (UUIDs, ``rollout-…`` stems), never
#: a shell fragment, a path or a line break, since it ends up in file names and log lines.
ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}"
ORIGINAL_UMASK: int | None = None
#: A store that lives in its process's memory (SQLite's name for one): it has no file, and so
#: no directory to hold sidecars beside it (``sidecar_base``).
MEMORY = ":memory:"
#: This process's directory for an in-memory store's sidecars, by the pid that made it (a
#: forked child makes its own, and never removes its parent's).
_MEMORY_SIDECARS: dict[int, str] = {}


def restrict_umask() -> int:
    """Narrow this process's umask to at least 077; returns the one it had."""
    global ORIGINAL_UMASK
    previous = os.umask(0o077)
    os.umask(previous | 0o077)
    if ORIGINAL_UMASK is None:
        ORIGINAL_UMASK = previous
    return previous


def sidecar_base(db: str | os.PathLike[str]) -> str:
    """The name ``<db>``'s sidecars are named from (``<db>.lock``, ``<db>.retrievals``, ...):
    ``db`` itself, or for an in-memory store a name in a private (0700) temporary directory of
    this process, removed when it exits. Such a store lives in this process alone, so its
    sidecars (the leases that order its writers, the logs, the evidence tier) serve no other
    one, and must not land as ``:memory:.lock`` ... in whatever directory it runs in."""
    text = os.fspath(db)
    if text != MEMORY:
        return text
    made = _MEMORY_SIDECARS.get(os.getpid())
    if made is None:
        import atexit
        import tempfile
        made = tempfile.mkdtemp(prefix="claimgraph-memory-")  # 0700, whatever the umask
        _MEMORY_SIDECARS[os.getpid()] = made
        atexit.register(_remove_memory_sidecars, os.getpid(), made)
    return os.path.join(made, "memory")


def _remove_memory_sidecars(pid: int, directory: str) -> None:
    if os.getpid() == pid:
        import shutil
        shutil.rmtree(directory, ignore_errors=True)


def private_dir(path: Path | str) -> Path:
    """``mkdir -p`` whose new directories are 0700."""
    from pathlib import Path
    target = Path(path)
    missing = [p for p in (target, *target.parents) if not p.exists()]
    target.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    for created in missing:
        _chmod(created, DIR_MODE)  # mkdir's mode is cut by the umask; parents ignore it
    return target


def open_private(path: Path | str, mode: str = "a", encoding: str | None = "utf-8") -> IO:
    """``open(path, mode)`` for appending or writing, creating the file 0600."""
    flags = os.O_WRONLY | os.O_CREAT | NOFOLLOW
    if mode.startswith("x"):
        flags |= os.O_EXCL
    flags |= os.O_APPEND if mode.startswith("a") else os.O_TRUNC
    fd = os.open(path, flags, FILE_MODE)
    mode = mode.replace("x", "w")
    binary = "b" in mode
    return os.fdopen(fd, mode, **({} if binary else {"encoding": encoding}))


def create_private_file(path: Path | str) -> None:
    """Create an empty 0600 file unless one exists (SQLite then keeps its mode for WAL/SHM)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, FILE_MODE))
    except FileExistsError:
        pass


def read_nofollow(path: Path | str, limit: int = -1) -> bytes:
    """A sidecar's bytes (at most ``limit``), refusing a symlink in its place (ELOOP)."""
    fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        return handle.read(limit)


def is_id(value: object) -> bool:
    """Whether ``value`` is an id (``ID_PATTERN``)."""
    import re
    return isinstance(value, str) and re.fullmatch(ID_PATTERN, value) is not None


def unsafe_directory(directory: Path | str, reading: bool = False) -> str | None:
    """Why a store in ``directory`` could be tampered with by another local user, or None.

    Anyone who may create files there can plant a symlink where a sidecar will be opened, or a
    spool file the next capture trusts. So the directory must belong to this user (or root)
    and be writable by nobody else: not by others, and not by its group unless that group is
    this user's own private group (the usual Debian setup). Checked before any sidecar is
    opened (docs/store.md, "Trust"). ``reading`` allows another user's directory that only
    its owner may write (a colleague's backup the user chose to read)."""
    try:
        info = os.stat(directory)
    except OSError:
        return None  # not there yet: it will be made 0700 by us
    euid = os.geteuid() if hasattr(os, "geteuid") else None
    if euid is None:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid not in (euid, 0) and not reading:
        return f"it belongs to another user (uid {info.st_uid})"
    if mode & stat.S_IWOTH:
        return f"every local user may write it (mode {oct(mode)})"
    if mode & stat.S_IWGRP and not _own_private_group(info.st_gid):
        return f"its group may write it (mode {oct(mode)}, gid {info.st_gid})"
    return None


def refuse_unsafe_directory(path: Path | str, reading: bool = False) -> None:
    """A store whose directory another local user may write is refused, reads included: they
    could plant a symlink where a sidecar is opened, a spool file, or the store's content
    itself (docs/store.md, "Trust")."""
    from pathlib import Path
    from claimgraph.errors import ClaimgraphError
    path = Path(path)
    why = unsafe_directory(path.absolute().parent, reading=reading)
    if why:
        raise ClaimgraphError(
            "store-dir-unsafe", f"refusing the store {path}: its directory "
            f"{path.absolute().parent} is not private ({why})",
            hint="keep the store in a directory only you can write: `chmod go-w DIR` if it is "
                 "yours, else move the store (--db / CLAIMGRAPH_DB) to e.g. "
                 "~/.local/share/claimgraph/claims.db", path=str(path), reason=why)


def _own_private_group(gid: int) -> bool:
    """The group is this user's primary group and has no other members."""
    try:
        import grp
        import pwd
        user = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(gid)
    except (ImportError, KeyError, OSError):
        return False
    return user.pw_gid == gid and all(member == user.pw_name for member in group.gr_mem)


def is_open_to_others(mode: int) -> bool:
    return bool(stat.S_IMODE(mode) & _OPEN_BITS)


def tighten(path: Path) -> tuple[str, str] | None:
    """Take every permission of group and others from one existing file or directory (0644
    becomes 0600, 0755 becomes 0700, a read-only 0440 becomes 0400); the old and new modes
    when it changed, None when it was private already or cannot be changed."""
    try:
        info = path.lstat()
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode) or not is_open_to_others(info.st_mode):
        return None
    # only what others may do goes: an owner's read-only file (a read-only store) stays so
    if not _chmod(path, stat.S_IMODE(info.st_mode) & ~_OPEN_BITS):
        return None
    return oct(stat.S_IMODE(info.st_mode)), oct(stat.S_IMODE(path.stat().st_mode))


def store_paths(db: Path) -> list[Path]:
    """What belongs to the store at ``db``: the file, its journals and its sidecars, the
    contents of a sidecar directory, and the directory when it holds nothing else."""
    directory = db.parent
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    ours = [directory / n for n in names if n == db.name or n.startswith((db.name + ".",
                                                                          db.name + "-"))]
    inside = [child for p in ours if p.is_dir() and not p.is_symlink() for child in _children(p)]
    alone = len(ours) == len(names) and directory != directory.home()
    return ([directory] if alone else []) + ours + inside


def tighten_store(db: Path) -> list[dict[str, str]]:
    """Tighten what ``store_paths`` names; each change, for the caller to log."""
    from pathlib import Path
    changes = []
    for path in store_paths(Path(db)):
        changed = tighten(path)
        if changed:
            changes.append({"path": str(path), "from": changed[0], "to": changed[1]})
    return changes


def _children(directory: Path) -> list[Path]:
    """A sidecar directory's entries, only when the directory itself was open (a one-time
    repair: a 0700 directory already hides its files, and the evidence tier is large)."""
    try:
        if not is_open_to_others(directory.lstat().st_mode):
            return []
        return list(directory.iterdir())
    except OSError:
        return []


def _chmod(path: Path, mode: int) -> bool:
    try:
        os.chmod(path, mode)
        return True
    except OSError:
        return False
