"""Where a captured segment's facts go: the session's origin made a project (docs/architecture.md).

The origin (origin.py: where the session started) becomes a project through
``resolve_project``, so every worktree of a repository shares its memory. A Windows cwd (a
transcript recorded on Windows) is never resolved here: the project is the repository the
session shows, else the Windows path itself (foreign_paths.py). With no origin at all the
session's project facts go to an ``unplaced:<key>`` scope of their own (never filed under an
unrelated project, nor under the user scope, where they would surface in every project, and
never dropped); user-scope ones stay user-scope. The capture report and capture.log say so and
how to place the session (``--cwd``), which reads it again from the start (run.py) and
forgets this session's facts in the unplaced scope, now filed under the project.

Every placed capture adds its origin and project root to the ``projects:known-roots`` mark
(sha256 → directory), the cheap index a Gemini session's project hash is looked up in.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any, Mapping

from claimgraph.capture import origin as origins
from claimgraph.capture.events import Transcript
from claimgraph.capture.foreign_paths import display_id, windows_path
from claimgraph.project import Project, main_checkout, normalize_remote, resolve_project
from claimgraph.core import Shell

UNPLACED = "unplaced:"
NO_PROJECT = ("no project is known for this session (no cwd in the hook payload or the "
              "transcript, no directory matching its project hash, no repository shown): ")


@dataclasses.dataclass(frozen=True)
class Placement:
    origin: origins.Origin
    project: Project | None

    @property
    def root(self) -> str | None:
        """What extractors resolve file paths against (None: they keep to user facts)."""
        return self.project.root if self.project else None

    @property
    def project_id(self) -> str | None:
        return self.project.id if self.project else None


def place(sh: Shell, cleaned: Transcript, mark: Any, request_cwd: str | None,
          environ: Mapping[str, str]) -> Placement:
    origin = origins.find_origin(cleaned, mark, request_cwd, lambda: known_roots(sh), _here(),
                                 lambda: sh.store.get_mark(origins.KNOWN_REMOTES_MARK) or {})
    return Placement(origin, _project(origin, cleaned, environ))


def _project(origin: origins.Origin, cleaned: Transcript,
             environ: Mapping[str, str]) -> Project | None:
    """A cwd that is gone (another machine's transcript) still has the remote the agent
    recorded (Codex does), which beats a path that exists nowhere here."""
    if origin.cwd is None:
        return _shown_project(origin.remote) or _unplaced_project(cleaned)
    remote = normalize_remote(cleaned.session.repository_url or "")
    foreign = windows_path(origin.cwd)
    if foreign is not None:
        return _windows_project(foreign, remote or origin.remote)
    project = resolve_project(origin.cwd, environ)
    if project.source == "path" and remote:
        return project._replace(id=remote, source="remote")
    if project.source == "path":  # git could not say: a worktree folder still names its repo
        return project._replace(id=main_checkout(project.id) or project.id)
    return project


def _windows_project(root: str, remote: str | None) -> Project:
    """A session recorded on Windows: its cwd is a directory of that machine, so it is never
    resolved (nor joined to a directory) here. Its files are cited against the cwd's POSIX
    form (foreign_paths.py); the id is the repository the session shows, which its clones
    elsewhere share, else the Windows path written with forward slashes."""
    if remote:
        return Project(remote, root, "remote")
    return Project(display_id(main_checkout(root) or root), root, "path")


def _shown_project(remote: str | None) -> Project | None:
    """A project known only by the repository the session showed (origin.py, step 5). Its
    files are cited relative to where the session started, so the root only anchors them:
    ``/<remote>``, a directory that exists nowhere, whose last part names the project."""
    if not remote:
        return None
    return Project(remote, "/" + remote.lstrip("/"), "remote")


def _unplaced_project(cleaned: Transcript) -> Project:
    """No directory and no repository: the session's project facts go to a scope of their
    own, ``unplaced:<key>``, never into a project's context nor the user's, and never
    dropped. A Gemini session's key is its project hash (every session of one Gemini project
    shares it); any other session's is the agent and session id. Its root, ``/unplaced/<key>``,
    exists nowhere: it only anchors the relative paths the session cites."""
    session = cleaned.session
    if session.project_hash:
        key = f"{session.agent}-{session.project_hash.lower()[:16]}"
    else:
        key = f"{session.agent}-{session.session_id or origins.path_hash(cleaned.path)[:16]}"
    key = re.sub(r"[^A-Za-z0-9._-]+", "-", key)
    return Project(UNPLACED + key, "/unplaced/" + key, "unplaced")


def is_unplaced(project: Project | None) -> bool:
    return project is not None and project.source == "unplaced"


def _here() -> str | None:
    """The directory capture runs in: a candidate for a Gemini hash, never a default."""
    try:
        return os.getcwd()
    except OSError:
        return None


def known_roots(sh: Shell) -> dict[str, str]:
    """Directories (by hash) of projects this store knows: captured origins and path ids."""
    known = origins.path_scopes(e.get("scope") for e in sh.store.list_entities())
    known.update(sh.store.get_mark(origins.KNOWN_ROOTS_MARK) or {})
    return known


def scoped(candidate: Mapping[str, Any], placement: Placement,
           source_type: str) -> dict[str, Any] | None:
    """``user`` scope stays; everything else is the project's, or None with no project."""
    scope = "user" if candidate.get("scope") == "user" else placement.project_id
    if scope is None:
        return None
    return {**candidate, "scope": scope, "source_type": candidate.get("source_type") or source_type}


def remember(sh: Shell, placement: Placement) -> None:
    """Inside the capture's transaction: add this session's directories to the known roots,
    and the repository it showed for a directory that is not here (a Windows cwd, a Gemini
    project hash) to the known remotes."""
    remotes = origins.remember_remote(sh.store.get_mark(origins.KNOWN_REMOTES_MARK),
                                      placement.origin.remember_as, placement.origin.remote)
    if remotes is not None:
        sh.store.set_mark(origins.KNOWN_REMOTES_MARK, remotes)
    if placement.project is None or placement.origin.cwd is None:
        return
    roots = origins.remember_roots(sh.store.get_mark(origins.KNOWN_ROOTS_MARK),
                                   placement.origin.cwd, placement.project.root)
    if roots is not None:
        sh.store.set_mark(origins.KNOWN_ROOTS_MARK, roots)


def unplaced_count(placement: Placement, scoped: list[dict[str, Any]]) -> int:
    """How many candidates went to the unplaced scope (0 when the session has a project)."""
    if not is_unplaced(placement.project):
        return 0
    return sum(1 for c in scoped if c.get("scope") == placement.project_id)


def announce(placement: Placement, unplaced: int, log: Any, **context: Any) -> list[str]:
    """The report's warning and capture.log's ``capture.no-project`` event, when unplaced:
    how many project facts went to the unplaced scope, and how to move them."""
    if not is_unplaced(placement.project):
        return []
    scope = placement.project_id
    hint = (f"capture it again with --cwd DIR (the directory the session started in) to file "
            f"it under that project; its facts in {scope} are then forgotten "
            f"(see them with `claimgraph facts --scope {scope}`)")
    log.warning("capture.no-project", unplaced=unplaced, scope=scope, hint=hint, **context)
    return [f"{NO_PROJECT}{unplaced} project fact(s) were kept in scope {scope}, which no "
            f"project's context shows — {hint}"]


def move_from_unplaced(sh: Shell, placement: Placement, mark: Any, episode_ref: str) -> int:
    """Inside the capture's transaction: a session captured before with no project, now
    placed (``--cwd``, read again from the start), takes its facts out of the unplaced
    scope: this session's there are forgotten, since its new pass files them anew. A fact
    reinforced since (another session of that unknown project said it too) stays there."""
    if placement.project is None or is_unplaced(placement.project):
        return 0
    if not origins.placed_nowhere(mark):
        return 0
    from claimgraph.core import forget as forgetting

    ours = {e["id"] for e in sh.store.list_episodes()
            if str(e.get("ref") or "").startswith(episode_ref)}
    old = [f["id"] for f in sh.store.select_facts(scopes=_unplaced_scopes(sh), valid_cheap=True)
           if f.get("episode") in ours and str(f.get("scope") or "").startswith(UNPLACED)
           and f.get("last_reinforced_at") in (None, f.get("recorded_at"))]
    if old:
        forgetting.forget(sh, old, f"moved: the session is now filed under {placement.project_id}")
    return len(old)


def _unplaced_scopes(sh: Shell) -> list[str]:
    return sorted({e["scope"] for e in sh.store.list_entities()
                   if str(e.get("scope") or "").startswith(UNPLACED)})
