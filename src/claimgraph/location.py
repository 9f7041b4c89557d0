"""Where a store lives: a SQLite file, or a PostgreSQL server (``postgresql://…``).

A store's sidecars (spool, logs, lease guards, evidence, version stamp) are files beside
``<db>``. A server store has no file, so its sidecars live in a local directory named after
the server and database: ``$XDG_DATA_HOME/claimgraph/servers/<host>-<db>-<hash>/claims``
stands in for ``<db>`` everywhere a path is needed, and a ``<db>.server`` file beside it
names the URL (never its password: libpq finds that in ``PGPASSWORD`` or ``~/.pgpass``).
Stdlib only: the hook resolves its spool directory through this module and must stay light.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Mapping

SCHEMES = ("postgresql://", "postgres://")
SERVER_SUFFIX = ".server"
#: The full URLs (password included) this process was given, by the base they resolve to.
_GIVEN: dict[str, str] = {}


def is_server_url(value: object) -> bool:
    return str(value).startswith(SCHEMES)


def redact_password(url: str) -> str:
    """``postgresql://user:secret@host/db`` -> ``postgresql://user@host/db``."""
    from urllib.parse import urlsplit, urlunsplit  # server stores only: file stores skip it

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}{host}{port}", parts.path, parts.query,
                       parts.fragment))


def server_sidecar_base(url: str, environ: Mapping[str, str] | None = None) -> Path:
    """The local stand-in for ``<db>`` of a server store (module docstring)."""
    import hashlib
    from urllib.parse import urlsplit

    environ = os.environ if environ is None else environ
    clean = redact_password(url)
    parts = urlsplit(clean)
    label = re.sub(r"[^A-Za-z0-9._-]+", "-",
                   f"{parts.hostname or 'local'}-{parts.path.strip('/') or 'db'}")[:60]
    digest = hashlib.sha256(clean.encode("utf-8")).hexdigest()[:12]
    data_home = environ.get("XDG_DATA_HOME") or ""
    if not os.path.isabs(data_home):
        data_home = str(Path(environ.get("HOME") or os.path.expanduser("~")) / ".local/share")
    return Path(data_home) / "claimgraph" / "servers" / f"{label}-{digest}" / "claims"


def server_url_of(base: Path | str) -> str | None:
    """The URL a sidecar base stands for, or None when ``base`` is a plain store file."""
    try:
        text = Path(f"{os.fspath(base)}{SERVER_SUFFIX}").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if is_server_url(text) else None


def remember_server(base: Path, url: str) -> None:
    """Write ``<base>.server`` (the URL without its password) unless it already says so."""
    marker = Path(f"{base}{SERVER_SUFFIX}")
    clean = redact_password(url) + "\n"
    try:
        if marker.read_text(encoding="utf-8") == clean:
            return
    except OSError:
        pass
    from claimgraph.private import FILE_MODE, NOFOLLOW, private_dir

    private_dir(base.parent)  # every directory it makes is 0700, the parents too
    scratch = marker.with_name(marker.name + ".tmp")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(clean)
    os.replace(scratch, marker)


def resolve(value: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> Path:
    """The ``<db>`` path for a store setting: the file itself, or a server's local stand-in."""
    text = os.fspath(value)
    if not is_server_url(text):
        return Path(text)
    base = server_sidecar_base(text, environ)
    remember_server(base, text)
    _GIVEN[str(base)] = text
    return base


def server_url(base: Path | str, environ: Mapping[str, str] | None = None) -> str | None:
    """The URL to connect to for ``base``: as this process was given it (with any password),
    else ``$CLAIMGRAPH_DB`` when it names the same server, else ``<base>.server``."""
    given = _GIVEN.get(os.fspath(base))
    if given:
        return given
    environ = os.environ if environ is None else environ
    from_env = environ.get("CLAIMGRAPH_DB", "")
    if is_server_url(from_env) and str(server_sidecar_base(from_env, environ)) == os.fspath(base):
        return from_env
    return server_url_of(base)
