"""A whole file the person attached to their message: a read the agent never made.

When the person names a file with ``@`` in a prompt (``see @scripts/release.sh``), Claude Code
attaches the file's content to that prompt (a ``file`` attachment; ``already_read_file`` when
the agent had read it before), and the agent never calls a read tool for it. Every rule that
learns from the files a session saw (instruction files, manifests, task runners, CI
workflows: ``reads.surviving_looks``) would miss it. Here such an attachment becomes a look
like a read, at the attachment's transcript line, so those rules see the file as it was when
the person attached it.

Only the person's own attachment counts, and only a whole one:

- The harness also re-attaches files the agent had recently read right after a ``/compact``
  (same record shape). Those are the agent's earlier reads replayed, not something new the
  person pointed at. They are told apart by position: the person's attachment directly
  follows the prompt that names the file with ``@`` (nothing but other attachments between);
  a re-attachment follows a compaction summary or the ``/compact`` command's output.
- A partial attachment (the harness cut a long file: not all of ``totalLines`` from line 1) is
  not the file: a rule would read a part as the whole (a task runner's missing targets, a
  manifest's missing dependencies).

A ``edited_text_file`` snippet (a change on disk the harness noticed) is never a read either:
``observed.py`` holds it against what the session saw before.

A fact a rule read from such a look cites the file like any other; ``attached_evidence.py``
adds the attachment to its provenance.
"""

from __future__ import annotations

import posixpath
import re

from claimgraph.capture.events import Event
from claimgraph.capture.extract.observed import OBSERVED
from claimgraph.capture.extract.session import SessionView

#: Attachment kinds that carry a file the person named (``harness_files.py``).
PERSON_ATTACHES = frozenset({"file", "already_read_file"})


def attached_files(view: SessionView) -> list[Event]:
    """The main session's ``observed`` events that are a whole file the person attached to
    the prompt just before them, in order (once per view)."""
    return view.remembered("attached_files", _attached_files)


def _attached_files(view: SessionView) -> list[Event]:
    found: list[Event] = []
    prompt: Event | None = None  # the prompt the attachments since it belong to, if any
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue  # a subagent's file lines are its own; the person attaches to the main
        if event.kind != OBSERVED:
            prompt = event if event.kind == "prompt" and not event.derived else None
            continue
        if prompt is not None and _whole_attachment(event) and _named(view, prompt, event):
            found.append(event)
    return found


def _whole_attachment(event: Event) -> bool:
    return event.extras.get("attachment") in PERSON_ATTACHES and event.extras.get("whole") is True


def _named(view: SessionView, prompt: Event, event: Event) -> bool:
    """The prompt names the attached file with ``@`` (as typed: relative to where the
    session ran or to the project root, or absolute; quoted when it holds a space)."""
    named = event.extras.get("path")
    path = view.resolve(named, event.cwd) if isinstance(named, str) else None
    if not path or "@" not in prompt.text:
        return False
    forms = {path, view.relative(path)}
    for base in (event.cwd, prompt.cwd):
        if base:
            forms.add(posixpath.relpath(path, base.replace("\\", "/")))
    return any(_mentioned(prompt.text, form) for form in forms
               if form and not form.startswith("../") and form != ".")


def _mentioned(text: str, form: str) -> bool:
    quoted = re.escape(form)
    return re.search(rf'@(?:"{quoted}"|{quoted}(?![\w/\\-]|\.\w))', text) is not None

