"""How a store is doing, for a person: ``status`` (what ran, what is waiting, what failed) and
``doctor`` (the integrity check and its repairs). Both read every layer below them, so they sit
above the verticals and the daemon and below the frontends that show them (docs/architecture.md).
"""
