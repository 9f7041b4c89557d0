"""The <db> location, its sidecar paths, the version stamp and the evidence tier."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from claimgraph import STORE_FORMAT, __version__
from claimgraph.errors import ClaimgraphError
from claimgraph.sidecar import Sidecars, atomic_write_text, default_db_path


# --- where the store lives ----------------------------------------------------------------
def test_claimgraph_db_wins_over_everything():
    env = {"CLAIMGRAPH_DB": "/srv/mem.db", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}
    assert default_db_path(env) == Path("/srv/mem.db")


def test_a_tilde_in_claimgraph_db_expands_from_the_given_home():
    assert default_db_path({"CLAIMGRAPH_DB": "~/m.db", "HOME": "/home/u"}) == Path("/home/u/m.db")


def test_xdg_data_home_is_used_when_absolute():
    env = {"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}
    assert default_db_path(env) == Path("/xdg/claimgraph/claims.db")


def test_a_relative_or_empty_xdg_data_home_is_ignored_as_the_spec_says():
    for value in ("relative/dir", ""):
        env = {"XDG_DATA_HOME": value, "HOME": "/home/u"}
        assert default_db_path(env) == Path("/home/u/.local/share/claimgraph/claims.db")


def test_default_db_path_reads_only_the_environment_it_is_given(monkeypatch):
    monkeypatch.setenv("CLAIMGRAPH_DB", "/from/process.db")
    assert default_db_path({"HOME": "/home/u"}) == Path("/home/u/.local/share/claimgraph/claims.db")


def test_every_sidecar_sits_beside_the_store_under_its_name(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    expected = {
        "evidence_dir": "claims.db.evidence", "oplog_dir": "claims.db.oplog",
        "retrievals": "claims.db.retrievals", "lock": "claims.db.lock",
        "curate_lock": "claims.db.curate.lock", "capture_log": "claims.db.capture.log",
        "curate_log": "claims.db.curate.log", "daemon_log": "claims.db.daemon.log",
        "version_file": "claims.db.version", "spool_dir": "claims.db.spool",
        "daemon_pid": "claims.db.daemon.pid",
    }
    for attribute, name in expected.items():
        assert getattr(side, attribute) == tmp_path / name


# --- version stamp ------------------------------------------------------------------------
def test_the_stamp_is_written_and_read_back(tmp_path):
    side = Sidecars(tmp_path / "sub" / "claims.db")
    assert side.check_version_stamp() is None
    side.write_version_stamp()
    assert json.loads(side.version_file.read_text()) == {"format": STORE_FORMAT,
                                                         "version": __version__}
    assert side.check_version_stamp() == {"format": STORE_FORMAT, "version": __version__}


def test_rewriting_an_unchanged_stamp_leaves_the_file_alone(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    side.write_version_stamp()
    inode = side.version_file.stat().st_ino
    side.write_version_stamp()
    assert side.version_file.stat().st_ino == inode


def test_an_older_stamp_is_accepted(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    side.write_version_stamp(fmt=0)
    assert side.check_version_stamp()["format"] == 0


def test_a_future_stamp_is_refused_naming_both_versions(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    side.version_file.write_text(json.dumps({"format": STORE_FORMAT + 1, "version": "9.9.9"}))
    with pytest.raises(ClaimgraphError) as info:
        side.check_version_stamp()
    err = info.value
    assert err.type == "future-format" and "upgrade" in err.hint
    assert f"format {STORE_FORMAT + 1}" in err.message and f"format {STORE_FORMAT} " in err.message
    assert "9.9.9" in err.message


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"format": "1"}', '{"version": "x"}',
                                     '{"format": true}'])
def test_an_unreadable_stamp_is_a_clear_error(tmp_path, content):
    side = Sidecars(tmp_path / "claims.db")
    side.version_file.write_text(content)
    with pytest.raises(ClaimgraphError) as info:
        side.check_version_stamp()
    assert info.value.type == "bad-version-stamp"
    assert str(side.version_file) in info.value.message and info.value.hint


# --- evidence tier ------------------------------------------------------------------------
def test_evidence_is_named_by_the_sha256_of_its_utf8_text(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    text = "user: use uv — not pip ✓\n"
    name = side.put_evidence(text)
    assert name == "sha256-" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert len(name) == 71
    assert (side.evidence_dir / name).read_bytes() == text.encode("utf-8")
    assert side.get_evidence(name) == text


def test_evidence_is_write_once_and_idempotent(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    name = side.put_evidence("same text")
    path = side.evidence_dir / name
    inode, mtime = path.stat().st_ino, path.stat().st_mtime_ns
    assert side.put_evidence("same text") == name
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (inode, mtime)
    assert side.list_evidence() == [name]


def test_evidence_can_be_fetched_by_bare_hex(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    name = side.put_evidence("legacy episodes hold bare hex")
    bare = name.removeprefix("sha256-")
    assert side.get_evidence(bare) == "legacy episodes hold bare hex"
    assert side.get_evidence(bare.upper()) == "legacy episodes hold bare hex"


def test_missing_evidence_is_a_clear_error(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    with pytest.raises(ClaimgraphError) as info:
        side.get_evidence("sha256-" + "0" * 64)
    assert info.value.type == "evidence-missing" and info.value.hint


@pytest.mark.parametrize("name", ["../claims.db", "sha256-abc", "sha1-" + "a" * 64, "a" * 65, ""])
def test_evidence_names_are_validated_before_touching_the_disk(tmp_path, name):
    with pytest.raises(ClaimgraphError) as info:
        Sidecars(tmp_path / "claims.db").get_evidence(name)
    assert info.value.type == "invalid-evidence-name"


def test_list_evidence_is_sorted_and_skips_temp_files(tmp_path):
    side = Sidecars(tmp_path / "claims.db")
    assert side.list_evidence() == []
    names = [side.put_evidence(t) for t in ("one", "two", "three")]
    (side.evidence_dir / ".sha256-x.tmp").write_text("partial")
    assert side.list_evidence() == sorted(names)


def test_atomic_write_replaces_the_content_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "f.json"
    atomic_write_text(target, "old")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]
