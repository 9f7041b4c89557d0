"""Where a brief says its sentences are rules: context the sentence model never sees.

The sentence model reads one sentence at a time. A person's brief often mixes today's task with
the project's standing rules, and says which is which by its structure, not by each sentence's
wording (docs/capture.md, "Rules inside a brief"):

- a **list under a label that names rules** ("Important constraints:", "## Conventions",
  "Règles :", "Regole:"): each item is a rule, however plainly it is worded ("Treat the
  worktree as dirty user state");
- the arguments of a **command that writes the project's rules** (spec-kit's
  ``/speckit.constitution``, ``$speckit-constitution``, a ``/rules`` or ``/conventions``
  command): the person is stating the project's principles.

A heading that names requirements, a spec or a plan is not one of these: its items describe the
feature being built today. Pure: text in, the rule items out.
"""

from __future__ import annotations

import re

#: Words that name rules, in a few languages. Not "requirements": a feature's requirements
#: are today's deliverable.
_RULE_NOUNS = (r"(?:rules?|constraints?|conventions?|guidelines?|principles?|ground rules|"
               r"house rules|règles?|contraintes?|principes?|regole|vincoli|convenzioni|principi|"
               r"regeln|vorgaben|konventionen|richtlinien|reglas|restricciones|convenciones|"
               r"规则|约束|规范|原则)")
#: A label line: a markdown heading, or a short line ending in a colon, whose words name rules
#: ("Important constraints:", "## Coding conventions", "**Rules:**").
_LABEL = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*|__)?(?:[^\W\d_][\w'’-]*\s+){0,2}" + _RULE_NOUNS
    + r"(?:\s+[^\W\d_][\w'’-]*){0,2}\s*(?:\*\*|__)?\s*(?P<colon>[:：])?\s*(?:\*\*|__)?\s*$",
    re.IGNORECASE)
_ITEM = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+(?P<text>\S.*)$")
#: A command that writes the project's rules, at the start of the typed text or as Claude
#: Code's ``<command-name>``.
_RULES_COMMAND = re.compile(
    r"(?:^\s*|<command-name>\s*)[/$][\w.:-]*?(?:constitution|conventions|rules|guidelines|"
    r"principles)\b", re.IGNORECASE)


def rule_items(text: str) -> list[str]:
    """The items of every list that a label naming rules introduces: the lines right after
    the label that are list items (a blank line between items is allowed; any other line
    ends the list)."""
    found: list[str] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        label = _LABEL.match(line)
        if not label or not (label["colon"] or line.lstrip().startswith("#")):
            continue
        for following in lines[index + 1:]:
            item = _ITEM.match(following)
            if item:
                found.append(item["text"].strip())
            elif following.strip():
                break
    return found


def rules_command(text: str) -> bool:
    """The text is the arguments of a command that writes the project's rules."""
    return bool(_RULES_COMMAND.search(text[:300]))
