"""What the harness recorded of a file's content: an observation, not the agent's write.

Capture knows a file's content from what tools showed (``reads``): a read, a write, an edit.
A file changed by a shell command (``sed -i``, ``perl -pi``, a formatter, a code generator, a
checkout) or by the person in their editor is otherwise a blind spot. Claude Code records
such a change itself: when a file the agent had read changed on disk outside its edit tools,
the next turn carries an ``edited_text_file`` attachment with the file's path and a snippet of
its new lines, numbered, around what changed; a file the person attached to a message
(``file``, ``already_read_file``) comes with its lines too. The reader gives each as an
``observed`` event (``readers/harness_files.py``). Codex and Gemini CLI record nothing like
it: their sessions have no observations.

An observation is what the file held at that moment, for the lines shown only (a snippet is
partial: ``logic.observed_lines``). It never makes a file "written by the session": it only
tells what a file the session saw or wrote now holds. Two places read it:

- ``shell_edited``: a fact quoting a line of a file changed after the session's last look is
  held against the latest observation after the change (the line shown: it stands; the line
  shown gone: the fact is left out), before falling back to reading a ``sed`` script;
- ``reconcile.digest``: the end state of a file the session wrote gains the lines observed
  after its last write or edit, so an agent's note naming what a later shell edit or
  formatter put there is borne out; absence from a snippet proves nothing, so these lines
  only ever add to what the file is known to hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import SessionView
from claimgraph.logic.observed_lines import SeenLines, numbered

#: The event kind a reader gives a harness's record of a file's content.
OBSERVED = "observed"


@dataclass(frozen=True)
class Observation:
    """The lines of ``path`` (absolute; ``cited`` as the project cites it, or None) the
    harness recorded at transcript line ``line``."""

    line: int
    path: str
    cited: str | None
    seen: SeenLines


def observations(view: SessionView) -> dict[str, list[Observation]]:
    """Absolute path -> the main session's observations of it, in order (once per view)."""
    return view.remembered("observations", _observations)


def _observations(view: SessionView) -> dict[str, list[Observation]]:
    found: dict[str, list[Observation]] = {}
    for event in view.transcript.events:
        observation = _observation(view, event)
        if observation is not None:
            found.setdefault(observation.path, []).append(observation)
    return found


def _observation(view: SessionView, event: Event) -> Observation | None:
    if event.kind != OBSERVED or event.subagent_id or event.is_sidechain:
        return None  # a subagent's file numbers its lines apart from the session's
    named = event.extras.get("path")
    path = view.resolve(named, event.cwd) if isinstance(named, str) else None
    lines = numbered(event.text)
    if not path or not lines:
        return None
    whole = event.extras.get("whole") is True
    return Observation(event.line, path, view.own(path), SeenLines(lines, whole))


def observed_after(view: SessionView, path: str, line: int) -> Observation | None:
    """The latest observation of ``path`` (absolute) recorded after transcript ``line``."""
    later = [seen for seen in observations(view).get(path, ()) if seen.line > line]
    return later[-1] if later else None


def with_observed(view: SessionView, written: Mapping[str, str],
                  changed_at: Mapping[str, Sequence[int]]) -> dict[str, str]:
    """``written`` (cited path -> what the session's writes and edits left) with the lines
    observed after the last of them added: what a later shell edit, formatter or generator
    put there is in the file's end state too. A file only observed stays out (module
    docstring)."""
    if not written:
        return dict(written)
    latest: dict[str, Observation] = {}
    # Once, after the rules (no rule may have asked): not remembered for nobody to read.
    known = view.memo.get("observations")
    for seen_of in (known if known is not None else _observations(view)).values():
        for seen in seen_of:
            cited = _bare(seen.cited) if seen.cited else None
            if cited in written and seen.line > max(changed_at.get(cited) or (0,)):
                latest[cited] = seen
    if not latest:
        return dict(written)
    return {path: text + "\n" + latest[path].seen.text() if path in latest else text
            for path, text in written.items()}


def _bare(path: str) -> str:
    return path[2:] if path.startswith("./") else path
