"""Read verbs: facts, history, search, neighbor, conflicts, stats. Reads never take a lease.

Listings and search annotate each fact with its curation ``state`` ("active" or "dormant",
``logic.model.fact_state``). A dormant fact (the curator's decay stage found it faded) is left
out of default listings and shown by ``include_dormant`` (``facts --all``) and by search.
"""

from __future__ import annotations

from claimgraph.core.shell import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic import entities as E
from claimgraph.logic import retrieval as R
from claimgraph.logic.model import SUSPECT_VERDICTS, fact_state
from claimgraph.store.fast_paths import Snapshots

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable, Collection, Sequence

DIRECTIONS = ("out", "in", "both")
FTS_LIMIT = 50


def _direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ClaimgraphError("invalid-direction", f"unknown direction {direction!r}",
                              hint="use out, in or both")
    return direction


def get_facts(sh: Shell, entity: str, *, entity_scope: str | Sequence[str] | None = None,
              direction: str = "out", predicate: str | None = None, scope: str | None = None,
              as_of: int | None = None,
              include_invalidated: bool = False, min_confidence: float | None = None,
              include_dormant: bool | None = None) -> dict[str, Any]:
    """An entity's facts as of an instant, each annotated with its effective confidence then
    and its state. Dormant facts are left out unless ``include_dormant`` (which defaults to
    ``include_invalidated``: ``facts --all`` shows everything)."""
    from claimgraph.core import entities as ents  # a named entity's reads: not search's
    from claimgraph.core.vocabulary import resolve_predicate
    if include_dormant is None:
        include_dormant = include_invalidated
    subject = ents.require_entity(sh, entity, entity_scope)
    pred_id = resolve_predicate(sh, predicate, register_new=False)["id"] if predicate else None
    at = sh.now() if as_of is None else as_of
    keep = R.fact_filter(at=at, include_invalidated=include_invalidated, scope=scope,
                         min_confidence=min_confidence, predicate=pred_id,
                         half_life_days=sh.half_life_days)
    raw = sh.store.get_facts(subject["id"], _direction(direction), [pred_id] if pred_id else None)
    facts = [with_state(R.with_effective_confidence(f, at, sh.half_life_days)) for f in raw
             if keep(f) and (include_dormant or f.get("dormant_since") is None)]
    return {"entity": subject, "as_of": at, "facts": facts}


def scope_facts(sh: Shell, scopes: Sequence[str], *, predicate: str | None = None,
                as_of: int | None = None, include_invalidated: bool = False,
                min_confidence: float | None = None) -> dict[str, Any]:
    """Every fact in the scopes (a project's memory, no entity named), most useful first:
    standing commitments, then by effective confidence at the instant, then the fresher.
    The store is asked for the facts not ended at the instant (``valid_at``): a fact whose
    end is recorded for later is believed until then, and as of a past instant a fact
    invalidated since was still believed then."""
    from claimgraph.core.vocabulary import resolve_predicate  # not search's (see get_facts)
    at = sh.now() if as_of is None else as_of
    pred_id = resolve_predicate(sh, predicate, register_new=False)["id"] if predicate else None
    keep = R.fact_filter(at=at, include_invalidated=include_invalidated, predicate=pred_id,
                         min_confidence=min_confidence, half_life_days=sh.half_life_days)
    raw = sh.store.select_facts(scopes=list(scopes), valid_at=None if include_invalidated else at,
                                predicates=[pred_id] if pred_id else None)
    return {"scopes": list(scopes), "as_of": at,
            "facts": believed(raw, scopes, keep, at, sh.half_life_days, include_invalidated)}


def believed(facts: Sequence[dict[str, Any]], scopes: Sequence[str],
             keep: Callable[[dict[str, Any]], bool], at: int, half_life_days: float,
             include_invalidated: bool = False) -> list[dict[str, Any]]:
    """``scope_facts`` over facts already read: those in the scopes that ``keep`` passes (and,
    unless invalidated ones are wanted, not dormant), annotated, most useful first."""
    kept = [with_state(R.with_effective_confidence(f, at, half_life_days)) for f in facts
            if f.get("scope") in scopes and keep(f)
            and (include_invalidated or f.get("dormant_since") is None)]
    return R.most_useful_first(kept)


def with_state(fact: dict[str, Any]) -> dict[str, Any]:
    """A copy annotated with the fact's curation state for readers."""
    return {**fact, "state": fact_state(fact)}


def history(sh: Shell, subject: str, predicate: str,
            subject_scope: str | Sequence[str] | None = None) -> dict[str, Any]:
    """Every version of (subject, predicate), valid and invalidated, oldest first."""
    from claimgraph.core import entities as ents  # not search's (see get_facts)
    from claimgraph.core.vocabulary import resolve_predicate
    entity = ents.require_entity(sh, subject, subject_scope)
    pred = resolve_predicate(sh, predicate, register_new=False)
    return {"entity": entity, "predicate": pred["id"],
            "history": sh.store.get_history(entity["id"], pred["id"])}


def _matched_entities(sh: Shell, queries: list[str],
                      scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    """Entities the whole query or any token names, in each searched scope (None: every
    scope); names ambiguous within a scope are skipped, not errors. One read for all of
    them (``find_entities_many``: each text's candidates as ``find_entities`` gives them)."""
    found: dict[str, dict[str, Any]] = {}
    named = sh.store.find_entities_many(queries, None)
    for text in queries:
        by_scope: dict[str, list[dict[str, Any]]] = {}
        for candidate in named.get(text, ()):
            if scopes is None or candidate.get("scope") in scopes:
                by_scope.setdefault(candidate.get("scope") or "", []).append(candidate)
        for candidates in by_scope.values():
            match = E.pick_entity_match(text, candidates)
            if match and match["via"] != "ambiguous":
                found.setdefault(match["entity"]["id"], match["entity"])
    return list(found.values())


def _fts_route(sh: Shell, queries: list[str],
               in_scope: Callable[[dict[str, Any]], bool],
               limit: int, heads: bool) -> tuple[list[dict[str, Any]], dict[str, Any],
                                                 dict[str, int]]:
    """Full-text (trigram) hits for the whole query first, then per token; first occurrence
    wins. Entities and episodes are kept for the whole query only, so tokens ask for facts
    alone. ``heads``: the facts as heads (ranked first, the few shown read whole afterwards).
    Also how many of the queries hit each fact (the whole query counts as two: a phrase)."""
    first = sh.store.search(queries[0], limit, heads=heads)
    seen: dict[str, dict[str, Any]] = {}
    hits: dict[str, int] = {}
    lists = (first["facts"], *(sh.store.search_facts(t, limit, heads=heads) for t in queries[1:]))
    for n, found in enumerate(lists):
        for fact in found:
            if in_scope(fact):
                seen.setdefault(fact["id"], fact)
                hits[fact["id"]] = hits.get(fact["id"], 0) + (2 if n == 0 and len(lists) > 1 else 1)
    return list(seen.values()), first, hits


def _word_routes(sh: Shell, query: str, matched: list[dict[str, Any]], weak: set[str],
                 in_scope: Callable[[dict[str, Any]], bool], limit: int,
                 heads: bool, categories: bool = True, at: int | None = None
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The query's words ranked by BM25, the words related to them (the developer
    vocabulary, the matched entities' one-word names and aliases) and the members of the
    categories they name (with ``categories``), each ranked the same way; all empty on a
    store without the word index (docs/search.md). The names of popular
    matched entities (``weak``, see ``_weak_names``) are left out of the words when others
    remain: their own routes carry them. ``at``: the facts not ended then are ranked (a fact
    whose end is recorded for later is found until then)."""
    from claimgraph.logic import query_words as QW  # search's own: `facts` never loads it
    words = QW.content_words(query)
    if any(w not in weak for w in words):
        words = [w for w in words if w not in weak]
    if not words:
        return [], [], []
    own = sh.store.rank_words(words, limit, heads=heads, at=at)
    if own is None:
        return [], [], []
    names = [[n for n in [e.get("name") or "", *(e.get("aliases") or [])] if " " not in n]
             for e in matched]
    related = QW.related_words(words, names)
    others = sh.store.rank_words(related, limit, heads=heads, at=at) if related else []
    members = QW.category_members(words) if categories else []
    kinds = sh.store.rank_words(members, limit, heads=heads, at=at) if members else []
    return ([f for f in own if in_scope(f)], [f for f in others or [] if in_scope(f)],
            [f for f in kinds or [] if in_scope(f)])


def _weak_names(matched: list[dict[str, Any]], popular: set[str]) -> set[str]:
    """The lower-cased names and aliases of the popular matched entities (``popular``: ids of
    entities with more than ``SPECIFIC_FACTS`` facts). Such a name is weak evidence in any
    fact's text (a speaker's name in the turns addressed to her, a library named by every
    module), so the text routes, words and trigram alike, leave it out when other words
    remain; the entity's own route, weighted by its specificity, carries it."""
    return {n.lower() for e in matched if e["id"] in popular
            for n in [e.get("name") or "", *(e.get("aliases") or [])]}


def search(sh: Shell, query: str, scopes: Sequence[str] | None = None, *,
           fts_limit: int = FTS_LIMIT, limit: int | None = None,
           neighbours: bool = True, categories: bool = True) -> dict[str, Any]:
    """Routes fused by rank (docs/search.md): the query's words by BM25, their related words,
    trigram full text, each named entity's facts (weighted by how specific it is), one hop
    out; times freshness. A single-valued predicate's newest live value comes before an older
    live one (``logic.retrieval.current_first``); closed facts never show.

    ``scopes`` limits every route BEFORE fusion (so another project's facts neither show nor
    push this one's down a rank); None searches every project. ``fts_limit`` caps the
    full-text hits per query and token (the coach, which runs on every prompt and pushes at
    most a few facts, asks for fewer). ``limit`` keeps the best that many facts (None: all);
    ``total`` says how many were found. ``neighbours``: the first hits' episode neighbours
    borrow from their scores (docs/search.md; the coach, which pushes standing rules into a
    prompt, goes without). ``categories``: the members of a category the query names are
    ranked too ("pets": dog, cat; docs/search.md; the coach goes without).

    The entity and hop routes can reach thousands of facts (a library named by every module):
    with a ``limit`` every route is ranked on fact heads (``Store.get_fact_heads_for``, and
    search's ``heads``) and only the facts returned are read whole, so the order and the
    facts are those a full read gives.

    Every read comes from one snapshot where the store offers one (``Snapshots``): the
    routes see the same store, and SQLite checks whether another process wrote once per
    search instead of once per read (a dozen reads)."""
    if not query or not query.strip():
        raise ClaimgraphError("empty-query", "the search query is empty",
                              hint="give some words to look for")
    store = sh.store
    if not isinstance(store, Snapshots):
        return _search(sh, query, scopes, fts_limit, limit, neighbours, categories)
    with store.reading():
        return _search(sh, query, scopes, fts_limit, limit, neighbours, categories)


def _search(sh: Shell, query: str, scopes: Sequence[str] | None, fts_limit: int,
            limit: int | None, neighbours: bool, categories: bool) -> dict[str, Any]:
    """``search`` inside its snapshot."""
    from claimgraph.logic import query_dates as QD  # search's own: `facts` never loads it
    in_scope = _scope_test(scopes)
    queries = [query.strip(), *[t for t in R.query_tokens(query) if t != query.strip()]]
    heads = limit is not None
    matched = _matched_entities(sh, queries, scopes)
    matched_ids = {e["id"] for e in matched}
    read = sh.store.get_facts_for if limit is None else sh.store.get_fact_heads_for
    now = sh.now()
    # Only the facts valid now: a closed fact takes no place in its entity's route, does not
    # make the entity popular and leads no hop (``R.valid_facts``).
    entity_facts = R.valid_facts(_route(read, matched_ids, "both", scopes), now)
    groups = _by_entity(entity_facts, [e["id"] for e in matched])
    popular = {entity_id for entity_id, group in groups.items()
               if len(group) > R.SPECIFIC_FACTS}
    weak = _weak_names(matched, popular)
    pieces = [queries[0], *[t for t in queries[1:] if t.lower() not in weak]]
    fts_facts, hits, coordination = _fts_route(sh, pieces, in_scope, fts_limit, heads)
    word_facts, related_facts, member_facts = _word_routes(sh, query, matched, weak, in_scope,
                                                           fts_limit, heads, categories, now)
    hop_read = read if limit is None else _heads_without_ends(sh)
    hop_facts = R.valid_facts(
        _route(hop_read, _neighbour_ids(entity_facts) - matched_ids, "out", scopes), now)
    whole: dict[str, dict[str, Any]] = {}  # facts read whole so far (tie texts), by id
    found = R.search_candidates(
        fts_facts, entity_facts, hop_facts, now, sh.half_life_days,
        word_facts=word_facts, related_facts=related_facts, member_facts=member_facts,
        fts_hits=coordination,
        entity_groups=list(groups.values()), asked_time=QD.asked_time(query),
        texts=_texts(sh, whole), checked=True)
    lent = _neighbours(sh, found, in_scope) if neighbours else ()
    episodes = _episodes(sh, found) if neighbours else None
    fused, total = R.best_search_hits(found, limit, lent, episodes)
    shown = _whole_neighbours(sh, fused) if limit is None else _read_whole(sh, fused, whole)
    shown = _current_first(sh, shown, scopes,
                           None if limit is None else _whole_ranking(found, lent, episodes))
    return {"query": query, "scopes": None if scopes is None else list(scopes),
            "entities": [e for e in hits.get("entities", []) if in_scope(e)],
            "episodes": hits.get("episodes", []), "facts": [with_state(f) for f in shown],
            "total": total,
            "matched_entities": [{"id": e["id"], "name": e["name"], "type": e.get("type"),
                                  "scope": e.get("scope")} for e in matched]}


def _whole_ranking(found: R.Candidates, lent: Sequence[tuple[str, int, Any, bool]],
                   episodes: dict[str, str] | None
                   ) -> Callable[[set[str]], dict[str, dict[str, Any]] | None]:
    """For ``_current_first`` with a limit: given ids of values not shown, the whole ranking
    (id -> annotated head) when one of them is in it (a candidate, or a neighbour that
    joins), else None. Made only then (an open conflict whose older value was found after
    the cut: rare), from the candidates already scored: nothing is read again."""
    def ranking(wanted: set[str]) -> dict[str, dict[str, Any]] | None:
        known = found.by_id()
        if not any(i in known for i in wanted) and not any(
                row[2]["id"] in wanted for row in lent):
            return None
        return {f["id"]: f for f in R.best_search_hits(found, None, lent, episodes)[0]}
    return ranking


def _texts(sh: Shell, whole: dict[str, dict[str, Any]]) -> Callable[[list[str]],
                                                                   dict[str, str]]:
    """Ranking's reader of the text of heads that tie (``logic.retrieval.TieBreak``): one
    read of the few facts concerned, whole, kept in ``whole`` (the shown ones among them
    are not read again, ``_read_whole``)."""
    def read(ids: list[str]) -> dict[str, str]:
        facts = sh.store.get_facts_by_ids(ids)
        whole.update((f["id"], f) for f in facts)
        return {f["id"]: R.fact_text(f) or "" for f in facts}
    return read


def _neighbours(sh: Shell, found: R.Candidates,
                in_scope: Callable[[dict[str, Any]], bool]) -> list[tuple[str, int, Any, bool]]:
    """The first candidates' episode neighbours (``R.best_search_hits`` lets them borrow):
    (lender id, offset, fact, whether the fact follows a question), a candidate as found,
    any other as its head; those outside the searched scopes dropped."""
    ids = R.lenders(found)
    rows = sh.store.episode_neighbours(ids, R.NEIGHBOUR_SPAN) if ids else []
    if not rows:
        return []
    known = found.by_id()
    return [(lender, offset, known[head["id"]][2] if head["id"] in known else head,
             follows_question)
            for lender, offset, head, follows_question in rows if in_scope(head)]


def _episodes(sh: Shell, found: R.Candidates) -> dict[str, str]:
    """id -> episode of the candidates that share an episode with one of the first
    (``R.lenders``): the facts of the lenders' episodes, kept if the routes found them."""
    if R.EPISODE_SHARE <= 0:
        return {}
    ids = R.lenders(found)
    if not ids:
        return {}
    known = found.by_id()
    # The heads read from the table (the text and word routes) carry their episode.
    read = {fact_id: entry[2]["episode"] for fact_id, entry in known.items()
            if "episode" in entry[2]}
    rows = sh.store.episode_members(ids, R.EPISODE_MEMBERS_CAP, among=known, episodes=read)
    return {fact_id: episode for fact_id, episode in rows if fact_id in known}


def _whole_neighbours(sh: Shell, ranked: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every fact found read whole (``search`` without a limit): the neighbours that joined
    as heads (a head has no predicate) are read, in one read, keeping their annotations."""
    heads = [f["id"] for f in ranked if "predicate" not in f]
    if not heads:
        return ranked
    by_id = {f["id"]: f for f in sh.store.get_facts_by_ids(heads)}
    return [f if "predicate" in f else {**by_id[f["id"]], **{k: f[k] for k in _ANNOTATIONS}}
            for f in ranked if "predicate" in f or f["id"] in by_id]


_ANNOTATIONS = ("effective_confidence", "retrieval_score")


def _by_entity(facts: list[dict[str, Any]],
               entity_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The entity route split per matched entity (a fact touching two is in both)."""
    groups: dict[str, list[dict[str, Any]]] = {entity_id: [] for entity_id in entity_ids}
    for fact in facts:
        for end in (fact.get("subject"), fact.get("object_ref")):
            end_id = end.get("id") if isinstance(end, dict) else end
            if end_id in groups and (not groups[end_id] or groups[end_id][-1] is not fact):
                groups[end_id].append(fact)
    return {entity_id: group for entity_id, group in groups.items() if group}


def _current_first(sh: Shell, shown: list[dict[str, Any]], scopes: Sequence[str] | None,
                   ranking: Callable[[set[str]], dict[str, dict[str, Any]] | None] | None = None
                   ) -> list[dict[str, Any]]:
    """``logic.retrieval.current_first`` over the shown facts, with the other live values of
    their single-valued predicates read (one indexed read, only when there are any).

    ``ranking``: ``shown`` is the first part of a ranking; given the ids of values not shown,
    this makes the whole of it (id -> annotated head), or None when none of them is in it
    (``_whole_ranking``). A value found there follows the newer value as it does in the whole
    ranking (a dormant one too: search shows dormant facts), so a search with a limit shows
    the first facts of the search without one (docs/search.md)."""
    single = {pid for pid, row in sh.predicates().items() if row.get("cardinality") == "one"}
    subjects = sorted({f["subject"]["id"] for f in shown if f.get("predicate") in single})
    if not subjects:
        return shown
    now = sh.now()
    rivals = [f for f in sh.store.get_facts_for(subjects, "out")
              if f.get("predicate") in single and R.fact_valid_at(f, now)
              and (scopes is None or f.get("scope") in scopes)]
    listed = {f["id"] for f in shown}
    pairs = {(f["subject"]["id"], f["predicate"]) for f in shown if f.get("predicate") in single}
    unlisted = {f["id"] for f in rivals
                if f["id"] not in listed and (f["subject"]["id"], f["predicate"]) in pairs}
    found = ranking(unlisted) if ranking is not None and unlisted else None
    rivals = [f for f in rivals if f.get("dormant_since") is None
              or (found is not None and f["id"] in found)]
    return R.current_first(shown, rivals, single, found)


def _scope_test(scopes: Sequence[str] | None) -> Callable[[dict[str, Any]], bool]:
    """Whether a fact or entity belongs to the searched scopes (None: all of them)."""
    wanted = None if scopes is None else set(scopes)
    return lambda record: wanted is None or record.get("scope") in wanted


def _route(read: Callable[..., list[dict[str, Any]]], ids: set[str], direction: str,
           scopes: Sequence[str] | None) -> list[dict[str, Any]]:
    """The facts touching ``ids`` in the searched scopes (None: all, unfiltered: a popular
    entity's neighbours reach thousands of facts)."""
    if not ids:
        return []
    if scopes is None:
        return read(ids, direction)
    wanted = set(scopes)
    return [f for f in read(ids, direction) if f.get("scope") in wanted]


def _heads_without_ends(sh: Shell) -> Callable[..., list[dict[str, Any]]]:
    """The hop route's reader: its facts are ranked, never followed, so their ends (two ids
    per fact, thousands of facts for a popular library's neighbours) are not read."""
    return lambda ids, direction: sh.store.get_fact_heads_for(ids, direction, ends=False)


def _neighbour_ids(facts: list[dict[str, Any]]) -> set[str]:
    """Both ends of each fact (whole, or a head whose ends are bare ids)."""
    ids: set[str] = set()
    for fact in facts:
        for end in (fact.get("subject"), fact.get("object_ref")):
            if end:
                ids.add(end["id"] if isinstance(end, dict) else end)
    return ids


def _read_whole(sh: Shell, ranked: list[dict[str, Any]],
                whole: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Ranked heads (annotated by fusion) as whole facts with the annotations, in one read
    of those not read whole already (``whole``, from the same snapshot). A fact purged
    meanwhile is left out."""
    unread = [f["id"] for f in ranked if f["id"] not in whole]
    by_id = {**whole, **{f["id"]: f for f in sh.store.get_facts_by_ids(unread)}} if unread \
        else whole
    return [{**by_id[f["id"]], "effective_confidence": f["effective_confidence"],
             "retrieval_score": f["retrieval_score"]} for f in ranked if f["id"] in by_id]


def conflicts(sh: Shell, at: int | None = None, with_suspects: bool = True,
              scopes: Collection[str] | None = None,
              held_among: Collection[str] | None = None) -> dict[str, Any]:
    """Open conflict pairs: both sides still valid. Links live on the newer fact. With
    ``scopes``, only the pairs with a side in one of them.

    Also lists the suspect claims (the audit found their cited evidence unsupported or the file
    missing), which want the same human review: ``suspect``, see ``suspects`` (left out, as
    an empty list, when only the pairs are wanted), and the facts held for review (``held``;
    ``held_among`` as there).
    """
    from claimgraph.logic.conflicts import open_conflicts  # not loaded by `facts`, `search`
    at = sh.now() if at is None else at
    flagged = sh.store.select_facts(conflicted=True, valid_at=at)
    wanted = {cid for f in flagged for cid in f.get("conflicts", [])}
    by_id = {f["id"]: f for f in sh.store.get_facts_by_ids(sorted(wanted))}
    pairs = [p for p in open_conflicts(flagged, by_id, at)
             if scopes is None
             or {p["fact"].get("scope"), p["candidate"].get("scope")} & set(scopes)]
    found = suspects(sh, at, scopes)["suspect"] if with_suspects else []
    waiting = held(sh, at, scopes, held_among) if with_suspects else []
    return {"open": len(pairs), "conflicts": pairs, "suspect": found, "held": waiting}


def held(sh: Shell, at: int | None = None, scopes: Collection[str] | None = None,
         among: Collection[str] | None = None) -> list[dict[str, Any]]:
    """Valid facts held for review instead of shown (``logic.safe_render.fact_held``: an
    instruction to run remote code or send credentials), each with why; oldest first.

    Only facts that may be held are read and judged: ``among`` (ids that include every held
    live fact: the viewer keeps them, write by write), else those the store finds in SQL
    (``HeldCandidates``: their words, ``logic.safe_render.may_be_held``), else (a store
    without that read) every live fact of ``scopes``."""
    from claimgraph.logic.safe_render import fact_held
    from claimgraph.store.fast_paths import HeldCandidates
    at = sh.now() if at is None else at
    wanted = None if scopes is None else sorted(scopes)
    if among is None and isinstance(sh.store, HeldCandidates):
        among = sh.store.held_candidate_ids(wanted, at)
    if among is None:
        live = sh.store.select_facts(valid_at=at, scopes=wanted)
    else:
        inside = _scope_test(wanted)
        live = [f for f in sh.store.get_facts_by_ids(sorted(among)) if inside(f)]
    out = []
    for fact in live:
        reason = fact_held(fact)
        if reason and R.fact_valid_at(fact, at):
            out.append({"fact": with_state(fact), "reason": reason})
    return sorted(out, key=lambda h: (h["fact"]["recorded_at"], h["fact"]["id"]))


def suspects(sh: Shell, at: int | None = None,
             scopes: Collection[str] | None = None) -> dict[str, Any]:
    """Facts valid at ``at`` (in ``scopes``, when given) whose latest audit found a citation
    unsupported or its file missing: {count, suspect: [{fact, verdicts}]}, oldest fact first;
    verdicts are the bad citations."""
    at = sh.now() if at is None else at
    ids = sh.store.suspect_fact_ids()
    if not ids:
        return {"count": 0, "suspect": []}
    facts = [f for f in sh.store.get_facts_by_ids(ids) if R.fact_valid_at(f, at)
             and (scopes is None or f.get("scope") in scopes)]
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in sh.store.get_audit([f["id"] for f in facts]):
        if row["verdict"] in SUSPECT_VERDICTS:
            rows.setdefault(row["fact_id"], []).append(row)
    out = [{"fact": with_state(f), "verdicts": rows.get(f["id"], [])}
           for f in sorted(facts, key=lambda f: (f["recorded_at"], f["id"]))]
    return {"count": len(out), "suspect": out}


def stats(sh: Shell) -> dict[str, Any]:
    return sh.store.stats()
