"""Where a session started, and so which project its facts belong to (docs/architecture.md).

A session belongs to the project it STARTED in, never to where a later ``cd`` took the agent
and never to the directory ``claimgraph capture`` happens to run in (a sweep or a person
capturing someone's transcript from anywhere). In order:
1. the session's capture mark: a session placed once stays there, since a resumed session's
   later segments are read from an offset and no longer see its first record;
2. the cwd the hook payload (or ``--cwd``) gives;
3. the transcript's first recorded cwd (Claude Code and Codex put one on their records; a
   segment read from an offset under a mark older than origins scans the file's first lines);
4. Gemini records no cwd, only ``projectHash`` = sha256 of its project root (its cwd at start,
   as a string). A directory whose hash matches is proof, so every candidate is checked:
   directories the session itself names (tool paths and their parents, the paths in its
   opening context block), project roots this store has seen (the ``projects:known-roots``
   mark, path-shaped scopes), and the directory capture runs in;
5. nothing: no project. The caller stores only user-scope facts and says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import posixpath
import re
from typing import Any, Callable, Iterable, Iterator, Mapping

from claimgraph.capture.events import Transcript
from claimgraph.capture.readers import open_transcript

KNOWN_ROOTS_MARK = "projects:known-roots"
MAX_KNOWN_ROOTS = 1000
HEAD_BYTES, HEAD_LINES = 256 * 1024, 50
MAX_CANDIDATES = 5000
OPENING_EVENTS, OPENING_CHARS = 5, 20_000
MAX_PATH_CHARS = 4096
_ABSOLUTE_PATH = re.compile(r"(?<![\w.~-])/[^\s\"'`<>|:;,()\[\]{}]+")


@dataclasses.dataclass(frozen=True)
class Origin:
    """The directory the session started in (None: unknown) and how we know it."""

    cwd: str | None
    source: str  # mark | request | transcript | gemini-hash | none

    def as_mark(self) -> dict[str, Any]:
        return {"cwd": self.cwd, "source": self.source}


def marked_origin(mark: Any) -> dict[str, Any] | None:
    origin = mark.get("origin") if isinstance(mark, Mapping) else None
    return origin if isinstance(origin, Mapping) else None


def placed_nowhere(mark: Any) -> bool:
    """The session was captured before, but no project was known for it."""
    origin = marked_origin(mark)
    return origin is not None and not origin.get("cwd")


def find_origin(transcript: Transcript, mark: Any, request_cwd: str | None,
                known: Callable[[], Mapping[str, str]], here: str | None) -> Origin:
    """See the module docstring for the order; ``known`` is called only for Gemini."""
    earlier = marked_origin(mark)
    if earlier and isinstance(earlier.get("cwd"), str) and earlier["cwd"]:
        return Origin(earlier["cwd"], "mark")
    if request_cwd:
        return Origin(request_cwd, "request")
    started = transcript.session.start_cwd if transcript.start_offset == 0 else None
    started = started or (head_cwd(transcript.path) if transcript.start_offset else None)
    if started:
        return Origin(started, "transcript")
    if transcript.session.project_hash:
        root = match_project_hash(transcript.session.project_hash,
                                  candidate_dirs(transcript, here), known())
        if root:
            return Origin(root, "gemini-hash")
    return Origin(None, "none")


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
    first_line = path.split("\n", 1)[0].strip().rstrip(".,")
    current = posixpath.normpath(first_line) if len(first_line) < MAX_PATH_CHARS else ""
    while current.startswith("/") and current != "/":
        yield current
        current = posixpath.dirname(current)


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
