"""A Claude Code attachment that records a file's content, as an ``observed`` event's fields.

Kinds seen in real transcripts (``capture/extract/observed.py`` says how they are read):

- ``edited_text_file``: a file the agent had read changed on disk outside its own edit tools;
  ``filename`` and ``snippet``, the new lines numbered ``N\\tline`` around the change, cut
  at a few kilobytes with a "``... [N lines truncated] ...``" line. Partial.
- ``file`` / ``already_read_file``: a file attached to a message; ``content.file`` holds
  ``content``, ``startLine``, ``numLines`` and ``totalLines``. Whole when the lines shown are
  all of them.

Others (``compact_file_reference``: a name only; ``nested_memory``: an instruction file's
text, which instruction rules read elsewhere; hook output, reminders, listings) are not a
file's content as it is on disk, and give nothing here.
"""

from __future__ import annotations

from typing import Any, Mapping

from claimgraph.logic.observed_lines import number

#: ``edited_text_file``'s snippet is numbered already; ``file`` content is numbered here.
_SNIPPET, _ATTACHED = "edited_text_file", frozenset({"file", "already_read_file"})


def observed_file(attachment: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(numbered lines, extras naming the ``path`` and whether they are ``whole``) of an
    attachment that records a file's content, or None."""
    kind = attachment.get("type")
    if kind == _SNIPPET:
        path, snippet = attachment.get("filename"), attachment.get("snippet")
        if isinstance(path, str) and path and isinstance(snippet, str) and snippet.strip():
            return snippet, {"path": path, "whole": False, "attachment": kind}
        return None
    if kind not in _ATTACHED:
        return None
    content = attachment.get("content")
    shown = content.get("file") if isinstance(content, dict) else None
    if not isinstance(shown, dict) or content.get("type") != "text":
        return None
    path = shown.get("filePath") or attachment.get("filename")
    text, first = shown.get("content"), shown.get("startLine")
    if not (isinstance(path, str) and path and isinstance(text, str) and text.strip()):
        return None
    first = first if isinstance(first, int) and first >= 1 else 1
    total, count = shown.get("totalLines"), shown.get("numLines")
    whole = first == 1 and isinstance(total, int) and count == total
    extras = {"path": path, "whole": whole, "attachment": kind}
    return number(text.removesuffix("\n"), first), extras
