"""A person's standing request that the same person later revised: only the last word counts.

A user asks "the export should zip its files by default", and several turns later says "no,
make zipping a separate command, export stays plain" or "let's not zip after all". Both were
typed by the user, both may be kept by the rules that read requests (statements, corrections,
briefs, picks); storing the first would tell the next session a withdrawn request is decided.

The earlier request gives way to a later sentence of the same person when

- the two are about the same subject: they share a named thing (a code span, an identifier,
  a command, option or file name) or most of the earlier request's content words; and
- the later sentence retracts it outright (``revision_cues.RETRACT``: "never mind", "let's
  not … after all"), or turns it around (``revision_cues.CHANGE``: "instead", "separate",
  "not … by default", or the negation flipped) AND is itself kept as a request on that
  subject: the new word replaces the old, so nothing the user decided is lost; or
- the later sentence refuses to put in a thing the request asked for ("do not add / show /
  use <X>", ``narrowed``), X and the request sharing a phrase of two content words in order
  ("the header shows the title of the page" ... "do not add the long title of the page"), nothing
  after the phrase in X the request never said ("... for logs"), the request not negating
  it, AND the refusal is itself kept as a request: the narrower word replaces the wider one.
  A shared single word, or a refusal of another act ("do not log the session store"), ties
  nothing; or
- a later message of the same person puts that very thing off or moves it elsewhere ("for
  'normalize' just add a TODO; we need a separate command for that", "let's park `export`
  for now", ``revision_cues.DEFER``/``FOCUS``): the deferred clause names the thing (or
  points back with "that"/"it" to the sentence before, which names it), no sentence of the
  message asks about it or says the request again, and the clause does not negate the cue.
  A question whether the thing exists already ("do we have 'normalize' or alike command?
  … add a TODO and make it a separate command") asks what is there, not whether to put it
  off: it keeps nothing, and the deferral may point back to it.
  The deferral need not be kept itself: it took the request off the table, so the earlier
  request is not a standing decision.

A word the user puts in quotes ('normalize', "export", 1 to 3 words) is a named thing too.

When unsure the earlier request stays; the later one is never dropped here.
Pure logic on plain data: no file, no clock.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Mapping, Sequence
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.session import taught_at
from claimgraph.logic.query_words import STOPWORDS
from claimgraph.logic.revision_cues import (
    CHANGE, DEFER, FOCUS, OPENER, REFUSES, RETIRES, RETRACT, TAKES_BACK, TEMPORARY)

Candidate = dict[str, Any]

#: Stances a person can revise (lessons and runners are about what happened, not asks).
STANCES = frozenset({"x/convention", "x/decided", "core/prefers", "core/decided-against"})
_CODE_SPAN = lazy_regex(r"`([^`\n]{2,80})`")
#: A named thing shaped like an identifier, a command option or a file name.
_NAMED = lazy_regex(r"(?<![\w@/.-])(?:--?[a-z][\w-]+|@?[A-Za-z][\w]*(?:[-_./][\w]+)+|"
                    r"[a-z]+[A-Z][A-Za-z]+)(?![\w/-])")
#: A word or two the user puts in quotes (straight or typographic), not an apostrophe.
_QUOTED = lazy_regex(r"(?<![\w'\u2019])(?:'([A-Za-z][\w.-]*(?: [\w.-]+){0,2})'|"
                     r"\"([A-Za-z][\w.-]*(?: [\w.-]+){0,2})\"|"
                     r"\u2018([A-Za-z][\w.-]*(?: [\w.-]+){0,2})\u2019|"
                     r"\u201c([A-Za-z][\w.-]*(?: [\w.-]+){0,2})\u201d)(?![\w'])")
_WORD = lazy_regex(r"[A-Za-z][\w'-]{2,}")
_SENTENCE = lazy_regex(r"(?<=[.!?;])\s+|\n+")
_NEGATION = lazy_regex(r"\b(?:no|not|nothing|none|never|don'?t|do not|doesn'?t|shouldn'?t|"
                       r"won'?t|without|avoid|stop|skip)\b", re.IGNORECASE)
#: Where a sentence's clauses meet (a deferral ties only to the thing its own clause names).
_CLAUSE = lazy_regex(r"[,;:]\s*|\s+[-\u2013\u2014]+\s+|\s+(?=(?:and|but|so|while|whereas|"
                     r"because|since|although|though|which|then)\b)", re.IGNORECASE)
#: A clause that only names the topic of the next one ("for 'zip'", "as for `export`").
_LEAD_IN = lazy_regex(r"^\W*(?:as for|for|about|regarding|concerning|re|on|with)\b",
                      re.IGNORECASE)
#: The words right after a cue that name what it puts off: the thing itself, or "for/of/
#: about/on" and the thing, within a few words.
_LEAD_AFTER = lazy_regex(r"^\s*(?:(?:for|of|about|on|to)\s+)?(?:the\s+)?(?:[`'\"\u2018\u201c]"
                         r"[^`'\"\u2019\u201d\n]{1,60}[`'\"\u2019\u201d]|\S+)", re.IGNORECASE)
#: Words that may stand between a named thing and the cue that puts it off.
_GAP_WORD = lazy_regex(r"[a-z][\w']*")
_CARRIES = frozenset("just simply only add leave put make do move moved goes go can could "
                     "will would should may might must wait waits stay stays is are be gets get "
                     "belongs belong needs need deserves let's lets let us we i you it that this "
                     "a an the to for in into as until till with handle handled deal tackle "
                     "left ll".split())
#: A clause pointing back to what the sentence before named.
_POINTS_BACK = lazy_regex(r"\b(?:that|it|this|those|these|them)\b", re.IGNORECASE)
_NOT_NOW = lazy_regex(r"\bnot (?:for )?now\b", re.IGNORECASE)
#: A question whether something is there already.
_EXISTS = lazy_regex(r"^\W*(?:(?:and|so|but|also|ok(?:ay)?|hm+|btw)\b[,.]?\s+)*(?:"
                     r"(?:do|did|does) (?:we|you|i|they|it|the \w+) (?:already |still |even )?"
                     r"(?:have|has|got|support|provide|offer)|(?:is|are) there|"
                     r"(?:have|has) (?:we|you|it) (?:already )?got)\b[^?]*\?\s*$", re.IGNORECASE)
#: Where a sentence's last clause begins: a dash between words, a colon or a semicolon.
_LAST_CLAUSE = lazy_regex(r"\s+(?:--|\u2014|\u2013|-)\s+|[:;]\s+")
#: Content words an earlier request must share with the later sentence, at least, and the
#: share of its own content words they must make up, when no named thing is shared.
_MIN_SHARED_WORDS = 3
_MIN_SHARED_PART = 0.5
#: Content words a flipped sentence must share (a named thing alone is not enough).
_MIN_FLIP_WORDS = 3
#: The share of the earlier request's content words a same-polarity restatement repeats.
_RESTATED_PART = 0.8
#: A later refusal to put a thing in ("do not add the full names", "don't show X").
_NARROWING = lazy_regex(r"^\W*(?:please\s+)?(?:do not|don'?t|never|no need to|stop)\s+"
                        r"(?:add|show|display|include|render|put|print|use)(?:ing)?\s+"
                        r"(?P<what>[^.;:!?\n]{3,80})", re.IGNORECASE)
#: Words after a refused thing that add nothing to it ("the full names as well").
_FILLERS = frozenset({"well", "too", "either", "anymore", "again", "here", "there", "also",
                      "please", "now", "then"})
#: Small words a shared phrase may hold between its two content words ("name of the agent").
_PHRASE_GAP = 2
#: Words before a shared phrase in which a negation says no to it.
_NEGATION_REACH = 4
#: Words too general to tie two requests to one subject.
_GENERAL = frozenset({"make", "use", "add", "want", "need", "should", "please", "let's", "lets",
                      "sure", "thing", "things", "way", "code", "file", "files", "default",
                      "instead", "rather", "separate", "actually", "keep", "stay", "stays",
                      "plain", "after", "all", "mind", "never", "always", "one", "new"})


def revised_away(kept: Sequence[Candidate], user_said: Iterable[tuple[int, str]]
                 ) -> list[Candidate]:
    """``kept`` without the user's stances their own later words revised (module docstring)."""
    said = [(at, sentences(text)) for at, text in user_said]
    requests = [(line, found) for found in kept
                for line in [taught_at(found)] if line is not None and is_request(found)]
    by_line: dict[int, list[Candidate]] = {}  # the requests taught at each line, in order
    for line, found in requests:
        by_line.setdefault(line, []).append(found)
    try:
        said = [(at, parts) for at, parts in said if at in by_line or may_revise(parts)] \
            if requests else []
        revised = {id(found) for line, found in requests
                   if any(at > line and _revised_by(found, parts, _kept_at(at, found, by_line))
                          for at, parts in said)}
    finally:
        for memo in (_cues, _clauses, _change_cues, _negates, named, quoted, content_words,
                     _turning, _short_opener):
            memo.cache_clear()
    return [found for found in kept if id(found) not in revised]


def may_revise(parts: Sequence[str]) -> bool:
    """Can a later message (its sentences ``parts``) revise some request with no request of
    its own kept at its line? Only through a sentence that retracts outright and asks
    nothing (``revises``), a clause with a deferral cue (``defers``), or a sentence that turns
    a thing down, takes back what was said or calls it temporary (``turned_away``): every
    other way needs a request kept at the later line. Read once per message, whatever the
    request: ``revised_away`` holds only the messages that can against each request (every
    pair was 70,775 at 200 MB, issue 29), with the same answer."""
    if any(RETRACT.search(part) and not part.rstrip().endswith("?") for part in parts):
        return True
    if any(any(_cues(clause)) for part in parts for clause in _clauses(part)):
        return True
    return any(any(_turning(part, bool(index) and _short_opener(parts[index - 1])))
               for index, part in enumerate(parts))


def _revised_by(found: Candidate, parts: Sequence[str], later_kept: Sequence[Candidate]) -> bool:
    """One later message revises ``found``: a sentence of it does, and none says it again (a
    message that repeats the request among other points confirms it)."""
    earlier = str(found.get("stance") or found.get("object") or "")
    if any(restates(earlier, sentence) and not TAKES_BACK.search(sentence)
           for sentence in parts):
        return False  # said again (a take-back names the words it takes back: no repetition)
    return any(revises(found, sentence, later_kept) for sentence in parts) or \
        defers(earlier, parts) or turned_away(earlier, parts)


#: Content words a later sentence (with the one after it) must share with the earlier
#: stance to turn its thing down (``_MIN_SHARED_PART`` of the stance's own words at least);
#: "was only temporary" names no thing turned down, so it must share more: a failure called
#: temporary ("the failing migrations before the tests were only temporary") is no stance.
_MIN_TEMPORARY = 3
#: What one later sentence says on its own is read once per capture (``_MEMO_SIZE``'s size).
_TURN_MEMO = 8192


def turned_away(earlier: str, parts: Sequence[str]) -> bool:
    """A later message of the same person turns down by name a thing the earlier stance says
    yes to ("forget Redis", or after "actually"/"no,"/"change of plan": "spaces, not tabs";
    ``revision_cues``), takes back what they said about its topic ("ignore what I said
    about the fixtures": most of the topic's words are the stance's), or says the stance
    held only for a while ("the mock provider was
    only temporary"), on the same subject: the sentence, with the one after it (where "Forget
    Redis." is followed by what replaces it), shares at least two of the stance's content
    words (three for "temporary") and half of them. The later sentence need not be kept
    itself: the earlier word is no longer the person's either way. A question turns nothing
    down."""
    words = content_words(earlier)
    if not words:
        return False
    for index, sentence in enumerate(parts):
        after_opener = bool(index) and _short_opener(parts[index - 1])
        temporary, topic, things = _turning(sentence, after_opener)
        if temporary and _on_subject(words, sentence, _MIN_TEMPORARY):
            return True
        if topic and _about(words, topic):
            return True
        if things and _on_subject(words, " ".join(parts[index:index + 2])) \
                and any(_affirms(earlier, thing) for thing in things):
            return True
    return False


@functools.lru_cache(maxsize=_TURN_MEMO)
def _short_opener(sentence: str) -> bool:
    """A sentence that is only a correction's opener ("No.", "Actually.")."""
    return len(sentence.split()) <= 2 and OPENER.match(sentence) is not None


@functools.lru_cache(maxsize=_TURN_MEMO)
def _turning(sentence: str, after_opener: bool) -> tuple[bool, str | None, tuple[str, ...]]:
    """What one later sentence says on its own (read once, whatever request it is held
    against): it calls something temporary; the topic it takes back what was said about;
    the things it turns down by name (after an opener, its own or the short sentence
    before, "not X" too). A question says none of these."""
    if sentence.rstrip().endswith("?"):
        return False, None, ()
    taken = TAKES_BACK.search(sentence)
    things = [match["what"] for match in RETIRES.finditer(sentence)]
    if after_opener or OPENER.match(sentence):
        things += [match["what"] for match in REFUSES.finditer(sentence)]
    return (TEMPORARY.search(sentence) is not None, taken["topic"] if taken else None,
            tuple(thing for thing in things if not _also_wanted(sentence, thing)))


#: Words before a thing in a later sentence that turn it down (beside ``_NEGATION``).
_TURNED_DOWN = lazy_regex(r"\b(?:instead of|rather than|than|over|drop|forget|ditch|"
                          r"get rid of|no more|do away with)\b", re.IGNORECASE)


def _also_wanted(sentence: str, thing: str) -> bool:
    """The same sentence also asks for ``thing`` ("the cache is not Redis yet, set Redis
    up"): its "not X" tells what is missing, not what is turned down."""
    thing = thing.strip("`'\".,;:!").lower()
    lowered = sentence.lower()
    for found in re.finditer(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", lowered):
        before = _CLAUSE_BREAK.split(lowered[:found.start()])[-1]
        if not (_NEGATION.search(before) or _TURNED_DOWN.search(before)):
            return True
    return False


def _about(words: frozenset[str], topic: str) -> bool:
    """The topic a take-back names ("about the test fixtures") is the stance's: most of its
    content words are the stance's own."""
    named = content_words(topic)
    return bool(named) and len(words & named) >= _MIN_SHARED_PART * len(named)


def _on_subject(words: frozenset[str], text: str, least: int = 2) -> bool:
    shared = words & content_words(text)
    return len(shared) >= least and len(shared) >= _MIN_SHARED_PART * len(words)


#: Where a clause ends, for what stands before a thing in it.
_CLAUSE_BREAK = lazy_regex(r"[,;:()]|\s[-\u2013\u2014]+\s|\bbut\b")
#: Words before a thing in the earlier stance that say no to it ("rather than Redis").
_SAID_NO = lazy_regex(r"\b(?:instead of|rather than|than|over|drop|forget)\b", re.IGNORECASE)


def _affirms(earlier: str, thing: str) -> bool:
    """The earlier stance names ``thing`` (a content word, or a code span's text) and says
    yes to it: no "no", "not", "instead of" before it in its clause."""
    thing = thing.strip("`'\".,;:!").lower()
    if len(thing) < 3 or thing in STOPWORDS or thing in _GENERAL:
        return False
    lowered = earlier.lower()
    found = re.search(rf"(?<![\w-]){re.escape(thing)}(?![\w-])", lowered)
    if found is None:
        return False
    before = _CLAUSE_BREAK.split(lowered[:found.start()])[-1]
    return not (_NEGATION.search(before) or _SAID_NO.search(before))


def is_request(found: Candidate) -> bool:
    """A stance in the user's own words (what a later word of theirs can revise)."""
    return found.get("source_type") == "user-assertion" and found.get("predicate") in STANCES


def revises(found: Candidate, sentence: str, later_kept: Sequence[Candidate]) -> bool:
    """``sentence`` (the person's, later) revises the request ``found``: same subject, and
    either an outright retraction, or a change of stance that a kept later request on the same
    subject carries."""
    earlier = str(found.get("stance") or found.get("object") or "")
    if sentence.rstrip().endswith("?"):
        return False  # a question asks, it does not revise
    phrase = narrowed(earlier, sentence)
    if phrase is not None and any(_has_phrase(str(other.get("object") or "").lower(), phrase)
                                  for other in later_kept):
        return True  # a kept "don't add <X>" of a thing the request asked for
    if not same_subject(earlier, sentence):
        return False
    if restates(earlier, sentence):
        return False
    if RETRACT.search(sentence) and not RETRACT.search(earlier):
        return True
    turned = bool(new_cues(earlier, sentence)) or (
        flipped(earlier, sentence) and _closely_tied(earlier, sentence))
    return turned and any(same_subject(earlier, str(other.get("object") or ""))
                          and str(other.get("object")) != earlier for other in later_kept)


def narrowed(earlier: str, later: str) -> tuple[str, ...] | None:
    """The phrase a later "don't add / show / use <X>" takes out of the earlier request, when
    X and the request share it: two content words in the same order, at most two small words
    between ("the header shows the title of the page" ... "do not add the long title of the page"),
    and the request says yes to it (no negation in the few words before). None otherwise:
    a shared single word, or a later refusal of another act, ties nothing."""
    match = _NARROWING.match(later)
    if not match or _NEGATION.search(earlier):
        return None
    lowered, what = earlier.lower(), match["what"].lower()
    for phrase in _phrases(what):
        if _has_phrase(lowered, phrase) and not _negated_before(lowered, phrase) \
                and not _qualified_after(what, phrase, lowered):
            return phrase
    return None


def _qualified_after(what: str, phrase: tuple[str, ...], earlier: str) -> bool:
    """Words after the shared phrase in the refusal that the request never said ("do not use
    the session store for logs" after "use the session store for tokens"): the refusal is of
    another use of the thing, not of what was asked."""
    found = re.search(_phrase_pattern(phrase), what)
    rest = _GAP_WORD.findall(what[found.end():]) if found else []
    said = set(_GAP_WORD.findall(earlier))
    return any(word not in STOPWORDS and word not in _FILLERS and word not in said
               for word in rest)


def _phrases(text: str) -> list[tuple[str, ...]]:
    """Each two content words of ``text`` in order with at most two small words between, as
    (first, small words..., second)."""
    words = _GAP_WORD.findall(text.lower())
    found: list[tuple[str, ...]] = []
    for at, word in enumerate(words):
        if not _is_content(word):
            continue
        for end in range(at + 1, min(at + 2 + _PHRASE_GAP, len(words))):
            if _is_content(words[end]):
                if all(small in STOPWORDS for small in words[at + 1:end]):
                    found.append(tuple(words[at:end + 1]))
                break
    return found


def _is_content(word: str) -> bool:
    return len(word) >= 3 and word not in STOPWORDS and word not in _GENERAL


def _phrase_pattern(phrase: tuple[str, ...]) -> str:
    return r"(?<![\w-])" + r"\s+".join(re.escape(word) for word in phrase) + r"(?![\w-])"


def _has_phrase(lowered: str, phrase: tuple[str, ...]) -> bool:
    return re.search(_phrase_pattern(phrase), lowered) is not None


def _negated_before(lowered: str, phrase: tuple[str, ...]) -> bool:
    found = re.search(_phrase_pattern(phrase), lowered)
    return found is not None and bool(
        _NEGATION.search(" ".join(lowered[:found.start()].split()[-_NEGATION_REACH:])))


def same_subject(earlier: str, later: str) -> bool:
    """Both name one thing, or the later shares most of the earlier's content words."""
    if shares_name(earlier, later):
        return True
    words = content_words(earlier)
    shared = words & content_words(later)
    return len(shared) >= _MIN_SHARED_WORDS and len(shared) >= _MIN_SHARED_PART * len(words)


def shares_name(one: str, other: str) -> bool:
    """Both name one thing: the same named thing in each, or a word one of them puts in quotes
    that the other says (quoted or not)."""
    if named(one) & named(other):
        return True
    return any(_says(text, name) for text, names in ((other, quoted(one)), (one, quoted(other)))
               for name in names)


def _says(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text.lower()) is not None


def defers(earlier: str, parts: Sequence[str]) -> bool:
    """A later message (its sentences ``parts``) puts the thing the earlier request names off
    or moves it elsewhere (module docstring): a deferring clause names it, or points back to
    it ("that", "it") right after a clause that is about it (``_topic``). A
    question about it defers nothing, nor a cue the earlier request holds itself."""
    if any(_cues(earlier)):
        return False  # first: it reads the earlier request alone, and either way it is False
    if any(part.rstrip().endswith("?") and shares_name(earlier, part) and not asks_exists(part)
           for part in parts):
        return False
    before = ""
    for clause in (clause for part in parts for clause in _clauses(part)):
        if _defers_clause(earlier, clause, before):
            return True
        if not (_cues(clause)[0] and not named(clause)):
            before = clause  # "add a TODO and make it …": one deferral, "it" points past it
    return False


def _defers_clause(earlier: str, clause: str, before: str) -> bool:
    """One clause puts off the earlier request's thing: it holds a deferral cue that no
    negation comes before, and names the thing as what it puts off (before the cue, or right
    after it: "park `export`", "a separate command for 'zip'"), or names nothing and points
    back to a clause before that names it. A clause turning to something else ("let's
    concentrate on …") puts off only what it names before the cue."""
    cue, focus = _cues(clause)
    if cue is None and focus is None:
        return False
    start = min(match.start() for match in (cue, focus) if match is not None)
    if _NEGATION.search(clause[:start]) and not _NOT_NOW.search(clause):
        return False
    if shares_name(earlier, clause):
        ahead = clause[:start]
        after = clause[cue.end():] if cue is not None and focus is None else ""
        return _names_just_before(earlier, ahead) or (
            bool(after) and _names_right_after(earlier, after))
    return not named(clause) and bool(_POINTS_BACK.search(clause)) and _topic(earlier, before)


#: The memos below hold what a text alone decides. ``revised_away`` holds every request
#: against every later message of the person, so each text would be read again for each
#: pair: with them it is read once per capture (they are emptied when it ends).
_MEMO_SIZE = 8192


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _cues(text: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """The deferral cue and the turn-to-something-else cue of ``text``, each if any."""
    return DEFER.search(text), FOCUS.search(text)


def _topic(earlier: str, clause: str) -> bool:
    """``clause`` (the one before a deferral that points back) is about the earlier request's
    thing as a whole: a short topic line ("About 'zip'.") or a deferral of it itself, not a
    sentence saying something of it ("'zip' breaks a test. Let's leave that for later")."""
    return shares_name(earlier, clause) and (
        len(clause.split()) <= 4 or asks_exists(clause) or _defers_clause(earlier, clause, ""))


def asks_exists(question: str) -> bool:
    """A question whether a thing exists already ("do we have a 'normalize' or alike
    command?", "is there a flag for it?"): it asks what is there, it does not doubt putting
    the thing off, and it names the thing as a whole (a topic a deferral can point back to).
    The question may be the last clause of a longer sentence ("we need to review the plan --
    do we have 'normalize'?"): the clause after the last dash, colon or semicolon is read."""
    return bool(_EXISTS.match(question) or _EXISTS.match(_LAST_CLAUSE.split(question)[-1]))


def _names_just_before(earlier: str, ahead: str) -> bool:
    """The words before a cue name the thing it puts off, with nothing between but words that
    carry the deferral ("for 'zip' just add a TODO", "move `export` to a separate command",
    "'zip' can wait for later"), not a thing of it ("'zip' tests are out of scope")."""
    lowered = ahead.lower()
    ends = [match.end() for name in _shared_names(earlier, ahead)
            for match in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lowered)]
    if not ends:
        return False
    gap = _describing_the_cue_dropped(_GAP_WORD.findall(lowered[max(ends):]))
    return all(word in STOPWORDS or word in _CARRIES for word in gap)


#: The most words an article's noun phrase may put before the cue it ends in.
_CUE_MODIFIERS = 3


def _describing_the_cue_dropped(gap: list[str]) -> list[str]:
    """The gap before a cue without the words of the cue's own noun phrase: after the last
    article, up to three words describe the TODO or command itself ("for 'zip' just add a
    high level TODO", "a separate small command"), they name no other thing."""
    for at in range(len(gap) - 1, -1, -1):
        if gap[at] in ("a", "an", "the"):
            return gap[:at] if len(gap) - at - 1 <= _CUE_MODIFIERS else gap
    return gap


def _shared_names(earlier: str, text: str) -> set[str]:
    """The names ``text`` shares with ``earlier`` (``shares_name``), as ``text`` writes them."""
    mine, theirs = named(text), named(earlier)
    return {name for name in mine if name in theirs or _says(earlier, name)} | \
        {name for name in quoted(earlier) if _says(text, name)}


def _names_right_after(earlier: str, after: str) -> bool:
    """The words right after a cue name the thing it puts off ("park `export`", "a TODO for
    'zip'"), not a thing merely next to it ("a separate step after 'zip'")."""
    lead = _LEAD_AFTER.match(after)
    return lead is not None and shares_name(earlier, lead.group(0))


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _clauses(sentence: str) -> tuple[str, ...]:
    """The clauses of a sentence; a short lead-in naming the topic ("for 'zip'", "as for
    `export`") belongs to the clause after it."""
    parts = [part.strip() for part in _CLAUSE.split(sentence) if part and part.strip()]
    joined: list[str] = []
    carry = ""
    for part in parts:
        if _LEAD_IN.match(part) and len(part.split()) <= 4:
            carry = f"{carry} {part}".strip()
            continue
        joined.append(f"{carry} {part}".strip() if carry else part)
        carry = ""
    return tuple(joined + ([carry] if carry else []))


def _closely_tied(earlier: str, later: str) -> bool:
    """A flipped negation alone is a weak sign (a list of points names one file in stances of
    every polarity): it counts only when the sentences share most of the earlier request's
    content words, not just a name."""
    words = content_words(earlier)
    shared = words & content_words(later)
    return len(shared) >= _MIN_FLIP_WORDS and len(shared) >= _MIN_SHARED_PART * len(words)


def restates(earlier: str, later: str) -> bool:
    """The later sentence says the earlier request again (pasted back, or in nearly the same
    words with the same polarity): a repetition confirms, it does not revise."""
    words, again = content_words(earlier), content_words(later)
    return bool(words) and not flipped(earlier, later) and \
        len(words & again) >= _RESTATED_PART * len(words)


def new_cues(earlier: str, later: str) -> set[str]:
    """The change cues of the later sentence that the earlier request does not hold itself
    ("separate bundles" asked for twice is no change)."""
    return _change_cues(later) - _change_cues(earlier)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _change_cues(text: str) -> frozenset[str]:
    return frozenset(cue.lower() for cue in CHANGE.findall(text))


def flipped(earlier: str, later: str) -> bool:
    """One says no where the other says yes."""
    return _negates(earlier) != _negates(later)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _negates(text: str) -> bool:
    return bool(_NEGATION.search(text))


@functools.lru_cache(maxsize=_MEMO_SIZE)
def named(text: str) -> frozenset[str]:
    """The named things in ``text``, lower-cased: code spans and identifier-shaped words."""
    found = {span.strip().lower() for span in _CODE_SPAN.findall(text)}
    found |= {word.lower() for word in _NAMED.findall(text)}
    found |= quoted(text)
    return frozenset(word for word in found if len(word) >= 3)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def quoted(text: str) -> frozenset[str]:
    """The words ``text`` puts in quotes (1 to 3 words), lower-cased, when they are not all
    general words ("it's 'fine'" names nothing)."""
    found = {next(group for group in match if group).lower()
             for match in _QUOTED.findall(text)}
    return frozenset(words for words in found if content_words(words))


@functools.lru_cache(maxsize=_MEMO_SIZE)
def content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in (word.lower() for word in _WORD.findall(text))
                     if w not in STOPWORDS and w not in _GENERAL)


def sentences(text: str) -> list[str]:
    return [part.strip() for part in _SENTENCE.split(text) if part.strip()]


def _kept_at(at: int, found: Candidate, by_line: Mapping[int, Sequence[Candidate]]
             ) -> list[Candidate]:
    """The other requests taught at line ``at`` (looked up by line: a scan of every request
    for each pair of a request and a later message was cubic in a long session)."""
    return [other for other in by_line.get(at, ()) if other is not found]
