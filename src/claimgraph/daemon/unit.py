"""``daemon install-unit``: a systemd user unit that keeps ``daemon run`` going.

The unit names the absolute interpreter this claimgraph runs under (a virtualenv's python
carries its packages; ``claimgraph`` on a PATH might be another install) and the absolute
store, so the service captures into the same memory the hooks do. systemd sends SIGTERM on
stop, which ``daemon run`` handles within a few seconds. Writing the unit enables nothing:
the printed commands do, so installing is always reversible by deleting one file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Mapping

from claimgraph.sidecar import atomic_write_text

UNIT_NAME = "claimgraph.service"
PASSED_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")
_TEMPLATE = """\
[Unit]
Description=claimgraph memory daemon (backstop capture sweep, curation, log rotation)

[Service]
Type=simple
ExecStart={exec_start}
{environment}Restart=on-failure
RestartSec=30
TimeoutStopSec=20

[Install]
WantedBy=default.target
"""


def unit_path(environ: Mapping[str, str]) -> Path:
    """``$XDG_CONFIG_HOME/systemd/user/claimgraph.service`` (XDG ignores relative paths)."""
    config = environ.get("XDG_CONFIG_HOME", "")
    if not config or not os.path.isabs(config):
        config = os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(config) / "systemd" / "user" / UNIT_NAME


def _quote(arg: str) -> str:
    """systemd's own quoting: double quotes, with backslash and quote escaped."""
    if arg and not any(c in arg for c in ' \t"\\\'$%;'):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%") + '"'


def render(db: Path, environ: Mapping[str, str], python: str | None = None) -> str:
    argv = [python or sys.executable, "-m", "claimgraph", "daemon", "run", "--db",
            str(Path(db).absolute())]
    lines = "".join(f"Environment={_quote(f'{name}={environ[name]}')}\n"
                    for name in PASSED_ENV if environ.get(name))
    return _TEMPLATE.format(exec_start=" ".join(_quote(a) for a in argv), environment=lines)


def install(db: Path, environ: Mapping[str, str], dry_run: bool = False) -> dict[str, Any]:
    """Write (or, dry, only show) the unit; what was done and the commands that enable it."""
    path, text = unit_path(environ), render(db, environ)
    status = "unchanged" if path.exists() and path.read_text(encoding="utf-8") == text else (
        "would-write" if dry_run else "written")
    if status == "written":
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    return {"status": status, "path": str(path), "unit": text, "enable": [
        "systemctl --user daemon-reload",
        f"systemctl --user enable --now {UNIT_NAME}"]}
