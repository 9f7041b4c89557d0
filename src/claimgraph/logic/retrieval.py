"""Reading memory back, purely: temporal filters, rank fusion, query tokens, BFS, guided walk.

docs/search.md describes the ranking. Nothing here reads a clock or a store: the shell fetches facts
and passes ``now`` (integer ms UTC); these functions decide what surfaces and in which order. Scores
multiply by effective confidence, so consensus across routes and freshness both count, and a
fact invalid at ``now`` never surfaces.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping

from claimgraph.logic.confidence import (DEFAULT_HALF_LIFE_DAYS, effective_confidence,
                                         effective_confidences)
from claimgraph.logic.model import FORGOTTEN
from claimgraph.logic.names import object_name

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Callable, Collection, Iterable, Sequence, TypeVar

    Fact = Mapping[str, Any]
    #: A fact of any record type: what goes in comes back, in another order.
    AnyFact = TypeVar("AnyFact", bound=Mapping[str, Any])

RRF_K = 60
FTS_WEIGHT, ENTITY_WEIGHT, HOP_WEIGHT = 1.0, 1.2, 0.3
#: The word routes (docs/search.md): the query's own words, and the words related to them.
WORD_WEIGHT, RELATED_WEIGHT = 1.5, 0.5
#: The members of a category the query names (``query_words.CATEGORY_GROUPS``): "which pets"
#: finds "my dog".
MEMBER_WEIGHT = 1.5
#: A fact valid from the time the query names (``logic.query_dates``) counts this much more.
ASKED_TIME_BOOST = 0.5
#: An entity (or hop) route with at most this many facts counts in full (``specificity``).
SPECIFIC_FACTS = 10
#: The episode neighbourhood (``borrow_from_neighbours``): each of the first ``SOURCES`` hits
#: lends ``SHARE`` of its score to the facts of its episode recorded up to ``SPAN`` places
#: before or after it.
NEIGHBOUR_SOURCES, NEIGHBOUR_SHARE, NEIGHBOUR_SPAN = 30, 0.2, 2
#: A hit lends this share instead to a fact after it that follows a question (the hit's own,
#: or one asked about it): the answer, which holds what was asked for in words of its own
#: (docs/search.md).
ANSWER_SHARE = 1.5
#: A lender's share falls with its place among the lenders: the hit at place ``n`` (0 the
#: first) lends ``HALF / (HALF + n)`` of what its score would, half at place ``HALF``
#: (``lender_credit``). Fused scores are flat (reciprocal ranks: the first hit's is barely
#: above the thirtieth's), so a share of the score alone lets the thirtieth hit's context
#: count nearly as much as the first's.
NEIGHBOUR_PLACE_HALF = 10
#: The episode as a whole (``_episode_shares``): each lender also lends this share of its
#: score (times its place credit) to every other candidate of its episode, however far from
#: it; the episode where the hits gather is the likelier place of the answer. An episode of
#: more than ``EPISODE_MEMBERS_CAP`` facts lends nothing this way (too large to say where an
#: answer lies; and its facts are not read).
EPISODE_SHARE = 0.4
EPISODE_MEMBERS_CAP = 300
#: The first hits keep their places: context ranks the facts after them.
NEIGHBOUR_KEEP = 5
WALK_BUDGET, WALK_BEAM, WALK_MAX_DEPTH = 25, 8, 6
MIN_TOKEN_CHARS = 3
QUERY_STOPWORDS = frozenset(
    "the and for with into from that this does are was our not use uses using what which when"
    " where why how did should against about run add get all any".split())


# --- temporal filters ---------------------------------------------------------------------

def fact_valid_at(fact: Fact, at: int) -> bool:
    """Valid time is half-open, [t_valid, t_invalid): a fact closed at ``at`` is already gone.
    A forgotten fact was never valid: context, search, coach and time travel all skip it;
    only its history (and ``--all`` listings) still show it, with the reason."""
    t_valid, t_invalid = fact.get("t_valid"), fact.get("t_invalid")
    return (t_valid is not None and t_valid <= at and (t_invalid is None or t_invalid > at)
            and fact.get("invalidation_kind") != FORGOTTEN)


def valid_facts(facts: Iterable[AnyFact], at: int) -> list[AnyFact]:
    """The facts valid at ``at`` (``fact_valid_at``'s test, spelled inline: an entity's
    route holds thousands of facts), in their order. Search keeps a closed fact out of every
    route before ranking it: a closed fact takes no route's place, counts in no entity's
    specificity and leads no hop, so a store's closed facts change no search
    (docs/search.md, "The current value first")."""
    return [fact for fact in facts
            if (began := fact.get("t_valid")) is not None and began <= at
            and ((ended := fact.get("t_invalid")) is None or ended > at)
            and fact.get("invalidation_kind") != FORGOTTEN]


def fact_began_by(fact: Fact, at: int) -> bool:
    """The fact's valid time had started at ``at`` (it may have ended since)."""
    t_valid = fact.get("t_valid")
    return t_valid is not None and t_valid <= at


def fact_filter(*, at: int, include_invalidated: bool = False, min_confidence: float | None = None,
                scope: str | None = None, predicate: str | None = None,
                half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> Callable[[Fact], bool]:
    """One predicate for every read; confidence is judged as it stands at ``at`` (decayed).

    ``include_invalidated`` adds facts whose valid time has ENDED by ``at``; a fact whose valid
    time starts after ``at`` was not believed then and never passes (time travel must not
    show the future)."""
    def keep(fact: Fact) -> bool:
        return ((fact_valid_at(fact, at) or (include_invalidated and fact_began_by(fact, at)))
                and (min_confidence is None
                     or effective_confidence(fact, at, half_life_days) >= min_confidence)
                and (scope is None or fact.get("scope") == scope)
                and (predicate is None or fact.get("predicate") == predicate))
    return keep


def with_effective_confidence(fact: Fact, at: int,
                              half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> dict[str, Any]:
    """A copy annotated for readers; the stored fact never carries a decayed value."""
    return {**fact, "effective_confidence": effective_confidence(fact, at, half_life_days)}


def by_effective_confidence(facts: Iterable[Fact], at: int,
                            half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                            confidences: dict[str, float] | None = None) -> list[Fact]:
    """The entity and hop routes' ranking: liveliest first, then the newer valid time, ids
    last, repeats dropped. ``by_relevance`` gives the facts equal on the first two one shared
    rank, so for search the ids order nothing.

    Repeats (a fact touching two matched entities) are dropped so they do not push later
    facts down a rank in fusion. ``confidences`` (id -> effective confidence at ``at``) is
    filled as it goes, so fusion need not compute them again.
    """
    unique: dict[str, Fact] = {}
    for fact in facts:
        unique.setdefault(fact["id"], fact)
    known = {} if confidences is None else confidences
    effective_confidences(unique.items(), at, known, half_life_days)
    ranked = sorted(unique, key=str)  # ids ascending: a stable sort keeps them on ties
    ranked.sort(key=lambda i: (known[i], unique[i].get("t_valid") or 0), reverse=True)
    return [unique[fact_id] for fact_id in ranked]


def most_useful_first(facts: Iterable[AnyFact]) -> list[AnyFact]:
    """A scope's listing order: standing commitments first (what an agent must not undo), then
    by effective confidence (annotated by ``with_effective_confidence``), fresher first on
    ties, ids last so the order never depends on the store's."""
    def key(fact: Fact) -> tuple[Any, ...]:
        return (fact.get("epistemic") != "commitment", -(fact.get("effective_confidence") or 0.0),
                -(fact.get("last_reinforced_at") or fact.get("recorded_at") or 0), str(fact["id"]))
    return sorted(facts, key=key)


# --- rank fusion --------------------------------------------------------------------------

def _rrf_scores(routes: Sequence[Mapping[str, Any]], k: int) -> dict[str, list[Any]]:
    """id -> [rrf score, first-seen fact]; dict order is first-seen order.

    A route's rank is the fact's position in the list as given (invalid facts included), or
    its ``ranks`` entry when the route gives them (facts the route cannot tell apart share
    one, ``shared_ranks``); a fact repeated within one route counts only at its first rank.
    """
    scores: dict[str, list[Any]] = {}
    for route in routes:
        weight = 1.0 if route.get("weight") is None else route["weight"]
        facts = route.get("facts") or ()
        ranks = route.get("ranks") or range(len(facts))
        seen: set[str] = set()
        for rank, fact in zip(ranks, facts):
            fact_id = fact["id"]
            if fact_id in seen:
                continue
            seen.add(fact_id)
            entry = scores.get(fact_id)
            if entry is None:  # 0.0 + x is x: the same float as adding to a fresh 0.0
                scores[fact_id] = [weight / (k + rank + 1), fact]
            else:
                entry[0] += weight / (k + rank + 1)
    return scores


def fuse_retrieval(routes: Sequence[Mapping[str, Any]], now: int, k: int = RRF_K,
                   half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                   confidences: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
    """Reciprocal rank fusion across routes, times effective confidence at ``now``.

    Ties go to the newer valid time, then to the text (``TieBreak``), ids only between
    identical texts, so the output is a pure function of the facts, whatever their ids or
    the order they were given in. ``confidences`` may carry effective confidences at
    ``now`` already computed (by id), which are used as they are.
    """
    return [_annotated(entry) for entry in _fused(routes, now, k, half_life_days, confidences)[0]]


def _fused(routes: Sequence[Mapping[str, Any]], now: int, k: int, half_life_days: float,
           confidences: Mapping[str, float] | None, limit: int | None = None,
           relevance: Mapping[str,
                              int] | None = None) -> tuple[list[tuple[float, float, Fact]], int]:
    """(score, effective confidence, fact) of the best ``limit`` facts valid at ``now`` (None:
    all of them), best first; and how many facts were valid. Equal scores go to the fact
    more relevant by ``relevance`` (id -> place, lower first), then as ``TieBreak`` says."""
    scored = _scored(routes, now, k, half_life_days, confidences)
    return TieBreak(relevance).best(scored, limit), len(scored)


def _scored(routes: Sequence[Mapping[str, Any]], now: int, k: int, half_life_days: float,
            confidences: Mapping[str, float] | None,
            valid: bool = False) -> list[tuple[float, float, Fact]]:
    """(score, effective confidence, fact) of every fact valid at ``now``, first seen first
    (``valid``: the routes hold only such facts already, none is tested again). The
    confidences not given are computed in one loop (``effective_confidences``, the same
    arithmetic as a call per fact, which was a tenth of a search's Python time)."""
    known = confidences or {}
    entries = _rrf_scores(routes, k).values()
    valid_entries = list(entries) if valid else [
        (rrf, fact) for rrf, fact in entries if fact_valid_at(fact, now)]
    computed: dict[str, float] = {}
    effective_confidences(((fact["id"], fact) for _, fact in valid_entries
                           if fact["id"] not in known), now, computed, half_life_days)
    scored = []
    for rrf, fact in valid_entries:
        conf = known.get(fact["id"])
        if conf is None:
            conf = computed[fact["id"]]
        scored.append((rrf * conf, conf, fact))
    return scored


class TieBreak:
    """The order of fused candidates: a total order that depends on the facts alone, never on
    their ids or the order a store returned them in (docs/search.md, "Ties").

    Score first (higher); then the more relevant text (``relevance``: id -> place in the word
    routes, lower first); then the newer valid time; then a hash of the fact's text
    (``fact_text``), so equal facts fall in an order that is neither alphabetical nor the
    store's; the id only between byte-identical texts. A head (no text: search ranks heads
    and reads the few shown whole) that ties with another on all the rest has its text read
    through ``texts`` (ids -> {id: text}), only for the ties among the facts kept and at the
    cut; without ``texts`` it counts as an empty text."""
    __slots__ = ("relevance", "unranked", "texts", "hashes")

    def __init__(self, relevance: Mapping[str, int] | None = None,
                 texts: Callable[[list[str]], Mapping[str, str]] | None = None) -> None:
        self.relevance = relevance or {}
        self.unranked = len(self.relevance)
        self.texts = texts
        #: id -> hash of the fact's text, as learned.
        self.hashes: dict[str, int] = {}

    def primary(self, entry: tuple[float, float, Fact]) -> tuple[float, int, int]:
        """The order before the text: ascending is best first."""
        fact = entry[2]
        return (-entry[0], self.relevance.get(fact["id"], self.unranked),
                -(fact.get("t_valid") or 0))

    def best(self, scored: list[tuple[float, float, Fact]],
             limit: int | None) -> list[tuple[float, float, Fact]]:
        """The best ``limit`` entries (None: all), best first."""
        if limit is not None and limit <= 0:
            return []
        if limit is not None and len(scored) > limit:
            # Only entries scored at least the limit-th best score can be among the first:
            # the finer key is computed for those alone (a popular entity brings thousands).
            # The limit-th best score, from the scores alone sorted in C (a keyed
            # ``heapq.nlargest`` ran a Python call per entry, three times a search).
            scores = [entry[0] for entry in scored]
            scores.sort(reverse=True)
            floor = scores[limit - 1]
            scored = [entry for entry in scored if entry[0] >= floor]
        keyed = [(self.primary(entry), entry) for entry in scored]
        window = sorted(keyed, key=_first)
        if limit is not None and len(window) > limit:
            # The first ``limit`` and every entry tied with the last of them, in the order
            # found (the sort is stable): what a keyed ``heapq.nsmallest`` and the ties
            # after it gave, from one sort in C, without loading ``heapq`` (issue 29).
            edge, end = window[limit - 1][0], limit
            while end < len(window) and window[end][0] == edge:
                end += 1
            del window[end:]
        tied = [entry[2] for n, (key, entry) in enumerate(window)
                if (n > 0 and window[n - 1][0] == key)
                or (n + 1 < len(window) and window[n + 1][0] == key)]
        if tied:
            self._learn(tied)
            hashes = self.hashes
            window.sort(key=lambda pair: (pair[0], hashes.get(pair[1][2]["id"], 0),
                                          str(pair[1][2]["id"])))
        return [entry for _, entry in window[:limit]]

    def _learn(self, facts: list[Fact]) -> None:
        """The text hashes of ``facts`` not known yet: from the fact, or read in one call."""
        unread = []
        for fact in facts:
            fact_id = fact["id"]
            if fact_id in self.hashes:
                continue
            text = fact_text(fact)
            if text is None:
                unread.append(fact_id)
            else:
                self.hashes[fact_id] = text_hash(text)
        if unread:
            read = self.texts(unread) if self.texts is not None else {}
            for fact_id in unread:
                self.hashes[fact_id] = text_hash(read.get(fact_id, ""))


def _first(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def fact_text(fact: Fact) -> str | None:
    """What a tie between two facts is broken on: the subject's name, the predicate and the
    object as a person reads it; None for a head (it has no predicate)."""
    if "predicate" not in fact:
        return None
    subject = fact.get("subject")
    name = subject.get("name") if isinstance(subject, Mapping) else subject
    return "\x1f".join((str(name or ""), str(fact.get("predicate") or ""),
                        str(object_name(fact) or "")))


def text_hash(text: str) -> int:
    """A stable 64-bit hash of a text (Python's ``hash`` of a str changes between runs).
    Imported here: only a tie needs it, and a query's start-up stays light. BLAKE2 is
    CPython's own ``_blake2`` (what ``hashlib.blake2b`` is): ``import hashlib`` also loads
    OpenSSL's ``_hashlib``, ~4 ms of a read command's start for a digest it never uses."""
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter without the built-in module
        from hashlib import blake2b
    return int.from_bytes(blake2b(text.encode("utf-8", "surrogatepass"),
                                  digest_size=8).digest(), "big")


def content_order(fact: Fact) -> tuple[int, str]:
    """A fact's place among equals by content: the hash of its text, then (identical texts, or
    heads) its id."""
    text = fact_text(fact)
    return (0 if text is None else text_hash(text), str(fact["id"]))


def _annotated(entry: tuple[float, float, Fact]) -> dict[str, Any]:
    score, conf, fact = entry
    return {**fact, "effective_confidence": conf, "retrieval_score": score}


def fuse_search_routes(fts_facts: Sequence[Fact], entity_facts: Iterable[Fact],
                       hop_facts: Iterable[Fact], now: int,
                       half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> list[dict[str, Any]]:
    """``search``'s three routes: text hits as ranked, named entities' facts, one hop out.

    The entity and hop routes are (re)ordered by effective confidence here, so callers cannot
    hand fusion a store's arbitrary order; the full-text route keeps its own order.
    """
    return top_search_hits(fts_facts, entity_facts, hop_facts, now, half_life_days)[0]


def top_search_hits(fts_facts: Sequence[Fact], entity_facts: Iterable[Fact],
                    hop_facts: Iterable[Fact], now: int,
                    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                    limit: int | None = None, *, word_facts: Sequence[Fact] = (),
                    related_facts: Sequence[Fact] = (),
                    entity_groups: Sequence[Sequence[Fact]] | None = None,
                    fts_hits: Mapping[str, int] | None = None) -> tuple[list[dict[str, Any]], int]:
    """``fuse_search_routes`` cut to the best ``limit`` (None: all), and how many there were:
    only the facts kept are copied and annotated (``search_candidates`` then
    ``best_search_hits`` with no neighbours)."""
    found = search_candidates(fts_facts, entity_facts, hop_facts, now, half_life_days,
                              word_facts=word_facts, related_facts=related_facts,
                              entity_groups=entity_groups, fts_hits=fts_hits)
    return best_search_hits(found, limit)


class Candidates:
    """Every fact the search routes found, scored (``search_candidates``): ``scored`` holds
    (score, effective confidence, fact) of each fact valid at ``now``, first seen first;
    ``order`` orders them (``TieBreak``: score, the more relevant text, the newer, the text's
    hash)."""
    __slots__ = ("scored", "order", "now", "half_life_days", "first", "_by_id")

    def __init__(self, scored: list[tuple[float, float, Fact]], order: TieBreak, now: int,
                 half_life_days: float) -> None:
        self.scored, self.order, self.now, self.half_life_days = (scored, order, now,
                                                                  half_life_days)
        #: The first ``NEIGHBOUR_SOURCES`` ids, once asked for (``lenders``).
        self.first: list[str] | None = None
        self._by_id: dict[str, tuple[float, float, Fact]] | None = None

    def by_id(self) -> dict[str, tuple[float, float, Fact]]:
        """id -> entry of every candidate, built once: the neighbour and episode arms and
        the shell's readers all look candidates up (hundreds per search)."""
        if self._by_id is None:
            self._by_id = {entry[2]["id"]: entry for entry in self.scored}
        return self._by_id


def search_candidates(fts_facts: Sequence[Fact], entity_facts: Iterable[Fact],
                      hop_facts: Iterable[Fact], now: int,
                      half_life_days: float = DEFAULT_HALF_LIFE_DAYS, *,
                      word_facts: Sequence[Fact] = (), related_facts: Sequence[Fact] = (),
                      member_facts: Sequence[Fact] = (),
                      entity_groups: Sequence[Sequence[Fact]] | None = None,
                      fts_hits: Mapping[str, int] | None = None,
                      asked_time: Callable[[int | None], bool] | None = None,
                      texts: Callable[[list[str]], Mapping[str, str]] | None = None,
                      checked: bool = False) -> Candidates:
    """The routes fused and scored, not yet ordered.

    The routes (docs/search.md): ``word_facts``, the query's words ranked by BM25 (the main
    route when the store has the word index); ``related_facts``, the same for the words the
    vocabulary relates to them (weighted lower); ``fts_facts``, trigram hits of the whole
    query and of each token, re-ranked by how many of them hit a fact (``fts_hits``: id ->
    count); the entity route, one per matched entity (``entity_groups``; default: one group,
    ``entity_facts``), each weighted by how specific the entity is (an entity with hundreds of
    facts is weak evidence for any one of them) and ordered by the facts' text relevance
    first; and the hop route, weighted and ordered the same way. Equal scores go to the more
    relevant text, then as ``TieBreak`` says (``texts`` reads the text of heads that tie);
    never to an id where the texts differ. ``asked_time``: the time the query names, as a
    test of a fact's ``t_valid`` (``logic.query_dates``); a fact it passes counts
    ``1 + ASKED_TIME_BOOST`` times.

    Only facts valid at ``now`` are ranked (``valid_facts``): a closed fact in a route is
    left out before the route is ordered, so it takes no place a current fact could have
    and does not count in its entity's or hop's specificity. ``checked``: the entity and hop
    routes hold such facts only already (the shell keeps the others out as it reads them, to
    follow no hop from a closed fact): their thousands of facts are not tested again."""
    known: dict[str, float] = {}
    word_facts, related_facts, member_facts, fts_facts = (
        valid_facts(route, now) for route in (word_facts, related_facts, member_facts,
                                               fts_facts))
    relevance = text_relevance(word_facts, member_facts, related_facts)
    groups = [list(entity_facts)] if entity_groups is None else [list(g) for g in entity_groups]
    if not checked:
        groups = [valid_facts(group, now) for group in groups]
    trigram = by_coordination(fts_facts, fts_hits, relevance)
    routes = [{"weight": WORD_WEIGHT, "facts": list(word_facts), "ranks": _same_words(word_facts)},
              {"weight": RELATED_WEIGHT, "facts": list(related_facts),
               "ranks": _same_words(related_facts)},
              {"weight": MEMBER_WEIGHT, "facts": list(member_facts),
               "ranks": _same_words(member_facts)},
              {"weight": FTS_WEIGHT, "facts": trigram,
               "ranks": shared_ranks([((fts_hits or {}).get(f["id"], 1), relevance.get(f["id"]),
                                       f.get("t_valid"), f.get("object_lit", f["id"]))
                                      for f in trigram])}]
    for group in groups:
        ranked, ranks = by_relevance(group, relevance, now, half_life_days, known)
        routes.append({"weight": ENTITY_WEIGHT * specificity(_distinct(group)),
                       "facts": ranked, "ranks": ranks})
    hops = list(hop_facts) if checked else valid_facts(hop_facts, now)
    ranked, ranks = by_relevance(hops, relevance, now, half_life_days, known)
    routes.append({"weight": HOP_WEIGHT * specificity(_distinct(hops)), "facts": ranked,
                   "ranks": ranks})
    scored = _scored(routes, now, RRF_K, half_life_days, known, valid=True)
    if asked_time is not None:
        scored = [(score * (1 + ASKED_TIME_BOOST) if asked_time(fact.get("t_valid")) else score,
                   conf, fact) for score, conf, fact in scored]
    return Candidates(scored, TieBreak(relevance, texts), now, half_life_days)


def lenders(found: Candidates) -> list[str]:
    """The ids of the first ``NEIGHBOUR_SOURCES`` candidates: the hits whose episode
    neighbours ``best_search_hits`` lets borrow from them."""
    if found.first is None:
        found.first = [entry[2]["id"]
                       for entry in found.order.best(found.scored, NEIGHBOUR_SOURCES)]
    return found.first


def best_search_hits(found: Candidates, limit: int | None = None,
                     neighbours: Iterable[tuple[str, int, Fact, bool]] = (),
                     episodes: Mapping[str, str] | None = None
                     ) -> tuple[list[dict[str, Any]], int]:
    """The best ``limit`` candidates (None: all), annotated, and how many there were.

    A memory's context lives around it (docs/search.md): each of the first
    ``NEIGHBOUR_SOURCES`` (``lenders``) lends ``NEIGHBOUR_SHARE`` of its score, times its
    place's credit (``lender_credit``: the first lends in full, later ones less), to each fact
    of its episode recorded up to ``NEIGHBOUR_SPAN`` places away; a fact lent to by several
    adds the shares, times its own effective confidence. A question's words often sit on the
    turn that asked it, while the answer comes next. The first ``NEIGHBOUR_KEEP`` keep their
    places: context ranks the facts after them and never moves a direct match there. A
    lender lends ``ANSWER_SHARE`` instead to a fact after it that follows a question (the
    lender itself asking, or a question asked about it): a question's words are on the turn
    that asked or on the turn it asks about, its answer on the next. The answer to the
    lender's own question (right after it) may also take a place among the first ones,
    right after its question: there it counts what it borrowed up to just under the
    question's own score, so it never passes its question and the first hit stays the best
    direct match.

    ``episodes``: id -> episode of the candidates in the lenders' episodes; each of those
    also borrows from the episode as a whole (``EPISODE_SHARE``, ``_episode_shares``).

    ``neighbours``: (lender's id, offset, neighbour fact, whether the neighbour follows a
    question) rows (``Store.episode_neighbours``, the facts read); a neighbour not valid at
    ``now`` is skipped, one not among the candidates joins on what it borrowed alone, after
    them in the order it was lent to (lender by lender, nearest first)."""
    borrowed, joined, asked = _borrowed(found, neighbours, episodes)
    if not borrowed:
        return [_annotated(e) for e in found.order.best(found.scored, limit)], len(found.scored)
    # ``TieBreak.best`` orders by a total order of the entries alone, so the lists below may
    # be built in any order: only the few answers and borrowers are looked up and rebuilt.
    by_id = found.by_id()
    newcomers = {entry[2]["id"]: entry for entry in joined}
    answers = [_as_answer(entry, borrowed, asked)
               for fact_id in asked for entry in _entry(fact_id, by_id, newcomers)]
    keep = NEIGHBOUR_KEEP if limit is None else min(NEIGHBOUR_KEEP, max(0, limit))
    head = found.order.best([*(e for e in found.scored if e[2]["id"] not in asked), *answers]
                            if asked else found.scored, keep)
    kept = {entry[2]["id"] for entry in head}
    # Score plus nothing borrowed is the score itself (scores and confidences are finite
    # and not negative): only the borrowers get a new entry.
    rest = [entry for entry in found.scored
            if entry[2]["id"] not in borrowed and entry[2]["id"] not in kept]
    for fact_id, lent in borrowed.items():
        entry = by_id.get(fact_id) or newcomers.get(fact_id)
        if entry is not None and fact_id not in kept:
            rest.append((entry[0] + lent * entry[1], entry[1], entry[2]))
    more = None if limit is None else max(0, limit - len(head))
    best = [*head, *found.order.best(rest, more)]
    return [_annotated(e) for e in best], len(found.scored) + len(joined)


def _entry(fact_id: str, *maps: Mapping[str, tuple[float, float, Fact]]
           ) -> tuple[tuple[float, float, Fact], ...]:
    """The entry of ``fact_id`` in the first of ``maps`` that holds it, as a tuple of one
    (none: an id lent to that is neither a candidate nor a neighbour read is ignored)."""
    for entries in maps:
        entry = entries.get(fact_id)
        if entry is not None:
            return (entry,)
    return ()


def _as_answer(entry: tuple[float, float, Fact], borrowed: Mapping[str, float],
               asked: Mapping[str, float]) -> tuple[float, float, Fact]:
    """An answer's entry for the first places: its score with what it borrowed, up to just
    under its question's score (``asked``), never below its own."""
    import math  # only an answer's entry needs it: a search's start need not load it
    score, conf, fact = entry
    lifted = min(score + borrowed.get(fact["id"], 0.0) * conf,
                 math.nextafter(asked[fact["id"]], 0.0))
    return max(score, lifted), conf, fact


def _borrowed(found: Candidates, neighbours: Iterable[tuple[str, int, Fact, bool]],
              episodes: Mapping[str, str] | None = None
              ) -> tuple[dict[str, float], list[tuple[float, float, Fact]], dict[str, float]]:
    """id -> the shares lent to it (before its own confidence: by its neighbours, and by
    its episode's lenders, ``episodes``); the neighbours that were not candidates, as (0,
    effective confidence, fact) in the order they were lent to; and id -> the best score of
    a lender whose own question it answers (right after it)."""
    rank = {fact_id: n for n, fact_id in enumerate(lenders(found))}
    known = found.by_id()
    score = {fact_id: known[fact_id][0] for fact_id in rank}
    borrowed: dict[str, float] = {}
    joined: dict[str, Fact] = {}
    asked: dict[str, float] = {}
    rows = sorted((row for row in neighbours if row[0] in rank),
                  key=lambda row: (rank[row[0]], abs(row[1]), row[1]))
    for lender, offset, fact, follows_question in rows:
        fact_id = fact["id"]
        if fact_id not in known and fact_id not in joined:
            if not fact_valid_at(fact, found.now):
                continue
            joined[fact_id] = fact
        answers = follows_question and offset > 0
        if answers and offset == 1:
            asked[fact_id] = max(asked.get(fact_id, 0.0), score[lender])
        share = (ANSWER_SHARE if answers else NEIGHBOUR_SHARE) * lender_credit(rank[lender])
        borrowed[fact_id] = borrowed.get(fact_id, 0.0) + share * score[lender]
    if EPISODE_SHARE > 0 and episodes:
        _episode_shares(episodes, rank, score, borrowed)
    # The newcomers' confidences in one loop (the same arithmetic as a call per fact).
    confidences: dict[str, float] = {}
    effective_confidences(joined.items(), found.now, confidences, found.half_life_days)
    return borrowed, [(0.0, confidences[i], fact) for i, fact in joined.items()], asked


def _episode_shares(episodes: Mapping[str, str], rank: Mapping[str, int],
                    score: Mapping[str, float], borrowed: dict[str, float]) -> None:
    """Add to ``borrowed`` what each candidate of a lender's episode (``episodes``: id ->
    episode, the candidates in the lenders' episodes) borrows from the episode as a whole:
    ``EPISODE_SHARE`` of each lender's score times its place credit, summed over the
    episode's lenders but its own. A session's answer often shares no word with the
    question (a speaker's reply on the subject the hits are about, said many turns away from
    them); the episode where the hits gather says where to look, so its candidates climb
    over lone matches elsewhere (docs/search.md)."""
    mass: dict[str, float] = {}
    own: dict[str, float] = {}
    for fact_id, episode in episodes.items():
        if fact_id in rank:
            lent = EPISODE_SHARE * lender_credit(rank[fact_id]) * score[fact_id]
            mass[episode] = mass.get(episode, 0.0) + lent
            own[fact_id] = lent
    for fact_id, episode in episodes.items():
        extra = mass.get(episode, 0.0) - own.get(fact_id, 0.0)
        if extra > 0:
            borrowed[fact_id] = borrowed.get(fact_id, 0.0) + extra


def lender_credit(place: int) -> float:
    """How much of its share the lender at ``place`` (0 the first) lends: 1 for the first,
    half at ``NEIGHBOUR_PLACE_HALF``, falling as the reciprocal beyond. The first hits are the
    best evidence that their episode's context is what was asked about; the thirtieth, whose
    fused score is nearly the first's, is much weaker evidence (docs/search.md)."""
    return NEIGHBOUR_PLACE_HALF / (NEIGHBOUR_PLACE_HALF + place)


def specificity(fact_count: int) -> float:
    """How much one route's match says about each of its facts: 1 for an entity with at most
    ``SPECIFIC_FACTS`` facts, falling with the square root beyond (a speaker with 300 turns, a
    library every module uses)."""
    return 1.0 if fact_count <= SPECIFIC_FACTS else (SPECIFIC_FACTS / fact_count) ** 0.5


def _distinct(facts: Iterable[Fact]) -> int:
    return len({f["id"] for f in facts})


def text_relevance(*ranked_routes: Sequence[Fact]) -> dict[str, int]:
    """id -> the fact's best position in the word routes (0 = most relevant), routes taken in
    turn (the query's own words before related ones). Facts in a row that say the same
    words (two speakers' "Thanks!") share a place: the words cannot tell them apart."""
    place: dict[str, int] = {}
    for route in ranked_routes:
        offset = len(place)
        previous: Any = None
        for n, fact in enumerate(route):
            text = fact.get("object_lit", fact["id"])
            if text is not None and text == previous and n:
                place.setdefault(fact["id"], place[route[n - 1]["id"]])
            else:
                place.setdefault(fact["id"], offset + n)
            previous = text
    return place


def _same_words(route: Sequence[Fact]) -> list[float]:
    """A word route's ranks: facts in a row with the same literal (the same BM25 score, put
    side by side by the store) share one."""
    return shared_ranks([f.get("object_lit", f["id"]) for f in route])


def by_coordination(facts: Sequence[Fact], hits: Mapping[str, int] | None,
                    relevance: Mapping[str, int]) -> list[Fact]:
    """The trigram route's order: facts hit by more of the query's pieces first (a fact that
    holds three of the words beats one that holds one), then the more relevant text, then
    the order given (the store's: the newer, then the literal). Facts in a row equal on all
    of these and on the literal share a rank (``search_candidates``)."""
    counts = hits or {}
    order = {f["id"]: n for n, f in enumerate(facts)}
    unranked = len(relevance) + len(order)
    return sorted(facts, key=lambda f: (-counts.get(f["id"], 1),
                                        relevance.get(f["id"], unranked), order[f["id"]]))


def by_relevance(facts: Iterable[Fact], relevance: Mapping[str, int], at: int,
                 half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
                 confidences: dict[str, float] | None = None
                 ) -> tuple[list[Fact], list[float]]:
    """An entity's (or a hop's) facts and their ranks: those the query's words found first,
    in that order; then the rest by effective confidence and the newer valid time
    (``by_effective_confidence``), where facts equal on both share one rank (their mean
    place, ``shared_ranks``): nothing the route knows tells them apart."""
    known = {} if confidences is None else confidences
    ranked = by_effective_confidence(facts, at, half_life_days, known)
    found = sorted((f for f in ranked if f["id"] in relevance), key=lambda f: relevance[f["id"]])
    rest = [f for f in ranked if f["id"] not in relevance]
    ranks = [*map(float, range(len(found))),
             *shared_ranks([(known[f["id"]], f.get("t_valid") or 0) for f in rest], len(found))]
    return found + rest, ranks


def shared_ranks(keys: Sequence[Any], start: int = 0) -> list[float]:
    """Ranks of a list in order where equal neighbouring keys share their mean place (from
    ``start``): a run of equals gets equal credit in fusion, whatever order it came in."""
    same = list(map(operator.eq, keys, itertools.islice(keys, 1, None)))
    if not any(same):
        # No two neighbours equal: each its own place, the same floats as a run of one,
        # ``place + 0 / 2``.
        return [float(place) for place in range(start, start + len(keys))]
    # The runs from the comparisons of neighbours, made once in C (a group and a count per
    # key were a tenth of ranking's time).
    ranks: list[float] = []
    first = 0  # where the current run starts
    for n, tied in enumerate(same, 1):
        if not tied:
            ranks.extend([start + first + (n - first - 1) / 2] * (n - first))
            first = n
    size = len(keys) - first
    ranks.extend([start + first + (size - 1) / 2] * size)
    return ranks


# --- query tokens -------------------------------------------------------------------------

def trim_edges(word: str) -> str:
    """Strip punctuation at both ends only, so ``shoply.api`` and ``kuzu-db`` survive whole."""
    start, end = 0, len(word)
    while start < end and not word[start].isalnum():
        start += 1
    while end > start and not word[end - 1].isalnum():
        end -= 1
    return word[start:end]


def query_tokens(text: str | None) -> list[str]:
    """Tokens worth searching on their own; short words and stopwords match everywhere.

    Case is kept (entity resolution tries exact names first); stopwords are matched
    case-insensitively; de-duplication is exact and keeps first occurrence. A possessive
    names its owner: "Priya's" is the token "Priya" (so it resolves to her entity).
    """
    tokens: list[str] = []
    for word in (text or "").split():
        token = bare_token(word)
        if (len(token) >= MIN_TOKEN_CHARS and token.lower() not in QUERY_STOPWORDS
                and token not in tokens):
            tokens.append(token)
    return tokens


def bare_token(word: str) -> str:
    """A word as a query token: punctuation trimmed at the edges (``trim_edges``), and a
    possessive's owner for the possessive ("Priya's" -> "Priya", either apostrophe)."""
    token = trim_edges(word)
    for ending in ("'s", "\u2019s", "'S"):
        if token.endswith(ending) and len(token) > len(ending):
            return token[:-len(ending)]
    return token


# --- BFS ----------------------------------------------------------------------------------

def initial_bfs_state(root_entity: Mapping[str, Any]) -> dict[str, Any]:
    """The root sits at depth 0 and is the first frontier."""
    return {"nodes": {root_entity["id"]: {**root_entity, "depth": 0}},
            "edges": {}, "frontier": {root_entity["id"]}}


def _endpoints(fact: Fact) -> list[Mapping[str, Any]]:
    """Entities a fact connects; a literal object is a leaf, never a node."""
    ends = [fact.get("subject")]
    if fact.get("object_kind") == "entity":
        ends.append(fact.get("object_ref"))
    return [end for end in ends if end and end.get("id")]


def bfs_step(state: Mapping[str, Any], facts: Iterable[Fact], keep: Callable[[Fact], bool],
             next_depth: int) -> dict[str, Any]:
    """Fold one level's facts into the state; the new frontier is only the unseen entities.

    Facts already collected are skipped and known nodes keep their first (shallowest) depth,
    so a cycle can never revisit.
    """
    nodes, edges = dict(state["nodes"]), dict(state["edges"])
    frontier: set[str] = set()
    for fact in facts:
        if fact["id"] in edges or not keep(fact):
            continue
        edges[fact["id"]] = fact
        for entity in _endpoints(fact):
            if entity["id"] not in nodes:
                nodes[entity["id"]] = {**entity, "depth": next_depth}
                frontier.add(entity["id"])
    return {"nodes": nodes, "edges": edges, "frontier": frontier}


# --- guided walk --------------------------------------------------------------------------

def _walk_text(fact: Fact) -> str:
    """What a person reads: subject, the predicate's bare name, object (lowercased)."""
    predicate = str(fact.get("predicate") or "").rsplit("/", 1)[-1]
    subject = (fact.get("subject") or {}).get("name") or ""
    return f"{subject} {predicate} {object_name(fact) or ''}".lower()


def walk_score(fact: Fact, tokens: Sequence[str], now: int,
               half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> float:
    """(1 + query tokens present) x effective confidence: relevance leads, yet every live
    edge stays walkable. Tokens compare case-insensitively."""
    text = _walk_text(fact)
    overlap = sum(1 for token in tokens if token.lower() in text)
    return (1 + overlap) * effective_confidence(fact, now, half_life_days)


def walk_select(candidates: Iterable[Fact], collected_ids: Iterable[str], tokens: Sequence[str],
                now: int, beam: int = WALK_BEAM,
                half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> list[dict[str, Any]]:
    """One round: the best ``beam`` uncollected, valid candidates (ties by id), with
    ``walk_score``, so the walk is deterministic across stores."""
    collected = set(collected_ids)
    fresh = {f["id"]: f for f in candidates if f["id"] not in collected and fact_valid_at(f, now)}
    scored = [{**f, "walk_score": walk_score(f, tokens, now, half_life_days)}
              for f in fresh.values()]
    scored.sort(key=lambda f: (-f["walk_score"], str(f["id"])))
    return scored[:max(beam, 0)]


def walk_done(frontier: Iterable[str], collected_count: int, depth: int,
              budget: int = WALK_BUDGET, max_depth: int = WALK_MAX_DEPTH) -> bool:
    """The walk stops when nothing is left to expand, the budget is met, or it went deep enough."""
    return not set(frontier) or collected_count >= budget or depth >= max_depth


# --- the current value first ----------------------------------------------------------------

def current_first(ranked: Sequence[Fact], rivals: Iterable[Fact],
                  single_valued: Collection[str],
                  found: Mapping[str, Fact] | None = None) -> list[dict[str, Any]]:
    """A single-valued predicate's values for one subject, newest first, wherever they rank.

    Two live facts give one subject two values of a predicate that holds one (an open
    conflict the curator has not settled): the newer is the likelier truth, so it takes the
    first place the pair reached, and the older follows it. ``rivals`` are the subjects'
    other live facts of those predicates (read by the caller): the newest of a pair that is
    not among ``ranked`` is brought in, on the older one's score. Superseded and forgotten
    values are closed and never reach here (docs/search.md). The list keeps its length.

    ``found``: when ``ranked`` is only the first part of a ranking, every fact of the whole
    ranking by id, annotated (``retrieval_score``, ``effective_confidence``): a value found
    but ranked after the cut follows the newer too, with its own annotations, as in the
    whole ranking, so the first k facts are the whole ranking's first k."""
    def key(fact: Fact) -> tuple[str, str] | None:
        subject = fact.get("subject")
        subject_id = subject.get("id") if isinstance(subject, Mapping) else subject
        predicate = fact.get("predicate")
        if predicate in single_valued and subject_id:
            return str(subject_id), str(predicate)
        return None

    members: dict[tuple[str, str], dict[str, Fact]] = {}
    for fact in [*ranked, *rivals]:
        group = key(fact)
        if group is not None:
            members.setdefault(group, {}).setdefault(fact["id"], fact)
    shown = {f["id"] for f in ranked}
    listed = shown if found is None else found.keys()
    out: list[dict[str, Any]] = []
    done: set[tuple[str, str]] = set()
    for fact in ranked:
        group = key(fact)
        if group is None or len(members[group]) == 1:
            out.append(dict(fact))
            continue
        if group in done:
            continue
        done.add(group)
        newest_first = sorted(members[group].values(), key=_recency, reverse=True)
        wanted = [f for f in newest_first if f["id"] in listed or f is newest_first[0]]
        for member in wanted:
            out.append(dict(member) if member["id"] in shown
                       else {**member, **_rank_fields(
                           fact if found is None or member["id"] not in found
                           else found[member["id"]])})
    return out[:len(ranked)]


_RANK_FIELDS = ("effective_confidence", "retrieval_score")


def _rank_fields(fact: Fact) -> dict[str, Any]:
    return {k: fact[k] for k in _RANK_FIELDS if k in fact}


def _recency(fact: Fact) -> tuple[Any, ...]:
    return (fact.get("t_valid") or 0, fact.get("recorded_at") or 0, str(fact["id"]))
