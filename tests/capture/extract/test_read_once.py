"""What capture reads once and serves many times (issue 29, capture throughput) answers as
reading it again did: a shell line tokenized once whatever directory a rule asks about it in,
and the request-revision check reading each text once per capture, not once per pair."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract import revised, shell


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
