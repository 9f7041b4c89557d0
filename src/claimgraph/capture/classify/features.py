"""What the sentence classifier sees of a sentence: hashed n-grams and a few named cues.

One function, ``featurize``, used both by the training script (train/train_classifier.py) and
by inference, so the two can never drift apart. See docs/capture.md ("The sentence model").

Features are meant to generalize past the sentences they were learned from:

- word unigrams and bigrams, the first two words (imperatives and "we'll" / "let's" start a
  sentence), and character 4-grams inside a padded, lowercased copy (they catch "prefer" in
  "preferably" and survive typos). All are hashed with CRC-32 into ``BUCKETS`` buckets, each
  kind with its own seed, so no vocabulary is stored;
- named cues: where the sentence sits in its prompt, whether the prompt answers an agent that
  just asked a question or offered options, its length, modality and negation words, and the
  old phrase lists' verdicts (as evidence for the model, no longer the decision).

Hashed features are binary and scaled to unit length (a long sentence does not win by
length); named cues are 0/1. Everything is a pure function of its arguments: same sentence,
same features, on every machine (CRC-32 is fixed, unlike Python's ``hash``).
"""

from __future__ import annotations

import re
from zlib import crc32

BUCKETS = 1 << 15
_MASK = BUCKETS - 1
_WORD, _BIGRAM, _FIRST, _CHAR = 1, 2, 3, 4
_TOKENS = re.compile(r"[a-z0-9_']+|[^\sa-z0-9_']")
_DIGITS = re.compile(r"\d+")

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
)
_CUE_INDEX = {name: BUCKETS + i for i, name in enumerate(CUES)}
DIMENSIONS = BUCKETS + len(CUES)

_REGEX_CUES = tuple((name, re.compile(pattern, re.IGNORECASE)) for name, pattern in (
    ("starts_question_word", r"^(?:should|could|can|would|will|do|does|did|is|are|was|were|"
                             r"what|why|how|when|where|which|who)\b"),
    ("has_url_or_path", r"https?://|\w/\w|\.\w{1,4}\b"),
    ("has_code_span", r"`[^`]+`"),
    ("always_never", r"\b(?:always|never|ever)\b"),
    ("must_should", r"\b(?:must|should|shall|have to|has to|need to|needs to|required?)\b"),
    ("negation", r"\b(?:not|no|don't|dont|do not|never|avoid|without|nor)\b|n't\b"),
    ("from_now_on", r"\b(?:from now on|going forward|in the future|moving forward|"
                    r"henceforth|by default|as a rule|remember|standard|convention|policy)\b"),
    ("every_all", r"\b(?:every|everywhere|everything|all|any|each|whenever)\b"),
    ("we_our", r"\b(?:we|we're|we'll|we've|our|us)\b"),
    ("i_me_my", r"\b(?:i|i'm|i'd|i've|me|my|mine)\b"),
    ("you_your", r"\b(?:you|your|you're|you'll)\b"),
    ("lets", r"\blet'?s\b"),
    ("will_going_to", r"\b(?:will|going to|gonna|'ll)\b"),
    ("prefer_rather", r"\b(?:prefer\w*|rather|ideally|like to|love|favou?r)\b"),
    ("instead_over", r"\b(?:instead|over|not|vs|versus)\b"),
    ("please_can_you", r"\b(?:please|can you|could you|would you|pls)\b"),
    ("now_then", r"\b(?:now|then|next|first|again|continue|go ahead|proceed)\b"),
    ("this_that_here", r"\b(?:this|that|these|those|here|it)\b"),
    ("temporary", r"\b(?:for now|right now|this time|today|tonight|at the moment|"
                  r"in this (?:pr|task|session|commit|branch))\b"),
    ("project_words", r"\b(?:repo|repository|project|codebase|code base|team)\b"),
    ("across_projects", r"\b(?:all my|every (?:repo|project)|any (?:repo|project)|everywhere i|"
                        r"my (?:machine|setup|editor|shell|laptop|workflow|projects?)|"
                        r"i(?:'m| am) on|personally)\b"),
))


def featurize(sentence: str, position: int = 0, count: int = 1,
              after_options: bool | None = None) -> tuple[list[int], list[int]]:
    """``(hashed, cues)``: sorted distinct bucket indices (each worth 1/sqrt(len)) and the
    indices of the cues that fire (each worth 1). ``position`` is the sentence's index in its
    prompt of ``count`` sentences; ``after_options`` whether the prompt answers an agent's
    question or options (None: unknown, or not an answer)."""
    lower = _DIGITS.sub("0", sentence.lower().replace("\u2019", "'"))
    words = _TOKENS.findall(lower)
    hashed = {crc32(w.encode(), _WORD) & _MASK for w in words}
    hashed.update(crc32(f"{a} {b}".encode(), _BIGRAM) & _MASK for a, b in zip(words, words[1:]))
    hashed.update(crc32(w.encode(), _FIRST) & _MASK for w in (" ".join(words[:1]),
                                                                  " ".join(words[:2])))
    padded = f" {' '.join(lower.split())} ".encode()
    hashed.update(crc32(padded[i:i + 4], _CHAR) & _MASK for i in range(len(padded) - 3))
    return sorted(hashed), _cues(sentence, words, position, count, after_options)


def _cues(sentence: str, words: list[str], position: int, count: int,
          after_options: bool | None) -> list[int]:
    from claimgraph.capture.extract import statements  # the phrase lists, as evidence

    fired = [name for name, pattern in _REGEX_CUES if pattern.search(sentence)]
    fired += _placement(position, count, after_options)
    fired.append(_length(len(words)))
    if sentence.rstrip().endswith("?"):
        fired.append("ends_question")
    fired += statements.phrase_hits(sentence)
    return sorted(_CUE_INDEX[name] for name in set(fired))


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
