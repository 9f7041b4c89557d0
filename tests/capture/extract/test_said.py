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


def _finding(sentence: str, *, edit: tuple[str, str, str] | None) -> list[dict]:
    session = Session()
    session.prompt("look at the settings")
    session.bash("cat conf/settings.toml", output="retry_limit = 3\nmode = 'flat'")
    session.prompt(sentence)
    session.event("assistant", text="Understood.")
    if edit:
        session.edit(*edit)
    return [c for c in session.extract(project_root=ROOT)
            if c["rule"] == "statements" and c["object"] == sentence]


def test_a_finding_about_what_the_session_then_edits_is_not_kept():
    finding = "settings.toml is one flat table"
    changed = (f"{ROOT}/conf/settings.toml", "mode = 'flat'", "[mode]\nkind = 'nested'")
    assert _finding(finding, edit=changed) == []
    assert _finding(finding, edit=None) != []
    other_file = (f"{ROOT}/conf/other.toml", "a = 1", "a = 2")
    assert _finding(finding, edit=other_file) != []


def test_a_name_a_later_edit_takes_out_retires_a_finding_but_not_a_rule():
    renamed = (f"{ROOT}/src/retry.py", "limit = conf['retry_limit']", "limit = conf['max_tries']")
    kept_as_context = (f"{ROOT}/src/retry.py", "limit = conf['retry_limit']",
                       "limit = int(conf['retry_limit'])")
    assert _finding("the retry_limit knob is per host", edit=renamed) == []
    assert _finding("the retry_limit knob is per host", edit=kept_as_context) != []
    assert _finding("the retry_limit knob must stay per host", edit=renamed) != []
