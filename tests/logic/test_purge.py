"""logic.purge: tombstone keys, session refs, text scrubbing and the AND of filters."""

from __future__ import annotations

import json

from claimgraph.logic import purge as P
from claimgraph.logic.model import FORGOTTEN
from claimgraph.logic.retrieval import fact_valid_at


def fact(fid="f-1", subject="api", obj="REST", **extra):
    return {"id": fid, "subject": {"id": "e-" + subject, "name": subject},
            "predicate": "core/prefers",
            "object_kind": "literal", "object_ref": None, "object_lit": obj, "scope": "p",
            "episode": "ep-1", "recorded_at": 100, "evidence": [], "invalidation_reason": None,
            **extra}


def test_a_re_extracted_fact_has_the_same_key_whatever_its_spelling():
    key = P.fact_key(fact())
    assert key == P.statement_key("p", "API", "core/prefers", " rest ")
    assert key != P.statement_key("other", "api", "core/prefers", "REST")
    assert key != P.statement_key("p", "api", "core/depends-on", "REST")
    assert "REST" not in key and len(key) == 64


def test_session_refs_of_capture_and_mcp_episodes():
    assert P.episode_session("claude-code:abc-1@0-400~2") == ("claude-code", "abc-1")
    assert P.episode_end("codex:rollout@120-4096") == 4096
    assert P.episode_session("mcp:claude-code:abc-1") == ("claude-code", "abc-1")
    assert P.episode_session("ingest:ep-1") is None and P.episode_end("mcp:claude-code:x") is None
    assert P.in_sessions({"ref": "codex:s2@0-3"}, {"codex:s2"})
    assert not P.in_sessions({"ref": "codex:s2@0-3"}, {"s3"})


def test_scrub_replaces_the_text_and_its_json_escaped_forms():
    needle = 'tok"en\\x'
    line = json.dumps({"a": f"saw {needle}"}) + f" raw {needle}"
    scrubbed, count = P.scrub(line, needle)
    assert count == 2 and needle not in scrubbed and json.dumps(needle)[1:-1] not in scrubbed
    assert scrubbed.count(P.PLACEHOLDER) == 2
    assert P.holds(json.dumps({"k": "é-secret"}), "é-secret")  # \\u00e9 form


def test_filters_combine_with_and():
    f = fact(obj="token sk-1", recorded_at=50)
    assert P.fact_selected(f, P.Filters(match="sk-1", before=60), set())
    assert not P.fact_selected(f, P.Filters(match="sk-1", before=40), set())
    assert P.fact_selected(f, P.Filters(sessions=frozenset({"s"})), {"ep-1"})
    assert not P.fact_selected(f, P.Filters(sessions=frozenset({"s"}), projects=frozenset({"q"})),
                               {"ep-1"})
    assert P.fact_selected(f, P.Filters(entities=frozenset({"e-api"}), facts=frozenset({"f-1"})),
                           set())
    assert P.Filters(match="x", before=1).given() == ["match", "before"]
    assert P.Filters(sessions=frozenset({"s"}), before=1).episode_level_only()


def test_which_episodes_and_entities_go():
    episodes = [{"id": "ep-1", "ref": "a:s@0-1"}, {"id": "ep-2", "ref": "a:s@1-2"},
                {"id": "ep-3", "ref": "a:t@0-1"},
                {"id": "ep-4", "ref": "verdict:f-1+f-9=compatible@0.80", "source_type": "curation"}]
    gone = P.doomed_episodes(episodes, {"ep-2": 1}, {"ep-1": 2, "ep-2": 1},
                             P.Filters(facts=frozenset({"f-1"})), {"f-1"})
    assert gone == {"ep-1", "ep-4"}
    named = P.doomed_episodes(episodes, {}, {}, P.Filters(sessions=frozenset({"s"})), set())
    assert named == {"ep-1", "ep-2"}
    entities = [{"id": "e-a", "name": "a"}, {"id": "e-b", "name": "b"},
                {"id": "e-tok", "name": "has sk-1"}, {"id": "e-c", "name": "c"}]
    assert P.doomed_entities(entities, {"e-b": 1}, {"e-a", "e-b"},
                             P.Filters(match="sk-1")) == {"e-a", "e-tok"}


def test_a_forgotten_fact_is_never_valid_and_its_summary_after_a_purge():
    forgotten = fact(t_valid=0, t_invalid=50, invalidation_kind=FORGOTTEN)
    assert not fact_valid_at(forgotten, 10)
    assert fact_valid_at(fact(t_valid=0, t_invalid=50, invalidation_kind="superseded"), 10)
    assert P.summary_after(["core/prefers", "core/prefers", "x/note"], 3) == \
        "3 facts — 2 prefers, 1 x/note; 3 purged"
