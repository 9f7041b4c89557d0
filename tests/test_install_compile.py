"""install.sh byte-compiles the package, so a user with PYTHONDONTWRITEBYTECODE set does not
compile every module on every command (issue 13).

Runs the real script, from a copy of the checkout (its own src, install.sh and pyproject.toml),
against the virtual environment running these tests: the install stamp matches, so nothing
is reinstalled, and only the copy's src is compiled.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent


@pytest.fixture(autouse=True)
def current_venv() -> None:
    stamp = VENV / ".claimgraph-install"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().split()[::2] != ["dev", want]:  # mode, hash
        pytest.skip(f"{VENV} was not set up by this checkout's install.sh; running it here "
                    "would reinstall the package")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout's install.sh, pyproject.toml and src, without bytecode."""
    copy = tmp_path / "checkout"
    shutil.copytree(REPO / "src", copy / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("install.sh", "pyproject.toml"):
        shutil.copy2(REPO / name, copy / name)
    return copy


def install_sh(checkout: Path) -> str:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(["bash", str(checkout / "install.sh"), "--venv", str(VENV),
                           "--no-init"], env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def is_current(source: Path) -> bool:
    """The module's bytecode exists and is what the interpreter would accept for it: this
    Python's magic number, a timestamp pyc whose recorded mtime and size are the source's."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    if not cached.exists():
        return False
    header, info = cached.read_bytes()[:16], source.stat()
    return (header[:4] == importlib.util.MAGIC_NUMBER and header[4:8] == bytes(4)
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF)


def modules(checkout: Path) -> list[Path]:
    return sorted((checkout / "src").rglob("*.py"))


def test_install_sh_compiles_every_module_even_when_bytecode_writing_is_off(checkout):
    assert not any(is_current(m) for m in modules(checkout))
    install_sh(checkout)
    stale = [str(m.relative_to(checkout)) for m in modules(checkout) if not is_current(m)]
    assert len(modules(checkout)) > 100 and stale == []


def test_a_rerun_recompiles_only_what_changed_and_still_changes_nothing_else(checkout):
    install_sh(checkout)
    edited, untouched = checkout / "src/claimgraph/errors.py", checkout / "src/claimgraph/config.py"
    before = Path(importlib.util.cache_from_source(str(untouched))).stat().st_mtime_ns
    edited.write_text(edited.read_text() + "\n# edited\n")
    assert not is_current(edited)
    out = install_sh(checkout)
    assert "nothing changed" in out
    assert is_current(edited)
    assert Path(importlib.util.cache_from_source(str(untouched))).stat().st_mtime_ns == before
