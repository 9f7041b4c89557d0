"""The backstop daemon (DESIGN §8): sweep, periodic curation, log rotation, a status file.

The hooks are the path; the daemon only catches what they missed (a SessionEnd that never
fired, a capture that died, a spool file left behind), so claimgraph works fully without it.

Its knobs are not config-file settings (the daemon is optional plumbing, not behaviour): the
defaults below are ``daemon.settings``' constants, each overridable by an environment variable
``CLAIMGRAPH_DAEMON_<NAME>`` (upper case), for example ``CLAIMGRAPH_DAEMON_IDLE_MINUTES=0``:

=====================  =========  ===============================================================
name                   default    meaning
=====================  =========  ===============================================================
sweep_seconds          300        how often the sweep looks for uncaptured sessions
curate_seconds         3600       how often the curator is started (it stands aside if running)
rotate_seconds         60         how often sidecar logs are checked for size
heartbeat_seconds      30         how often the status file is refreshed
idle_minutes           10         a transcript untouched this long is a session that ended
spool_age_seconds      60         a spool file this old was not consumed by its hook's capture
capture_timeout_secs   600        a capture child running longer is killed (its tree too)
log_max_bytes          10485760   a sidecar log this large is rotated
log_keep               5          rotated generations kept (``<log>.1`` … ``<log>.N``)
=====================  =========  ===============================================================
"""

from __future__ import annotations

import os
from pathlib import Path


def status_path(db: Path | str) -> Path:
    """``<db>.daemon.status``: the heartbeat file ``daemon status`` reads."""
    return Path(f"{os.fspath(db)}.daemon.status")


def pid_path(db: Path | str) -> Path:
    """``<db>.daemon.pid``: the singleton's pid file (same name as ``Sidecars.daemon_pid``)."""
    return Path(f"{os.fspath(db)}.daemon.pid")
