"""The examples at the end of the main commands' ``--help``: real command lines, each one a
person would type first (tests/cli/test_help_texts.py runs every one of them)."""

from __future__ import annotations

EXAMPLES: dict[str, tuple[str, ...]] = {
    "capture": ("claimgraph capture ~/.claude/projects/-home-me-app/SESSION.jsonl",
                "claimgraph capture session.jsonl --cwd ~/src/app   # name its project",
                "claimgraph --json capture session.jsonl            # the report as JSON"),
    "facts": ("claimgraph facts                       # this project's memory, most useful first",
              "claimgraph facts api --all             # one entity, retired values too",
              "claimgraph facts --as-of 2026-01-01    # what was believed then"),
    "search": ("claimgraph search postgres migrations",
               "claimgraph search pytest --all-projects"),
    "assert": ('claimgraph assert api depends-on postgres --evidence "src/db.py: import psycopg"',
               'claimgraph assert me prefers uv --scope user'),
    "history": ("claimgraph history api prefers",),
    "conflicts": ("claimgraph conflicts", "claimgraph conflicts --all-projects"),
    "audit": ("claimgraph audit", "claimgraph audit --all-projects --strict"),
    "context": ("claimgraph context                     # what the next session here is told",
                "claimgraph context --cwd ~/src/app"),
    "install": ("claimgraph install --agent claude-code",
                "claimgraph install --agent claude-code --mcp --dry-run",
                "claimgraph install --agent codex"),
    "status": ("claimgraph status", "claimgraph status --json"),
    "demo": ("claimgraph demo",),
    "logs": ("claimgraph logs", "claimgraph logs capture --since 1h", "claimgraph logs -f"),
    "completion": ("claimgraph completion bash > ~/.local/share/bash-completion/completions/"
                   "claimgraph",
                   'eval "$(claimgraph completion zsh)"   # in ~/.zshrc'),
}
