"""What the sentence classifier sees of a sentence: hashed n-grams and a few named cues.

One function, ``featurize``, used both by the training script (train/train_classifier.py) and
by inference, so the two can never drift apart. See docs/capture.md ("The sentence model").

Features are meant to generalize past the sentences they were learned from:

- word unigrams and bigrams and the first one and two words (imperatives and "we'll" /
  "let's" start a sentence), hashed with CRC-32 into ``BUCKETS`` buckets, each kind with its
  own seed, so no vocabulary is stored. A word's bucket is computed once per process and kept
  (``_Buckets``). Character 4-grams were dropped: in grouped cross-validation they added
  about 0.01 of average precision and cost more than half of a sentence's time
  (docs/capture.md, "The sentence model");
- named cues: where the sentence sits in its prompt, whether the prompt answers an agent that
  just asked a question or offered options, its length, modality and negation words, the
  old phrase lists' verdicts (as evidence for the model, no longer the decision), and how
  rules are said in chat: a rule named ("our convention is …", "house rule"), an aside that
  introduces one ("fyi", "remember:", "quick context"), a thing done by hand or left to the
  product ("by hand", "automatically", "for the user"), the project's reach ("in this repo",
  "everywhere", "throughout") against the task's ("for this PR", "this time"), a sentence
  that opens with "always" / "never", and "make sure" with a rule's scope.

Hashed features are binary and scaled to unit length (a long sentence does not win by
length); named cues are 0/1. Everything is a pure function of its arguments: same sentence,
same features, on every machine (CRC-32 is fixed, unlike Python's ``hash``).
"""

from __future__ import annotations

from claimgraph.logic.lazy_regex import lazy_regex
from zlib import crc32

from claimgraph.capture.classify.phrases import phrase_hits

BUCKETS = 1 << 15
_MASK = BUCKETS - 1
_WORD, _BIGRAM, _FIRST = 1, 2, 3
_TOKENS = lazy_regex(r"[a-z0-9_']+|[^\sa-z0-9_']")
_DIGITS = lazy_regex(r"\d+")

#: Named cues, each a 0/1 feature; their order is the weights file's order (append only).
CUES = (
    "pos_first", "pos_last", "pos_only", "prompt_long", "after_options",
    "words_1_2", "words_3_5", "words_6_12", "words_13_25", "words_26_plus",
    "ends_question", "starts_question_word", "has_url_or_path", "has_code_span",
    "always_never", "must_should", "negation", "from_now_on", "every_all", "we_our",
    "i_me_my", "you_your", "lets", "will_going_to", "prefer_rather", "instead_over",
    "please_can_you", "now_then", "this_that_here", "temporary",
    "phrase_convention", "phrase_decision", "phrase_preference", "phrase_personal",
    "phrase_hedge", "phrase_question", "project_words", "across_projects",
    "rule_noun", "aside_lead", "opens_always_never", "unattended", "project_scope",
    "task_scope", "make_sure_scope", "pervasive",
    # the sentence's shape (``_shape``): how it opens, what it points at, who it is about
    "imperative", "imp_negative", "imp_universal", "imp_deictic", "imp_plain", "generic_phrase",
    "status", "past_i", "declarative_modal", "you_modal", "rule_word", "write_rule",
    "contrast_not", "identifier", "we_present", "desire", "desire_generic", "conditional_start",
    "cond_modal", "non_ascii", "deictic_any", "universal_any",
)
_CUE_INDEX = {name: BUCKETS + i for i, name in enumerate(CUES)}
DIMENSIONS = BUCKETS + len(CUES)
#: The feature versions a weights file may name (its ``features`` key; absent: 1). Version 2
#: also reads the team's practice in the progressive ("we're using …") as ``we_present``. The
#: shipped weights are version 1 until a retrain with version 2 passes the operating point
#: (train/train_classifier.py ``--candidate``; docs/capture.md): weights must be read with the
#: features they were trained with.
VERSIONS = (1, 2)

#: Cues that are a word from a set (tokens as ``_TOKENS`` cuts them: "don't" is one token).
_WORD_CUES = tuple((name, frozenset(words.split())) for name, words in (
    ("starts_question_word", ""),  # computed from the first word, below
    ("always_never", "always never ever"),
    ("must_should", "must should shall required require requires"),
    ("negation", "not no don't dont never avoid without nor can't won't shouldn't mustn't"),
    ("every_all", "every everywhere everything all any each whenever"),
    ("we_our", "we we're we'll we've our us"),
    ("i_me_my", "i i'm i'd i've me my mine"),
    ("you_your", "you your you're you'll"),
    ("lets", "let's lets"),
    ("will_going_to", "will gonna we'll i'll"),
    ("prefer_rather", "prefer prefers preferred preferably rather ideally love favor favour"),
    ("instead_over", "instead over vs versus"),
    ("please_can_you", "please pls"),
    ("now_then", "now then next first again continue proceed"),
    ("this_that_here", "this that these those here it"),
    ("project_words", "repo repository project codebase team"),
))
_QUESTION_WORDS = frozenset("should could can would will do does did is are was were what why "
                            "how when where which who".split())
#: The same, by word: the cues a word fires (one lookup a word, not one set test a cue).
_CUES_OF_WORD: dict[str, tuple[str, ...]] = {}
for _name, _vocabulary in _WORD_CUES:
    for _word in _vocabulary:
        _CUES_OF_WORD[_word] = _CUES_OF_WORD.get(_word, ()) + (_name,)
#: Cues that take a shape: a search of the lowercased sentence, only when it holds the
#: character every match needs.
_SHAPE_CUES = tuple((name, needs, lazy_regex(pattern)) for name, needs, pattern in (
    ("has_url_or_path", "/.", r"https?://|\w/\w|\.\w{1,4}\b"),
    ("has_code_span", "`", r"`[^`]+`"),
))
#: Cues that take a phrase: any of these phrases among the sentence's words, whole words in a
#: row as ``_TOKENS`` cuts them ("remember:" is "remember" then ":"; "remember" does not fire
#: in "remembered", nor "in this pr" in "in this project").
_PHRASE_CUES = tuple((name, tuple(strings.split("|"))) for name, strings in (
    ("from_now_on", "from now on|going forward|in the future|moving forward|by default|"
                    "as a rule|remember|standard|convention|policy|have to|has to|need to"),
    ("temporary", "for now|right now|this time|today|tonight|at the moment|in this pr|"
                  "in this task|in this session|in this commit|in this branch"),
    ("across_projects", "all my|every repo|every project|any repo|any project|everywhere i|"
                        "my machine|my setup|my editor|my shell|my laptop|my workflow|"
                        "my project|i'm on|i am on|personally"),
    ("please_can_you", "can you|could you|would you"),
    # how a rule is named or introduced in chat ("our convention is …", "remember: …")
    ("rule_noun", "convention|our rule|the rule|house rule|policy|rule of thumb|the way we|"
                  "standard practice|our standard|as a rule|across the board|around here"),
    ("aside_lead", "fyi|heads up|heads-up|just so you know|for context|quick context|"
                   "keep in mind|for the record|remember:|remember,|reminder|worth knowing|"
                   "note for|note that|btw|by the way|just a note"),
    # who does it: a thing done by hand, or left to the product ("… for the user, not you")
    ("unattended", "by hand|manually|automatically|on its own|by itself|for the user|"
                   "yourself|directly"),
    ("project_scope", "this repo|this project|this codebase|the codebase|the repo|in our |"
                      "throughout|whole project|whole repo|whole app|entire "),
    # a rule's reach: the whole project, not the change in hand
    ("pervasive", "everywhere|throughout|across the|across all|consistently|in every |"
                  "all over|whole codebase|every file|every page|every screen"),
    ("task_scope", "this run|this release|this bug|this pr|this one|this test|this check|"
                   "this experiment|this change|this file|this branch|that last|"
                   "right away|yet|before you|when you're done|while you're at it"),
))
#: The same, by the longest word of each phrase: (the phrase's words joined, cue). A phrase
#: fires when its words occur in a row in the sentence's words; only the phrases whose longest
#: word the sentence holds are tested (a few per sentence, not a hundred substring scans).
_PHRASES_OF_WORD: dict[str, tuple[tuple[str, str], ...]] = {}
for _name, _strings in _PHRASE_CUES:
    for _string in _strings:
        _words_of = _TOKENS.findall(_string)
        _anchor = max(_words_of, key=len)
        _PHRASES_OF_WORD[_anchor] = _PHRASES_OF_WORD.get(_anchor, ()) + (
            (f" {' '.join(_words_of)} ", _name),)
_MAKE_SURE = ("make sure", "ensure")
_RULE_SCOPE = ("everywhere", "always", "every ", "all ", "from now on", "going forward",
               "throughout", "never")


def featurize(sentence: str, position: int = 0, count: int = 1, after_options: bool | None = None,
              version: int = 1) -> tuple[list[int], list[int]]:
    """``(hashed, cues)``: sorted distinct bucket indices (each worth 1/sqrt(len)) and the
    indices of the cues that fire (each worth 1). ``position`` is the sentence's index in its
    prompt of ``count`` sentences; ``after_options`` whether the prompt answers an agent's
    question or options (None: unknown, or not an answer); ``version`` which of ``VERSIONS``
    the weights were trained with."""
    hashed, cues = features(sentence, position, count, after_options, version)
    return sorted(hashed), sorted(cues)


def features(sentence: str, position: int = 0, count: int = 1,
             after_options: bool | None = None, version: int = 1) -> tuple[set[int], set[int]]:
    """``featurize``'s two sets, unsorted: what inference sums (the order of a sum of integer
    weights does not matter), without sorting them for every sentence."""
    lower = _DIGITS.sub("0", sentence.lower().replace("\u2019", "'"))
    words = _TOKENS.findall(lower)
    hashed = set(map(_WORDS.__getitem__, words))
    hashed.update(map(_PAIRS.__getitem__, zip(words, words[1:])))
    hashed.add(_FIRSTS[" ".join(words[:1])])
    hashed.add(_FIRSTS[" ".join(words[:2])])
    return hashed, _cues(sentence, words, position, count, after_options, version)


def cue_names(sentence: str, position: int = 0, count: int = 1,
              after_options: bool | None = None, version: int = 1) -> frozenset[str]:
    """The named cues (``CUES``) that fire for ``sentence``: its shape as the model sees it,
    for a rule that asks how a sentence is built ("imperative", "declarative_modal" …)."""
    lower = _DIGITS.sub("0", sentence.lower().replace("\u2019", "'"))
    fired = _cues(sentence, _TOKENS.findall(lower), position, count, after_options, version)
    return frozenset(CUES[index - BUCKETS] for index in fired)


#: Capture's memory stays bounded: each cache below is cleared when it holds this many keys.
_WORDS_MAX = 1 << 16
#: Word pairs recur far less than words (at the 200 MB benchmark 36,000 pairs looked up,
#: 15,600 distinct: ~2.9 MB kept as two-word tuples while the statements rule ran, issue 29),
#: so fewer are kept: a miss is one CRC-32 of the pair.
_PAIRS_MAX = 1 << 12


class _Buckets(dict):
    """A key's bucket, computed on a miss (``__missing__``) and kept: a hit is one C-level
    lookup, with no Python call (most words and bigrams recur). Cleared when full (word pairs
    at ``_PAIRS_MAX``). Pure: a miss computes the same bucket."""

    def __init__(self, seed: int, joined: bool = False):
        super().__init__()
        self._seed = seed
        self._joined = joined

    def __missing__(self, key):
        text = " ".join(key) if self._joined else key
        found = crc32(text.encode(), self._seed) & _MASK
        if len(self) >= (min(_WORDS_MAX, _PAIRS_MAX) if self._joined else _WORDS_MAX):
            self.clear()
        self[key] = found
        return found


#: A word's bucket by word, a bigram's by its two words, a sentence's first one or two words'.
_WORDS = _Buckets(_WORD)
_PAIRS = _Buckets(_BIGRAM, joined=True)
_FIRSTS = _Buckets(_FIRST)


def clear_buckets() -> None:
    """Let go of every bucket kept: a capture pass does once its sentences are read
    (``capture.extract.pass_caches``); a miss computes the same bucket again."""
    for kept in (_WORDS, _PAIRS, _FIRSTS):
        kept.clear()


def _cues(sentence: str, words: list[str], position: int, count: int,
          after_options: bool | None, version: int = 1) -> set[int]:
    distinct = set(words)
    fired = [name for word in distinct for name in _CUES_OF_WORD.get(word, ())]
    lower = sentence.lower()
    fired += [name for name, needs, pattern in _SHAPE_CUES
              if any(char in lower for char in needs) and pattern.search(lower)]
    candidates = [pair for word in distinct for pair in _PHRASES_OF_WORD.get(word, ())]
    if candidates:
        joined = f" {' '.join(words)} "
        fired += [name for phrase, name in candidates if phrase in joined]
    if words and words[0] in ("always", "never") or lower.startswith(("don't ever", "please always",
                                                                      "please never")):
        fired.append("opens_always_never")
    # "sure" is in both of _MAKE_SURE: most sentences stop at that one scan
    if "sure" in lower and any(s in lower for s in _MAKE_SURE) and any(
            s in lower for s in _RULE_SCOPE):
        fired.append("make_sure_scope")
    if words and words[0] in _QUESTION_WORDS:
        fired.append("starts_question_word")
    fired += _placement(position, count, after_options)
    fired.append(_length(len(words)))
    if sentence.rstrip().endswith("?"):
        fired.append("ends_question")
    fired += phrase_hits(sentence)
    fired += _shape(sentence, words, distinct, version)
    return set(map(_CUE_INDEX.__getitem__, fired))


def _placement(position: int, count: int, after_options: bool | None) -> list[str]:
    fired = []
    if count <= 1:
        fired.append("pos_only")
    elif position == 0:
        fired.append("pos_first")
    elif position >= count - 1:
        fired.append("pos_last")
    if count >= 4:
        fired.append("prompt_long")
    if after_options:
        fired.append("after_options")
    return fired


def _length(n: int) -> str:
    for limit, name in ((2, "words_1_2"), (5, "words_3_5"), (12, "words_6_12"),
                        (25, "words_13_25")):
        if n <= limit:
            return name
    return "words_26_plus"


# --- the sentence's shape ----------------------------------------------------------------------
# Cues that say how a sentence is built rather than what it is about, so that they carry from
# one repository to the next (in grouped cross-validation, words learned from one repository
# mostly did not): an imperative with a universal scope ("keep all scaffolding modular") against
# one pointed at the thing in hand ("fix this"), a modal with a third-person subject ("the
# footer should show the status") against one addressed to the agent ("you should run it"), a
# contrast ("use X, not Y"), a report of what happened ("I pushed", "still failing"), a rule
# named or asked for ("add a rule that ..."). Word lists are plain English, never a
# repository's words.

#: Words that open a sentence without being its verb ("ok so", "please also").
_LEAD_WORDS = frozenset("please also and ok okay so just now then but yes no oh alright great "
                        "good cool thanks fyi btw note important ah well hey again".split())
#: Verbs a sentence to a coding agent opens with when it is an imperative.
_VERBS = frozenset("""add adjust align allow analyse analyze append apply archive ask assume avoid
build bump call change check clean cleanup clear clone commit compare configure confirm consider
continue convert copy create debug define delete deploy describe design document do double drop
edit enable disable ensure explain explore export extract fetch find finish fix follow format
generate get give go grab handle help hide implement import improve include install integrate
investigate keep kill label launch let leave limit lint list load log look make mark merge migrate
mock modify move name open optimize organize organise pass patch pick pin place plan preserve
prefer prepare print proceed publish pull push put raise read rebase record refactor reference
refer regenerate reinstall release reload remove rename render reorder replace report research
reset resolve respect restart restore retry return review revert rewrite run save scan search see
send separate set setup share show simplify skip sort split start stop store structure submit
summarize summarise support switch sync take tell test think trigger try turn undo uninstall unify
update upgrade upload use validate verify wait wire wrap write""".split())
_NEGATIVE_OPEN = frozenset("don't dont never avoid".split())
_DEICTIC = frozenset("this that these those it them here".split())
_UNIVERSAL = frozenset("all every any always never whenever each no everything everywhere "
                       "anything nothing".split())
_GENERIC = (" every time ", " each time ", " any time ", " anytime ", " at all times ",
            " ever again ", " in general ", " generally ", " as much as possible ",
            " whenever ", " by default ", " going forward ", " from now on ", " in the future ",
            " all future ", " every new ", " any new ", " each new ", " for all ", " in all ",
            " across all ", " as a rule ", " as a general ", " in every ")
#: A word each of ``_GENERIC`` holds: the phrases are scanned for only when one is present.
_GENERIC_ANCHORS = frozenset("time anytime times again general generally possible whenever "
                             "default forward now future new all rule every".split())
#: The same, by anchor word: the phrases that hold it.
_GENERIC_OF_WORD = {word: tuple(phrase for phrase in _GENERIC if f" {word} " in phrase)
                    for word in _GENERIC_ANCHORS}
_STATUS = frozenset("still failing failed fails broken error errors crash crashed crashes "
                    "doesn't isn't didn't wasn't aren't weren't currently seems showing shows "
                    "getting".split())
_MODALS = frozenset("should must shall need needs have has shouldn't mustn't".split())
_NEEDS_TO = frozenset("have has need needs".split())
_RULE_WORDS = frozenset("rule rules guideline guidelines standing standard standards doctrine "
                        "principle principles practice practices policy convention "
                        "conventions".split())
_WRITE_WORDS = frozenset("create add make write new record update".split())
_YOU = frozenset("you u you'll you're".split())
_I = frozenset("i i'd i'm".split())
_I_PAST = frozenset("i i've".split())
_WE_OUR = frozenset("we we're our".split())
_I_DESIRE = frozenset("i i'd".split())
_CONDITIONAL = frozenset("when whenever if once before after unless while".split())
_PAST_I = lazy_regex(r"\bi(?:'ve| have| had)? (?:did|made|set|tried|added|ran|pushed|changed|"
                     r"installed|removed|created|fixed|updated|authenticated|noticed|saw|found|"
                     r"asked|meant|said)\b")
_CONTRAST = lazy_regex(r"(?:,|;|\s-|\u2014)\s*(?:and\s+)?not\s+[\w`'\"./-]+"
                       r"(?:\s+[\w`'\"./-]+){0,3}\s*[.!]?$")
#: An identifier or a file name: camelCase, snake_case, or a name with a source file's suffix.
_CASE_CHANGE = lazy_regex(r"[a-z0-9][A-Z]")
_CAMEL = lazy_regex(r"[a-z][a-z0-9]*[A-Z]")
_SNAKE = lazy_regex(r"\w_\w")
_FILE_NAME = lazy_regex(r"\w\.(?:py|ts|tsx|js|json|md|rs|go|toml|yaml|yml|sh|mdc)\b")
#: The team's practice in the simple present ("we use", "we never deploy"): how a project's
#: standing choice is said.
_WE_PRESENT = lazy_regex(r"\b(?:we|our team)\s+(?:always\s+|never\s+|don't\s+|do not\s+|"
                         r"only\s+)?(?:use|prefer|keep|avoid|follow|run|deploy|write|store|ship|"
                         r"host|target|rely|work|build|release|test|want|need)\b")
#: The same practice in the progressive ("we're using", "we are keeping", "our team is
#: targeting"), feature version 2 only (``VERSIONS``). Only verbs of a standing practice:
#: "we're working on …" is the day's status.
_WE_PROGRESSIVE = lazy_regex(r"\b(?:we're|we are|our team is)\s+(?:always\s+|only\s+|not\s+)?"
                             r"(?:using|keeping|avoiding|following|deploying|storing|shipping|"
                             r"hosting|targeting|relying|sticking)\b")
_DESIRE = lazy_regex(r"\bi(?:'d| would)? (?:like|want|prefer|love|don't want|do not want|"
                     r"don't like|don't love|hate)\b")
_NON_ASCII = lazy_regex(r"[^\x00-\x7f]")
_BEYOND_LATIN = lazy_regex(r"[^\x00-\u024f]")


def _shape(sentence: str, words: list[str], distinct: set[str], version: int = 1) -> list[str]:
    """The shape cues of one sentence (names from ``CUES``); ``words`` as ``_TOKENS`` cuts
    the lowercased sentence, ``distinct`` the set of them. Each search runs only when the
    sentence holds what every match needs (a word, "_", ".", two letters of different case,
    a character outside ASCII): most sentences run none of them."""
    lower = sentence.lower().replace("\u2019", "'")
    start = 0
    while start < len(words) and (words[start] in _LEAD_WORDS or words[start] in ",:;!-"):
        start += 1
    rest = words[start:]
    joined = f" {' '.join(words)} "
    first = rest[0] if rest else ""
    universal = not distinct.isdisjoint(_UNIVERSAL)
    generic = any(phrase in joined for word in _GENERIC_ANCHORS.intersection(distinct)
                  for phrase in _GENERIC_OF_WORD[word])
    fired = []
    if first in _VERBS or first in _NEGATIVE_OPEN or (
            len(rest) > 1 and (first in ("always", "never") or rest[:2] == ["do", "not"])):
        fired.append("imperative")
        if first in _NEGATIVE_OPEN or first in ("do", "never"):
            fired.append("imp_negative")
        if universal or generic:
            fired.append("imp_universal")
        elif not _DEICTIC.isdisjoint(rest[1:5]):
            fired.append("imp_deictic")
        else:
            fired.append("imp_plain")
    if generic:
        fired.append("generic_phrase")
    if not distinct.isdisjoint(_STATUS):
        fired.append("status")
    if not distinct.isdisjoint(_I_PAST) and _PAST_I.search(lower):
        fired.append("past_i")
    if not distinct.isdisjoint(_MODALS):
        fired += _modal_subject(words, start)
    if not distinct.isdisjoint(_RULE_WORDS):
        fired.append("rule_word")
        if not distinct.isdisjoint(_WRITE_WORDS):
            fired.append("write_rule")
    if "not" in distinct and _CONTRAST.search(lower):
        fired.append("contrast_not")
    if ("_" in sentence and _SNAKE.search(sentence)) or (
            "." in sentence and _FILE_NAME.search(sentence)) or (
            _CASE_CHANGE.search(sentence) and _CAMEL.search(sentence)):
        fired.append("identifier")
    if not distinct.isdisjoint(_WE_OUR) and (_WE_PRESENT.search(lower) or (
            version >= 2 and _WE_PROGRESSIVE.search(lower))):
        fired.append("we_present")
    if not distinct.isdisjoint(_I_DESIRE) and _DESIRE.search(lower):
        fired.append("desire")
        if universal or generic:
            fired.append("desire_generic")
    if first in _CONDITIONAL:
        fired.append("conditional_start")
        if not distinct.isdisjoint(_MODALS) or "always" in distinct or "never" in distinct:
            fired.append("cond_modal")
    if not sentence.isascii() and (_BEYOND_LATIN.search(sentence)
                                   or len(_NON_ASCII.findall(sentence)) > 3):
        fired.append("non_ascii")
    if not distinct.isdisjoint(_DEICTIC):
        fired.append("deictic_any")
    if universal:
        fired.append("universal_any")
    return fired


def _modal_subject(words: list[str], start: int) -> list[str]:
    """Who a modal in the first ten words is said of: the agent ("you should …", a request
    or a correction) or a thing ("the footer should …", how the product must behave); a
    sentence about "I" fires neither."""
    for i, word in enumerate(words[:10]):
        if word in _MODALS and (word not in _NEEDS_TO
                                or (i + 1 < len(words) and words[i + 1] == "to")):
            subject = words[start:i]
            if not _YOU.isdisjoint(subject):
                return ["you_modal"]
            if subject and _I.isdisjoint(subject):
                return ["declarative_modal"]
            return []
    return []
