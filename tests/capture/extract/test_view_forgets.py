"""After the rules, the view lets go of what only they read (``SessionView.forget_except``):
``digest``, ``reconcile`` and ``attach_diagnoses`` then compute nothing again, and the facts
are the ones a view that forgot nothing gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimgraph.capture.extract import builtin
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.segment import read_cleaned

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "claude-code"
SESSIONS = sorted(FIXTURES.glob("*.jsonl"))


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem[:12] for p in SESSIONS])
def test_what_the_later_stages_read_is_kept_and_the_facts_are_the_same(path, monkeypatch):
    cleaned, _ = read_cleaned(str(path), "claude-code")
    remembered, forget = SessionView.remembered, SessionView.forget_except
    after: list[str] = []
    dropped: list[str] = []
    forgot = [False]

    def noting(self, key, compute):
        if forgot[0] and key not in self.memo:
            after.append(key)
        return remembered(self, key, compute)

    def forgetting(self, keep):
        dropped.extend(key for key in self.memo if key not in keep)
        forgot[0] = True
        forget(self, keep)
        assert set(self.memo) <= keep

    monkeypatch.setattr(SessionView, "remembered", noting)
    monkeypatch.setattr(SessionView, "forget_except", forgetting)
    facts = builtin.extract(cleaned)
    assert forgot[0]
    assert after == []  # a key the later stages read and READ_LATER lacks is computed again
    monkeypatch.setattr(SessionView, "forget_except", lambda self, keep: None)
    assert builtin.extract(cleaned) == facts


def test_forget_except_keeps_only_the_named_entries():
    view = SessionView.of(read_cleaned(str(SESSIONS[0]), "claude-code")[0], None)
    view.remembered("a", lambda _: [1])
    view.remembered("b", lambda _: [2])
    view.forget_except(frozenset({"a", "c"}))
    assert view.memo == {"a": [1]}
    assert view.remembered("b", lambda _: [3]) == [3]  # asked again: computed again


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem[:12] for p in SESSIONS])
def test_what_a_rule_reads_last_is_let_go_after_it_and_nothing_is_computed_twice(path,
                                                                                  monkeypatch):
    cleaned, _ = read_cleaned(str(path), "claude-code")
    remembered = SessionView.remembered
    computed: list[str] = []
    let_go: list[str] = []
    forget = SessionView.forget

    def noting(self, key, compute):
        if key not in self.memo:
            computed.append(key)
        return remembered(self, key, compute)

    def forgetting(self, keys):
        let_go.extend(key for key in keys if key in self.memo)
        forget(self, keys)

    monkeypatch.setattr(SessionView, "remembered", noting)
    monkeypatch.setattr(SessionView, "forget", forgetting)
    facts = builtin.extract(cleaned)
    again = sorted({key for key in computed if computed.count(key) > 1})
    assert again == []  # a key LAST_READ_BY lets go of too early is computed again
    assert set(let_go) <= set().union(*builtin.LAST_READ_BY.values())
    monkeypatch.setattr(SessionView, "forget", lambda self, keys: None)
    monkeypatch.setattr(SessionView, "forget_except", lambda self, keep: None)
    assert builtin.extract(cleaned) == facts


def test_last_read_by_names_rules_and_nothing_read_after_the_rules():
    assert set(builtin.LAST_READ_BY) <= set(builtin.RULES)
    assert not set().union(*builtin.LAST_READ_BY.values()) & builtin.READ_LATER


def test_forget_lets_go_of_the_named_entries_only():
    view = SessionView.of(read_cleaned(str(SESSIONS[0]), "claude-code")[0], None)
    view.remembered("a", lambda _: [1])
    view.remembered("b", lambda _: [2])
    view.forget(frozenset({"a", "missing"}))
    assert view.memo == {"b": [2]}
    assert view.remembered("a", lambda _: [3]) == [3]


def test_nothing_the_rules_remembered_is_held_while_reconcile_runs(monkeypatch):
    """``reconcile`` reads only what ``digest`` gathered: the memos are let go before it, where
    a long session's extraction peaks."""
    cleaned, _ = read_cleaned(str(SESSIONS[0]), "claude-code")
    views: list[SessionView] = []
    made, settle = SessionView.of.__func__, builtin.reconcile
    held_then: list[int] = []

    def of(cls, *args, **kwargs):
        views.append(made(cls, *args, **kwargs))
        return views[-1]

    def reconciling(found, later):
        held_then.append(len(views[-1].memo))
        return settle(found, later)

    monkeypatch.setattr(SessionView, "of", classmethod(of))
    monkeypatch.setattr(builtin, "reconcile", reconciling)
    builtin.extract(cleaned)
    assert views and held_then == [0]
