"""A push the remote refused by a rule of its own, and what got the same push through."""

from __future__ import annotations

from claimgraph.capture.extract.push_refused import push_refused_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session

RULE = ("Exit code 1\nremote: error: QX101: Content checks failed for refs/heads/topic.\n"
        "remote:\nremote: - CONTENT SCANNING\nremote:   - Pushed files must not hold keys\n"
        "remote:   see https://example.invalid/help/blocked-push\n"
        " ! [remote rejected] topic -> topic (push declined due to content checks)\n"
        "error: failed to push some refs to 'https://example.invalid/o/r.git'\n")
MOVED = (" ! [rejected]        main -> main (fetch first)\n"
         "error: failed to push some refs to 'https://example.invalid/o/r.git'\n"
         "hint: Updates were rejected because the remote contains work that you do not\n")
ACCESS = ("remote: error: Permission to o/r.git denied to someone.\n"
          "fatal: unable to access 'https://example.invalid/o/r.git/': The requested URL "
          "returned error: 403\n")
PUSHED = "To https://example.invalid/o/r.git\n * [new branch]      topic -> topic\n"


def _lessons(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), ROOT)
    return [c["object"] for c in push_refused_candidates(view)]


def _refused_then_rewritten(session: Session) -> None:
    session.bash("git push -u origin topic", error=True, output=RULE)
    session.edit(f"{ROOT}/tests/test_keys.py", "KEY = 'kx-1234'", "KEY = 'kx-EXAMPLE'")
    session.bash("git add tests/test_keys.py && git commit -m 'use a fake key'", output="ok")
    session.bash("git push -u origin topic", error=True, output=RULE)
    session.bash("git reset --soft HEAD~2", output="")
    session.bash("git commit -m 'the work, without the key'", output="ok")


def test_a_refusal_got_past_by_rewriting_the_commits_is_a_lesson():
    session = Session()
    _refused_then_rewritten(session)
    session.bash("git push -u origin topic", output=PUSHED)
    assert _lessons(session) == [
        "`git push` is refused by the remote: QX101: Content checks failed (Pushed files must "
        "not hold keys); it went through after editing tests/test_keys.py and rewriting the "
        "refused commits (`git reset --soft HEAD~2`) (a new commit on top was refused again: "
        "the refused commits had to go)"]


def test_the_lesson_reaches_capture_as_a_failure_mode():
    session = Session()
    _refused_then_rewritten(session)
    session.bash("git push -u origin topic", output=PUSHED)
    found = [c for c in session.extract() if c["predicate"] == "core/failure-mode"]
    assert any("QX101" in c["object"] for c in found)
    assert not any("example.invalid" in c["object"] or "topic" in c["object"] for c in found)


def test_a_refusal_the_session_never_got_past_is_nothing():
    session = Session()
    _refused_then_rewritten(session)
    assert _lessons(session) == []


def test_refused_again_at_the_end_drops_the_lesson():
    session = Session()
    _refused_then_rewritten(session)
    session.bash("git push -u origin topic", output=PUSHED)
    session.bash("git commit -m 'more'", output="ok")
    session.bash("git push", error=True, output=RULE)
    assert _lessons(session) == []


def test_a_push_through_with_nothing_changed_is_nothing():
    session = Session()
    session.bash("git push -u origin topic", error=True, output=RULE)
    session.bash("git push -u origin topic", output=PUSHED)
    assert _lessons(session) == []


def test_a_remote_that_moved_or_credentials_are_no_rule_of_the_project():
    for output in (MOVED, ACCESS):
        session = Session()
        session.bash("git push origin main", error=True, output=output)
        session.bash("git pull --rebase", output="ok")
        session.edit(f"{ROOT}/app.py", "a = 1", "a = 2")
        session.bash("git commit --amend --no-edit", output="ok")
        session.bash("git push origin main", output=PUSHED)
        assert _lessons(session) == [], output


def test_the_person_acting_in_between_is_not_the_sessions_fix():
    session = Session()
    session.bash("git push -u origin topic", error=True, output=RULE)
    session.prompt("I allowed it in the web settings, try again")
    session.bash("git commit --amend --no-edit", output="ok")
    session.bash("git push -u origin topic", output=PUSHED)
    assert _lessons(session) == []
