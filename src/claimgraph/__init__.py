"""claimgraph: a local-first long-term memory for coding agents.

A module's package says what it may touch (docs/architecture.md has the whole table, which
tests/test_layers.py checks): ``logic/`` decides, purely (plain values in, plans out; no I/O,
no clock); plumbing modules here give every layer settings, files, leases and logs;
``store/`` keeps records behind one protocol (SQLite, PostgreSQL, memory); ``core/`` gathers
what logic needs, asks it and carries out the plan; ``oplog/`` and ``purge/`` record and take
back writes; ``opening`` opens a store the way the programs use it; ``hooks/``, ``capture/``
and ``curator/`` are the background verticals, ``daemon/`` their backstop, ``health/`` their
report; ``mcp/``, ``viewer/`` and ``cli/`` are what agents and people talk to.

As a library: ``from claimgraph import audit_claims`` checks the evidence any JSON document
cites against the files (docs/claims-audit.md); ``claimgraph.logic`` is the pure core
(docs/internals.md).
"""

__version__ = "0.1.0"

#: The persisted-format version of a store (database schema, dump format, ``<db>.version``).
STORE_FORMAT = 8

#: The library surface, loaded on first use: ``import claimgraph`` stays cheap, because the
#: hook's fast path imports this package and must load nothing else.
_LAZY = {"audit_claims": "claimgraph.core.audit_document"}
__all__ = ["STORE_FORMAT", "__version__", *_LAZY]


def __getattr__(name: str) -> object:
    """``from claimgraph import audit_claims``: claim-vs-evidence over any JSON document."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'claimgraph' has no attribute {name!r}")
