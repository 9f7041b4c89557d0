"""A "fixed by" lesson stands only when the session's end agrees with it (extract/held.py):
the same failure did not come back later, the change was the project's, and the person did
not act themselves in between. Each rule that stores such a lesson is held to it."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.held import outside_change, user_acted, user_changed
from claimgraph.capture.extract.reported import reported_lesson_candidates
from claimgraph.capture.extract.session import SessionView

from .extract_helpers import ROOT, Session, only
from .test_ci_lessons import COMMIT, LISTED, LOG_1, LOG_2

MISSING = "E   ModuleNotFoundError: No module named 'shop.settings'\n1 error"
KEY_ERROR = "E   KeyError: 'SECRET_KEY'\n1 failed"


def _lessons(session: Session, rule: str | None = None) -> list[str]:
    return [c["object"] for c in only(session.extract(), "core/failure-mode")
            if rule is None or c["rule"] == rule]


def _edit_fixed(*after: tuple[str, str]) -> Session:
    """pytest fails on a KeyError, settings.py is edited, pytest passes; then ``after``."""
    session = Session()
    session.bash("pytest -q", error=True, output=KEY_ERROR, exit_code=1)
    session.edit(f"{ROOT}/src/shop/settings.py", "os.environ['SECRET_KEY']",
                 "os.environ.get('SECRET_KEY', '')")
    session.bash("pytest -q", output="3 passed")
    for command, output in after:
        session.bash(command, error=bool(output), output=output, exit_code=1 if output else 0)
    return session


# -- the same command failing again later ------------------------------------------------


def test_the_same_command_failing_later_with_the_same_error_takes_the_lesson_back():
    """The first success was luck, or the fix was undone: the session ended without it."""
    assert _lessons(_edit_fixed()) == [
        "`pytest -q` failed: KeyError: 'SECRET_KEY'; fixed by editing src/shop/settings.py"]
    assert _lessons(_edit_fixed(("pytest -q", KEY_ERROR))) == []


def test_a_later_failure_on_something_else_leaves_the_lesson():
    assert len(_lessons(_edit_fixed(("pytest -q", "E   ValueError: bad size\n1 failed")))) == 1


def test_a_lesson_with_a_bare_exit_status_is_taken_back_by_a_later_bare_failure():
    """Nothing names the error: a later failure of the same command cannot be told apart."""
    def session(later: bool) -> Session:
        s = Session()
        s.bash("pnpm run typecheck", error=True, output="", exit_code=1)
        s.bash("pnpm install --frozen-lockfile", output="Done in 2s")
        s.bash("pnpm run typecheck", output="")
        if later:
            s.bash("pnpm run typecheck", error=True, output="", exit_code=1)
        return s
    assert _lessons(session(False)) == [
        "`pnpm run typecheck` failed: exit code 1; fixed by running "
        "`pnpm install --frozen-lockfile`"]
    assert _lessons(session(True)) == []


def test_the_failing_form_failing_again_confirms_a_working_form_lesson():
    """"Fails when run from the root; run it from sub/": running it from the root again and
    failing the same way is one more proof, not a refutation (a fix-by-edit lesson is the
    one a later failure takes back)."""
    error = "go: cannot find main module, but found .git/config in /repo"

    def session(again: bool) -> Session:
        s = Session()
        s.bash("go build -o app .", error=True, output=error, exit_code=1)
        s.bash(f"cd {ROOT}/cmd && go build -o app .", output="")
        if again:
            s.bash("go build -o app .", error=True, output=error, exit_code=1)
        return s
    assert _lessons(session(False)) == _lessons(session(True)) != []
    assert "run it from cmd/" in _lessons(session(True))[0]


@pytest.mark.parametrize("failing, working", [
    ("cargo fmt --check", "cargo fmt"),
    ("cargo package -p app", "cargo package --no-verify -p app"),
    ("pnpm install --frozen-lockfile", "pnpm install"),
    ("git commit -m wip", "git commit --no-verify -m wip"),
])
def test_a_form_that_only_switches_the_check_off_is_no_working_form(failing, working):
    """It did not get past what failed: it stopped looking."""
    session = Session()
    session.bash(failing, error=True, output="error: failed to verify: Diff in src/main.rs",
                 exit_code=1)
    session.bash(working, output="")
    assert _lessons(session) == []


def test_a_form_that_adds_what_the_command_needs_still_teaches():
    session = Session()
    session.bash("cargo build", error=True, output="error[E0432]: unresolved import `sqlx`",
                 exit_code=101)
    session.bash("cargo build --features sqlite", output="Finished dev")
    assert _lessons(session) == ["`cargo build` fails: error[E0432]: unresolved import `sqlx`; "
                                 "`cargo build --features sqlite` works"]


def test_a_missing_module_coming_back_for_the_same_program_elsewhere_takes_it_back():
    session = Session()
    session.bash("pytest tests/", error=True, output=MISSING, exit_code=2)
    session.bash("pip install -e .", output="Successfully installed shop")
    session.bash("pytest tests/", output="4 passed")
    session.bash("pytest tests/test_cart.py", error=True, output=MISSING, exit_code=2)
    assert _lessons(session) == []


# -- a change outside the project ----------------------------------------------------------


def _command_fixed(fix: str) -> Session:
    session = Session()
    session.bash("pytest -q", error=True, output=MISSING, exit_code=2)
    session.bash(fix, output="ok")
    session.bash("pytest -q", output="3 passed")
    return session


def test_a_project_command_in_between_is_the_fix():
    assert _lessons(_command_fixed("pip install -r requirements-dev.txt")) == [
        "`pytest -q` failed: ModuleNotFoundError: No module named 'shop.settings'; fixed by "
        "running `pip install -r requirements-dev.txt`"]


@pytest.mark.parametrize("fix", [
    "kubectl apply -f deploy/",  # a cluster
    "ssh build-box 'systemctl restart api'",  # another machine
    "npm publish",  # a package registry
    "sudo apt-get install -y libpq-dev",  # the machine
    "brew install postgresql",
    "npm install -g shop-cli",  # a global install
    "docker restart shop-db",  # a container outside the project
    "gh secret set API_TOKEN",  # the repository's host
    "curl -X POST https://api.example.com/reset",  # a remote service
])
def test_a_change_outside_the_project_is_no_project_lesson(fix: str):
    assert _lessons(_command_fixed(fix)) == []


def test_a_remote_answering_otherwise_is_no_fix_of_a_command_run_meanwhile():
    """A registry's 404, then the person published the package outside the session: the
    install the agent ran in between is not what fixed it. An edit of the project still is."""
    not_found = "npm ERR! 404 Not Found - GET https://registry.npmjs.org/shop-client"
    session = Session()
    session.bash("npm run build", error=True, output=not_found, exit_code=1)
    session.bash("npm install", output="added 1 package")
    session.bash("npm run build", output="built")
    assert _lessons(session) == []
    session = Session()
    session.bash("npm run build", error=True, output=not_found, exit_code=1)
    session.edit(f"{ROOT}/package.json", '"shop-client": "^1.2.0"', '"shop-client": "^1.1.0"')
    session.bash("npm run build", output="built")
    assert _lessons(session) == ["`npm run build` failed: npm ERR! 404 Not Found - GET "
                                 "https://registry.npmjs.org/shop-client; fixed by adding "
                                 '`"shop-client": "^1.1.0"` to package.json']


def test_a_command_that_only_asks_is_never_the_fix_nor_a_doubt_on_one():
    session = Session()
    session.bash("pytest -q", error=True, output=MISSING, exit_code=2)
    session.bash("pip list", output="pytest 8.0")
    session.bash("pip install -r requirements-dev.txt", output="ok")
    session.bash("npm view shop-cli versions", output="['1.0.0']")
    session.bash("pytest -q", output="3 passed")
    assert _lessons(session) == [
        "`pytest -q` failed: ModuleNotFoundError: No module named 'shop.settings'; fixed by "
        "running `pip install -r requirements-dev.txt`"]


def test_a_fix_chained_before_the_rerun_is_held_to_the_same_rules():
    assert _lessons(_command_fixed("true")) == []  # (nothing changed: no lesson either way)
    for line, kept in (("pip install click && pytest -q", True),
                       ("sudo pip install click && pytest -q", False),
                       ("pip install click | tail -1 && pytest -q", False)):
        session = Session()
        session.tool("Read", {"file_path": f"{ROOT}/requirements.txt"}, output="     1→httpx\n")
        session.bash("pytest -q", error=True, output=MISSING, exit_code=2)
        session.bash(line, output="3 passed")
        assert bool(_lessons(session)) is kept, line


def test_an_edit_outside_the_project_is_no_project_fix_but_scratch_is_nothing():
    def session(other: str) -> Session:
        s = Session()
        s.bash("pytest -q", error=True, output=KEY_ERROR, exit_code=1)
        s.write(other, "x = 1\n")
        s.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
        s.bash("pytest -q", output="3 passed")
        return s
    assert _lessons(session("/tmp/try_settings.py")) == [
        "`pytest -q` failed: KeyError: 'SECRET_KEY'; fixed by editing src/shop/settings.py"]
    assert _lessons(session("/home/dev/.config/shop/env.toml")) == []
    assert _lessons(session(f"{ROOT}/node_modules/shop-env/index.js")) == []


def test_a_failure_in_another_checkout_is_not_this_projects_lesson():
    session = Session()
    session.bash("cd /home/dev/shop-action && pytest -q", error=True, output=MISSING,
                 exit_code=2)
    session.bash("cd /home/dev/shop-action && pip install -e .", output="ok")
    session.bash("cd /home/dev/shop-action && pytest -q", output="3 passed")
    assert _lessons(session) == []


# -- the person acting themselves ----------------------------------------------------------


@pytest.mark.parametrize("said, kept", [
    ("I published shop-client 1.2.0, try again", False),
    ("done", False),
    ("I've changed the token in the settings page", False),
    ("yes, go ahead and install it", True),
])
def test_the_person_acting_between_failure_and_success_takes_the_fix_from_the_agent(
        said: str, kept: bool):
    session = Session()
    session.bash("pytest -q", error=True, output=MISSING, exit_code=2)
    session.prompt(said)
    session.bash("pip install -r requirements-dev.txt", output="ok")
    session.bash("pytest -q", output="3 passed")
    assert bool(_lessons(session)) is kept


def test_a_command_the_person_ran_at_the_prompt_takes_the_fix_from_the_agent():
    def session(typed: str) -> Session:
        s = Session()
        s.bash("pytest -q", error=True, output=MISSING, exit_code=2)
        s.event("meta", text=f"<bash-input>{typed}</bash-input>", derived=True)
        s.bash("pip install -r requirements-dev.txt", output="ok")
        s.bash("pytest -q", output="3 passed")
        return s
    assert _lessons(session("git status")) != []  # only looked
    assert _lessons(session("pip install shop-settings")) == []


# -- a pipeline's status is its last command's ---------------------------------------------


def test_a_run_piped_into_tee_is_judged_by_its_output_not_its_exit_status():
    session = Session()
    session.bash("pytest -q 2>&1 | tee test.log", output=KEY_ERROR)  # exit 0: tee's
    session.edit(f"{ROOT}/src/shop/settings.py", "a", "b")
    session.bash("pytest -q 2>&1 | tee test.log", output=KEY_ERROR)  # still failing
    assert _lessons(session) == []
    session.edit(f"{ROOT}/src/shop/settings.py", "b", "c")
    session.bash("pytest -q 2>&1 | tee test.log", output="3 passed")
    assert _lessons(session) == [
        "`pytest -q` failed: KeyError: 'SECRET_KEY'; fixed by editing src/shop/settings.py"]


# -- lessons from a failure the person pasted ------------------------------------------------

TRACEBACK = ("I ran the app and got this:\n"
             "Traceback (most recent call last):\n"
             '  File "/home/dev/shop/shop/cart.py", line 12, in total\n'
             "    return sum(item.price for item in self.items)\n"
             "AttributeError: 'Cart' object has no attribute 'items'\n")


def _reported(*after: str, proof: str = "That works now, thanks.") -> list[str]:
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
    session.prompt(proof)
    for command in after:
        session.bash(command, error=True, output=TRACEBACK.split(":\n", 1)[1], exit_code=1)
    view = SessionView.of(session.transcript(), ROOT)
    return [c["object"] for c in reported_lesson_candidates(view)]


def test_a_reported_fix_the_same_error_came_back_after_is_taken_back():
    assert len(_reported()) == 1
    assert _reported("python -m shop") == []


def test_a_reported_fix_pasted_again_later_is_taken_back():
    session = Session()
    session.prompt(TRACEBACK)
    session.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
    session.prompt("That works now, thanks.")
    session.prompt("Hmm, after restarting it crashes again:\n" + TRACEBACK.split(":\n", 1)[1])
    view = SessionView.of(session.transcript(), ROOT)
    assert list(reported_lesson_candidates(view)) == []


def test_a_reported_fix_proved_by_the_person_changing_something_is_theirs():
    assert _reported(proof="I restarted the worker and it works now") == []
    assert len(_reported(proof="I ran it and that works now")) == 1


def test_a_check_piped_through_tail_passes_only_when_its_output_says_so():
    def session(output: str) -> list[str]:
        s = Session()
        s.prompt(TRACEBACK.replace("/home/dev/shop/shop/cart.py", "/usr/lib/shop/totals.py"))
        s.edit(f"{ROOT}/shop/cart.py", "self.items", "self.lines")
        s.bash("pytest -q 2>&1 | tail -3", output=output)  # exit 0: tail's
        s.prompt("Now add a discount field to the cart.")
        view = SessionView.of(s.transcript(), ROOT)
        return [c["object"] for c in reported_lesson_candidates(view)]
    assert len(session("5 passed in 0.1s")) == 1
    assert session("FAILED tests/test_cart.py::test_total\n1 failed, 4 passed") == []


# -- lessons from a CI loop ----------------------------------------------------------------

# the CI logs and the fix commit of test_ci_lessons: one loop, held to the end here


def _ci(*between: str, said: str | None = None, later: str | None = None) -> list[str]:
    session = Session()
    session.bash("gh run view 1111111 --log-failed", output=LOG_1)
    session.edit(f"{ROOT}/.github/workflows/ci.yml", "steps:", "steps:\n  - run: apt-get x")
    session.bash(COMMIT, output="[main abc1234] fix: install build-essential")
    for command in between:
        session.bash(command, output="ok")
    if said:
        session.prompt(said)
    session.bash("gh run list --limit 2", output=LISTED)
    session.bash("gh run view 2222222 --log-failed", output=LOG_2)
    if later:
        session.bash("gh run view 3333333 --log-failed", output=later)
    return [text for text in _lessons(session) if text.startswith("CI job")]


def test_a_ci_fix_the_same_failure_came_back_after_is_taken_back():
    assert len(_ci()) == 1
    assert _ci(later=LOG_1) == []


def test_a_ci_fix_alongside_a_change_on_the_host_or_by_the_person_is_not_the_commits():
    assert len(_ci("git push origin main", said="never mind, I pushed")) == 1
    assert _ci("gh secret set CC_PATH") == []
    assert _ci(said="I changed the runner image in the repository settings") == []


# -- lessons an agent's summary tells --------------------------------------------------------

ACCOUNT = ("Done.\n\n### Errors fixed:\n- Cart totals failing with `KeyError` in "
           "`shop/cart.py` → fixed by reading the size with a default\n- one\n- two\n")
CART_FAILURE = "E   KeyError: 'size' in shop/cart.py\nFAILED tests/test_cart.py::test_total"


def _summarized(*after: tuple[str, bool]) -> list[str]:
    session = Session()
    session.bash("pytest -q", error=True, output=CART_FAILURE, exit_code=1)
    session.edit(f"{ROOT}/shop/cart.py", "item['size']", "item.get('size', 1)")
    session.bash("pytest -q", output="3 passed")
    session.event("assistant", text=ACCOUNT)
    for output, failed in after:
        session.bash("pytest -q", error=failed, output=output, exit_code=int(failed))
    return _lessons(session, "summaries")


def test_a_summary_lesson_whose_problem_failed_again_later_is_taken_back():
    assert len(_summarized()) == 1
    assert _summarized((CART_FAILURE, True)) == []


def test_a_later_failure_that_only_lists_the_name_among_passed_tests_leaves_it():
    later = ("tests/test_cart.py::test_total PASSED shop/cart.py\n"
             "FAILED tests/test_mail.py::test_send - ConnectionError\n1 failed, 3 passed")
    assert len(_summarized((later, True))) == 1


# -- the vocabulary ------------------------------------------------------------------------


@pytest.mark.parametrize("command, kind", [
    ("pip install -r requirements.txt", None), ("npx prisma generate", None),
    ("docker compose up -d db", None), ("corepack pnpm install", None), ("make build", None),
    ("kubectl apply -f k8s/", "remote"), ("kubectl get pods", "asks"),
    ("npm view react versions", "asks"), ("gh api repos/o/r/commits", "asks"),
    ("gh api -X PUT repos/o/r/topics", "remote"), ("npm config set registry x", "machine"),
    ("cargo install ripgrep", "machine"), ("pip install --user httpx", "machine"),
    ("twine upload dist/*", "registry"), ("git push origin main", "ships"),
    ("gh pr create --fill", "ships"), ("rsync -a dist/ web:/srv/www", "remote"),
    ("rsync -a dist/ build/", None), ("npm audit", "asks"), ("npm audit fix", None),
])
def test_what_a_command_between_failure_and_success_can_be(command: str, kind: str | None):
    assert outside_change(tuple(command.split())) == kind


def test_the_person_saying_they_changed_something_or_asking_to_retry():
    assert user_changed("I restarted the server and it works") is True
    assert user_changed("I ran it again and it works") is False
    assert user_acted("ok, done.") is True and user_acted("try again now") is True
    assert user_acted("never mind, I pushed", shipping=False) is False
    assert user_acted("please fix the failing test") is False
