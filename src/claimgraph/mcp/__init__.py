"""``claimgraph mcp``: memory the agent can ask mid-session, over the Model Context Protocol.

``arguments`` (pure: coercion of tool arguments), ``tools`` (the memory_* tools as plain
functions over a ``ServerState``) and ``server`` (the official ``mcp`` SDK's low-level server
over stdio). Only ``server`` imports the SDK, an optional extra (``pip install
claimgraph[mcp]``) that weighs about a second of imports: nothing outside ``claimgraph mcp``
may import it, so this ``__init__`` stays empty of imports.
"""
