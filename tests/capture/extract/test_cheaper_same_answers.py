"""The rules' cheaper paths (issue 29, capture throughput) answer exactly as the plain
computation they replace: each test holds one against the plain form, on inputs chosen to
reach the cases where the two could part (a match across a line break, a letter that
matches another ignoring case, a boundary inside a word, a non-ASCII line)."""

from __future__ import annotations

import base64
import json
import re
import sys
from array import array
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.classify import model
from claimgraph.capture.classify.features import DIMENSIONS
from claimgraph.capture.extract import gates, lessons, manifest_common, prose, statements
from claimgraph.capture.extract.corrections import _STEM, _WORD, word_stems
from claimgraph.capture.extract.requests import carried_turns
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic import diagnosis
from claimgraph.logic.cause_cues import CAUSE_CUES

from .extract_helpers import ROOT, Session


def _pieces(*words: str) -> st.SearchStrategy[str]:
    """Texts glued from ``words`` and the characters around them that matter."""
    glue = st.sampled_from([" ", "\n", "\r\n", "\t", "x", "_", "9", "-", ".", "→", "<b>",
                            "ı", "K", "ſ", "İ", "’", "é", "  "])
    return st.lists(st.one_of(st.sampled_from(words), glue), max_size=14).map("".join)


@settings(max_examples=400, deadline=None)
@given(_pieces(" 12→", "3→", "  7→x", "a→", "1", "→", "\n", "\r", "\u2028", "line"))
def test_line_numbers_are_stripped_as_the_multiline_pattern_did(text):
    plain = re.compile(r"^ *[0-9]+→", re.M)
    lines = f"  1→{text}"  # the first line numbered: the arrow path is the one taken
    assert manifest_common.strip_line_numbers(lines) == plain.sub("", lines)


def test_a_read_output_loses_exactly_its_line_numbers():
    shown = "     1→import os\n     2→\n    10→x = '3→'\n<system-reminder>\n"
    assert manifest_common.strip_line_numbers(shown) == "import os\n\nx = '3→'\n" \
        "<system-reminder>\n"


@settings(max_examples=400, deadline=None)
@given(_pieces("because", "caused by", "root cause", "the reason", "turns out", "due to",
               "parce que", "à cause", "weil", "Ursache", "原因", "导致", "cannot", "lacks",
               "does not support", "the issue is", "- Cause:", "**cause**:", "stems from",
               "no longer", "only accepts", "BECAUSE", "becausex"))
def test_the_cause_cue_finds_a_cue_where_the_plain_alternation_did(text):
    plain = re.compile("|".join((*CAUSE_CUES, *diagnosis._PROBLEM_CUES)), re.IGNORECASE)
    assert bool(diagnosis._CUE.search(text)) == bool(plain.search(text))


def test_the_boundary_is_tested_once_for_the_cues_that_ask_for_it():
    assert diagnosis._boundary_once((r"\ba\b", "b", r"\bc")) == r"\b(?:a\b|c)|b"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ 9_;.\t\x1f\x0b=→é\u3000ſ"), max_size=40))
def test_a_prose_line_counts_letters_and_spaces_as_before(line):
    stripped = line.strip()
    if not stripped or stripped.startswith((">", "|", "<")) or prose._code_line(line) \
            or prose._LOG_LINE.search(line):
        return
    letters = sum(ch.isalpha() or ch.isspace() for ch in stripped)
    assert prose.is_prose_line(line) == (letters / len(stripped) >= 0.7)


#: The code-line pattern as one alternation, as it was before it was split in two.
_ONE_CODE_PATTERN = re.compile(
    r"[{};]\s*$|^\s*[{}\])]|=>|</|/>|^\s*from\s+\S+\s+import\b|"
    r"^\s*(?:import|const|var|def|function|class|return|export|public|private|fn|pub|"
    r"package|#include)\b(?:.*(?:[(){}\[\]=;<>]|:\s*$)|\s+\S+\s*$|\s*$)|"
    r"^\s*let\s+(?:mut\s+)?(?:\w+|[{\[(][^=]*[}\])])\s*(?::[^=]+)?=(?!=)|"
    r"^\s*(?:\$|>>>|%|PS>)\s|\w+\([^()]*\)\s*[;{]|^\s{4,}\S|^\t")


@settings(max_examples=600, deadline=None)
@given(_pieces("{", "}", ";", "=>", "</", "/>", "(", ")", "f(x);", "foo(a) {", "import",
               "from a import b", "let x = 1", "let's", "def", "return", "$ ", ">>> ",
               "    y", "\t", "PS> ", "]", "class A:", "#include", "x = y"))
def test_a_code_line_is_found_where_the_one_pattern_found_it(line):
    assert prose._code_line(line) == bool(_ONE_CODE_PATTERN.search(line))


def test_the_ascii_count_skips_digits_and_punctuation():
    assert prose.is_prose_line("Keep the tests short and the names plain")
    assert not prose.is_prose_line("a1 b2 c3 d4 e5 f6 g7 h8 i9 j0 k1 l2")


@settings(max_examples=400, deadline=None)
@given(_pieces("PreToolUse:Bash", "Stop", " hook error", " hook feedback", " hook blocking",
               " error", " operation blocked by hook", ": [", "./check.sh", "]: ", "no",
               "hook", " Hook Error", "[x]: y"))
def test_a_hook_message_always_says_one_of_the_words_looked_for(text):
    if gates._HOOK.search(text):
        assert any(said in text for said in gates._HOOK_SAYS)


def test_a_hook_message_is_still_read():
    shown = "PreToolUse:Bash hook error: [./scripts/guard.sh]: Direct push to main is blocked"
    s = Session()
    message = s.event("meta", text=shown)
    [(name, blocks, reason)] = list(gates._gate_reports(SessionView.of(s.transcript(), ROOT),
                                                        message))
    assert (name, blocks) == ("the PreToolUse hook (./scripts/guard.sh)", "tool calls")
    assert reason.startswith("Direct push to main")


def test_no_other_character_matches_the_cut_short_words_ignoring_case():
    letters = sorted(set("".join(statements._CUT_SHORT_WORDS)))
    either = re.compile("[" + "".join(letters) + "]", re.IGNORECASE)
    odd = [hex(code) for code in range(sys.maxunicode + 1)
           if either.fullmatch(chr(code)) and chr(code).lower() not in letters]
    assert odd == []
    for alternative in statements._CUT_SHORT.pattern.split("|"):
        assert any(word in alternative.lower() for word in statements._CUT_SHORT_WORDS)


@settings(max_examples=400, deadline=None)
@given(_pieces("[Request interrupted by user]", "[REQUEST INTERRUPTED", "turn_aborted",
               "Aborted by User", "operation cancelled", "Operation Cancelled", "interrupt",
               "abort", "cancel"))
def test_cut_short_is_found_as_the_case_blind_search_found_it(head):
    assert statements._cut_short(head) == bool(statements._CUT_SHORT.search(head))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcDEF-_9 \nİßſé→Ωword"), max_size=60))
def test_word_stems_are_each_words_lowered_head(text):
    assert word_stems(text) == {word.lower()[:_STEM] for word in _WORD.findall(text)}


def test_each_turn_keeps_the_changes_made_before_the_next_prompt():
    s = Session()
    first = s.prompt("rename the helper in utils")
    s.edit(f"{ROOT}/src/utils.py", "def helper():", "def renamed_helper():")
    second = s.prompt("now document the retries in the readme")
    s.edit(f"{ROOT}/README.md", "# shop", "# shop\n\nRetries back off exponentially.")
    s.prompt("thanks")
    turns = carried_turns(SessionView.of(s.transcript(), ROOT))
    assert set(turns) == {first.line, second.line}
    assert turns[first.line].paths == ("src/utils.py",)
    assert turns[second.line].paths == ("README.md",)
    assert "renam" in turns[first.line].words and "retri" not in turns[first.line].words
    assert "retri" in turns[second.line].words and "renam" not in turns[second.line].words


def test_the_same_command_key_is_remembered_and_the_same():
    lessons.same_command_key.cache_clear()
    argv = ("uv", "run", "pytest", "tests/test_x.py")
    first = lessons.same_command_key(argv)
    assert first == ("pytest", "test_x.py")
    assert lessons.same_command_key(tuple(argv)) is first
    assert lessons.same_command_key.cache_info().hits == 1
    assert lessons.same_command_key(("cat", "x")) is None


def _reference_packed(stored: bytes, classes: int) -> list[int]:
    raw = array("h", stored)
    if sys.byteorder != "little":
        raw.byteswap()
    rows = [raw[i * DIMENSIONS:(i + 1) * DIMENSIONS] for i in range(classes)]
    return [model._pack(weights) for weights in zip(*rows)]


def test_the_model_packs_its_weights_as_the_plain_sum_did():
    shipped = json.loads((Path(model.__file__).parent / model.WEIGHTS_FILE).read_text(
        encoding="utf-8"))
    stored = base64.b64decode(shipped["weights"])
    classes = len(shipped["classes"])
    assert model._packed_rows(stored, classes) == _reference_packed(stored, classes)
    extremes = array("h", [(-32768, 32767, 0, -1, 1)[(i * 7 + i // 5) % 5]
                           for i in range(classes * DIMENSIONS)])
    if sys.byteorder != "little":
        extremes.byteswap()
    assert model._packed_rows(extremes.tobytes(), classes) == \
        _reference_packed(extremes.tobytes(), classes)
    short = stored[:-2]  # not what training writes: read the old way
    assert model._packed_rows(short, classes) == [
        packed if any(weights) else model._pack((0,) * classes)
        for packed, weights in zip(_reference_packed(short, classes), zip(*[
            array("h", short)[i * DIMENSIONS:(i + 1) * DIMENSIONS] for i in range(classes)]))]
