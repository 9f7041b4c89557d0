"""Every line of the SessionStart block names how it was learned, and no two read the same.

Issue 22: a change of belief names how its new value was learned, a contention each side's;
two facts whose objects differ only past the 300-character cut are cut where they differ, so
the next agent can tell them apart (docs/context.md, "Lines").
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from claimgraph.logic import briefing as C
from claimgraph.logic.briefing_lines import MAX_OBJECT_CHARS, cut_apart, one_line

from .test_briefing import NOW, block, fact
from claimgraph.logic.timeutil import DAY_MS

#: A made-up list of scripts long enough to be cut: two versions of it differ only past the cut.
SCRIPTS = "; ".join(f"`make step{n}` runs `tool --stage {n} --verbose`" for n in range(9))
TIER = re.compile(r"\((?:you said|you asked, done|seen|agent's note|from [^,)]+|[\w./-]+\.\w+)"
                  r"(?:, [^)]*)?\)")


def lines_of(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("- ") and not ln.startswith("- … ")]


def test_a_change_names_how_its_new_value_was_learned():
    old = fact("f-old", "api", "prefers", "REST", literal=True, t_invalid=NOW - 2 * DAY_MS,
               invalidation_kind="superseded", successor="f-new", source="user-assertion")
    new = fact("f-new", "api", "prefers", "gRPC", literal=True, days_ago=2)
    filed = fact("f-file", "api", "runs-on", "python 3.12", literal=True, days_ago=1,
                 evidence=["pyproject.toml: `requires-python = 3.12`"])
    was = fact("f-was", "api", "runs-on", "python 3.11", literal=True, t_invalid=NOW - DAY_MS,
               invalidation_kind="superseded", successor="f-file")
    assert C.plan([old, new, filed, was], [], NOW)["changed"] == [
        '- api runs-on: "python 3.11" → "python 3.12" (pyproject.toml, 2026-02-28)',
        '- api prefers: "REST" → "gRPC" (seen, 2026-02-27)']


def test_a_change_with_no_successor_names_the_tier_of_the_value_it_shows():
    gone = fact("f-g", "db", "runs-on", "mysql", t_invalid=NOW - DAY_MS,
                invalidation_kind="superseded", source="user-assertion")
    assert C.plan([gone], [], NOW)["changed"] == [
        "- db runs-on: mysql (you said) → (no longer) (2026-02-28)"]


def test_each_side_of_a_contention_names_how_it_was_learned():
    a = fact("f-a", "api", "uses", "redis", conflicts=["f-b"], source="user-assertion")
    b = fact("f-b", "api", "uses", "memcached")
    [line] = C.plan([a, b], [{"fact": a, "candidate": b}], NOW)["conflicts"]
    assert line == "- api uses: 2 claims in contention — memcached (seen) / redis (you said)"
    d = fact("f-d", "ui", "uses", "d", source="agent-note")
    e = fact("f-e", "ui", "prefers", "e", literal=True, evidence=["CLAUDE.md: `prefer e`"])
    [line] = C.plan([], [{"fact": e, "candidate": d}], NOW)["conflicts"]
    assert line == ("- 2 claims in contention across 2 predicates — "
                    "ui prefers (1: \"e\" (CLAUDE.md)); ui uses (1: d (agent's note))")


def every_kind() -> tuple[list[dict], list[dict]]:
    """One fact of every line kind: a decision, a state, a change with and without a
    successor, a contention, a lesson, a current fact, a structure fact."""
    old = fact("f-old", "api", "prefers", "REST", literal=True, t_invalid=NOW - 2 * DAY_MS,
               invalidation_kind="superseded", successor="f-new")
    new = fact("f-new", "api", "prefers", "gRPC", literal=True, days_ago=2,
               source="user-assertion")
    gone = fact("f-g", "db", "runs-on", "mysql", t_invalid=NOW - DAY_MS,
                invalidation_kind="superseded")
    a = fact("f-a", "api", "uses", "redis", conflicts=["f-b"])
    b = fact("f-b", "api", "uses", "memcached", source="agent-note",
             last_reinforced_at=NOW - DAY_MS)
    facts = [old, new, gone, a, b,
             fact("f-dec", "team", "decided-against", "mongodb", epistemic="commitment"),
             fact("f-st", "app", "decided", "our latest release is v0.2.0", literal=True,
                  source="user-assertion", predicate="x/decided"),
             fact("f-l", "api", "failure-mode", "`make` fails from src/", literal=True),
             fact("f-p", "api", "tested-by", "pytest", evidence=["tox.ini: `pytest`"]),
             fact("f-s", "Cart", "defined-in", "cart.py")]
    return facts, [{"fact": a, "candidate": b}]


def test_every_line_of_the_block_names_its_tier():
    facts, conflicts = every_kind()
    text = block(facts, conflicts)
    sections = [ln for ln in text.splitlines() if ln.startswith("### ")]
    assert len(sections) == len(C.SECTIONS)  # every section, so every line kind, is here
    found = lines_of(text)
    assert len(found) == 9  # the contention is one line, the change's new value a decision
    assert any("(you said, as of " in ln for ln in found)  # the state's line is here too
    assert [ln for ln in found if not TIER.search(ln)] == []
    [contention] = [ln for ln in found if "in contention" in ln]
    assert len(TIER.findall(contention)) == 2  # each side's


def test_two_facts_that_differ_past_the_cut_read_apart():
    longer = SCRIPTS.replace("; `make step7`", "; `make extra` runs `tool --extra`; `make step7`")
    assert one_line(SCRIPTS) == one_line(longer)  # the old cut could not tell them apart
    twins = [fact("f-1", "package.json", "runs", SCRIPTS, literal=True),
             fact("f-2", "package.json", "runs", longer, literal=True),
             fact("f-3", "team", "convention", SCRIPTS, literal=True, source="user-assertion"),
             fact("f-4", "team", "convention", longer, literal=True, source="user-assertion")]
    other = fact("f-5", "api", "tested-by", "pytest")
    found = lines_of(block(twins + [other]))
    assert len(found) == 5 and len(set(found)) == 5
    assert "- api tested-by pytest (seen, 0.74)" in found  # a line with no twin is as it was
    for line in found[:4] + found[-2:]:
        assert len(line) <= len(f'- team convention "{one_line(SCRIPTS)}" (you said, since '
                                '2026-02-19)')  # no line longer than the cut one
    assert any("`make extra` runs" in ln for ln in found if ln.startswith("- team"))
    assert any("`make extra` runs" in ln for ln in found if ln.startswith("- package.json"))
    assert all(ln.count(" … ") == 1 and SCRIPTS[:100] in ln for ln in found if "make" in ln)


def test_a_cut_apart_shows_its_start_and_the_point_where_it_parts():
    text = "a" * 150 + " " + "b" * 200 + " then X and more " + "c" * 300
    at = text.index("X")
    cut = cut_apart(text, at)
    assert len(cut) <= MAX_OBJECT_CHARS and cut.startswith("a" * 120 + " … ")
    assert "then X and more" in cut and cut.endswith("…")
    assert cut_apart("short", 2) == "short"  # nothing was cut: nothing to tell apart
    assert cut_apart(text, 10) == one_line(text)  # parts before the cut: the cut shows it


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text("xy ;", min_size=0, max_size=30), min_size=2, max_size=6),
       st.booleans())
def test_no_two_lines_of_a_section_read_the_same(tails, standing):
    """Objects that share a long start and differ after it: their lines all differ, unless
    the objects are the same in full."""
    prefix = SCRIPTS[:MAX_OBJECT_CHARS + 20]
    objects = [prefix + tail for tail in tails]
    facts = [fact(f"f-{n}", "app", "convention" if standing else "runs", obj, literal=True)
             for n, obj in enumerate(objects)]
    found = lines_of(block(facts))
    assert len(found) == len(facts)
    distinct = {" ".join(obj.split()) for obj in objects}
    assert len(set(found)) == len(distinct)
    assert all(len(ln) <= MAX_OBJECT_CHARS + 60 for ln in found)
