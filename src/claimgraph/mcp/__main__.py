"""``python -m claimgraph.mcp``: the MCP server, without the rest of the CLI (see ``main``)."""

import sys

from claimgraph import startup
from claimgraph.deferred import defer

defer("ipaddress")  # urllib.parse's, for bracketed URL hosts (claimgraph.deferred)
startup.loading()  # what loads below lives as long as the server (claimgraph.startup)
from claimgraph.mcp.main import main  # noqa: E402

startup.settle()
sys.exit(main())
