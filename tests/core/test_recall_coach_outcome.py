"""Recall's escalation, the coach and outcomes on every backend (REFERENCE §6, §14)."""

from __future__ import annotations

import pytest

from claimgraph.core.coach import coach
from claimgraph.core.ingest import ingest, open_episode
from claimgraph.core.outcome import judge
from claimgraph.core.recall import recall, scoped_search
from claimgraph.core.writes import assert_fact, invalidate
from claimgraph.errors import ClaimgraphError

HERE, USER, OTHER = "github.com/acme/shop", "user", "github.com/acme/other"
SCOPES = (HERE, USER)


def in_scope(shell, subject, predicate, obj, scope=HERE, **options):
    return assert_fact(shell, subject, predicate, obj, scope=scope, **options)["fact"]


def episode(shell, ref, summary=None, evidence=None, facts=()):
    """An episode with a summary, evidence and the given facts (subject, predicate, object,
    scope)."""
    ep = open_episode(shell, "session-log", ref, evidence)
    for subject, predicate, obj, scope in facts:
        assert_fact(shell, subject, predicate, obj, scope=scope, episode=ep["id"])
    if summary is not None:
        shell.store.close_episode(ep["id"], summary, shell.now())
    return ep


def ids(facts):
    return [f["id"] for f in facts]


# --- scoped search and recall -------------------------------------------------------------------

def test_scoped_search_sees_this_project_and_the_user_never_another_project(shell):
    mine = in_scope(shell, "billing", "depends-on", "stripe")
    theirs = in_scope(shell, "billing", "depends-on", "stripe-legacy", scope=OTHER)
    habit = in_scope(shell, "user", "prefers", "stripe-cli", scope=USER)
    found = ids(scoped_search(shell, "stripe", SCOPES)["facts"])
    assert mine["id"] in found and habit["id"] in found and theirs["id"] not in found
    assert theirs["id"] in ids(scoped_search(shell, "stripe", None)["facts"])


def test_recall_answers_from_facts_when_there_are_enough(shell):
    fact = in_scope(shell, "parser", "failure-mode", "chokes on BOM-prefixed files")
    result = recall(shell, "BOM", scopes=SCOPES)
    assert result["tier"] == "facts" and ids(result["facts"]) == [fact["id"]]
    assert result["episodes"] == [] and result["evidence"] == []


def test_recall_escalates_to_session_summaries_in_scope(shell):
    episode(shell, "claude-code:s1@0-10", "tried flamegraph profiling of the importer",
            facts=[("importer", "written-in", "python", HERE)])
    episode(shell, "claude-code:s2@0-10", "flamegraph of another project",
            facts=[("other", "written-in", "rust", OTHER)])
    result = recall(shell, "flamegraph", scopes=SCOPES)
    assert result["tier"] == "episodes"
    assert [e["ref"] for e in result["episodes"]] == ["claude-code:s1@0-10"]


def test_recall_escalates_while_facts_are_fewer_than_min_hits(shell):
    in_scope(shell, "importer", "depends-on", "flamegraph-rs")
    episode(shell, "claude-code:s1@0-10", "flamegraph profiling session",
            facts=[("importer", "written-in", "python", HERE)])
    assert recall(shell, "flamegraph", scopes=SCOPES)["tier"] == "facts"
    deeper = recall(shell, "flamegraph", scopes=SCOPES, min_hits=2)
    assert deeper["tier"] == "episodes" and len(deeper["facts"]) == 1


def test_recall_reads_raw_evidence_of_in_scope_sessions_last(shell, tmp_path):
    texts = {"ev-here": "user: the deploy hangs on vacuum\nassistant: run VACUUM later\nok",
             "ev-there": "user: vacuum the other db"}
    episode(shell, "claude-code:s1@0-10", evidence="ev-here",
            facts=[("db", "written-in", "sql", HERE)])
    episode(shell, "claude-code:s2@0-10", evidence="ev-there",
            facts=[("db", "written-in", "sql", OTHER)])
    episode(shell, "claude-code:s3@0-10", evidence="ev-gone",
            facts=[("db", "built-with", "make", HERE)])

    def fetch(name):
        if name not in texts:
            raise ClaimgraphError("evidence-missing", f"no evidence {name}")
        return texts[name]

    result = recall(shell, "vacuum", scopes=SCOPES, fetch_evidence=fetch)
    assert result["tier"] == "evidence"
    [hit] = result["evidence"]
    assert hit["ref"] == "claude-code:s1@0-10"
    assert hit["lines"] == ["user: the deploy hangs on vacuum", "assistant: run VACUUM later"]


def test_recall_with_nothing_anywhere_says_nothing(shell):
    assert recall(shell, "zeppelin", scopes=SCOPES,
                  fetch_evidence=lambda n: "")["tier"] == "nothing"


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_recall_refuses_a_min_hits_that_is_not_a_whole_number_of_one_or_more(shell, bad):
    with pytest.raises(ClaimgraphError) as refused:
        recall(shell, "x", min_hits=bad)
    assert refused.value.type == "invalid-argument"


# --- coach -------------------------------------------------------------------------------------

def test_the_coach_pushes_stances_and_hazards_touching_the_task(shell):
    against = in_scope(shell, "billing", "decided-against", "GraphQL")
    prefers = in_scope(shell, "billing", "prefers", "REST endpoints")
    hazard = in_scope(shell, "billing", "failure-mode", "double charges when the retry has no "
                                                        "idempotency key")
    in_scope(shell, "billing", "depends-on", "stripe")
    result = coach(shell, "add a retry to the billing webhook", SCOPES)
    assert result["push"] is True
    assert ids(result["commitments"]) == [against["id"], prefers["id"]]
    assert ids(result["hazards"]) == [hazard["id"]]
    assert "double charges" in result["briefing"] and "GraphQL" in result["briefing"]


def test_the_coach_says_nothing_when_nothing_is_relevant(shell):
    in_scope(shell, "billing", "decided-against", "GraphQL")
    result = coach(shell, "write a haiku about autumn", SCOPES)
    assert (result["push"], result["briefing"]) == (False, "")


def test_the_coach_ignores_other_projects(shell):
    in_scope(shell, "billing", "decided-against", "GraphQL", scope=OTHER)
    assert coach(shell, "billing api design", SCOPES)["push"] is False


def test_the_coach_surfaces_an_open_conflict_touching_the_task(shell):
    first = in_scope(shell, "billing", "decided-against", "webhooks")
    flagged = in_scope(shell, "billing", "prefers", "webhooks", on_conflict="flag")
    assert flagged["conflicts"] == [first["id"]], "the write path did not flag the contradiction"
    result = coach(shell, "webhooks", SCOPES)
    assert [(p["fact"]["id"], p["candidate"]["id"]) for p in result["conflicts"]] == [
        (flagged["id"], first["id"])]
    assert "conflicts with" in result["briefing"]


def test_a_conflict_is_found_from_its_older_side_alone(shell):
    older = in_scope(shell, "billing", "decided-against", "long polling of the ledger")
    newer = in_scope(shell, "billing", "prefers", "REST", on_conflict="flag")
    shell.store.link_conflicts(newer["id"], [older["id"]])
    result = coach(shell, "ledger", SCOPES)
    assert [(p["fact"]["id"], p["candidate"]["id"]) for p in result["conflicts"]] == [
        (newer["id"], older["id"])]


def test_an_empty_or_stopword_task_is_nothing_to_search(shell):
    in_scope(shell, "billing", "decided-against", "GraphQL")
    assert coach(shell, "the and for", SCOPES)["query"] == ""
    assert coach(shell, "", SCOPES)["push"] is False


def test_the_coach_pushes_on_the_tasks_own_words_never_on_an_episode_neighbour(shell):
    """The coach goes without the episode neighbourhood: a rule recorded next to a hit, in
    the same session, shares none of the task's words and is no reason to push it."""
    ingest(shell, [{"subject": s, "predicate": p, "object": o, "scope": HERE}
                   for s, p, o in (("billing", "decided-against", "GraphQL for the billing API"),
                                   ("Makefile", "prefers", "tabs over spaces in the Makefile"))])
    found = coach(shell, "add a GraphQL endpoint to billing", SCOPES)
    pushed = [f["object_lit"] for f in found["commitments"] + found["hazards"]]
    assert "GraphQL for the billing API" in pushed
    assert "tabs over spaces in the Makefile" not in pushed, pushed


def test_the_coach_finds_the_package_manager_rule_for_a_task_in_other_words(shell):
    """Issue 28: "install httpx as a dependency" names no tool, yet the rule about tools
    must reach the agent (the developer vocabulary relates installing to pip and uv)."""
    rule = in_scope(shell, "project", "prefers", "We always use uv, never pip")
    in_scope(shell, "billing", "prefers", "REST endpoints")
    for task in ("install httpx as a dependency", "add requests to the project"):
        result = coach(shell, task, SCOPES)
        assert ids(result["commitments"])[:1] == [rule["id"]], task


def test_a_question_in_plain_words_finds_the_turn_among_a_speakers_many(shell):
    """Issue 28: the question names a speaker with many facts; the one whose words match
    comes first (the entity is weak evidence; its facts rank by their text)."""
    for n in range(40):
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    answer = in_scope(shell, "Priya", "x/said", "I went to the chess club meetup yesterday")
    for n in range(40, 60):
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    found = scoped_search(shell, "When did Priya go to the chess club meetup?", SCOPES,
                          limit=10)
    assert ids(found["facts"])[:1] == [answer["id"]]


def test_a_question_naming_a_category_finds_the_turn_naming_a_member(shell):
    """Issue 28: "which pets" shares no word with "my hamster"; the category's members
    (``query_words.CATEGORY_GROUPS``) are ranked as the question's own words are, so the
    turn comes before the speaker's many others and before other people's turns that hold
    the word only inside another ("carpets"), while a turn in the question's own words keeps
    the first place."""
    for n in range(40):
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    for n in range(12):
        in_scope(shell, f"Neighbour {n}", "x/said", f"The carpets were cleaned on day {n}")
    member = in_scope(shell, "Priya", "x/said", "My hamster Biscuit ran the wheel all night")
    own = in_scope(shell, "Priya", "x/said", "No pets allowed in the new flat, sadly")
    for n in range(40, 60):
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    found = ids(scoped_search(shell, "Which pets does Priya have?", SCOPES, limit=10)["facts"])
    assert found[:2] == [own["id"], member["id"]], found


def test_a_turn_far_from_the_hits_of_its_session_climbs_over_lone_matches_elsewhere(shell):
    """The episode where the hits gather is the likelier place of the answer: "I lost my
    paddle", five turns after the last hit of its session and sharing none of the question's
    words, passes the lone matches of other sessions (docs/search.md, the episode as a
    whole)."""
    ingest(shell, [{"subject": speaker, "predicate": "x/said", "scope": HERE, "object": text}
                   for speaker, text in (
                       ("Tomas", "How was the kayak trip down the river?"),
                       ("Priya", "The kayak trip was wild, rapids all morning"),
                       ("Tomas", "Kayak rapids sound scary"),
                       ("Priya", "We stopped for lunch on a sandbank"),
                       ("Tomas", "Nice, what did you eat?"),
                       ("Priya", "Sandwiches, soggy ones"),
                       ("Tomas", "Ha, classic"),
                       ("Priya", "And I lost my paddle on the way back"))])
    for n in range(30):  # each in a session of its own
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    for n in range(12):
        ingest(shell, [{"subject": f"Neighbour {n}", "predicate": "x/said", "scope": HERE,
                        "object": f"A short trip to the shops on day {n}"}])
    found = scoped_search(shell, "What did Priya lose on the kayak trip?", SCOPES,
                          limit=10)["facts"]
    texts = [f["object_lit"] for f in found]
    assert texts[0] == "The kayak trip was wild, rapids all morning"
    assert "And I lost my paddle on the way back" in texts, texts
    every = scoped_search(shell, "What did Priya lose on the kayak trip?", SCOPES)["facts"]
    assert ids(every)[:10] == ids(found)  # the limit never changes the order


def test_the_answer_in_the_turn_after_the_question_is_found_through_its_episode(shell):
    """A memory's context lives around it: the question's words are on the turn that asked,
    the answer is the next turn of the same session (one episode), sharing none of them; by
    her name alone it would rank behind her thirty later (fresher) turns."""
    ingest(shell, [{"subject": speaker, "predicate": "x/said", "scope": HERE, "object": text}
                   for speaker, text in (
                       ("Tomas", "Did you enjoy the glassblowing workshop last weekend?"),
                       ("Priya", "It was great, I blew a green vase for my uncle"),
                       ("Tomas", "Chatting about the weather again"),
                       ("Priya", "Yes, rain all week"))])
    for n in range(30):  # each in a session of its own
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    found = scoped_search(shell, "What did Priya make at the glassblowing workshop?", SCOPES,
                          limit=10)["facts"]
    texts = [f["object_lit"] for f in found]
    assert texts[0] == "Did you enjoy the glassblowing workshop last weekend?"
    assert "It was great, I blew a green vase for my uncle" in texts, texts
    every = scoped_search(shell, "What did Priya make at the glassblowing workshop?",
                          SCOPES)["facts"]
    assert ids(every)[:10] == ids(found)  # the limit never changes the order
    answer = next(f for f in every if f["object_lit"].startswith("It was great"))
    assert answer["predicate"] == "x/said" and answer["subject"]["name"] == "Priya"


def test_the_answer_to_a_matching_question_ranks_beside_it_above_weaker_matches(shell):
    """A turn that asks a question lends the next turn, its answer, more than its own score:
    "Three seasons now" shares no word with the question, yet ranks among the first ten
    ahead of the facts that match one of the question's words ("beekeeping"), which an
    ordinary neighbour's share would leave it behind."""
    ingest(shell, [{"subject": speaker, "predicate": "x/said", "scope": HERE, "object": text}
                   for speaker, text in (
                       ("Priya", "Such a tidy garden shed! How long have you been beekeeping?"),
                       ("Tomas", "Three seasons now, quicker than I thought"),
                       ("Priya", "Chatting about the weather again"))])
    for n in range(12):  # each in a session of its own
        in_scope(shell, "Ines", "x/said", f"My neighbour took up beekeeping in town {n}")
    found = scoped_search(shell, "How long have Tomas and his sister been beekeeping?",
                          SCOPES, limit=10)["facts"]
    texts = [f["object_lit"] for f in found]
    assert "Such a tidy garden shed! How long have you been beekeeping?" in texts
    assert "Three seasons now, quicker than I thought" in texts[:6], texts  # the first five stay


def test_the_answer_to_a_question_asked_about_a_hit_ranks_among_the_first_ten(shell):
    """Hit, a question about it, the answer: "I loved The Salt Orchard" matches the question's
    words, the answer two turns on shares none of them and still ranks among the first ten,
    ahead of facts matching one of the question's words, where an ordinary neighbour's share
    would leave it behind them."""
    ingest(shell, [{"subject": speaker, "predicate": "x/said", "scope": HERE, "object": text}
                   for speaker, text in (
                       ("Priya", "I loved reading The Salt Orchard by Edda Morvan"),
                       ("Tomas", "Nice! What stayed with you?"),
                       ("Priya", "Patience, and that small habits add up"),
                       ("Tomas", "Chatting about the weather again"))])
    for n in range(12):  # each in a session of its own
        in_scope(shell, "Ines", "x/said", f"The orchard by the office flooded on day {n}")
    for n in range(30):  # her name alone is weak evidence for any of her facts
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    found = scoped_search(shell, "What did Priya learn from The Salt Orchard?", SCOPES,
                          limit=10)["facts"]
    texts = [f["object_lit"] for f in found]
    assert texts[0] == "I loved reading The Salt Orchard by Edda Morvan"
    assert "Patience, and that small habits add up" in texts, texts


def test_a_question_naming_a_day_prefers_what_was_said_then(shell):
    """A fact is valid from the session that said it: a question naming a day (or a month)
    counts the facts valid from then more, among facts its words match alike."""
    from claimgraph.logic.timeutil import from_iso
    later = in_scope(shell, "Tomas", "x/said", "We went sailing with the neighbours",
                     valid_from=from_iso("2024-09-21T10:00:00Z"))
    then = in_scope(shell, "Tomas", "x/said", "We went sailing past the lighthouse",
                    valid_from=from_iso("2024-03-15T18:00:00Z"))
    for question, first in (("Where did Tomas go sailing on March 14, 2024?", then),
                            ("Where did Tomas go sailing in September?", later),
                            ("Where did Tomas go sailing on 2024-03-13?", then)):
        found = ids(scoped_search(shell, question, SCOPES, limit=10)["facts"])
        assert found[:1] == [first["id"]] and len(found) == 2, question


def test_turns_that_only_name_a_popular_speaker_are_not_found_by_her_name(shell):
    """A popular entity's name is weak evidence in any fact's text, for the trigram route as
    for the words: the turns addressed to Priya ("Priya, ...") that share nothing else
    with the question stay out, and her own turn comes first; "Priya's" is her name too."""
    for n in range(30):
        in_scope(shell, "Priya", "x/said", f"Chatting about the weather on day {n}")
    answer = in_scope(shell, "Priya", "x/said", "I mend bicycles at the workshop every week")
    addressed = {in_scope(shell, "Tomas", "x/said", f"Priya, good night {n}")["id"]
                 for n in range(5)}
    for question in ("What does Priya say about the workshop?",
                     "What is Priya's workshop like?"):
        found = ids(scoped_search(shell, question, SCOPES, limit=10)["facts"])
        assert found[:1] == [answer["id"]] and not addressed & set(found), question


def test_a_newer_value_in_open_conflict_comes_before_the_older(shell):
    older = in_scope(shell, "checkout", "has-status", "blocked on review")
    newer = in_scope(shell, "checkout", "has-status", "shipped to production", on_conflict="flag")
    found = ids(scoped_search(shell, "what is the status of checkout", SCOPES, limit=10)["facts"])
    assert found.index(newer["id"]) < found.index(older["id"])


# --- outcome -----------------------------------------------------------------------------------

def test_accepted_reinforces_each_valid_fact_resetting_only_its_clock(shell):
    fact = in_scope(shell, "api", "prefers", "REST")
    result = judge(shell, "accepted", [fact["id"]])
    [after] = result["reinforced"]
    assert after["confidence"] == fact["confidence"]
    assert after["last_reinforced_at"] > fact["last_reinforced_at"]


def test_rejected_reports_review_candidates_and_changes_nothing(shell):
    fact = in_scope(shell, "api", "prefers", "REST")
    result = judge(shell, "rejected", [fact["id"]])
    assert ids(result["review"]) == [fact["id"]] and result["reinforced"] == []
    assert shell.store.get_fact(fact["id"]) == fact


def test_outcomes_skip_facts_no_longer_valid_or_no_longer_stored(shell):
    gone = in_scope(shell, "api", "prefers", "SOAP")
    invalidate(shell, gone["id"])
    result = judge(shell, "accepted", [gone["id"], "f-missing"])
    assert result["reinforced"] == [] and ids(result["invalid"]) == [gone["id"]]
    assert result["missing"] == ["f-missing"]
    assert shell.store.get_fact(gone["id"])["last_reinforced_at"] == gone["last_reinforced_at"]


def test_an_unknown_valence_is_refused(shell):
    with pytest.raises(ClaimgraphError) as refused:
        judge(shell, "meh", [])
    assert refused.value.type == "invalid-valence"


def test_recall_answers_with_an_agents_note_only_once_a_later_capture_reinforced_it(shell):
    note = in_scope(shell, "parser", "failure-mode", "chokes on BOM-prefixed files",
                    source_type="agent-note")
    assert recall(shell, "BOM", scopes=SCOPES)["facts"] == []
    shell.clock.advance_days(1)
    again = assert_fact(shell, "parser", "failure-mode", "chokes on BOM-prefixed files",
                        scope=HERE, source_type="agent-note")
    assert again["fact"]["id"] == note["id"]
    assert ids(recall(shell, "BOM", scopes=SCOPES)["facts"]) == [note["id"]]
