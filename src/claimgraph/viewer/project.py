"""A project's page: its memory grouped as the next session will be told it, and the block itself.

The sections are the SessionStart context's own (standing decisions, open conflicts, recent
changes, lessons, current facts, structure), in its order, then what the context leaves out
and why (dormant, suspect, read from code). A project may hold 100,000 facts, so the page never
reads them all: the store places, orders and counts them (``Store.context_sections``, one query
on SQLite; ``logic.briefing_sections`` defines it, and a store without that query is read whole
and placed by it), and only one page of each section is read whole: the first
``SHOWN_PER_SECTION`` rows, with a link to the section's next pages.

The block beside it is rendered from the same reads (``context_block``): every section of the
block is a prefix of the section here (the ranked ones cut to their caps), and the budget cuts a
section long before ``block_rows`` of its lines, so reading that many gives the same bytes as
``claimgraph context`` (the test compares them).
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Callable, Hashable, Iterable, Mapping

from claimgraph.core.briefing import scopes
from claimgraph.core.teammates import named
from claimgraph.logic import briefing as compiled
from claimgraph.logic.briefing_lines import (
    change_line, component_line, conflict_components, decision_line, told_apart,
)
from claimgraph.logic.briefing_sections import (
    DORMANT, SECTION_KEYS, Narrowing, head_of, horizon, sections_of, told_in)
from claimgraph.logic.confidence import effective_confidence
from claimgraph.logic.conflicts import open_conflicts
from claimgraph.logic.model import EPISTEMIC_STRENGTH
from claimgraph.logic.retrieval import fact_valid_at
from claimgraph.store.fast_paths import ContextSections, FactTouches, Snapshots
from claimgraph.viewer import advance
from claimgraph.viewer.present import Memo, change_text, code_spans, component_text
from claimgraph.viewer.source import BadRequest, NotFound, Source

SHOWN_PER_SECTION = 60
LEFT_OUT_KEY = "left_out"
LEFT_OUT_TITLE = "Not told to the next session"
TITLES = {**dict(compiled.SECTIONS), LEFT_OUT_KEY: LEFT_OUT_TITLE}
#: The shortest line a block section can hold ("- a b "c" (since 2026-01-01)" is 28): reading
#: ``budget // MIN_LINE_CHARS`` lines of a section fills any budget.
MIN_LINE_CHARS = 16
MAX_PAGE = 100_000
#: Facts a placement keeps once read (``shared_reads``): its block's (about 2,000 at 100,000
#: facts) and its pages' (60 a section).
READS_KEPT = 6_000
#: The block's lines of decisions and changes kept per fact (``context_block``).
LINES_KEPT = 10_000


def filters(params: Mapping[str, str]) -> dict[str, str]:
    """The page's filters (predicate, class, text), checked: an unknown class is a 400."""
    chosen = {key: (params.get(key) or "").strip() for key in ("predicate", "class", "text")}
    if chosen["class"] and chosen["class"] not in EPISTEMIC_STRENGTH:
        raise BadRequest(f"class {chosen['class']!r} is not one of "
                         + ", ".join(EPISTEMIC_STRENGTH))
    return chosen


def paging(params: Mapping[str, str]) -> tuple[str | None, int]:
    """(the one section asked for, or None for all of them; its page, from 1)."""
    section = (params.get("section") or "").strip() or None
    if section is not None and section not in SECTION_KEYS:
        raise BadRequest(f"section {section[:40]!r} is not one of " + ", ".join(SECTION_KEYS))
    raw = (params.get("page") or "1").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE:
        raise BadRequest(f"page={raw[:20]!r} is not a page number")
    return section, int(raw)


def block_rows(budget_chars: int) -> int:
    return budget_chars // MIN_LINE_CHARS + 1


def windows_for(section: str | None, page: int, budget_chars: int) -> dict[str, tuple[int, int]]:
    """The (offset, limit) of each section to read: one page of each (the block's sections as
    many lines as the budget can hold), or the asked page of one."""
    if section is not None:
        return {section: ((page - 1) * SHOWN_PER_SECTION, SHOWN_PER_SECTION)}
    block = block_rows(budget_chars)
    return {key: (0, max(SHOWN_PER_SECTION, block if key in ("decisions", "changed") else
                         compiled.RANKED_CAPS.get(key, 0)))
            for key in SECTION_KEYS if key != "conflicts"}


def narrowing_of(chosen: Mapping[str, str]) -> Narrowing:
    return Narrowing(chosen["predicate"] or None, chosen["class"] or None, chosen["text"] or None)


#: The whole of every section: what one placement reads, and every page is a slice of.
WHOLE = 10 ** 9
#: (key, build): the kept value for key, else ``build(the last one kept for key, or None)``.
Shared = Callable[[Hashable, Callable[[Any], Any]], Any]


def _unshared(key: Hashable, build: Callable[[Any], Any]) -> Any:
    return build(None)


def project(src: Source, project_id: str, params: Mapping[str, str],
            shared: Shared = _unshared) -> dict[str, Any]:
    """One page of a project. Every page of a project (any section, page number or nonce)
    is a slice of one ``placement`` of its facts, which ``shared`` keeps per project and
    narrowing (``viewer.cache``) and, after a write, brings up to date from the one before
    by placing again only the facts the write touched (``viewer.advance``); a page itself
    reads only the facts it shows."""
    chosen = filters(params)
    section, page = paging(params)
    narrowing = narrowing_of(chosen)
    whole = shared(("placement", project_id, Narrowing()),
                   lambda base: placed_now(src, project_id, base))
    if chosen["predicate"] and chosen["predicate"] not in whole["predicates"]:
        raise BadRequest(f"predicate {chosen['predicate'][:80]!r} is used by no fact")
    mine = whole if not narrowing.active else shared(
        ("placement", project_id, narrowing),
        lambda base: narrowed(src, project_id, narrowing, whole, base))
    now, pairs = whole["now"], whole["pairs"]
    placed = cut(mine["placed"], shown_windows(section, page))
    with src.shell(kept_open=True) as sh:
        facts = read_whole(sh.store, [placed], shared_reads(whole))
    shown_pairs = [p for p in pairs if not narrowing.active or any(
        narrowing.matches(f) for f in p.values())]
    sections = build_sections(placed, facts, shown_pairs, section, page, now, src)
    block = whole["block"] if section is None else None
    believed, dormant = headline(mine["placed"])
    return {"project": project_id, "now": now, "filters": chosen, "sections": sections,
            "block": block, "predicates": whole["predicates"], "section": section,
            "page": page, "classes": list(EPISTEMIC_STRENGTH), "believed": believed,
            "dormant": dormant, "budget": src.budget_chars}


def headline(placed: Mapping[str, Any]) -> tuple[int, int]:
    """(facts believed now, dormant facts) of a placement of whole sections. "Believed" is
    what time travel and ``claimgraph facts`` count: valid now, neither forgotten nor dormant.
    Every fact valid now sits in exactly one section but "changed" (which holds ended ones),
    the dormant ones among them under "left out", so the two add up to the sections."""
    reasons = placed["reasons"]
    dormant = sum(1 for fid in placed["ids"].get(LEFT_OUT_KEY, ()) if reasons.get(fid) == DORMANT)
    valid = sum(n for key, n in placed["counts"].items() if key != "changed")
    return valid - dormant, dormant


def placement(src: Source, project_id: str, narrowing: Narrowing) -> dict[str, Any]:
    """{now, predicates, pairs, placed, block, mark, until, levels, open_ids}: every section of
    the project, placed, ordered and counted at one instant (``placed`` holds every id of every
    section, in order: a few MB at 100,000 facts), the store's touch mark it was read at, how
    long it stays exact as time passes (``logic.briefing_sections.horizon``). The one read of
    a page that grows with the project: made once, then advanced write by write."""
    with src.shell() as sh:
        store = sh.store
        with store.reading() if isinstance(store, Snapshots) else nullcontext():
            now = sh.now()
            if not holds(store, project_id):
                raise NotFound(f"no project {project_id!r} in this store")
            mark = store.touch_mark() if isinstance(store, FactTouches) else None
            wanted = scopes(project_id)
            suspect = set(store.suspect_fact_ids())
            pairs = open_pairs(store, wanted, suspect, now)
            open_ids = compiled.listed_as_contended(pairs)
            windows = {key: (0, WHOLE) for key in SECTION_KEYS}
            # The heads' walk judges which stances are told as a state; the placement's query
            # takes those ids rather than reading every stance a second time. The heads are
            # let go before that query runs: the two never hold memory at once.
            heads = heads_of(store, wanted)
            told = told_in(heads)
            until, levels = horizon(heads, now, src.half_life_days)
            del heads
            placed = read_sections(store, wanted, now, windows, open_ids, narrowing, suspect,
                                   src.half_life_days, told)
            made = {"now": now, "predicates": sorted(store.predicate_usage()), "pairs": pairs,
                    "placed": placed, "block": None, "mark": mark, "until": until,
                    "levels": levels, "open_ids": open_ids}
            if not narrowing.active:  # the block: what the next session is told, unnarrowed
                made["block"] = block_of(store, made, project_id, src)
    return made


def placed_now(src: Source, project_id: str, base: Mapping[str, Any] | None) -> dict[str, Any]:
    """The project's placement now: ``base`` advanced when it can be, else placed whole."""
    if base is not None:
        moved = advanced(src, project_id, base)
        if moved is not None:
            return moved
    return placement(src, project_id, Narrowing())


def advanced(src: Source, project_id: str, base: Mapping[str, Any]) -> dict[str, Any] | None:
    """``base`` (a whole placement) placed again at the present where the writes since it
    touched it, or None when that would not be exact (``viewer.advance``)."""
    if base.get("mark") is None:
        return None
    with src.shell() as sh:  # once per write; its predicate count maps a whole index
        store: Any = sh.store
        if not offers(store, FactTouches):
            return None
        with store.reading() if offers(store, Snapshots) else nullcontext():
            now = sh.now()
            if now < base["now"] or (base["until"] is not None and now >= base["until"]):
                return None
            mark = store.touch_mark()
            touched = ([] if mark == base["mark"]
                       else store.touched_since(base["mark"], advance.PATCH_LIMIT))
            if touched is None:
                return None
            wanted = scopes(project_id)
            suspect = set(store.suspect_fact_ids())
            pairs = open_pairs(store, wanted, suspect, now)
            open_ids = compiled.listed_as_contended(pairs)
            changed = set(touched) | (open_ids ^ base["open_ids"])
            found = {f["id"]: f for f in store.get_facts_by_ids(sorted(changed))
                     if f["scope"] in wanted}
            until, levels = horizon([head_of(f) for f in found.values()], now,
                                    src.half_life_days, base["levels"])
            if levels != base["levels"]:
                return None  # a new level a fading fact may decay past: placed whole
            until = advance.earlier(base["until"], until)
            probe = advance.Probe(store)
            moved = advance.replace(base["placed"], changed, found, now, suspect, open_ids, probe,
                            src.half_life_days)
            made = {"now": now, "pairs": pairs, "placed": moved, "mark": mark,
                    "until": until, "levels": levels, "open_ids": open_ids,
                    "predicates": (sorted(store.predicate_usage()) if touched
                                   else base["predicates"]), "block": None}
            before = dict(base.get("read", {}))  # a copy: pages may still be adding to it
            known = {fid: f for fid, f in before.items() if fid not in changed}
            made["lines"] = base.get("lines")
            made["block"] = block_of(store, made, project_id, src, known)
    return made


def narrowed(src: Source, project_id: str, narrowing: Narrowing, whole: Mapping[str, Any],
             base: Mapping[str, Any] | None) -> dict[str, Any]:
    """The placement under a page's filters: the whole placement kept to the facts the filters
    match. The matching ids come from one indexed read where the store answers it, kept with
    the write counter they were read at and advanced by matching the touched facts again;
    a store without that read is placed again under the filters."""
    advancing = base is not None and base.get("keep") is not None  # else one walk of them all
    with src.shell(kept_open=advancing) as sh:
        store = sh.store
        matching = getattr(store, "narrowed_fact_ids", None)
        if matching is None:
            return placement(src, project_id, narrowing)
        wanted = scopes(project_id)
        keep = advance.kept(store, wanted, narrowing, base)
    return {**whole, "block": None, "keep": keep, "cut_from": whole["placed"]["ids"],
            "placed": advance.kept_to(whole["placed"], keep[1], base)}


def heads_of(store: Any, wanted: list[str]) -> list[tuple[Any, ...]]:
    if isinstance(store, FactTouches):
        return store.placement_heads(wanted)
    return [head_of(f) for f in store.select_facts(scopes=wanted)]


def block_of(store: Any, made: dict[str, Any], project_id: str, src: Source,
             known: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The SessionStart block of a placement: its first lines of each section, rendered. The
    facts it read stay in ``made["read"]`` (about 2,000 at 100,000 facts): an advanced
    placement reads again only those a write touched (``known``: the last ones, less those)."""
    told = cut(made["placed"], windows_for(None, 1, src.budget_chars))
    made["read"] = dict(known or {})
    lines = made["lines"] = made.get("lines") or Memo(LINES_KEPT)
    return context_block(told, read_whole(store, [told], made["read"]), made["pairs"],
                         made["now"], project_id, src, lines)


def shared_reads(whole: Mapping[str, Any]) -> dict[str, Any] | None:
    """The facts a placement has read (its block's, and its pages'), for a page to read
    through and add to: pages of one project show many of the same facts. Exact as the
    block's are: an advanced placement keeps only those no write touched since. Past
    ``READS_KEPT`` a page reads for itself (None)."""
    kept = whole.get("read")
    return kept if kept is not None and len(kept) < READS_KEPT else None


def shown_windows(section: str | None, page: int) -> dict[str, tuple[int, int]]:
    """The rows a page shows: the first page of each section, or the asked page of one."""
    if section is not None:
        return {section: ((page - 1) * SHOWN_PER_SECTION, SHOWN_PER_SECTION)}
    return {key: (0, SHOWN_PER_SECTION) for key in SECTION_KEYS if key != "conflicts"}


def cut(placed: Mapping[str, Any], windows: Mapping[str, tuple[int, int]]) -> dict[str, Any]:
    """What ``read_sections`` answers for ``windows``, from a placement of whole sections."""
    ids = {key: list(placed["ids"].get(key, ())[offset:offset + limit])
           for key, (offset, limit) in windows.items()}
    reasons = placed["reasons"]
    return {"counts": placed["counts"], "ids": ids,
            "reasons": {fid: reasons[fid] for found in ids.values() for fid in found
                        if fid in reasons}}


def offers(store: object, fast_path: type) -> bool:
    """``isinstance`` that leaves ``store`` as it was typed: each fast-path class declares its
    own ``methods`` tuple, so to mypy a store offering two of them cannot exist, and a store
    narrowed to one would lose the Store methods it is used for here."""
    return isinstance(store, fast_path)


def holds(store: Any, project_id: str) -> bool:
    """Whether the store holds the project: an entity lives in its scope (an indexed lookup;
    a project's facts always name one)."""
    return bool(store.list_entities(scope=project_id))


def open_pairs(store: Any, wanted: list[str], suspect: set[str], now: int) -> list[dict[str, Any]]:
    """The open conflicts among the scopes' facts the context may show: read from the conflict
    links (a few facts), as ``core.briefing.gather_from`` finds them among every fact."""
    carriers = store.select_facts(scopes=wanted, conflicted=True)
    have = {f["id"] for f in carriers}
    ends = sorted({other for f in carriers for other in f.get("conflicts") or ()} - have)
    facts = carriers + [f for f in store.get_facts_by_ids(ends) if f["scope"] in wanted]
    valid = [f for f in facts if f["id"] not in suspect and f.get("dormant_since") is None
             and fact_valid_at(f, now)]
    return open_conflicts(valid, {}, now)


def read_sections(store: Any, wanted: list[str], now: int, windows: Mapping[str, tuple[int, int]],
                  open_ids: set[str], narrowing: Narrowing, suspect: set[str],
                  half_life_days: float, told: set[str] | None = None) -> dict[str, Any]:
    if isinstance(store, ContextSections):
        return store.context_sections(wanted, now, windows=windows, open_ids=open_ids,
                                      narrowing=narrowing, half_life_days=half_life_days,
                                      told=told)
    return sections_of(store.select_facts(scopes=wanted), suspect, open_ids, now, windows,
                       narrowing, half_life_days)


def read_whole(store: Any, answers: Iterable[Mapping[str, Any]],
               known: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every fact the answers name, and the successors of the changes among them, by id.
    ``known``: facts as the store gave them, by id, read only when not there (and left there
    for the next read: the caller drops what a write touched)."""
    raw = {} if known is None else known

    def fetched(wanted: Iterable[str]) -> list[dict[str, Any]]:
        wanted = sorted(set(wanted))
        raw.update((f["id"], f) for f in store.get_facts_by_ids(
            [fid for fid in wanted if fid not in raw]))
        return [raw[fid] for fid in wanted if fid in raw]

    ids = {fid for answer in answers for found in answer["ids"].values() for fid in found}
    facts = {f["id"]: f for f in named(store, fetched(ids))}
    successors = {s for key in ("changed",) for answer in answers
                  for fid in answer["ids"].get(key, ())
                  for s in [compiled.supersession_successor(facts[fid])[1]]
                  if fid in facts and s and s not in facts}
    facts.update({f["id"]: f for f in fetched(successors)})
    return facts


def _changes(ids: Iterable[str], facts: Mapping[str, Any]) -> list[tuple[Any, Any]]:
    pairs = []
    for fid in ids:
        old = facts[fid]
        successor = compiled.supersession_successor(old)[1]
        pairs.append((old, facts.get(successor) if successor else None))
    return pairs


def build_sections(placed: Mapping[str, Any], facts: Mapping[str, Any], pairs: list[dict[str, Any]],
                   only: str | None, page: int, now: int, src: Source) -> list[dict[str, Any]]:
    """The sections to show, each with its rows, its count and where its other pages are;
    an empty section is left out."""
    counts = dict(placed["counts"])
    components = conflict_components(pairs)
    counts["conflicts"] = len(components)
    out = []
    for key in SECTION_KEYS:
        if (only is not None and key != only) or not counts.get(key):
            continue
        first = (page - 1) * SHOWN_PER_SECTION if only else 0
        if key == "conflicts":
            items: list[Any] = components[first:first + SHOWN_PER_SECTION]
        else:
            ids = placed["ids"].get(key, [])[:SHOWN_PER_SECTION]
            items = (_changes(ids, facts) if key == "changed" else
                     [(facts[fid], placed["reasons"].get(fid)) for fid in ids])
        rows = [_row(key, item, now, src.half_life_days) for item in items]
        last = first + len(rows)
        out.append({"key": key, "title": code_spans(TITLES[key]), "rows": rows,
                    "total": counts[key], "first": first + 1, "last": last,
                    "page": page if only else 1,
                    "more": counts[key] > last, "pages": -(-counts[key] // SHOWN_PER_SECTION)})
    return out


def _row(key: str, item: Any, now: int, half_life_days: float) -> dict[str, Any]:
    """One row: its facts, its line in words, a confidence for the bar, why it is left out."""
    if key == "conflicts":
        return {"facts": list(item), "line": component_text(item), "note": None,
                "confidence": max(effective_confidence(f, now, half_life_days) for f in item)}
    if key == "changed":
        old, new = item
        return {"facts": [old] + ([new] if new else []), "line": change_text(old, new),
                "note": None, "confidence": effective_confidence(old, now, half_life_days)}
    fact, reason = item
    return {"facts": [fact], "line": None, "note": reason,
            "confidence": effective_confidence(fact, now, half_life_days)}


def context_block(told: Mapping[str, Any], facts: Mapping[str, Any],
                  pairs: list[dict[str, Any]], now: int, project_id: str, src: Source,
                  lines_kept: Memo[str] | None = None) -> dict[str, Any]:
    """The block the SessionStart hook injects, from the sections read: each section's lines
    are the first ones of the section here, and the lines not read stand in as lines too long
    to fit, so the budget cuts (and counts "… N more") exactly where it would."""
    counts, ids = told["counts"], told["ids"]
    filler = "-" * (src.budget_chars + 1)

    def padded(lines: list[str], total: int) -> list[str]:
        return lines + [filler] * (total - len(lines))

    ranked = {key: compiled.ranked_lines(
                        [(facts[fid], effective_confidence(facts[fid], now, src.half_life_days))
                         for fid in ids.get(key, [])[:cap]])
              for key, cap in compiled.RANKED_CAPS.items()}
    memo: Memo[str] = lines_kept or Memo(0)

    def decision(fact: Mapping[str, Any], differs_at: int | None = None) -> str:
        if differs_at is not None:  # a twin's line (``told_apart``): rare, never kept
            return decision_line(fact, differs_at)
        return memo.get(("decision", fact["id"]), (fact,), lambda: decision_line(fact))

    def change(old: Mapping[str, Any], new: Mapping[str, Any] | None) -> str:
        return memo.get(("change", old["id"]), (old, new), lambda: change_line(old, new))

    lines = {
        "decisions": padded(told_apart([facts[fid] for fid in ids.get("decisions", [])],
                                       decision), counts["decisions"]),
        "conflicts": [component_line(c) for c in conflict_components(pairs)],
        "changed": padded([change(old, new) for old, new in
                           _changes(ids.get("changed", []), facts)], counts["changed"]),
        **ranked,
    }
    return compiled.render(lines, now, project_id, src.budget_chars)
