"""``python -m claimgraph.mcp``: the MCP server, without the rest of the CLI (see ``main``)."""

import sys

from claimgraph.mcp.main import main

sys.exit(main())
