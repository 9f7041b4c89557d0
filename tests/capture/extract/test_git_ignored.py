"""A path git add refused because the project ignores it."""

from __future__ import annotations

from claimgraph.capture.extract.git_ignored import ignored_in

from .extract_helpers import ROOT, Session

REFUSAL = ("Exit code 1\nThe following paths are ignored by one of your .gitignore files:\n"
           "notes\nhint: Use -f if you really want to add them.\n")


def _lessons(session: Session) -> list[str]:
    return [c["object"] for c in session.extract() if c["predicate"] == "core/failure-mode"]


def test_a_refused_git_add_teaches_that_the_path_is_ignored():
    session = Session()
    session.bash("git add src/app.py notes/plan.md && git commit -m \"$(cat <<'EOF'\nx\nEOF\n)\"",
                 error=True, output=REFUSAL)
    assert _lessons(session) == [
        "`notes` is git-ignored in this project: `git add notes/plan.md` was refused (The "
        "following paths are ignored by one of your .gitignore files)"]


def test_forcing_it_in_afterwards_is_part_of_the_lesson():
    session = Session()
    session.bash("git add notes/plan.md", error=True, output=REFUSAL)
    session.bash("git add -f notes/plan.md", output="")
    [lesson] = _lessons(session)
    assert lesson.endswith("; `git add -f` added it anyway")


def test_changing_the_ignore_rules_afterwards_leaves_nothing():
    session = Session()
    session.bash("git add notes/plan.md", error=True, output=REFUSAL)
    session.edit(f"{ROOT}/.gitignore", "notes/\n", "")
    assert _lessons(session) == []


def test_the_refusal_names_its_paths():
    assert ignored_in(REFUSAL) == ["notes"]
    assert ignored_in("The following paths are ignored by one of your .gitignore files:\n"
                      ".work\n.claude\nhint: Use -f") == [".work", ".claude"]
    assert ignored_in("fatal: pathspec 'x' did not match any files") == []
