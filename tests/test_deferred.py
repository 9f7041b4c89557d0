"""``claimgraph.deferred``: a deferred module is loaded on first use, and is then the real one
for whoever imported the stand-in and for every later import. Each case runs in a fresh
interpreter: a test process has asyncio loaded already (pytest's plugins)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def run_fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_an_import_does_not_load_a_deferred_module():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        assert defer("asyncio")
        import structlog, asyncio
        structlog.get_logger("probe")
        print(sorted(m for m in sys.modules if m.startswith(("asyncio.", "ssl", "_ssl"))))
    """)
    assert out.strip() == "[]"


def test_the_first_use_loads_the_real_module_for_everyone():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        defer("asyncio")
        import asyncio as early
        async def answer():
            return 42
        print(early.run(answer()))
        import asyncio
        print(sys.modules["asyncio"] is asyncio, type(asyncio).__name__, "ssl" in sys.modules)
        print(early.Future is asyncio.Future, early.run is asyncio.run)
        from asyncio import tasks
        import asyncio.events
        print(tasks is asyncio.tasks, asyncio.events.get_event_loop_policy() is not None)
    """)
    assert out.split("\n")[:4] == ["42", "True module True", "True True", "True True"]


def test_a_submodule_import_loads_the_real_package_first():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        defer("asyncio")
        import asyncio.events
        print(type(sys.modules["asyncio"]).__name__, asyncio.events.__name__)
    """)
    assert out.split() == ["module", "asyncio.events"]


def test_nothing_is_deferred_once_loaded_or_when_missing():
    out = run_fresh("""
        import json, sys
        from claimgraph.deferred import defer
        print(defer("json"), defer("no_such_module_here"), defer("os.path"))
        print(sys.modules["json"] is json, "no_such_module_here" in sys.modules)
    """)
    assert out.split() == ["False", "False", "False", "True", "False"]


def test_gettext_answers_untranslated_without_loading_where_no_catalog_can_exist(tmp_path):
    """argparse binds gettext's two functions at import: with no catalog directory they answer
    as the real ones would (the message itself), and neither gettext nor locale is loaded."""
    out = run_fresh(f"""
        import sys
        from claimgraph.deferred import defer_gettext
        print(defer_gettext({str(tmp_path / "none")!r}))
        import argparse
        from gettext import gettext, ngettext
        print(gettext("usage: "), ngettext("one", "many", 1), ngettext("one", "many", 2))
        parser = argparse.ArgumentParser(prog="p")
        parser.add_argument("--n", type=int)
        print(parser.format_usage().strip())
        print(type(sys.modules["gettext"]).__name__, "locale" in sys.modules)
    """)
    assert out.splitlines() == ["True", "usage:  one many", "usage: p [-h] [--n N]",
                                "_StandIn False"]


def test_gettext_hands_every_call_to_the_real_module_where_a_catalog_may_exist(tmp_path):
    """A catalog directory exists: the first call loads the real module, and every call is
    its answer (argparse's functions included)."""
    (tmp_path / "locale").mkdir()
    out = run_fresh(f"""
        import sys
        from claimgraph.deferred import defer_gettext
        defer_gettext({str(tmp_path / "locale")!r})
        import argparse
        print(argparse._("usage: "), type(sys.modules["gettext"]).__name__)
        import gettext
        print(gettext.gettext is sys.modules["gettext"].gettext, gettext.textdomain())
    """)
    assert out.splitlines() == ["usage:  module", "True messages"]


def test_gettext_used_for_real_takes_over_the_bound_functions(tmp_path):
    """Once anything else of gettext is used (a domain set, say), the functions argparse
    bound ask the real module, which then decides."""
    out = run_fresh(f"""
        import sys
        from claimgraph.deferred import defer_gettext
        defer_gettext({str(tmp_path / "none")!r})
        from gettext import gettext as early
        import gettext
        print(gettext.textdomain("probe"), type(sys.modules["gettext"]).__name__)
        calls = []
        real = sys.modules["gettext"]
        real.dgettext = lambda domain, message: calls.append(domain) or message.upper()
        print(early("usage: "), calls)
    """)
    assert out.split() == ["probe", "module", "USAGE:", "['probe']"]


def test_a_plain_module_s_stand_in_has_no_path_and_stays_deferred():
    """``from m import x`` asks a module for ``__path__`` first: a plain module's stand-in
    says it has none without loading, a package's stand-in loads (its submodules need it)."""
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer
        defer("ipaddress"), defer("asyncio")
        print(hasattr(sys.modules["ipaddress"], "__path__"),
              type(sys.modules["ipaddress"]).__name__)
        from ipaddress import ip_address
        print(ip_address("::1"), type(sys.modules["ipaddress"]).__name__)
        print(hasattr(sys.modules["asyncio"], "__path__"), type(sys.modules["asyncio"]).__name__)
    """)
    assert out.splitlines() == ["False _StandIn", "::1 module", "True module"]


def test_pathlib_imports_without_urllib_parse_and_its_uris_are_the_real_ones():
    """``pathlib`` binds ``quote_from_bytes`` at import: the stand-in's own loads the real
    module on its first call, and every URI is the one the real function gives."""
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_urllib_parse
        assert defer_urllib_parse()
        import pathlib
        print(type(sys.modules["urllib.parse"]).__name__)
        uri = pathlib.Path("/tmp/a b%c/é?#").as_uri()
        print(type(sys.modules["urllib.parse"]).__name__)
        import urllib.parse
        print(uri == "file://" + urllib.parse.quote_from_bytes("/tmp/a b%c/é?#".encode()))
        print(urllib.parse is sys.modules["urllib.parse"], urllib.parse.quote("a b"))
    """)
    assert out.splitlines() == ["_StandIn", "module", "True", "True a%20b"]


def test_any_other_name_of_urllib_parse_loads_it_for_everyone():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_urllib_parse
        assert defer_urllib_parse()
        import pathlib
        from urllib.parse import urlsplit
        import urllib.parse
        print(urlsplit("https://h.example/p").netloc, urllib.parse.urlsplit("s://x/").netloc,
              type(sys.modules["urllib.parse"]).__name__)
    """)
    assert out.strip() == "h.example x module"


def test_urllib_parse_is_not_deferred_once_pathlib_holds_the_real_function():
    out = run_fresh("""
        import pathlib
        from claimgraph.deferred import defer_urllib_parse
        print(defer_urllib_parse())
    """)
    assert out.strip() == "False"


def test_sqlite3_imports_with_the_c_datetime_alone_and_its_dates_round_trip():
    """``datetime``'s stand-in carries ``_datetime``'s names (the objects the real module ends
    up with): sqlite3 registers its adapters on them, and a date still round-trips."""
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_datetime
        assert defer_datetime()
        import sqlite3, _datetime
        import datetime
        con = sqlite3.connect(":memory:", detect_types=sqlite3.PARSE_DECLTYPES)
        con.execute("CREATE TABLE t (d date)")
        con.execute("INSERT INTO t VALUES (?)", (datetime.date(2026, 12, 6),))
        back = con.execute("SELECT d FROM t").fetchone()[0]
        print(type(sys.modules["datetime"]).__name__, back == datetime.date(2026, 12, 6),
              type(back) is _datetime.date, sqlite3.Date is _datetime.date,
              datetime.timezone.utc is _datetime.timezone.utc)
    """)
    assert out.split() == ["_StandIn", "True", "True", "True", "True"]


def test_any_other_name_of_datetime_loads_the_real_module_with_the_same_classes():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_datetime
        defer_datetime()
        import datetime as early
        date = early.date
        print(early.__file__.endswith("datetime.py"), type(sys.modules["datetime"]).__name__)
        import datetime
        print(datetime.date is date, early.datetime is datetime.datetime, hasattr(early, "sys"))
        print(defer_datetime())
    """)
    assert out.split() == ["True", "module", "True", "True", "True", "False"]


def test_pathlib_imports_without_ntpath_and_a_windows_path_still_works():
    """On POSIX, ``ntpath`` serves only ``PureWindowsPath``: pathlib binds its stand-in, and a
    Windows path's first use of it loads the real module."""
    out = run_fresh("""
        import os, sys
        from claimgraph.deferred import defer
        print(defer("ntpath") == (os.name != "nt"))
        import pathlib
        print(type(sys.modules["ntpath"]).__name__ if os.name != "nt" else "_StandIn")
        print(pathlib.Path("/a/b/c").parent.name, pathlib.PureWindowsPath("C:/a/b").name)
        print(str(pathlib.PureWindowsPath("c:/A/b").with_name("x")))
    """)
    assert out.split() == ["True", "_StandIn", "b", "b", "c:\\A\\x"]


def test_a_block_decorated_under_the_contextlib_stand_in_loads_it_at_its_first_call():
    """``contextlib``'s stand-in: decorating a generator loads nothing; the block's first
    call makes the real ``contextmanager``'s block, which enters, leaves, and sees an
    exception raised inside as ``contextlib`` makes it do."""
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_contextlib
        print(defer_contextlib(), defer_contextlib())
        from contextlib import contextmanager

        @contextmanager
        def block(seen):
            "A probe's block."
            seen.append("in")
            try:
                yield len(seen)
            except KeyError:
                seen.append("caught")
            finally:
                seen.append("out")
        print(type(sys.modules["contextlib"]).__name__, block.__name__, block.__doc__)
        seen = []
        with block(seen) as got:
            seen.append(got)
        with block(seen):
            raise KeyError("swallowed by the generator")
        try:
            with block(seen):
                raise ValueError("kept")
        except ValueError as error:
            seen.append(str(error))
        import contextlib
        print(type(sys.modules["contextlib"]).__name__, seen)
        print(contextlib.suppress is sys.modules["contextlib"].suppress)
    """)
    lines = out.splitlines()
    assert lines[0] == "True False"
    assert lines[1] == "_StandIn block A probe's block."
    assert lines[2] == ("module ['in', 1, 'out', 'in', 'caught', 'out', 'in', 'out', 'kept']")
    assert lines[3] == "True"


def test_any_other_name_of_contextlib_loads_the_real_module():
    out = run_fresh("""
        import sys
        from claimgraph.deferred import defer_contextlib
        defer_contextlib()
        from contextlib import suppress
        with suppress(KeyError):
            raise KeyError("gone")
        print(type(sys.modules["contextlib"]).__name__, suppress.__module__)
    """)
    assert out.split() == ["module", "contextlib"]
