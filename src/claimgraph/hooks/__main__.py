"""``python -m claimgraph.hooks EVENT [--agent NAME]``: the command an agent's settings run.

Exits 0 whatever happens (``entry.main`` never raises): a non-zero code would be shown to the
user, and exit code 2 would even block a Stop hook's agent from stopping.
"""

import sys

from claimgraph.hooks.entry import main

sys.exit(main(sys.argv[1:], own_process=True))
