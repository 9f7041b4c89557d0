"""The decay stage: faded facts go dormant, never deleted, revived by reinforcement."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from claimgraph.core import reads
from claimgraph.core.decay import decay_pass, decay_plan, min_fading_age_ms
from claimgraph.core.writes import assert_fact, invalidate, reinforce
from claimgraph.logic.timeutil import DAY_MS


def _facts(shell) -> dict[str, dict]:
    """old observation, a commitment, a decision record, then (400 days later) a fresh fact."""
    made = {
        "old": assert_fact(shell, "api", "depends-on", "postgres")["fact"],
        "commitment": assert_fact(shell, "api", "depends-on", "kafka",
                                  epistemic="commitment")["fact"],
        "decision": assert_fact(shell, "api", "depends-on", "redis",
                                source_type="decision-record")["fact"],
    }
    shell.clock.advance_days(400)
    made["fresh"] = assert_fact(shell, "api", "depends-on", "nginx")["fact"]
    return made


def _state(shell, fact_id):
    return shell.store.get_fact(fact_id)["dormant_since"]


def test_only_a_faded_fact_becomes_dormant_and_nothing_is_deleted(shell):
    made = _facts(shell)
    total = len(shell.store.all_facts())
    now = shell.now()
    counts = decay_pass(shell, now, 0.1)
    assert counts["status"] == "ok" and counts["dormant"] == 1 and counts["dormant_total"] == 1
    assert _state(shell, made["old"]["id"]) == now
    for name in ("commitment", "decision", "fresh"):
        assert _state(shell, made[name]["id"]) is None, name
    assert len(shell.store.all_facts()) == total


def test_decay_is_idempotent_and_keeps_the_first_dormant_time(shell):
    made = _facts(shell)
    first = shell.now()
    decay_pass(shell, first, 0.1)
    shell.clock.advance_days(10)
    counts = decay_pass(shell, shell.now(), 0.1)
    assert (counts["dormant"], counts["revived"], counts["dormant_total"]) == (0, 0, 1)
    assert _state(shell, made["old"]["id"]) == first


def test_default_listings_hide_dormant_facts_and_all_and_search_show_their_state(shell):
    made = _facts(shell)
    decay_pass(shell, shell.now(), 0.1)
    listed = reads.get_facts(shell, "api")["facts"]
    assert made["old"]["id"] not in [f["id"] for f in listed]
    assert {f["state"] for f in listed} == {"active"}
    everything = {f["id"]: f
                  for f in reads.get_facts(shell, "api", include_invalidated=True)["facts"]}
    assert everything[made["old"]["id"]]["state"] == "dormant"
    shown = reads.get_facts(shell, "api", include_dormant=True)["facts"]
    assert made["old"]["id"] in [f["id"] for f in shown]
    found = {f["id"]: f for f in reads.search(shell, "postgres")["facts"]}
    assert found[made["old"]["id"]]["state"] == "dormant"


def test_saying_a_dormant_fact_again_revives_it(shell):
    made = _facts(shell)
    decay_pass(shell, shell.now(), 0.1)
    again = assert_fact(shell, "api", "depends-on", "postgres")
    assert again["status"] == "reinforced" and again["fact"]["id"] == made["old"]["id"]
    assert again["fact"]["dormant_since"] is None
    assert decay_pass(shell, shell.now(), 0.1)["dormant"] == 0


def test_the_reinforce_verb_revives_too(shell):
    made = _facts(shell)
    decay_pass(shell, shell.now(), 0.1)
    assert reinforce(shell, made["old"]["id"])["fact"]["dormant_since"] is None


def test_a_dormant_fact_that_no_longer_qualifies_is_revived_by_the_next_pass(shell):
    made = _facts(shell)
    decay_pass(shell, shell.now(), 0.1)
    counts = decay_pass(shell, shell.now(), 0.01)  # the floor (0.05) is above this threshold
    assert (counts["revived"], counts["dormant_total"]) == (1, 0)
    assert _state(shell, made["old"]["id"]) is None


def test_invalidated_facts_are_history_and_are_not_made_dormant(shell):
    fact = assert_fact(shell, "api", "depends-on", "postgres")["fact"]
    invalidate(shell, fact["id"])
    shell.clock.advance_days(400)
    assert decay_pass(shell, shell.now(), 0.1)["dormant"] == 0
    assert _state(shell, fact["id"]) is None


def test_a_dry_run_counts_without_writing(shell):
    made = _facts(shell)
    counts = decay_pass(shell, shell.now(), 0.1, dry_run=True)
    assert (counts["status"], counts["dormant"], counts["dormant_total"]) == ("dry-run", 1, 1)
    assert _state(shell, made["old"]["id"]) is None


def test_a_lost_lease_stops_before_the_next_transaction(shell):
    olds = [assert_fact(shell, f"svc{i}", "depends-on", "postgres")["fact"] for i in range(3)]
    shell.clock.advance_days(400)
    calls = iter([True, False])
    counts = decay_pass(shell, shell.now(), 0.1, fenced=lambda: next(calls), batch=2)
    assert counts["status"] == "lease-lost" and counts["dormant"] == 2
    assert sorted(shell.store.dormant_fact_ids()) == sorted(f["id"] for f in olds)[:2]
    assert decay_pass(shell, shell.now(), 0.1, fenced=lambda: False)["status"] == "lease-lost"


def test_a_fact_reinforced_after_planning_is_not_made_dormant(shell):
    made = _facts(shell)
    now = shell.now()

    @contextmanager
    def racing_capture():
        shell.store.reinforce(made["old"]["id"], now, made["old"]["confidence"])
        with shell.store.transaction():
            yield

    assert decay_pass(shell, now, 0.1, transaction=racing_capture)["dormant"] == 0
    assert _state(shell, made["old"]["id"]) is None


def test_the_candidate_age_bound_never_misses_a_fading_fact():
    assert min_fading_age_ms(0.0, 90) is None
    assert min_fading_age_ms(2.0, 90) == 0
    age = min_fading_age_ms(0.1, 90)
    assert 298 * DAY_MS < age < 300 * DAY_MS
    top = {"id": "f", "confidence": 1.0, "recorded_at": 0, "epistemic": "observation",
           "source_type": "code", "t_invalid": None, "dormant_since": None}
    assert decay_plan([top], age - 1, 0.1, 90)["dormant"] == []
    assert decay_plan([top], age + DAY_MS, 0.1, 90)["dormant"] == ["f"]


@pytest.mark.parametrize("dormant", [None, 5])
def test_the_plan_is_pure_and_sorted(dormant):
    facts = [{"id": f"f-{i}", "confidence": 0.5, "recorded_at": 0, "epistemic": "observation",
              "source_type": "session-log", "t_invalid": None, "dormant_since": dormant}
             for i in (3, 1, 2)]
    plan = decay_plan(facts, 1000 * DAY_MS, 0.1, 90)
    if dormant is None:
        assert plan == {"dormant": ["f-1", "f-2", "f-3"], "revive": []}
    else:
        assert plan == {"dormant": [], "revive": []}


def test_a_dump_carries_the_dormant_time_and_loads_back_byte_identically(shell):
    import itertools
    import json

    from claimgraph.core import Shell
    from claimgraph.core.portable import dump_lines, load_lines
    from claimgraph.store.memory import MemoryStore

    made = _facts(shell)
    decay_pass(shell, shell.now(), 0.1)
    first = list(dump_lines(shell))
    [old] = [json.loads(line) for line in first if made["old"]["id"] in line
             and json.loads(line)["record"] == "fact"]
    assert old["dormant_since"].endswith("Z") or "T" in old["dormant_since"]
    ids = itertools.count()
    other = Shell(store=MemoryStore(), clock=shell.clock, new_id=lambda p: f"{p}-x{next(ids)}")
    load_lines(other, first)
    assert list(dump_lines(other)) == first
    assert other.store.dormant_fact_ids() == [made["old"]["id"]]
