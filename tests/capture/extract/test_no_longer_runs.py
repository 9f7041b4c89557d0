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
