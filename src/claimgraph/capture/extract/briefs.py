"""Where a brief says its sentences are rules: context the sentence model never sees.

The sentence model reads one sentence at a time. A person's brief often mixes today's task with
the project's standing rules, and says which is which by its structure, not by each sentence's
wording (docs/capture.md, "Rules inside a brief"). Two structures are read:

- the arguments of a **command that writes the project's rules** (spec-kit's
  ``/speckit.constitution``, ``$speckit-constitution``, a ``/rules`` or ``/conventions``
  command): the person is stating the project's principles (``rules_command``);
- a **block under a label that says it holds rules** ("Important constraints:", "### Principes
  de code", "## Behavior"), whose lines are the brief's standing rules only when the line reads
  as one (``rule_lines``). A label naming the project's principles, conventions or guidelines
  says so of every line under it; a label naming rules, constraints or behaviour says only
  that some lines are rules: in the typed prompts of the shared corpus such lists also hold one
  task's constraints ("Keep costs minimal", "Naming: x-staging"), so a line there must itself
  state a rule (never, always, must, do not, an order under a condition). A brief that shows the
  reply it wants filled in (a bracketed placeholder: "**Summary:** [1-2 sentences …]") gives
  rules of that reply ("NEVER start with conversational words"), not of the project: nothing of
  it is read.

Pure: text in, lines or a yes or no out.
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


#: A label line: a markdown heading, a line that is only bold, or a short line ending with a
#: colon; its words are ``label``.
_LABEL = lazy_regex(r"^\s*(?:#{1,6}\s+(?P<heading>[^\n]+?)\s*#*|\*\*(?P<bold>[^*\n]{2,60})\*\*"
                    r"\s*:?|(?P<lead>[^\s#*>|`-][^:\n]{0,60}?)\s*:)\s*$")
#: What a label names when it holds the project's standing rules by its very name: its
#: principles, conventions, guidelines (English, French, Italian, German, Spanish forms).
_STANDING_NAME = (r"principles?|principes?|principi|prinzipien|principios|conventions?|"
                  r"convenzioni|konventionen|convenciones|guidelines?|richtlinien|"
                  r"linee guida|lignes directrices")
#: What a label names when only some of its lines are rules: rules, constraints, behaviour.
_SOME_RULES_NAME = (r"rules?|r[eè]gles?|regole|regeln|reglas|constraints?|contraintes?|vincoli|"
                    r"restricciones|einschr[äa]nkungen|behaviou?r|comportement|comportamento|"
                    r"verhalten|comportamiento")
#: The words a label may hold besides what it names: how binding or whose the rules are
#: ("Important constraints", "Principes de code", "Our coding conventions"); any other word
#: names what the rules are about ("Alert rules", "Firewall rules": the product's rules).
_QUALIFIER = (r"important|importants|importantes|importanti|wichtige|key|hard|strict|general|"
              r"ground|core|basic|working|work|code|coding|codage|développement|sviluppo|"
              r"development|dev|project|projet|progetto|repo|repository|our|my|the|nos|mes|les|"
              r"de|du|di|del|della|des|expected|attendu|attendus|attesi|and|et|e|y|und|&")
_STANDING_LABEL = lazy_regex(rf"^(?:(?:{_QUALIFIER})\s+)*(?:{_STANDING_NAME})"
                             rf"(?:\s+(?:{_QUALIFIER}))*$", re.IGNORECASE)
_SOME_RULES_LABEL = lazy_regex(rf"^(?:(?:{_QUALIFIER})\s+)*(?:{_SOME_RULES_NAME})"
                               rf"(?:\s+(?:{_QUALIFIER}))*$", re.IGNORECASE)
#: A line that states a rule by its own words: a negative order, "always", "must", in the
#: languages the labels are read in.
_RULE_WORD = lazy_regex(
    r"\b(?:do not|don'?t|never|always|must|shall|mustn'?t|jamais|toujours|doit|doivent|"
    r"il faut|ne\s+\S+\s+pas|n'\S+\s+pas|mai|sempre|deve|devono|non\s+\S+|niemals|nie|"
    r"immer|muss|müssen|nicht|nunca|siempre|debe|no\s+\S+)\b", re.IGNORECASE)
#: An order under a condition ("If a test is changed, record why in X"): a standing rule's
#: shape, a condition, a comma, then what to do.
_CONDITIONAL = lazy_regex(r"^(?:if|when|whenever|before|after|si|quand|lorsque|avant de|se|"
                          r"quando|prima di|wenn|bevor|cuando|antes de)\b[^,;:]{3,},\s*\w+",
                          re.IGNORECASE)
_ITEM_MARK = lazy_regex(r"^\s*(?:[-*•+]|\d+[.)])\s+")
_FENCED = lazy_regex(r"^\s*(?:```|~~~).*?^\s*(?:```|~~~)[^\n]*$", re.DOTALL | re.MULTILINE)
#: A placeholder of a reply to fill in ("[1-2 sentences describing the outcome]"), not a link
#: ("[guide](guide.md)") nor a checkbox.
_PLACEHOLDER = lazy_regex(r"\[[^\]\n]*\w\s+\w[^\]\n]*\](?!\()")
_BOLD = lazy_regex(r"\*\*|__")
#: A label's line count bounds: a rule is one line of a list.
_MAX_LABEL_WORDS = 5


def rule_lines(text: str) -> list[tuple[str, bool]]:
    """The lines of ``text`` under a label that says it holds rules (see the module's doc),
    each with whether the label names standing rules by itself (principles, conventions,
    guidelines: True) or only some of its lines are (rules, constraints, behaviour: False,
    the caller keeps a line only when ``states_a_rule``). A block runs from its label to the
    next label, heading or paragraph that is not a list item; its list items are its lines,
    without their marks and bold. Nothing for a brief that shows the reply it wants filled in."""
    text = _FENCED.sub("", text)
    if _PLACEHOLDER.search(text):
        return []
    found: list[tuple[str, bool, bool]] = []  # line, standing label, still open
    standing: bool | None = None
    for line in text.splitlines():
        label = _LABEL.match(line) if not _ITEM_MARK.match(line) else None
        if label is not None or not line.strip():
            if found:
                found[-1] = (found[-1][0], found[-1][1], False)  # a label or a blank ends it
            if label is not None:
                standing = _label_kind(label)
            continue
        if standing is not None and found and found[-1][2] and line[:1].isspace() \
                and not _ITEM_MARK.match(line):
            last, kind, _ = found[-1]  # an item wrapped onto an indented line
            found[-1] = (f"{last} {_BOLD.sub('', line).strip()}", kind, True)
            continue
        if standing is None or not _ITEM_MARK.match(line):
            standing = None
            continue
        found.append((_BOLD.sub("", _ITEM_MARK.sub("", line)).strip(), standing, True))
    return [(line, kind) for line, kind, _ in found]


def _label_kind(label: re.Match[str]) -> bool | None:
    """True for a label naming standing rules, False for one naming rules some lines of which
    are, None for any other label."""
    words = " ".join(_BOLD.sub("", next(g for g in label.groups() if g)).split()).rstrip(":")
    if len(words.split()) > _MAX_LABEL_WORDS:
        return None
    if _STANDING_LABEL.match(words):
        return True
    return False if _SOME_RULES_LABEL.match(words) else None


def states_a_rule(sentence: str) -> bool:
    """A line that states a rule by its own words (``_RULE_WORD``), or an order under a
    condition (``_CONDITIONAL``); not a question."""
    return "?" not in sentence and bool(_RULE_WORD.search(sentence)
                                        or _CONDITIONAL.match(sentence))
