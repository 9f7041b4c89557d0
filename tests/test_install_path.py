"""After ./install.sh, `claimgraph` runs by name, as the README, the demo and every hint say.

Runs the real script against the virtual environment running these tests (its install stamp
must be current, so nothing is reinstalled), with HOME, PATH and the store in temp dirs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture(autouse=True)
def current_venv() -> None:
    stamp = VENV / ".claimgraph-install"
    want = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().split()[::2] != ["dev", want]:  # mode, hash
        pytest.skip(f"{VENV} was not set up by this checkout's install.sh; running it here "
                    "would reinstall the package")


def install_sh(home: Path, path: str, *flags: str) -> str:
    env = {**os.environ, "HOME": str(home), "PATH": path}
    env.pop("XDG_BIN_HOME", None)
    done = subprocess.run(["bash", str(REPO / "install.sh"), "--venv", str(VENV), "--no-hooks",
                           *flags], env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done.stdout


def by_name(home: Path, shell_line: str = "") -> subprocess.CompletedProcess:
    """``claimgraph --version`` typed in a fresh shell (after ``shell_line``, if any)."""
    env = {**os.environ, "HOME": str(home), "PATH": BASE_PATH}
    return subprocess.run(["bash", "-c", f"{shell_line}\nclaimgraph --version"], env=env,
                          capture_output=True, text=True, timeout=60)


def test_with_local_bin_on_path_claimgraph_runs_by_name_and_install_says_so(isolated_home):
    bin_dir = isolated_home / ".local" / "bin"
    out = install_sh(isolated_home, f"{bin_dir}:{BASE_PATH}")
    assert f"linked {bin_dir / 'claimgraph'} -> {VENV / 'bin' / 'claimgraph'}" in out
    assert "done. Try: claimgraph --help" in out
    done = by_name(isolated_home, f'export PATH="{bin_dir}:$PATH"')
    assert done.returncode == 0 and done.stdout.startswith("claimgraph "), done.stderr
    again = install_sh(isolated_home, f"{bin_dir}:{BASE_PATH}")
    assert "already set up; nothing changed" in again


def test_without_it_on_path_install_prints_the_exact_line_that_makes_it_work(isolated_home):
    assert by_name(isolated_home).returncode != 0  # not on PATH before
    out = install_sh(isolated_home, BASE_PATH)
    [line] = [entry.strip() for entry in out.splitlines()
              if entry.strip().startswith("export PATH=")]
    assert line == f'export PATH="{isolated_home}/.local/bin:$PATH"'
    done = by_name(isolated_home, line)
    assert done.returncode == 0 and done.stdout.startswith("claimgraph "), done.stderr


def test_a_foreign_claimgraph_file_is_never_replaced(isolated_home):
    bin_dir = isolated_home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "claimgraph").write_text("#!/bin/sh\necho mine\n")
    out = install_sh(isolated_home, f"{bin_dir}:{BASE_PATH}")
    assert "exists and is not a link; left as it is" in out
    assert (bin_dir / "claimgraph").read_text() == "#!/bin/sh\necho mine\n"


def test_uninstall_removes_the_link_and_no_init_makes_none(isolated_home):
    link = isolated_home / ".local" / "bin" / "claimgraph"
    install_sh(isolated_home, BASE_PATH, "--no-init")
    assert not link.exists()
    install_sh(isolated_home, BASE_PATH)
    assert link.is_symlink()
    out = install_sh(isolated_home, BASE_PATH, "--uninstall")
    assert f"removed the link {link}" in out and not link.exists()
