"""The parser, the dispatch table and the error boundary: exit codes 0/1/2/130 and their
messages."""

from __future__ import annotations

import argparse

import pytest

from claimgraph import __version__
from claimgraph.cli import info
from claimgraph.cli.commands import GROUP_OF, GROUPS, dispatch_table
from claimgraph.cli.main import main, plain_search
from claimgraph.cli.parser import build_parser, command_word, parser_for
from claimgraph.errors import ClaimgraphError

from .conftest import one_line


def leaf_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every runnable command line ("facts", "entity merge", ...) and its parser."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or prefix == "predicates":
            found[prefix] = parser
        for action in subs:
            for name, child in action.choices.items():
                walk(child, f"{prefix} {name}".strip())
    walk(build_parser(), "")
    found.pop("", None)
    return found


COMMAND_LINES = sorted(leaf_parsers())
TOP_LEVEL = ("init assert facts history search neighbor invalidate conflicts entity predicates "
             "evidence dump load stats config version demo capture curate hook install uninstall "
             "audit provenance context daemon logs status "
             "recall coach outcome mcp doctor forget purge serve sync migrate completion").split()


def test_every_dispatch_entry_has_a_parser_and_every_parser_a_handler():
    parsers = set(leaf_parsers()) - {"predicates"}  # bare `predicates` runs `predicates list`
    assert set(dispatch_table()) == parsers


def test_the_command_table_names_each_groups_commands_and_nothing_else():
    """GROUP_OF is read without importing a group; it must say what the groups define."""
    defined = {}
    for group in GROUPS:
        parser = build_parser([group])
        subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        defined.update((name, group) for name in subs.choices)
    assert defined == GROUP_OF


def test_every_cli_module_with_commands_is_a_group():
    import pkgutil

    from claimgraph import cli
    with_commands = {m.name for m in pkgutil.iter_modules(cli.__path__)
                     if hasattr(__import__(f"claimgraph.cli.{m.name}", fromlist=["_"]), "COMMANDS")}
    assert with_commands == set(GROUPS)


@pytest.mark.parametrize("argv, word", [
    (["facts", "api"], "facts"), (["--json", "search", "x"], "search"),
    (["--db", "facts", "status"], "status"), (["--db=x.db", "stats"], "stats"),
    (["--lease-wait", "5", "init"], "init"), (["--lease", "5", "init"], "init"),
    (["--config", "c.toml", "entity", "list"], "entity"), (["--version"], None), ([], None),
    (["--", "facts"], None)])
def test_the_command_word_skips_global_flags_and_their_values(argv, word):
    assert command_word(argv) == word


@pytest.mark.parametrize("argv", [
    ["search", "retry"], ["search", "retry", "postgres"], ["search", ""], ["search", "search"],
    ["search", "a=b", "@file", "naïve café", "x y", "1", "5e3", "x-y"]])
def test_a_plain_search_reads_as_the_parser_reads_it(argv):
    """``search WORD...`` skips argparse (``plain_search``): every attribute the parser sets,
    with its value, and nothing more (a new option of ``search`` fails this until it is
    added there too)."""
    assert vars(plain_search(argv)) == vars(parser_for(argv).parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["search"], ["search", "-n", "3", "x"], ["search", "x", "--json"], ["search", "x", "-n5"],
    ["--json", "search", "x"], ["search", "--", "x"], ["search", "-5"], ["search", "-"],
    ["facts", "x"], ["neighbor", "x"], []])
def test_any_other_command_line_goes_to_the_parser(argv):
    assert plain_search(argv) is None


@pytest.mark.parametrize("command", COMMAND_LINES)
def test_every_command_has_help_that_exits_zero(cli, command):
    result = cli(*command.split(), "--help")
    assert result.code == 0
    assert f"claimgraph {command}" in result.out
    assert result.err == ""


def test_top_level_help_mentions_every_command(cli):
    result = cli("--help")
    assert result.code == 0
    for command in TOP_LEVEL:
        assert command in result.out


def test_every_command_has_a_one_line_summary_in_the_top_level_help():
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {choice.dest: choice.help for choice in subs._choices_actions}
    assert sorted(summaries) == sorted(TOP_LEVEL)
    assert all(summaries.values())


def test_version_flag_prints_the_version(cli):
    result = cli("--version")
    assert (result.code, result.out.strip()) == (0, f"claimgraph {__version__}")


def test_no_command_shows_the_help_and_succeeds(cli):
    result = cli()
    assert result.code == 0 and "usage: claimgraph" in result.out and not result.err


def test_global_flags_without_a_command_are_a_usage_error_with_exit_two(cli):
    result = cli("--json")
    assert result.code == 2
    assert "required" in result.err and "--help" in result.err


def test_unknown_command_is_a_usage_error_naming_it(cli):
    result = cli("facst", "api")
    assert result.code == 2
    assert "invalid choice: 'facst'" in result.err


def test_a_bad_flag_value_is_a_usage_error(cli):
    result = cli("assert", "api", "prefers", "REST", "--on-conflict", "overwrite")
    assert result.code == 2
    assert "--on-conflict" in result.err


@pytest.mark.parametrize("wait", ["-5", "soon", "1.5"])
def test_a_lease_wait_that_is_not_whole_milliseconds_is_a_usage_error(cli, wait):
    result = cli("--lease-wait", wait, "init")
    assert result.code == 2
    assert f"argument --lease-wait: {wait!r} is not a whole number of milliseconds" in result.err


def test_usage_errors_under_json_are_json_on_stderr(cli):
    result = cli("--json", "history", "api")
    assert result.code == 2
    error = result.error()
    assert error["type"] == "usage" and "PREDICATE" in error["error"]


def test_global_flags_work_before_and_after_the_command(cli, tmp_path):
    db = tmp_path / "x.db"
    assert cli("--db", str(db), "init").code == 0
    assert cli("stats", "--db", str(db), "--json").json()["db"] == str(db)
    assert cli("--json", "--db", str(db), "stats").json()["db"] == str(db)


def test_an_expected_failure_is_one_line_with_a_hint_and_exit_one(cli):
    result = cli("facts", "api")
    assert result.code == 1
    line = one_line(result.err)
    assert line.startswith("claimgraph: there is no claimgraph store at ")
    assert "claimgraph init" in line


def test_an_expected_failure_under_json_is_the_error_dict(cli, db):
    result = cli("facts", "api", "--json")
    assert result.code == 1
    assert result.error() == {
        "error": f"there is no claimgraph store at {db}", "type": "store-missing",
        "hint": "run `claimgraph init`, or pass --db (or set CLAIMGRAPH_DB) to an existing store",
        "path": str(db)}


def test_an_unexpected_exception_writes_a_crash_file_beside_the_db(cli, db, monkeypatch):
    def explode(ctx, args):
        raise RuntimeError("kaboom")
    monkeypatch.setitem(info.COMMANDS, "stats", explode)
    result = cli("stats")
    assert result.code == 1
    line = one_line(result.err)
    crash = db.parent / f"{db.name}.crash.log"
    assert "unexpected error: RuntimeError: kaboom" in line and str(crash) in line
    report = crash.read_text()
    assert "Traceback" in report and "kaboom" in report and "argv: ['stats']" in report


def test_ctrl_c_exits_130(cli, monkeypatch):
    def interrupted(ctx, args):
        raise KeyboardInterrupt
    monkeypatch.setitem(info.COMMANDS, "stats", interrupted)
    assert cli("stats").code == 130


def test_a_handler_error_keeps_exit_one_even_from_deep_inside(cli, monkeypatch):
    def refuse(ctx, args):
        raise ClaimgraphError("nope", "it failed", hint="do the other thing")
    monkeypatch.setitem(info.COMMANDS, "version", refuse)
    result = cli("version")
    assert (result.code, result.err) == (1, "claimgraph: it failed — do the other thing\n")


def test_main_reads_sys_argv_when_given_none(monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["claimgraph", "version"])
    assert main() == 0
    assert capsys.readouterr().out.startswith("claimgraph ")


def test_an_in_process_call_leaves_the_callers_collector_alone(cli, monkeypatch):
    """Only the process's own command line switches the collector off while it loads and
    freezes what it loaded (claimgraph.startup); a caller's objects are its own."""
    import gc

    from claimgraph import startup
    monkeypatch.setattr(startup, "settled", False)  # an earlier test ran main() as an entry
    frozen = gc.get_freeze_count()
    cli("stats")
    assert cli("mcp", "--cwd", "/nonexistent/claimgraph-dir").code == 1  # after the SDK loads
    assert gc.isenabled() and gc.get_freeze_count() <= frozen  # (frozen objects may die)


def test_the_command_line_in_its_own_process_runs_with_the_collector_on(tmp_path):
    """In a real process the command's own work runs with the collector enabled (a long
    capture or a server must not pile up garbage cycles), and what it loaded is frozen."""
    import subprocess
    import sys
    probe = ("import gc, sys\n"
             "from claimgraph.cli import info, main\n"
             "def seen(ctx, args):\n"
             "    print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
             "    return 0\n"
             "info.COMMANDS['stats'] = seen\n"
             "sys.argv = ['claimgraph', 'stats']\n"
             "sys.exit(main.main())\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stdout.split()) == (0, ["True", "True"]), done.stderr


def test_the_store_s_modules_load_with_the_collector_off_and_are_frozen(tmp_path):
    """The store's modules load when the command first opens it, after the command's own
    modules settled: they load with the collector off too, and are frozen with them
    (``startup.more_imports``); the command then runs with the collector on."""
    import os
    import subprocess
    import sys
    db = tmp_path / "claims.db"
    made = subprocess.run([sys.executable, "-c", "import sys\nfrom claimgraph.opening import "
                           "open_store\nopen_store(sys.argv[1]).close()", str(db)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    probe = ("import gc, sys\n"
             "from claimgraph.cli import info, main\n"
             "def seen(ctx, args):\n"
             "    unloaded = 'claimgraph.store.sqlite' not in sys.modules\n"
             "    frozen = gc.get_freeze_count()\n"
             "    ctx.shell()\n"
             "    print(unloaded, gc.get_freeze_count() > frozen + 1000, gc.isenabled())\n"
             "    return 0\n"
             "info.COMMANDS['stats'] = seen\n"
             "sys.argv = ['claimgraph', 'stats']\n"
             "sys.exit(main.main())\n")
    env = {**os.environ, "CLAIMGRAPH_DB": str(db), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, env=env)
    assert (done.returncode, done.stdout.split()) == (0, ["True", "True", "True"]), done.stderr


def _sub_parser(parser: argparse.ArgumentParser, word: str) -> argparse.ArgumentParser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices[word]
    return found


def _shape(parser: argparse.ArgumentParser) -> list[object]:
    """A parser's help and every argument it reads, nested commands included."""
    shape: list[object] = [parser.format_help()]
    for action in parser._actions:
        shape.append((type(action).__name__, action.option_strings, action.dest,
                      action.nargs, action.default, action.type, action.choices
                      if not isinstance(action, argparse._SubParsersAction) else None))
        if isinstance(action, argparse._SubParsersAction):
            shape += [(name, _shape(p)) for name, p in action.choices.items()]
    return shape


@pytest.mark.parametrize("word", sorted(GROUP_OF))
def test_a_command_s_own_parser_is_the_one_the_full_parser_holds(word):
    """A known command word builds its own parser alone (not its group's others): the same
    help, arguments and nested commands as the full parser's, and nothing else."""
    alone = build_parser([GROUP_OF[word]], only=word)
    sub = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == [word]
    assert _shape(_sub_parser(alone, word)) == _shape(_sub_parser(build_parser(), word))
