"""The daemon's knobs as one frozen value (the table in ``claimgraph.daemon``'s docstring),
read from ``CLAIMGRAPH_DAEMON_<NAME>`` variables.

A module of its own, imported only where the knobs are read: ``claimgraph status`` reads the
daemon's pid and status files through ``claimgraph.daemon``, and this dataclass would bring
``dataclasses`` and ``inspect`` into that read command's start-up."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from claimgraph.errors import ClaimgraphError

ENV_PREFIX = "CLAIMGRAPH_DAEMON_"
#: One line per knob, for ``daemon --help`` (the table in ``claimgraph.daemon`` says the same).
SETTING_HELP = {
    "sweep_seconds": "how often the sweep looks for uncaptured sessions",
    "curate_seconds": "how often the curator is started (it stands aside if running)",
    "rotate_seconds": "how often sidecar logs are checked for size",
    "heartbeat_seconds": "how often the status file is refreshed",
    "idle_minutes": "a transcript untouched this long is a session that ended",
    "spool_age_seconds": "a spool file this old was missed by its hook's capture",
    "capture_timeout_secs": "a capture child running longer is killed (its tree too)",
    "log_max_bytes": "a sidecar log this large is rotated",
    "log_keep": "rotated generations kept (<log>.1 ... <log>.N)",
}


@dataclasses.dataclass(frozen=True)
class DaemonSettings:
    sweep_seconds: float = 300
    curate_seconds: float = 3600
    rotate_seconds: float = 60
    heartbeat_seconds: float = 30
    idle_minutes: float = 10
    spool_age_seconds: float = 60
    capture_timeout_secs: float = 600
    log_max_bytes: int = 10 * 1024 * 1024
    log_keep: int = 5

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> DaemonSettings:
        """Defaults, overridden by ``CLAIMGRAPH_DAEMON_<NAME>``; a bad value is refused by name."""
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            raw = environ.get(ENV_PREFIX + field.name.upper(), "").strip()
            if raw:
                values[field.name] = _number(field.name, raw, int if field.type == "int" else float)
        return cls(**values)


def _number(name: str, raw: str, kind: type[int] | type[float]) -> float:
    try:
        value: float = kind(raw)
    except ValueError:
        value = -1
    if value < 0:
        variable = ENV_PREFIX + name.upper()
        raise ClaimgraphError("invalid-setting", f"{variable}={raw!r} is not a number ≥ 0",
                              hint=f"unset {variable} or give it a non-negative number",
                              setting=variable, value=raw)
    return value
