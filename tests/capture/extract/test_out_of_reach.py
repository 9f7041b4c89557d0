"""A step the agent's shell could not take here, that stood to the end and the person took up."""

from __future__ import annotations

from claimgraph.capture.extract.out_of_reach import out_of_reach_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.out_of_reach import naming_sentence, refusals, takes_up

from .extract_helpers import Session

KEY_REFUSED = ("Exit code 128\ngit@example.org: Permission denied (publickey).\nfatal: Could "
               "not read from remote repository.")
NO_PODMAN = "Exit code 127\n/bin/bash: line 1: podman: command not found"


def _walls(session: Session) -> list[str]:
    view = SessionView.of(session.transcript(), None)
    return [c["object"] for c in out_of_reach_candidates(view)]


def _refused_push(then: str) -> Session:
    session = Session()
    session.prompt("Commit the parser change and push it")
    session.bash("git commit -am 'fix: parse empty rows'", output="[main 1a2b3c4] fix")
    session.bash("git push origin main", error=True, output=KEY_REFUSED)
    session.prompt(then)
    return session


def test_a_refused_key_the_person_worked_around_is_kept():
    [wall] = _walls(_refused_push("ok, I pushed it from my laptop"))
    assert wall.startswith("`git push` does not work from the agent's shell here "
                           "(Permission denied (publickey))")
    assert wall.endswith('the person said afterwards: "ok, I pushed it from my laptop"')


def test_the_fact_cites_the_failure_and_the_persons_words():
    session = Session()
    push = session.bash("git push origin main", error=True, output=KEY_REFUSED)
    said = session.prompt("never mind, pushed")
    view = SessionView.of(session.transcript(), None)
    [found] = out_of_reach_candidates(view)
    assert found["predicate"] == "core/failure-mode"
    assert [e.split(":")[0] for e in found["evidence"]] == [
        f"transcript#L{push.line}", f"transcript#L{said.line}"]


def test_nobody_speaking_of_it_stores_nothing():
    """A failure the person never took up may be the agent's own detour."""
    assert _walls(_refused_push("Now add a test for the empty-row case")) == []


def test_a_later_push_that_went_through_stores_nothing():
    session = _refused_push("I added the deploy key, try the push again")
    session.bash("git push origin main", output="To example.org:me/shop.git\n"
                 "   1a2b3c4..5d6e7f8  main -> main")
    assert _walls(session) == []


def test_a_missing_program_the_person_explains_is_kept():
    session = Session()
    session.bash("podman compose up -d", error=True, output=NO_PODMAN)
    session.prompt("podman only runs on the build box, not in your shell.")
    [wall] = _walls(session)
    assert wall.startswith("`podman` does not work from the agent's shell here")
    assert "podman only runs on the build box" in wall


def test_leave_to_install_the_program_is_no_limit():
    session = Session()
    session.bash("podman ps", error=True, output=NO_PODMAN)
    session.prompt("feel free to install podman")
    assert _walls(session) == []


def test_a_guarded_later_run_does_not_count_as_getting_past_it():
    """``which podman || /opt/podman/bin/podman ps`` passing says nothing of the second
    part; the wall still stands."""
    session = Session()
    session.bash("podman ps", error=True, output=NO_PODMAN)
    session.bash("which podman || /opt/podman/bin/podman ps", output="podman not found")
    session.prompt("podman is not here, use the remote host")
    assert len(_walls(session)) == 1


def test_a_later_run_that_passed_stores_nothing():
    session = Session()
    session.bash("podman ps", error=True, output=NO_PODMAN)
    session.bash("sudo apt-get install -y podman", output="Setting up podman")
    session.bash("podman ps", output="CONTAINER ID  IMAGE")
    session.prompt("good, podman works now")
    assert _walls(session) == []


def test_a_program_a_script_could_not_find_is_not_the_machines():
    """The command line ran ``./build.sh``; the missing command is the script's own."""
    session = Session()
    session.bash("./build.sh", error=True, output="./build.sh: line 2: zstd: command not found")
    session.prompt("zstd is missing there, I know")
    assert _walls(session) == []


def test_a_sandboxs_refusal_is_the_sessions_settings():
    session = Session(agent="codex")
    session.bash("git push origin main", error=True,
                 output="failed in sandbox MacosSeatbelt with execution error: sandbox denied "
                        "exec error, exit code: 128, stderr: git@example.org: Permission "
                        "denied (publickey).")
    session.prompt("fine, I pushed")
    assert _walls(session) == []


def test_the_docker_daemon_out_of_reach():
    session = Session()
    session.bash("docker ps", error=True,
                 output="Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                        "Is the docker daemon running?")
    session.prompt("Docker runs on the other machine; use its API over the network.")
    [wall] = _walls(session)
    assert wall.startswith("`docker` does not work from the agent's shell here "
                           "(Cannot connect to the Docker daemon")


def test_one_fact_per_step():
    session = _refused_push("pushed")
    session.bash("git push origin main", error=True, output=KEY_REFUSED)
    session.prompt("pushed again")
    assert len(_walls(session)) == 1


def test_refusals_read_bash_and_zsh():
    assert [r.program for r in refusals("zsh:1: command not found: kubectl")] == ["kubectl"]
    assert [r.program for r in refusals("bash: helm: command not found")] == ["helm"]
    assert refusals("all good") == []


def test_naming_sentence_takes_the_word_and_its_forms_only():
    assert naming_sentence("Thanks. I pushed it. Next task?", "push") == "I pushed it."
    assert naming_sentence("see the pushdown automaton", "push") is None
    assert naming_sentence("look at docker-compose.yml", "docker") is None


def test_a_program_named_like_an_english_word_is_not_taken_up_by_the_word():
    """``go``, ``make``, ``just``, ``open``: a later "go ahead", "make sure" or "open a PR"
    names the word, not the wall; the person did not speak of it."""
    for program, said in (("go", "ok go ahead and write the README instead"),
                          ("make", "Make sure the docs mention the new flag."),
                          ("just", "just commit what you have"),
                          ("open", "open a PR when done")):
        session = Session()
        session.bash(f"{program} build", error=True,
                     output=f"Exit code 127\nbash: {program}: command not found")
        session.prompt(said)
        assert _walls(session) == [], program


def test_a_pull_request_does_not_take_up_a_refused_pull():
    session = Session()
    session.bash("git pull", error=True, output=KEY_REFUSED)
    session.prompt("now open a pull request for it")
    assert _walls(session) == []


def test_taking_up_says_the_wall_or_the_persons_own_doing():
    assert takes_up("you dont have access to docker here", "docker")
    assert takes_up("never mind, i pushed", "push")
    assert takes_up("podman only runs on the build box, not in your shell.", "podman")
    assert not takes_up("the docker docs say to pin the image", "docker")
    assert not takes_up("Make sure the docs mention the new flag.", "make")
    assert not takes_up("the client wants docker compose files", "docker")


def test_the_wall_is_told_without_the_user_host_or_path_the_refusal_named():
    """The refusal's words are kept, not the account, host, socket address or script path
    around them: the fact may travel to a shared store, the step is what it is about."""
    key = ("Exit code 255\nalice@10.20.30.40: Permission denied (publickey,password).\n"
           "fatal: Could not read from remote repository.")
    daemon = ("Cannot connect to the Docker daemon at ssh://alice@build-01.corp.internal. "
              "Is the docker daemon running?")
    missing = "Exit code 127\n/home/alice/.profile: line 3: gh: command not found"
    for command, output, said, kept in (
            ("git push origin main", key, "never mind, I pushed", "Permission denied (publickey"),
            ("docker ps", daemon, "docker only runs on my host", "Cannot connect to the Docker"),
            ("gh pr create --fill", missing, "gh is not installed there", "gh: command not found")):
        session = Session()
        session.bash(command, error=True, output=output)
        session.prompt(said)
        [wall] = _walls(session)
        assert kept in wall, wall
        assert "alice" not in wall and "10.20.30.40" not in wall and "corp.internal" not in wall


def test_only_the_persons_reply_to_the_failure_can_take_it_up():
    """A sentence further on that names the step may be about anything by then."""
    session = _refused_push("Now add a test for the empty-row case")
    session.bash("pytest -q", output="3 passed")
    session.prompt("Good. Don't push yet, I want to read it first.")
    assert _walls(session) == []


def test_the_person_as_subject_counts_only_doing_the_step():
    assert takes_up("I'll push it from here", "push")
    assert not takes_up("I want to go with option B", "go")
    assert not takes_up("Make sure I can read the report", "make")


def test_a_later_failure_of_the_step_the_person_takes_up_is_read():
    """The first refusal went unremarked; the person's reply to the second takes it up."""
    session = _refused_push("Now add a test for the empty-row case")
    session.bash("git push origin main", error=True, output=KEY_REFUSED)
    session.prompt("never mind, I pushed it myself")
    [wall] = _walls(session)
    assert wall.endswith('"never mind, I pushed it myself"')


def _refused_remote(command: str, then: str) -> Session:
    session = Session()
    session.prompt("Bring in the parser from the other repository")
    session.bash(command, error=True, output=KEY_REFUSED)
    session.prompt(then)
    return session


def test_another_repositorys_refused_remote_is_no_fact_of_this_project():
    """A clone, or a fetch from a URL the line names, reaches another repository's remote:
    what it refused says nothing of this project's own."""
    assert _walls(_refused_remote("git clone git@example.org:vendor/parser.git",
                                  "never mind the clone, I copied it in")) == []
    assert _walls(_refused_remote("git fetch git@example.org:vendor/parser.git main",
                                  "never mind the fetch, I copied it in")) == []
    assert _walls(_refused_remote("git pull https://example.org/vendor/parser.git",
                                  "forget the pull, I copied it in")) == []
    assert _walls(_refused_remote("git -C ../parser fetch origin",
                                  "never mind the fetch, I copied it in")) == []


def test_the_projects_own_remote_by_its_name_still_counts():
    [wall] = _walls(_refused_remote("git fetch origin", "never mind the fetch, I did it"))
    assert wall.startswith("`git fetch` does not work from the agent's shell here")
