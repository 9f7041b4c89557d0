"""Agent hooks: the fast path an agent runs at session boundaries, and their registration.

The fast path (``python -m claimgraph.hooks session-end``: ``__main__``, ``entry``, ``spool``,
``spawn``) runs inside the agent's hook budget — for Claude Code's SessionEnd about 1.5 s shared
by every hook, after which the hook's whole process tree is killed. So it imports the standard
library only (and the config file's parser only when that file names the store,
``spool.db_path``), never prints to stdout, always exits 0, hands the payload to a spool file
and a fully detached capture pass, and returns in milliseconds. This ``__init__`` must stay empty of
imports: ``-m claimgraph.hooks`` imports it first. ``install`` and ``settings_file`` are the
(ordinary, slower) registration side, used by ``claimgraph install`` / ``uninstall``.
"""
