"""Where facts belong: the project a session STARTED in (origin.py), never where a later `cd`
went, never the directory capture runs in; worktrees share their repository's memory; Gemini
sessions are placed by the project hash they recorded; a Windows cwd is the recording machine's,
never joined to a local directory; with no project, project facts go to an unplaced scope."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claimgraph.capture import foreign_paths
from claimgraph.capture import origin as origins
from claimgraph.capture.events import Event, SessionInfo, Transcript
from claimgraph.capture.extract import EXTRACTORS
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.readers import read_transcript
from claimgraph.opening import open_store

from .test_run import CLAUDE, TRANSCRIPTS, Session, capture, git_repo

GEMINI_SESSION = TRANSCRIPTS / "gemini" / "session-2025-10-27T19-55-981c87cb.json"
#: The Gemini fixture's projectHash is sha256 of this path (checked below, not assumed).
GEMINI_ROOT = "/Users/jnarowski/Dev/playground/src/test-project"
CD_SESSION = CLAUDE / "full-session-four.jsonl"  # starts at the monorepo root, then cd apps/app
MONOREPO = "/Users/jnarowski/Dev/sourceborn/src/agent-workflows-monorepo-v2"

needs_git = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed")


@pytest.fixture
def db() -> Path:
    return Path(os.environ["CLAIMGRAPH_DB"])


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """A registered extractor with one project fact and one user fact, independent of the
    built-in rules; it records the project_root each call was given."""
    roots: list[str | None] = []

    def extract(transcript: Transcript, *, project_root: str | None) -> list[dict[str, Any]]:
        roots.append(project_root)
        first = next(e for e in transcript.events if e.kind == "prompt")
        quote = f"{first.source_file}:{first.line}: {first.text[:60]}"
        return [{"subject": "shop", "predicate": "core/depends-on", "object": "postgres",
                 "object_kind": "entity", "epistemic": "observation", "confidence": 0.8,
                 "scope": "project", "evidence": [quote], "rule": "probe"},
                {"subject": "me", "predicate": "core/prefers", "object": "ripgrep",
                 "object_kind": "entity", "epistemic": "preference", "confidence": 0.8,
                 "scope": "user", "evidence": [quote], "rule": "probe"}]
    monkeypatch.setitem(EXTRACTORS, "probe", extract)
    return roots


def scopes(db: Path) -> dict[str, set[str]]:
    store = open_store(db, create=False)
    try:
        found: dict[str, set[str]] = {}
        for fact in store.all_facts():
            found.setdefault(fact["scope"], set()).add(fact["subject"]["name"])
        return found
    finally:
        store.close()


def all_facts(db: Path) -> list[dict[str, Any]]:
    store = open_store(db, create=False)
    try:
        return store.all_facts()
    finally:
        store.close()


def valid_scopes(db: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for fact in all_facts(db):
        if not fact.get("t_invalid"):
            found.setdefault(fact["scope"], set()).add(fact["subject"]["name"])
    return found


def git(cwd: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, env=env)


def repo_with_worktree(tmp_path: Path, remote: str | None) -> tuple[Path, Path]:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(main, "commit", "-q", "--allow-empty", "-m", "start")
    if remote:
        git(main, "remote", "add", "origin", remote)
    git(main, "worktree", "add", "-q", str(tmp_path / "feature"))
    return main, tmp_path / "feature"


def one_prompt_session(path: Path, cwd: Path, text: str = "Keep the API small.",
                       session_id: str = "s-1") -> Session:
    session = Session(path, cwd, session_id)
    session.write(session.prompt(text))
    return session


def logged(stderr: str, event: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines()
            if line.startswith("{") and f'"{event}"' in line]


def gemini_document(path: Path, root: str, *, tool_path: str | None = None,
                    session_id: str = "g-1") -> Path:
    """A Gemini session whose projectHash is sha256(root), naming no directory (unless
    ``tool_path``): only a matching hash can place it."""
    calls = ([{"id": "c1", "name": "read_file", "args": {"absolute_path": tool_path},
               "status": "success", "result": []}] if tool_path else [])
    path.write_text(json.dumps({
        "sessionId": session_id, "projectHash": hashlib.sha256(root.encode()).hexdigest(),
        "startTime": "2026-01-05T10:00:00.000Z", "lastUpdated": "2026-01-05T10:05:00.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-01-05T10:00:00.000Z", "type": "user",
             "content": "Keep the API small."},
            {"id": "m2", "timestamp": "2026-01-05T10:01:00.000Z", "type": "gemini",
             "content": "Understood.", "toolCalls": calls}]}, indent=2))
    return path


# --- the origin, unit by unit ------------------------------------------------------------------

def transcript_of(*events: Event, start: int = 0, **session: Any) -> Transcript:
    return Transcript("/nowhere/t.jsonl", "claude-code", SessionInfo("claude-code", **session),
                      tuple(events), start, start + 10, 1, {}, ())


def no_known() -> dict[str, str]:
    raise AssertionError("known roots are looked up only for a Gemini hash")


def test_the_reader_keeps_the_first_cwd_as_the_start_and_the_latest_as_cwd():
    session = read_transcript(CD_SESSION).session
    assert session.start_cwd == MONOREPO
    assert session.cwd == MONOREPO + "/apps/app"


def test_a_marked_origin_beats_the_payload_and_the_transcript():
    mark = {"offset": 10, "origin": {"cwd": "/first", "source": "request"}}
    found = origins.find_origin(transcript_of(start_cwd="/t"), mark, "/payload", no_known, "/x")
    assert found == origins.Origin("/first", "mark")


def test_the_payload_cwd_beats_the_transcript_s_first_cwd():
    found = origins.find_origin(transcript_of(start_cwd="/t"), None, "/payload", no_known, "/x")
    assert found == origins.Origin("/payload", "request")


def test_without_a_payload_the_transcript_s_first_cwd_is_the_origin():
    found = origins.find_origin(transcript_of(start_cwd="/t", cwd="/t/sub"), None, None,
                                no_known, "/x")
    assert found == origins.Origin("/t", "transcript")


def _at(cwd: str, line: int) -> Event:
    return Event(kind="prompt", agent="claude-code", source_file="/nowhere/t.jsonl", line=line,
                 text="x", cwd=cwd)


@pytest.mark.parametrize("home", ["/Users/dev", "/home/dev", "/home/dev/Documents", "/",
                                  "C:\\Users\\dev"])
def test_a_session_started_at_home_belongs_where_it_settled(home):
    repo = (home.rstrip("/\\") + ("\\" if "\\" in home else "/") + "shop")
    events = [_at(home, 1), _at(repo, 2), _at(repo, 3), _at(repo, 4)]
    found = origins.find_origin(transcript_of(*events, start_cwd=home), None, None, no_known,
                                "/x")
    assert found.cwd == repo and found.source == "transcript"


def test_a_home_start_that_never_settles_or_a_project_start_stays():
    spread = [_at("/home/dev", 1), _at("/home/dev/a", 2), _at("/home/dev/b", 3),
              _at("/home/dev", 4)]
    assert origins.settled_cwd(transcript_of(*spread), "/home/dev") == "/home/dev"
    elsewhere = [_at("/home/dev", 1), _at("/srv/app", 2), _at("/srv/app", 3)]
    assert origins.settled_cwd(transcript_of(*elsewhere), "/home/dev") == "/home/dev"
    moved = [_at("/home/dev/shop", 1), _at("/home/dev/shop/web", 2), _at("/home/dev/shop/web", 3)]
    assert origins.settled_cwd(transcript_of(*moved), "/home/dev/shop") == "/home/dev/shop"


def test_a_later_segment_under_an_old_mark_reads_the_start_from_the_file_head(tmp_path):
    path = tmp_path / "s.jsonl"
    session = Session(path, tmp_path / "started-here")
    session.write(session.prompt("one"))
    session.cwd = tmp_path / "cd-ed-into"
    session.write(session.prompt("two"))
    tail = read_transcript(path, start_offset=len(path.read_bytes().splitlines(True)[0]))
    assert tail.session.start_cwd == str(tmp_path / "cd-ed-into")  # all the segment shows
    found = origins.find_origin(tail, {"offset": 1}, None, no_known, "/x")
    assert found == origins.Origin(str(tmp_path / "started-here"), "transcript")


def test_a_codex_rollout_read_from_an_offset_still_starts_at_its_session_meta_cwd():
    rollout = next((TRANSCRIPTS / "codex").glob("rollout-2025-09-24*.jsonl"))
    first_line = len(rollout.read_bytes().splitlines(True)[0])
    tail = read_transcript(rollout, start_offset=first_line)
    assert tail.session.start_cwd == origins.head_cwd(str(rollout)) == \
        json.loads(rollout.read_text().splitlines()[0])["payload"]["cwd"]


def test_nothing_known_is_no_origin_not_the_capture_s_own_directory():
    found = origins.find_origin(transcript_of(), None, None, no_known, os.getcwd())
    assert found == origins.Origin(None, "none")


def test_gemini_computes_its_project_hash_as_sha256_of_the_root_path():
    document = json.loads(GEMINI_SESSION.read_text())
    assert origins.path_hash(GEMINI_ROOT) == document["projectHash"]
    assert read_transcript(GEMINI_SESSION).session.project_hash == document["projectHash"]


def test_a_gemini_session_is_placed_by_a_directory_it_names_whose_hash_matches():
    transcript = read_transcript(GEMINI_SESSION)
    found = origins.find_origin(transcript, None, None, dict, "/somewhere/else")
    assert found == origins.Origin(GEMINI_ROOT, "gemini-hash")


def test_a_gemini_hash_is_matched_against_known_roots_before_any_hashing():
    wanted = origins.path_hash("/known/root")
    assert origins.match_project_hash(wanted, iter(()), {wanted: "/known/root"}) == "/known/root"
    assert origins.match_project_hash(wanted, ["/a", "/b"], {}) is None


def test_candidates_are_named_paths_with_their_parents_then_the_capture_cwd():
    event = Event("tool_call", "gemini", "f", 1, tool_input={"file_path": "/r/src/app.py",
                                                              "limit": 3})
    prompt = Event("prompt", "gemini", "f", 2, "Workspace Directories:\n  - /w/proj\n")
    found = list(origins.candidate_dirs(transcript_of(event, prompt), "/here"))
    assert found == ["/r/src/app.py", "/r/src", "/r", "/w/proj", "/w", "/here"]


def test_known_roots_are_bounded_keep_the_newest_and_change_only_on_news():
    roots: dict[str, str] = {}
    for n in range(origins.MAX_KNOWN_ROOTS + 5):
        roots = origins.remember_roots(roots, f"/p{n}", f"/p{n}") or roots
    assert len(roots) == origins.MAX_KNOWN_ROOTS
    assert f"/p{origins.MAX_KNOWN_ROOTS + 4}" in roots.values() and "/p0" not in roots.values()
    assert origins.remember_roots(roots, "/p7", None) is None
    assert origins.path_scopes(["/a", "github.com/x/y", "user", None]) == {
        origins.path_hash("/a"): "/a"}


# --- captures end to end -----------------------------------------------------------------------

def test_a_session_that_cds_elsewhere_stays_in_the_project_it_started_in(capsys, db):
    code, report, _ = capture(capsys, str(CD_SESSION), "--no-curate")
    assert code == 0 and report["project"] == MONOREPO  # not .../apps/app, where it ended


@needs_git
def test_a_cd_into_another_repository_does_not_move_the_session(capsys, tmp_path, db, probe):
    home = git_repo(tmp_path / "home-repo", "https://github.com/acme/shop.git")
    other = git_repo(tmp_path / "other-repo", "https://github.com/acme/other.git")
    session = Session(tmp_path / "s.jsonl", home)
    session.write(session.prompt("Look at the other repo."))
    session.cwd = other
    session.write(session.prompt("Now fix it there."))
    _, report, _ = capture(capsys, str(session.path), "--extractor", "probe", "--no-curate")
    assert report["project"] == "github.com/acme/shop"
    assert probe == [str(home.resolve())]


@needs_git
@pytest.mark.parametrize("remote", [None, "git@github.com:acme/shop.git"])
def test_two_worktrees_of_one_repository_share_one_memory(capsys, tmp_path, db, probe, remote):
    main, feature = repo_with_worktree(tmp_path, remote)
    one_prompt_session(tmp_path / "a.jsonl", main, session_id="a")
    one_prompt_session(tmp_path / "b.jsonl", feature, session_id="b")
    _, first, _ = capture(capsys, str(tmp_path / "a.jsonl"), "--extractor", "probe", "--no-curate")
    _, second, _ = capture(capsys, str(tmp_path / "b.jsonl"), "--extractor", "probe",
                           "--no-curate")
    expected = "github.com/acme/shop" if remote else str(main.resolve())
    assert first["project"] == second["project"] == expected
    assert second["counts"] == {"reinforced": 2}  # the feature worktree's session found them
    assert probe == [str(main.resolve()), str(feature.resolve())]  # files live in each


@needs_git
def test_worktrees_of_a_bare_repository_share_one_memory(tmp_path):
    from claimgraph.project import resolve_project
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q")
    git(seed, "commit", "-q", "--allow-empty", "-m", "start")
    bare = tmp_path / "shop.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    git(bare, "remote", "remove", "origin")  # no remote: the repository's path is the id
    git(bare, "worktree", "add", "-q", str(tmp_path / "one"))
    git(bare, "worktree", "add", "-q", str(tmp_path / "two"))
    one, two = resolve_project(tmp_path / "one"), resolve_project(tmp_path / "two")
    assert one.id == two.id == str(bare.resolve())
    assert (one.root, two.root) == (str((tmp_path / "one").resolve()),
                                    str((tmp_path / "two").resolve()))


@needs_git
def test_a_resumed_session_stays_where_it_started_even_from_another_payload(
        capsys, tmp_path, db, probe):
    home = git_repo(tmp_path / "home-repo", "https://github.com/acme/shop.git")
    session = one_prompt_session(tmp_path / "s.jsonl", home)
    capture(capsys, str(session.path), "--extractor", "probe", "--no-curate")
    session.write(session.prompt("Resumed."))
    _, report, _ = capture(capsys, str(session.path), "--cwd", str(tmp_path), "--extractor",
                           "probe", "--no-curate")
    assert report["segment"]["from"] > 0 and report["project"] == "github.com/acme/shop"


def test_no_project_files_project_facts_in_an_unplaced_scope_and_says_so(
        capsys, tmp_path, db, probe, monkeypatch):
    unrelated = tmp_path / "some-other-project"
    unrelated.mkdir()
    monkeypatch.chdir(unrelated)  # capture runs here; the session never did
    path = tmp_path / "notes.txt"
    path.write_text("User: Keep the API small.\n")
    code, report, err = capture(capsys, str(path), "--agent", "text", "--extractor", "probe",
                                "--no-curate")
    assert code == 0 and report["project"] == "unplaced:text-notes"
    assert report["counts"] == {"created": 2, "unplaced": 1}
    warning = next(w for w in report["warnings"] if "no project is known" in w)
    assert "1 project fact(s) were kept in scope unplaced:text-notes" in warning
    assert "--cwd" in warning
    (event,) = logged(err, "capture.no-project")
    assert event["level"] == "warning" and event["unplaced"] == 1 and "--cwd" in event["hint"]
    assert event["scope"] == "unplaced:text-notes"
    assert scopes(db) == {"user": {"me"}, "unplaced:text-notes": {"shop"}}
    assert probe == ["/unplaced/text-notes"]  # never the directory capture runs in


def test_a_session_placed_nowhere_is_read_again_once_its_cwd_is_given(capsys, tmp_path, db,
                                                                      probe):
    path = tmp_path / "notes.txt"
    path.write_text("User: Keep the API small.\n")
    capture(capsys, str(path), "--agent", "text", "--extractor", "probe", "--no-curate")
    project = tmp_path / "proj"
    project.mkdir()
    _, report, _ = capture(capsys, str(path), "--agent", "text", "--cwd", str(project),
                           "--extractor", "probe", "--no-curate")
    assert report["segment"]["from"] == 0 and report["project"] == str(project.resolve())
    assert report["counts"] == {"created": 1, "reinforced": 1}  # the user fact, not twice
    assert any("read again from the start" in w for w in report["warnings"])
    assert valid_scopes(db) == {"user": {"me"}, str(project.resolve()): {"shop"}}
    (moved,) = [f for f in all_facts(db) if f["scope"] == "unplaced:text-notes"]
    assert moved["invalidation_kind"] == "forgotten"
    assert str(project.resolve()) in moved["invalidation_reason"]


def test_only_the_placed_session_s_facts_leave_the_unplaced_scope(capsys, tmp_path, db, probe):
    """Two Gemini sessions of one unknown project share its unplaced scope; placing one
    moves its facts only: what the other reinforced stays until that one is placed too."""
    root = tmp_path / "gproj"
    root.mkdir()
    first = gemini_document(tmp_path / "session-a.json", str(root))
    second = gemini_document(tmp_path / "session-b.json", str(root), session_id="g-2")
    for document in (first, second):
        _, report, _ = capture(capsys, str(document), "--extractor", "probe", "--no-curate")
        assert report["project"].startswith("unplaced:gemini-")
    capture(capsys, str(first), "--cwd", str(root), "--extractor", "probe", "--no-curate")
    left = [f for f in all_facts(db) if f["scope"].startswith("unplaced:")]
    assert [f.get("invalidation_kind") for f in left] == [None]  # both sessions said it
    assert valid_scopes(db)[str(root.resolve())] == {"shop"}


def test_the_gemini_fixture_lands_in_the_project_its_hash_names(capsys, tmp_path, db,
                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, report, _ = capture(capsys, str(GEMINI_SESSION), "--no-curate")
    assert code == 0 and report["project"] == GEMINI_ROOT
    assert report["warnings"] == []


def test_a_gemini_session_naming_no_directory_never_takes_the_capture_cwd(
        capsys, tmp_path, db, probe, monkeypatch):
    root = tmp_path / "gproj"
    root.mkdir()
    document = gemini_document(tmp_path / "session-g.json", str(root))
    monkeypatch.chdir(tmp_path)  # not the project: its hash does not match
    _, report, _ = capture(capsys, str(document), "--extractor", "probe", "--no-curate")
    key = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    assert report["project"] == f"unplaced:gemini-{key}" and report["counts"]["unplaced"] == 1
    assert scopes(db)[f"unplaced:gemini-{key}"] == {"shop"}


def test_a_gemini_session_run_from_its_own_project_is_placed_there(capsys, tmp_path, db, probe,
                                                                   monkeypatch):
    root = tmp_path / "gproj"
    root.mkdir()
    document = gemini_document(tmp_path / "session-g.json", str(root))
    monkeypatch.chdir(root)
    _, report, _ = capture(capsys, str(document), "--extractor", "probe", "--no-curate")
    assert report["project"] == str(root.resolve())


def test_a_gemini_session_finds_a_root_an_earlier_capture_made_known(capsys, tmp_path, db,
                                                                     probe, monkeypatch):
    root = tmp_path / "gproj"
    root.mkdir()
    one_prompt_session(tmp_path / "claude.jsonl", root)
    capture(capsys, str(tmp_path / "claude.jsonl"), "--extractor", "probe", "--no-curate")
    document = gemini_document(tmp_path / "session-g.json", str(root))
    monkeypatch.chdir(tmp_path)
    _, report, _ = capture(capsys, str(document), "--extractor", "probe", "--no-curate")
    assert report["project"] == str(root.resolve())
    assert report["counts"] == {"reinforced": 2}


def test_a_gemini_hook_payload_cwd_places_the_session_directly(capsys, tmp_path, db, probe):
    root = tmp_path / "gproj"
    root.mkdir()
    document = gemini_document(tmp_path / "session-g.json", "/a/different/root")
    _, report, _ = capture(capsys, str(document), "--cwd", str(root), "--extractor", "probe",
                           "--no-curate")
    assert report["project"] == str(root.resolve())


def _read_result(path: str, text: str, call_id: str) -> tuple[Event, Event]:
    call = Event("tool_call", "gemini", "/t.json", 3, tool_name="read_file",
                 tool_input={"file_path": path}, call_id=call_id)
    return call, Event("tool_result", "gemini", "/t.json", 4, text=text, call_id=call_id)


def test_with_no_directory_the_repository_its_root_manifest_names_places_the_session():
    manifest = '{\n  "name": "shop",\n  "repository": {"type": "git", ' \
               '"url": "git+https://github.com/acme/shop.git"}\n}'
    found = origins.find_origin(transcript_of(*_read_result("package.json", manifest, "c1")),
                                None, None, dict, None)
    assert found == origins.Origin(None, "repository", "github.com/acme/shop")
    assert found.as_mark()["remote"] == "github.com/acme/shop"


def test_a_manifest_below_the_root_or_two_repositories_place_nothing():
    other = '{"repository": "https://github.com/acme/lib"}'
    nested = _read_result("packages/lib/package.json", other, "c1")
    assert origins.shown_remote(transcript_of(*nested)) is None
    both = (*_read_result("package.json", '{"repository": "https://github.com/acme/shop"}', "c1"),
            *_read_result("Cargo.toml", 'repository = "https://github.com/acme/lib"', "c2"))
    assert origins.shown_remote(transcript_of(*both)) is None


def test_a_session_placed_by_its_repository_files_project_facts_under_the_remote():
    from claimgraph.capture import placement

    origin = origins.Origin(None, "repository", "github.com/acme/shop")
    project = placement._project(origin, transcript_of(), {})
    assert project.id == "github.com/acme/shop" and project.root.endswith("/shop")
    placed = placement.Placement(origin, project)
    assert placement.scoped({"scope": "project"}, placed, "session-log")["scope"] == \
        "github.com/acme/shop"


@pytest.mark.parametrize("cwd, project_id, root", [
    ("C:\\Users\\dev\\shop\\.claude\\worktrees\\brave-otter", "C:/Users/dev/shop",
     "/C:/Users/dev/shop/.claude/worktrees/brave-otter"),
    ("C:\\Users\\dev\\shop", "C:/Users/dev/shop", "/C:/Users/dev/shop"),
    ("/nowhere/shop/.worktrees/feature-x", "/nowhere/shop", "/nowhere/shop/.worktrees/feature-x"),
])
def test_a_worktree_folder_git_cannot_see_is_filed_under_its_repository(cwd, project_id, root):
    from claimgraph.capture import placement

    origin = origins.Origin(cwd, "transcript")
    project = placement._project(origin, transcript_of(), {})
    assert (project.id, project.root) == (project_id, root)


@pytest.mark.parametrize("cwds, branches, latest", [
    (["/a", "/a", "/b", "/a"], ["main", "main", "main", "dev"], ("/a", "dev")),
    (["/a", "/b", "/b", "/b"], ["main", "dev", "dev", "dev"], ("/b", "dev")),
    (["/a", "/b", "/a", "/b"], ["x", "y", "x", "x"], ("/b", "x"))])
def test_an_envelope_that_repeats_the_last_one_still_leaves_the_latest_cwd_and_branch(
        tmp_path, cwds, branches, latest):
    """The reader reuses an envelope like the previous record's; what it remembers must be what
    remembering every record would leave: the first cwd as the start, the latest ones as now."""
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({
        "type": "user", "uuid": f"u{n}", "sessionId": "s", "cwd": cwd, "gitBranch": branch,
        "version": "2.0.0", "timestamp": f"2026-01-05T10:0{n}:00.000Z",
        "message": {"role": "user", "content": f"message {n}"}}) + "\n"
        for n, (cwd, branch) in enumerate(zip(cwds, branches))))
    transcript = read_transcript(path, "claude-code")
    assert (transcript.session.cwd, transcript.session.git_branch) == latest
    assert transcript.session.start_cwd == "/a"
    assert [e.cwd for e in transcript.events] == cwds
    assert [e.git_branch for e in transcript.events] == branches


# --- a transcript recorded on Windows ---------------------------------------------------------

WINDOWS_SESSION = CLAUDE / "windows-starcar-e92f5a0b.jsonl"  # a real session, cwd C:\Users\…
WINDOWS_CWD = "C:\\Users\\Chris\\git\\starcar"


@pytest.mark.parametrize("recorded, posix", [
    ("C:\\Users\\Chris\\git\\starcar", "/C:/Users/Chris/git/starcar"),
    ("c:\\work\\app\\..\\api\\", "/C:/work/api"),
    ("D:/src/app", "/D:/src/app"),
    ("\\\\server\\share\\team\\app", "//server/share/team/app"),
    ("\\\\?\\C:\\very\\long", "/C:/very/long"),
    ("\\\\?\\UNC\\server\\share\\app", "//server/share/app"),
    ("/home/me/app", None), ("app\\src", None), ("C:relative", None), ("", None),
])
def test_a_windows_path_is_recognised_as_absolute_in_one_posix_form(recorded, posix):
    assert foreign_paths.windows_path(recorded) == posix


def test_a_windows_session_is_never_placed_under_the_capture_s_own_directory(
        capsys, tmp_path, db, probe, monkeypatch):
    monkeypatch.chdir(tmp_path)  # capture runs here; joining the cwd to it was the bug
    code, report, _ = capture(capsys, str(WINDOWS_SESSION), "--extractor", "probe",
                              "--no-curate")
    assert code == 0 and report["project"] == "C:/Users/Chris/git/starcar"
    assert probe == ["/C:/Users/Chris/git/starcar"]
    assert not any(str(tmp_path) in scope for scope in scopes(db))
    assert report["warnings"] == []


def test_the_real_windows_session_cites_its_files_relative_to_its_root():
    transcript = read_transcript(str(WINDOWS_SESSION), "claude-code")
    assert transcript.session.start_cwd == WINDOWS_CWD
    view = SessionView.of(transcript, None)
    edited = next(e for e in transcript.events if e.kind == "tool_call"
                  and e.tool_name == "Edit")
    assert view.root == "/C:/Users/Chris/git/starcar"
    assert view.own(view.resolve(edited.tool_input["file_path"])) == "CLAUDE.md"
    assert view.resolve("web/app.js", WINDOWS_CWD + "\\board") == \
        "/C:/Users/Chris/git/starcar/board/web/app.js"


def windows_session(path: Path, *, remote: str | None) -> Session:
    """A Claude Code session recorded on Windows: a prompt, maybe `git remote -v`, and a
    read of its AGENTS.md by its Windows path (a file Claude Code does not load itself, so its
    rule is stored)."""
    session = Session(path, WINDOWS_CWD, "w-1")  # type: ignore[arg-type]
    records: list[dict[str, Any]] = [session.prompt("Always use uv instead of pip here.")]
    if remote:
        records += session.tool("Bash", {"command": "git remote -v"},
                                f"origin\t{remote} (fetch)\norigin\t{remote} (push)\n")
    records += session.tool("Read", {"file_path": WINDOWS_CWD + "\\AGENTS.md"},
                            "1\t# Working here\n2\t\n3\t- Never edit `gen/` by hand.\n")
    session.write(*records)
    return session


def test_a_windows_session_that_shows_its_remote_is_filed_under_that_repository(
        capsys, tmp_path, db, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = windows_session(tmp_path / "w.jsonl", remote="git@github.com:acme/shop.git")
    code, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert code == 0 and report["project"] == "github.com/acme/shop"
    session.write(session.prompt("Keep the invoices module small."))
    _, later, _ = capture(capsys, str(session.path), "--no-curate")
    assert later["segment"]["from"] > 0 and later["project"] == "github.com/acme/shop"
    store = open_store(db, create=False)
    try:
        facts = store.all_facts()
        cited = [e for f in facts for e in f.get("evidence") or []]
    finally:
        store.close()
    assert "AGENTS.md: `- Never edit `gen/` by hand.`" in cited  # cited from its root
    assert {f["scope"] for f in facts} == {"github.com/acme/shop"}
    assert not any("C:\\" in str(e) or str(tmp_path) in str(e) for e in cited)


def test_a_gemini_session_takes_the_repository_an_earlier_one_from_its_root_showed(
        capsys, tmp_path, db, probe, monkeypatch):
    """Same project hash, same directory on the recording machine: the first session ran
    `git remote -v`, the second shows nothing of its repository."""
    monkeypatch.chdir(tmp_path)
    root = "/home/someone/else/shop"  # exists nowhere here
    shown = gemini_document(tmp_path / "session-a.json", root, session_id="g-a")
    document = json.loads(shown.read_text())
    output = "origin\thttps://github.com/acme/shop.git (fetch)\n"
    document["messages"][1]["toolCalls"] = [{
        "id": "c1", "name": "run_shell_command", "args": {"command": "git remote -v"},
        "status": "success",
        "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                         "response": {"output": output}}}]}]
    shown.write_text(json.dumps(document, indent=2))
    silent = gemini_document(tmp_path / "session-b.json", root, session_id="g-b")
    _, report, _ = capture(capsys, str(silent), "--extractor", "probe", "--no-curate")
    assert report["project"].startswith("unplaced:")  # nothing known yet
    _, report, _ = capture(capsys, str(shown), "--extractor", "probe", "--no-curate")
    assert report["project"] == "github.com/acme/shop"
    later = gemini_document(tmp_path / "session-c.json", root, session_id="g-c")
    _, report, _ = capture(capsys, str(later), "--extractor", "probe", "--no-curate")
    assert report["project"] == "github.com/acme/shop" and report["warnings"] == []


def test_a_windows_session_takes_the_repository_an_earlier_one_from_its_cwd_showed(
        capsys, tmp_path, db, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = windows_session(tmp_path / "a.jsonl", remote="https://github.com/acme/shop")
    capture(capsys, str(first.path), "--no-curate")
    second = windows_session(tmp_path / "b.jsonl", remote=None)
    second.session_id = "w-2"
    _, report, _ = capture(capsys, str(second.path), "--no-curate")
    assert report["project"] == "github.com/acme/shop"


def test_a_windows_session_showing_no_repository_is_filed_under_its_windows_path(
        capsys, tmp_path, db, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = windows_session(tmp_path / "a.jsonl", remote=None)
    _, report, _ = capture(capsys, str(session.path), "--no-curate")
    assert report["project"] == "C:/Users/Chris/git/starcar"


@pytest.mark.parametrize("named", ["//entire.io", "https://entire.io/docs", "//", "///a//b"])
def test_a_url_s_double_slash_in_a_prompt_never_loops_the_walk_to_the_root(named):
    """``dirname('//')`` is ``//``: the walk once spun there forever on a prompt that quoted
    an https link."""
    found = origins.find_origin(transcript_of(Event("prompt", "gemini", "/t.json", 1,
                                                    text=f"see {named} for more"),
                                              project_hash="ab" * 32),
                                None, None, dict, None)
    assert found == origins.Origin(None, "none")
    assert list(origins._with_parents(named.removeprefix("https:"))) in (
        [], ["//entire.io"], ["//entire.io/docs", "//entire.io"], ["/a/b", "/a"])


def test_a_command_s_windows_working_directory_is_read_in_the_posix_form():
    from claimgraph.capture.extract.shell import call_cwd
    codex = Event("tool_call", "codex", "/t.jsonl", 1, tool_name="shell",
                  tool_input={"command": ["dir"], "workdir": "C:\\work\\app\\api"})
    claude = Event("tool_call", "claude-code", "/t.jsonl", 2, tool_name="Bash",
                   tool_input={"command": "ls"}, cwd=WINDOWS_CWD)
    assert call_cwd(codex) == "/C:/work/app/api"
    assert call_cwd(claude) == "/C:/Users/Chris/git/starcar"


@pytest.mark.parametrize("path, root, seen", [
    # Git Bash writes drive C: as /c: beside a Windows root it is that drive
    ("/c/Users/me/app/src", "/C:/Users/me/app", "/C:/Users/me/app/src"),
    ("/d", "/C:/Users/me/app", "/D:"),
    # beside a POSIX root /c/... is an ordinary folder, and a longer first name is no drive
    ("/c/Users/me/app/src", "/home/me/app", "/c/Users/me/app/src"),
    ("/cc/Users", "/C:/Users/me/app", "/cc/Users"),
])
def test_a_git_bash_drive_path_is_that_drive_only_beside_a_windows_root(path, root, seen):
    assert foreign_paths.beside_windows_root(path, root) == seen


def test_a_cd_in_git_bash_form_is_inside_a_windows_project():
    from claimgraph.capture.extract.session import SessionView
    assert SessionView._relative(foreign_paths.beside_windows_root(
        "/c/Users/me/app/tests", "/C:/Users/me/app"), "/C:/Users/me/app") == "tests"
    assert SessionView._relative("/c/Users/me/app/tests", "/C:/Users/me/app") == "tests"
    assert SessionView._relative("/c/Users/me/other", "/C:/Users/me/app") is None
