"""A package installed by hand is a lesson only when the manifests of its ecosystem the
session saw leave it out; an install of what the project declares stays the lesson it was."""

from __future__ import annotations

from .extract_helpers import ROOT, Session

NO_CLICK = "Traceback …\nModuleNotFoundError: No module named 'click'"


def _lessons(session: Session) -> list[str]:
    return [c["object"] for c in session.extract() if c["predicate"] == "core/failure-mode"]


def test_a_package_the_manifest_declares_installed_by_hand_is_no_lesson():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/requirements.txt"},
                 output="     1→click>=8.1\n     2→httpx>=0.27\n")
    session.bash("python -m app.cli config", error=True, output=NO_CLICK, exit_code=1)
    session.bash("pip install click")
    session.bash("python -m app.cli config", output="== config ==")
    assert _lessons(session) == []


def test_a_package_no_manifest_declares_must_be_installed_by_hand():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/requirements.txt"}, output="     1→httpx\n")
    session.bash("python -m app.cli config", error=True, output=NO_CLICK, exit_code=1)
    session.bash("pip install click")
    session.bash("python -m app.cli config", output="== config ==")
    assert _lessons(session) == [
        "`python -m app.cli config` failed: ModuleNotFoundError: No module named 'click'; "
        "fixed by running `pip install click` (`click` must be installed by hand: no manifest "
        "of the project lists it)"]


def test_a_package_installed_by_hand_while_no_manifest_of_its_kind_was_seen_is_unsure():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/package.json"},
                 output='     1→{"dependencies": {"react": "^18.0.0"}}\n')
    session.bash("python -m app.cli config", error=True, output=NO_CLICK, exit_code=1)
    session.bash("pip install click")
    session.bash("python -m app.cli config", output="== config ==")
    assert _lessons(session) == []


def test_installing_what_the_manifest_declares_stays_the_lesson():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/requirements-dev.txt"}, output="     1→pytest\n")
    session.bash("python -m pytest", error=True, output="No module named pytest", exit_code=1)
    session.bash("pip install -r requirements-dev.txt")
    session.bash("python -m pytest", output="3 passed")
    assert _lessons(session) == [
        "`python -m pytest` failed: No module named pytest; fixed by running "
        "`pip install -r requirements-dev.txt`"]
