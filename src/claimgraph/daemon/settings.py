"""The daemon's knobs as one frozen value (the table in ``claimgraph.daemon``'s docstring),
read from ``CLAIMGRAPH_DAEMON_<NAME>`` variables."""

from __future__ import annotations

import dataclasses
from typing import Mapping

from claimgraph.daemon import ENV_PREFIX
from claimgraph.errors import ClaimgraphError


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
        values = {}
        for field in dataclasses.fields(cls):
            raw = environ.get(ENV_PREFIX + field.name.upper(), "").strip()
            if raw:
                values[field.name] = _number(field.name, raw, int if field.type == "int" else float)
        return cls(**values)


def _number(name: str, raw: str, kind: type) -> float:
    try:
        value = kind(raw)
    except ValueError:
        value = -1
    if value < 0:
        variable = ENV_PREFIX + name.upper()
        raise ClaimgraphError("invalid-setting", f"{variable}={raw!r} is not a number ≥ 0",
                              hint=f"unset {variable} or give it a non-negative number",
                              setting=variable, value=raw)
    return value
