"""Whether a sentence the person typed was a request the session then carried out on a file.

"We can drop notes.md and its hook" reads like a decision, and the sentence model may keep
it. What happened next says what it was: the agent deleted ``notes.md`` in the turn that
followed, so the sentence asked for today's change, and the change is done. Remembered as a
standing decision it would tell the next session of a file that is already gone. What the
session then did, not the words, decides: only a file the sentence names by its file name
(``notes.md``, ``notes/old.md``) and that the turn right after deleted counts. A file the turn
created is left alone (a decision to build something is often carried out at once, and is
still the decision). Pure: the caller gives the names of the files the turn deleted.
"""

from __future__ import annotations

import re

#: A file named in prose: a word with a file extension, or a path (``notes/old.md``).
_FILE_NAME = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][\w]{0,7})(?![\w/-])")


def names_a_removed_file(sentence: str, removed: set[str] | frozenset[str]) -> bool:
    """True when ``sentence`` names, by its file name, a file in ``removed`` (base names of
    the files deleted in the turn after it)."""
    if not removed:
        return False
    return any(name.rstrip(".").rsplit("/", 1)[-1] in removed
               for name in _FILE_NAME.findall(sentence.replace("`", " ")))
