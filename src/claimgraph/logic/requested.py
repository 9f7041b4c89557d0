"""A request the session carried out: when the user's ask is the project's decision.

Many product and design decisions are typed as requests ("write a lockfile by default when
running `setup` (with a flag to skip)", "could we make this run only when DEBUG=1 is
set?"), and the sentence model, which reads a sentence alone, rightly calls them a
request for today. What the session did next says more: the agent changed the project's files
to do it, and nothing later undid it. Capture then keeps the user's words as a decision
(``capture/extract/requests.py``; docs/capture.md, "Requests the session carried out"). This
module holds the decisions on plain text and plain facts:

- ``asks_for_a_change``: the sentence's form asks for a change to the project (an imperative,
  a "can we / could you …", "I want to …", a thing that "should …"), not for an act that
  changes nothing the next session reads (running, checking, reviewing, explaining,
  researching, committing, pushing, going on: ``_NO_CHANGE``, measured in docs/capture.md);
- ``specifies_behaviour``: it says how the project behaves from now on (a default, a
  condition, a scope such as "every" or "only", a replacement) rather than one step;
- ``left_to_the_agent``: the user hedged or handed the choice over ("maybe …", "… if needed",
  "an appropriate type", "see if …"): what was done is the agent's pick, not their decision;
- ``one_act``: whatever its form, the sentence asks for one act (a rename or a relabel
  anywhere in it, bringing the docs up to date): the files hold the result afterwards;
- ``asked_and_done`` and ``done_once``: whether a stored fact is such a request, and whether
  it was one act done once (a rename, a removal: shown with its date, never among the
  standing decisions, docs/context.md).

Pure: text and facts in, answers out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from claimgraph.logic.lazy_regex import lazy_regex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The evidence a carried-out request carries besides the user's line: the line of the
#: change that did it, in the transcript citation's shape, with one of these two words.
LASTING, ONCE = "asked and done", "asked and done once"
_MARK = lazy_regex(r"^transcript#L\d+: (?P<mark>asked and done(?: once)?): ")
#: The tier word the context shows for such a fact (``logic.trust_tiers``).
ASKED_DONE = "you asked, done"
MIN_WORDS, MAX_WORDS, MAX_CHARS = 4, 40, 300
#: Fillers a prompt opens with before its verb.
_LEAD = r"^\W*(?:(?:ok(?:ay)?|yes|yeah|so|and|also|then|now|please|pls|just|great|good|" \
        r"alright|beautiful|cool|perfect|lastly|next)[,.!:\s]+)*"
#: "can we …", "could you …": a request asked as a question.
_ASK = lazy_regex(_LEAD + r"(?:can|could|would) (?:we|you)\b", re.IGNORECASE)
#: "I want to …", "I'd like …": a wish that opens the sentence.
_WISH = lazy_regex(_LEAD + r"i(?:'d| would)? (?:like|want|prefer)\b", re.IGNORECASE)
#: Acts that change nothing the next session reads in the project, or whose result is a
#: state of today (a push, a release): what the turn did for them is not a design. A short
#: list of verbs, measured on the open gold sets (docs/capture.md).
_NO_CHANGE = lazy_regex(
    _LEAD + r"(?:(?:can|could|would) (?:we|you)\s+(?:please\s+)?|please\s+|let'?s\s+)?"
    r"(?:run|re-?run|test|check|see|review|investigate|research|explain|look|find|verify|confirm|"
    r"commit|push|merge|spawn|continue|proceed|fix|debug|read|analy[sz]e|tell|describe|"
    r"clone|try|figure|help|go|document|write|pick|resolve|brainstorm|collect|summari[sz]e|"
    r"release|publish|deploy|tag|rebase|squash|revert|undo|rewrite history|install)\b",
    re.IGNORECASE)
#: The verb is pointed at the thing in hand ("wire this into …", "move it to …"): what it
#: names stayed in the conversation.
_POINTED = lazy_regex(_LEAD + r"[a-z]+\s+(?:this|that|it|them|these|those)\b", re.IGNORECASE)
#: A determiner straight before a modal ("The should be derived …"): words were lost.
_GARBLED = lazy_regex(r"^\W*(?:the|a|an)\s+(?:should|must|shall|will|can)\b", re.IGNORECASE)
_URL = lazy_regex(r"https?://|\bwww\.", re.IGNORECASE)
#: How the project behaves from now on: a default, a condition, a scope, a replacement. A
#: quantifier counts only over time or events ("each time", "after every edit"): over the
#: things one step touches ("add tooltips to all fields", "scan every hook") it is that step's
#: reach. A word is whole, not a hyphenated word's part ("read-only" is no "only").
_BEHAVIOUR = lazy_regex(
    r"(?<![\w-])(?:by default|default|when|whenever|if|unless|always|never|only|"
    r"instead|rather than|replac\w+|no longer|just (?:have|do|use|keep)|so that|should|must|"
    r"(?:on|after|before|at|upon|with) (?:every|each)|(?:every|each) time)(?![\w-])",
    re.IGNORECASE)

#: The user hedging or handing the choice to the agent: a guess ("maybe", "may be … should"),
#: a need the agent is to judge ("if needed", "as necessary", "where appropriate"), or a
#: quality it is to pick ("an appropriate type", "a suitable name"). What the agent then did
#: is its own choice, and the user's words decide nothing.
_LEFT_TO_AGENT = lazy_regex(
    r"(?<![\w-])(?:maybe|perhaps|may be\b[^.;!?]*\bshould|"
    r"(?:if|as|when|where|wherever) (?:needed|necessary|required|possible|applicable|"
    r"appropriate|relevant|you see fit|you think)|as you see fit|whatever (?:makes sense|works|"
    r"you think)|appropriate|suitable|proper)(?![\w-])", re.IGNORECASE)
#: One act, wherever it sits in the sentence: a rename ("…, and rename the M42 as Aux") or a
#: label changed to a quoted text ('"Linked" should appear as "Linked docs"'); or, as what the
#: sentence opens with, the docs brought up to date ("update the README to …").
_ONE_ACT = lazy_regex(
    r"(?<![\w-])(?:renam(?:e|es|ed|ing)\b(?:(?!\b(?:and|but|then|so|or)\b)[^.;!?,]){1,80}?"
    r"\b(?:to|as|into)\b|"
    r"(?:appears?|reads?|says?|displays?|shows?|be (?:called|named|labell?ed|titled|shown|"
    r"displayed|written)) as\s+[\"'`\u201c])", re.IGNORECASE)
_DOCS_STEP = lazy_regex(
    _LEAD + r"(?:(?:can|could|would) (?:we|you)\s+(?:please\s+)?)?(?:update|refresh|sync|"
    r"revise|adjust|amend)\s+(?:the\s+|our\s+|all\s+(?:the\s+)?|any\s+)?(?:[\w./-]+\s+){0,2}?"
    r"(?:docs?|documentation|readme(?:\.md)?|changelog(?:\.md)?|guides?|comments?|"
    r"docstrings?)\b", re.IGNORECASE)


#: A name of a thing in the sentence: a code span, a path or a file name, an identifier
#: (``camelCase``, ``PascalCase`` with a capital inside, ``snake_case``, ``kebab-case`` in
#: lower case with a letter after the hyphen, ``dotted.name``). Ordinary words and capitalised
#: words are no names here: "Add a Help page" names nothing the files can be held to.
_NAMES = lazy_regex(
    r"`(?P<span>[^`\n]{2,60})`|"
    r"(?<![\w./-])(?P<word>(?:[\w.-]+/)+[\w.-]+|"
    r"[A-Za-z_][\w-]+(?:\.[A-Za-z_]\w*)+|"
    r"[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|"
    r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)+)(?![\w-])")
#: What gives a new thing its name, straight before the name.
_CALLED = lazy_regex(r"\b(?:called|named|titled)\s+[\"'\u201c]?$", re.IGNORECASE)
#: Files that tell about the project rather than make it: prose, by their kind or folder.
_PROSE_SUFFIX = (".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc", ".org")
_PROSE_NAME = lazy_regex(r"^(?:readme|changelog|changes|history|license|licence|notice|"
                         r"contributing|authors|news)\b", re.IGNORECASE)
_PROSE_FOLDER = frozenset({"docs", "doc", "documentation", "notes", ".learnings"})
#: The fewest characters a name has (``ab`` in a code span is no name to hold files to).
MIN_NAME = 3


def named_things(sentence: str) -> tuple[str, ...]:
    """The names of things the sentence gives (``_NAMES``), in order, as spelled; a span's
    own words are one name. Not the name it gives a thing it asks to make ("add a function
    called `multiply`"): that is the new thing's own name, which its code shows."""
    found = []
    for match in _NAMES.finditer(sentence):
        name = (match["span"] or match["word"]).strip().strip(".,;:")
        if _CALLED.search(sentence, 0, match.start()):
            continue
        if len(name) >= MIN_NAME and name not in found:
            found.append(name)
    return tuple(found)


#: A request whose verb makes a new thing ("add an `x.py` module with …", "create a script
#: named …", "can we add a feature to …"), after the usual openings of a request.
_CREATES = lazy_regex(
    _LEAD + r"(?:(?:can|could|would|will) (?:you|we) (?:please )?|let'?s |"
    r"i(?:'d| would) like (?:you |us )?to |i want (?:you |us )?to |we need to |"
    r"(?:you |we )?(?:should|must) )?"
    r"(?:add|create|write|build|make|implement|scaffold|generate|introduce|set up)\b",
    re.IGNORECASE)


def creates_a_thing(sentence: str) -> bool:
    """The request asks for something new to be made: what it names is the new thing, which
    its own code shows from then on. Carried out, it is one act of making, not how the project
    behaves from then on (a request that says how, "… by default", is judged by that word)."""
    return bool(_CREATES.match(sentence))


def prose_path(path: str) -> bool:
    """A file that tells about the project (docs, a README, a changelog, notes), not one
    that makes it: a request carried out only there changed how it is described."""
    parts = path.lower().split("/")
    name = parts[-1]
    return (name.endswith(_PROSE_SUFFIX) or bool(_PROSE_NAME.match(name))
            or any(part in _PROSE_FOLDER for part in parts[:-1]))


def left_to_the_agent(sentence: str) -> bool:
    """The user hedged or handed the choice over (``_LEFT_TO_AGENT``): no decision of theirs."""
    return bool(_LEFT_TO_AGENT.search(sentence))


def one_act(sentence: str) -> bool:
    """A rename, a relabel or a docs update: one act, true of the day it was done."""
    return bool(_ONE_ACT.search(sentence) or _DOCS_STEP.match(sentence))


def asks_for_a_change(sentence: str, cues: frozenset[str] | set[str]) -> bool:
    """The sentence's form asks for a change to the project (module docstring). ``cues``:
    the sentence model's named cues for it (``capture.classify.features.cue_names``)."""
    words = sentence.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or len(sentence) > MAX_CHARS:
        return False
    if _URL.search(sentence) or _GARBLED.match(sentence) or _POINTED.match(sentence):
        return False
    asked = bool(_ASK.match(sentence))
    if ("?" in sentence or "starts_question_word" in cues) and not asked:
        return False
    if _NO_CHANGE.match(sentence):
        return False
    return asked or bool(_WISH.match(sentence)) or bool(
        {"imperative", "declarative_modal"} & set(cues)) and "imp_deictic" not in cues


def specifies_behaviour(sentence: str) -> bool:
    """It says how the project behaves from now on, not only one step."""
    return bool(_BEHAVIOUR.search(sentence))


def mark(fact: Mapping[str, Any]) -> str | None:
    """``LASTING`` or ``ONCE`` when the fact is a request the session carried out."""
    for evidence in fact.get("evidence") or ():
        found = _MARK.match(evidence) if isinstance(evidence, str) else None
        if found:
            return found["mark"]
    return None


def asked_and_done(fact: Mapping[str, Any]) -> bool:
    return mark(fact) is not None


def done_once(fact: Mapping[str, Any]) -> bool:
    """One act done once (a rename, a removal): true of the day it was done, not a rule."""
    return mark(fact) == ONCE
