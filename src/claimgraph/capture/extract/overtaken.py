"""A user's stance that later words of the same session overtook: a rename, an approved design
stating the choice otherwise, a narrower word of the same person.

``revised`` drops a user's request the same person later turned around in a request that is
kept itself. Three ways a stance goes stale escape it, since the later word is not a kept
request of the same shape:

- **a rename.** The person asks to rename a thing ("rename `X` to `Y`", or "rename to Y"
  right after the agent compared `Y` with `X`), and the session carries it out (a command
  that worked, or a write or edit, names `Y` afterwards). A stance that names `X` says yes to
  a name that no longer exists: ``X`` is rewritten to ``Y`` when both are whole names of one
  shape (`index.jsonl` -> `run_manifest.jsonl`) and the stance names `X` only where it says
  yes to it; any other stance naming `X` is dropped.
- **an approved design that states the choice otherwise.** A stance that says no to a thing
  ("no separate Results tab") is overtaken when a design the person approved later (a plan
  approved through the harness, the agent's message they answered with a yes, or a file the
  session wrote that the agent put to them and they said yes to) holds a passage that names
  at least two of the stance's own named things and says yes to that very thing (its words,
  none of them under a "no" or "removed"): "Three tabs: `Wallet files` · `Mnemonic` ·
  `Results`".
- **a narrower word of the same person.** A stance that shows or renders some things is
  overtaken when the person later limits that act to a list that leaves some of them out
  ("do not render anything that is not a text response or a tool call"; "show only …"): the
  two share a thing of two words ("tool call"), and the stance shows a thing of its own the
  list does not hold.

Precision first: each test wants a named or two-word thing in common, and anything unsure
keeps the stance. Nothing new is stored here. Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Callable, Mapping, Sequence

from claimgraph.capture.extract.actions import of_kind
from claimgraph.capture.extract.session import SessionView, taught_at, transcript_evidence
from claimgraph.capture.extract.tools import PLAN
from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.query_words import STOPWORDS

Candidate = dict[str, Any]

#: Stances a later word can overtake (lessons and runners are about what happened).
STANCES = frozenset({"x/convention", "x/decided", "core/prefers", "core/decided-against"})
#: A name as written: a code span, a quoted word, or an identifier-shaped token (one with a
#: "_", ".", "-" or "/" inside, or camelCase: a plain word such as "function" is no name).
_NAME = (r"(?:`(?P<{0}1>[^`\n]{{2,80}})`|[\"'\u2018\u201c](?P<{0}2>[\w.\-/]{{2,60}})"
         r"[\"'\u2019\u201d]|(?P<{0}3>[A-Za-z_]\w*(?:[._\-/]\w+)+|(?-i:[a-z]+[A-Z]\w*)))")
#: The person asking to rename a thing: "rename `X` to `Y`", "rename the X skill to be Y",
#: "rename it to Y", "let's rename to Y".
_RENAME = lazy_regex(r"\brename\s+(?:(?:it|this|that|them)\s+|(?:the\s+)?" + _NAME.format("old")
                     + r"(?:\s+[a-z]+)?\s+)?(?:to(?:\s+be)?|as|into)\s+" + _NAME.format("new"),
                     re.IGNORECASE)
_CODE_SPAN = lazy_regex(r"`([^`\n]{2,80})`")
_SENTENCE = lazy_regex(r"(?<=[.!?;])\s+|\n+")
#: Words that say no to the words right after them (a stance's "no X", a passage's).
_NO = lazy_regex(r"\b(?:no|not|never|without|don'?t|do not|avoid|instead of|rather than|"
                 r"removed?|dropped?|deleted?)\b", re.IGNORECASE)
#: Words before a name in which a "no" says no to it ("not one shared `X`").
_NO_REACH = 4
#: Words right after a thing that say it went ("the Results tab is removed").
_GONE_AFTER = lazy_regex(r"^\W*(?:\w+\W+){0,2}?(?:is|are|was|were|gets?|got)?\s*(?:removed|"
                         r"dropped|deleted|gone|retired|merged into)\b", re.IGNORECASE)
#: A stance saying no to a thing: "no separate Results tab", "without a sidebar nav".
_SAYS_NO = lazy_regex(r"\b(?:no|without|never)\s+(?P<what>(?:[\w'-]+\s+){0,3}?[\w'-]+)"
                      r"(?=\s*(?:[.,;:!?()\u2014\u2013]|\s-\s|$))", re.IGNORECASE)
#: Words that describe a thing said no to without naming it ("no separate X", "no extra X").
_MODIFIERS = frozenset("separate extra additional new own dedicated single other more any "
                       "the a an".split())
#: A reply that approves what was put to the person.
_ASSENT = lazy_regex(r"^\W*(?:yes|yep|yeah|yup|ok(?:ay)?|sure|lgtm|approved?|agreed|perfect|"
                     r"great|looks? (?:good|great|fine|right)|sounds? (?:good|great|right)|"
                     r"go ahead|ship it|do it|implement (?:it|this|the plan|the design)|"
                     r"proceed)\b", re.IGNORECASE)
#: How the harness reports a plan the person approved.
_PLAN_APPROVED = ("User has approved", "User approved")
#: The verbs of showing a thing (what a display stance and its narrowing talk about).
_SHOW = r"(?:render|show|display|list|include|print)"
#: The person limiting what is shown: "do not show any entry that is not A or B",
#: "show only A and B", "only render A".
_ONLY = lazy_regex(
    r"\b(?:(?:do not|don'?t|never)\s+" + _SHOW + r"\s+(?:any(?:thing)?\s+)?(?:[\w-]+\s+)?"
    r"(?:that|which)\s+(?:(?:is|are)\s+not|isn'?t|aren'?t)\s+|"
    + _SHOW + r"\s+only\s+|only\s+" + _SHOW + r"\s+)(?P<allowed>[^.;:!?\n]{3,160})",
    re.IGNORECASE)
#: What a display stance shows: the words after its verb, up to how or where it shows them.
_SHOWS = lazy_regex(r"\b" + _SHOW + r"s?\s+(?P<what>[^.;:!?\n]{3,120}?)(?=\s+(?:as|in|within|"
                    r"inside|under|below|above|with|prominently|inline|on|at)\b|[.;:!?\n]|$)",
                    re.IGNORECASE)
_WORD = lazy_regex(r"[a-z][a-z'-]+")
#: Words too general to be a thing shown.
_GENERAL = frozenset("content contents thing things stuff item items one ones any all each "
                     "every only just also compact".split())


def overtaken(kept: Sequence[Candidate], user_said: Sequence[tuple[int, str]],
              agent_said: Sequence[tuple[int, str]], done: Sequence[tuple[int, str]],
              approved: Sequence[tuple[int, str]]) -> list[Candidate]:
    """``kept`` without the user's stances later words overtook, renamed ones rewritten
    (module docstring). ``approved`` is (line, text) of what the person approved."""
    renames = _renames(user_said, agent_said, done)
    limits = [(at, allowed) for at, text in user_said for allowed in _limits(text)]
    result: list[Candidate] = []
    for found in kept:
        line = taught_at(found)
        if line is None or not _is_stance(found):
            result.append(found)
            continue
        found = _renamed(found, line, renames)
        if found is None or _designed_otherwise(found, line, approved) \
                or _narrowed(found, line, limits):
            continue
        result.append(found)
    return result


def overtake(kept: Sequence[Candidate], later: Any) -> list[Candidate]:
    """``overtaken`` on what ``reconcile.digest`` gathered (its ``Later``)."""
    last_change = {path: max(change.line for change in changes if change.kind != "read")
                   for path, changes in later.files.items()
                   if any(change.kind != "read" for change in changes)}
    written = {path: (last_change[path], text) for path, text in later.record.written.items()
               if path in last_change}
    approved = approved_passages(later.user_said, later.agent_said, later.plans, written)
    return overtaken(kept, later.user_said, later.agent_said, later.done, approved)


def plan_texts(view: SessionView) -> list[tuple[int, str]]:
    """(line, text) of each plan the person approved through the harness (ExitPlanMode)."""
    return [(action.line, action.content) for action in of_kind(view, PLAN)
            if action.result is not None and action.content
            and action.result.text.lstrip().startswith(_PLAN_APPROVED)]


def _is_stance(found: Candidate) -> bool:
    return found.get("source_type") == "user-assertion" and found.get("predicate") in STANCES


# -- renames -----------------------------------------------------------------------------

def _renames(user_said: Sequence[tuple[int, str]], agent_said: Sequence[tuple[int, str]],
             done: Sequence[tuple[int, str]]) -> list[tuple[int, str, str | None]]:
    """(line, old name, new name or None when only its stem is known) of each rename the
    person asked for that the session carried out."""
    found: list[tuple[int, str, str | None]] = []
    for at, text in user_said:
        for match in _RENAME.finditer(text):
            old, new = _group(match, "old"), _group(match, "new")
            if new is None:
                continue
            full: str | None = new
            if old is None:
                old, full = _compared(new, [said for when, said in agent_said if when < at][-1:])
                if old is None:
                    continue
            if old.lower() == new.lower() or not _carried_out(new, at, done):
                continue
            found.append((at, old, full))
    return found


def _group(match: re.Match[str], name: str) -> str | None:
    return next((match[f"{name}{n}"] for n in (1, 2, 3) if match[f"{name}{n}"]), None)


def _compared(new: str, messages: Sequence[str]) -> tuple[str | None, str | None]:
    """The thing a bare "rename to Y" renames: the agent's message just before named `Y`
    (or `Y.ext`) beside exactly one other name of that shape (`Y.ext` beside `X.ext`, in one
    sentence). (None, None) when that is not so."""
    for message in messages:
        for sentence in _SENTENCE.split(message):
            spans = list(dict.fromkeys(_CODE_SPAN.findall(sentence)))
            fulls = [span for span in spans if span == new or span.startswith(new + ".")]
            if len(fulls) != 1:
                continue
            shape = _suffix(fulls[0])
            others = [span for span in spans if span != fulls[0] and _suffix(span) == shape
                      and re.fullmatch(r"[\w.\-/]+", span)]
            if len(others) == 1:
                return others[0], fulls[0]
    return None, None


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[1] if "." in name.strip(".") else ""


def _carried_out(new: str, at: int, done: Sequence[tuple[int, str]]) -> bool:
    """A command that worked, or a write or edit, names the new name after the request."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(new)}(?![\w-])", re.IGNORECASE)
    return any(when > at and pattern.search(text) for when, text in done)


def _renamed(found: Candidate, line: int,
             renames: Sequence[tuple[int, str, str | None]]) -> Candidate | None:
    """The stance with a later rename applied: rewritten when safe, None when it names the old
    name in a way a rewrite cannot carry (under a "no", or the new name's shape unknown)."""
    for at, old, new in renames:
        text = str(found.get("object") or "")
        if at <= line or re.search(r"\brename", text, re.IGNORECASE):
            continue  # said after the rename, or the rename request itself
        places = list(re.finditer(rf"(?<![\w.\-/]){re.escape(old)}(?![\w-]|\.\w)", text))
        if not places:
            continue
        if any(_NO.search(" ".join(text[:place.start()].split()[-_NO_REACH:]))
               for place in places):
            continue  # says no to the old name: still true of it, and no stance of the new
        if new is None or _suffix(new) != _suffix(old):
            return None
        rewritten = text[:places[0].start()]
        for place, after in zip(places, [*places[1:], None]):
            rewritten += new + text[place.end():after.start() if after else len(text)]
        stance = {"stance": str(found["stance"]).replace(old, new)} if found.get("stance") else {}
        return {**found, **stance, "object": rewritten,
                "evidence": [*found.get("evidence", [])[:2],
                             transcript_evidence(at, f"rename {old} to {new}")]}
    return found


# -- a design approved later ---------------------------------------------------------------

def approved_passages(user_said: Sequence[tuple[int, str]],
                      agent_said: Sequence[tuple[int, str]],
                      plans: Sequence[tuple[int, str]],
                      written: Mapping[str, tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, text) of what the person approved: each approved plan, the agent's messages
    since the person last spoke when their next words open with a yes, and a file the
    session wrote whose path the agent's message before that yes names."""
    found = list(plans)
    between = _between(agent_said)
    for index, (at, reply) in enumerate(user_said):
        if not _ASSENT.match(reply):
            continue
        before = user_said[index - 1][0] if index else -1
        messages = between(before, at)
        found += messages
        put = " ".join(text for _, text in messages[-2:])
        found += [(when, text) for path, (when, text) in written.items()
                  if when < at and path.rsplit("/", 1)[-1] in put]
    return found


def _between(said: Sequence[tuple[int, str]]) -> Callable[[int, int], list[tuple[int, str]]]:
    """``(before, at) -> [(when, text) for when, text in said if before < when < at]``, by
    bisection when ``said`` is in line order (as the session's messages are): a scan of every
    agent message for each yes of the person's was quadratic in a long session's length."""
    lines = [when for when, _ in said]
    if any(later < earlier for earlier, later in zip(lines, lines[1:])):
        return lambda before, at: [(when, text) for when, text in said if before < when < at]
    return lambda before, at: list(
        said[bisect.bisect_right(lines, before):bisect.bisect_left(lines, at)])


def _designed_otherwise(found: Candidate, line: int,
                        approved: Sequence[tuple[int, str]]) -> bool:
    """A later approved passage names two of the stance's named things and says yes to a
    thing the stance says no to (module docstring)."""
    text = str(found.get("object") or "")
    refused = _refused(text)
    names = _names(text)
    if not refused or len(names) < 2:
        return False
    for at, said in approved:
        if at <= line:
            continue
        for passage in _passages(said):
            lowered = passage.lower()
            if sum(1 for name in names if _has(lowered, name)) < 2:
                continue
            if any(all(_affirmed(lowered, word) for word in words) for words in refused):
                return True
    return False


def _refused(text: str) -> list[list[str]]:
    """The things a stance says no to, each as its words (two at least, one of them a name
    with a capital or a code span: "no separate Results tab" -> results, tab)."""
    found: list[list[str]] = []
    for match in _SAYS_NO.finditer(text):
        words = [word for word in match["what"].split() if word.lower() not in _MODIFIERS]
        if len(words) >= 2 and any(word[:1].isupper() or word.startswith("`") for word in words):
            found.append([word.strip("`").lower() for word in words])
    return found


def _names(text: str) -> list[str]:
    """The stance's named things: its code spans, lower-cased."""
    return list(dict.fromkeys(span.strip().lower() for span in _CODE_SPAN.findall(text)
                              if len(span.strip()) >= 3))


def _passages(text: str) -> list[str]:
    """Paragraphs of a message or file; a paragraph ending in a colon takes the list after it
    ("Three tabs at top of page:" and its items)."""
    blocks = [block.strip() for block in re.split(r"\n\s*\n", text) if block.strip()]
    joined: list[str] = []
    for block in blocks:
        if joined and joined[-1].rstrip().endswith(":") and re.match(r"^\s*(?:[-*+]|\d+[.)])\s",
                                                                     block):
            joined[-1] += "\n" + block
        else:
            joined.append(block)
    return joined


def _has(lowered: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered) is not None


def _affirmed(lowered: str, word: str) -> bool:
    """``word`` (or its plural) stands in the passage once without a "no" in the three words
    before it or a "removed" right after it."""
    for match in re.finditer(rf"(?<![\w-]){re.escape(word)}s?(?![\w-])", lowered):
        before = " ".join(lowered[:match.start()].split()[-3:])
        if not _NO.search(before) and not _GONE_AFTER.match(lowered[match.end():]):
            return True
    return False


# -- a narrower word of the same person ------------------------------------------------------

def _limits(text: str) -> list[list[str]]:
    """What each "only these" sentence of the person allows, as its content words."""
    found: list[list[str]] = []
    for sentence in _SENTENCE.split(text):
        if sentence.rstrip().endswith("?"):
            continue
        for match in _ONLY.finditer(sentence):
            words = _things(match["allowed"])
            if words:
                found.append(words)
    return found


def _things(text: str) -> list[str]:
    """The content words of a list of things, singular."""
    return [_singular(word) for word in _WORD.findall(text.lower().replace("/", " / "))
            if word not in STOPWORDS and word not in _GENERAL and len(word) >= 3]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 \
        else word


def _pairs(words: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def _narrowed(found: Candidate, line: int, limits: Sequence[tuple[int, list[str]]]) -> bool:
    """The person later limited what is shown to a list sharing a two-word thing with what the
    stance shows, and the stance shows a word of its own the list leaves out."""
    text = str(found.get("stance") or found.get("object") or "")
    shown = [match["what"] for match in _SHOWS.finditer(text)]
    if not shown:
        return False
    for at, allowed in limits:
        if at <= line:
            continue
        for what in shown:
            words = _things(what)
            if _pairs(words) & _pairs(allowed) and set(words) - set(allowed):
                return True
    return False

