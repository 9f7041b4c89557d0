"""A choice the user made among options the agent laid out in its own message.

People decide in the conversation itself: the agent writes "Two options: 1. … 2. … Which do
you want?" and the person answers "B", "2", "the first one", "local hook is fine". The
decision is then in the agent's words (the option's text) and the person's few words say
which; neither alone is the fact. This module pairs them by the session's structure, not by
phrases, so it reads every language the same way:

- **the offer**: the agent's last message before the person's reply lists two to five
  labelled options (``1.`` ``2.``, ``A.`` ``B.``, ``Option A:``, ``**B. …**``, one run of
  consecutive labels) and asks a question after the list begins, or leads into the list with
  one ("How should the retries be structured?" and then the list). A message with both a
  numbered and a lettered run (a numbered plan whose step 3 offers "Option A" and "Option
  B") offers the run whose kind the reply names ("option a": the letters);
- **the pick**: the reply is short (``MAX_REPLY_WORDS``), asks nothing back, hedges nothing
  (a tiny multilingual list of negations, "maybe" and "but" inside the pick: a partial
  approval whose kept part cannot be told is not stored), and names exactly one option: by
  its label ("B", "option 2", "2."), by a position ("the second one"), or, in a very short
  reply, by words that only that option's text holds, said with a yes ("local hook is fine"
  when only option 1 says "local"; a tiny multilingual list of approval words);
- **the terms**: a pick may end in a "but" clause that sets terms on it ("yes, option a, but
  make sure the CI job gets it too"): the pick before the "but" is read as
  above, and the clause is part of the decision, stored after the option. A clause that
  takes the pick back or turns to another way ("but actually …", "but not that one", "but
  rather B") or that is more than one sentence stores nothing;
- **what is kept**: the picked option's whole text up to the next option (its title, its
  sentences, the lines and bullets under it, never the agent's words after the list;
  ``MAX_OPTION_CHARS`` at most, cut at a word and never inside a code span), in the project's
  scope, in
  the user's name but at the approved-plan tier (``answers.approved``): the person approved
  it, the agent worded it; the evidence cites both lines.

Precision first. Most short approvals approve a one-off action ("Want me to commit?" "yes",
"yes to all" to a list of next steps): a bare "yes" is never read here, since a single
proposal cannot be told from a task step by its form; nor are several picks ("1 and 3", "both").
A list led in as the agent's own next steps ("Do you want me to: 1. … 2. …") is a menu, not
a choice. An option that is a step of the task in hand (it opens with a verb such as commit,
run, push, revert, or the standing checks say it is for today), a question about how to
proceed, and an options list longer than ``MAX_OPTIONS`` (a plan's steps, not a choice)
store nothing. A choice
the person takes back in their very next message ("no wait", "actually …": ``exchanges``) is not
stored;
nor is one that ``pick_scope`` finds settles only today's turn or is overridden by a later
prompt (the tests of a structured answer but the one of the later work: ``standing``);
``reconcile`` holds the rest against how the session ended. Events in, candidates out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.extract.afterwards import prompts_after
from claimgraph.capture.extract.exchanges import (
    MAX_REPLY_WORDS, Exchange, approved_decision, led_in_as_steps, offers_and_replies,
    step_of_today)
from claimgraph.capture.extract.pick_scope import interrogative, verdict
from claimgraph.capture.extract.session import SessionView, short_quote
from claimgraph.capture.extract.standing import process_question
from claimgraph.capture.extract.prose import sentences

#: A reply that picks by the option's own words is shorter still: more words say more than a pick.
MAX_CONTENT_REPLY_WORDS = 6
MIN_OPTIONS, MAX_OPTIONS = 2, 5
MAX_DECISION_CHARS = 320
#: The most of an option's whole text a decision keeps (a long option is cut at a word).
MAX_OPTION_CHARS = 600
#: Words naming an option before its label ("Option B", "Opzione 2", "Variante A").
OPTION_WORD = (r"(?:option|approach|choice|variant|alternative|plan|opzione|variante|scelta|"
                r"opci[oó]n|choix|möglichkeit)")
_LABEL = lazy_regex(
    r"^[ \t]*(?:[-*][ \t]+)?(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*(?:" + OPTION_WORD + r"[ \t]+)?"
    r"(?P<label>\d|[A-E])(?:\*\*|__)?(?:[.):]|[ \t]+[—–-][ \t])[ \t]*(?P<rest>\S.*)$",
    re.IGNORECASE | re.MULTILINE)
WORD = lazy_regex(r"[^\W_]+(?:['’][^\W_]+)?")
#: Hedges and negations: a reply holding one approves only a part, or nothing (kept tiny and
#: multilingual on purpose: the reply is short, so a few words cover it).
HEDGE = frozenset("not no don't dont never but instead rather neither none without except "
                   "maybe perhaps probably possibly "
                   "non nicht kein keine nein pas ni mais aber ma però pero sin ohne sans senza "
                   "invece plutôt eher".split())
#: A pick and the terms the person set on it ("yes, option a, but make sure the CI job gets
#: it too"): the pick before the first "but", the terms after it.
_TERMS = lazy_regex(r"^(?P<head>.+?)[\s,;:.—–-]+but\s+(?P<terms>\S.*)$", re.IGNORECASE | re.DOTALL)
#: Terms that take the pick back or turn to another way ("but actually …", "but not that").
_TURNS_AWAY = lazy_regex(r"^(?:not|no|don'?t|do not|never|instead|rather|actually|wait|hold on|"
                         r"on second thought|then again|let'?s not|maybe|perhaps|i'?m not sure|"
                         r"first|before|only if|if|unless|let me think|i'?ll think)\b",
                         re.IGNORECASE)
MAX_TERMS_WORDS = 40
#: Positions said in words ("the second one", "la prima"): word -> option index (0-based).
_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1,
             "premier": 0, "première": 0, "deuxième": 1, "primo": 0, "prima": 0,
             "secondo": 1, "seconda": 1, "erste": 0, "ersten": 0, "zweite": 1, "zweiten": 1}
#: How a person says yes, in a few languages (kept tiny): a pick by the option's own words
#: needs one, so that a request that happens to share a word ("run the tests") is no pick.
YES = frozenset("ok okay fine good great yes yeah yep sure agreed perfect sounds works "
                 "oui parfait bien d'accord sì si bene perfetto va ja gut passt genau vale "
                 "claro bueno 好 可以 行".split())
_MARKUP = lazy_regex(r"[*_`#>]+")
#: Words too common to tell one option from another.
_COMMON = frozenset("the a an and or of to in on for with is are be it this that one fine "
                    "good okay sounds let's lets go use keep make just yes yeah please".split())


@dataclass(frozen=True)
class Option:
    """An offered option: ``text`` (its title and first sentence) is what a pick is judged
    by; ``whole`` (everything it says, up to the next option) is what a decision stores."""

    label: str
    text: str
    whole: str = ""


#: What the agent's closing question adds to a picked option (``proposals.option_detail``):
#: given the session, the exchange and the option, the words to add, or "".
Detail = Callable[[SessionView, Exchange, Option], str]


def approval_candidates(view: SessionView,
                        detail: Detail | None = None) -> Iterator[dict[str, Any]]:
    """The options the person picked, one candidate each (module docstring); ``detail`` may
    add the change the agent's closing question proposed for the option picked."""
    if not view.project:
        return
    for exchange in offers_and_replies(view):
        offer, reply, said = exchange
        found = pick_with_terms(offer.text, said)
        if found is None:
            continue
        picked, terms = found
        if standing(view, offer, reply, picked, options(offer.text, _label_kind(
                WORD.findall(said)))):
            extra = detail(view, exchange, picked) if detail and not terms else ""
            yield _candidate(view, exchange, picked, extra, terms)


def standing(view: SessionView, offer: Event, reply: Event, picked: Option,
             offered: list[Option] | None = None) -> bool:
    """The pick settles the project, not today's turn (``pick_scope``): the offer's question
    is not about the turn in hand, the option is no one's step, and no later prompt asks for
    another option. The later work is not asked to carry it: options in prose are titles and
    sentences, seldom naming an artefact, and a reply reaches this point only past the checks
    of the module docstring (on the gold sets every such pick was a project decision).
    ``offered``: the options the pick was read among (by default the message's only run)."""
    offered = options(offer.text) if offered is None else offered
    question = {"question": question_of(offer.text), "options": [_titled(o) for o in offered]}
    return verdict(question, [_titled(picked)["label"]], [], prompts_after(view, reply.line),
                   acted_on=False).keep


#: A label before a question on its line ("Also, my first question: How …?"): it
#: names the question, it asks nothing.
_QUESTION_LABEL = lazy_regex(r"^[^?:]{0,60}:\s+(?=\S[^:]*\?)")


def question_of(message: str) -> str:
    """The question the options answer: the last line of ``message`` that asks one, read as
    ``interrogative`` reads it, without a label before it. A line of its own, since a list's
    lines carry no full stop and would run into it."""
    asking = [line for line in message.splitlines() if "?" in line][-1:]
    line = _MARKUP.sub("", asking[0]).strip() if asking else ""
    return interrogative(_QUESTION_LABEL.sub("", line))


def _titled(option: Option) -> dict[str, str]:
    """An option as a labelled one: its title (before a dash or a colon) and the rest."""
    title = re.split(r"\s+[—–]\s+|:\s+", option.text, maxsplit=1)[0]
    return {"label": title, "description": option.text[len(title):].lstrip(" —–:")}


def label_runs(message: str) -> dict[bool, list[list[re.Match[str]]]]:
    """Every run of consecutively labelled lines of ``message``, numbered (``True``: 1, 2, …)
    and lettered (``False``: A, B, …), in order; a run starts at 1 or A."""
    runs: dict[bool, list[list[re.Match[str]]]] = {True: [], False: []}
    for match in _LABEL.finditer(message):
        label = match["label"].upper()
        digits = label.isdigit()
        chain = runs[digits]
        if label == ("1" if digits else "A"):
            chain.append([match])
        elif chain and _next(chain[-1][-1]["label"].upper()) == label:
            chain[-1].append(match)
    return runs


def lettered_options(message: str) -> list[Option]:
    """The last run of options labelled A, B, … of a message, whatever follows it: letters
    label alternatives, where numbers may as well be a plan's steps."""
    run = [run for run in label_runs(message)[False][-1:] if MIN_OPTIONS <= len(run) <= MAX_OPTIONS]
    return _bodies(message, run[0]) if run else []


def options(message: str, numbered: bool | None = None) -> list[Option]:
    """The last run of consecutively labelled options of an agent's message (1, 2, … or A, B,
    …), each its title and first sentence; empty when there are fewer than two or more than
    ``MAX_OPTIONS``, or when the message asks no question after the list begins nor in the
    line that leads into it. ``numbered``: the kind of label the reply names (True: a number,
    False: a letter, None: neither), which tells a numbered run from a lettered one when the
    message has both."""
    runs = label_runs(message)
    best = [run for kind in (True, False) for run in runs[kind][-1:]
            if MIN_OPTIONS <= len(run) <= MAX_OPTIONS and numbered in (None, kind)]
    if len(best) != 1:
        return []  # none, or a numbered and a lettered list both: which one is meant is unsure
    run = best[0]
    if "?" not in message[run[0].start():] and not _asked_into(message, run[0].start()):
        return []
    if led_in_as_steps(message, run[0].start()):
        return []
    return _bodies(message, run)


def _asked_into(message: str, start: int) -> bool:
    """The line that leads into the list (the last one with words before it) asks the
    question the options answer ("**How should the retries be structured?**")."""
    lead = [line for line in message[:start].splitlines() if line.strip()][-1:]
    return bool(lead) and _MARKUP.sub("", lead[0]).strip().endswith("?")


def _bodies(message: str, run: list[re.Match[str]]) -> list[Option]:
    """Each labelled line of ``run`` as an option: its title and first sentence, and its
    whole text."""
    found = []
    for number, match in enumerate(run):
        end = run[number + 1].start() if number + 1 < len(run) else len(message)
        span = message[match.start("rest"):end]
        body = span.split("\n\n", 1)[0]
        found.append(Option(match["label"].upper(), _first_sentence(body), _whole(span)))
    return found


#: A line that goes on an option after a blank line: indented, or a bullet under it.
_GOES_ON = re.compile(r"^(?:[ \t]+\S|[-*+][ \t]+\S)")
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
#: A heading's or a quote's mark at a line's start.
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}|>)[ \t]+")
#: Emphasis: asterisks, and underscores at a word's edge (``snake_case`` keeps its own).
_EMPHASIS = re.compile(r"\*+|(?<!\w)_{1,2}|_{1,2}(?!\w)")


def _whole(span: str) -> str:
    """An option's whole text: its lines up to the next option, or up to the first paragraph
    after a blank line that is no part of it (not indented, no bullet: the agent's own words
    after the list). Bullets under it are joined with "; ", markup goes outside code spans,
    code spans stay as written, whitespace is collapsed, and a long text is cut at a word
    before ``MAX_OPTION_CHARS``, never inside a code span."""
    kept: list[str] = []
    blank = False
    for line in span.splitlines():
        if not line.strip():
            blank = True
            continue
        if blank and kept and not _GOES_ON.match(line):
            break
        blank = False
        bullet = bool(_BULLET.match(line))
        line = _LINE_MARK.sub("", _BULLET.sub("", line)).strip()
        if kept and bullet:
            kept[-1] = kept[-1].rstrip(" ;:.,") + ";"
        kept.append(line)
    text = unmarked(" ".join(kept))
    text = text.strip().rstrip(".;:").strip()
    return bounded(text, MAX_OPTION_CHARS)


def unmarked(text: str) -> str:
    """``text`` without emphasis, its code spans and identifiers (``snake_case``) as written."""
    pieces, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        pieces += [_EMPHASIS.sub("", text[last:span.start()]), span.group()]
        last = span.end()
    pieces.append(_EMPHASIS.sub("", text[last:]))
    return " ".join("".join(pieces).split())


def bounded(text: str, limit: int) -> str:
    """``text`` cut at a word before ``limit`` characters with "…", never inside a code span
    (a cut one would read as another name)."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0]
    for span in _CODE_SPAN.finditer(text):
        if span.start() < len(cut) < span.end():
            cut = text[:span.start()].rstrip()
            break
    if cut.count("`") % 2:  # an opening backtick whose span runs past the cut
        cut = cut[:cut.rfind("`")].rstrip()
    return cut.rstrip(" ;:,") + "…"


def pick(message: str, reply: str) -> Option | None:
    """The one option of ``message`` that ``reply`` picks (module docstring), or None."""
    if "?" in reply:
        return None
    words = WORD.findall(reply)
    offered = options(message, _label_kind(words))
    if not offered:
        return None
    lowered = [w.lower() for w in words]
    if not words or len(words) > MAX_REPLY_WORDS or HEDGE & set(lowered):
        return None
    if process_question(message[-400:]):
        return None
    chosen = _by_label(offered, reply, words) | _by_position(offered, lowered)
    if not chosen and len(words) <= MAX_CONTENT_REPLY_WORDS and YES & set(lowered):
        chosen = _by_words(offered, lowered)
    if len(chosen) != 1:
        return None
    option = offered[chosen.pop()]
    if step_of_today(option.text) or len(option.text.split()) < 3:
        return None
    return option


def pick_with_terms(message: str, reply: str) -> tuple[Option, str] | None:
    """The option ``reply`` picks and the terms it sets on it (module docstring: "the
    terms"; "" when it sets none), or None."""
    picked = pick(message, reply)
    if picked is not None:
        return picked, ""
    split = _TERMS.match(reply.strip())
    if split is None or "?" in reply:
        return None
    terms = " ".join(split["terms"].split()).rstrip(" .!;")
    picked = pick(message, split["head"])
    if picked is None or not terms or _TURNS_AWAY.match(terms) \
            or len(terms.split()) > MAX_TERMS_WORDS or len(list(sentences(terms))) != 1:
        return None
    offered = options(message, _label_kind(WORD.findall(split["head"])))
    if _by_label(offered, terms, WORD.findall(terms)) - {offered.index(picked)}:
        return None  # the terms name another option: a turn to another way
    return picked, terms


def sets_terms(sentence: str) -> bool:
    """The sentence goes on after its pick with "but …": the bare option is not what it
    decided (``pick_with_terms`` reads the pick with its terms, or nothing)."""
    return _TERMS.match(sentence.strip()) is not None


def _label_kind(words: list[str]) -> bool | None:
    """The kind of label a reply names: True for a number ("2", "option 2"), False for a
    letter said as one ("B", "option b", a reply of one letter), None for neither."""
    for position, word in enumerate(words):
        named = position > 0 and re.fullmatch(OPTION_WORD, words[position - 1], re.IGNORECASE)
        if word.isdigit() and len(word) == 1:
            return True
        if len(word) == 1 and word.upper() in "ABCDE" and (word.isupper() or named
                                                          or len(words) == 1):
            return False
    return None


def _by_label(offered: list[Option], reply: str, words: list[str]) -> set[int]:
    labels = {o.label: i for i, o in enumerate(offered)}
    found = set()
    for position, word in enumerate(words):
        upper = word.upper()
        if upper not in labels:
            continue
        named = position > 0 and re.fullmatch(OPTION_WORD, words[position - 1], re.IGNORECASE)
        if word.isdigit() or word.isupper() or named or len(words) == 1:
            found.add(labels[upper])
    return found


def _by_position(offered: list[Option], lowered: list[str]) -> set[int]:
    return {_ORDINALS[w] % len(offered) for w in lowered if w in _ORDINALS
            and abs(_ORDINALS[w]) <= len(offered)}


def _by_words(offered: list[Option], lowered: list[str]) -> set[int]:
    """Options whose text alone holds a word of the reply, or a word it begins ("hook" in
    "hooks"): a word two options share tells nothing, and neither does a common word."""
    texts = [set(w.lower() for w in WORD.findall(o.text)) for o in offered]
    found = set()
    for word in lowered:
        if len(word) < 4 or word in _COMMON:
            continue
        holders = [i for i, text in enumerate(texts)
                   if any(token.startswith(word) or word.startswith(token)
                          for token in text if len(token) >= 4)]
        if len(holders) == 1:
            found.add(holders[0])
    return found


def _next(label: str) -> str:
    return str(int(label) + 1) if label.isdigit() else chr(ord(label) + 1)


def _first_sentence(body: str) -> str:
    """An option's title and first sentence, markup gone, whitespace collapsed."""
    flat = " ".join(_MARKUP.sub("", body).split())
    stop = re.search(r"(?<=[a-z0-9)\]])[.!](?=\s+[A-Z(])", flat)
    text = flat[:stop.end()] if stop else flat
    text = text.strip().rstrip(".").strip()
    return text if len(text) <= MAX_DECISION_CHARS else \
        text[:MAX_DECISION_CHARS - 1].rsplit(" ", 1)[0] + "…"


def _candidate(view: SessionView, exchange: Exchange, option: Option, extra: str = "",
               terms: str = "") -> dict[str, Any]:
    """The decision, stored in the option's whole words and the terms the user set on it;
    what later words may retire (``reconcile``'s ``stance``) stays what the pick was judged
    by, the option's title and first sentence: the rest of an option names its context (the
    tools it mentions, what it compares itself with), which later talk of those things does
    not take back."""
    then = f" — then: {extra}" if extra else ""
    then += f" — but: {terms}" if terms else ""
    whose = f" (option {option.label} of the agent's, chosen by the user)"
    stored = f"{option.whole or option.text}{whose}{then}"
    stance = f"{option.text}{whose}{then}"
    return approved_decision(view, exchange, stored, option.text, short_quote(exchange.said),
                             stance=stance if stance != stored else None)
