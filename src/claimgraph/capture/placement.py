"""Where a captured segment's facts go: the session's origin made a project (DESIGN §4).

The origin (origin.py: where the session started) becomes a project through
``resolve_project``, so every worktree of a repository shares its memory. With no origin there
is no project: project-scope candidates are dropped (never filed under an unrelated project,
nor under the user scope, where they would surface in every project), user-scope ones stay,
and the capture report and capture.log say how to place the session (``--cwd``), which reads
it again from the start (run.py) so the dropped facts are not lost for good.

Every placed capture adds its origin and project root to the ``projects:known-roots`` mark
(sha256 → directory), the cheap index a Gemini session's project hash is looked up in.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

from claimgraph.capture import origin as origins
from claimgraph.capture.events import Transcript
from claimgraph.project import Project, normalize_remote, resolve_project
from claimgraph.core import Shell

NO_PROJECT = ("no project is known for this session (no cwd in the hook payload or the "
              "transcript, no directory matching its project hash): only user-scope facts "
              "were kept")


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
    origin = origins.find_origin(cleaned, mark, request_cwd, lambda: known_roots(sh), _here())
    return Placement(origin, _project(origin, cleaned, environ))


def _project(origin: origins.Origin, cleaned: Transcript,
             environ: Mapping[str, str]) -> Project | None:
    """A cwd that is gone (another machine's transcript) still has the remote the agent
    recorded (Codex does), which beats a path that exists nowhere here."""
    if origin.cwd is None:
        return _shown_project(origin.remote)
    project = resolve_project(origin.cwd, environ)
    remote = normalize_remote(cleaned.session.repository_url or "")
    if project.source == "path" and remote:
        return project._replace(id=remote, source="remote")
    return project


def _shown_project(remote: str | None) -> Project | None:
    """A project known only by the repository the session showed (origin.py, step 5). Its
    files are cited relative to where the session started, so the root only anchors them:
    ``/<remote>``, a directory that exists nowhere, whose last part names the project."""
    if not remote:
        return None
    return Project(remote, "/" + remote.lstrip("/"), "remote")


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
    """Inside the capture's transaction: add this session's directories to the known roots."""
    if placement.project is None or placement.origin.cwd is None:
        return
    roots = origins.remember_roots(sh.store.get_mark(origins.KNOWN_ROOTS_MARK),
                                   placement.origin.cwd, placement.project.root)
    if roots is not None:
        sh.store.set_mark(origins.KNOWN_ROOTS_MARK, roots)


def announce(placement: Placement, unplaced: int, log: Any, **context: Any) -> list[str]:
    """The report's warning and capture.log's ``capture.no-project`` event, when unplaced."""
    if placement.project is not None:
        return []
    gain = f"store its {unplaced} project fact(s)" if unplaced else "file it under a project"
    hint = f"capture it again with --cwd DIR (the directory the session started in) to {gain}"
    log.warning("capture.no-project", unplaced=unplaced, hint=hint, **context)
    return [f"{NO_PROJECT} — {hint}"]
