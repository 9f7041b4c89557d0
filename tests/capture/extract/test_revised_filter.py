"""The messages ``revised_away`` holds against each request are only those that can revise
one (``may_revise``, or a request kept at their line): the answer must be the one holding
every later message against every request gives (issue 29), on random requests and words."""

from __future__ import annotations

import random

from claimgraph.capture.extract import revised

#: Pieces the random texts are made of: named things, words of one subject, and the cues
#: of each way a later message revises (retract, change, defer, focus, turn down, take back,
#: temporary, narrow), with questions and negations among them.
_PIECES = ("`export`", "`pack`", "'zip'", "the export", "zip the files", "by default",
           "a separate command", "never mind", "scratch that", "let's not", "after all",
           "instead", "rather", "not", "don't add", "do not show", "the long title",
           "title of the page", "forget", "Redis", "spaces", "tabs", "actually,", "No.",
           "leave that for later", "add a TODO", "park", "for now", "focus on", "the parser",
           "was only temporary", "ignore what I said about", "the fixtures", "it", "that",
           "should", "use", "keep", "plain folders", "cache", "`thumbs.db`", "?", ".", ",",
           "drop the cache", "forget Redis", "Redis cache", "indent with tabs", "Wait,",
           "no longer needed", "the Redis cache was only temporary", "I take that back about")
#: Short requests on a few subjects, so that a later message can share most of their words.
_REQUESTS = ("use Redis for the cache", "cache thumbnails in Redis", "indent with tabs",
             "`export` should zip the files by default", "show the long title of the page",
             "keep the Redis cache warm", "zip the export files")
_STANCES = ("x/convention", "x/decided", "core/prefers", "core/decided-against", "x/lesson")


def _text(rng: random.Random) -> str:
    sentences = []
    for _ in range(rng.randint(1, 3)):
        words = " ".join(rng.choice(_PIECES) for _ in range(rng.randint(2, 9)))
        sentences.append(words + rng.choice((".", "?", "!", "")))
    return " ".join(sentences)


def _candidate(rng: random.Random, line: int) -> dict:
    stance = rng.choice(_REQUESTS) if rng.random() < 0.6 else _text(rng)
    return {"subject": "shop", "predicate": rng.choice(_STANCES), "object": stance,
            "scope": "project", "rule": "statements",
            "source_type": rng.choice(("user-assertion", "user-assertion", "agent-note")),
            "evidence": [f"transcript#L{line}: {stance}"]}


def _said(rng: random.Random) -> str:
    """A message: random pieces, or a request said again with a change cue (what a request
    kept at the same line carries)."""
    if rng.random() < 0.3:
        return f"{rng.choice(_REQUESTS)} {rng.choice(('instead', 'separately', 'rather'))}."
    return _text(rng)


def _kept_as_said(rng: random.Random, line: int, text: str) -> dict:
    """The person's message at ``line`` kept as a request of its own."""
    return {**_candidate(rng, line), "object": text.rstrip("."),
            "source_type": "user-assertion", "predicate": "x/decided"}


def _every_pair(kept: list[dict], said: list[tuple[int, str]]) -> list[dict]:
    """The answer of holding every later message against every request (the rule as it
    reads without the filter)."""
    parts = [(at, revised.sentences(text)) for at, text in said]
    requests = [(line, found) for found in kept for line in [revised.taught_at(found)]
                if line is not None and revised.is_request(found)]
    by_line: dict[int, list[dict]] = {}
    for line, found in requests:
        by_line.setdefault(line, []).append(found)
    gone = {id(found) for line, found in requests
            if any(at > line and revised._revised_by(found, sentences,
                                                      revised._kept_at(at, found, by_line))
                   for at, sentences in parts)}
    return [found for found in kept if id(found) not in gone]


def test_the_filtered_answer_is_the_one_of_every_pair():
    revisions = 0
    for rng in (random.Random(seed) for seed in (1, 29)):
        for _ in range(400):
            revisions += _check_one(rng)
    assert revisions >= 20  # the random words do revise: the comparison is not of two no-ops


def _check_one(rng: random.Random) -> bool:
    """One random session: the filtered answer is every pair's; whether a request went."""
    lines = sorted(rng.sample(range(1, 60), rng.randint(2, 10)))
    said = [(line, _said(rng)) for line in lines]
    kept = [_candidate(rng, rng.choice(lines)) for _ in range(rng.randint(1, 6))]
    kept += [_kept_as_said(rng, line, text) for line, text in said if rng.random() < 0.3]
    expected = _every_pair(kept, said)
    assert revised.revised_away(kept, said) == expected
    return len(expected) < len(kept)


def test_a_message_without_a_cue_or_a_request_revises_nothing():
    assert not revised.may_revise(revised.sentences("The export writes plain folders."))
    assert revised.may_revise(revised.sentences("Never mind the export."))
    assert revised.may_revise(revised.sentences("For 'zip' just add a TODO for later."))
