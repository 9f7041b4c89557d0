"""``claimgraph.deferred``: a deferred module is loaded on first use, and is then the real one
for whoever imported the stand-in and for every later import. Each case runs in a fresh
interpreter: a test process has asyncio loaded already (pytest's plugins)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def run_fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_an_import_does_not_load_a_deferred_module():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        assert defer("asyncio")
        import structlog, asyncio
        structlog.get_logger("probe")
        print(sorted(m for m in sys.modules if m.startswith(("asyncio.", "ssl", "_ssl"))))
    """)
    assert out.strip() == "[]"


def test_the_first_use_loads_the_real_module_for_everyone():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        defer("asyncio")
        import asyncio as early
        async def answer():
            return 42
        print(early.run(answer()))
        import asyncio
        print(sys.modules["asyncio"] is asyncio, type(asyncio).__name__, "ssl" in sys.modules)
        print(early.Future is asyncio.Future, early.run is asyncio.run)
        from asyncio import tasks
        import asyncio.events
        print(tasks is asyncio.tasks, asyncio.events.get_event_loop_policy() is not None)
    """)
    assert out.split("\n")[:4] == ["42", "True module True", "True True", "True True"]


def test_a_submodule_import_loads_the_real_package_first():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        defer("asyncio")
        import asyncio.events
        print(type(sys.modules["asyncio"]).__name__, asyncio.events.__name__)
    """)
    assert out.split() == ["module", "asyncio.events"]


def test_nothing_is_deferred_once_loaded_or_when_missing():
    out = run_fresh("""
        import json, sys
        from claimgraph.deferred import defer
        print(defer("json"), defer("no_such_module_here"), defer("os.path"))
        print(sys.modules["json"] is json, "no_such_module_here" in sys.modules)
    """)
    assert out.split() == ["False", "False", "False", "True", "False"]
