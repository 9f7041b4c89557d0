"""The capture pass (docs/capture.md): one transcript's new tail into one episode, exactly once.

Order of work, and why:
1. The per-session high-water mark (store mark ``capture:<agent>:<session>``, value
   ``{transcript, offset, line, subagents: {path: offset}, episode, captured_at}``, and the
   reader's ``resume`` state when it has one) says where the last capture stopped; the
   transcript is read from there (resumed sessions append).
   No new complete line: ``nothing-new``, and nothing is written.
2. The new events are cleaned (segment.py) as they are read, before anything else sees them
   (the raw events are never all held); the cleaned segment goes to the evidence tier
   (content-addressed, write-once, so a re-run reuses it).
3. The session's project is found where the session STARTED (origin.py; recorded in the mark,
   so every later segment goes to the same project). Candidates are extracted from the
   cleaned events, dated (dating.py: valid from the session's time, not capture time), scoped
   (``project`` → the project id, docs/architecture.md; ``user`` stays; with no known project
   the project facts go to an ``unplaced:`` scope, and the report and capture.log say so and
   how to move them, placement.py) and screened (admission; only
   shape and floor reject). What an extractor could not do (the model command failing) is
   reported the same way (problems.py).
4. Under the write lease, ONE store transaction opens the episode (ref
   ``<agent>:<session>@<from>-<to>``, BYTE offsets of the main transcript file, ``~2``… added
   when a file read again from the start repeats a range; subagent ranges and line numbers
   are in the segment's header), ingests the admitted candidates into it,
   closes it with a mechanical summary, and moves the mark. A crash anywhere before the commit
   leaves no trace but a reusable evidence file; after it, a re-run finds nothing new. If
   another capture moved the mark meanwhile, the pass starts over from the new mark.
5. The spool file (if any) is removed, unless a newer payload replaced it meanwhile.

Test-only: ``CLAIMGRAPH_TEST_CRASH_AT=<stage>`` makes the pass ``os._exit(137)`` on reaching
that stage (see ``STAGES``), so tests can kill it at precise points like a ``kill -9`` would.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import structlog

from claimgraph import lease
from claimgraph.capture import finished_states, ignored, placement, problems
from claimgraph.capture.classify import tally
from claimgraph.capture.dating import in_valid_order
from claimgraph.capture.events import Transcript
from claimgraph.capture.links import check_transcript_link
from claimgraph.capture.origin import marked_origin, placed_nowhere
from claimgraph.capture.packed import spilling
from claimgraph.capture.readers import detect_format, open_transcript
from claimgraph.capture.segment import read_cleaned, segment_header, segment_lines, write_segment
from claimgraph.capture.session_ids import session_id_of
from claimgraph.core import Shell
from claimgraph.core import tombstones
from claimgraph.core.ingest import ingest, open_episode
from claimgraph.core.vocabulary import seed
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import predicates as P
from claimgraph.logic.admission import HARD_RULES, admission_ctx, screen_candidates
from claimgraph.logic.names import normalize_entity_name
from claimgraph.logic.redact import replace_surrogates
from claimgraph.opening import open_store
from claimgraph.private import is_id, read_nofollow
from claimgraph.project import Project
from claimgraph.sidecar import Sidecars
from claimgraph.store import leases
from claimgraph.store.fast_paths import KnownNames

OWNER = "claimgraph-capture"
SOURCE_TYPE = "session-log"
CRASH_ENV = "CLAIMGRAPH_TEST_CRASH_AT"
STAGES = ("read", "cleaned", "evidence", "extracted", "leased", "episode", "ingested",
          "marked", "committed", "spool-removed")
MAX_ATTEMPTS = 3
MAX_SPOOL_BYTES = 1024 * 1024
MAX_WARNINGS = 20
LATE_TRANSCRIPT_S = 3.0  # how long a spooled capture waits for a transcript not yet written
_REREAD_TYPES = ("offset-out-of-range", "offset-misaligned")
log = structlog.get_logger("claimgraph.capture")
Extractor = Callable[..., Iterable[Mapping[str, Any]]]
Cleaned = tuple[Transcript, Counter]


@dataclasses.dataclass(frozen=True)
class Request:
    """What to capture. ``spool_bytes`` is the payload as read, so only that payload is removed."""

    transcript: str
    agent: str
    session: str
    cwd: str | None = None
    spool: str | None = None
    spool_bytes: bytes | None = None
    extractor: str = "builtin"
    link_target: str | None = None  # where a symlinked transcript led (said in the report)

    @property
    def mark_key(self) -> str:
        return f"capture:{self.agent}:{self.session}"


@dataclasses.dataclass(frozen=True)
class Options:
    db: Path
    lease_wait_ms: int = lease.DEFAULT_WAIT_MS
    lease_ttl_ms: int = lease.DEFAULT_TTL_MS
    half_life_days: float = 90.0
    environ: Mapping[str, str] = dataclasses.field(default_factory=lambda: dict(os.environ))
    allow_relearn: bool = False
    #: List every user sentence read, with the sentence model's class and score, in the report.
    explain: bool = False


class _MarkMoved(Exception):
    """Another capture committed this session's mark while we were extracting."""


# --- the request ------------------------------------------------------------------------------

def read_spool(path: str) -> tuple[dict[str, Any], bytes]:
    """The hook's payload, and its bytes (compared again before the file is removed)."""
    try:
        raw = read_nofollow(path, MAX_SPOOL_BYTES + 1)  # a planted link is refused (ELOOP)
    except FileNotFoundError:
        raise ClaimgraphError("spool-missing", f"no spool file at {path}",
                              hint="another capture may have consumed it; nothing to do",
                              spool=path) from None
    except OSError as exc:
        raise ClaimgraphError("spool-unreadable", f"cannot read spool file {path}: {exc.strerror}",
                              hint="check its permissions", spool=path) from None
    try:
        payload = json.loads(raw[:MAX_SPOOL_BYTES].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        payload = None
    if not isinstance(payload, dict):
        raise ClaimgraphError("spool-invalid", f"spool file {path} is not a JSON object",
                              hint="it was written by something other than `claimgraph hook`; "
                                   "remove it", spool=path)
    bad = [key for key in ("agent", "session_id")
           if payload.get(key) is not None and not is_id(payload.get(key))]
    if bad:  # our hook writes ids only; anything else was planted
        raise ClaimgraphError("spool-invalid", f"spool file {path} has a {' and '.join(bad)} "
                              "that is not an id", hint="it was not written by `claimgraph "
                              "hook`; remove it", spool=path, fields=bad)
    return payload, raw


def make_request(transcript: str | None, *, agent: str | None = None, session: str | None = None,
                 cwd: str | None = None, spool: str | None = None, extractor: str = "builtin",
                 environ: Mapping[str, str] | None = None) -> Request:
    """Arguments win over the spool payload; the agent is sniffed and the session defaults to
    the id the transcript names (``capture.session_ids``: its hooks' session id). A symlink out
    of the agent's transcript directories is refused (``capture.links``)."""
    payload, raw = read_spool(spool) if spool else ({}, None)
    path = transcript or _text(payload.get("transcript_path"))
    if not path and spool:
        _give_up_spool(spool, payload)
    if not path:
        raise ClaimgraphError("transcript-missing", "no transcript to capture",
                              hint="pass TRANSCRIPT, or --spool FILE naming a transcript_path",
                              spool=spool)
    path = os.path.abspath(path)
    if spool and not _appears(path):
        _drop_sessionless(spool, payload, path)
    target = check_transcript_link(path, os.environ if environ is None else environ)
    open_transcript(path).close()  # fail on a missing or unreadable file before the store opens
    agent = agent or _text(payload.get("agent")) or detect_format(path)
    session = session or _text(payload.get("session_id")) or session_id_of(path, agent)
    return Request(path, agent, session, cwd or _text(payload.get("cwd")), spool, raw, extractor,
                   target)


def _text(value: Any) -> str | None:
    return replace_surrogates(value.strip()) or None if isinstance(value, str) else None


def _give_up_spool(spool: str, payload: Mapping[str, Any]) -> None:
    """A payload naming no transcript can never be captured: retrying it forever helps no
    one, so it is removed, and the log line keeps what it said."""
    Path(spool).unlink(missing_ok=True)
    fields = {k: payload.get(k) for k in ("agent", "session_id", "hook_event_name", "cwd")}
    log.warning("capture.spool-given-up", spool=spool, reason="no transcript_path", **fields)
    raise ClaimgraphError("spool-hopeless", f"spool file {spool} names no transcript: removed",
                          hint="nothing to capture; the agent's hook sent no transcript_path",
                          spool=spool)


def _appears(path: str) -> bool:
    """Whether the transcript exists, or appears within a few seconds: an agent may write
    it just after firing SessionEnd. (A later one is still found by the daemon's sweep,
    which looks in the agents' transcript directories itself.)"""
    deadline = time.monotonic() + LATE_TRANSCRIPT_S
    while not os.path.lexists(path):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.25)
    return True


def _drop_sessionless(spool: str, payload: Mapping[str, Any], path: str) -> None:
    """A SessionEnd whose transcript was never written was no session: a CLI subcommand
    such as ``claude mcp list`` fires the hook with a path it never creates. Nothing can
    ever be captured from it, so it is dropped quietly, not counted as a failure."""
    Path(spool).unlink(missing_ok=True)
    fields = {k: payload.get(k) for k in ("agent", "session_id", "hook_event_name", "cwd")}
    log.debug("capture.no-transcript", spool=spool, transcript=path, **fields)
    raise ClaimgraphError("no-transcript", f"the session's transcript {path} was never written: "
                          "nothing to capture", hint="nothing to do", spool=spool)


# --- the pass ---------------------------------------------------------------------------------

def capture(request: Request, options: Options) -> dict[str, Any]:
    """Run the pass; returns the report (raises ClaimgraphError with nothing half-written)."""
    started = time.monotonic()
    structlog.contextvars.bind_contextvars(session=request.session)
    extractor = find_extractor(request.extractor, options.environ)
    store = open_store(options.db, create=True)
    try:
        sh = Shell(store, half_life_days=options.half_life_days)
        for _ in range(MAX_ATTEMPTS):
            try:
                with spilling(_spill_dir(options)):  # one attempt's packed text (packed.Spill)
                    report = _attempt(sh, request, options, extractor)
                break
            except _MarkMoved:
                log.info("capture.mark-moved", detail="another capture committed; starting over")
        else:
            raise ClaimgraphError("capture-contended", "the session's mark kept moving",
                                  hint="another capture is running for this session; retry")
    finally:
        store.close()
    report["warnings"] += _remove_spool(request, options)
    report["duration_ms"] = round((time.monotonic() - started) * 1000)
    return report


def _attempt(sh: Shell, request: Request, options: Options,
             extractor: Extractor) -> dict[str, Any]:
    mark = sh.store.get_mark(request.mark_key)
    epoch = tombstones.epoch(sh.store)
    start = _past_purges(sh, request, mark, options)
    (cleaned, redactions), reread = _read(request, start)  # cleaned as it was read
    _reach("read", options)
    since = None if reread else start  # where this segment starts
    base = _report(request, cleaned, since)
    if reread:
        base["warnings"].append(reread)
    elif _unchanged(cleaned, start):
        return {**base, "status": "nothing-new"}
    base["redactions"] = dict(sorted(redactions.items()))
    _reach("cleaned", options)
    if not cleaned.events:
        _commit(sh, request, options, (mark, epoch), cleaned)
        return {**base, "status": "nothing-new"}
    handed = [cleaned]  # _capture_segment lets go of the events before the store's write:
    del cleaned  # held here too, they would stay alive through it (issue 29)
    outcome = _capture_segment(sh, request, options, extractor, (mark, epoch), since, handed)
    return {**base, **outcome, "warnings": base["warnings"] + outcome["warnings"]}


def _capture_segment(sh: Shell, request: Request, options: Options, extractor: Extractor,
                     seen: tuple[Any, Any], since: Mapping[str, Any] | None,
                     handed: list[Transcript]) -> dict[str, Any]:
    """``seen``: the session's mark and the purge epoch as this attempt first read them;
    ``handed``: the transcript read, taken out of it so that once the candidates are screened
    nothing holds its events (``_without_events``)."""
    mark = seen[0]
    cleaned = handed.pop()
    evidence = _store_segment(cleaned, request, since, options)
    placed = placement.place(sh, cleaned, mark, request.cwd, options.environ)
    with problems.collecting() as trouble, tally.collecting() as heard:
        candidates = ignored.drop_ignored(extractor(cleaned, project_root=placed.root),
                                          placed.root)
    scoped = [placement.scoped(c, placed, SOURCE_TYPE)
              for c in in_valid_order(candidates, cleaned, sh.now())]
    placed_ones = finished_states.replacing_only(sh, (c for c in scoped if c is not None))
    screened = screen_candidates(placed_ones, _screen_ctx(sh, placed_ones))
    _log_overlong(screened, agent=request.agent)
    _reach("extracted", options)
    cleaned = _without_events(cleaned)
    result = _commit(sh, request, options, seen, cleaned, screened["admitted"], evidence, placed)
    outcome = _outcome(result, screened, candidates, placed.project, evidence)
    unplaced = placement.unplaced_count(placed, placed_ones)
    if unplaced:
        outcome["counts"]["unplaced"] = unplaced
    # a finished state that replaced nothing stored was never a candidate to write
    # (finished_states.py): the counts sum to the candidates
    outcome["candidates"] -= sum(1 for c in scoped if c is not None) - len(placed_ones)
    outcome["user_sentences"] = tally.summary(heard)
    unjudged = tally.not_judged(heard)
    if unjudged:
        outcome["user_sentences_not_english"] = unjudged
    if options.explain:
        outcome["explain"] = heard
    return {**outcome, "warnings": problems.announce(trouble, log, agent=request.agent)
            + placement.announce(placed, unplaced, log, agent=request.agent)}


_MISMATCH = ("the transcript no longer matches the mark (moved, replaced or truncated): "
             "read again from the start")
_NOW_PLACED = ("the session was captured before with no known project; now that its cwd is "
               "given, it is read again from the start")


def _read(request: Request, mark: Mapping[str, Any] | None) -> tuple[Cleaned, str | None]:
    """The transcript from the mark on. Offsets belong to a file: a mark made on another file
    (the session's transcript moved) or one the file no longer fits is not trusted, and the
    file is read whole (what was captured already reinforces; it is not stored twice). So is
    a session captured with no known project once a cwd for it is given: its project facts
    were left out, and now have a home."""
    mark = mark or {}
    if mark and not _same_file(mark.get("transcript"), request.transcript):
        return _read_from(request, 0, {}), _MISMATCH
    if request.cwd and placed_nowhere(mark):
        return _read_from(request, 0, {}), _NOW_PLACED
    try:
        return _read_from(request, mark.get("offset", 0), mark.get("subagents") or {},
                          mark.get("resume")), None
    except ClaimgraphError as err:
        if err.type not in _REREAD_TYPES or not mark:
            raise
    return _read_from(request, 0, {}), _MISMATCH


def _read_from(request: Request, offset: int, subagents: Mapping[str, int],
               resume: Any = None) -> Cleaned:
    """Read (cleaning as it goes), then make sure the file was not replaced or cut short
    while we read it. ``resume``: the reader state the mark kept (the Gemini reader's replay,
    the Codex reader's message copy left open at the cut; each reader checks the state
    belongs to the offset it starts from)."""
    before = _stat(request.transcript)
    options: dict[str, Any] = ({"subagent_offsets": dict(subagents)}
                               if request.agent in ("claude-code", "gemini") else {})
    if request.agent in ("gemini", "codex") and isinstance(resume, Mapping):
        options["resume"] = resume
    transcript, counts = read_cleaned(request.transcript, request.agent, offset, **options)
    after = _stat(request.transcript)
    if before and after and (after.st_ino != before.st_ino
                             or after.st_size < transcript.end_offset):
        raise ClaimgraphError("transcript-changed",
                              f"{request.transcript} was replaced or truncated while being read",
                              hint="the agent may still be writing it; capture again later",
                              path=request.transcript)
    return transcript, counts


def _spill_dir(options: Options) -> str:
    """Where the pass keeps its packed text while it runs (``packed.Spill``: an unnamed 0600
    file, gone with the process): beside the store, which keeps the same cleaned text as
    evidence, rather than a shared temporary directory that may be memory itself."""
    return str(Path(options.db).absolute().parent)


def _past_purges(sh: Shell, request: Request, mark: Any, options: Options) -> Any:
    """Where reading starts: the mark, moved past the part of the transcript a purge of this
    session reached (core.tombstones), so purged text is never read, stored or learned again
    (unless ``--allow-relearn``). The origin stays with the real mark."""
    floor = None if options.allow_relearn else tombstones.session_floor(
        sh.store, request.agent, request.session)
    if not floor:
        return mark
    mark = mark or {}
    if _same_file(mark.get("transcript"), request.transcript) and \
            mark.get("offset", 0) >= floor["offset"]:
        return mark
    return {**{k: v for k, v in mark.items() if k != "origin"},
            "transcript": request.transcript, "offset": floor["offset"], "line": floor["line"],
            "subagents": dict(floor.get("subagents") or {})}


def _same_file(marked: Any, path: str) -> bool:
    return isinstance(marked, str) and os.path.realpath(marked) == os.path.realpath(path)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _unchanged(transcript: Transcript, mark: Mapping[str, Any] | None) -> bool:
    mark = mark or {}
    return (transcript.end_offset == mark.get("offset", 0) and not transcript.events
            and dict(transcript.subagent_offsets) == dict(mark.get("subagents") or {}))


def _store_segment(cleaned: Transcript, request: Request, mark: Mapping[str, Any] | None,
                   options: Options) -> str:
    previous = (mark or {}).get("subagents") or {}
    ranges = {path: [previous.get(path, 0), end] for path, end in cleaned.subagent_offsets.items()
              if end != previous.get(path, 0)}
    header = segment_header(cleaned, request.session, (mark or {}).get("line", 0), ranges)
    name = write_segment(Sidecars(options.db).evidence_dir, segment_lines(cleaned, header))
    _reach("evidence", options)
    return name


def find_extractor(name: str, environ: Mapping[str, str] | None = None) -> Extractor:
    """The named extractor(s), looked up before any work so a typo costs nothing."""
    from claimgraph.capture.extract import get_extractor  # the extractors load only to capture
    return get_extractor(name, environ)


def _screen_ctx(sh: Shell, candidates: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Known predicates, and which of the candidates' subjects the store already names; the
    core rows count even before a new store is seeded. Only the names this session mentions
    are looked up (an index probe each), so a capture costs the same into any size of store."""
    rows = {row["id"]: row for row in (*P.CORE_PREDICATES, *P.CAPTURE_PREDICATES)}
    rows.update(sh.predicates())
    ctx = admission_ctx((), rows.values())
    ctx["known_norms"] = known_subject_norms(sh, candidates)
    return ctx


def known_subject_norms(sh: Shell, candidates: Iterable[Mapping[str, Any]]) -> set[str]:
    """The normalized subject names among ``candidates`` that an entity has as name or alias."""
    wanted = {normalize_entity_name("" if c.get("subject") is None else str(c.get("subject")))
              for c in candidates}
    if not wanted:
        return set()
    if isinstance(sh.store, KnownNames):
        return sh.store.known_name_norms(wanted)
    return admission_ctx(sh.store.list_entities(), ())["known_norms"] & wanted


# --- the write --------------------------------------------------------------------------------

def _commit(sh: Shell, request: Request, options: Options, seen: tuple[Any, Any],
            transcript: Transcript, admitted: list[dict[str, Any]] | None = None,
            evidence: str | None = None,
            placed: placement.Placement | None = None) -> dict[str, Any] | None:
    """Under the write lease, in one transaction: the episode with its facts, and the mark.
    A purge since this attempt read the store (the epoch moved) may have taken its segment or
    buried its session: start over, as when another capture moved the mark."""
    mark, epoch = seen
    with leases.write_lease(options.db, OWNER, options.lease_wait_ms,
                           ttl_ms=options.lease_ttl_ms) as held:
        if held.broken:
            log.warning("capture.lease-broken", holder=held.broken)
        _reach("leased", options)
        seed(sh)
        with sh.store.transaction():
            if sh.store.get_mark(request.mark_key) != mark or \
                    tombstones.epoch(sh.store) != epoch:
                raise _MarkMoved()
            if options.allow_relearn:
                tombstones.lift_session(sh.store, request.agent, request.session)
            result = None
            if evidence is not None:
                result = _write_episode(sh, request, options, transcript, admitted or [], evidence)
            episode = result["episode"]["id"] if result else None
            sh.store.set_mark(request.mark_key, _next_mark(request, transcript, episode, sh,
                                                           _origin_of(placed, mark)))
            if placed:
                placement.remember(sh, placed)
                placement.move_from_unplaced(sh, placed, mark,
                                             f"{request.agent}:{request.session}@")
            _reach("marked", options)
        _reach("committed", options)
    return result


def _write_episode(sh: Shell, request: Request, options: Options, cleaned: Transcript,
                   admitted: list[dict[str, Any]], evidence: str) -> dict[str, Any]:
    episode = open_episode(sh, SOURCE_TYPE, _free_ref(sh, request, cleaned), evidence)
    _reach("episode", options)
    result = ingest(sh, admitted, episode=episode, relearn=options.allow_relearn)
    _reach("ingested", options)
    recorded = sh.store.select_facts(episodes=[episode["id"]])
    summary = summarize((f["predicate"] for f in recorded if f["episode"] == episode["id"]),
                        result["counts"].get("reinforced", 0))
    sh.store.close_episode(episode["id"], summary, sh.now())
    return result


def _without_events(transcript: Transcript) -> Transcript:
    """What the store's write reads of a transcript (its offsets and lines, for the episode's
    ref and the mark), without its events and record ids: once the candidates are screened
    nothing reads them, and a long session's pass peaked in the write, the events (~30 MB at
    the 200 MB benchmark) held beside what the write builds (issue 29)."""
    return dataclasses.replace(transcript, events=(), record_ids=None)


def _free_ref(sh: Shell, request: Request, cleaned: Transcript) -> str:
    """``<agent>:<session>@<from>-<to>`` (bytes); a range captured before (a transcript read
    again from the start) gets ``~2``, ``~3``… since episode refs are unique."""
    ref = f"{request.agent}:{request.session}@{cleaned.start_offset}-{cleaned.end_offset}"
    taken, n = ref, 1
    while sh.store.get_episode_by_ref(taken) is not None:
        n += 1
        taken = f"{ref}~{n}"
    return taken


def summarize(predicates: Iterable[str], reinforced: int = 0) -> str:
    """``3 facts — 2 written-in, 1 prefers``: the facts recorded in this episode, by predicate
    (then how many existing facts it reinforced, which keep their own episode)."""
    by_predicate = Counter(p.removeprefix("core/") for p in predicates)
    parts = sorted(by_predicate.items(), key=lambda item: (-item[1], item[0]))
    total = sum(by_predicate.values())
    text = f"{total} {'fact' if total == 1 else 'facts'}"
    text += " — " + ", ".join(f"{n} {pred}" for pred, n in parts) if parts else ""
    return text + (f"; {reinforced} reinforced" if reinforced else "")


def _next_mark(request: Request, transcript: Transcript, episode: str | None,
               sh: Shell, origin: Mapping[str, Any] | None) -> dict[str, Any]:
    mark = {"transcript": request.transcript, "offset": transcript.end_offset,
            "line": transcript.end_line, "subagents": dict(transcript.subagent_offsets),
            "episode": episode, "captured_at": sh.now()}
    if transcript.resume:
        mark["resume"] = dict(transcript.resume)
    return {**mark, "origin": dict(origin)} if origin else mark


def _origin_of(placed: placement.Placement | None, mark: Any) -> Mapping[str, Any] | None:
    """This pass's origin, else the one already marked (a pass with no events keeps it)."""
    return placed.origin.as_mark() if placed else marked_origin(mark)


def _remove_spool(request: Request, options: Options) -> list[str]:
    """Remove the payload we captured; a newer one (the session resumed) stays for its run."""
    if not request.spool:
        return []
    try:
        current = Path(request.spool).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [f"could not re-read spool file {request.spool}: {exc.strerror}"]
    if current != request.spool_bytes:
        return [f"spool file {request.spool} was replaced by a newer payload; left for its capture"]
    Path(request.spool).unlink(missing_ok=True)
    _reach("spool-removed", options)
    return []


# --- the report -------------------------------------------------------------------------------

def _report(request: Request, transcript: Transcript, mark: Mapping[str, Any] | None) -> dict:
    warnings = [f"{Path(w.source_file).name}:{w.line}: {w.reason}" for w in transcript.warnings]
    if len(warnings) > MAX_WARNINGS:
        warnings = warnings[:MAX_WARNINGS] + [f"… and {len(warnings) - MAX_WARNINGS} more"]
    if request.link_target:
        warnings.insert(0, f"{request.transcript} is a symlink to {request.link_target}")
    return {"status": None, "agent": request.agent, "session": request.session,
            "transcript": request.transcript, "project": None, "episode": None,
            "segment": {"from": transcript.start_offset, "to": transcript.end_offset,
                        "lines": [((mark or {}).get("line", 0)) + 1, transcript.end_line]},
            "events": len(transcript.events), "candidates": 0, "counts": {}, "inadmissible": [],
            "redactions": {}, "evidence": None, "warnings": warnings}


def _outcome(result: Mapping[str, Any], screened: Mapping[str, list], candidates: list,
             project: Project | None, evidence: str) -> dict[str, Any]:
    counts = dict(result["counts"])
    if screened["inadmissible"]:
        counts["inadmissible"] = len(screened["inadmissible"])
    return {"status": "captured", "project": project.id if project else None,
            "episode": result["episode"]["id"],
            "evidence": evidence, "candidates": len(candidates), "counts": counts,
            "inadmissible": [_why(c) for c in screened["inadmissible"]],
            "errors": [{"subject": e["input"].get("subject"), "predicate": e["input"].get(
                "predicate"), "error": e["message"]} for e in result["errors"]]}


def _log_overlong(screened: Mapping[str, list], **context: Any) -> None:
    """Every object the screen cut or dropped for its length, with its predicate: never
    silently (logic/admission.py says which predicates are cut and which dropped)."""
    for kept in screened["admitted"]:
        if kept.get("object_cut"):
            log.info("capture.overlong-cut", predicate=kept.get("predicate"),
                     chars=kept["object_cut"], kept=len(str(kept.get("object"))), **context)
    for dropped in screened["inadmissible"]:
        if not (dropped.get("admission_signals") or {}).get("object_sane", True):
            log.warning("capture.overlong-dropped", predicate=dropped.get("predicate"),
                        subject=dropped.get("subject"), chars=len(str(dropped.get("object"))),
                        rule=dropped.get("rule"), **context)


def _why(candidate: Mapping[str, Any]) -> dict[str, Any]:
    signals = candidate.get("admission_signals") or {}
    return {"subject": candidate.get("subject"), "predicate": candidate.get("predicate"),
            "reasons": [rule for rule in HARD_RULES if not signals.get(rule)]}


def _reach(stage: str, options: Options) -> None:
    """The test-only crash point (module docstring)."""
    if options.environ.get(CRASH_ENV) == stage:
        os._exit(137)
