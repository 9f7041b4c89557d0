"""``claimgraph serve``: a read-only web viewer of the memory, for people (docs/viewer.md).

Server-rendered pages over the same reads the CLI and the hooks use: the projects, a project's
facts grouped as the block a session starts with groups them (docs/context.md), a fact's
history and provenance, the memory as of any instant, the capture and curator runs, and what
awaits a human.

Nothing here loads unless ``claimgraph serve`` runs (its web packages are the optional
``viewer`` extra): the hooks and every other command never import this package.
"""
