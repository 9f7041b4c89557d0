"""A ``git merge`` read by its options as git reads them: ``-n`` is ``--no-stat`` (the merge
is made, only its diffstat is not printed), not ``--no-commit``."""

from __future__ import annotations

from claimgraph.logic.git_done import FINISHED

from .extract_helpers import Session

PUSH_MAIN = "To github.com:me/shop.git\n   0000aaa..2b3c4d5  main -> main"


def _open(session: Session) -> dict[str, str]:
    found = [c for c in session.extract() if c["predicate"] == "x/state"]
    return {c["subject"]: c["object"] for c in found if not c.get(FINISHED)}


def test_a_merge_without_its_diffstat_is_made_all_the_same():
    s = Session()
    s.bash("git checkout -b feat/x", output="Switched to a new branch 'feat/x'")
    s.bash("git add src/a.py && git commit -m 'feat: a'",
           output="[feat/x 1a2b3c4] feat: a\n 1 file changed")
    s.bash("git checkout main && git merge -n feat/x",
           output="Switched to branch 'main'\nUpdating 0000aaa..1a2b3c4\nFast-forward")
    text = _open(s)["shop"]
    assert "1 commit on branch `main`" in text and "feat/x" not in text
    assert "not pushed" in text
    s.bash("git push origin main", output=PUSH_MAIN)
    text = _open(s)["shop"]  # one commit that tells the change is kept, as pushed
    assert "1 commit on branch `main`" in text and "pushed to github.com/me/shop" in text
