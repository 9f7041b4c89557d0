"""What the user states about the project: kept when the session names the same thing."""

from __future__ import annotations

from claimgraph.capture.extract.statements import CONVENTION

from .extract_helpers import ROOT, Session

STATES = "deployment logic is in infra-core"


def _said(candidates):
    return [c for c in candidates if c["rule"] == "statements" and c["object"] == STATES]


def _session(*, ls: str = "ls packages/infra-core", later: str | None = None,
             agent: str = "Looking at the packages now.") -> Session:
    session = Session()
    session.prompt("where should the deploy script go")
    session.event("assistant", text=agent)
    session.bash(ls, output="src\nREADME.md")
    session.prompt(STATES)
    session.event("assistant", text="Understood.")
    if later:
        session.prompt(later)
    return session


def test_a_statement_naming_what_the_session_names_is_a_convention_the_user_said():
    [fact] = _said(_session().extract(project_root=ROOT))
    assert fact["predicate"] == CONVENTION and fact["source_type"] == "user-assertion"
    assert fact["confidence"] == 0.7 and fact["subject_type"] == "project"


def test_not_kept_when_nothing_in_the_session_names_it():
    assert _said(_session(ls="ls packages/web").extract(project_root=ROOT)) == []


def test_not_kept_when_the_person_later_turns_it_around():
    later = "actually infra-core holds no deployment logic"
    assert _said(_session(later=later).extract(project_root=ROOT)) == []
    unrelated = "the readme could be shorter"
    assert _said(_session(later=unrelated).extract(project_root=ROOT)) != []


def test_not_kept_when_it_only_repeats_the_agents_message():
    agent = "Option A: deployment logic is in infra-core. Option B: keep it in web. Which?"
    assert _said(_session(agent=agent).extract(project_root=ROOT)) == []
