"""What ``claimgraph capture`` says to a person at a terminal: what it learned, in words.

The hooks and pipes get the one JSON report line (``--json`` asks for it on a terminal too);
a person who runs ``capture`` by hand wants to know what the session taught, what was left
out and why, not a log record. The facts are read back from the episode just written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from claimgraph.logic.language import NAMES
from claimgraph.logic.present_records import fact_text, show_name

SHOWN = 10


def summary(db: Path, report: Mapping[str, Any], extractor_asked: bool = False) -> str:
    """The report as a few lines of plain text."""
    status = report.get("status")
    if status == "nothing-new":
        return _nothing_new(report, extractor_asked)
    if status != "captured":
        return "; ".join(report.get("warnings") or []) or f"capture: {status}"
    facts = _episode_facts(db, report.get("episode"))
    lines = [_heading(report), *_learned(report, facts)]
    lines += _left_out(report)
    lines += [f"  ! {w}" for w in report.get("warnings") or []]
    if report.get("project"):
        lines.append(f"See them: claimgraph facts --scope {show_name(report['project'])}")
    return "\n".join(lines)


def _heading(report: Mapping[str, Any]) -> str:
    project = str(report.get("project") or "")
    if project.startswith("unplaced:"):
        where = (f"with no known project: its project facts were kept in {project}, which no "
                 "project's context shows (--cwd DIR files them under the project)")
    else:
        where = (f"into project {project}" if project else
                 "with no known project (only facts about you were kept; --cwd DIR names it)")
    return f"Captured session {report.get('session')} ({report.get('agent')}) {where}."


def _learned(report: Mapping[str, Any], facts: list[Mapping[str, Any]]) -> list[str]:
    counts = report.get("counts") or {}
    parts = [f"{n} {label}" for key, label in (("created", "new"),
                                                ("reinforced", "already known"),
                                                ("superseded", "replacing an older value"),
                                                ("flagged", "flagged as a conflict for you"))
             if (n := counts.get(key))]
    total = sum(counts.get(k, 0) for k in ("created", "reinforced", "superseded", "flagged"))
    if not total:
        return ["Learned nothing this time."]
    lines = [f"Learned {total} fact{'s' if total != 1 else ''} ({', '.join(parts)}):"]
    lines += [f"  - {fact_text(f)}" for f in facts[:SHOWN]]
    if len(facts) > SHOWN:
        lines.append(f"  … and {len(facts) - SHOWN} more")
    return lines


def _left_out(report: Mapping[str, Any]) -> list[str]:
    lines = []
    sentences = report.get("user_sentences")
    if isinstance(sentences, Mapping) and sentences.get("read"):
        lines.append(f"Read {sentences['read']} sentence(s) you typed; kept "
                     f"{sentences.get('kept', 0)} as standing facts (the rest were requests, "
                     "questions or remarks; capture --explain lists each).")
    unjudged = report.get("user_sentences_not_english")
    if isinstance(unjudged, Mapping) and unjudged:
        kinds = ", ".join(f"{n} in {NAMES.get(code, code)}" for code, n in unjudged.items())
        lines.append(f"Read but not judged: {sum(unjudged.values())} sentence(s) ({kinds}); "
                     "the sentence model reads English only, so nothing was learned from them.")
    refused = len(report.get("inadmissible") or [])
    if refused:
        lines.append(f"Left out {refused} candidate(s) that failed screening.")
    redacted = report.get("redactions") or {}
    if redacted:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(redacted.items()))
        lines.append(f"Redacted {sum(redacted.values())} secret(s) before storing anything "
                     f"({kinds}).")
    return lines


def _nothing_new(report: Mapping[str, Any], extractor_asked: bool) -> str:
    text = (f"Nothing new: session {report.get('session')} was captured up to its end "
            "already.")
    if extractor_asked:
        text += (" Each part of a session is read once; a different --extractor applies to "
                 "what the session adds from now on.")
    return text


def _episode_facts(db: Path, episode: str | None) -> list[Mapping[str, Any]]:
    """The episode's facts still valid, most confident first (best effort: a summary never
    fails a capture that succeeded)."""
    if not episode:
        return []
    from claimgraph.opening import open_store
    try:
        store = open_store(db, read_only=True)
    except Exception:  # the capture succeeded; the summary is only a courtesy
        return []
    try:
        return _ranked(store.select_facts(episodes=[episode]))
    finally:
        store.close()


def _ranked(facts: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    valid = [f for f in facts if f.get("t_invalid") is None]
    return sorted(valid, key=lambda f: (-(f.get("confidence") or 0.0), str(f.get("id"))))
