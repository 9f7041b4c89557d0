"""``claimgraph purge``: taking something out of memory for good (docs/forget-and-purge.md).

``plan`` reads the store and its files and decides (through ``logic.purge``) what goes, before
anything changes; ``run`` carries the plan out so that a kill at any point leaves nothing
half-done; ``files`` scrubs and then checks every file the store owns beside it (logs, spool,
operation log, evidence). Tombstones keep what was purged from coming back.
"""
