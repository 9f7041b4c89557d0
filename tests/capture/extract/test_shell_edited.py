"""A fact quoting a file holds for the file's last content, after a shell edit too."""

from __future__ import annotations

from .extract_helpers import ROOT, Session, only

MAKEFILE = ("TAG ?= 1.0.0\n\n.PHONY: image test\nimage:\n\tpodman build -t app:$(TAG) .\n"
            "test:\n\tpytest -q\n")


def _runs(session: Session) -> str:
    [runs] = only(session.extract(), "x/runs")
    return runs["object"]


def _made(session: Session) -> None:
    session.write(f"{ROOT}/Makefile", MAKEFILE)
    session.bash("make image && make test", output="ok")


def test_a_sed_substitution_after_the_last_look_is_applied():
    session = Session()
    _made(session)
    session.bash(r"sed -i.bak 's/^TAG ?= 1\.0\.0/TAG ?= 1.0.1/' Makefile", output="")
    assert _runs(session) == "`make image` runs `podman build -t app:1.0.1 .`; " \
        "`make test` runs `pytest -q`"


def test_bsd_sed_and_a_changed_recipe_line_are_read_too():
    session = Session()
    _made(session)
    session.bash("sed -i '' -e 's/pytest -q/pytest -x/' Makefile", output="")
    assert "`make test` runs `pytest -x`" in _runs(session)
    [runs] = only(session.extract(), "x/runs")
    assert "./Makefile: `pytest -x`" in runs["evidence"]


def test_a_later_read_is_what_the_fact_was_built_from():
    session = Session()
    _made(session)
    session.bash("sed -i 's/1.0.0/1.0.1/' Makefile", output="")
    session.tool("Read", {"file_path": f"{ROOT}/Makefile"}, output=MAKEFILE)  # as shown
    assert "app:1.0.0" in _runs(session)


def test_a_failed_or_appending_edit_changes_nothing():
    session = Session()
    _made(session)
    session.bash("sed -i 's/1.0.0/1.0.1/' Makefile", error=True, output="sed: no such file")
    session.bash("echo 'lint:' >> Makefile", output="")
    assert "app:1.0.0" in _runs(session)


def test_an_edit_the_record_cannot_apply_leaves_the_fact_out():
    session = Session()
    _made(session)
    session.bash(r"sed -i -E 's/([0-9]+)\.0\.0/\1.0.1/' Makefile", output="")
    assert only(session.extract(), "x/runs") == []


def test_a_rewrite_by_redirection_leaves_a_quoting_fact_out():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"},
                 output="# Guide\n\n- Always run `make check` before committing.\n")
    assert only(session.extract(), "x/convention")
    session.bash("echo '# Guide' > AGENTS.md", output="")
    assert only(session.extract(), "x/convention") == []


def test_a_substitution_that_changes_a_quoted_line_leaves_that_fact_out():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"},
                 output="# Guide\n\n- Always run `make check` before committing.\n"
                        "- Never edit `gen/` by hand.\n")
    session.bash("sed -i 's/make check/make verify/' AGENTS.md", output="")
    said = {fact["object"] for fact in only(session.extract(), "x/convention")}
    assert said == {"Never edit `gen/` by hand"}
