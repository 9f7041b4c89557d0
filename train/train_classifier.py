"""Train the sentence model, validate it grouped by repository, and export its weights.

    python train/train_classifier.py            # CV report + write the shipped weights file
    python train/train_classifier.py --check    # retrain; exit 1 if the shipped file differs

Needs scikit-learn (``pip install -e .[train]``); the package never does. Deterministic:
sorted input, a fixed solver with no randomness, weights rounded to int16, JSON written with
sorted keys -- the same labelled data gives the same file byte for byte.

Training rows (``training_rows``): the labelled corpus sentences and the written ones
(train/data/labelled.jsonl's ``own`` rows and train/data/authored.jsonl, all ``own: true``);
``--candidate`` trains the candidate instead (``CANDIDATE``).

Validation (docs/capture.md, "The sentence model"): 5-fold cross-validation grouped by
repository (no repository is ever on both the training and the test side), scored on the
corpus sentences a person typed; the written sentences (``own``) always train and are never
scored. The same sentences score today's phrase lists (``statements.classify``). The threshold
and the phrase-list floor are chosen on whole sessions (``operating_point``).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from array import array
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from claimgraph.capture.classify.features import BUCKETS, CUES, DIMENSIONS, featurize  # noqa: E402
from claimgraph.capture.classify.model import DURABLE, WEIGHTS_FILE  # noqa: E402
from claimgraph.capture.extract import statements  # noqa: E402

DATA = ROOT / "train" / "data" / "labelled.jsonl"
#: Sentences written for what the corpus lacks (``source: authored``, ``own: true``): rules
#: stated the ways people state them in chat, and one-off requests that use a rule's words.
#: They train, never score; ``--without-authored`` shows the model without them
#: (docs/capture.md, "The sentence model").
AUTHORED = ROOT / "train" / "data" / "authored.jsonl"
#: Every sentence the user typed in the sessions of bench/memory/gold-fourth and gold-fifth
#: (five repositories no other file holds), labelled by the guide with the gold files' facts
#: unread (``source`` names the session). They train and are scored like the corpus rows;
#: capture's figures on those two sets are therefore no longer blind (docs/capture.md).
GOLD_SESSIONS = ROOT / "train" / "data" / "labelled-gold-sessions.jsonl"
#: The same for the sessions of gold-sixth, gold-eighth and gold-ninth (ten more repositories;
#: session 7 labelled gold-tenth's and gold-eleventh's too, removed in session 26 because those
#: sets check the split-half gate; train/data/SOURCES.md). NOT in the
#: shipped model, only in the candidate (``CANDIDATE``): retrained with them, the model loses
#: issue 23's probes or adds a trap hit on whole sessions (train/operating_point.py; sessions
#: 7, 8 and 9, docs/capture.md). ``--with-new-sessions`` shows that model's validation and
#: writes nothing.
MORE_SESSIONS = ROOT / "train" / "data" / "labelled-gold-sessions-2.jsonl"
#: Sentences of the corpus prompts no earlier pass had labelled, chosen by a written rule (half
#: with a standing-statement cue, half request or question look-alikes on the same topics, equal
#: in each repository) and labelled blind by train/data/GUIDE.md (session 24,
#: train/data/conversational.md). NOT in the shipped model: retrained with them, the model
#: loses one of issue 23's ten rules at the shipped point and two of the second probe's
#: answers at any point (train/validation-conversational.md). ``--with-conversational`` trains
#: and scores with them (``WITH_CONVERSATIONAL``; train/operating_point.py reads the flag too).
CONVERSATIONAL = ROOT / "train" / "data" / "labelled-conversational.jsonl"
WITH_CONVERSATIONAL = False
OUT = ROOT / "src" / "claimgraph" / "capture" / "classify" / WEIGHTS_FILE
#: Labels the sharpened guide (train/data/GUIDE.md, session 8) settles, each re-read in its
#: prompt without its score (session 9). Applied by the candidate only: the shipped weights were
#: trained before them, and a retrain must give the shipped file (byte for byte but for a few
#: int16 weights one rounding step apart on another CPU's floating-point kernels).
RELABELS = ROOT / "train" / "data" / "relabels-s8.jsonl"
#: The candidate model (``--candidate``, or set by train/operating_point.py ``--candidate``):
#: the relabels above, training rows distinct within a repository (``distinct``), feature
#: version 2 (the team's practice in the progressive, features.py ``VERSIONS``) and the fifteen
#: repositories of ``MORE_SESSIONS``. It ships only when it passes the operating point's rule
#: as committed and is not worse in grouped cross-validation at the shipped point; in session 9
#: it was not shipped (docs/capture.md, "Session 9's candidate").
CANDIDATE = False
CLASSES = ("convention", "decision", "preference", "personal", "request", "question", "other")
C = 4.0
FOLDS = 5
#: The operating point's measurements and choice (train/operating_point.py writes it).
OPERATING_POINT = ROOT / "train" / "operating_point.json"
#: Sentences the labeller marked as not typed by the person (a skill's expansion, an injected
#: tool list, a pasted file or template) train as "other" and are never scored: the statements
#: rule stores what a person SAID, and a skill's or a pasted file's rules stored as "you said"
#: put another author's words in the user's mouth (on the blind held-out sessions, a
#: coordinator skill's "never edit source files" became the project's standing conventions).
NOT_TYPED = ("skill text", "injected", "pasted", "summary-format")
_PHRASE_CLASS = {statements.CONVENTION: "convention", statements.DECISION: "decision",
                 statements.PREFERS: "preference"}


def load(path: Path = DATA) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    for row in rows:
        if not_typed(row):
            row["label"] = "other"
    return sorted(rows, key=lambda row: row["id"])


def training_rows(data: Path = DATA, authored: Path | None = AUTHORED,
                  sessions: Path | None = GOLD_SESSIONS,
                  more: Path | None = None,
                  conversational: Path | None = None) -> list[dict]:
    """Every row the shipped model learns from, in a fixed order; for the candidate
    (``CANDIDATE``), with ``MORE_SESSIONS``, the relabels applied, each sentence of a repository
    once."""
    if CANDIDATE and more is None:
        more = MORE_SESSIONS
    if WITH_CONVERSATIONAL and conversational is None:
        conversational = CONVERSATIONAL
    rows = load(data) + (load(authored) if authored is not None else []) + (
        load(sessions) if sessions is not None else []) + (
        load(more) if more is not None else []) + (
        load(conversational) if conversational is not None else [])
    rows = sorted(rows, key=lambda row: row["id"])
    return distinct(relabelled(rows)) if CANDIDATE else rows


def relabelled(rows: list[dict], path: Path = RELABELS) -> list[dict]:
    """The rows with ``path``'s relabels applied (each names the label it changes: a row whose
    label is not that one is refused, so a relabel never lands on a row it was not read for)."""
    changes = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            change = json.loads(line)
            changes[change["id"]] = change
    out = []
    for row in rows:
        change = changes.get(row["id"])
        if change is not None:
            if row["label"] != change["from"]:
                raise ValueError(f"relabel of {row['id']}: label is {row['label']}, "
                                 f"not {change['from']}")
            row = {**row, "label": change["to"]}
        out.append(row)
    return out


def version() -> int:
    """The feature version trained (features.py ``VERSIONS``): 2 for the candidate."""
    return 2 if CANDIDATE else 1


def distinct(rows: list[dict]) -> list[dict]:
    """The rows without a sentence its repository already had (same words, case and spacing
    aside; the first by id stays). A session repeats a prompt ("yes to all" eleven times in one
    session, a pasted status block four times): each copy would count as one more example of its
    class, and the folds would score one sentence several times. The corpus pool was
    deduplicated when it was cut; the session files (labelled by session) were not."""
    seen: set[tuple[str, str]] = set()
    out = []
    for row in rows:
        key = (row["repo"], " ".join(row["text"].lower().split()))
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def not_typed(row: dict) -> bool:
    return any(mark in row.get("note", "") for mark in NOT_TYPED)


#: The cues that say where a sentence sits in its prompt (``features._placement``). A written
#: sentence (``own``: 480 rows, five in six durable) has no prompt around it and trains as "the
#: whole prompt" (``pos_only``): it teaches the model that a one-sentence prompt is a rule, and
#: so that a rule said inside a longer message is not, while typed prompts say the opposite (7%
#: of one-sentence prompts durable, 11% of the rest; session 26, REPORT). In the shipped model
#: "I value X, both A and B" scores 0.56 as a whole message and 0.06 as the first of two
#: sentences. ``--unconfounded`` (``UNCONFOUNDED``) trains a written row with no placement cue
#: and with ``WRITTEN``, a column of its own that absorbs the written rows' share of durable
#: sentences and that capture never sets (``export`` leaves it out), so placement is learned
#: from typed prompts only. NOT shipped: measured in session 26 it did not raise the missed
#: rules' rank and needs an operating point of its own (every score falls with the prior).
#: Without the column (placement cues only dropped) the confound moved to the middle of a
#: prompt, the one place no placement cue fires.
PLACEMENT = frozenset(CUES.index(name) + BUCKETS
                      for name in ("pos_first", "pos_last", "pos_only", "prompt_long",
                                   "after_options"))
WRITTEN = DIMENSIONS
UNCONFOUNDED = False


def matrix(rows: list[dict]) -> csr_matrix:
    data, indices, indptr = [], [], [0]
    for row in rows:
        hashed, cues = featurize(row["text"], row.get("sentence_index", 0),
                                 row.get("n_sentences", 1), row.get("after_options"), version())
        if UNCONFOUNDED and row.get("own"):
            cues = [cue for cue in cues if cue not in PLACEMENT] + [WRITTEN]
        unit = 1.0 / np.sqrt(len(hashed)) if hashed else 0.0
        indices += hashed + cues
        data += [unit] * len(hashed) + [1.0] * len(cues)
        indptr.append(len(indices))
    return csr_matrix((np.array(data), np.array(indices), np.array(indptr)),
                      shape=(len(rows), DIMENSIONS + 1 if UNCONFOUNDED else DIMENSIONS))


#: The shipped fit converges much further than the cross-validation's (``TOL``): the optimum of
#: an L2-regularized logistic regression is unique, so a tight fit lands on the same weights
#: whatever the machine's floating-point summation order, and the export's rounding (int16
#: weights on a 4-digit scale, 4-decimal biases) then gives the same file byte for byte on one
#: machine; on another CPU a handful of int16 weights (92 of 229,852 in one case) round one
#: step the other way. At 1e-4 a retrain differed in the sixth decimal of the biases.
TOL, SHIPPED_TOL = 1e-4, 1e-8


def fit(x: csr_matrix, y: np.ndarray, c: float = C, tol: float = TOL) -> LogisticRegression:
    model = LogisticRegression(C=c, max_iter=20000, tol=tol, solver="lbfgs")
    return model.fit(x, y)


def probabilities(model: LogisticRegression, x: csr_matrix) -> np.ndarray:
    """Columns in CLASSES order whatever classes this fold's training side held."""
    out = np.zeros((x.shape[0], len(CLASSES)))
    proba = model.predict_proba(x)
    for j, name in enumerate(model.classes_):
        out[:, CLASSES.index(name)] = proba[:, j]
    return out


def decide(proba: np.ndarray, threshold: float, floor: float = 1.0,
           phrases: np.ndarray | None = None) -> list[str]:
    """Each row's class as capture takes it (``Model.verdict``): durable when P(durable) >=
    ``threshold``, or when the phrase lists call it a statement and P(durable) >= ``floor``."""
    durable = proba[:, :len(DURABLE)].sum(axis=1)
    voted = np.zeros(len(proba), bool) if phrases is None else phrases
    labels = []
    for p, d, v in zip(proba, durable, voted):
        kept = d >= threshold or (v and d >= floor)
        pool = range(len(DURABLE)) if kept else range(len(DURABLE), len(CLASSES))
        labels.append(CLASSES[max(pool, key=lambda j: (p[j], CLASSES[j]))])
    return labels


def phrase_label(row: dict) -> str:
    """Today's phrase lists on one sentence, as a class (rest classes all read as "other")."""
    predicate = statements.classify(row["text"])
    if predicate is None:
        return "other"
    if statements.phrase_hits(row["text"]).count("phrase_personal"):
        return "personal"
    return _PHRASE_CLASS[predicate]


def cross_validate(rows: list[dict], x: csr_matrix, y: np.ndarray, c: float = C) -> np.ndarray:
    """Out-of-fold probabilities for the corpus rows (own rows: NaN); FOLDS folds of whole
    repositories (GroupKFold: no repository on both sides)."""
    oof = np.full((len(rows), len(CLASSES)), np.nan)
    own = np.array([bool(row.get("own")) for row in rows])
    groups = np.array([row["repo"] for row in rows])
    corpus = np.flatnonzero(~own)
    for train, test in GroupKFold(FOLDS).split(corpus, groups=groups[corpus]):
        fit_on = np.concatenate([corpus[train], np.flatnonzero(own)])
        model = fit(x[fit_on], y[fit_on], c)
        oof[corpus[test]] = probabilities(model, x[corpus[test]])
    return oof


def binary_scores(truth: list[str], predicted: list[str]) -> tuple[float, float, float, int]:
    t = np.array([label in DURABLE for label in truth])
    p = np.array([label in DURABLE for label in predicted])
    tp = int((t & p).sum())
    precision = tp / p.sum() if p.sum() else 0.0
    recall = tp / t.sum() if t.sum() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, int(t.sum())


def class_scores(truth: list[str], predicted: list[str], name: str) -> tuple[float, float,
                                                                              float, int]:
    t = np.array([label == name for label in truth])
    p = np.array([label == name for label in predicted])
    tp = int((t & p).sum())
    precision = tp / p.sum() if p.sum() else 0.0
    recall = tp / t.sum() if t.sum() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, int(t.sum())


def scored(rows: list[dict]) -> list[int]:
    """The rows the validation scores: corpus sentences a person typed."""
    return [i for i, row in enumerate(rows) if not row.get("own") and not any(
        mark in row.get("note", "") for mark in NOT_TYPED)]


def phrase_votes(rows: list[dict]) -> np.ndarray:
    """Whether today's phrase lists call each sentence a statement (``statements.classify``)."""
    return np.array([statements.classify(row["text"]) is not None for row in rows])


def operating_point(path: Path = OPERATING_POINT) -> tuple[float, float]:
    """(threshold, floor) to ship: a sentence is kept when P(durable) >= threshold, or when the
    phrase lists call it a statement and P(durable) >= floor (the model vetoes the lists'
    mistakes). Chosen on whole sessions, not on sentences: train/operating_point.py measures
    every candidate pair with capture on the gold sets' sessions (leave one repository out;
    gold facts found, trap hits, reviewer verdicts on the admitted facts) and applies a rule
    written down before the measurement; its table and choice are in ``path``. A
    sentence-level rule (precision on cross-validated sentences) picked a stricter threshold
    that, on whole sessions, dropped facts a reviewer kept and kept nothing wrong out."""
    chosen = json.loads(path.read_text(encoding="utf-8"))["chosen"]
    return float(chosen[0]), float(chosen[1])


def report(rows: list[dict], oof: np.ndarray, threshold: float, floor: float) -> str:
    corpus = scored(rows)
    truth = [rows[i]["label"] for i in corpus]
    votes = phrase_votes([rows[i] for i in corpus])
    model = decide(oof[corpus], threshold, floor, votes)
    alone = decide(oof[corpus], threshold)
    at_half = decide(oof[corpus], 0.5)
    phrases = [phrase_label(rows[i]) for i in corpus]
    repos = len({rows[i]["repo"] for i in corpus})
    own = sum(1 for row in rows if row.get("own"))
    lines = [f"{FOLDS}-fold CV grouped by repository, scored on {len(corpus)} corpus sentences "
             f"typed by a person, from {repos} repositories ({own} written sentences always "
             f"train only; {len(rows) - own - len(corpus)} not typed by the person train in "
             "their repository's folds, never scored); "
             f"kept: P(durable) >= {threshold:.2f}, or a phrase-list statement with P(durable) "
             f">= {floor:.2f}.", "",
             "| durable vs rest | precision | recall | F1 | n durable |", "|---|---|---|---|---|"]
    compared = [(f"shipped: model @ {threshold:.2f} or lists @ {floor:.2f}", model),
                (f"model alone @ {threshold:.2f}", alone), ("phrase lists alone", phrases)]
    if threshold != 0.5:
        compared.insert(2, ("model alone @ 0.50", at_half))
    for name, predicted in compared:
        p, r, f, n = binary_scores(truth, predicted)
        lines.append(f"| {name} | {p:.3f} | {r:.3f} | {f:.3f} | {n} |")
    lines += ["", "| class | n | model P | model R | model F1 | phrases P | phrases R | "
              "phrases F1 |", "|---|---|---|---|---|---|---|---|"]
    for name in CLASSES:
        mp, mr, mf, n = class_scores(truth, model, name)
        if name in DURABLE:
            pp, pr, pf, _ = class_scores(truth, phrases, name)
            tail = f"{pp:.3f} | {pr:.3f} | {pf:.3f}"
        else:
            tail = "– | – | –"
        lines.append(f"| {name} | {n} | {mp:.3f} | {mr:.3f} | {mf:.3f} | {tail} |")
    lines += ["", "Confusion (shipped rule): rows truth, columns predicted", "",
              "| truth \\ predicted | " + " | ".join(CLASSES) + " |",
              "|---" * (len(CLASSES) + 1) + "|"]
    for name in CLASSES:
        counts = [sum(1 for t, p in zip(truth, model) if t == name and p == other)
                  for other in CLASSES]
        lines.append(f"| {name} | " + " | ".join(map(str, counts)) + " |")
    return "\n".join(lines)


def export(model: LogisticRegression, threshold: float, floor: float, rows: int) -> str:
    coef = np.zeros((len(CLASSES), DIMENSIONS))
    bias = np.zeros(len(CLASSES))
    for j, name in enumerate(model.classes_):
        coef[CLASSES.index(name)] = model.coef_[j][:DIMENSIONS]  # not WRITTEN: training's own
        bias[CLASSES.index(name)] = model.intercept_[j]
    scale = float(np.abs(coef).max()) / 32000
    scale = float(f"{scale:.3e}")
    quantized = array("h", np.rint(coef / scale).astype(np.int16).ravel().tolist())
    if sys.byteorder != "little":
        quantized.byteswap()
    data = {"format": 1, "classes": list(CLASSES), "dimensions": DIMENSIONS,
            "threshold": threshold, "phrase_floor": floor, "trained_on": rows, "c": C,
            "bias": [round(float(b), 4) for b in bias], "scale": scale,
            "weights": base64.b64encode(quantized.tobytes()).decode("ascii")}
    if version() != 1:
        data["features"] = version()
    return json.dumps(data, sort_keys=True, indent=0) + "\n"


def build(path: Path = DATA, verbose: bool = True, authored: Path | None = AUTHORED,
          more: Path | None = None) -> tuple[str, str, LogisticRegression]:
    """(weights file text, validation report, the fitted model) from the labelled data."""
    rows = training_rows(path, authored, more=more)
    x = matrix(rows)
    y = np.array([row["label"] for row in rows])
    oof = cross_validate(rows, x, y)
    threshold, floor = operating_point()
    text = report(rows, oof, threshold, floor)
    if verbose:
        print(text)
    model = fit(x, y, tol=SHIPPED_TOL)
    return export(model, threshold, floor, len(rows)), text, model


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="retrain and compare with the shipped file; write nothing")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--c", type=float, default=None, help="try another regularization C")
    parser.add_argument("--candidate", action="store_true",
                        help="train the candidate (CANDIDATE) instead of the shipped model; "
                        "writes the weights file so train/operating_point.py can measure it")
    parser.add_argument("--without-authored", action="store_true",
                        help=f"leave {AUTHORED.name} out (a comparison); writes nothing")
    parser.add_argument("--with-new-sessions", action="store_true",
                        help=f"train on {MORE_SESSIONS.name} too (a comparison); writes nothing")
    parser.add_argument("--with-conversational", action="store_true",
                        help=f"train on {CONVERSATIONAL.name} too (a comparison); writes nothing "
                        "unless --write-weights")
    parser.add_argument("--unconfounded", action="store_true",
                        help="written rows train with no placement cue and a column of their "
                        "own (UNCONFOUNDED); writes nothing unless --write-weights")
    parser.add_argument("--write-weights", type=Path, default=None,
                        help="with --with-conversational or --unconfounded: write that model's "
                        "weights here")
    args = parser.parse_args()
    global C, CANDIDATE, WITH_CONVERSATIONAL, UNCONFOUNDED
    if args.c is not None:
        C = args.c
    CANDIDATE = args.candidate
    WITH_CONVERSATIONAL = args.with_conversational
    UNCONFOUNDED = args.unconfounded
    if WITH_CONVERSATIONAL or UNCONFOUNDED:
        weights, _, _ = build(args.data)
        if args.write_weights is not None:
            args.write_weights.write_text(weights, encoding="utf-8")
        return 0
    if args.without_authored:
        build(args.data, authored=None)
        return 0
    if args.with_new_sessions:
        build(args.data, more=MORE_SESSIONS)
        return 0
    weights, text, _ = build(args.data)
    if args.check:
        same = OUT.read_text(encoding="utf-8") == weights
        print("shipped weights reproduce" if same else "shipped weights DIFFER from a retrain")
        return 0 if same else 1
    OUT.write_text(weights, encoding="utf-8")
    name = "validation-candidate.md" if CANDIDATE else "validation.md"
    (ROOT / "train" / name).write_text(text + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(weights)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
