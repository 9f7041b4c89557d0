"""What SessionStart injects: the compiled view of memory (docs/context.md).

Pure and deterministic: the same facts, pairs, instant and budget give the same bytes, so a
session never sees its context churn while memory did not change. Sections come in priority
order and a tight budget drops from the bottom: standing decisions, open conflicts, recent
changes of belief, then the strongest current facts. Lines read as statements about the project
("api prefers REST"), never as orders to the agent: Claude Code shows this text to the model as
context, and an order from memory would outrank the user.

Choices worth knowing: the budget is 10,000 CHARACTERS (Claude Code's cap
on ``additionalContext``), not bytes; the block is wrapped in ``logic.clean``'s markers, which
capture strips, so memory never re-learns its own injection; and the header names our CLI.
"""

from __future__ import annotations

import re

from claimgraph.logic.briefing_lines import (
    change_line, component_line, conflict_components, decision_line, fact_line, said_key,
    state_line, told_apart,
)
from claimgraph.logic.clean import CONTEXT_CLOSE, CONTEXT_HEADING, CONTEXT_OPEN
from claimgraph.logic.confidence import DEFAULT_HALF_LIFE_DAYS, effective_confidence
from claimgraph.logic.expiring import expiring_state
from claimgraph.logic.requested import done_once
from claimgraph.logic.model import SUPERSESSION_KINDS
from claimgraph.logic.names import object_name
from claimgraph.logic.one_change import one_change
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.logic.safe_render import safe_text
from claimgraph.logic.timeutil import DAY_MS, to_date
from claimgraph.logic.trust_tiers import shown

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping, Sequence

    Fact = Mapping[str, Any]

DEFAULT_BUDGET_CHARS = 10_000
SUPERSESSION_WINDOW_DAYS = 30
MAX_FACTS = 50
#: Invalidations recorded before kinds existed: the reason names the successor.
LEGACY_SUPERSEDED = re.compile(r"^(?:judged )?superseded by (\S+)$")
PREAMBLE = ("What claimgraph remembers for this project ({project}) and for the user across "
            "projects, compiled from earlier sessions. History and provenance: "
            "`claimgraph facts`, `claimgraph history`, `claimgraph provenance`.")
SECTIONS = (
    ("decisions", "Standing decisions"),
    ("conflicts", "Open conflicts (awaiting review — `claimgraph conflicts`)"),
    ("changed", "Changed recently"),
    ("lessons", "Lessons learned"),
    ("current", "Current facts (by effective confidence)"),
    ("structure", "Structure"),
)
#: What helps the next session most comes first: standing decisions and conventions, then
#: lessons, then how the project is worked on; structure (which the code itself shows) last,
#: so it is the first thing a tight budget drops and never crowds out the rest.
LESSON_PREDICATES = frozenset({"core/failure-mode"})
STANCE_PREDICATES = frozenset({"core/prefers", "core/decided-against", "x/convention",
                               "x/decided"})
STRUCTURE_PREDICATES = frozenset({
    "core/defined-in", "core/contains", "core/part-of", "core/implements", "core/imports",
    "core/written-in", "x/role"})
MAX_LESSONS, MAX_STRUCTURE = 20, 25
#: The ranked sections and how many lines each shows.
RANKED_CAPS = {"lessons": MAX_LESSONS, "current": MAX_FACTS, "structure": MAX_STRUCTURE}


def compile(facts: Iterable[Fact], conflicts: Sequence[Mapping[str, Fact]], now: int,
            project_id: str, budget_chars: int = DEFAULT_BUDGET_CHARS,
            half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> str:
    """The marked block, or "" when memory has nothing to say (or nothing fits)."""
    block: str = render(plan(facts, conflicts, now, half_life_days), now, project_id,
                        budget_chars)["text"]
    return block


def plan(facts: Iterable[Fact], conflicts: Sequence[Mapping[str, Fact]], now: int,
         half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
         successors: Mapping[str, Fact] | None = None) -> dict[str, list[str]]:
    """Every section's lines in priority order, before the budget cuts any."""
    return lines(groups(facts, conflicts, now, half_life_days, successors))


def lines(found: Mapping[str, list[Any]]) -> dict[str, list[str]]:
    """``groups`` worded: one line per decision, conflict, change and ranked fact, the ranked
    sections cut to their caps; two facts of a section that would read the same are cut where
    they differ (``logic.briefing_lines.told_apart``)."""
    return {
        "decisions": told_apart(found["decisions"], decision_line),
        "conflicts": [component_line(c) for c in found["conflicts"]],
        "changed": [change_line(old, new) for old, new in found["changed"]],
        **{key: ranked_lines(found[key][:cap]) for key, cap in RANKED_CAPS.items()},
    }


def ranked_lines(ranked: Sequence[tuple[Fact, float]]) -> list[str]:
    """A ranked section's lines, in ``shown_order``, twins told apart (``told_apart``). The
    viewer's block words its ranked sections here too."""
    return told_apart(shown_order(ranked),
                      lambda r, differs_at: ranked_line(r[0], r[1], differs_at), lambda r: r[0])


def shown_order(ranked: Sequence[tuple[Fact, float]]) -> list[tuple[Fact, float]]:
    """A ranked section's facts as its lines list them: by the confidence each line shows
    (two decimals), then by what they say (``said_key``), never by id. Decay starts at the
    instant a fact was recorded, so facts one capture wrote a few milliseconds apart differ
    in the last digits of their confidence, and another capture of the same transcript
    would order them otherwise: the line shows 0.70 for both, and so they tie here.
    Which facts make the cap is ``rank_key``'s choice (ties by what they say, too), which the
    stored shortlist makes from light rows (``logic.briefing_shortlist``): only the order of
    the lines shown changes here, and the viewer's block orders them here too."""
    return sorted(ranked, key=lambda r: (-float(f"{r[1]:.2f}"), *said_key(r[0]), r[0]["id"]))


def ranked_line(fact: Fact, confidence: float, differs_at: int | None = None) -> str:
    """A ranked fact's line: with its confidence, or with the date it was learned when it is
    a stance told as a state (``told_as_state``). The viewer's block words its lines here too,
    so it stays the hook's own. ``differs_at``: where its object parts from a twin's."""
    if told_as_state(fact):
        return state_line(fact, differs_at)
    return fact_line(fact, confidence, differs_at)


def groups(facts: Iterable[Fact], conflicts: Sequence[Mapping[str, Fact]], now: int,
           half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
           successors: Mapping[str, Fact] | None = None) -> dict[str, list[Any]]:
    """The sections' facts in order, uncut: what ``plan`` words and the viewer shows.

    ``decisions``: facts; ``conflicts``: components (lists of facts); ``changed``: (old, new or
    None) pairs; ``lessons``, ``current``, ``structure``: (fact, effective confidence) pairs.
    Dormant facts never show (decay found them faded), nor an agent's note nobody
    corroborated (``trust_tiers.shown``), nor as standing a stance an open conflict pits
    against a newer one (``replaced_stances``). The pairs are open conflicts (both sides
    valid); a fact in one, or carrying a link, is contended and not a "current fact".
    ``successors`` are new values of recent changes that are not themselves shown.
    """
    awake = {f["id"]: f for f in facts if f.get("dormant_since") is None}
    live = {fid: f for fid, f in awake.items() if shown(f)}
    valid = sorted((f for f in live.values() if fact_valid_at(f, now)), key=_by_time)
    contended = {f["id"] for pair in conflicts for f in pair.values()}
    contended |= {f["id"] for f in valid if f.get("conflicts")}
    replaced = replaced_stances(conflicts)
    standing = sorted((f for f in valid if is_standing(f) and f["id"] not in replaced),
                      key=decision_key)
    ranked = _current([f for f in valid if not is_standing(f)], contended, now, half_life_days)
    return {
        "decisions": standing,
        "conflicts": conflict_components(conflicts),
        "changed": _changed(live, {**(successors or {}), **awake}, now),
        **{key: [(f, c) for f, c in ranked if ranked_section(f["predicate"]) == key]
           for key in RANKED_CAPS},
    }


def replaced_stances(conflicts: Sequence[Mapping[str, Fact]]) -> set[str]:
    """Ids of standing facts an open conflict pits against a NEWER standing fact (links live
    on the newer side: ``fact`` is newer than ``candidate``). Until a person settles it, the
    newer stands and the older is told only as contended, never as a second standing
    decision (the later session's words decide, docs/context.md)."""
    return {pair["candidate"]["id"] for pair in conflicts
            if is_standing(pair["fact"]) and is_standing(pair["candidate"])}


def listed_as_contended(conflicts: Sequence[Mapping[str, Fact]]) -> set[str]:
    """Ids of open conflicts' members that a page lists under the conflicts, not elsewhere:
    every member that is not standing, and a standing one a newer stance contends
    (``replaced_stances``); any other standing member stays a standing decision."""
    members = {f["id"]: f for pair in conflicts for f in pair.values()}
    retired = replaced_stances(conflicts)
    return {fid for fid, f in members.items() if fid in retired or not is_standing(f)}


def ranked_section(predicate: str) -> str:
    """The ranked section a non-standing fact competes in."""
    if predicate in LESSON_PREDICATES:
        return "lessons"
    return "structure" if predicate in STRUCTURE_PREDICATES else "current"


def rank_key(fact: Fact, confidence: float) -> tuple[Any, ...]:
    """Strongest first; ties by what the fact says (``said_key``: the subject's name, the
    predicate, the object -- read from a whole fact, or from a light row's ``subject_name``
    and ``object_name``), then id. Facts one capture wrote tie exactly on confidence (one
    instant, one confidence, one subject: the project), and ids are random: broken by id,
    the same sessions captured into another store would put other facts under the cap. The
    id decides only between facts saying the same."""
    return (-confidence, *said_key(fact), fact["id"])


def window_start(now: int) -> int:
    """The oldest end of validity a recent change of belief can have."""
    return now - SUPERSESSION_WINDOW_DAYS * DAY_MS


def recently_superseded(fact: Fact, now: int) -> bool:
    """Closed within the window by a change of belief: shown under "Changed recently"."""
    ended = fact.get("t_invalid")
    return (ended is not None and window_start(now) <= ended <= now
            and supersession_successor(fact)[0])


def is_standing(fact: Fact) -> bool:
    """A commitment, or a stance (preference, convention, decision) whatever its class --
    unless what it says is a state that expires ("our latest release is v0.2.0", "PR #12 is
    merged": ``logic.expiring``), or one act the user asked for and the session did once, or
    one change of the user's that says nothing of lasting (``logic.one_change``): that was
    true on the day it was learned, and is told as a fact of that date, never as a standing
    decision."""
    return is_stance(fact) and not told_as_state(fact)


def told_as_state(fact: Fact) -> bool:
    """A stance ``is_standing`` turned away for stating a state that expires, for being one
    act the user asked for and the session did once (a rename, a removal:
    ``logic.requested.done_once``), or for recording one change without a word of lasting
    (a request carried out that only made a thing: ``logic.one_change``): its line gives the
    date it was learned instead of a confidence.

    Light rows (``logic.briefing_shortlist``) carry neither the object nor the evidence, so
    they read as standing there and are kept whole: the shortlist holds every fact this can
    turn away, and ``plan`` over it gives the live block's bytes."""
    return is_stance(fact) and (done_once(fact) or one_change(fact)
                                or expiring_state(str(object_name(fact) or "")))


def is_stance(fact: Fact) -> bool:
    """A commitment, or a preference, convention or decision: standing unless
    ``told_as_state``. Reads only the class and the predicate, so a store can tell stances
    apart in SQL (``store.sql_dialect.section_case``)."""
    return fact.get("epistemic") == "commitment" or fact.get("predicate") in STANCE_PREDICATES


def _by_time(fact: Fact) -> tuple[Any, ...]:
    return (fact.get("t_valid") or 0, fact["id"])


def decision_key(fact: Fact) -> tuple[Any, ...]:
    """Standing decisions' order: oldest first (when it was said), then what it says
    (``said_key``): decisions learned together (one file read, one turn) keep one order
    whatever ids their capture gave them. The id decides only between facts saying the same."""
    return (fact.get("t_valid") or 0, *said_key(fact), fact["id"])


def change_key(fact: Fact) -> tuple[Any, ...]:
    """Recent changes' order: newest end first, then what the old fact said, then id."""
    return (-fact["t_invalid"], *said_key(fact), fact["id"])


def supersession_successor(fact: Fact) -> tuple[bool, str | None]:
    """(whether the invalidation was a change of belief, the successor's id if known)."""
    if fact.get("invalidation_kind") in SUPERSESSION_KINDS:
        return True, fact.get("successor")
    if fact.get("invalidation_kind") is None:
        legacy = LEGACY_SUPERSEDED.match(fact.get("invalidation_reason") or "")
        if legacy:
            return True, fact.get("successor") or legacy.group(1)
    return False, None


def _changed(live: Mapping[str, Fact], known: Mapping[str, Fact],
             now: int) -> list[tuple[Fact, Fact | None]]:
    """Supersessions in the last 30 days, newest first: (old, its successor if known)."""
    changes = []
    for fact in live.values():
        if recently_superseded(fact, now):
            successor = supersession_successor(fact)[1]
            changes.append((fact, known.get(successor) if successor else None))
    changes.sort(key=lambda c: change_key(c[0]))
    return changes


def _current(valid: list[Fact], contended: set[str], now: int,
             half_life_days: float) -> list[tuple[Fact, float]]:
    """The strongest plain beliefs, with their effective confidence: not stances (above), not
    facts read from code (the code itself says it), not contended (the conflicts section says
    it)."""
    ranked = [(effective_confidence(f, now, half_life_days), f) for f in valid
              if f.get("source_type") != "code" and f["id"] not in contended]
    ranked.sort(key=lambda r: rank_key(r[1], r[0]))
    return [(f, conf) for conf, f in ranked]


def render(sections: Mapping[str, list[str]], now: int, project_id: str,
           budget_chars: int = DEFAULT_BUDGET_CHARS) -> dict[str, Any]:
    """{text, chars, sections: {key: {shown, total}}}: the block cut to ``budget_chars``.
    Every line shown is ``safe_text`` first: no stored text can close our block or hide in it.
    Lines past the room left are only counted, so they are not cleaned (``_safe_prefix``)."""
    project_id = safe_text(project_id)
    counts = {key: {"shown": 0, "total": len(sections.get(key) or ())} for key, _ in SECTIONS}
    if not any(sections.get(key) for key, _ in SECTIONS):
        return {"text": "", "chars": 0, "sections": counts}
    head = (f"{CONTEXT_HEADING} (as of {to_date(now)})\n\n"
            + PREAMBLE.format(project=project_id))
    room = budget_chars - (len(CONTEXT_OPEN) + len(CONTEXT_CLOSE) + 2) - len(head)
    parts = [head]
    for key, title in SECTIONS:
        lines = _safe_prefix(sections.get(key) or [], room)
        text, shown = fit_section(title, lines, room)
        room -= len(text)
        parts.append(text)
        counts[key]["shown"] = shown
    if room < 0 or not any(c["shown"] for c in counts.values()):
        return {"text": "", "chars": 0, "sections": counts}
    text = f"{CONTEXT_OPEN}\n{''.join(parts)}\n{CONTEXT_CLOSE}"
    return {"text": text, "chars": len(text), "sections": counts}


def _safe_prefix(lines: Sequence[str], room: int) -> list[str]:
    """``lines`` with ``safe_text`` applied up to the first line that no longer fits in
    ``room`` (that one included); the rest as they are. ``fit_section`` never shows a line
    past that point, so the block is the same as when every line is cleaned -- but a
    section of 20,000 decisions costs twenty lines of cleaning, not 20,000."""
    out: list[str] = []
    used = 0
    for n, line in enumerate(lines):
        if used > room:
            return out + list(lines[n:])
        out.append(safe_text(line))
        used += len(out[-1]) + 1
    return out


def fit_section(title: str, lines: Sequence[str], room: int) -> tuple[str, int]:
    """The section's text within ``room`` characters, and how many lines it shows.

    A cut section ends with "- … N more — query the graph", lines dropped until that fits;
    a section that cannot fit even its header and that line is left out whole.
    """
    if not lines:
        return "", 0
    header = f"\n\n### {title}"
    used = len(header)
    widths = [len(line) + 1 for line in lines]
    if used + sum(widths) <= room:
        return header + "".join(f"\n{line}" for line in lines), len(lines)
    shown = 0
    while (shown < len(lines)
           and used + widths[shown] + len(more_line(len(lines) - shown - 1)) + 1 <= room):
        used += widths[shown]
        shown += 1
    if used + len(more_line(len(lines) - shown)) + 1 > room:
        return "", 0
    body = "".join(f"\n{line}" for line in lines[:shown])
    return f"{header}{body}\n{more_line(len(lines) - shown)}", shown


def more_line(count: int) -> str:
    return f"- … {count} more — query the graph"
