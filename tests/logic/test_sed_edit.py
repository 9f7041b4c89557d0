"""A plain sed or perl substitution, read only when it can be applied exactly."""

from __future__ import annotations

import pytest

from claimgraph.logic.sed_edit import apply_all, perl_substitutions, sed_substitutions


@pytest.mark.parametrize("script, extended, line, expected", [
    (r"s/^TAG     ?= 1\.0\.0/TAG     ?= 1.0.1/", False, "TAG     ?= 1.0.0", "TAG     ?= 1.0.1"),
    (r"s/1\.0\.0/1.0.1/", False, "1.0.0 and 1.0.0", "1.0.1 and 1.0.0"),
    (r"s/1\.0\.0/1.0.1/g", False, "1.0.0 and 1.0.0", "1.0.1 and 1.0.1"),
    ("s|a.c|x|", False, "abc a.c", "x a.c"),            # . is any character
    ("s/a+/b/", False, "aa+", "ab"),                    # + is literal in a basic pattern
    ("s/a+/b/", True, "aa+", "b+"),                     # and a repeat in an extended one
    ("s/[0-9][0-9]*/N/g", False, "v12 and 3", "vN and N"),
    ("s/old/& new/", False, "old", "old new"),          # & is the whole match
    ("s/x/y/; s/y/z/", False, "x", "z"),
    ("s/$/;/", False, "end", "end;"),
])
def test_a_plain_sed_substitution_is_applied_line_by_line(script, extended, line, expected):
    subs = sed_substitutions(script, extended)
    assert subs is not None and apply_all(subs, line) == expected


@pytest.mark.parametrize("script", [
    r"s/\(a\)/\1/",         # a group and a back-reference
    "3s/a/b/",              # an address
    "/x/s/a/b/",
    "s/a/b/2",              # a flag this reader does not claim
    "s/a/b\\nc/",           # a newline in the replacement
    "s/[[:digit:]]/N/",     # a class by name
    "y/abc/xyz/",           # not a substitution
    "s/a/b",                # unterminated
    "",
])
def test_anything_else_is_not_read(script):
    assert sed_substitutions(script) is None


def test_a_perl_substitution_reads_like_an_extended_one():
    subs = perl_substitutions(r"s/version = \d+/version = 2/g;")
    assert subs is not None and apply_all(subs, "version = 1") == "version = 2"
    assert perl_substitutions(r"s/(\d+)/$1.0/") is None  # an interpolated group
