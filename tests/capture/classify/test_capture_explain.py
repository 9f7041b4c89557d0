"""The sentence model inside capture: what is kept becomes a fact with the class's predicate,
and the report says how many user sentences were read and kept (``--explain``: each one)."""

from __future__ import annotations

import json
import os

import pytest

from claimgraph.cli.main import main
from claimgraph.logic.names import object_name
from claimgraph.logsetup import reset_logging
from claimgraph.opening import open_store


@pytest.fixture(autouse=True)
def _quiet_logging():
    yield
    reset_logging()


def capture(capsys, tmp_path, text: str, *extra: str) -> dict:
    transcript = tmp_path / "session.txt"
    transcript.write_text(text, encoding="utf-8")
    capsys.readouterr()
    code = main(["capture", str(transcript), "--format", "text", "--cwd", str(tmp_path / "shop"),
                 "--no-curate", *extra])
    out, _ = capsys.readouterr()
    assert code == 0
    return json.loads(out.strip())


SESSION = ("user: Quick context for this repo: we always use uv, never pip. Now fix the "
           "failing test in the cart module.\nassistant: Done, the test passes.\n"
           "user: now commit that\n")


def test_the_report_counts_user_sentences_read_and_kept(capsys, tmp_path):
    report = capture(capsys, tmp_path, SESSION)
    assert report["user_sentences"] == {"read": 3, "kept": 1}
    assert "explain" not in report


def test_explain_lists_every_user_sentence_with_its_class_and_score(capsys, tmp_path):
    report = capture(capsys, tmp_path, SESSION, "--explain")
    by_sentence = {entry["sentence"]: entry for entry in report["explain"]}
    assert list(by_sentence) == [
        "Quick context for this repo: we always use uv, never pip",
        "Now fix the failing test in the cart module", "now commit that"]
    rule = by_sentence["Quick context for this repo: we always use uv, never pip"]
    assert rule["kept"] and rule["class"] in ("convention", "decision") and rule["score"] >= 0.5
    for request in ("Now fix the failing test in the cart module", "now commit that"):
        assert not by_sentence[request]["kept"] and by_sentence[request]["score"] < 0.5
        assert by_sentence[request]["class"] == "request"
    assert rule["line"] == 1 and by_sentence["now commit that"]["line"] == 3


def test_a_kept_sentence_is_a_project_fact_with_the_classes_predicate(capsys, tmp_path):
    capture(capsys, tmp_path, SESSION)
    store = open_store(os.environ["CLAIMGRAPH_DB"])
    try:
        facts = store.select_facts(source_type="user-assertion")
    finally:
        store.close()
    assert [(f["predicate"], str(object_name(f))) for f in facts] == [
        ("x/convention", "Quick context for this repo: we always use uv, never pip")]


FOREIGN = ("user: Il faut toujours utiliser uv pour les dépendances, jamais pip. Ensuite "
           "corrige le test qui échoue.\nassistant: Done, the test passes.\n"
           "user: テストを実行してからコミットしてください。\nassistant: Committed.\n"
           "user: now commit that\n")


def test_sentences_in_another_language_are_read_not_judged(capsys, tmp_path):
    """The sentence model reads English: a French or Japanese sentence is scored but cannot be
    judged, and the report says so per language instead of counting it silently."""
    report = capture(capsys, tmp_path, FOREIGN, "--explain")
    assert report["user_sentences_not_english"] == {"fr": 2, "ja": 1}
    by_sentence = {entry["sentence"]: entry for entry in report["explain"]}
    english = by_sentence["now commit that"]
    assert "language" not in english and "not_judged" not in english
    for entry in report["explain"]:
        if entry is english:
            continue
        assert entry["not_judged"] in ("read, not judged: French",
                                       "read, not judged: Japanese")
        assert not entry["kept"] and "class" in entry and "score" in entry


def test_an_english_session_reports_no_unjudged_sentences(capsys, tmp_path):
    report = capture(capsys, tmp_path, SESSION, "--explain")
    assert "user_sentences_not_english" not in report
    assert not any("not_judged" in entry for entry in report["explain"])
