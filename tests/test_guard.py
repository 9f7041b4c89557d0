"""``claimgraph.guard``: the short flock every read command takes to append its retrievals
line. Real files and real locks; the competing holder is another open file description, as
another process's would be."""

from __future__ import annotations

import fcntl
import os
import stat

import pytest

from claimgraph.guard import GuardBusy, guarded


def _locked_by_someone(path: str) -> bool:
    """Whether another open of ``path`` is refused the exclusive lock right now."""
    probe = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(probe)  # also drops a lock the probe took
    return False


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_the_guard_holds_the_lock_for_the_block_and_releases_it_after(tmp_path):
    path = str(tmp_path / "log.guard")
    before = _open_fds()
    with guarded(path, 1.0) as got:
        assert got is None and _locked_by_someone(path)
    assert not _locked_by_someone(path) and _open_fds() == before
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_an_error_in_the_block_releases_the_lock_and_goes_on_up(tmp_path):
    path = str(tmp_path / "log.guard")
    before = _open_fds()
    with pytest.raises(KeyError, match="inside"):
        with guarded(path, 1.0):
            raise KeyError("inside")
    assert not _locked_by_someone(path) and _open_fds() == before


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_a_guard_held_elsewhere_is_busy_after_the_timeout_and_leaves_nothing_open(tmp_path):
    path = str(tmp_path / "log.guard")
    holder = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        before = _open_fds()
        entered = []
        with pytest.raises(GuardBusy, match="stayed locked"):
            with guarded(path, 0.02):
                entered.append(True)
        assert entered == [] and _open_fds() == before
    finally:
        os.close(holder)
    with guarded(path, 0.02):  # free again once the other holder let go
        assert _locked_by_someone(path)
