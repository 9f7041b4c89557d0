"""A read command's process ends without the interpreter's teardown (``cli.main.quick_exit``,
issue 29), and still owes what any exit owes: the whole output, the exit handlers, the code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claimgraph.cli.main import QUICK_EXIT

#: ``claimgraph ARGV`` from the entry point, with an exit handler registered first and a
#: thread that an interpreter's teardown waits for (it joins every non-daemon thread) and an
#: immediate end does not.
PROBE = """
import atexit, os, sys, threading, time
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
threading.Thread(target=lambda: time.sleep(1) or os.write(2, b"torn down\\n")).start()
sys.argv = ["claimgraph", *sys.argv[1:]]
from claimgraph.cli.main import main
sys.exit(main())
"""


def probe(argv: list[str], cwd: Path, stdout: Any = subprocess.PIPE
          ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PROBE, *argv], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, timeout=60, env=dict(os.environ),
                          cwd=cwd, stdin=subprocess.DEVNULL)


FACTS = 1500  # ~120 KB of lines: more than a pipe holds, so `| head -1` breaks it


@pytest.fixture
def facts(ok, project_dir) -> None:
    from claimgraph.core import Shell
    from claimgraph.core.ingest import ingest
    from claimgraph.opening import open_store
    ok("assert", "billing", "depends-on", "lib-0")  # the store, its vocabulary, the scope
    store = open_store(os.environ["CLAIMGRAPH_DB"])
    try:
        ingest(Shell(store), [{"subject": "billing", "predicate": "depends-on",
                               "object": f"lib-{n}", "scope": str(project_dir)}
                              for n in range(1, FACTS)])
    finally:
        store.close()


def test_a_read_ends_without_teardown_and_keeps_its_output(facts, project_dir, tmp_path):
    out = tmp_path / "out.txt"
    with out.open("w") as target:  # a file: the output is buffered until the exit flushes it
        done = probe(["facts", "billing", "--limit", str(FACTS)], project_dir, stdout=target)
    assert done.returncode == 0, done.stderr
    assert "exit handler ran" in done.stderr and "torn down" not in done.stderr
    assert len(out.read_text().splitlines()) == FACTS


def test_a_read_that_fails_keeps_its_exit_code(facts, project_dir):
    done = probe(["facts", "no-such-entity"], project_dir)
    assert done.returncode == 1 and "no entity named" in done.stderr
    assert "exit handler ran" in done.stderr and "torn down" not in done.stderr


def test_a_write_still_ends_as_before(project_dir):
    """Only the commands in QUICK_EXIT end early: a write tears down as always."""
    done = probe(["assert", "billing", "depends-on", "stripe"], project_dir)
    assert done.returncode == 0, done.stderr
    assert "exit handler ran" in done.stderr and "torn down" in done.stderr
    assert "assert" not in QUICK_EXIT


def test_a_reader_that_left_is_no_traceback(facts, project_dir):
    """``claimgraph facts | head -1``: the pipe closes before the exit's flush."""
    reader = subprocess.Popen([sys.executable, "-c", PROBE, "facts", "billing", "--limit",
                               str(FACTS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=dict(os.environ), cwd=project_dir, stdin=subprocess.DEVNULL)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()
    errors = reader.stderr.read().decode()
    assert reader.wait(timeout=60) in (0, 1)
    assert "Traceback" not in errors and "Exception ignored" not in errors


def test_an_ending_read_leaves_its_store_to_the_exit(facts):
    """A read about to end at once keeps its read-only store open (and referenced, so no
    collection closes it first); any other close, and a store opened for writing, closes."""
    import argparse
    import sqlite3

    from claimgraph.cli.invocation import _LEFT_TO_THE_EXIT, Invocation

    ctx = Invocation(argparse.Namespace())
    store = ctx.shell().store
    ctx.close(ending=True)
    assert ctx.shell().store is store and store.stats()["facts"]["total"] == FACTS
    ctx.close()
    _LEFT_TO_THE_EXIT.clear()
    with pytest.raises(sqlite3.ProgrammingError):
        store.stats()
    with ctx.writing() as shell:
        written = shell.store
    ctx.close(ending=True)
    with pytest.raises(sqlite3.ProgrammingError):
        written.stats()


def test_a_store_left_to_the_exit_outlives_its_invocation(facts):
    """The command's Invocation is gone before the exit: what it left open stays open."""
    import argparse
    import gc

    from claimgraph.cli import invocation

    ctx = invocation.Invocation(argparse.Namespace())
    store = ctx.shell().store
    ctx.close(ending=True)
    del ctx
    gc.collect()
    try:
        assert store.stats()["facts"]["total"] == FACTS
    finally:
        invocation._LEFT_TO_THE_EXIT.clear()
        store.close()
