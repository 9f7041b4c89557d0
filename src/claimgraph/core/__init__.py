"""The imperative shell: gather store reads, ask ``logic`` for a decision, execute the plan.

Every verb is a plain function taking a ``Shell`` (the store plus the clock and id minting)
first. Nothing here decides policy; everything here is I/O against the Store protocol.
"""

from claimgraph.core.shell import Shell

__all__ = ["Shell"]
