"""Plain-Python inference for the shipped sentence model (no numpy, no scikit-learn).

The weights file holds the class names, the bias per class, and the weights per class as
int16 (base64, little-endian) with one scale; a score is the bias plus the weights of the
hashed features that fire (scaled to unit length) plus those of the named cues, and the
softmax of the scores is the class distribution -- exactly what scikit-learn's
``predict_proba`` computes, up to the int16 rounding of the weights (see
tests/capture/classify). The file is read once per process, on the first sentence.

A feature's seven int16 weights are kept packed in one Python integer (``_pack``), so that
summing the features of a sentence is one C-level ``sum`` of integers, not seven sums over
tuples; the sum is exact (integers), and the seven totals are cut out of it afterwards. It
halved the cost of the sums (docs/capture.md, "The sentence model").
"""

from __future__ import annotations

import base64
import json
import math
import os
import sys
from array import array
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Collection

from claimgraph.capture.classify.features import DIMENSIONS, VERSIONS, features
from claimgraph.capture.classify.phrases import classify

WEIGHTS_FILE = "sentence_model.json"
#: Evaluation only: a weights file to use instead of the shipped one, so that
#: train/loro.py can score capture with weights retrained without one repository while the
#: shipped file stays untouched. Read when capture first classifies a sentence, never by the
#: hooks (docs/capture.md, "The sentence model").
EVAL_WEIGHTS_ENV = "CLAIMGRAPH_EVAL_SENTENCE_WEIGHTS"
DURABLE = ("convention", "decision", "preference", "personal")
_REST = ("request", "question", "other")


@dataclass(frozen=True)
class Verdict:
    """What the model says of one sentence: ``label`` the class it stores it as (a durable
    class when ``kept``, else the likeliest other class), ``score`` the probability that it is
    durable at all, and ``probabilities`` by class. ``kept``: the score reaches the threshold,
    or the old phrase lists call the sentence a statement and the score reaches the (lower)
    phrase floor -- the lists propose, the model can veto (docs/capture.md)."""

    label: str
    score: float
    kept: bool
    probabilities: dict[str, float]


@dataclass(frozen=True)
class Model:
    classes: tuple[str, ...]
    bias: tuple[float, ...]
    #: One integer per feature: its int16 weight for each class, in ``classes`` order, each
    #: shifted by ``_OFFSET`` (so never negative) in a field of ``_FIELD`` bits (``_pack``).
    packed: list[int]
    #: A weight's int16 value times ``scale`` is the weight.
    scale: float
    threshold: float
    #: A sentence the old phrase lists call a statement is kept from this P(durable) on.
    phrase_floor: float = 1.0
    #: The feature version the weights were trained with (``features.VERSIONS``).
    version: int = 1

    @classmethod
    def from_json(cls, text: str) -> Model:
        data = json.loads(text)
        if data.get("dimensions") != DIMENSIONS:
            raise ValueError(f"weights for {data.get('dimensions')} features, the code makes "
                             f"{DIMENSIONS}: retrain (train/train_classifier.py)")
        stored = base64.b64decode(data["weights"])  # int16, little-endian, class by class
        if set(data["classes"]) != set(DURABLE + _REST):
            raise ValueError(f"weights for classes {data['classes']}: retrain "
                             "(train/train_classifier.py)")
        packed = _packed_rows(stored, len(data["classes"]))
        version = data.get("features", 1)
        if version not in VERSIONS:
            raise ValueError(f"weights for feature version {version}, the code knows "
                             f"{VERSIONS}: retrain (train/train_classifier.py)")
        return cls(tuple(data["classes"]), tuple(data["bias"]), packed, data["scale"],
                   data["threshold"], data.get("phrase_floor", 1.0), version)

    def probabilities(self, sentence: str, position: int = 0, count: int = 1,
                      after_options: bool | None = None) -> dict[str, float]:
        hashed, cues = features(sentence, position, count, after_options, self.version)
        unit = 1.0 / math.sqrt(len(hashed)) if hashed else 0.0
        words, named = self._sums(hashed), self._sums(cues)
        scores = [b + unit * w + c for b, w, c in zip(self.bias, words, named)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return {name: e / total for name, e in zip(self.classes, exps)}

    def _sums(self, indices: Collection[int]) -> list[float]:
        """Per class, the sum of the weights of ``features``: one C-level sum of the packed
        integers, then each class's field cut out and its offsets taken off. Exact while
        fewer than ``_MAX_FEATURES`` features are summed (a field cannot overflow)."""
        if not indices:
            return [0.0] * len(self.bias)
        if len(indices) >= _MAX_FEATURES:
            raise ValueError(f"{len(indices)} features: at most {_MAX_FEATURES - 1} are summed")
        total = sum(map(self.packed.__getitem__, indices))
        offsets, scale = len(indices) * _OFFSET, self.scale
        return [(((total >> shift) & _FIELD_MASK) - offsets) * scale
                for shift in range(0, _FIELD * len(self.bias), _FIELD)]

    def verdict(self, sentence: str, position: int = 0, count: int = 1,
                after_options: bool | None = None) -> Verdict:
        probs = self.probabilities(sentence, position, count, after_options)
        durable = sum(map(probs.__getitem__, DURABLE))
        kept = durable >= self.threshold or (durable >= self.phrase_floor
                                             and _phrase_statement(sentence))
        pool = DURABLE if kept else _REST
        label = max(pool, key=lambda name: (probs[name], name))
        return Verdict(label, durable, kept, probs)


#: How a feature's class weights are packed into one integer (``_pack``): int16 weights, each
#: plus ``_OFFSET`` (0 .. 65535), in ``_FIELD``-bit fields; a sum of fewer than
#: ``_MAX_FEATURES`` of them never carries from one field into the next.
_OFFSET = 1 << 15
_FIELD = 32
_FIELD_MASK = (1 << _FIELD) - 1
_MAX_FEATURES = 1 << (_FIELD - 16)


def _pack(weights: Any) -> int:
    """One integer holding ``weights`` (int16, in class order): class i in bits
    [32 i, 32 i + 32), as its weight plus ``_OFFSET``."""
    return sum((w + _OFFSET) << (_FIELD * i) for i, w in enumerate(weights))


#: A weight's high byte with its sign bit flipped: an int16 plus ``_OFFSET``, as uint16.
_FLIP_SIGN = bytes(byte ^ 0x80 for byte in range(256))


def _packed_rows(stored: bytes, classes: int) -> list[int]:
    """``_pack`` of each feature's weights (``stored``: little-endian int16, one row of
    ``DIMENSIONS`` per class), made from the bytes: a weight plus ``_OFFSET`` is its two
    bytes with the sign bit flipped, and a packed integer is those in ``_FIELD``-bit
    little-endian fields, class after class. Packing each feature in Python was most of
    loading the model, which every capture does. One integer object for every unused
    feature: the model costs a capture a few MB of memory, not ten."""
    zero = _pack((0,) * classes)
    if len(stored) != 2 * classes * DIMENSIONS:  # not what training writes: as read before
        raw = array("h", stored)
        if sys.byteorder != "little":
            raw.byteswap()
        rows = [raw[i * DIMENSIONS:(i + 1) * DIMENSIONS] for i in range(classes)]
        return [_pack(weights) if any(weights) else zero for weights in zip(*rows)]
    biased = bytearray(stored)
    biased[1::2] = biased[1::2].translate(_FLIP_SIGN)
    width = _FIELD // 8
    stride = width * classes
    fields = bytearray(stride * DIMENSIONS)
    for cls in range(classes):
        row = biased[2 * cls * DIMENSIONS:2 * (cls + 1) * DIMENSIONS]
        fields[width * cls::stride] = row[0::2]
        fields[width * cls + 1::stride] = row[1::2]
    unused = zero.to_bytes(stride, "little")
    return [zero if chunk == unused else int.from_bytes(chunk, "little")
            for chunk in map(fields.__getitem__, map(slice, range(0, len(fields), stride),
                                                      range(stride, len(fields) + 1, stride)))]


def _phrase_statement(sentence: str) -> bool:
    return classify(sentence) is not None


@lru_cache(maxsize=1)
def shipped() -> Model:
    """The model shipped with the package (or, for evaluation only, the weights file
    ``EVAL_WEIGHTS_ENV`` names)."""
    override = os.environ.get(EVAL_WEIGHTS_ENV)
    if override:
        with open(override, encoding="utf-8") as handle:
            return Model.from_json(handle.read())
    # beside this module, with the builtin ``open`` (as ``logic.redact.rules`` reads its data):
    # ``importlib.resources`` brought ``zipfile`` and its readers into every capture, ~7 ms
    with open(os.path.join(os.path.dirname(__file__), WEIGHTS_FILE), encoding="utf-8") as handle:
        return Model.from_json(handle.read())
