"""A request the session carried out and that stood to the end is the user's decision
(capture/extract/requests.py, wired into statements)."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.builtin import extract
from claimgraph.logic.requested import LASTING, ONCE, mark

from .extract_helpers import ROOT, Session

ASK = "create a sample workspace by default when running `init` (with a flag to skip)"
INIT = f"{ROOT}/src/cli/init.py"
OLD = "def init():\n    pass"
NEW = ("def init(skip_workspace=False):\n    if not skip_workspace:\n"
       "        create_sample_workspace()  # the default workspace")


def _requests(session: Session) -> list[dict]:
    return [f for f in extract(session.transcript()) if f["rule"] == "requests"]


def _asked_and_built(ask: str = ASK, path: str = INIT, old: str = OLD, new: str = NEW
                     ) -> Session:
    s = Session()
    s.prompt(ask)
    s.event("assistant", text="I'll add that to init.")
    s.edit(path, old, new)
    return s


def test_a_request_the_turn_carried_out_is_the_users_decision():
    s = _asked_and_built()
    s.prompt("thanks, looks good")
    [found] = _requests(s)
    assert (found["predicate"], found["object"], found["scope"]) == ("x/decided", ASK, "project")
    assert found["source_type"] == "user-assertion" and found["epistemic"] == "commitment"
    assert found["evidence"][0].startswith("transcript#L1: create a sample workspace")
    assert mark(found) == LASTING and found["evidence"][1].endswith(": init.py")


def test_nothing_is_stored_when_the_turn_changed_no_file():
    s = Session()
    s.prompt(ASK)
    s.event("assistant", text="Here is how I would do it: …")
    s.bash("ls src/cli")
    assert _requests(s) == []


def test_nothing_is_stored_when_the_change_does_not_name_the_request():
    s = _asked_and_built(path=f"{ROOT}/README.md", old="# shop", new="# shop\n\nA store.")
    assert _requests(s) == []


def test_a_failed_edit_carried_nothing_out():
    s = Session()
    s.prompt(ASK)
    s.edit(INIT, OLD, NEW, error=True, output="old_string not found")
    assert _requests(s) == []


def test_a_change_made_only_after_the_next_prompt_is_not_this_requests():
    s = Session()
    s.prompt(ASK)
    s.event("assistant", text="Which folder holds the CLI?")
    s.prompt("src/cli")
    s.edit(INIT, OLD, NEW)
    assert _requests(s) == []


def test_a_file_written_for_it_and_deleted_later_undid_it():
    s = Session()
    s.prompt(ASK)
    s.write(f"{ROOT}/src/cli/workspaces.py", NEW)
    s.prompt("the tests are green")
    s.bash("rm src/cli/workspaces.py")
    assert _requests(s) == []


def test_the_users_later_retraction_drops_it():
    s = _asked_and_built()
    s.prompt("never mind the default workspace in `init`, let's not do that after all")
    assert _requests(s) == []


def test_runs_git_operations_and_reviews_are_not_decisions_even_when_files_changed():
    for ask in ("run the init tests every time and fix what fails in the workspace code",
                "commit the init workspace changes and push them when all checks pass",
                "review the init code and make sure every workspace is created"):
        s = _asked_and_built(ask=ask)
        assert _requests(s) == [], ask


def test_a_request_for_today_is_not_kept():
    s = _asked_and_built(ask="for now create a sample workspace when running init")
    assert _requests(s) == []


def test_one_act_done_once_is_kept_as_such():
    s = Session()
    s.prompt('rename the "dev-docs" skill to be "development-docs"')
    s.bash("git mv skills/dev-docs skills/development-docs")
    s.edit(f"{ROOT}/skills/development-docs/SKILL.md", "name: dev-docs",
           "name: development-docs")
    [found] = _requests(s)
    assert mark(found) == ONCE


def test_a_sentence_the_model_keeps_stays_the_statements_own():
    s = _asked_and_built(ask="Always use uv for installing packages in this repo, never pip")
    s.edit(f"{ROOT}/CONTRIBUTING.md", "pip install", "uv pip install packages with uv")
    facts = extract(s.transcript())
    assert [f["rule"] for f in facts if "uv for installing" in f["object"]] == ["statements"]


def test_a_sentence_that_introduces_a_list_says_nothing_alone():
    lead = "create a sample workspace by default when running `init`"
    assert [f["object"] for f in _requests(_asked_and_built(ask=lead + "."))] == [lead]
    listed = _asked_and_built(ask=lead + ":\n\n- one per project\n- a flag to skip it")
    assert _requests(listed) == []


TOOLBAR = f"{ROOT}/src/ui/toolbar.tsx"


def _toolbar(ask: str, new: str) -> list[dict]:
    s = _asked_and_built(ask, path=TOOLBAR, old='label="Export"', new=new)
    s.prompt("thanks")
    return _requests(s)


def test_a_request_with_a_rename_in_it_is_kept_as_done_once():
    [found] = _toolbar('add an archive button to the toolbar and rename the export button as '
                       '"Download" when a filter is on',
                       'label={filter ? "Download" : "Export"}\n<ArchiveButton toolbar />')
    assert mark(found) == ONCE
    [found] = _toolbar("add an archive button to the toolbar when a filter is on",
                       "<ArchiveButton toolbar filter />")
    assert mark(found) == LASTING


def test_a_request_left_to_the_agent_is_no_decision():
    ask = "add an archive button to the toolbar that shows an appropriate label when a filter is on"
    assert _toolbar(ask, '<ArchiveButton toolbar label={filter ? "Archive filtered" : "Archive"} />'
                    ) == []
    decided = _toolbar(ask.replace("an appropriate", "a short"), '<ArchiveButton toolbar '
                       'label={filter ? "Archive filtered short" : "Archive"} />')
    assert [mark(f) for f in decided] == [LASTING]  # the same ask, decided by the user: kept

def test_a_turn_that_wrote_only_unexpanded_shell_paths_carried_nothing_out():
    s = Session()
    s.prompt(ASK)
    s.bash('cat > "$workspace_prompt" <<EOF\ncreate sample workspace by default init skip\nEOF')
    s.write(f"{ROOT}/\"$workspace_prompt\"", "create a sample workspace by default in init")
    s.prompt("thanks")
    assert _requests(s) == []
    s = _asked_and_built()
    s.prompt("thanks")
    assert len(_requests(s)) == 1


PYPROJECT = f"{ROOT}/pyproject.toml"
LINT = "switch the linter of the project to `ruff` with the import rules on"
LINT_OLD = '[tool.flake8]\nmax-line-length = 100'
LINT_NEW = ('[tool.ruff]  # the project linter\nline-length = 100\n[tool.ruff.lint]\n'
            'select = ["E", "F", "I"]  # with the import rules')


def _linted(path: str = PYPROJECT, old: str = LINT_OLD, new: str = LINT_NEW,
            ask: str = LINT) -> Session:
    s = Session()
    s.prompt(ask)
    s.edit(path, old, new)
    s.prompt("thanks")
    return s


def test_a_request_that_puts_a_named_thing_into_the_projects_files_is_kept():
    # no word of behaviour: the name it gives, put into the build's own file, says it lasts
    [found] = _requests(_linted())
    assert (found["object"], mark(found)) == (LINT, LASTING)


def test_a_request_without_a_name_of_a_thing_is_one_step():
    ask = "switch the linter of the project to the import rules with a stricter line length"
    assert _requests(_linted(ask=ask)) == []


def test_a_named_thing_put_only_into_the_docs_is_no_decision():
    s = _linted(path=f"{ROOT}/docs/linting.md", old="Lint with flake8.",
                new="Lint with ruff: the project switched to `ruff` with the import rules.")
    assert _requests(s) == []


def test_a_named_thing_a_later_turn_took_out_again_is_no_decision():
    s = _linted()
    s.prompt("the CI image has no ruff, go back to the old setup")
    s.edit(PYPROJECT, LINT_NEW, LINT_OLD)
    assert _requests(s) == []


def test_a_tool_named_in_a_code_span_is_a_thing_a_plain_word_is_not():
    ask = "configure `gitleaks` with its stock rules and no allowlist"
    s = _linted(path=f"{ROOT}/.gitleaks.toml", old='[allowlist]\nregexes = [".*"]',
                new="# gitleaks: stock rules\n[extend]\nuseDefault = true\n# no allowlist",
                ask=ask)
    [found] = _requests(s)
    assert mark(found) == LASTING
    s = _linted(path=f"{ROOT}/.gitleaks.toml", old='[allowlist]\nregexes = [".*"]',
                new="# gitleaks: stock rules\n[extend]\nuseDefault = true\n# no allowlist",
                ask=ask.replace("`", ""))
    assert _requests(s) == []


def test_the_name_a_request_gives_the_thing_it_makes_is_no_decision():
    ask = "add a linter step called `lint_imports` with the import rules of the project"
    s = _linted(new=LINT_NEW + "\n# lint_imports: the project linter step", ask=ask)
    assert _requests(s) == []


@pytest.mark.parametrize("ask", [
    "Add an `invoices/totals.py` module with an `Invoice` class and the project linter",
    "Can we add a `lint_imports` step with the import rules of the project",
    "please create the `ruff` config with the import rules",
])
def test_a_request_to_make_a_new_thing_is_one_act_of_making(ask):
    """What it names is the new thing, which its code shows: no standing decision."""
    assert _requests(_linted(ask=ask)) == []


def test_a_later_edit_that_takes_out_what_the_request_put_in_retires_it():
    # behaviour-worded and kept before: a revert by editing, not only by deleting, undoes it
    s = _asked_and_built()
    s.prompt("thanks")
    assert len(_requests(s)) == 1
    s.prompt("the default workspace confuses people, back to a plain init please")
    s.edit(INIT, NEW, OLD)
    assert _requests(s) == []


def test_a_later_rewrite_that_keeps_the_requests_words_does_not_retire_it():
    s = _asked_and_built()
    s.prompt("tidy the init module up")
    s.write(INIT, "def init(skip_workspace: bool = False) -> None:\n"
                  "    if skip_workspace:\n        return\n"
                  "    create_sample_workspace()  # sample workspace by default\n")
    assert len(_requests(s)) == 1


HEALTH = f"{ROOT}/deploy/stack.sh"
HEALTH_ASK = "make the container healthchecks of the stack use `wget` instead of `curl`"
HEALTH_OLD = 'HEALTHCHECK="curl -fsS http://localhost:8080/ready || exit 1"'
HEALTH_WGET = ('HEALTHCHECK="wget -q -O - http://localhost:8080/ready || exit 1"'
               '  # stack healthchecks')


def _health(later_new: str) -> Session:
    s = _linted(path=HEALTH, old=HEALTH_OLD, new=HEALTH_WGET, ask=HEALTH_ASK)
    s.prompt("the containers stay unhealthy, make the check simpler")
    s.edit(HEALTH, HEALTH_WGET, later_new)
    return s


def test_a_named_form_a_later_turn_replaced_is_not_what_was_decided():
    """The healthchecks are still there (the request's other words stand), but in another
    form: the thing the person named (`wget`) is in no line at the end."""
    assert len(_requests(_linted(path=HEALTH, old=HEALTH_OLD, new=HEALTH_WGET,
                                 ask=HEALTH_ASK))) == 1
    replaced = 'HEALTHCHECK="nc -z localhost 8080 || exit 1"  # stack healthchecks'
    assert _requests(_health(replaced)) == []


def test_a_later_change_that_keeps_the_named_thing_keeps_the_request():
    kept = 'HEALTHCHECK="wget -q -T 3 -O - http://localhost:8080/ready || exit 1"  # healthchecks'
    assert len(_requests(_health(kept))) == 1


def test_a_fragment_of_a_line_taken_out_takes_out_its_line():
    s = _linted(new='[tool.ruff]\nline-length = 100  # ruff with the import rules')
    assert len(_requests(s)) == 1
    s.prompt("no, keep flake8 after all")
    s.edit(PYPROJECT, "[tool.ruff]\nline-length = 100  # ruff with", "[tool.flake8]\n#")
    assert _requests(s) == []


def test_a_yes_to_the_agents_offer_done_once_is_the_days_work():
    """The agent offered a step, the person said yes and added a rename: done once, the end
    state shows it; the same words typed unprompted stay a request done once."""
    ask = ('yes please add an archive button to the toolbar and rename the export button as '
           '"Download" when a filter is on')
    new = 'label={filter ? "Download" : "Export"}\n<ArchiveButton toolbar />'
    s = Session()
    s.prompt("the toolbar is crowded")
    s.event("assistant", text="The toolbar holds export only. If you want, I can add an "
            "archive button next to it.")
    s.prompt(ask)
    s.event("assistant", text="I'll add that to the toolbar.")
    s.edit(TOOLBAR, 'label="Export"', new)
    s.prompt("thanks")
    assert _requests(s) == []
    [found] = _toolbar(ask, new)
    assert mark(found) == ONCE
