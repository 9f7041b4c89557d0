"""The word route's BM25 weights need the rows of the word index (N), read from FTS5's own
averages record rather than counted (``SqliteStore._indexed_words``): its first varint, in
SQLite's encoding, across the one-, two- and three-byte lengths."""

from __future__ import annotations

import sqlite3

import pytest

from claimgraph.store.sqlite import leading_varint


@pytest.mark.parametrize("rows", [0, 1, 127, 128, 16383, 16384, 20000])
def test_the_rows_of_an_fts5_index_are_its_averages_records_first_varint(rows):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE facts (pk INTEGER PRIMARY KEY, object_lit TEXT)")
    con.execute("CREATE VIRTUAL TABLE w USING fts5(object_lit, content='facts',"
                " content_rowid='pk', tokenize='porter unicode61 remove_diacritics 2')")
    con.executemany("INSERT INTO facts (object_lit) VALUES (?)",
                    [(f"retry {n}",) for n in range(rows)])
    con.execute("INSERT INTO w(w) VALUES ('rebuild')")
    found = con.execute("SELECT block FROM w_data WHERE id = 1").fetchone()
    assert (leading_varint(found[0]) if found and found[0] else 0) == rows


def test_a_nine_byte_varint_takes_all_eight_bits_of_its_last_byte():
    assert leading_varint(bytes([0x81] * 8 + [0xFF])) == (((1 << 56) - 1) // 127 << 8) | 0xFF
    assert leading_varint(bytes([0x81, 0x00])) == 128
