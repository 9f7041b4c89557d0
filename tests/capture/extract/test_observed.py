"""A file's lines as the harness recorded them after a change no edit tool showed."""

from __future__ import annotations

from dataclasses import replace

from claimgraph.capture.extract.observed import observations
from claimgraph.capture.extract.reconcile import digest
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session, only

GUIDE = "# Guide\n\n- Always run `make check` before committing.\n- Keep `api/v1/` stable.\n"
MAKEFILE = ("TAG ?= 1.0.0\n\n.PHONY: image test\nimage:\n\tpodman build -t app:$(TAG) .\n"
            "test:\n\tpytest -q\n")


def _observed(session: Session, name: str, lines: dict[int, str], **extras: object) -> None:
    """The harness's record (an ``edited_text_file`` attachment, as the reader gives it)."""
    text = "\n".join(f"{at}\t{line}" for at, line in sorted(lines.items()))
    session.event("observed", text=text, derived=True,
                  extras={"path": f"{ROOT}/{name}", "whole": False, **extras})


def _guide_read(session: Session) -> None:
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=GUIDE)


def _conventions(session: Session) -> set[str]:
    return {fact["object"] for fact in only(session.extract(), "x/convention")}


def test_a_checkout_the_record_shows_left_the_line_keeps_the_fact():
    session = Session()
    _guide_read(session)
    session.bash("git checkout -- AGENTS.md", output="")
    assert _conventions(session) == set()  # what the file holds after it is not known
    _observed(session, "AGENTS.md", {2: "", 3: "- Always run `make check` before committing."})
    assert "Always run `make check` before committing" in _conventions(session)


def test_a_line_the_record_shows_replaced_leaves_its_fact_out():
    session = Session()
    _guide_read(session)
    assert len(_conventions(session)) == 2
    _observed(session, "AGENTS.md", {2: "", 3: "- Always run `make verify` before committing.",
                                     4: "- Keep `api/v1/` stable."})  # the person's editor
    assert _conventions(session) == {"Keep `api/v1/` stable"}


def test_absence_from_a_snippet_proves_nothing():
    session = Session()
    _guide_read(session)
    _observed(session, "AGENTS.md", {1: "# Guide (v2)", 2: ""})
    assert len(_conventions(session)) == 2


def test_a_record_before_the_change_says_nothing_of_after():
    session = Session()
    _guide_read(session)
    _observed(session, "AGENTS.md", {3: "- Always run `make check` before committing."})
    session.bash("git checkout -- AGENTS.md", output="")
    assert _conventions(session) == set()


def test_a_recipe_is_read_from_the_recorded_lines():
    session = Session()
    session.write(f"{ROOT}/Makefile", MAKEFILE)
    session.bash("make image && make test", output="ok")
    session.bash("sed -i 's/pytest -q/pytest -x/' Makefile", output="")
    _observed(session, "Makefile", {6: "test:", 7: "\tpytest -x --maxfail=1", 8: ""})
    [runs] = only(session.extract(), "x/runs")
    assert "`make test` runs `pytest -x --maxfail=1`" in runs["object"]
    assert "./Makefile: `pytest -x --maxfail=1`" in runs["evidence"]


def test_a_recipe_shown_changed_that_does_not_line_up_is_left_out():
    session = Session()
    session.write(f"{ROOT}/Makefile", MAKEFILE)
    session.bash("make image && make test", output="ok")
    _observed(session, "Makefile", {1: "# built by gen", 2: "TAG ?= 2.0.0", 3: "",
                                    7: "test:", 8: "\tpytest -x", 9: ""})
    assert only(session.extract(), "x/runs") == []


def test_a_subagents_record_is_not_the_sessions():
    session = Session()
    _guide_read(session)
    _observed(session, "AGENTS.md", {2: "", 3: "- Always run `make verify` before committing.",
                                     4: "- Keep `api/v1/` stable."})
    session.events[-1] = replace(session.events[-1], subagent_id="a1")
    assert observations(SessionView.of(session.transcript(), ROOT)) == {}
    assert len(_conventions(session)) == 2


def _end_state(session: Session) -> dict[str, str]:
    return dict(digest(SessionView.of(session.transcript(), ROOT)).record.written)


def test_the_end_state_of_a_written_file_gains_the_lines_recorded_after_its_last_write():
    session = Session()
    session.write(f"{ROOT}/src/app.py", "def run():\n    pass\n")
    session.bash("ruff format src", output="1 file reformatted")
    _observed(session, "src/app.py", {1: "def run() -> None:", 2: "    retry_limit = 3"})
    assert "retry_limit = 3" in _end_state(session)["src/app.py"]
    assert "def run():\n    pass" in _end_state(session)["src/app.py"]  # nothing taken away


def test_a_record_does_not_make_a_file_written_nor_outlive_a_later_write():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/README.md"}, output="# App\n")
    _observed(session, "README.md", {1: "# App", 2: "retry_limit"})
    session.write(f"{ROOT}/src/app.py", "def run():\n    pass\n")
    _observed(session, "src/app.py", {2: "    stale_name = 1"})
    session.write(f"{ROOT}/src/app.py", "def run():\n    return 1\n")
    written = _end_state(session)
    assert "README.md" not in written
    assert written["src/app.py"] == "def run():\n    return 1\n"
