"""A runner fact whose command's last run said the command is not there (pure logic)."""

from __future__ import annotations

from claimgraph.capture.extract.no_longer_runs import command_of, stopped_running

MISSING = "make test\nmake: *** No rule to make target 'test'.  Stop."


def test_the_command_of_a_runner_fact():
    assert command_of({"predicate": "core/tested-by", "object": "make test"}) == "make test"
    assert command_of({"predicate": "x/runs", "object": "its dev server with `npm run dev`"}) \
        == "npm run dev"
    assert command_of({"predicate": "x/runs", "object": "`just test` runs `cargo test`"}) is None
    assert command_of({"predicate": "x/convention", "object": "make test"}) is None


def test_the_last_run_decides():
    assert stopped_running("make test", [(5, MISSING)], [(2, "make test")])
    assert not stopped_running("make test", [(5, MISSING)], [(7, "make test -k round")])
    assert stopped_running("make test", [(5, "make test -k x\n" + MISSING.split("\n")[1])], [])


def test_an_ordinary_failure_or_a_chained_line_says_nothing():
    assert not stopped_running("make test", [(5, "make test\nFAIL: TestRound")], [])
    assert not stopped_running("make test", [(5, "cd api && make test\nsh: cd: api: No such "
                                                  "file or directory")], [])
    assert not stopped_running("make test", [(5, "make testall\n" + MISSING)], [])


def test_a_failure_that_names_something_other_than_the_command_says_nothing():
    # a prerequisite of the target is missing: the target itself is there
    assert not stopped_running("make test", [(5, "make test\nmake: *** No rule to make target "
                                                  "'fixtures/db.sql', needed by 'test'.  Stop.")],
                               [])
    # another target of the same program is missing: `make` itself still builds
    assert not stopped_running("make", [(5, "make lint\nmake: *** No rule to make target "
                                            "'lint'.  Stop.")], [])
    # the arguments given after the command were wrong, not the command
    assert not stopped_running("pytest", [(5, "pytest tests/gone.py\nERROR: file or directory "
                                              "not found: tests/gone.py")], [])
    assert not stopped_running("pytest", [(5, "pytest --timeout 5\npytest: error: unrecognized "
                                              "arguments: --timeout")], [])
    # the command alone failing to start still counts
    assert stopped_running("pytest", [(5, "pytest\nERROR: usage: pytest [options]")], [])
    assert stopped_running("npm run dev", [(5, "npm run dev -- --port 3000\n"
                                               'npm ERR! Missing script: "dev"')], [])


def test_a_program_the_machine_cannot_find_is_the_machine_not_the_project():
    # the shell lost the virtualenv: pytest is still how the project is tested
    assert not stopped_running("pytest", [(5, "pytest\nbash: line 1: pytest: command not found")],
                               [])
    assert not stopped_running("make test", [(5, "make test\n'make' is not recognized as an "
                                                 "internal or external command")], [])
    # a script of the project's own that is gone is the project
    assert stopped_running("bin/dev", [(5, "bin/dev\nbash: bin/dev: command not found")], [])
