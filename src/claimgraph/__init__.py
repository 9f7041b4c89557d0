"""claimgraph: a local-first long-term memory for coding agents.

Layering (a file's path says what it may touch):
  logic/   pure functional core: plain values in, decisions (plans) out; no I/O, no clock.
  store/   the Store protocol and its backends (SQLite for users, memory for tests).
  core.py  the imperative shell: gather reads -> ask logic -> execute the plan.
  cli/     argparse commands on top of the shell.

As a library: ``from claimgraph import audit_claims`` checks the evidence any JSON document
cites against the files (docs/claims-audit.md); ``claimgraph.logic`` is the pure core
(docs/internals.md).
"""

__version__ = "0.1.0"

#: The persisted-format version of a store (database schema, dump format, ``<db>.version``).
STORE_FORMAT = 6

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
