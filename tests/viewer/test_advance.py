"""After a write the project page places again only what the write touched (``viewer.advance``),
and what it shows is exactly what placing every fact again shows (issues 24 and 29).

A generated store with every kind of fact the sections tell apart (ties of confidence and
names, standing decisions, recent and old changes, forgotten, future, dormant, suspect, linked,
code, decision records that never fade) gets one write of each kind — new facts, a
supersession, a forget, dormancy and revival, an audit verdict, conflict links made and
removed, a reinforcement, a rename, a deletion — and after each, at a later instant, the
advanced placement must equal a whole placement made then; so must every page built from it,
filters included. On SQLite (a file, as users have it) and PostgreSQL (a real server).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from claimgraph import location
from claimgraph.logic.briefing_sections import Narrowing
from claimgraph.logic.timeutil import DAY_MS
from claimgraph.opening import open_store
from claimgraph.viewer import advance
from claimgraph.viewer.project import advanced as advance_to_now, placement, project
from claimgraph.viewer.source import Source

NOW = 1_800_000_000_000
MINUTE = 60_000
PROJECT = "proj"
PREDICATES = ("core/depends-on", "core/prefers", "x/convention", "core/failure-mode",
              "core/written-in", "core/part-of", "x/runs", "core/decided-against")
#: What a placement is compared on (``until`` and ``levels`` may be more cautious when advanced).
SHOWN = ("now", "placed", "pairs", "predicates", "block", "mark", "open_ids")
#: Stances' objects that state an expiring state: told as facts of their date, ranked.
DATED = ("the latest release is v0.{i}.0", "PR #{i} is merged", "we're now on 3.{i}.1")
PARAMS = [{}, {"section": "current", "page": "2"}, {"section": "left_out"},
          {"section": "changed"}, {"predicate": "core/prefers"}, {"class": "observation"},
          {"text": "NAME-2"}, {"text": "v3", "section": "lessons"}]


def a_fact(i: int, rng: random.Random, scope: str, **fields: Any) -> dict:
    recorded = NOW - rng.choice((0, 1, 5, 40, 200, 900)) * DAY_MS // 2
    row = {"id": f"f-{i:04d}", "subject": f"e-{scope}-{rng.randrange(4)}",
           "predicate": rng.choice(PREDICATES), "object_kind": "literal",
           "object_lit": f"v{i % 7}", "t_valid": recorded, "recorded_at": recorded,
           "confidence": rng.choice((0.5, 0.7, 0.7, 0.9)),
           "epistemic": rng.choice(("observation", "observation", "observation", "commitment")),
           "scope": scope, "source_type": rng.choice(("session-log", "session-log", "code",
                                                       "user-assertion")),
           "last_reinforced_at": rng.choice((None, None, min(NOW, recorded + DAY_MS))),
           "evidence": []}
    row.update(fields)
    return row


def build(store: Any, n: int = 500, seed: int = 11) -> None:
    rng = random.Random(seed)
    with store.transaction():
        for scope in (PROJECT, "user", "other"):
            for k in range(4):
                store.insert_entity({"id": f"e-{scope}-{k}", "name": f"name-{k % 3}",
                                     "scope": scope, "type": "module"})
        rows = []
        for i in range(n):
            row = a_fact(i, rng, rng.choice((PROJECT, PROJECT, PROJECT, "user", "other")))
            roll = rng.random()
            if roll < 0.15:
                row.update(t_invalid=NOW - rng.choice((1, 10, 29, 31, 100)) * DAY_MS,
                           invalidation_kind=rng.choice(("superseded", "judged-superseded",
                                                         "manual")),
                           successor=f"f-{(i + 1) % n:04d}")
            elif roll < 0.18:
                row.update(t_invalid=NOW - DAY_MS, invalidation_kind="forgotten")
            elif roll < 0.2:
                row.update(t_valid=NOW + 40 * DAY_MS)  # not valid yet (and not for a while)
            elif roll < 0.23:
                row.update(source_type="decision-record", epistemic="observation",
                           predicate="core/depends-on", confidence=0.6)  # never fades
            elif roll < 0.4:  # a stance told as a state ranks (a commitment never fades: a
                # level, off the fading facts' confidences so no tie ends at NOW itself)
                row.update(predicate=rng.choice(("x/decided", "core/prefers")),
                           object_lit=rng.choice(DATED).format(i=i))
                row.update(epistemic="preference") if rng.random() < 0.5 else row.update(
                    epistemic="commitment", confidence=rng.choice((0.65, 0.85)))
            rows.append(row)
        store.insert_facts(rows)
        store.set_dormant([f"f-{i:04d}" for i in range(0, n, 13)], NOW - DAY_MS)
        for i in range(0, n, 17):
            store.link_conflicts(f"f-{i:04d}", [f"f-{(i * 7 + 3) % n:04d}"])
        store.record_audit([{"fact_id": f"f-{i:04d}", "evidence": "a.py: `x`", "file": "a.py",
                             "verdict": rng.choice(("file-missing", "supported")),
                             "reason": None, "content_hash": None, "checked_at": NOW,
                             "details": {}} for i in range(0, n, 11)])


def valid_ids(store: Any, wanted: str, count: int, skip: set[str]) -> list[str]:
    """Facts of the project valid and active at NOW, none of ``skip``."""
    found = [f["id"] for f in store.select_facts(scopes=[wanted])
             if f["t_invalid"] is None and f["t_valid"] <= NOW and f["dormant_since"] is None
             and f["id"] not in skip]
    return sorted(found)[:count]


def writes(store: Any) -> list[tuple[str, Any]]:
    """One write of each kind (applied in order), named."""
    rng = random.Random(5)
    used: set[str] = set()

    def pick(count: int = 1) -> list[str]:
        chosen = valid_ids(store, PROJECT, 400, used)
        out = rng.sample(chosen, count)
        used.update(out)
        return out

    def new_facts() -> None:
        store.insert_facts([a_fact(9000 + k, rng, PROJECT, recorded_at=NOW + MINUTE,
                                   t_valid=NOW + MINUTE) for k in range(12)])

    def supersede() -> None:
        old, new = pick(), f"f-{9100:04d}"
        store.insert_fact(a_fact(9100, rng, PROJECT, t_valid=NOW + 2 * MINUTE,
                                 recorded_at=NOW + 2 * MINUTE))
        store.invalidate(old[0], NOW + 2 * MINUTE, "superseded", "superseded by " + new, new)

    return [
        ("new facts", new_facts),
        ("a supersession", supersede),
        ("a forget", lambda: store.invalidate(pick()[0], NOW + 3 * MINUTE, "forgotten",
                                              "forgotten by the user")),
        ("dormancy", lambda: store.set_dormant(pick(3), NOW + 3 * MINUTE)),
        ("a revival", lambda: store.revive(["f-0013", "f-0026"])),
        ("a suspect verdict", lambda: store.record_audit([{
            "fact_id": pick()[0], "evidence": "b.py: `y`", "file": "b.py",
            "verdict": "unsupported", "reason": None, "content_hash": None,
            "checked_at": NOW, "details": {}}])),
        ("a conflict", lambda: store.link_conflicts(*(lambda a, b: (a, [b]))(*pick(2)))),
        ("a conflict resolved", lambda: store.unlink_conflicts("f-0017", ["f-0122"])),
        ("a reinforcement", lambda: store.reinforce(pick()[0], NOW + 4 * MINUTE, 0.95)),
        ("a rename", lambda: store.update_entity(f"e-{PROJECT}-1", name="aaa-first")),
        ("a deletion", lambda: store.delete_facts(pick(2))),
    ]


@pytest.fixture(params=["sqlite", "postgres"])
def opened(request, tmp_path):
    if request.param == "postgres":
        db = location.resolve(request.getfixturevalue("pg_url"))
    else:
        db = tmp_path / "claims.db"
    store = open_store(db)
    build(store)
    yield db, store
    store.close()


def source_at(db: Any, clock: list[int]) -> Source:
    return Source(db, clock=lambda: clock[0], half_life_days=30)


def same(got: dict, expected: dict) -> None:
    for key in SHOWN:
        assert got[key] == expected[key], key


def test_each_write_advances_the_placement_to_what_placing_it_whole_gives(opened):
    db, store = opened
    clock = [NOW]
    src = source_at(db, clock)
    base = placement(src, PROJECT, Narrowing())
    assert base["mark"] == store.touch_mark() and base["until"] is not None
    for step, (what, write) in enumerate(writes(store), start=1):
        with store.transaction():
            write()
        clock[0] = NOW + step * 5 * MINUTE
        advanced = advance_to_now(src, PROJECT, base)
        whole = placement(src, PROJECT, Narrowing())
        if advanced is None:  # a deletion (a purge) leaves no id to place again: placed whole
            assert what == "a deletion"
            advanced = whole
        same(advanced, whole)
        base = advanced
    counts = base["placed"]["counts"]
    assert all(counts[key] for key in ("decisions", "changed", "current", "left_out"))


def test_every_page_after_writes_is_the_page_placed_whole(opened):
    """Pages built by advancing the last placement (the viewer's own sharing, filters
    included) equal pages built from nothing, after every write."""
    db, store = opened
    clock = [NOW]
    src = source_at(db, clock)
    latest: dict = {}

    def shared(key, build):
        latest[key] = build(latest.get(key))
        return latest[key]

    for params in PARAMS:
        project(src, PROJECT, params, shared)
    for step, (what, write) in enumerate(writes(store), start=1):
        with store.transaction():
            write()
        clock[0] = NOW + step * 5 * MINUTE
        for params in PARAMS:
            assert project(src, PROJECT, params, shared) == project(src, PROJECT, params), \
                (what, params)


@pytest.mark.parametrize("later", [MINUTE, 3_600_000, DAY_MS, 7 * DAY_MS, 30 * DAY_MS,
                                   60 * DAY_MS])
def test_time_alone_advances_the_placement_exactly_until_its_horizon(opened, later):
    db, _ = opened
    clock = [NOW]
    src = source_at(db, clock)
    base = placement(src, PROJECT, Narrowing())
    clock[0] = NOW + later
    advanced = advance_to_now(src, PROJECT, base)
    if NOW + later >= base["until"]:
        assert advanced is None  # past the horizon: placed whole again
    else:
        same(advanced, placement(src, PROJECT, Narrowing()))


def test_the_horizon_comes_before_the_first_change_time_alone_makes(opened):
    """The horizon is never later than the first instant at which a whole placement differs
    (checked hour by hour over the two days before it and one after)."""
    db, _ = opened
    clock = [NOW]
    src = source_at(db, clock)
    base = placement(src, PROJECT, Narrowing())
    until = base["until"]
    assert NOW < until <= NOW + 40 * DAY_MS  # the not-yet-valid facts bound it at least

    def order(at: int) -> dict:
        clock[0] = at
        return placement(src, PROJECT, Narrowing())["placed"]

    first = order(NOW)
    for at in range(max(NOW, until - 2 * DAY_MS), until, 3_600_000):
        assert order(at) == first, at


def test_a_write_that_touched_too_much_or_a_new_level_is_placed_whole(opened, monkeypatch):
    db, store = opened
    clock = [NOW]
    src = source_at(db, clock)
    base = placement(src, PROJECT, Narrowing())
    with store.transaction():
        store.insert_facts([a_fact(9500, random.Random(1), PROJECT, confidence=0.61,
                                   source_type="decision-record", epistemic="observation",
                                   predicate="core/depends-on")])
    assert advance_to_now(src, PROJECT, base) is None  # 0.61: a level fading facts may pass
    base = placement(src, PROJECT, Narrowing())
    with store.transaction():  # a commitment told as a state ranks, and never fades
        store.insert_facts([a_fact(9501, random.Random(1), PROJECT, confidence=0.63,
                                   source_type="session-log", epistemic="commitment",
                                   predicate="x/decided", object_lit=DATED[0].format(i=9))])
    assert advance_to_now(src, PROJECT, base) is None  # 0.63: a new level
    monkeypatch.setattr(advance, "PATCH_LIMIT", 2)
    base = placement(src, PROJECT, Narrowing())
    with store.transaction():
        store.set_dormant(valid_ids(store, PROJECT, 3, set()), NOW)
    assert advance_to_now(src, PROJECT, base) is None
