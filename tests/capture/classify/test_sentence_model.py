"""The shipped sentence model: small, loaded lazily, learns rules, leaves requests alone, and
is exactly what the training script makes from the labelled data."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import timeit
from pathlib import Path

import pytest

from claimgraph.capture.classify.features import CUES, DIMENSIONS, featurize
from claimgraph.capture.classify.model import EVAL_WEIGHTS_ENV, WEIGHTS_FILE, Model, shipped
from claimgraph.capture.extract.statements import statement_of

from .sentences import FRESH_REQUESTS, FRESH_RULES, MORE_REQUESTS, REQUESTS, RULES

REPO = Path(__file__).resolve().parents[3]
SHIPPED = REPO / "src" / "claimgraph" / "capture" / "classify" / WEIGHTS_FILE
TRAINING = REPO / "train" / "data" / "labelled.jsonl"
HAVE_SKLEARN = importlib.util.find_spec("sklearn") is not None


def test_the_weights_file_is_small_and_matches_the_features():
    assert SHIPPED.stat().st_size <= 1024 * 1024
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert data["dimensions"] == DIMENSIONS
    assert data["classes"] == ["convention", "decision", "preference", "personal", "request",
                               "question", "other"]
    assert 0.5 <= data["threshold"] < 1


def test_weights_for_other_features_are_refused():
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data["dimensions"] += 1
    with pytest.raises(ValueError, match="retrain"):
        Model.from_json(json.dumps(data))


def test_packed_sums_equal_the_plain_weighted_sum():
    """The weights are summed packed in integers (``model._pack``): extreme int16 weights of
    both signs, on many features at once, give exactly the plain float computation."""
    import base64
    import math
    from array import array

    from claimgraph.capture.classify.model import _MAX_FEATURES

    classes = ["convention", "decision", "preference", "personal", "request", "question",
               "other"]
    weights = array("h", [((i * 7919 + c * 104729) % 65536) - 32768
                          for c in range(len(classes)) for i in range(DIMENSIONS)])
    if sys.byteorder != "little":
        weights.byteswap()
    scale = 1.5e-4
    data = {"format": 1, "classes": classes, "dimensions": DIMENSIONS, "threshold": 0.7,
            "bias": [0.1 * c for c in range(len(classes))], "scale": scale,
            "weights": base64.b64encode(weights.tobytes()).decode("ascii")}
    model = Model.from_json(json.dumps(data))
    if sys.byteorder != "little":
        weights.byteswap()
    for sentence in ("Never commit to main.", "ok", "a " * 300 + "long one, with `code`?"):
        hashed, cues = featurize(sentence, 1, 3, True)
        unit = 1.0 / math.sqrt(len(hashed))
        scores = [data["bias"][c]
                  + unit * sum(weights[c * DIMENSIONS + f] * scale for f in hashed)
                  + sum(weights[c * DIMENSIONS + f] * scale for f in cues)
                  for c in range(len(classes))]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        want = [e / sum(exps) for e in exps]
        got = model.probabilities(sentence, 1, 3, True)
        assert [got[name] for name in classes] == pytest.approx(want, rel=1e-9, abs=1e-12)
    with pytest.raises(ValueError, match="at most"):
        model._sums(list(range(_MAX_FEATURES)))


def test_features_are_a_pure_function_of_the_sentence():
    first = featurize("Never commit to main.", 0, 2, True)
    assert first == featurize("Never commit to main.", 0, 2, True)
    assert first != featurize("Never commit to main.", 1, 2, None)


def test_feature_version_2_reads_the_teams_practice_in_the_progressive():
    cue = DIMENSIONS - len(CUES) + CUES.index("we_present")
    for sentence in ("let's make sure we're using US English everywhere",
                     "We are keeping the API versioned"):
        assert cue in featurize(sentence, version=2)[1]
        assert cue not in featurize(sentence)[1]
    assert cue not in featurize("we're working on the login page today", version=2)[1]
    assert cue in featurize("we use uv for everything")[1]


def test_weights_name_the_feature_version_they_were_trained_with():
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert "features" not in data and Model.from_json(json.dumps(data)).version == 1
    data["features"] = 2
    assert Model.from_json(json.dumps(data)).version == 2
    data["features"] = 3
    with pytest.raises(ValueError, match="retrain"):
        Model.from_json(json.dumps(data))


#: Every file the training script learns from (train/train_classifier.py, ``training_rows``,
#: the candidate's too).
TRAINING_FILES = (TRAINING, REPO / "train" / "data" / "authored.jsonl",
                  REPO / "train" / "data" / "labelled-gold-sessions.jsonl",
                  REPO / "train" / "data" / "labelled-gold-sessions-2.jsonl",
                  REPO / "train" / "data" / "labelled-conversational.jsonl")
_STOP = frozenset("a an the to of in on for with and or but is are be it this that these those "
                  "we i you our my your me us do don't not no never always by at as from".split())


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_']+", text.lower().replace("\u2019", "'")))


def near_duplicate(held_out: str, row: str) -> bool:
    """``row`` is ``held_out`` or a light rewording of it: the same words for the most part
    (Jaccard >= 0.6 over words), or every content word of a held-out sentence of four or more
    of them."""
    a, b = _words(statement_of(held_out)), _words(row)
    if not a or not b:
        return False
    content = a - _STOP
    return len(a & b) / len(a | b) >= 0.6 or (len(content) >= 4 and content <= b)


def test_the_near_duplicate_check_catches_rewordings():
    assert near_duplicate("Never commit directly to main.", "never commit directly to main!!")
    assert near_duplicate("Our convention is ruff for formatting and linting.",
                          "fyi: the convention here is ruff, for linting and formatting")
    assert not near_duplicate("Never commit directly to main.", "Never log request bodies.")


def test_the_test_sentences_are_not_in_the_training_data():
    """The held-out rules and requests are the test: neither they nor a near-duplicate may be
    a training row (authored rows included), or the test would measure memory."""
    rows = [json.loads(line)["text"] for path in TRAINING_FILES
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    held_out = RULES + REQUESTS + MORE_REQUESTS + FRESH_RULES + FRESH_REQUESTS
    copied = [(sentence, row) for sentence in held_out for row in rows
              if near_duplicate(sentence, row)]
    assert not copied


@pytest.mark.parametrize("sentence", RULES)
def test_a_standing_rule_is_learned(sentence):
    verdict = shipped().verdict(statement_of(sentence))
    assert verdict.kept and verdict.label in ("convention", "decision", "preference"), verdict


@pytest.mark.parametrize("sentence", REQUESTS + MORE_REQUESTS)
def test_a_one_off_request_is_not(sentence):
    verdict = shipped().verdict(statement_of(sentence))
    assert not verdict.kept, verdict


#: The second probe's misses (docs/capture.md, "Known limits"). Strict: a retrain that gets
#: one right fails here until its mark is removed.
FRESH_NOT_YET = {
    "The staging bucket is read-only for everyone except the deploy bot, keep it that way.",
    "Just to be clear, pull requests need a linked ticket before review, that applies to "
    "everything going forward.",
    "For future reference, the mobile team owns everything under apps/ios.",
    "The rule of the house is: if it's not in the changelog, it didn't happen.",
}


@pytest.mark.parametrize("sentence", [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason="the second probe's miss "
                                            "(docs/capture.md, known limits)"))
    if s in FRESH_NOT_YET else s for s in FRESH_RULES + FRESH_REQUESTS])
def test_the_second_probe(sentence):
    verdict = shipped().verdict(statement_of(sentence))
    assert verdict.kept == (sentence in FRESH_RULES), verdict


def test_inference_is_fast_enough(record_property):
    """Measured, not asserted (tests check behaviour; bench/ checks time): µs a sentence."""
    model = shipped()
    sentences = [statement_of(s) for s in RULES + REQUESTS]
    runs = 20
    seconds = timeit.timeit(lambda: [model.verdict(s) for s in sentences], number=runs)
    record_property("us_per_sentence", round(seconds / runs / len(sentences) * 1e6, 1))


def test_the_model_is_not_imported_on_the_hooks_path():
    code = ("import sys, claimgraph.hooks.entry, claimgraph.hooks.session_start; "
            "print(any(n.startswith('claimgraph.capture') for n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@pytest.fixture(scope="module")
def retrained():
    if not HAVE_SKLEARN:
        pytest.skip("scikit-learn is not installed (pip install -e .[train]): cannot retrain")
    sys.path.insert(0, str(REPO / "train"))
    try:
        import train_classifier
    finally:
        sys.path.remove(str(REPO / "train"))
    return train_classifier, train_classifier.build(verbose=False)


def _int16_weights(document: dict) -> list[int]:
    import base64
    from array import array
    raw = array("h", base64.b64decode(document["weights"]))
    if sys.byteorder == "big":
        raw.byteswap()
    return raw.tolist()


@pytest.mark.timeout(900)
def test_a_retrain_reproduces_the_shipped_weights(retrained):
    """The shipped file is what training gives: every field byte for byte but the int16
    weights, which may differ by one step of the scale in a handful of places. The fit is
    tight enough to land on the unique optimum, but the last rounding to int16 depends on
    the machine's floating-point kernels (one CPU gave 92 of 229,852 weights one step off,
    everything else identical): such a retrain is the same model, a changed label or feature
    moves far more weights by far more."""
    _, (weights, _report, _model) = retrained
    ours, shipped_doc = json.loads(weights), json.loads(SHIPPED.read_text(encoding="utf-8"))
    assert {k: v for k, v in ours.items() if k != "weights"} == \
        {k: v for k, v in shipped_doc.items() if k != "weights"}
    a, b = _int16_weights(ours), _int16_weights(shipped_doc)
    assert len(a) == len(b)
    off = [abs(x - y) for x, y in zip(a, b) if x != y]
    assert max(off, default=0) <= 1 and len(off) <= len(a) // 1000, (len(off), max(off))


def test_a_relabel_lands_only_on_the_label_it_was_read_for(tmp_path):
    if not HAVE_SKLEARN:
        pytest.skip("scikit-learn is not installed (pip install -e .[train])")
    sys.path.insert(0, str(REPO / "train"))
    try:
        import train_classifier as train
    finally:
        sys.path.remove(str(REPO / "train"))
    relabels = tmp_path / "relabels.jsonl"
    relabels.write_text(json.dumps({"id": "a", "from": "decision", "to": "request"}) + "\n",
                        encoding="utf-8")
    rows = [{"id": "a", "label": "decision"}, {"id": "b", "label": "decision"}]
    assert [r["label"] for r in train.relabelled(rows, relabels)] == ["request", "decision"]
    with pytest.raises(ValueError, match="relabel"):
        train.relabelled([{"id": "a", "label": "other"}], relabels)


def test_unconfounded_training_learns_placement_from_typed_prompts_only(monkeypatch):
    """A written row (``own``) has no prompt around it: with ``UNCONFOUNDED`` it trains with no
    placement cue and with the training-only WRITTEN column, which the export leaves out; a
    typed row keeps its placement. Without the flag both rows train as before."""
    if not HAVE_SKLEARN:
        pytest.skip("scikit-learn is not installed (pip install -e .[train])")
    sys.path.insert(0, str(REPO / "train"))
    try:
        import train_classifier as train
    finally:
        sys.path.remove(str(REPO / "train"))
    from claimgraph.capture.classify.features import BUCKETS, CUES, DIMENSIONS
    only = BUCKETS + CUES.index("pos_only")
    rows = [{"text": "Releases are cut from the stable branch only.", "own": True},
            {"text": "Releases are cut from the stable branch only.", "sentence_index": 0,
             "n_sentences": 1}]
    before = train.matrix(rows)
    assert before.shape[1] == DIMENSIONS
    assert before[0, only] == 1 and before[1, only] == 1
    monkeypatch.setattr(train, "UNCONFOUNDED", True)
    after = train.matrix(rows)
    assert after.shape[1] == DIMENSIONS + 1
    assert after[0, only] == 0 and after[0, train.WRITTEN] == 1
    assert after[1, only] == 1 and after[1, train.WRITTEN] == 0


def test_the_candidates_relabels_all_land():
    """Every reviewed relabel names a training row and the label it has now."""
    ids = {json.loads(line)["id"]: json.loads(line)["label"]
           for path in TRAINING_FILES for line in path.read_text(encoding="utf-8").splitlines()
           if line.strip()}
    for line in (REPO / "train" / "data" / "relabels-s8.jsonl").read_text(
            encoding="utf-8").splitlines():
        change = json.loads(line)
        assert ids[change["id"]] == change["from"], change


@pytest.mark.timeout(900)
def test_plain_python_inference_equals_sklearn(retrained):
    train, (weights, _report, fitted) = retrained
    rows = train.load()[::37]
    expected = train.probabilities(fitted, train.matrix(rows))
    model = Model.from_json(weights)
    for row, want in zip(rows, expected):
        got = model.probabilities(row["text"], row.get("sentence_index", 0),
                                  row.get("n_sentences", 1), row.get("after_options"))
        # equal up to the int16 rounding of the weights
        assert [got[name] for name in train.CLASSES] == pytest.approx(list(want), abs=2e-3)


def test_evaluation_weights_come_only_from_their_variable(tmp_path):
    """train/loro.py points capture at retrained weights through one variable, read with the
    weights; without it the shipped file is read."""
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    data["threshold"] = 0.99
    other = tmp_path / "weights.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    code = ("from claimgraph.capture.classify.model import shipped; "
            "print(shipped().threshold)")
    env = {k: v for k, v in os.environ.items() if k != EVAL_WEIGHTS_ENV}
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env=env)
    pointed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**env, EVAL_WEIGHTS_ENV: str(other)})
    assert float(plain.stdout) == json.loads(SHIPPED.read_text(encoding="utf-8"))["threshold"]
    assert float(pointed.stdout) == 0.99


@pytest.fixture(scope="module")
def loro():
    if not HAVE_SKLEARN:
        pytest.skip("scikit-learn is not installed (pip install -e .[train])")
    sys.path.insert(0, str(REPO / "train"))
    try:
        import loro
    finally:
        sys.path.remove(str(REPO / "train"))
    return loro


def test_loro_groups_the_gold_sessions_by_repository(loro):
    assert loro.repository("claude-code/FSM1__cipher-box__0ea9.jsonl") == "FSM1/cipher-box"
    groups = loro.gold_files(REPO / "bench" / "memory" / "gold")
    assert len(groups) == 9 and sum(map(len, groups.values())) == 15
    assert all("__" not in repo for repo in groups)


def test_loro_counts_what_the_scorer_found_by_importance(loro, tmp_path):
    gold = tmp_path / "a.gold.json"
    gold.write_text(json.dumps({"transcript": "codex/o__r__1.jsonl", "facts": [
        {"id": "f1", "importance": "high"}, {"id": "f2", "importance": "high"},
        {"id": "f3", "importance": "low"}]}), encoding="utf-8")
    scored = {"captured": 4, "trap_hits": 1, "by_source": {"user-assertion": 2},
              "per_transcript": [{"transcript": "codex/o__r__1.jsonl", "found_ids": ["f2"]}]}
    summary = loro.summarize(scored, [gold])
    assert summary["found"] == {"high": [1, 2], "medium": [0, 0], "low": [0, 1]}
    assert (summary["captured"], summary["user"], summary["trap_hits"]) == (4, 2, 1)
