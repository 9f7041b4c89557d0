"""``python -m claimgraph.mcp``: the MCP server, without the rest of the CLI (see ``main``)."""

import gc
import sys

gc.disable()  # the modules below live until exit: see claimgraph.cli.main.settle_imports
from claimgraph.mcp.main import main  # noqa: E402

gc.freeze()
gc.enable()
sys.exit(main())
