"""Start-up benchmarks time fresh interpreters: give them the bytecode an install has.

An install compiles every module once (pip writes ``__pycache__``), so a command's start-up
is loading bytecode, not compiling source. With ``PYTHONDONTWRITEBYTECODE`` set in the
benchmark's environment (some sandboxes and CI images set it) and a source tree never
compiled, every timed process compiled each module it imported again: on 2026-12-05 the
SessionStart hook measured 130-143 ms of CPU that way against 71-80 ms with bytecode, the read
commands 8.4-9.8x ``python -c pass`` against 3.7-4.8x. ``as_installed`` drops the variable
for this process and its children and compiles the package once, before anything is timed.
"""

from __future__ import annotations

import compileall
import os
import sys
from pathlib import Path

import claimgraph


def as_installed() -> None:
    """Children start as from an install: bytecode written, the package compiled up front."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        print("bench: PYTHONDONTWRITEBYTECODE dropped (start-up is timed as installed)",
              file=sys.stderr)
    sys.dont_write_bytecode = False
    compileall.compile_dir(Path(claimgraph.__file__).parent, quiet=1)


def compiled_tree(src: str) -> str:
    """Another checkout's ``src`` made absolute and compiled, as an install would have it (the
    same-run baseline a benchmark times beside this tree)."""
    root = Path(src).resolve()
    compileall.compile_dir(root / "claimgraph", quiet=1)
    return str(root)
