"""A lesson is what will bite again: a bug fixed in the program's own code, a package a
manifest already declares installed by hand, or keys typed into a terminal pane are not."""

from __future__ import annotations

from claimgraph.capture.extract.one_off import program_source

from .extract_helpers import ROOT, Session

KEY_ERROR = "E   KeyError: 'SECRET_KEY'\n1 failed"
NO_CLICK = "Traceback …\nModuleNotFoundError: No module named 'click'"


def _lessons(session: Session) -> list[str]:
    return [c["object"] for c in session.extract() if c["predicate"] == "core/failure-mode"]


def _fixed_by_editing(path: str, *, said: str | None = None) -> Session:
    session = Session()
    session.bash("pytest -q", error=True, output=KEY_ERROR, exit_code=1)
    if said:
        session.event("assistant", text=said)
    session.edit(f"{ROOT}/{path}", "SECRET_KEY = env['SECRET_KEY']",
                 "SECRET_KEY = env.get('SECRET_KEY', 'dev')")
    session.bash("pytest -q", output="3 passed")
    return session


def test_a_failure_fixed_by_editing_the_programs_code_is_a_bug_fixed_not_a_lesson():
    assert _lessons(_fixed_by_editing("src/shop/settings.py")) == []
    assert _lessons(_fixed_by_editing("Sources/Shop/Cart.swift")) == []


def test_the_same_fix_with_the_cause_the_session_stated_is_kept_with_it():
    said = "The tests fail because `SECRET_KEY` is not set in the test environment."
    [lesson] = _lessons(_fixed_by_editing("src/shop/settings.py", said=said))
    assert lesson.startswith("`pytest -q` failed: KeyError: 'SECRET_KEY'; fixed by editing "
                             "src/shop/settings.py. Cause: ")
    assert lesson.endswith("`SECRET_KEY` is not set in the test environment.")


def test_a_fix_in_a_build_tool_or_ci_file_stays_a_lesson():
    for path in ("vite.config.ts", "setup.py", ".github/workflows/ci.yml", "scripts/build.sh",
                 "pyproject.toml"):
        [lesson] = _lessons(_fixed_by_editing(path))
        assert lesson.startswith("`pytest -q` failed: KeyError: 'SECRET_KEY'; fixed by ")


def test_program_source_is_code_that_is_no_manifest_recipe_or_tool_config():
    assert program_source("src/shop/cart.py") and program_source("app/Views/Inspector.swift")
    assert program_source("review_tool/routes/pages.py")
    assert program_source("templates/partials/row.html") and program_source("src/app.scss")
    for path in ("next.config.js", "jest.config.ts", "eslint.config.mjs", "noxfile.py",
                 "build.rs", "Package.swift", "mix.exs", "deploy.sh", ".github/scripts/x.py",
                 "README.md", "settings.toml", "Makefile", "docs/guide.md"):
        assert not program_source(path), path


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


def test_keys_typed_into_a_terminal_pane_are_the_sessions_harness_not_the_project():
    session = Session()
    session.bash("orchestrate wait worker --timeout 90", error=True,
                 output="error: worker did not start", exit_code=1)
    session.bash("tmux send-keys -t worker:0.0 Enter")
    session.bash("orchestrate wait worker --timeout 90", output="worker running")
    assert _lessons(session) == []
    session = Session()
    session.bash("orchestrate wait worker --timeout 90", error=True,
                 output="error: worker did not start", exit_code=1)
    session.bash("orchestrate start worker")
    session.bash("orchestrate wait worker --timeout 90", output="worker running")
    assert len(_lessons(session)) == 1
