"""The claim-vs-evidence audit's shell: find the cited files, read them safely, judge them.

The verdicts are ``logic.evidence_match``'s; this module decides WHICH bytes they see. A citation's
path is relative to the project root of the fact's episode (the cwd the captured session
started in, read from the first event of its stored segment, resolved to its repository), so
an audit run from anywhere judges a fact against the files its session wrote. ``base``
overrides that root for every fact (``claimgraph audit --base DIR``).

A memory is not allowed to make us read arbitrary files. The root is a REAL project root: a
git root, or a directory holding a project marker (``pyproject.toml``, ``package.json``…), and
never ``/`` or the home directory, where every file on the machine would count as inside
(an audit run from ``~``, or a session whose recorded cwd was ``/``): without one, a citation
is ``outside-project`` (reason ``no-project-root``) and nothing is opened; ``--base /`` or
``--base ~`` is refused. A relative path that climbs out of the root (``../``, or a symlink
pointing out) is refused as ``outside-project`` and never opened; so is an absolute path that
exists outside it (one that does not exist is ``file-missing``). The path is resolved ONCE, and
that resolved path is what is opened (without following a link), and judged by the opened
descriptor, so nothing can be swapped in between the check and the read. Reads are capped
(``MAX_FILE_BYTES``), only regular files are read (a FIFO is never opened for reading: the
open does not block and the descriptor is checked), and a file with a NUL byte is binary:
``file-unreadable``. A path that is now a directory is
``file-missing`` with reason ``not-a-file``: the file the claim names is gone, exactly as if it
had been deleted, so the claim is flagged rather than excused as merely unreadable.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any, Iterable, Mapping

from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import evidence_match as P
from claimgraph.project import resolve_project
from claimgraph.sidecar import Sidecars

MAX_FILE_BYTES = 2 * 1024 * 1024
PROJECT_MARKERS = (".git", ".hg", ".svn", "pyproject.toml", "setup.py", "setup.cfg",
                   "package.json", "Cargo.toml", "go.mod", "pom.xml", "build.gradle",
                   "build.gradle.kts", "Gemfile", "composer.json", "mix.exs", "CMakeLists.txt",
                   "Makefile", "deno.json", "Package.swift", "requirements.txt")
NO_ROOT = {"status": "outside", "reason": "no-project-root"}
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))


def audit_root(cwd: str | os.PathLike[str], environ: Mapping[str, str]) -> Path | None:
    """The project root a session's citations are read under, or None when there is no real
    one (module docstring)."""
    project = resolve_project(cwd, environ)
    root = Path(project.root)
    if too_wide(root, environ):
        return None
    if not root.exists():
        # another machine's project: nothing under it can be read, its files are missing
        return root
    if project.source == "path" and not any((root / m).exists() for m in PROJECT_MARKERS):
        return None
    return root


def too_wide(root: Path, environ: Mapping[str, str]) -> bool:
    """``/`` and the home directory hold everything: no audit may read under them as a root."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    return root.resolve() in (Path("/"), home.resolve()) or len(root.resolve().parts) < 2


def read_cited(path: Path) -> dict[str, Any]:
    """A read outcome for ``logic.evidence_match.check``: content and hash, or why there is none.
    ``path`` is already resolved; it is opened without following a link and judged by the
    descriptor, so what is checked is what is read."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return {"status": "missing", "reason": "no-such-file"}
    except IsADirectoryError:
        return {"status": "missing", "reason": "not-a-file"}
    except OSError as err:
        if err.errno == errno.ELOOP:  # swapped for a link since it was resolved
            return {"status": "outside", "reason": "outside-project"}
        return {"status": "unreadable", "reason": _os_reason(err)}
    return _read_descriptor(fd)


def _read_descriptor(fd: int) -> dict[str, Any]:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        os.close(fd)
        return ({"status": "missing", "reason": "not-a-file"} if not stat.S_ISREG(info.st_mode)
                else {"status": "unreadable", "reason": "too-large"})
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        return {"status": "unreadable", "reason": _os_reason(err)}
    if b"\0" in data:
        return {"status": "unreadable", "reason": "binary"}
    return {"status": "ok", "content": data.decode("utf-8", errors="replace"),
            "content_hash": "sha256-" + hashlib.sha256(data).hexdigest()}


def _os_reason(err: OSError) -> str:
    return "permission-denied" if isinstance(err, PermissionError) else (err.strerror or str(err))


def _inside(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or lies below it (both absolute and normalized, so comparing the
    strings is exact, and much cheaper than walking ``path.parents``)."""
    p, r = str(path), str(root)
    return p == r or p.startswith(r if r.endswith(os.sep) else r + os.sep)


def locate(cited: str, root: Path) -> tuple[Path | None, dict[str, Any] | None]:
    """(the path to read, None) or (None, the outcome that stops us before reading)."""
    root = Path(os.path.abspath(root))
    given = Path(cited)
    if given.is_absolute():
        if not os.path.lexists(given):
            return None, {"status": "missing", "reason": "no-such-file"}
        target = Path(os.path.abspath(given))
    else:
        target = Path(os.path.normpath(root / given))
        if not _inside(target, root):
            return None, {"status": "outside", "reason": "climbs-out-of-project"}
    resolved = target.resolve()
    if not _inside(target, root) or not _inside(resolved, root.resolve()):
        return None, {"status": "outside", "reason": "outside-project"}
    return resolved, None


class Auditor:
    """One audit run: project roots per episode and file reads, each looked up once."""

    def __init__(self, sh: Shell, base: str | os.PathLike[str] | None = None,
                 sidecars: Sidecars | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.sh, self.sidecars = sh, sidecars
        self.environ = os.environ if environ is None else environ
        self.base = Path(base).resolve() if base is not None else None
        if self.base is not None and too_wide(self.base, self.environ):
            raise ClaimgraphError(
                "audit-root-refused", f"{self.base} cannot be an audit's project root: every "
                "file under it would count as the project's", hint="pass --base the project "
                "directory itself (its git root, or where its pyproject.toml or package.json is)",
                base=str(self.base))
        self._roots: dict[str | None, Path | None] = {}
        self.read = FileReads(keep_text=False)

    def root_for(self, episode_id: str | None) -> Path | None:
        """``base`` if given, else the episode's project root, else the current project's;
        None when that is no real project (``audit_root``)."""
        if self.base is not None:
            return self.base
        if episode_id not in self._roots:
            cwd = self._episode_cwd(episode_id) or os.getcwd()
            self._roots[episode_id] = audit_root(cwd, self.environ)
        return self._roots[episode_id]

    def _episode_cwd(self, episode_id: str | None) -> str | None:
        episode = self.sh.store.get_episode(episode_id) if episode_id else None
        if not episode or not episode.get("evidence") or self.sidecars is None:
            return None
        try:
            lines = self.sidecars.get_evidence(episode["evidence"]).splitlines()
        except ClaimgraphError:
            return None
        return next((e["cwd"] for e in map(_event, lines[1:]) if e.get("cwd")), None)

    def check(self, fact: Mapping[str, Any], evidence: str) -> dict[str, Any]:
        """One citation of one fact, judged against its file as it is now."""
        root = self.root_for(fact.get("episode"))
        return {"fact_id": fact["id"], **check_citation(evidence, root, self.read)}


class FileReads:
    """Each cited file read, and prepared for matching, at most once per run (many claims
    cite the same file). ``keep_text=False`` keeps only the prepared form, which is all the
    matcher needs; the document audit keeps the text for its ``--deep`` excerpts."""

    def __init__(self, keep_text: bool = True) -> None:
        self.keep_text = keep_text
        self._reads: dict[Path, dict[str, Any]] = {}
        self._located: dict[tuple[str, Path], tuple[Path | None, dict[str, Any] | None]] = {}

    def locate(self, cited: str, root: Path) -> tuple[Path | None, dict[str, Any] | None]:
        """``locate``, once per (citation path, root) in a run: resolving symlinks is what
        checking a large report costs most, and its answer does not change mid-run."""
        key = (cited, root)
        if key not in self._located:
            self._located[key] = locate(cited, root)
        return self._located[key]

    def __call__(self, path: Path) -> dict[str, Any]:
        if path not in self._reads:
            outcome = read_cited(path)
            if outcome["status"] == "ok":
                outcome["searchable"] = P.searchable(outcome["content"])
                if not self.keep_text:
                    del outcome["content"]
            self._reads[path] = outcome
        return self._reads[path]

    def content(self, path: Path) -> str | None:
        """The text already read at ``path``, or None (never read, or not readable)."""
        return self._reads.get(path, {}).get("content")


def check_citation(evidence: str, root: Path | None,
                   reads: FileReads | None = None) -> dict[str, Any]:
    """One ``path: quote`` citation judged against its file under ``root``, as it is now;
    with no real project root (``audit_root`` gave None) nothing is opened: ``outside``.

    Shared by the fact audit and the document audit (``core.audit_document``), so both refuse
    the same paths and give the same verdicts. Evidence that cites no file is ``no-file-cited``.
    """
    reads = reads or FileReads()
    parsed = P.parse_evidence(evidence)
    path, outcome = None, None
    if parsed["file"] and root is None:
        outcome = NO_ROOT
    elif parsed["file"] and root is not None:  # always, past the branch above
        path, outcome = reads.locate(parsed["file"], root)
        outcome = outcome or reads(path)  # type: ignore[arg-type]
    return {"evidence": evidence, "file": parsed["file"], "quote": parsed["quote"],
            "root": str(root) if root else None, "path": str(path) if path else None,
            **P.check(parsed, outcome),
            "content_hash": (outcome or {}).get("content_hash")}


def _event(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def cited_files(fact: Mapping[str, Any]) -> list[str]:
    """The fact's evidence strings that cite a file (transcript references cite none)."""
    return [e for e in fact.get("evidence") or []
            if isinstance(e, str) and P.parse_evidence(e)["file"]]


def audit_facts(sh: Shell, facts: Iterable[Mapping[str, Any]],
                base: str | os.PathLike[str] | None = None, *, sidecars: Sidecars | None = None,
                environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """A check per file citation of each fact; the curator's audit stage calls this too."""
    auditor = Auditor(sh, base, sidecars, environ)
    return [auditor.check(fact, evidence) for fact in facts for evidence in cited_files(fact)]


def audit(sh: Shell, base: str | os.PathLike[str] | None = None, *,
          sidecars: Sidecars | None = None, environ: Mapping[str, str] | None = None,
          scopes: list[str] | None = None) -> dict[str, Any]:
    """Every valid fact that cites a file (in ``scopes``, when given), checked now:
    ``{summary, checks}``."""
    now = sh.now()
    # Only facts that cite something can cite a file: the store reads those through its index
    # of cited facts instead of hydrating every valid fact of the store (issue 29).
    facts = [f for f in sh.store.select_facts(valid_at=now, scopes=scopes, with_evidence=True)
             if (scopes is None or f.get("scope") in scopes) and cited_files(f)]
    checks = audit_facts(sh, facts, base, sidecars=sidecars, environ=environ)
    return {"summary": P.summarize(checks), "checks": checks}
