#!/usr/bin/env python3
"""The project's Markdown files as the sessions last saw them, for ``blocks.py --files``.

The sessions' folders do not exist on this machine, so the block's ``--agent`` filter finds no
instruction file to read imports from (a CLAUDE.md that is only ``@AGENTS.md``) and no Codex
override. This prints, as JSON ``{project-relative path: text}``, the last whole look (a read
or a write) of every ``.md`` file inside each transcript's project, read with capture's own
session view (run it with the ``PYTHONPATH`` of the build under test), later transcripts
over earlier ones:

    PYTHONPATH=src python bench/memory/seen_files.py AGENT:TRANSCRIPT...

A look that showed part of a file gives that part; a file the sessions never read whole is
written as they saw it, which is what the next agent would load.
"""

from __future__ import annotations

import json
import sys

from claimgraph.capture.extract.reads import surviving_looks
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.readers import read_transcript


def seen(agent: str, path: str) -> dict[str, str]:
    view = SessionView.of(read_transcript(path, agent), None)
    found: dict[str, str] = {}
    for looks in surviving_looks(view).values():
        whole = [look for look in looks if look.how in ("read", "write") and look.cited]
        if whole and whole[-1].cited.lower().endswith(".md"):
            found[whole[-1].cited] = whole[-1].text
    return found


def main(argv: list[str]) -> int:
    files: dict[str, str] = {}
    for item in argv:
        agent, _, path = item.partition(":")
        try:
            files.update(seen(agent, path))
        except Exception as error:  # noqa: BLE001 -- a bench: one unreadable transcript
            print(f"{path}: {error}", file=sys.stderr)
    json.dump(files, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
