"""claimgraph: a local-first long-term memory for coding agents.

Layering (a file's path says what it may touch):
  logic/   pure functional core: plain values in, decisions (plans) out; no I/O, no clock.
  store/   the Store protocol and its backends (SQLite for users, memory for tests).
  core.py  the imperative shell: gather reads -> ask logic -> execute the plan.
  cli/     argparse commands on top of the shell.
"""

__version__ = "0.1.0"

#: The persisted-format version of a store (database schema, dump format, ``<db>.version``).
STORE_FORMAT = 2
