"""ruff and mypy run as part of the test suite, so the README's test command and CI run them.

Both read their settings from pyproject.toml ([tool.ruff], [tool.mypy]): which rules, which
packages mypy holds to strict. They run as the executables installed beside this interpreter
(``./install.sh --dev`` puts them there through the ``test`` extra), from the project root,
and a failure shows their whole report. Neither writes a cache into the clone.

Without the tools (someone ran pytest from an environment without the ``test`` extra) the
checks skip and say why; ``CLAIMGRAPH_REQUIRE_STATIC=1`` (set by CI) turns that skip into a
failure, so a broken install cannot pass as a clean tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def tool(name: str) -> Path:
    """The venv's ``name`` executable, or a skip (a failure in CI) that says how to get it."""
    path = BIN / name
    if path.is_file() and os.access(path, os.X_OK):
        return path
    why = (f"{name} is not installed beside {sys.executable}; `./install.sh --dev` installs it "
           "(the `test` extra)")
    if os.environ.get("CLAIMGRAPH_REQUIRE_STATIC") == "1":
        pytest.fail(f"{why}, and CLAIMGRAPH_REQUIRE_STATIC=1 says the static checks must run",
                    pytrace=False)
    pytest.skip(why)


def run(*argv: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MYPY", "RUFF"))}
    return subprocess.run([str(a) for a in argv], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=600, check=False)


def test_ruff_finds_nothing_in_src_and_tests() -> None:
    done = run(tool("ruff"), "check", "--no-cache", "src", "tests")
    assert done.returncode == 0, f"ruff check src tests:\n{done.stdout}{done.stderr}"


def test_mypy_finds_nothing_in_the_packages_pyproject_names() -> None:
    # /dev/null as the cache directory is mypy's documented way to write no cache.
    done = run(tool("mypy"), "--cache-dir", os.devnull)
    assert done.returncode == 0, f"mypy:\n{done.stdout}{done.stderr}"
    assert "Success" in done.stdout, done.stdout


def test_ruff_applies_the_projects_rules() -> None:
    """The clean run above means something: the same settings flag a seeded defect."""
    source = ("import os\n\n" + "x = " + "1" * 95 + "\n" + "y = " + "2" * 97 + "\n")
    done = run(tool("ruff"), "check", "--no-cache", "--output-format", "concise",
               "--stdin-filename", "src/claimgraph/seeded.py", "-", stdin=source)
    codes = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("src/")}
    assert codes == {"F401", "E501"}, done.stdout  # the 101-character line, not the 99
    assert done.stdout.count("E501") == 1, done.stdout


def test_mypy_is_strict(tmp_path: Path) -> None:
    seeded = tmp_path / "seeded.py"  # a target on the command line stands in for `files`
    seeded.write_text("def f(x): return x\n", encoding="utf-8")
    done = run(tool("mypy"), "--cache-dir", os.devnull, seeded)
    assert done.returncode == 1 and "no-untyped-def" in done.stdout, done.stdout


def test_the_checks_read_the_projects_settings() -> None:
    """A renamed section or a dropped key would make the checks above pass vacuously."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert settings["ruff"]["line-length"] == 100
    assert {"E", "F", "W"} <= set(settings["ruff"]["lint"]["select"])
    assert settings["mypy"]["strict"] is True
    strict = {f"src/claimgraph/{package}" for package in (
        "logic", "store", "core", "hooks", "curator", "daemon", "health", "oplog", "mcp", "cli",
        "viewer", "logsetup.py", "opening.py")}
    assert strict <= set(settings["mypy"]["files"]), strict - set(settings["mypy"]["files"])
    assert all((ROOT / f).exists() for f in settings["mypy"]["files"])
