"""A heredoc's redirect target as the file it writes: quotes off, a shell variable unknown."""

from __future__ import annotations

from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.writes import session_ops

from .extract_helpers import ROOT, Session


def _written(command: str) -> list[str]:
    session = Session()
    session.bash(command)
    view = SessionView.of(session.transcript(), ROOT)
    return [op.path for _, _, ops in session_ops(view) for op in ops]


def test_a_quoted_target_is_the_file_without_its_quotes():
    assert _written("cat > \"notes/plan.md\" <<'EOF'\nx\nEOF") == [f"{ROOT}/notes/plan.md"]
    assert _written("cat > 'notes/plan.md' <<'EOF'\nx\nEOF") == [f"{ROOT}/notes/plan.md"]


def test_a_target_the_shell_expands_is_no_known_file():
    assert _written("cat > \"$SCRATCH/x.md\" <<'EOF'\nx\nEOF") == []
    assert _written("cat > $(mktemp) <<'EOF'\nx\nEOF") == []
    assert _written("cat > plain.md <<'EOF'\nx\nEOF") == [f"{ROOT}/plain.md"]
