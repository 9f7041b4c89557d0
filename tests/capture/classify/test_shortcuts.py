"""The sentence model's speed shortcuts change no answer: the phrase lists' word gate and the
per-process word cache give what the plain computation gives (docs/capture.md, "The sentence
model")."""

from __future__ import annotations

import json
from pathlib import Path

from claimgraph.capture.classify import features, phrases
from claimgraph.capture.classify.features import featurize

from .sentences import MORE_REQUESTS, REQUESTS, RULES

TRAINING = Path(__file__).resolve().parents[3] / "train" / "data" / "labelled.jsonl"


def _sentences() -> list[str]:
    rows = [json.loads(line) for line in TRAINING.read_text(encoding="utf-8").splitlines()]
    return [row["text"] for row in rows] + list(RULES + REQUESTS + MORE_REQUESTS) + [
        "No mocks", "no", "Don't stop until the tests pass", "We'll keep the Justfile",
        "(no migration needed)", "I'd like us to migrate to Rust", "for now, skip it",
        "Ideally we'd rather not", "MUSTN'T push on Fridays", "use httpx, not requests"]


def _plain(sentence: str) -> tuple[str | None, list[str]]:
    """The phrase lists without the word gate: every pattern searched on every sentence."""
    text = phrases.core(sentence)
    hits = [name for name, pattern in (
        ("phrase_convention", phrases._CONVENTION), ("phrase_decision", phrases._DECISION),
        ("phrase_preference", phrases._PREFERENCE), ("phrase_personal", phrases._PERSONAL),
        ("phrase_hedge", phrases._HEDGE)) if pattern.search(text)]
    if text.endswith("?") or phrases._QUESTION.match(text):
        hits.append("phrase_question")
    predicate = None
    if (len(text.split()) >= phrases._MIN_WORDS or text.lower().startswith("no ")) and not (
            "phrase_question" in hits or "phrase_hedge" in hits
            or phrases._TEMPORARY.search(text)):
        predicate = next((p for p, name in ((phrases.CONVENTION, "phrase_convention"),
                                            (phrases.DECISION, "phrase_decision"),
                                            (phrases.PREFERS, "phrase_preference"))
                          if name in hits), None)
    return predicate, hits


def test_the_word_gate_never_changes_what_the_phrase_lists_say():
    sentences = _sentences()
    assert len(sentences) > 3000
    fired = 0
    for sentence in sentences:
        phrases._read.cache_clear()
        want = _plain(sentence)
        assert (phrases.classify(sentence), phrases.phrase_hits(sentence)) == want, sentence
        fired += bool(want[1])
    assert fired > 500  # the patterns do fire: the comparison is not of empty lists


def test_each_pattern_is_cut_into_all_its_alternatives():
    for name, alternatives in phrases._PATTERNS:
        whole = {"phrase_convention": phrases._CONVENTION, "phrase_decision": phrases._DECISION,
                 "phrase_preference": phrases._PREFERENCE, "phrase_personal": phrases._PERSONAL,
                 "phrase_hedge": phrases._HEDGE}[name]
        assert "|".join(a.pattern for a, _ in alternatives) == whole.pattern
        assert all(needs for _, needs in alternatives)


def test_the_word_cache_gives_the_same_features_cold_or_warm():
    sentences = _sentences()[:400]
    features._WORDS.clear()
    features._PAIRS.clear()
    cold = [featurize(s, 1, 3, True) for s in sentences]
    warm = [featurize(s, 1, 3, True) for s in sentences]
    assert cold == warm
    assert len(features._WORDS) > 100


def test_the_word_cache_stays_bounded(monkeypatch):
    monkeypatch.setattr(features, "_WORDS_MAX", 8)
    features._WORDS.clear()
    want = featurize("one two three four five six seven eight nine ten eleven")
    assert len(features._WORDS) <= 8 and len(features._PAIRS) <= 8
    features._WORDS.clear()
    features._PAIRS.clear()
    assert featurize("one two three four five six seven eight nine ten eleven") == want


def _phrase_cues_plain(sentence: str) -> set[str]:
    """The phrase cues by their definition: every phrase's words, in a row, among the
    sentence's words (no index by the longest word)."""
    lower = features._DIGITS.sub("0", sentence.lower().replace("\u2019", "'"))
    words = features._TOKENS.findall(lower)
    names = {name for name, _ in features._PHRASE_CUES}
    # a cue may also fire on a single word ("please" as well as "can you")
    fired = {name for word in words for name in features._CUES_OF_WORD.get(word, ())
             if name in names}
    for name, strings in features._PHRASE_CUES:
        for string in strings:
            phrase = features._TOKENS.findall(string)
            if any(words[i:i + len(phrase)] == phrase for i in range(len(words))):
                fired.add(name)
    return fired


def test_the_phrase_cue_index_never_changes_which_cues_fire():
    names = {name for name, _ in features._PHRASE_CUES}
    fired = 0
    for sentence in _sentences():
        hashed, cues = featurize(sentence)
        got = {features.CUES[i - features.BUCKETS] for i in cues} & names
        want = _phrase_cues_plain(sentence)
        assert got == want, sentence
        fired += bool(want)
    assert fired > 300  # the cues do fire: the comparison is not of empty sets


def _hashed_plain(sentence: str) -> list[int]:
    """The hashed features by their definition: CRC-32 of each word, each bigram and the
    first one and two words, each kind with its seed (no cache)."""
    from zlib import crc32

    lower = features._DIGITS.sub("0", sentence.lower().replace("\u2019", "'"))
    words = features._TOKENS.findall(lower)
    found = {crc32(w.encode(), features._WORD) & features._MASK for w in words}
    found |= {crc32(f"{a} {b}".encode(), features._BIGRAM) & features._MASK
              for a, b in zip(words, words[1:])}
    found |= {crc32(" ".join(words[:n]).encode(), features._FIRST) & features._MASK
              for n in (1, 2)}
    return sorted(found)


def test_the_bucket_caches_never_change_the_hashed_features():
    for sentence in _sentences()[:800] + ["", "one", "Ünïcode wörds — here 42"]:
        assert featurize(sentence)[0] == _hashed_plain(sentence), sentence
