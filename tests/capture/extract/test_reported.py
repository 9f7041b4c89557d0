"""Lessons from failures the user pasted: the report, the session's fix, proof that it held."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.reported import pasted_failure, reported_lesson_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

TRACEBACK = ("I ran the app and got this:\n"
             "Traceback (most recent call last):\n"
             '  File "/home/dev/shop/shop/cart.py", line 12, in total\n'
             "    return sum(item.price for item in self.items)\n"
             "AttributeError: 'Cart' object has no attribute 'items'\n")
CI_LOG = ("Run python -m pytest -q\n"
          "..F..\n"
          "=================================== FAILURES ===================================\n"
          "E   ImportError: libfoo.so.1: cannot open shared object file\n"
          "Error: Process completed with exit code 1.\n")
CI_LOG_LATER = ("Run python -m pytest -q\n"
                "....F\n"
                "=================================== FAILURES ===================================\n"
                "E   KeyError: 'size'\n"
                "Error: Process completed with exit code 1.\n")


def _lessons(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), ROOT)
    return [c["object"] for c in reported_lesson_candidates(view)]


def _fixed(report: str) -> Session:
    session = Session()
    session.prompt(report)
    session.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
    return session


def test_a_pasted_traceback_fixed_and_the_person_saying_it_works_is_a_lesson():
    session = _fixed(TRACEBACK)
    session.prompt("That works now, thanks. Next, add a discount field.")
    assert _lessons(session) == [
        "A run the user reported failed: AttributeError: 'Cart' object has no attribute "
        "'items'; fixed by editing shop/cart.py"]


def test_moving_on_after_a_passing_check_proves_the_fix():
    session = _fixed(TRACEBACK)
    session.bash("pytest -q", output="5 passed in 0.1s")
    session.prompt("Now add a discount field to the cart.")
    assert len(_lessons(session)) == 1


def test_moving_on_without_any_check_proves_nothing():
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/models.py", "items = []", "items: list = []")
    session.prompt("Now add a discount field to the cart.")
    assert _lessons(session) == []


def test_moving_on_after_a_fix_where_the_log_points_proves_it():
    session = _fixed(TRACEBACK)  # the traceback names shop/cart.py, the file the fix edited
    session.prompt("Now add a discount field to the cart.")
    assert len(_lessons(session)) == 1


def test_an_edit_after_the_passing_check_needs_a_check_of_its_own():
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/models.py", "items = []", "items: list = []")
    session.bash("pytest -q", output="5 passed in 0.1s")
    session.edit(f"{ROOT}/shop/models.py", "items: list = []", "items: list[int] = []")
    session.prompt("Now add a discount field to the cart.")
    assert _lessons(session) == []


@pytest.mark.parametrize("reply", [
    "Still crashes with the same traceback.",
    "It didn't help, the page is blank.",
])
def test_the_person_complaining_refutes_the_fix(reply: str):
    session = _fixed(TRACEBACK)
    session.bash("pytest -q", output="5 passed in 0.1s")
    session.prompt(reply)
    assert _lessons(session) == []


def test_the_same_error_pasted_again_refutes_and_only_later_edits_are_the_fix():
    session = _fixed(TRACEBACK)
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/models.py", "items = []", "items: list = []")
    session.prompt("it works now")
    assert _lessons(session) == [
        "A run the user reported failed: AttributeError: 'Cart' object has no attribute "
        "'items'; fixed by editing shop/models.py"]


def test_a_later_log_of_the_same_check_past_the_error_proves_it():
    session = Session()
    session.prompt(CI_LOG)
    session.edit(f"{ROOT}/shop/ui.py", "import foo", "foo = None")
    session.prompt(CI_LOG_LATER)
    assert _lessons(session) == [
        "`python -m pytest -q` failed: ImportError: libfoo.so.1: cannot open shared object "
        "file; fixed by editing shop/ui.py"]


def test_a_later_log_of_another_check_proves_nothing():
    session = Session()
    session.prompt(CI_LOG)
    session.edit(f"{ROOT}/shop/ui.py", "import foo", "foo = None")
    session.prompt(CI_LOG_LATER.replace("python -m pytest -q", "mkdocs build --strict"))
    assert _lessons(session) == []


def test_only_test_files_or_new_files_changed_is_no_lesson():
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/tests/test_cart.py", "items", "lines")
    session.write(f"{ROOT}/shop/compat.py", "lines = []\n")
    session.prompt("works now")
    assert _lessons(session) == []


def test_a_fix_around_a_module_the_error_names_is_a_workaround():
    session = Session()
    session.bash("cat shop/scaffold.py", output="def init(): pass")
    session.prompt("Traceback (most recent call last):\n"
                   "AttributeError: module 'shop.scaffold' has no attribute 'init_workspace'\n")
    session.edit(f"{ROOT}/shop/cli.py", "from .scaffold import init_workspace",
                 "init_workspace = None")
    session.prompt("that fixed it")
    assert _lessons(session) == []


def test_no_report_without_an_edit_and_no_lesson_without_a_report():
    session = Session()
    session.prompt(TRACEBACK)
    session.prompt("works now")
    session.edit(f"{ROOT}/shop/cart.py", "a", "b")
    session.prompt("works now")
    assert _lessons(session) == []


@pytest.mark.parametrize("text", [
    "I get an error: the page is blank when I open it",  # the person's words, not a log
    "it crashed, see the log",
    "3 failed\nplease fix",  # a count, no named error
    "",
])
def test_prose_about_a_failure_is_no_pasted_log(text: str):
    assert pasted_failure(text) is None


@pytest.mark.parametrize("text, error, check", [
    (TRACEBACK, "AttributeError: 'Cart' object has no attribute 'items'", None),
    (CI_LOG, "ImportError: libfoo.so.1: cannot open shared object file", "python -m pytest -q"),
    ("Sources/App/View.swift:695: Fatal error: Index out of range\n",
     "Sources/App/View.swift:695: Fatal error: Index out of range", None),
    ("$ npm run build\nsrc/a.ts:3:5: error TS2304: Cannot find name 'x'.\n",
     "src/a.ts:3:5: error TS2304: Cannot find name 'x'", "npm run build"),
])
def test_a_pasted_log_gives_its_error_and_the_command_it_came_from(text, error, check):
    assert pasted_failure(text) == (error, check)


@pytest.mark.parametrize("reply", [
    "it works locally but CI fails with the same thing",
    "That works now but the export is still broken",
])
def test_works_with_a_failure_beside_it_is_no_proof(reply: str):
    session = _fixed(TRACEBACK)
    session.prompt(reply)
    assert _lessons(session) == []


def test_no_more_errors_is_a_confirmation():
    session = _fixed(TRACEBACK)
    session.prompt("no more errors, thanks!")
    assert len(_lessons(session)) == 1


def test_a_markdown_heading_or_quote_is_no_command():
    text = "# Notes on the crash\n> see below\nKeyError: 'size'\n"
    assert pasted_failure(text) == ("KeyError: 'size'", None)


def test_the_files_the_log_points_at_are_the_fix_named():
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/templates/list.html", "<ul>", "<ol>")
    session.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
    session.prompt("Now add a discount field to the cart.")
    assert _lessons(session) == [
        "A run the user reported failed: AttributeError: 'Cart' object has no attribute "
        "'items'; fixed by editing shop/cart.py"]


def test_a_long_error_cut_short_is_still_seen_again_in_a_later_log():
    long_error = "Run python -m pytest -q\nE   ImportError: " + "x" * 150 + "\n"
    session = Session()
    session.prompt(long_error)
    session.edit(f"{ROOT}/shop/ui.py", "import foo", "foo = None")
    session.prompt(long_error + "E   KeyError: 'size'\n")
    assert _lessons(session) == []


#: A made-up publish log introduced by the person's sentence, whose "error" word would make it
#: the most telling line if it were read with the log.
PUBLISH = ("i tried to ship it with `make release` but got this error:\\\n"
           "$ make release\n"
           "Packing the wheel for upload to the index now, please wait\n"
           "upload: 403 Forbidden from https://upload.example.org/legacy/\n"
           "error: twine exited with code 1\n")


def test_a_log_introduced_by_the_persons_own_sentence_is_read_without_it():
    error, check = pasted_failure(PUBLISH) or ("", None)
    assert error == "error: twine exited with code 1" and check == "make release"


def test_the_persons_lead_in_is_no_program_output_and_the_log_still_teaches():
    session = Session()
    session.prompt(PUBLISH)
    session.edit(f"{ROOT}/Makefile", "twine upload dist/*", "twine upload --repository shop dist/*")
    session.prompt("$ make release\nupload: done, 1 file\n\nthat works now")
    assert _lessons(session) == [
        "`make release` failed: error: twine exited with code 1; fixed by adding "
        "`twine upload --repository shop dist/*` to Makefile"]


def test_a_sentence_with_no_log_after_it_is_still_no_report():
    assert pasted_failure("I got this error when running the build: it failed") is None
    assert pasted_failure("The build failed with an error:\nplease look into it") is None


@pytest.mark.parametrize("text, error", [
    ("$ make build\nERROR: missing dependency libssl\n", "ERROR: missing dependency libssl"),
    ("Error: ENOENT: no such file, open 'conf.yml'\n",
     "Error: ENOENT: no such file, open 'conf.yml'"),
    ("Fatal: not a git repository (or any parent)\n",
     "Fatal: not a git repository (or any parent)"),
    ("[ERROR] Failed to execute goal compile on project shop\n",
     "Failed to execute goal compile on project shop"),
    ("[error] worker pool exhausted after 3 retries\n",
     "[error] worker pool exhausted after 3 retries"),
    ("2024-05-01 10:00:02,114 ERROR db connection refused\n",
     "2024-05-01 10:00:02,114 ERROR db connection refused"),
    ("12:00:01 | CRITICAL | queue consumer died\n", "12:00:01 | CRITICAL | queue consumer died"),
])
def test_a_line_a_severity_opens_in_any_case_is_a_pasted_error(text: str, error: str):
    assert pasted_failure(text)[0] == error


@pytest.mark.parametrize("text", [
    "Error handling is slow on big carts",  # names errors, reports none
    "ERROR IS STILL THERE",  # shouting, no log shape
    "the error: the page is blank",
    "Critical thinking: we need a plan first",
    "Run make test\nError: Process completed with exit code 1.\n",  # says only that it ended
])
def test_prose_naming_a_severity_or_an_exit_is_no_pasted_error(text: str):
    assert pasted_failure(text) is None


def test_an_upper_case_error_pasted_and_fixed_is_a_lesson():
    session = Session()
    session.prompt("$ make build\nERROR: cart total undefined for empty carts\n")
    session.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
    session.prompt("That works now, thanks.")
    assert _lessons(session) == [
        "`make build` failed: ERROR: cart total undefined for empty carts; fixed by editing "
        "shop/cart.py"]


# A log the person's run wrote, read by the session at their word: their report too.
OLD_CRASH = ("Traceback (most recent call last):\n"
             '  File "/home/dev/shop/shop/app.py", line 3, in <module>\n'
             "    import widgets\n"
             "ModuleNotFoundError: No module named 'widgets'\n")
CRASH = ("Traceback (most recent call last):\n"
         '  File "/home/dev/shop/shop/panel.py", line 40, in show\n'
         "    self.mount(Label(text, id='header'))\n"
         '  File "/home/dev/shop/.venv/lib/python3.12/site-packages/tk/dom.py", line 9, in mount\n'
         "    raise ClashingIds(name)\n"
         "tk.dom.ClashingIds: a node with id 'header' is already mounted\n")


def _log_read(session: Session, text: str, *, tool: str = "Read") -> None:
    numbered = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(text.splitlines(), 1))
    if tool == "Read":
        session.tool("Read", {"file_path": f"{ROOT}/.crash.log"}, output=numbered)
    else:
        session.bash("tail -40 .crash.log", output=text)


@pytest.mark.parametrize("tool", ["Read", "Bash"])
def test_a_crash_log_read_at_the_persons_word_is_their_report(tool: str):
    session = Session()
    session.prompt("it crashed again, can you look at the crash log?")
    _log_read(session, OLD_CRASH + "\n--- crash ---\n" + CRASH, tool=tool)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == [
        "`.crash.log` showed a failure: tk.dom.ClashingIds: a node with id 'header' is "
        "already mounted; fixed by editing shop/panel.py"]


def test_a_log_read_after_the_session_ran_something_is_no_report():
    session = Session()
    session.prompt("it crashed again, can you look at the crash log?")
    session.bash("python -m shop --smoke", output="started")  # the log may be this run's
    _log_read(session, CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == []


def test_a_file_that_is_no_log_is_no_report():
    session = Session()
    session.prompt("have a look at the notes")
    session.tool("Read", {"file_path": f"{ROOT}/notes.txt"}, output=CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == []


def test_the_same_failure_in_the_log_later_refutes_the_fix():
    session = Session()
    session.prompt("it crashed, check the crash log")
    _log_read(session, CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    session.edit(f"{ROOT}/shop/listing.py", "rows", "sorted(rows)")
    session.prompt("it crashed, check the crash log")
    _log_read(session, CRASH)
    assert _lessons(session) == []


def test_a_log_fix_the_person_complains_about_is_no_lesson():
    session = Session()
    session.prompt("it crashed, check the crash log")
    _log_read(session, CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("it still crashes when I click twice")
    assert _lessons(session) == []


def test_a_log_without_a_python_traceback_reports_its_latest_failure():
    """A server's log keeps last week's failure above today's: today's is the report."""
    log = ("2026-03-02 09:14:01 ERROR queue unreachable (shop/orders.py:8)\n"
           "2026-03-09 10:00:00 INFO listening on :8080\n"
           "2026-03-09 10:02:13 ERROR order 17 has no customer id (shop/orders.py:42)\n")
    session = Session()
    session.prompt("the server fell over, the log is server.log")
    session.bash("tail -n 50 server.log", output=log)
    session.edit(f"{ROOT}/shop/orders.py", "order.customer", "order.customer_id")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == [
        "`server.log` showed a failure: 2026-03-09 10:02:13 ERROR order 17 has no customer "
        "id (shop/orders.py:42); fixed by editing shop/orders.py"]


@pytest.mark.parametrize("command", [
    "curl -s localhost:8080/orders/17",  # the request makes the server log anew
    "xargs -a ids.txt python -m shop.replay",  # runs the project
    "open dist/Shop.app",  # starts the app
])
def test_a_log_read_after_a_command_that_may_have_written_it_is_no_report(command: str):
    session = Session()
    session.prompt("it crashed again, can you look at the crash log?")
    session.bash(command, output="")
    _log_read(session, CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == []


def test_a_log_the_sessions_own_command_wrote_is_no_report():
    """The session started the app with its output sent to the log: the failure in it is the
    session's own run, maybe its work in progress, not the person's report."""
    session = Session()
    session.prompt("start the app so I can try it")
    session.bash("python -m shop > .crash.log 2>&1 &", output="")
    session.prompt("it crashed, can you look at the crash log?")
    _log_read(session, CRASH)
    session.edit(f"{ROOT}/shop/panel.py", "Label(text, id='header')", "Label(text)")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == []


def test_a_runners_closing_exit_line_does_not_hide_the_failure_above_it():
    log = ("2026-03-09 10:02:13 ERROR order 17 has no customer id (shop/orders.py:42)\n"
           "Error: Process completed with exit code 1\n")
    session = Session()
    session.prompt("the job failed, its log is in job.log")
    session.tool("Read", {"file_path": f"{ROOT}/job.log"}, output=log)
    session.edit(f"{ROOT}/shop/orders.py", "order.customer", "order.customer_id")
    session.prompt("Next, sort the list by date.")
    assert _lessons(session) == [
        "`job.log` showed a failure: 2026-03-09 10:02:13 ERROR order 17 has no customer "
        "id (shop/orders.py:42); fixed by editing shop/orders.py"]
