"""``lazy_regex``: a module-level pattern is compiled on first use, then is the compiled one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claimgraph.logic.lazy_regex import LazyPattern, lazy_regex


def test_nothing_is_compiled_until_a_method_is_called(monkeypatch):
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda p, f=0: compiled.append(p) or real(p, f))
    pattern = lazy_regex(r"(?P<word>\w+)=(\d+)", re.IGNORECASE)
    assert compiled == [] and pattern.pattern == r"(?P<word>\w+)=(\d+)"
    assert pattern.search("x a=1")["word"] == "a"
    assert compiled == [r"(?P<word>\w+)=(\d+)"]
    pattern.search("b=2")
    assert len(compiled) == 1


@pytest.mark.parametrize("method, args", [
    ("match", ("KEY=12 y=3",)), ("search", ("  y=3",)), ("fullmatch", ("y=3",)),
    ("findall", ("a=1 b=2",)), ("sub", (r"\2", "a=1 b=2")), ("subn", ("-", "a=1 b=2")),
    ("split", ("a=1 b=2",)), ("match", ("zz a=1", 3)), ("search", ("a=1 b=2", 2, 6)),
])
def test_every_method_gives_what_the_compiled_pattern_gives(method, args):
    lazy, real = lazy_regex(r"(\w+)=(\d+)", re.I), re.compile(r"(\w+)=(\d+)", re.I)
    first, again = getattr(lazy, method)(*args), getattr(lazy, method)(*args)
    expected = getattr(real, method)(*args)
    if isinstance(expected, re.Match):
        assert (first.span(), first.groups()) == (again.span(), again.groups()) == (
            expected.span(), expected.groups())
    else:
        assert first == again == expected
    assert [m.span() for m in lazy.finditer("a=1 b=2")] == [(0, 3), (4, 7)]


def test_after_the_first_call_the_methods_are_the_compiled_patterns_own():
    pattern = lazy_regex(r"\d+")
    assert isinstance(pattern, LazyPattern)
    pattern.match("1")
    compiled = pattern.compiled()
    assert pattern.search == compiled.search and pattern.sub == compiled.sub
    assert pattern.search.__self__ is compiled  # no wrapper left between caller and pattern


def test_the_compiled_attributes_are_there_and_others_are_not():
    pattern = lazy_regex(r"(?P<a>x)(y)", re.MULTILINE)
    assert (pattern.groups, pattern.groupindex["a"]) == (2, 1)
    assert pattern.flags == re.compile(r"(?P<a>x)(y)", re.MULTILINE).flags
    with pytest.raises(AttributeError):
        pattern.nothing  # noqa: B018


def test_a_bad_pattern_fails_at_its_first_use():
    pattern = lazy_regex(r"(unclosed")
    with pytest.raises(re.error):
        pattern.search("x")


def test_no_module_asks_a_match_whether_a_lazy_pattern_made_it():
    """``match.re`` is the compiled pattern, never the stand-in: ``match.re is _X`` would be
    False for every match of a lazy ``_X`` (two capture rules did this, checked)."""
    src = Path(__file__).resolve().parents[2] / "src" / "claimgraph"
    found = []
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"^(\w+)(?:: [^=]+)? = lazy_regex\(", text, re.MULTILINE):
            compared = r"\s*(?:is not|is|==|!=)\s*"
            asked = rf"\.re{compared}{name}\b|\b{name}{compared}\w+\.re\b"
            found += [f"{path.name}: {m[0]}" for m in re.finditer(asked, text)]
    assert found == []


def test_the_compiled_pattern_takes_the_stand_ins_place_in_its_modules_globals():
    module: dict = {}
    exec("from claimgraph.logic.lazy_regex import lazy_regex\n"
         "WORD = lazy_regex(r'\\w+')\nALSO = WORD\nKEPT = (WORD,)\n"
         "def first(text):\n    return WORD.match(text)[0]\n", module)
    stand_in = module["WORD"]
    assert isinstance(stand_in, LazyPattern) and module["ALSO"] is stand_in
    assert module["first"]("abc def") == "abc"
    assert isinstance(module["WORD"], re.Pattern) and module["ALSO"] is module["WORD"]
    assert module["KEPT"][0] is stand_in  # held elsewhere: still the stand-in, still working
    assert stand_in.search("  xy").span() == (2, 4) and stand_in.compiled() is module["WORD"]
