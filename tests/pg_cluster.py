"""A private, throwaway PostgreSQL cluster for the tests: initdb in a temp dir, a unix socket,
no TCP port at all (``listen_addresses=''``), trust authentication for local connections only.

Used two ways: .ci/run starts one for the whole CI run (``python tests/pg_cluster.py start DIR``
prints the URL it exports as CLAIMGRAPH_TEST_POSTGRES; ``stop DIR`` stops it), and the test
fixture starts its own when that variable is unset and the server binaries are installed.
PostgreSQL refuses to run as root, so under root the cluster runs as the ``postgres`` user the
Debian package creates. Durability is off (fsync, synchronous_commit): the data is thrown away.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

DATABASE = "claimgraph_test"


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl (PATH first, then Debian's versioned dirs)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        return Path(candidate).parent
    return None


def _as_owner(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


#: Throwaway data: nothing is flushed to disk.
FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
#: What SQLite's WAL with synchronous=NORMAL promises (the benchmark's like-for-like): never
#: corrupt after a crash, the last commits may be lost.
LIKE_SQLITE = "-c synchronous_commit=off"


def start(root: Path, durability: str = FAST) -> str:
    """Create and start a cluster under ``root``; return the URL of its test database."""
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    root.mkdir(parents=True, exist_ok=True)
    data, socket_dir = root / "data", root / "socket"
    socket_dir.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        shutil.chown(socket_dir, "postgres", "postgres")
    _run([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
          "--no-locale", "-E", "UTF8", "--no-sync"])
    options = f"-c listen_addresses='' -k {socket_dir} {durability} -c max_connections=200"
    _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "server.log"),
          "-w", "-t", "60", "start"])
    admin = f"postgresql://postgres@/postgres?host={socket_dir}"
    _psql(bin_dir, admin, f"CREATE DATABASE {DATABASE}")
    url = f"postgresql://postgres@/{DATABASE}?host={socket_dir}"
    _psql(bin_dir, url, "CREATE EXTENSION IF NOT EXISTS pg_trgm")
    return url


def stop(root: Path) -> None:
    bin_dir = binaries()
    data = root / "data"
    if bin_dir is None or not (data / "postmaster.pid").exists():
        return
    _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])


def _psql(bin_dir: Path, url: str, sql: str) -> None:
    psql = bin_dir / "psql"
    command = str(psql) if psql.exists() else "psql"
    _run([command, url, "-v", "ON_ERROR_STOP=1", "-qc", sql], as_owner=False)


def _run(argv: list[str], as_owner: bool = True) -> None:
    done = subprocess.run(_as_owner(argv) if as_owner else argv, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:2])} failed: {done.stderr.strip() or done.stdout}")


if __name__ == "__main__":
    verb, where = sys.argv[1], Path(sys.argv[2])
    if verb == "start":
        print(start(where))
    else:
        stop(where)
