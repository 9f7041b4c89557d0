"""Where a brief says its sentences are rules: context the sentence model never sees.

The sentence model reads one sentence at a time. A person's brief often mixes today's task with
the project's standing rules, and says which is which by its structure, not by each sentence's
wording (docs/capture.md, "Rules inside a brief"). One structure is read: the arguments of a
**command that writes the project's rules** (spec-kit's ``/speckit.constitution``,
``$speckit-constitution``, a ``/rules`` or ``/conventions`` command): the person is stating the
project's principles.

A list under a label naming rules ("Rules:", "Constraints:") was read too, and left out: in the
corpus's typed prompts the one such list of many items was the format of the reply being asked
for ("NEVER start with conversational words …"), and the others were one task's constraints.
Pure: text in, a yes or no out.
"""

from __future__ import annotations

import re
from claimgraph.logic.lazy_regex import lazy_regex

#: A command that writes the project's rules, at the start of the typed text or as Claude
#: Code's ``<command-name>``.
_RULES_COMMAND = lazy_regex(
    r"(?:^\s*|<command-name>\s*)[/$][\w.:-]*?(?:constitution|conventions|rules|guidelines|"
    r"principles)\b", re.IGNORECASE)


def rules_command(text: str) -> bool:
    """The text is the arguments of a command that writes the project's rules."""
    return bool(_RULES_COMMAND.search(text[:300]))
