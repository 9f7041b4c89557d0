"""What a read command loads on its way to an answer (issue 13: a read command within 5x, and
``--version`` within 2x, a bare ``python -c pass``).

A real process under ``python -X importtime`` lists every module the command imported; the
interpreter's own start-up (``-c "import runpy"``, which ``-m`` runs through) is subtracted.
The lists below name what a read never needs: the write path, the lease and its libraries,
the logging stack, the daemon, capture, and standard modules that cost milliseconds each.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Never loaded by `facts`, `search` or `status` (their own group aside).
NOT_ON_A_READ = {
    "filelock", "psutil", "structlog", "asyncio", "logging", "decimal",
    "dataclasses", "inspect", "tomllib", "difflib", "shutil", "tempfile", "secrets", "socket",
    "threading", "hashlib", "_hashlib", "random", "bz2", "lzma", "subprocess", "typing",
    "ipaddress", "gettext", "locale", "urllib.parse", "datetime", "ntpath",
    "claimgraph.cli.examples",
    "claimgraph.core.writes", "claimgraph.core.writer", "claimgraph.core.ingest",
    "claimgraph.store.memory", "claimgraph.cli.memory", "claimgraph.curator",
    "claimgraph.daemon.settings",
}
#: Also never loaded by `facts` and `search` (`status` reports on these).
NOT_ON_A_QUERY = {"claimgraph.lease", "claimgraph.logs", "claimgraph.capture",
                  "claimgraph.daemon", "claimgraph.hooks", "claimgraph.logic.facts",
                  "claimgraph.core.neighbor", "claimgraph.logic.conflicts",
                  "claimgraph.logic.requested"}
#: Search's own, never loaded by `facts` (issue 29: a read within 4x `python -c pass`).
SEARCH_ONLY = {"claimgraph.logic.query_dates", "claimgraph.logic.query_words"}
#: A named entity's reads and the command-line values of `neighbor` and `conflicts`, never
#: loaded by `search` (issue 29).
NOT_ON_A_SEARCH = {"claimgraph.core.entities", "claimgraph.core.vocabulary",
                   "claimgraph.logic.predicates", "claimgraph.cli.values"}
#: Everything `--version` may load beyond the interpreter: the package, the entry point and
#: the umask guard; not argparse, typing or pathlib.
VERSION_ONLY = {"claimgraph", "claimgraph.__main__", "claimgraph.cli", "claimgraph.cli.main",
                "claimgraph.private", "__future__"}


def imported(argv: list[str], cwd: Path) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ), cwd=cwd,
                          stdin=subprocess.DEVNULL)
    # `status` exits 1 when something needs attention (here: no hooks installed)
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and "[us]" not in line}


def loaded_by(argv: list[str], cwd: Path) -> set[str]:
    """The modules ``claimgraph ARGV`` imports beyond the interpreter's start-up."""
    return imported(["-m", "claimgraph", *argv], cwd) - imported(["-c", "import runpy"], cwd)


#: The installed console script: ``re``, then the entry point (no ``runpy``, which ``-m`` runs
#: through and which loads ``importlib`` itself).
SCRIPT = "import re, sys; from claimgraph.cli.main import main; sys.exit(main())"


def loaded_by_script(argv: list[str], cwd: Path) -> set[str]:
    """The modules the installed ``claimgraph ARGV`` imports beyond a bare interpreter."""
    return imported(["-c", SCRIPT, *argv], cwd) - imported(["-c", "pass"], cwd)


def heavy(loaded: set[str], names: set[str]) -> set[str]:
    return {m for m in loaded if m in names or any(m.startswith(n + ".") for n in names)}


@pytest.fixture
def store(ok) -> None:
    ok("assert", "billing", "depends-on", "stripe")
    ok("assert", "billing", "tested-by", "pytest")


@pytest.mark.parametrize("argv", [["facts", "billing"], ["search", "stripe"], ["facts"]])
def test_a_query_loads_neither_the_write_path_nor_heavy_libraries(store, project_dir, argv):
    loaded = loaded_by(argv, project_dir)
    assert "claimgraph.store.sqlite" in loaded, "the probe did not read the store"
    assert heavy(loaded, NOT_ON_A_READ | NOT_ON_A_QUERY) == set()


@pytest.mark.parametrize("argv", [["facts", "billing"], ["search", "stripe"], ["status"]])
def test_a_read_loads_no_importlib_nor_warnings(store, project_dir, argv):
    """The deferred modules' specs come from ``sys.meta_path`` and a command's group loads
    through ``__import__`` (claimgraph.deferred, cli.commands): ``importlib`` and
    ``importlib.util`` are ~1 ms of a read's start that it never needs (issue 29). Nor
    ``warnings``, which argparse imports for two deprecated calls we never make (a stand-in,
    ``deferred.defer``). The installed script's way in: ``-m`` loads both through ``runpy``."""
    loaded = loaded_by_script(argv, project_dir)
    assert "claimgraph.store.sqlite" in loaded, "the probe did not read the store"
    assert heavy(loaded, {"importlib", "warnings"}) == set()


#: Standard modules a read never uses, by command, checked through the installed script (``-m``
#: loads contextlib itself, through runpy): contextlib's ~20 classes (the blocks a read enters
#: are classes; claimgraph.deferred.defer_contextlib), math and heapq (shared libraries here).
#: A search without flags is read without argparse and the parser (``cli.main.plain_search``).
NOT_LOADED_BY = {"facts": {"contextlib", "math", "heapq"},
                 "search": {"contextlib", "math", "heapq", "argparse", "claimgraph.cli.parser"},
                 "status": {"contextlib", "math"}}


@pytest.mark.parametrize("argv", [["facts", "billing"], ["search", "stripe"], ["status"]])
def test_a_read_loads_no_contextlib_and_no_module_it_never_calls(store, project_dir, argv):
    loaded = loaded_by_script(argv, project_dir)
    assert "claimgraph.store.sqlite" in loaded, "the probe did not read the store"
    assert "claimgraph.guard" in loaded or argv[0] == "status", "the probe logged no read"
    assert heavy(loaded, NOT_LOADED_BY[argv[0]]) == set()


def test_search_loads_none_of_the_named_entity_reads(store, project_dir):
    loaded = loaded_by(["search", "stripe"], project_dir)
    assert "claimgraph.logic.query_words" in loaded, "the probe did not search"
    assert heavy(loaded, NOT_ON_A_SEARCH) == set()


def test_facts_loads_none_of_search_s_own_modules(store, project_dir):
    loaded = loaded_by(["facts", "billing"], project_dir)
    assert "claimgraph.core.reads" in loaded, "the probe did not read"
    assert heavy(loaded, SEARCH_ONLY) == set()


def test_a_help_still_ends_with_its_examples(project_dir):
    """The examples load for a help only; the help still shows them."""
    done = subprocess.run([sys.executable, "-m", "claimgraph", "search", "--help"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ),
                          cwd=project_dir, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "\nexamples:\n  claimgraph search " in done.stdout


def test_status_loads_no_heavy_library(store, project_dir):
    loaded = loaded_by(["status"], project_dir)
    assert "claimgraph.health.status" in loaded, "the probe did not run status"
    assert heavy(loaded, NOT_ON_A_READ) == set()


def test_a_read_outside_git_starts_no_git(store, project_dir):
    """No ``.git`` above the directory: its project is its path, with no git process (and
    no ``subprocess`` import) to learn that."""
    assert "subprocess" not in loaded_by(["facts", "billing"], project_dir)


def test_a_read_in_a_git_repository_starts_no_git(store, project_dir, ok):
    """An ordinary repository names its project from its own files (project_files): no git
    process, no ``subprocess``, and the same project as git names."""
    subprocess.run(["git", "init", "-q", str(project_dir)], check=True)
    subprocess.run(["git", "-C", str(project_dir), "remote", "add", "origin",
                    "git@github.com:org/read-probe.git"], check=True)
    ok("assert", "probe", "depends-on", "stripe")
    loaded = loaded_by(["facts", "probe", "--scope", "github.com/org/read-probe"], project_dir)
    assert "claimgraph.store.sqlite" in loaded, "the probe did not read the store"
    assert "subprocess" not in loaded
    assert "probe depends-on stripe" in ok("facts", "probe").out


def test_version_loads_only_the_entry_point(project_dir):
    assert loaded_by(["--version"], project_dir) <= VERSION_ONLY


def test_a_capture_loads_neither_asyncio_nor_ssl(project_dir):
    """structlog imports asyncio, which imports ssl and its C library (~3.5 MB of a capture's
    memory, issue 29); the capture command defers it (claimgraph.deferred) and never uses it."""
    fixture = (Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" /
               "claude-code" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
    loaded = loaded_by(["capture", str(fixture), "--no-curate"], project_dir)
    assert "claimgraph.capture.run" in loaded and "structlog" in loaded, "the probe did not run"
    assert heavy(loaded, {"asyncio", "ssl", "_ssl"}) == set()


def test_a_tie_between_search_hits_loads_no_openssl():
    """A tie is broken on a BLAKE2 hash of the facts' texts: CPython's built-in ``_blake2``,
    the very function ``hashlib.blake2b`` is, without ``hashlib``'s OpenSSL (~4 ms)."""
    probe = ("import sys, hashlib as h; from claimgraph.logic.retrieval import text_hash as t;"
             "print(t('a\\x1fb\\udc80') == int.from_bytes(h.blake2b('a\\x1fb\\udc80'.encode("
             "'utf-8', 'surrogatepass'), digest_size=8).digest(), 'big'))")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                           "import sys; from claimgraph.logic.retrieval import text_hash;"
                           "text_hash('x'); print('_hashlib' in sys.modules)"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.stdout.strip() == "False", done.stderr[-2000:]
    same = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ))
    assert same.stdout.strip() == "True", same.stderr[-2000:]


def test_the_mcp_server_defers_ipaddress(project_dir):
    """``urllib.parse`` imports ``ipaddress`` for bracketed URL hosts: the server's entry
    point defers it (claimgraph.deferred), and a first use still finds the real module."""
    probe = ("import runpy, sys; sys.argv = ['claimgraph.mcp', '--help'];\n"
             "try: runpy.run_module('claimgraph.mcp', run_name='__main__')\n"
             "except SystemExit: pass\n"
             "m = sys.modules['ipaddress']; print(type(m).__name__, 'IPv4Address' in vars(m));"
             "import urllib.parse as u; print(u.urlsplit('http://[::1]:80/').hostname,"
             " type(sys.modules['ipaddress']).__name__)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ), cwd=project_dir,
                          stdin=subprocess.DEVNULL)
    assert done.stdout.splitlines()[-2:] == ["_StandIn False", "::1 module"], done.stderr[-2000:]
