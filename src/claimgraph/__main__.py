"""``python -m claimgraph`` runs the same entry point as the ``claimgraph`` console script."""

import sys

from claimgraph.cli.main import main

sys.exit(main())
