"""The curator (DESIGN §7): a singleton, started detached after each capture.

``run.py`` takes the curation lease (or leaves the dirty mark of ``dirty.py``) and runs the
stages of ``stages.py``, each handed a ``stage_tools.StageTools``; ``consolidate.py`` is
the consolidate stage, ``scope.py`` picks the facts a pass looks at; ``upkeep.py`` adapts the
decay and audit passes of ``core`` to the curator's fenced writes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from claimgraph.private import open_private, private_dir
from claimgraph.sidecar import Sidecars


def spawn_curator(db: Path, extra_args: Sequence[str] = (),
                  environ: Mapping[str, str] | None = None) -> int:
    """Start ``claimgraph curate`` fully detached and return its pid; never wait for it.

    New session (no signal from our terminal reaches it), stdin from /dev/null, stdout and
    stderr appended to ``<db>.curate.log``, no inherited descriptors, and ``/`` as its cwd
    (``-m`` puts the cwd first on ``sys.path``, and a project directory may vanish).
    """
    db = Path(db).absolute()
    log_path = Sidecars(db).curate_log
    private_dir(log_path.parent)
    argv = [sys.executable, "-m", "claimgraph", "curate", "--db", str(db), "--json", *extra_args]
    with open_private(log_path, "ab") as log_file:
        child = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
            start_new_session=True, close_fds=True, cwd="/",
            env=dict(os.environ if environ is None else environ))
    child.returncode = 0  # never awaited: keep Popen's finalizer from warning about it
    return child.pid
