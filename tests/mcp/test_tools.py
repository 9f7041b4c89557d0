"""The memory_* tools as plain functions over a ServerState (no SDK, no process)."""

from __future__ import annotations

import pytest

from claimgraph import retrievals
from claimgraph.core import Shell
from claimgraph.core.ingest import open_episode
from claimgraph.errors import ClaimgraphError
from claimgraph.mcp.arguments import parse
from claimgraph.mcp.session import ServerState, session_ref
from claimgraph.mcp.tools import BY_NAME
from claimgraph.opening import open_store

from .conftest import OTHER, Served

SESSION_REF = "mcp:claude-code:s-1"


@pytest.fixture
def ctx(served: Served):
    context = ServerState(db=served.db, project=served.project_id, episode_ref=SESSION_REF,
                          lease_wait_ms=1000)
    yield context
    context.close()


def run(ctx: ServerState, name: str, **raw):
    tool = BY_NAME[name]
    return tool.run(ctx, parse(tool.args, raw))


def objects(result, key="facts"):
    return sorted(f["object"] for f in result[key])


def test_names_resolve_in_the_project_then_the_user_scope(ctx):
    assert objects(run(ctx, "memory_facts", entity="user")) == ["uv"]
    with pytest.raises(ClaimgraphError) as missing:
        run(ctx, "memory_facts", entity="billing", entity_scope="user")
    assert "scope 'user'" in missing.value.message


def test_facts_of_another_project_need_its_scope_named(ctx):
    assert "stripe-legacy" not in objects(run(ctx, "memory_facts", entity="billing"))
    assert objects(run(ctx, "memory_facts", entity="billing", entity_scope=OTHER,
                       scope=OTHER)) == ["stripe-legacy"]


def test_neighbor_keeps_to_the_projects_facts_and_the_entities_they_touch(ctx):
    result = run(ctx, "memory_neighbor", entity="stripe", depth="2")
    assert result["root"]["name"] == "stripe"
    assert {e["name"] for e in result["entities"]} == {"stripe", "billing"}
    assert "stripe-legacy" not in objects(result)


def test_neighbor_with_a_query_walks_toward_it(ctx):
    result = run(ctx, "memory_neighbor", entity="stripe", query="webhook retries", budget="3")
    assert len(result["facts"]) == 3
    assert result["facts"][0]["object"] == "double charges when the webhook retries"


def test_history_shows_every_version_oldest_first(ctx):
    run(ctx, "memory_assert", subject="stripe", predicate="has-version", object="13.0")
    run(ctx, "memory_assert", subject="stripe", predicate="has-version", object="13.1")
    history = run(ctx, "memory_history", subject="stripe", predicate="has-version")["history"]
    assert [f["object"] for f in history] == ["12.1", "13.0", "13.1"]


def test_recall_escalates_to_this_projects_session_summaries(ctx, served):
    sh = Shell(open_store(served.db))
    episode = open_episode(sh, "session-log", "claude-code:s7@0-9")
    sh.store.close_episode(episode["id"], "profiled the importer with flamegraph", sh.now())
    from claimgraph.core.writes import assert_fact
    assert_fact(sh, "importer", "written-in", "python", scope=served.project_id,
                episode=episode["id"])
    sh.store.close()
    result = run(ctx, "memory_recall", query="flamegraph")
    assert result["tier"] == "episodes"
    assert [e["ref"] for e in result["episodes"]] == ["claude-code:s7@0-9"]


def test_recall_names_how_each_fact_was_learned(ctx, served):
    """Like the context block's lines: the user's words "you said", a tool's outcome
    "seen"; an agent's note nobody corroborated is not returned at all (core.recall)."""
    sh = Shell(open_store(served.db))
    from claimgraph.core.writes import assert_fact
    assert_fact(sh, "importer", "written-in", "zig", scope=served.project_id,
                source_type="user-assertion")
    assert_fact(sh, "importer", "tested-by", "zig-test", scope=served.project_id,
                source_type="session-log", evidence=["transcript#L4: zig build test"])
    assert_fact(sh, "importer", "depends-on", "zig-arena", scope=served.project_id,
                source_type="agent-note")
    sh.store.close()
    learned = {f["object"]: f["learned"] for f in run(ctx, "memory_recall",
                                                         query="importer")["facts"]}
    assert learned == {"zig": "you said", "zig-test": "seen"}


def test_conflicts_are_this_projects_open_pairs(ctx):
    run(ctx, "memory_assert", subject="billing", predicate="prefers", object="GraphQL",
        on_conflict="flag")
    result = run(ctx, "memory_conflicts")
    assert result["open"] == 1
    [pair] = result["conflicts"]
    assert {pair["fact"]["object"], pair["candidate"]["object"]} == {"GraphQL"}


def test_assert_defaults_to_the_project_scope_and_an_agent_note(ctx, served):
    out = run(ctx, "memory_assert", subject="billing", predicate="built-with", object="make")
    assert out["status"] == "created"
    assert (out["fact"]["scope"], out["fact"]["source_type"]) == (served.project_id,
                                                                   "agent-note")
    assert out["episode"]["ref"] == SESSION_REF


def test_assert_to_the_user_scope_only_when_the_user_enabled_it(ctx, served):
    with pytest.raises(ClaimgraphError) as refused:
        run(ctx, "memory_assert", subject="user", predicate="prefers", object="ruff",
            scope="user")
    assert refused.value.data == {"argument": "scope"} and "mcp_user_scope" in refused.value.hint
    enabled = ServerState(db=served.db, project=served.project_id, episode_ref=SESSION_REF,
                          lease_wait_ms=1000, user_scope_writes=True)
    try:
        out = run(enabled, "memory_assert", subject="user", predicate="prefers", object="ruff",
                  scope="user", **{"class": "commitment"})
        assert out["fact"]["scope"] == "user" and out["fact"]["epistemic"] == "commitment"
        assert "ruff" in objects(run(enabled, "memory_facts", entity="user", entity_scope="user"))
    finally:
        enabled.close()


def test_assert_stays_in_its_lane(ctx, served):
    """Another project, another episode, a back-dated fact, the user's word: all refused."""
    sh = Shell(open_store(served.db))
    captured = open_episode(sh, "session-log", "claude-code:captured@0-9")
    sh.store.close()
    for bad, argument in (({"scope": OTHER}, "scope"), ({"subject_scope": OTHER}, "subject_scope"),
                          ({"episode": captured["id"]}, "episode"),
                          ({"valid_from": "2020-01-01"}, "valid_from")):
        with pytest.raises(ClaimgraphError) as refused:
            run(ctx, "memory_assert", subject="a", predicate="prefers", object="b", **bad)
        assert refused.value.data == {"argument": argument}
    with pytest.raises(ClaimgraphError) as refused:
        run(ctx, "memory_assert", subject="a", predicate="prefers", object="b",
            source_type="user-assertion")
    assert refused.value.data["argument"] == "source_type"
    sh = Shell(open_store(served.db))
    try:
        assert not sh.store.select_facts(episodes=[captured["id"]])
        assert not sh.store.select_facts(scopes=[OTHER], predicates=["core/prefers"])
    finally:
        sh.store.close()


def test_assert_redacts_secrets_like_capture(ctx, served):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    out = run(ctx, "memory_assert", subject="ci", predicate="prefers",
              object=f"login with {token}")
    assert token not in out["fact"]["object"] and "warnings" in out


def test_an_agent_note_does_not_overwrite_the_users_word_but_flags_it(ctx):
    out = run(ctx, "memory_assert", subject="stripe", predicate="has-version", object="14")
    assert out["status"] == "flagged"


def test_search_limit_cuts_the_answer_and_says_how_many_more(ctx):
    result = run(ctx, "memory_search", query="billing", limit=1)
    assert len(result["facts"]) == 1 and result["more"] >= 1


def test_every_surfacing_read_is_logged_with_its_verb(ctx, served):
    run(ctx, "memory_facts", entity="billing")
    run(ctx, "memory_search", query="stripe")
    run(ctx, "memory_recall", query="GraphQL")
    run(ctx, "memory_coach", task="retry the billing webhook")
    run(ctx, "memory_history", subject="stripe", predicate="has-version")
    verbs = [r["verb"] for r in retrievals.pending(served.db)["reads"]]
    assert verbs == ["facts", "search", "recall", "coach"]


def test_views_drop_empty_fields_and_carry_iso_times(ctx):
    [fact] = [f for f in run(ctx, "memory_facts", entity="stripe")["facts"]]
    assert fact["t_valid"].endswith("Z") and "t_invalid" not in fact and "conflicts" not in fact
    assert "effective_confidence" in fact and "confidence" not in fact


def test_the_session_ref_is_claude_codes_session_or_this_process():
    assert session_ref({"CLAUDE_CODE_SESSION_ID": "abc"}, 7, 9) == "mcp:claude-code:abc"
    assert session_ref({}, 7, 9).endswith(":7@9")


# --- memory_forget ------------------------------------------------------------------------------

def fact_of(ctx: ServerState, subject: str, obj: str, scope: str | None = None):
    store = open_store(ctx.db)
    try:
        return next(f for f in store.all_facts() if f["subject"]["name"] == subject
                    and (f["object_lit"] == obj or (f["object_ref"] or {}).get("name") == obj)
                    and (scope is None or f["scope"] == scope))
    finally:
        store.close()


def test_memory_forget_hides_the_fact_from_search_and_keeps_its_history(ctx):
    stripe = fact_of(ctx, "billing", "stripe")
    result = run(ctx, "memory_forget", fact_id=stripe["id"], reason="we moved to adyen")
    assert (result["status"], result["fact"]["invalidation_kind"]) == ("forgotten", "forgotten")
    assert result["fact"]["invalidation_reason"] == "we moved to adyen"
    assert "stripe" not in objects(run(ctx, "memory_search", query="stripe"))
    history = run(ctx, "memory_history", subject="billing", predicate="depends-on")["history"]
    assert [(f["object"], f.get("invalidation_kind")) for f in history] == [
        ("stripe", "forgotten")]
    assert run(ctx, "memory_forget", fact_id=stripe["id"])["status"] == "already-forgotten"


def test_memory_forget_refuses_another_projects_fact_and_changes_nothing(ctx):
    legacy = fact_of(ctx, "billing", "stripe-legacy", OTHER)
    with pytest.raises(ClaimgraphError) as refused:
        run(ctx, "memory_forget", fact_id=legacy["id"])
    assert refused.value.type == "invalid-argument" and "another project" in refused.value.message
    assert fact_of(ctx, "billing", "stripe-legacy", OTHER)["t_invalid"] is None
