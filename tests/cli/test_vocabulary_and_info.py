"""predicates, evidence, stats, config, version: the vocabulary, the raw tier, and the set-up."""

from __future__ import annotations

import io
import sys

from claimgraph import STORE_FORMAT, __version__

from .conftest import one_line


def test_predicates_lists_the_core_vocabulary(ok):
    ok("init")
    result = ok("predicates")
    lines = result.out.splitlines()
    assert lines[-1] == "28 predicates"  # the 23 core rows and capture's 5 x/* rows
    assert ("prefers  (decision, either, many, preference)  — The subject favours the object "
            "over its alternatives.") in lines


def test_predicates_filters_by_category_and_counts_usage(ok):
    ok("assert", "api", "depends-on", "postgres")
    ok("assert", "api", "depends-on", "redis")
    rows = ok("predicates", "list", "--category", "structural", "--usage",
              "--json").json()["predicates"]
    assert {r["category"] for r in rows} == {"structural"}
    assert {r["id"]: r["usage"] for r in rows}["core/depends-on"] == 2
    assert ok("predicates", "--usage").out.count("2 facts") == 1


def test_register_coins_an_experimental_predicate_with_a_shape(ok):
    result = ok("predicates", "register", "x/owned-by", "--object-kind", "entity",
                "--cardinality", "one", "--definition", "The team that owns the subject.")
    assert result.out == ("registered  x/owned-by  (experimental, entity, one, testing)  "
                          "— The team that owns the subject.\n")
    ok("assert", "api", "x/owned-by", "payments")
    again = ok("assert", "api", "x/owned-by", "platform", "--json").json()
    assert again["status"] == "superseded"


def test_evidence_put_show_and_list(ok, tmp_path):
    notes = tmp_path / "adr-0007.md"
    notes.write_text("We move HTTP calls to httpx.\n")
    name = ok("evidence", "put", str(notes)).out.strip()
    assert name.startswith("sha256-") and len(name) == 71
    assert ok("evidence", "show", name).out == "We move HTTP calls to httpx.\n"
    assert ok("evidence", "list").out == f"{name}\n1 item\n"
    assert ok("evidence", "put", str(notes), "--json").json()["name"] == name


def test_evidence_put_reads_stdin(ok, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("from a pipe"))
    name = ok("evidence", "put", "-", "--json").json()["name"]
    assert ok("evidence", "show", name, "--json").json() == {"name": name, "text": "from a pipe"}


def test_evidence_show_of_an_unknown_name_fails_with_one_line(ok, cli):
    ok("init")
    missing = cli("evidence", "show", "sha256-" + "0" * 64)
    assert missing.code == 1 and one_line(missing.err).startswith("claimgraph: no evidence "
                                                                  "sha256-000")
    malformed = cli("evidence", "show", "../etc/passwd")
    assert malformed.code == 1 and "is not an evidence name" in one_line(malformed.err)


def test_stats_counts_what_the_store_holds(ok, db):
    ok("assert", "api", "has-version", "1.0", "--valid-from", "2026-01-01")
    ok("assert", "api", "has-version", "2.0", "--valid-from", "2026-02-01")
    assert ok("stats").out == (
        f"store      {db} (format {STORE_FORMAT})\n"
        "facts      2 (1 valid, 1 invalidated)\n"
        "entities   1\n"
        "episodes   0\n"
        "predicates 28 (23 stable, 5 testing)\n")
    out = ok("stats", "--json").json()
    assert out["facts"] == {"total": 2, "valid": 1, "invalidated": 1}


def test_config_shows_each_setting_and_where_it_came_from(ok, db, tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("half_life_days = 30\n")
    monkeypatch.setenv("CLAIMGRAPH_LEASE_TTL_MS", "9000")
    rows = ok("--config", str(config), "config", "--lease-wait", "250", "--json").json()["settings"]
    by_name = {r["name"]: (r["value"], r["source"]) for r in rows}
    assert by_name["db"] == (str(db), "env")
    assert by_name["lease_wait_ms"] == (250, "flag")
    assert by_name["lease_ttl_ms"] == (9000, "env")
    assert by_name["half_life_days"] == (30.0, f"file:{config}")
    assert by_name["log_level"] == ("info", "default")


def test_config_human_output_is_an_aligned_line_per_setting_and_what_it_does(ok, db):
    lines = ok("config").out.splitlines()
    assert lines[0].split() == ["db", str(db), "(env)"]
    assert lines[1].strip() == "the store file; its sidecar files sit beside it"
    budget = lines.index(next(line for line in lines if line.startswith("budget ")))
    assert "model calls" in lines[budget + 1]
    assert lines[-1].startswith("config file: ")


def test_config_warns_about_unknown_keys_in_the_file(ok, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("half_life_dayz = 30\n")
    result = ok("--config", str(config), "config")
    assert "unknown setting 'half_life_dayz'" in result.err and "half_life_days" in result.err


def test_config_and_version_work_even_when_the_store_is_corrupt(ok, db):
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"garbage" * 1000)
    ok("config")
    ok("version")


def test_version_prints_the_release_and_store_format(ok):
    assert ok("version").out.startswith(
        f"claimgraph {__version__} (store format {STORE_FORMAT}, python ")
    assert ok("version", "--json").json()["format"] == STORE_FORMAT
