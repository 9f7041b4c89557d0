"""Where a session started, and so which project its facts belong to (docs/architecture.md).

A session belongs to the project it STARTED in, never to where a later ``cd`` took the agent
and never to the directory ``claimgraph capture`` happens to run in (a sweep or a person
capturing someone's transcript from anywhere). In order:
1. the session's capture mark: a session placed once stays there, since a resumed session's
   later segments are read from an offset and no longer see its first record;
2. the cwd the hook payload (or ``--cwd``) gives;
3. the transcript's first recorded cwd (Claude Code and Codex put one on their records; a
   segment read from an offset under a mark older than origins scans the file's first lines).
   A session started in a home directory (``/Users/me``, ``/home/me``, ``C:/Users/me``, or
   a personal folder right under it: Documents, Desktop, Downloads) or at ``/`` did not start
   in a project: when most of its records were made in one directory below it (the agent
   ``cd``'d into the repository and worked there), that directory is the origin
   (``settled_cwd``); otherwise the start stays;
4. Gemini records no cwd, only ``projectHash`` = sha256 of its project root (its cwd at start,
   as a string). A directory whose hash matches is proof, so every candidate is checked:
   directories the session itself names (tool paths and their parents, the paths in its
   opening context block), project roots this store has seen (the ``projects:known-roots``
   mark, path-shaped scopes), and the directory capture runs in;
5. the repository the session itself shows, when no directory is known: a manifest in the
   directory it started in (a ``package.json``, ``pyproject.toml`` or ``Cargo.toml`` read by
   its bare name) that names its repository URL, or what ``git remote -v`` printed. One
   repository, named the same way everywhere it appears, files the session under that
   remote (the same project id its other sessions get from git); two different ones, or
   none, and nothing is guessed;
6. the repository an earlier session from the same directory showed: a Gemini session whose
   hash an earlier session placed by its repository also had (the ``projects:known-remotes``
   mark, keyed like the known roots);
7. nothing: no project. The caller files the project facts under an ``unplaced:`` scope of
   their own (placement.py) and says so (never the user scope for project facts).

A Windows cwd (foreign_paths.py) is the recording machine's and exists nowhere here: it keeps
the repository the session shows (steps 5, then 6, keyed by the cwd's hash), which then names
its project.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import re
from typing import Any, Callable, Iterable, Iterator, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Transcript
from claimgraph.capture.foreign_paths import windows_path
from claimgraph.capture.readers import open_transcript

KNOWN_ROOTS_MARK = "projects:known-roots"
KNOWN_REMOTES_MARK = "projects:known-remotes"
MAX_KNOWN_ROOTS = 1000
HEAD_BYTES, HEAD_LINES = 256 * 1024, 50
MAX_CANDIDATES = 5000
OPENING_EVENTS, OPENING_CHARS = 5, 20_000
MAX_PATH_CHARS = 4096
_ABSOLUTE_PATH = lazy_regex(r"(?<![\w.~-])/[^\s\"'`<>|:;,()\[\]{}]+")


@dataclasses.dataclass(frozen=True)
class Origin:
    """The directory the session started in (None: unknown) and how we know it."""

    cwd: str | None
    source: str  # mark | request | transcript | gemini-hash | repository | known-remote | none
    #: The repository's remote when no directory is known (step 5), as ``host/path``.
    remote: str | None = None
    #: The hash of the recording machine's directory under which ``remote`` is remembered
    #: (``projects:known-remotes``): only when this session itself showed the remote.
    remember_as: str | None = dataclasses.field(default=None, compare=False)

    def as_mark(self) -> dict[str, Any]:
        found = {"cwd": self.cwd, "source": self.source}
        return {**found, "remote": self.remote} if self.remote else found


def marked_origin(mark: Any) -> dict[str, Any] | None:
    origin = mark.get("origin") if isinstance(mark, Mapping) else None
    return origin if isinstance(origin, Mapping) else None


def placed_nowhere(mark: Any) -> bool:
    """The session was captured before, but no project was known for it."""
    origin = marked_origin(mark)
    return origin is not None and not origin.get("cwd")


def find_origin(transcript: Transcript, mark: Any, request_cwd: str | None,
                known: Callable[[], Mapping[str, str]], here: str | None,
                remotes: Callable[[], Mapping[str, str]] = dict) -> Origin:
    """See the module docstring for the order; ``known`` is called only for Gemini,
    ``remotes`` (the ``projects:known-remotes`` mark) only when no directory here is known."""
    earlier = marked_origin(mark)
    if earlier and isinstance(earlier.get("cwd"), str) and earlier["cwd"]:
        return _with_remote(Origin(earlier["cwd"], "mark", earlier.get("remote") or None),
                            transcript, remotes)
    if request_cwd:
        return _with_remote(Origin(request_cwd, "request"), transcript, remotes)
    started = transcript.session.start_cwd if transcript.start_offset == 0 else None
    started = started or (head_cwd(transcript.path) if transcript.start_offset else None)
    if started:
        started = settled_cwd(transcript, started)
        return _with_remote(Origin(started, "transcript"), transcript, remotes)
    project_hash = (transcript.session.project_hash or "").lower()
    if project_hash:
        root = match_project_hash(project_hash, candidate_dirs(transcript, here), known())
        if root:
            return _with_remote(Origin(root, "gemini-hash"), transcript, remotes)
    if earlier and isinstance(earlier.get("remote"), str) and earlier["remote"]:
        return Origin(None, "mark", earlier["remote"])
    remote = shown_remote(transcript)
    if remote:
        return Origin(None, "repository", remote, project_hash or None)
    remote = _known_remote(remotes, project_hash)
    return Origin(None, "known-remote", remote) if remote else Origin(None, "none")


#: Where a person's shell opens, not a project: a home directory or a personal folder in it.
_HOME = lazy_regex(r"^(?:/(?:Users|home)/[^/]+|/root|/[A-Z]:/Users/[^/]+)"
                   r"(?:/(?:Documents|Desktop|Downloads))?/?$", re.IGNORECASE)


def settled_cwd(transcript: Transcript, started: str) -> str:
    """The directory below a home-directory start where most of the session's records were
    made (module docstring, step 3); ``started`` when it is a project, or nothing settled."""
    start = windows_path(started) or started
    if not (_HOME.match(start) or start == "/"):
        return started
    cwds = [e.cwd for e in transcript.events if e.cwd and not e.subagent_id]
    if not cwds:
        return started
    counts: dict[str, int] = {}
    for cwd in cwds:
        counts[cwd] = counts.get(cwd, 0) + 1
    best, seen = max(counts.items(), key=lambda item: item[1])
    below = windows_path(best) or best
    inside = below.startswith(start.rstrip("/") + "/") and not _HOME.match(below)
    return best if inside and seen * 2 > len(cwds) else started


def _with_remote(origin: Origin, transcript: Transcript,
                 remotes: Callable[[], Mapping[str, str]]) -> Origin:
    """A Windows cwd (the recording machine's, never a directory here) keeps the repository
    the session shows, found once and then kept in the mark: a later segment of the same
    session, which may show none, is filed under the same project (placement.py). A session
    that shows none takes the one an earlier session from the same Windows directory showed."""
    if origin.remote or origin.cwd is None or windows_path(origin.cwd) is None:
        return origin
    key = path_hash(origin.cwd)
    remote = shown_remote(transcript)
    if remote:
        return dataclasses.replace(origin, remote=remote, remember_as=key)
    remote = _known_remote(remotes, key)
    return dataclasses.replace(origin, remote=remote) if remote else origin


def _known_remote(remotes: Callable[[], Mapping[str, str]], key: str) -> str | None:
    """The repository another session from the same directory (by hash) showed."""
    if not key:
        return None
    remote = remotes().get(key)
    return remote if isinstance(remote, str) and remote else None


def remember_remote(known: Mapping[str, str] | None, key: str | None,
                    remote: str | None) -> dict[str, str] | None:
    """``known`` with ``key`` (the hash of a directory on the recording machine: a Windows
    cwd, a Gemini project root) mapped to the repository a session from there showed; None
    when there is nothing new. Bounded like the known roots."""
    roots = {k: v for k, v in (known or {}).items() if isinstance(v, str)}
    if not key or not remote or roots.get(key) == remote:
        return None
    roots.pop(key, None)
    return dict(list({**roots, key: remote}.items())[-MAX_KNOWN_ROOTS:])


_ROOT_MANIFESTS = frozenset({"package.json", "pyproject.toml", "Cargo.toml"})
_MANIFEST_REMOTE = lazy_regex(
    r"""^\s*(?:\d+\s*[|:→]\s*)?[{,]?\s*["']?repository["']?\s*[:=]\s*(?:\{[^}]*?["']url["']\s*:\s*)?"""
    r"""["'](?:git\+)?(?P<url>(?:https?|ssh|git)://[^"'\s]+|git@[^"'\s]+)["']""",
    re.IGNORECASE | re.MULTILINE)
_GIT_REMOTE_LINE = lazy_regex(r"^origin\s+(?P<url>\S+)\s+\((?:fetch|push)\)\s*$", re.MULTILINE)


def shown_remote(transcript: Transcript) -> str | None:
    """The one repository the session shows for the directory it started in (module
    docstring, step 5); None when it shows none or more than one."""
    from claimgraph.project import normalize_remote

    calls = {e.call_id: e for e in transcript.events if e.kind == "tool_call" and e.call_id}
    found: set[str] = set()
    for result in transcript.events:
        call = calls.get(result.call_id) if result.kind == "tool_result" else None
        if call is None or result.is_error:
            continue
        for url in _remotes_shown(call.tool_input or {}, result.text):
            remote = normalize_remote(url)
            if remote:
                found.add(remote)
    return found.pop() if len(found) == 1 else None


def _remotes_shown(tool_input: Mapping[str, Any], text: str) -> list[str]:
    """URLs a root manifest's read shows as its repository, or ``git remote -v`` printed."""
    values = [v for v in tool_input.values() if isinstance(v, str)]
    if any(v.strip().lstrip("./") in _ROOT_MANIFESTS and "/" not in v.strip().lstrip("./")
           for v in values):
        return [m["url"] for m in _MANIFEST_REMOTE.finditer(text)][:1]
    if any(re.match(r"^\s*git\s+remote\s+-v\b", v) for v in values):
        return [m["url"] for m in _GIT_REMOTE_LINE.finditer(text)]
    return []


def head_cwd(path: str) -> str | None:
    """The first ``cwd`` in the file's first lines (top level, or in a Codex payload)."""
    try:
        with open_transcript(path) as handle:
            head = handle.read(HEAD_BYTES)
    except Exception:  # noqa: BLE001 -- the segment was read a moment ago; a guess costs nothing
        return None
    for raw in head.split(b"\n")[:HEAD_LINES]:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        for holder in (record, payload):
            if isinstance(holder, dict) and isinstance(holder.get("cwd"), str) and holder["cwd"]:
                return holder["cwd"]
    return None


def path_hash(path: str) -> str:
    """Gemini CLI's ``getProjectHash``: sha256 of the path string, hex."""
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def match_project_hash(project_hash: str, candidates: Iterable[str],
                       known: Mapping[str, str]) -> str | None:
    """The directory whose hash is ``project_hash``: the known roots first (no hashing)."""
    wanted = project_hash.lower()
    if known.get(wanted):
        return known[wanted]
    return next((d for d in _bounded(candidates) if path_hash(d) == wanted), None)


def _bounded(candidates: Iterable[str]) -> Iterator[str]:
    seen: set[str] = set()
    for directory in candidates:
        if directory not in seen and len(seen) < MAX_CANDIDATES:
            seen.add(directory)
            yield directory


def candidate_dirs(transcript: Transcript, here: str | None) -> Iterator[str]:
    """Directories the session names, each with its parents, then the capture's own cwd."""
    for path in _named_paths(transcript):
        yield from _with_parents(path)
    if here:
        yield here


def _named_paths(transcript: Transcript) -> Iterator[str]:
    for number, event in enumerate(transcript.events):
        for value in (event.tool_input or {}).values():
            if isinstance(value, str) and value.startswith("/"):
                yield value
        if number < OPENING_EVENTS and event.kind in ("prompt", "meta"):
            yield from _ABSOLUTE_PATH.findall(event.text[:OPENING_CHARS])


def _with_parents(path: str) -> Iterator[str]:
    """The path and its parents up to the root. POSIX keeps a leading ``//`` (a URL's
    ``//host`` in a prompt matches ``_ABSOLUTE_PATH``), and ``dirname("//")`` is ``//``:
    the walk stops where the parent no longer changes, never loops there."""
    first_line = path.split("\n", 1)[0].strip().rstrip(".,")
    current = posixpath.normpath(first_line) if len(first_line) < MAX_PATH_CHARS else ""
    while current.startswith("/") and current.strip("/"):
        yield current
        parent = posixpath.dirname(current)
        if parent == current:
            break
        current = parent


def remember_roots(known: Mapping[str, str] | None,
                   *dirs: str | None) -> dict[str, str] | None:
    """``known`` with each new directory added under its hash (the oldest dropped past the
    bound), or None when every one is known already: the mark is rewritten only on news."""
    roots = {k: v for k, v in (known or {}).items() if isinstance(v, str)}
    news = {path_hash(d): d for d in dirs if d and path_hash(d) not in roots}
    if not news:
        return None
    return dict(list({**roots, **news}.items())[-MAX_KNOWN_ROOTS:])


def path_scopes(scopes: Iterable[Any]) -> dict[str, str]:
    """Project ids that are paths (repositories without a remote, folders outside git)."""
    return {path_hash(s): s for s in set(scopes) if isinstance(s, str) and s.startswith("/")}
