"""The ``claimgraph`` command: one module per group of commands (docs/contributing.md, "Adding
a command").

``commands`` is the table from each command word to the group that defines it, read without
importing any group; ``parser`` builds the command line from the groups' ``add_parsers``;
``main`` is the error boundary and owns the exit codes; ``invocation`` is what a command runs
in (settings, project, the store, opened read-only until a write needs it); ``output``
prints. Decisions belong in ``logic`` and store work in ``core``, never in a command module.
"""
