"""One trust table: every rule's facts carry the epistemic kind, confidence and source it names."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.session import candidate
from claimgraph.capture.extract.trust import TRUST

from .extract_helpers import Session


def test_only_the_users_own_words_are_user_assertions_and_the_agents_words_agent_notes():
    """The agent's summaries and the plans the person approved are the agent's words: the
    approval is kept with them, it does not make them the user's."""
    users = {name.split(".")[0] for name, t in TRUST.items() if t.source_type == "user-assertion"}
    agents = {name.split(".")[0] for name, t in TRUST.items() if t.source_type == "agent-note"}
    assert users == {"statements", "answers"} and agents == {"summaries", "approved_plan"}


def test_a_candidate_takes_its_trust_from_the_table_and_may_not_choose_its_source():
    made = candidate("gates", "shop", "core/failure-mode", "x", evidence=[], trust="gates.lesson")
    assert (made["epistemic"], made["confidence"], made["source_type"]) == tuple(
        TRUST["gates.lesson"])
    with pytest.raises(TypeError):
        candidate("summaries", "shop", "x/decided", "x", evidence=[], source_type="user-assertion")
    with pytest.raises(KeyError):
        candidate("a-rule-nobody-registered", "shop", "x/decided", "x", evidence=[])


def test_what_a_session_teaches_carries_its_rules_trust():
    session = Session()
    session.prompt("Always run the linter before committing.")
    session.bash("pytest -q", output="3 passed", exit_code=0)
    for found in session.extract():
        name = found["rule"]
        assert found["source_type"] == TRUST[name].source_type
