"""The operation log and its reconcile: one memory across machines that sync through files.

``LoggedStore`` records every committed write as effect lines in ``<db>.oplog/<writer>.jsonl``;
``reconcile`` folds the other writers' logs into the store; ``exchange`` moves logs and
evidence through a shared directory (``claimgraph sync --dir DIR``). See docs/sync.md.
"""
