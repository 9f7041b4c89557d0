"""``daemon install-unit``: a systemd user unit naming this interpreter and this store."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from daemon_helpers import cli


def test_install_unit_writes_the_user_unit_with_the_absolute_interpreter(db):
    unit = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user" / "claimgraph.service"
    dry = cli("daemon", "install-unit", "--dry-run")
    assert dry.returncode == 0 and "would-write" in dry.stdout and not unit.exists()
    result = json.loads(cli("daemon", "install-unit", "--json",
                            env={"CODEX_HOME": "/opt/my codex"}).stdout)
    assert result["status"] == "written" and result["path"] == str(unit)
    text = unit.read_text()
    assert f"ExecStart={sys.executable} -m claimgraph daemon run --db {db}" in text
    assert 'Environment="CODEX_HOME=/opt/my codex"' in text
    assert "systemctl --user enable --now claimgraph.service" in result["enable"]
    again = cli("daemon", "install-unit", env={"CODEX_HOME": "/opt/my codex"})
    assert "unchanged" in again.stdout and "systemctl --user daemon-reload" in again.stdout
