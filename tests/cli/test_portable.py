"""dump and load: a store survives the round trip byte for byte, and load refuses what it must."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from claimgraph import STORE_FORMAT

from .conftest import one_line


@pytest.fixture
def story(ok):
    """A store with entities, an episode-less history, a supersession and a flagged conflict."""
    ok("assert", "api", "has-version", "1.0", "--valid-from", "2026-01-01T00:00:00.123Z")
    ok("assert", "api", "has-version", "2.0", "--valid-from", "2026-03-01T12:30:00.456Z")
    ok("assert", "api", "prefers", "GraphQL", "--valid-from", "2026-01-10")
    ok("assert", "api", "decided-against", "GraphQL", "--valid-from", "2026-02-01")
    ok("assert", "api", "depends-on", "postgres", "--evidence", "pyproject.toml: psycopg")
    ok("entity", "alias", "postgres", "pg")
    ok("predicates", "register", "x/owned-by", "--object-kind", "entity")
    ok("assert", "api", "x/owned-by", "payments-team")


def test_dump_then_load_then_dump_is_byte_identical(story, ok, tmp_path):
    first = ok("dump").out
    copy = tmp_path / "copy.db"
    dump_file = tmp_path / "store.jsonl"
    dump_file.write_text(first)
    loaded = ok("--db", str(copy), "load", str(dump_file), "--json").json()
    assert loaded["counts"] == {"predicate": 29, "entity": 3, "episode": 0, "fact": 6,
                                "evidence": 0, "mark": 0}
    assert ok("--db", str(copy), "dump").out == first


def test_dump_of_an_unchanged_store_is_stable(story, ok):
    assert ok("dump").out == ok("dump").out


def test_dump_starts_with_the_header_and_keeps_milliseconds(story, ok):
    lines = ok("dump").out.splitlines()
    assert json.loads(lines[0]) == {"format": STORE_FORMAT, "record": "claimgraph-dump",
                                    "version": "0.1.0"}
    assert '"t_valid":"2026-03-01T12:30:00.456Z"' in "\n".join(lines)


def test_dump_out_writes_a_file_and_says_so(story, ok, tmp_path):
    out = tmp_path / "backup.jsonl"
    result = ok("dump", "--out", str(out))
    lines = out.read_text().splitlines()
    assert result.out == f"dumped {len(lines)} lines to {out}\n"
    assert out.read_text() == ok("dump").out


def test_dump_out_into_a_missing_directory_fails_cleanly(story, cli, tmp_path):
    result = cli("dump", "--out", str(tmp_path / "nowhere" / "backup.jsonl"))
    assert result.code == 1
    assert one_line(result.err).startswith("claimgraph: cannot write ")


def test_load_reads_stdin_with_a_dash(story, ok, tmp_path, monkeypatch):
    dump = ok("dump").out
    monkeypatch.setattr("sys.stdin", io.StringIO(dump))
    ok("--db", str(tmp_path / "piped.db"), "load", "-")
    assert ok("--db", str(tmp_path / "piped.db"), "dump").out == dump


def test_load_into_a_store_that_holds_data_is_refused(story, ok, cli, tmp_path):
    dump = tmp_path / "store.jsonl"
    ok("dump", "--out", str(dump))
    result = cli("load", str(dump))
    assert result.code == 1
    assert one_line(result.err) == ("claimgraph: the store already holds data; load only fills an "
                                    "empty store — load into a new --db, or dump this one first")


def test_load_of_a_dump_from_a_future_format_is_refused(cli, tmp_path):
    dump = tmp_path / "future.jsonl"
    future = STORE_FORMAT + 1
    dump.write_text(f'{{"record":"claimgraph-dump","format":{future},"version":"9.0.0"}}\n')
    result = cli("load", str(dump), "--json")
    assert result.code == 1
    error = json.loads(one_line(result.err))
    assert (error["type"], error["format"], error["supported"]) == ("future-format", future,
                                                                    STORE_FORMAT)
    assert "upgrade claimgraph" in error["hint"]


@pytest.mark.parametrize("content, problem", [
    ("", "the dump is empty"),
    ("not json\n", "line 1 is not JSON"),
    ('{"record":"claimgraph-dump","format":1}\n{"type":"fact"}\n', 'line 2 has no "record" kind'),
])
def test_load_of_something_that_is_not_a_dump_is_refused(cli, tmp_path, content, problem):
    dump = tmp_path / "bad.jsonl"
    dump.write_text(content)
    result = cli("load", str(dump))
    assert result.code == 1
    assert one_line(result.err).startswith(f"claimgraph: {problem}")


def test_load_of_a_missing_file_names_it(cli, tmp_path):
    result = cli("load", str(tmp_path / "nope.jsonl"))
    assert result.code == 1
    assert one_line(result.err).startswith(f"claimgraph: no file {tmp_path / 'nope.jsonl'}")


# --- backups are whole: the evidence tier travels with the dump ------------------------------

@pytest.fixture
def captured(ok, tmp_path, project_dir):
    """A store holding a captured session: an episode whose facts cite its transcript lines."""
    from claimgraph.cli.demo import session_text

    transcript = tmp_path / "session.jsonl"
    transcript.write_text(session_text(project_dir), encoding="utf-8")
    report = json.loads(ok("capture", str(transcript), "--no-curate").out)
    cited = [f for f in ok("dump").out.splitlines()
             if '"record":"fact"' in f and "transcript#L" in f]
    assert report["status"] == "captured" and cited
    return json.loads(cited[0])["id"]


def provenance_lines(ok, fact_id, *db):
    return ok(*db, "provenance", fact_id, "--json").json()["transcript"]


@pytest.mark.parametrize("bundled", [False, True], ids=["inline", "bundle-dir"])
def test_a_round_trip_keeps_provenance_down_to_the_transcript_line(ok, tmp_path, captured,
                                                                  bundled):
    original = provenance_lines(ok, captured)
    assert original["lines"] and not original.get("error")
    backup, new = tmp_path / "backup.jsonl", tmp_path / "restored" / "new.db"
    bundle = ["--evidence", str(tmp_path / "evidence")] if bundled else []
    ok("dump", "--out", str(backup), *bundle)
    assert ('"record":"evidence"' in backup.read_text()) and (
        ('"text":' in backup.read_text()) != bundled)
    loaded = ok("load", str(backup), "--db", str(new), *bundle, "--json").json()
    assert loaded["counts"]["evidence"] == 1
    assert provenance_lines(ok, captured, "--db", str(new)) == original
    assert ok("--db", str(new), "dump").out == ok("dump").out


def test_a_bundled_dump_without_its_directory_is_refused_with_the_flag_to_pass(
        cli, ok, tmp_path, captured):
    backup = tmp_path / "backup.jsonl"
    ok("dump", "--out", str(backup), "--evidence", str(tmp_path / "evidence"))
    refused = cli("load", str(backup), "--db", str(tmp_path / "new.db"))
    assert refused.code == 1 and "pass --evidence DIR" in one_line(refused.err)
    assert not (tmp_path / "new.db").exists()


def test_evidence_that_does_not_match_its_name_is_refused_before_anything_is_written(
        cli, ok, tmp_path, captured):
    lines = ok("dump").out.splitlines()
    tampered = [line.replace("invoices", "INVOICES") if '"record":"evidence"' in line else line
                for line in lines]
    backup = tmp_path / "tampered.jsonl"
    backup.write_text("\n".join(tampered) + "\n")
    refused = cli("load", str(backup), "--db", str(tmp_path / "new.db"))
    assert refused.code == 1 and "does not match its content" in one_line(refused.err)
    assert not (tmp_path / "new.db.evidence").exists()


def test_a_loaded_store_does_not_capture_a_captured_session_again(ok, tmp_path):
    """The dump carries the capture high-water marks: re-capturing after a load finds
    nothing new, instead of a duplicate episode reinforcing every fact again."""
    import shutil
    transcript = tmp_path / "session.jsonl"
    shutil.copy(Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" /
                "claude-code" / "full-session-four.jsonl", transcript)
    assert ok("capture", str(transcript), "--no-curate").json()["status"] == "captured"
    dump = ok("dump").out
    assert '"record":"mark"' in dump and '"key":"capture:claude-code:' in dump
    (tmp_path / "store.jsonl").write_text(dump)
    copy = tmp_path / "copy.db"
    ok("--db", str(copy), "load", str(tmp_path / "store.jsonl"))
    again = ok("--db", str(copy), "capture", str(transcript), "--no-curate").json()
    assert again["status"] == "nothing-new"
    assert ok("--db", str(copy), "dump").out == dump
