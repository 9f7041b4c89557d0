"""What capture reads once and serves many times (issue 29, capture throughput) answers as
reading it again did: a shell line tokenized once whatever directory a rule asks about it in,
the request-revision check reading each text once per capture, not once per pair, and an
agent's packed message inflated only when a rule reads it, not to learn it is not blank, and a
name searched for in the work after a question with a pattern that does not open with a look
back (the same matches, three times faster over a long session's work)."""

from __future__ import annotations

import posixpath
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture import packed
from claimgraph.capture.events import Event
from claimgraph.capture.extract import offered, pick_scope, revised, said, shell
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic import said as logic_said
from claimgraph.capture.packed import PACK_MIN_CHARS, PackedEvent, blank, pack
from claimgraph.capture.zipped_lines import ZippedLines

from .extract_helpers import Session


def _reference(command: str, cwd: str | None) -> list[shell.Invocation]:
    """The invocations as the tokenizer's caller computed them before the tokens were shared:
    tokens, pipelines and the directory all in one walk."""
    tokens = shell._tokens(command)
    if tokens is None or any(isinstance(t, shell._Op) and t in ("(", ")") for t in tokens):
        return []
    pipelines = shell._pipelines(tokens)
    found = []
    for index, pipeline in enumerate(pipelines):
        argv = shell._plain_words(list(pipeline.stages[0]))
        if argv and argv[0] in shell._CHANGE_DIR:
            cwd = shell._change_dir(cwd, argv)
        if not argv:
            continue
        later = [posixpath.basename(words[0]) for stage in pipeline.stages[1:]
                 if (words := shell._plain_words(list(stage)))]
        found.append(shell.Invocation(
            tuple(argv), cwd, shell._confirmed(pipelines, index),
            piped=len(pipeline.stages) > 1,
            filtered=all(name in shell.OUTPUT_FILTERS for name in later)))
    return found


_PIECES = st.sampled_from([
    "cd app", "cd /srv/x", "cd ~/w", "cd -", "cd $HOME", "cd ..", "pushd lib", "cd",
    " && ", " || ", "; ", " | ", " & ", "\n", "tail -3", "git push", "make test", "FOO=1 ",
    "> out.txt", "2>&1", "'a b'", '"$(pwd)"', "(", ")", "cat <<EOF\nx\nEOF\n", "ls",
    "cd C:\\Users\\me", "sudo make", "  "])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=10).map("".join),
       st.sampled_from([None, "/home/me/proj", "/work", "C:/Users/me/app"]))
def test_invocations_answer_as_the_one_walk_did(command, cwd):
    assert list(shell.invocations(command, cwd)) == _reference(command, cwd)


def test_a_line_is_tokenized_once_whatever_directory_it_is_asked_about_in(monkeypatch):
    calls = []
    tokens = shell._tokens

    def counted(line):
        calls.append(line)
        return tokens(line)

    monkeypatch.setattr(shell, "_tokens", counted)
    shell.invocations.cache_clear()
    shell._parsed.cache_clear()
    line = "cd web && npm test | tail -5"
    here = shell.invocations(line, "/home/me/proj")
    there = shell.invocations(line, "/srv/other")
    nowhere = shell.invocations(line)
    assert calls == [line]
    assert [run.cwd for run in here] == ["/home/me/proj/web"] * 2
    assert [run.cwd for run in there] == ["/srv/other/web"] * 2
    assert [run.cwd for run in nowhere] == [None, None]
    assert shell.only_reads("ls && git status")  # asked without a directory, as corrections do
    assert [run.cwd for run in shell.invocations("ls && git status", "/p")] == ["/p", "/p"]
    assert calls == [line, "ls && git status"]


def _request(stance: str, line: int) -> dict:
    return {"subject": "shop", "predicate": "x/convention", "object": stance, "scope": "project",
            "source_type": "user-assertion", "rule": "statements",
            "evidence": [f"transcript#L{line}: {stance}"]}


def test_revision_memos_are_emptied_when_the_check_ends():
    kept = [_request("the export should zip its files by default", 3)]
    said = [(5, "About 'zip'. Let's leave that for later; we focus on the parser."),
            (7, "Don't zip the export, keep plain folders.")]
    first = revised.revised_away(kept, said)
    assert first == []  # the request was put off: the check ran to a deferral
    memos = (revised._cues, revised._clauses, revised._change_cues, revised._negates,
             revised.named, revised.quoted, revised.content_words)
    assert all(memo.cache_info().currsize == 0 for memo in memos)
    assert revised.revised_away(kept, said) == first


def test_what_a_memo_serves_cannot_be_changed_by_the_one_it_served():
    text = "Use `ruff` and 'black' for the export code"
    assert isinstance(revised.named(text), frozenset)
    assert isinstance(revised.quoted(text), frozenset)
    assert isinstance(revised.content_words(text), frozenset)
    assert isinstance(revised._clauses("for 'zip', just add a TODO; later"), tuple)


_WORDS = st.sampled_from([
    "the", "export", "'zip'", "`export`", "should", "not", "don't", "later", "TODO", "park",
    "it", "that", "for", "let's", "focus", "on", "parser", "instead", "a", "separate",
    "command", "?", ".", ",", ";", " -- ", "now", "not now", "do we have", "files"])


def _plain_defers(earlier: str, parts: list[str]) -> bool:
    """``revised.defers`` as it read before the memos: the questions first, then the earlier
    request's own cues, every clause's cues searched afresh."""
    if any(part.rstrip().endswith("?") and revised.shares_name(earlier, part)
           and not revised.asks_exists(part) for part in parts):
        return False
    if revised.DEFER.search(earlier) or revised.FOCUS.search(earlier):
        return False
    before = ""
    for clause in (c for part in parts for c in revised._clauses.__wrapped__(part)):
        if revised._defers_clause(earlier, clause, before):
            return True
        if not (revised.DEFER.search(clause) and not revised.named.__wrapped__(clause)):
            before = clause
    return False


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=12).map(" ".join),
       st.lists(st.lists(_WORDS, min_size=1, max_size=12).map(" ".join), max_size=3))
def test_a_deferral_is_found_as_without_the_memos(earlier, parts):
    assert revised.defers(earlier, parts) == _plain_defers(earlier, parts)


def _said(text: str, line: int) -> Event:
    return Event(kind="assistant", agent="claude-code", source_file="t.jsonl", line=line,
                 text=text)


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from([" ", "\n", "\t", "\u2003", "\x1c", "a", "é", "→"]),
               max_size=PACK_MIN_CHARS * 2))
def test_blank_answers_as_the_stripped_text_did_packed_or_not(text):
    packed = pack(_said(text, 1))
    assert blank(packed) == (not text.strip()) == blank(_said(text, 1))
    assert packed.text == text


def test_a_long_blank_message_stays_unpacked_so_blank_is_never_a_guess():
    spaces = " \n" * PACK_MIN_CHARS
    assert not isinstance(pack(_said(spaces, 1)), PackedEvent)
    assert isinstance(pack(_said(spaces + "x", 1)), PackedEvent)


def test_only_the_message_a_prompt_answers_is_inflated(monkeypatch):
    session = Session()
    asked = "Which option do you want? " * 20
    for text in ("I changed the parser. " * 40, " " * 300, asked):
        session.event("assistant", text=text)
    session.prompt("the second")
    session.prompt("and tests")
    session.events[:3] = [pack(event) for event in session.events[:3]]
    inflated = []
    held = packed._Zipped.text

    def counted(self):
        inflated.append(self)
        return held(self)

    monkeypatch.setattr(packed._Zipped, "text", counted)
    view = SessionView.of(session.transcript(), None)
    assert list(offered.agent_before_prompts(view)) == [(4, asked), (5, None)]
    assert len(inflated) == 1


_AROUND = st.sampled_from(["", " ", "\n", "_", "x", "9", "-", ".", "/", "é", "İ", "ı", "ſ",
                           "K", "k", "S", "ß", "·", "\u0307", "Ω"])


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["fix", "sK", "Sub-Agent", "a.b", "-flag", "ſet", "İd", "x9_y", "k"]),
       st.lists(st.one_of(_AROUND, st.sampled_from(["fix", "FIX", "sk", "SUB-agent", "a.b",
                                                    "-FLAG", "set", "SET", "id", "X9_Y",
                                                    "K", "\u212a"])), max_size=8).map("".join))
def test_a_mention_is_found_where_the_look_back_first_pattern_found_it(token, text):
    plain = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(token) + r"(?![A-Za-z0-9_])",
                       re.IGNORECASE)
    assert pick_scope._mentions(text, token) == (plain.search(text) is not None)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["Editor Panel", "side car mode", "İnline Style", "Kelvin Scale"]),
       st.lists(st.one_of(_AROUND, st.sampled_from(["editor", "EDITOR", "panel", "Panel",
                                                    "side", "car", "mode", "inline", "style",
                                                    "scale", "kelvin", "\u212aelvin", " - "])),
                max_size=8).map("".join))
def test_a_label_is_found_where_the_look_back_first_pattern_found_it(label, text):
    words = re.findall(r"[^\W_]+", pick_scope.bare(label))
    plain = re.compile(r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![^\W_])",
                       re.IGNORECASE)
    phrase = pick_scope.label_phrase(label)
    assert phrase is not None
    assert (phrase.search(text) is not None) == (plain.search(text) is not None)
    assert [m.span() for m in phrase.finditer(text)] == [m.span() for m in plain.finditer(text)]


class _CharByChar(shell._Lexer):
    """The lexer as it read before runs of plain characters were taken whole: one character
    a step in a word, a double-quoted string and a substitution, every operator tried at
    every word."""

    def _operator(self):
        text, start = self.text, self.at
        digits = start
        while digits < len(text) and text[digits].isdigit():
            digits += 1
        if digits > start and not text.startswith((">", "<"), digits):
            return None
        for op in shell._REDIRECTIONS if digits > start else shell._ALL_OPS:
            if text.startswith(op, digits):
                if op in ("<", ">") and text.startswith("(", digits + 1):
                    return None
                self.at = digits + len(op)
                return shell._Op(op)
        return None

    def _word(self):
        text = self.text
        parts = []
        substituted = False
        while self.at < len(text):
            char = text[self.at]
            if char in shell._BREAK and not (char in "<>" and text.startswith("(", self.at + 1)):
                break
            if char == "\\":
                escaped = text[self.at + 1:self.at + 2]
                parts.append(char + escaped if escaped.isalnum() else escaped)
                self.at += 2
            elif char == "'":
                end = text.find("'", self.at + 1)
                if end < 0:
                    raise ValueError("unbalanced single quote")
                parts.append(text[self.at + 1:end])
                self.at = end + 1
            elif char == '"':
                parts_in, subst = self._double_quoted()
                parts.append(parts_in)
                substituted |= subst
            elif text.startswith(("$(", "<(", ">("), self.at) or char == "`":
                parts.append(self._substitution())
                substituted = True
            else:
                parts.append(char)
                self.at += 1
        word = "".join(parts)
        return shell._Subst(word) if substituted else word

    def _double_quoted(self):
        text = self.text
        self.at += 1
        parts = []
        substituted = False
        while self.at < len(text):
            char = text[self.at]
            if char == '"':
                self.at += 1
                return "".join(parts), substituted
            if char == "\\":
                nxt = text[self.at + 1:self.at + 2]
                parts.append(nxt if nxt in '"\\$`' else char + nxt)
                self.at += 2
            elif text.startswith("$(", self.at) or char == "`":
                parts.append(self._substitution())
                substituted = True
            else:
                parts.append(char)
                self.at += 1
        raise ValueError("unbalanced double quote")

    def _substitution(self):
        text = self.text
        start = self.at
        if text[self.at] == "`":
            end = text.find("`", self.at + 1)
            if end < 0:
                raise ValueError("unbalanced backtick")
            self.at = end + 1
            return text[start:self.at]
        self.at += 2
        depth = 1
        while self.at < len(text):
            char = text[self.at]
            if char == "\\":
                self.at += 2
            elif char == "'":
                end = text.find("'", self.at + 1)
                if end < 0:
                    raise ValueError("unbalanced single quote")
                self.at = end + 1
            elif char == '"':
                self._double_quoted()
            elif text.startswith("$(", self.at) or char == "`":
                self._substitution()
            elif text.startswith("<<", self.at) and not text.startswith("<<<", self.at):
                tabs = text.startswith("<<-", self.at)
                self.at += 3 if tabs else 2
                self._delimiter(tabs)
            elif char == "\n":
                self.at += 1
                self._bodies()
            elif char == "(":
                depth += 1
                self.at += 1
            elif char == ")":
                depth -= 1
                self.at += 1
                if depth == 0:
                    return text[start:self.at]
            else:
                self.at += 1
        raise ValueError("unbalanced substitution")


def _lexed(lexer, line):
    try:
        return [(type(token).__name__, str(token)) for token in lexer(line).tokens()]
    except ValueError as error:
        return str(error)


_SHELL_BITS = st.sampled_from([
    "a", "b1", "-x", "=", "$", "$HOME", "$(", ")", "(", "`", "'", '"', "\\", "\\\n", "\\n",
    " ", "\t", "\r", "\n", ";", "&", "|", "<", ">", "<<", "<<<", "<<-", "<(", ">(", "2>",
    "2>&1", "&>", "#", "EOF", "é", "→", "{", "}", "*", "!", "\\'", '\\"', "\\$", "\\`"])


@settings(max_examples=2000, deadline=None)
@given(st.lists(_SHELL_BITS, max_size=16).map("".join))
def test_the_lexer_reads_every_line_as_one_character_a_step_did(line):
    assert _lexed(shell._Lexer, line) == _lexed(_CharByChar, line)


def test_the_lexer_reads_a_real_script_as_one_character_a_step_did():
    script = ('cd "$(git rev-parse --show-toplevel)" && git commit -m "$(cat <<\'EOF\'\n'
              'fix: keep (x) > y\nEOF\n)" 2>&1 | tail -5; echo `date` >> log.txt\n'
              'python - <<PY\nprint("a; b")\nPY\nFOO=1 make test && echo \'done; ok\'')
    assert _lexed(shell._Lexer, script) == _lexed(_CharByChar, script)
    assert ("_Op", ">>") in _lexed(shell._Lexer, script)


_CASED = st.sampled_from(["Σ", "ΑΣ", "σ", "Σ", "A", "İ", "ß", "'", "\u0345", "\u00ad", " ",
                          ".", "1", "\n", "Ω", "ǅ", "ﬃ", "x"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.lists(_CASED, max_size=6).map("".join), max_size=5))
def test_heads_lowered_one_by_one_join_to_the_lowered_whole(parts):
    assert "\n".join(part.lower() for part in parts) == "\n".join(parts).lower()


def test_the_session_names_are_the_lowered_heads():
    session = Session()
    session.bash("ls ΑΣ/Docs", output="ΟΔΟΣ\nREADME.md")
    names, _ = said._session_names(SessionView.of(session.transcript(), None))
    assert names.whole().decode() == "ls ΑΣ/Docs\nΟΔΟΣ\nREADME.md".lower() == \
        "ls ας/docs\nοδος\nreadme.md"
    assert "ας/docs" in names and "readme.md" in names and "ας/docs\nοδος" in names
    assert "ΑΣ/Docs" not in names


_NAMED = st.sampled_from(["a", "é", "ß", "\n", "/", "-", "x1", "😀", "ǅ", "\ud83d", "é"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(_NAMED, min_size=1, max_size=4).map("".join),
       st.lists(_NAMED, max_size=12).map("".join))
def test_a_name_is_found_in_the_utf8_text_exactly_where_in_the_text(name, text):
    held = text.encode("utf-8", "surrogatepass")
    assert (name.encode("utf-8", "surrogatepass") in held) == (name in text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NAMED, min_size=3, max_size=6).map("".join),
       st.lists(_NAMED, max_size=12).map("".join))
def test_grounded_answers_the_same_on_the_utf8_text(name, text):
    sentence = f"The `{name}` module holds the parser"
    held = text.encode("utf-8", "surrogatepass")
    assert logic_said.grounded(sentence, held, frozenset()) == \
        logic_said.grounded(sentence, text, frozenset())


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.lists(_NAMED, max_size=8).map("".join), max_size=6),
       st.integers(min_value=1, max_value=9))
def test_the_heads_held_in_chunks_are_their_utf8_join(heads, chunk):
    held = ZippedLines(heads, chunk_bytes=chunk)
    assert held.whole() == "\n".join(heads).encode("utf-8", "surrogatepass")
    assert held.size == len(held.whole())


@settings(max_examples=1000, deadline=None)
@given(st.lists(_NAMED, max_size=5).map("".join),
       st.lists(st.lists(_NAMED, max_size=8).map("".join), max_size=6),
       st.integers(min_value=1, max_value=9))
def test_a_name_is_found_in_the_chunks_exactly_where_in_the_whole(name, heads, chunk):
    held = ZippedLines(heads, chunk_bytes=chunk)
    whole = "\n".join(heads)
    assert (name in held) == (name in whole)  # across every chunk border
    assert (name in held) == (name in whole)  # remembered: the same answer
    assert (name.encode("utf-8", "surrogatepass") in held) == (name in whole)


def test_a_name_cut_by_a_chunk_border_is_found():
    held = ZippedLines(["abc_de", "fgh.py"], chunk_bytes=4)
    assert len(held._chunks) > 2
    assert "abc_de\nfgh.py" in held and "c_de" in held and "de\nfg" in held
    assert "abc_dex" not in held and "fgh.pyc" not in held


@settings(max_examples=300, deadline=None)
@given(st.lists(_NAMED, min_size=3, max_size=6).map("".join),
       st.lists(_NAMED, max_size=12).map("".join), st.integers(min_value=1, max_value=9))
def test_grounded_answers_the_same_on_the_heads_held_in_chunks(name, text, chunk):
    sentence = f"The `{name}` module holds the parser"
    held = ZippedLines([text], chunk_bytes=chunk)
    assert logic_said.grounded(sentence, held, frozenset()) == \
        logic_said.grounded(sentence, text, frozenset())
