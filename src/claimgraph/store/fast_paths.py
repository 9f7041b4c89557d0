"""Optional fast paths a store may offer, as classes callers check with ``isinstance``.

A store without one is read whole and answered by the definitions in ``logic``; a store with
one (SQLite, and PostgreSQL for ``ContextSections``) answers in SQL. ``isinstance`` asks the
object for each method, so a wrapper that forwards attributes (the oplog's ``LoggedStore``)
offers a fast path exactly when the store it wraps does. No ``typing`` at run time: read
commands and hooks check these and must not load it (docs/store.md, "Adding a store backend").
"""

from __future__ import annotations

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, Iterable, Iterator, Mapping

    Record = dict[str, Any]


class _Offers(type):
    """``isinstance(obj, C)``: obj has every method C names (C need not be a base class)."""

    def __instancecheck__(cls, obj: object) -> bool:
        return all(callable(getattr(obj, name, None)) for name in cls.__dict__["methods"])


class Snapshots(metaclass=_Offers):
    """Several reads from one snapshot (no write may happen inside)."""

    methods = ("reading",)

    def reading(self) -> AbstractContextManager[None]: raise NotImplementedError


class ContextHeads(metaclass=_Offers):
    """Light rows of the scopes' live facts valid now or closed since ``since``
    (``logic.briefing_shortlist``), as a list or a stream."""

    methods = ("select_context_heads", "iter_context_heads")

    def select_context_heads(self, scopes: Iterable[str], since: int) -> list[Record]:
        raise NotImplementedError

    def iter_context_heads(self, scopes: Iterable[str], since: int) -> Iterator[Record]:
        raise NotImplementedError


class ContextSections(metaclass=_Offers):
    """A project page's sections (``logic.briefing_sections``) and the viewer's time travel
    (``logic.time_travel``), answered without reading the scopes' facts."""

    methods = ("context_sections", "told_as_state_ids", "valid_times", "believed_at")

    def context_sections(self, scopes: Iterable[str], now: int, *,
                         windows: Mapping[str, tuple[int, int]], open_ids: Iterable[str] = (),
                         narrowing: Any = None, half_life_days: float = 0.0,
                         told: Iterable[str] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def told_as_state_ids(self, scopes: Iterable[str]) -> set[str]:
        raise NotImplementedError

    def valid_times(self, scopes: Iterable[str]) -> dict[str, list[int]]:
        raise NotImplementedError

    def believed_at(self, scopes: Iterable[str], at: int, *, since: int | None, limit: int,
                    half_life_days: float = 0.0, count: bool = True) -> dict[str, Any]:
        raise NotImplementedError


class KnownNames(metaclass=_Offers):
    """Which normalized names some entity answers to (capture's subject check)."""

    methods = ("known_name_norms",)

    def known_name_norms(self, norms: Iterable[str]) -> set[str]: raise NotImplementedError


class CurationReads(metaclass=_Offers):
    """The curator's reads in SQL (``store.sqlite_curation`` says what each answers)."""

    methods = ("repeated_claim_facts", "sweep_pool", "count_valid_facts", "predicate_counts",
               "count_episodes", "episodes_opened_since", "open_episodes", "entity_cursor",
               "entity_name_keys_after", "duplicate_name_keys", "entities_with_name_keys",
               "fact_cursor", "subjects_of_facts_after")

    def repeated_claim_facts(self) -> list[Record]: raise NotImplementedError

    def sweep_pool(self, watched: Iterable[str], exclusive: Iterable[str],
                   decisions: Iterable[str]) -> list[Record]:
        raise NotImplementedError

    def count_valid_facts(self) -> int: raise NotImplementedError

    def predicate_counts(self, episode_ids: Iterable[str]) -> dict[str, dict[str, int]]:
        raise NotImplementedError

    def count_episodes(self) -> int: raise NotImplementedError

    def episodes_opened_since(self, at: int) -> list[Record]: raise NotImplementedError

    def open_episodes(self) -> list[Record]: raise NotImplementedError

    def entity_cursor(self) -> int: raise NotImplementedError

    def fact_cursor(self) -> int: raise NotImplementedError

    def subjects_of_facts_after(self, cursor: int) -> list[str]: raise NotImplementedError

    def entity_name_keys_after(self, cursor: int) -> list[tuple[str, str]]:
        raise NotImplementedError

    def duplicate_name_keys(self) -> list[tuple[str, str]]: raise NotImplementedError

    def entities_with_name_keys(self, keys: Iterable[tuple[str, str]]
                                ) -> dict[tuple[str, str], list[Record]]:
        raise NotImplementedError


class HeldCandidates(metaclass=_Offers):
    """The live facts that may be held for review (``logic.safe_render.may_be_held``), found
    without reading them: the review judges only those (``core.reads.held``)."""

    methods = ("held_candidate_ids",)

    def held_candidate_ids(self, scopes: Iterable[str] | None = None,
                           at: int | None = None) -> set[str]:
        raise NotImplementedError


class FactTouches(metaclass=_Offers):
    """Which facts each write touched (format 7), and what decides how long a project's
    placement stays exact as time passes: the viewer places again only what changed."""

    methods = ("touch_mark", "touched_since", "placement_heads")

    def touch_mark(self) -> tuple[int, int]: raise NotImplementedError

    def touched_since(self, mark: tuple[int, int], limit: int) -> list[str] | None:
        raise NotImplementedError

    def placement_heads(self, scopes: Iterable[str]) -> list[tuple[Any, ...]]:
        raise NotImplementedError
