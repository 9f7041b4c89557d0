"""``Store.context_sections``: a project page's sections placed, ordered, counted and cut in the
store, equal to ``logic.briefing_sections.sections_of`` over the same facts read whole.

Runs on every backend of the contract suite that answers the query (SQLite, file and memory,
and PostgreSQL); the memory store has no such query (the viewer reads it whole and places its
facts with the definition itself), so it is skipped.
"""

from __future__ import annotations

import itertools
import random

import pytest

from claimgraph.logic.briefing import is_stance, told_as_state
from claimgraph.logic.briefing_sections import (
    SECTION_KEYS, Narrowing, head_of, sections_of, told_in)
from claimgraph.logic.expiring import expiring_state
from claimgraph.logic.names import object_name
from claimgraph.logic.one_change import one_change
from claimgraph.logic.requested import done_once
from claimgraph.logic.time_travel import believed_at, believed_count, valid_times
from claimgraph.logic.timeutil import DAY_MS

from .store_helpers import entity, fact

NOW = 1_800_000_000_000
PREDICATES = ("core/depends-on", "core/prefers", "x/convention", "core/failure-mode",
              "core/written-in", "core/part-of", "x/runs", "core/decided-against")
#: Objects a stance holds that ``logic.briefing.told_as_state`` tells as a fact of its date (an
#: expiring state, one act done once, one change of the user's), or keeps standing (a rule
#: about versions, a lasting request): (object, evidence).
ONCE = "transcript#L7: asked and done once: "
LASTING = "transcript#L8: asked and done: "
DATED_OBJECTS = (
    ("our latest release is v0.2.0", []),
    ("PR #12 is merged", []),
    ("the latest release is always tagged from main", []),
    ("Rename the parser module to reader", [ONCE + "renamed src/parser.py"]),
    ("Support LinuxCNC as well", [LASTING + "added src/linuxcnc.py"]),
    ("Create one collection by default when running init", [LASTING + "edited src/init.py"]),
    ('"Rule" should appear as "Claude Rule"', []),
)


def dated_object(i: int) -> dict:
    """A third of the facts' objects (with their evidence): ``DATED_OBJECTS`` in turn."""
    text, evidence = DATED_OBJECTS[(i // 3) % len(DATED_OBJECTS)]
    return {"lit": text, "evidence": evidence}


def build(store, n: int = 400, seed: int = 7) -> None:
    """Every kind of fact the sections tell apart, with ties of confidence and names."""
    rng = random.Random(seed)
    for scope, count in (("proj", 12), ("user", 4), ("other", 3)):
        for k in range(count):
            entity(store, f"e-{scope}-{k}", f"name-{k % 5}", scope=scope)
    entity(store, "e-proj-obj", "Postgres-V3", scope="proj")  # an object's name, mixed case
    entity(store, "e-proj-state", "main is now v1.2", scope="proj")  # a name stating a state
    rows = []
    for i in range(n):
        scope = rng.choice(("proj", "proj", "proj", "user", "other"))
        subject = f"e-{scope}-{rng.randrange(3 if scope == 'other' else 4)}"
        recorded = NOW - rng.choice((0, 1, 5, 40, 200, 900)) * DAY_MS // 2
        objects = ({"ref": rng.choice(("e-proj-obj", "e-proj-5", "e-user-1", "e-proj-state"))}
                   if i % 9 == 4 else dated_object(i) if i % 3 == 1 else {"lit": f"v{i % 7}"})
        row = fact(f"f-{i:04d}", subject, rng.choice(PREDICATES), **objects,
                   t_valid=recorded, scope=scope, recorded_at=recorded,
                   confidence=rng.choice((0.5, 0.7, 0.7, 0.9)),
                   epistemic=rng.choice(("observation", "observation", "preference",
                                         "commitment")),
                   source_type=rng.choice(("session-log", "code", "user-assertion",
                                           "decision-record")),
                   last_reinforced_at=rng.choice((None, None, recorded + DAY_MS)))
        roll = rng.random()
        if roll < 0.15:
            row.update(t_invalid=NOW - rng.choice((1, 10, 29, 31, 100)) * DAY_MS,
                       invalidation_kind=rng.choice(("superseded", "judged-superseded",
                                                     "judged-duplicate", "manual")),
                       successor=f"f-{(i + 1) % n:04d}")
        elif roll < 0.18:
            row.update(t_invalid=NOW - 3 * DAY_MS, invalidation_kind=None,
                       invalidation_reason=rng.choice((f"superseded by f-{i + 1:04d}",
                                                       "judged superseded by f-0001",
                                                       "superseded by two words")))
        elif roll < 0.2:
            row.update(t_invalid=NOW - DAY_MS, invalidation_kind="forgotten")
        elif roll < 0.22:
            row.update(t_valid=NOW + DAY_MS)  # not valid yet
        elif roll < 0.25:
            row.update(last_reinforced_at=0)  # "never": the recorded time anchors decay
        rows.append(row)
    store.insert_facts(rows)
    store.set_dormant([f"f-{i:04d}" for i in range(0, n, 13)], NOW - DAY_MS)
    for i in range(0, n, 17):
        store.link_conflicts(f"f-{i:04d}", [f"f-{(i * 7 + 3) % n:04d}"])
    store.record_audit([{"fact_id": f"f-{i:04d}", "evidence": "a.py: `x`", "file": "a.py",
                         "verdict": rng.choice(("file-missing", "unsupported", "supported")),
                         "reason": None, "content_hash": None, "checked_at": NOW, "details": {}}
                        for i in range(0, n, 11)])


def open_ids_of(store, wanted: list[str]) -> set[str]:
    from claimgraph.viewer.project import open_pairs
    pairs = open_pairs(store, wanted, set(store.suspect_fact_ids()), NOW)
    return {f["id"] for pair in pairs for f in pair.values()}


WINDOWS = [
    {key: (0, 1000) for key in SECTION_KEYS},
    {key: (0, 5) for key in SECTION_KEYS},
    {"current": (3, 4), "decisions": (10, 7), "left_out": (2, 9), "changed": (1, 2)},
    {"lessons": (0, 0)},
    {key: (0, 10 ** 9) for key in SECTION_KEYS if key != "conflicts"},  # the viewer's placement
]
NARROWINGS = [Narrowing(), Narrowing(predicate="core/prefers"),
              Narrowing(epistemic="commitment"), Narrowing(text="V3"),
              Narrowing(text="name-2"), Narrowing(predicate="x/runs", text="v1"),
              Narrowing(text="postgres"), Narrowing(text="ME-1")]


@pytest.fixture
def answering(store):
    if not hasattr(store, "context_sections"):
        pytest.skip(f"{type(store).__name__} has no context_sections (read whole by the viewer)")
    build(store)
    return store


@pytest.mark.parametrize("windows,narrowing", list(itertools.product(WINDOWS, NARROWINGS)))
def test_the_store_places_orders_counts_and_cuts_as_the_definition(answering, windows,
                                                                    narrowing):
    wanted = ["proj", "user"]
    open_ids = open_ids_of(answering, wanted)
    got = answering.context_sections(wanted, NOW, windows=windows, open_ids=open_ids,
                                     narrowing=narrowing, half_life_days=30)
    expected = sections_of(answering.select_facts(scopes=wanted),
                           answering.suspect_fact_ids(), open_ids, NOW, windows, narrowing, 30)
    assert got == expected
    if windows is WINDOWS[0] and not narrowing.active:  # the fixture reaches every section
        assert all(got["counts"][key] for key in SECTION_KEYS if key != "conflicts")


def test_the_stances_told_as_state_are_the_definitions_and_of_every_kind(answering):
    """The store's ``told_as_state_ids`` are the facts ``told_as_state`` turns away, and the
    fixture holds each way of being one among the facts valid now (so the placement test above
    tells them apart from standing decisions: it fails when the store's SQL keeps them there)."""
    wanted = ["proj", "user"]
    facts = answering.select_facts(scopes=wanted)
    told = {f["id"] for f in facts if told_as_state(f)}
    assert answering.told_as_state_ids(wanted) == told
    valid = [f for f in facts if f["id"] in told and f["t_invalid"] is None
             and f["t_valid"] <= NOW and f["dormant_since"] is None]
    assert any(expiring_state(str(object_name(f))) for f in valid
               if f["object_kind"] == "literal")
    assert any(expiring_state(str(object_name(f))) for f in valid
               if f["object_kind"] == "entity")
    assert any(done_once(f) for f in valid) and any(one_change(f) for f in valid)
    assert any(is_stance(f) and f["id"] not in told and f["object_lit"] in [
        text for text, _ in DATED_OBJECTS] for f in facts)  # a rule about versions, lasting
    placed = answering.context_sections(wanted, NOW, windows={"decisions": (0, 10 ** 9)},
                                        open_ids=open_ids_of(answering, wanted))
    assert told.isdisjoint(placed["ids"]["decisions"]) and placed["ids"]["decisions"]


def test_the_placement_heads_are_the_definitions(answering):
    """``placement_heads`` (one walk, stances judged in Python) is ``head_of`` of each fact."""
    if not hasattr(answering, "placement_heads"):
        pytest.skip(f"{type(answering).__name__} keeps no touches (placed whole by the viewer)")
    wanted = ["proj", "user"]
    got = {head[0]: head for head in answering.placement_heads(wanted)}
    assert got == {f["id"]: head_of(f) for f in answering.select_facts(scopes=wanted)}
    assert told_in(got.values()) == answering.told_as_state_ids(wanted) != set()


def test_an_empty_scope_list_places_nothing(answering):
    got = answering.context_sections([], NOW, windows={"current": (0, 5)})
    assert got == {"counts": dict.fromkeys(SECTION_KEYS, 0), "ids": {"current": []},
                   "reasons": {}}


def test_valid_times_are_every_begin_and_end_sorted(answering):
    wanted = ["proj", "user"]
    assert answering.valid_times(wanted) == valid_times(answering.select_facts(scopes=wanted))


@pytest.mark.parametrize("at,since,limit", [
    (NOW, None, 1000), (NOW - 30 * DAY_MS, NOW - 200 * DAY_MS, 7),
    (NOW - 3 * DAY_MS, NOW - 5 * DAY_MS, 1000), (NOW - 10_000 * DAY_MS, None, 5)])
def test_believed_at_an_instant_is_the_definitions(answering, at, since, limit):
    wanted = ["proj", "user"]
    got = answering.believed_at(wanted, at, since=since, limit=limit, half_life_days=30)
    assert got == believed_at(answering.select_facts(scopes=wanted), at, since, limit, 30)


def test_how_many_were_believed_is_counted_from_the_valid_times(answering):
    """The viewer counts what was believed at an instant from ``valid_times`` (two binary
    searches) and asks ``believed_at`` for the rest only: both are the definition's, at every
    instant of the timeline, just before and just after it."""
    wanted = ["proj", "user"]
    facts = answering.select_facts(scopes=wanted)
    times = answering.valid_times(wanted)
    instants = sorted({t for f in facts for t in (f["t_valid"], f["t_invalid"]) if t})
    assert len(instants) > 10 and times["held_until"] and len(times["held_from"]) < len(facts)
    for at in sorted({NOW, *(t + d for t in instants for d in (-1, 0, 1))}):
        defined = believed_at(facts, at, at - 2 * DAY_MS, 6, 30)
        assert believed_count(times, at) == defined["total"], at
        got = answering.believed_at(wanted, at, since=at - 2 * DAY_MS, limit=6,
                                    half_life_days=30, count=False)
        assert got == {**defined, "total": None}, at


@pytest.mark.parametrize("narrowing", NARROWINGS[1:])
def test_the_ids_a_filter_keeps_are_the_definitions(answering, narrowing):
    wanted = ["proj", "user"]
    keep = getattr(answering, "narrowed_fact_ids", None)
    if keep is None:
        pytest.skip(f"{type(answering).__name__} has no narrowed_fact_ids (placed again)")
    expected = {f["id"] for f in answering.select_facts(scopes=wanted) if narrowing.matches(f)}
    assert keep(wanted, narrowing) == expected and expected
