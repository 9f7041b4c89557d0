"""No Python source holds a raw control character.

A pattern written through a non-raw string once put literal backspaces where ``\\b`` was meant
(the summaries' trade-offs heading: "Pros", "Cons" and "A vs B" never matched), and nothing
showed it: the file read the same in an editor. Escapes are written as escapes.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: C0 controls but tab, line feed and carriage return, and DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_no_python_file_holds_a_raw_control_character():
    found = []
    for folder in ("src", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            # split on "\n" only: ``splitlines`` also breaks on \x0b, \x0c and \x1c-\x1e
            for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
                if _CONTROL.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == []


def test_the_check_sees_a_backspace():
    assert _CONTROL.search("lazy_regex(r\"\bpros\b\")")
