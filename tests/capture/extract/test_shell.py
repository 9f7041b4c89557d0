"""The shell parser reads a whole command line: every line, heredoc bodies skipped,
substitutions scanned to their end, operators kept apart from words that look like them."""

from claimgraph.capture.extract.shell import invocations, only_reads


def argvs(line: str, cwd: str | None = None) -> list[tuple[str, ...]]:
    return [run.argv for run in invocations(line, cwd)]


def test_every_line_of_a_script_is_read():
    assert argvs("npm ci\nnpm test") == [("npm", "ci"), ("npm", "test")]


def test_a_heredoc_body_is_data_and_the_lines_after_it_are_commands():
    line = "cat > notes.md <<'EOF'\ngit push --force\nrm -rf /\nEOF\nruff check . && pytest -q"
    assert argvs(line) == [("cat",), ("ruff", "check", "."), ("pytest", "-q")]
    assert [run.confirmed for run in invocations(line)] == [False, True, True]


def test_a_line_fed_a_heredoc_ends_where_its_body_starts():
    """``git commit -F - <<'EOF' && git push -q && git log -1`` + body: the newline before
    the body closes the line, so each command's success is the line's."""
    line = "git commit -q -F - <<'EOF' && git push -q origin b && git log -1\nfix: x\nEOF"
    assert [run.confirmed for run in invocations(line)] == [True, True, True]
    assert [run.confirmed for run in invocations("make lint; make test;")] == [False, True]
    assert [run.confirmed for run in invocations("make lint && make serve &")] == [False, False]


def test_a_heredoc_with_tabs_stripped_ends_at_its_indented_delimiter():
    assert argvs("python - <<-PY\n\tprint('x')\n\tPY\nmake test") == [
        ("python", "-"), ("make", "test")]


def test_a_commit_message_made_by_a_heredoc_substitution_does_not_break_the_line():
    line = ("git commit -m \"$(cat <<'EOF'\nfix: don't (ever) say \"git tag\"\n\nBody `x`\nEOF\n"
            ")\" && git push origin main")
    assert argvs(line) == [("git", "commit", "-m"), ("git", "push", "origin", "main")]
    assert all(run.confirmed for run in invocations(line))


def test_a_quoted_operator_is_a_word_and_a_redirection_is_not():
    assert argvs('grep ">" a.txt 2>&1 > out.txt') == [("grep", ">", "a.txt")]
    assert argvs("pytest &> log.txt; echo 'a && b'") == [("pytest",), ("echo", "a && b")]


def test_pipes_of_both_streams_and_line_continuations():
    [run] = invocations("cargo test \\\n  --workspace |& tail -20")
    assert run.argv == ("cargo", "test", "--workspace") and run.piped and run.filtered


def test_comments_are_not_commands():
    assert argvs("# run the tests\npytest  # quick") == [("pytest",)]


def test_cd_on_an_earlier_line_moves_what_follows():
    runs = invocations("cd web\nnpm test", "/repo")
    assert runs[-1].cwd == "/repo/web"


def test_a_substitution_only_reads_is_not_a_change():
    assert only_reads('ls "$(git rev-parse --show-toplevel)"')
    assert not only_reads("cat <<EOF > a.txt\nx\nEOF\nrm a.txt")


def test_unwrap_answers_a_list_as_its_tuple_and_a_kept_answer_as_a_fresh_one():
    from claimgraph.capture.extract.shell import unwrap

    argv = ("uv", "run", "--group", "dev", ".venv/bin/pytest", "-q")
    assert unwrap(list(argv)) == unwrap(argv) == ("pytest", "-q")  # type: ignore[arg-type]
    assert unwrap(argv) == unwrap(tuple(argv)) == ("pytest", "-q")  # asked again: the memo
    assert unwrap(("python3.12", "-m", "build")) == ("python -m build",)
