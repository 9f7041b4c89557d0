"""The shipped model's training against the candidate's (train_classifier ``CANDIDATE``) on the
same folds, the same scored sentences and the same labels.

    python train/compare_candidate.py

train_classifier.py's own report cannot compare them: the candidate trains on more
repositories, so its folds and its scored sentences differ. Here both are scored on the
candidate's scored sentences (45 repositories, the reviewed relabels applied, each sentence
once per repository), cut into the candidate's five folds of whole repositories; for each fold,
each model trains on its own training rows minus that fold's repositories (the shipped model
never trains on the fifteen session-2 repositories, as shipped). Reported on all 45
repositories and on the 30 the shipped model trains on. Writes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_classifier as trainer  # noqa: E402

RULES = (("0.70 / lists 0.40", 0.70, 0.40), ("0.70 / lists 0.50", 0.70, 0.50),
         ("alone 0.70", 0.70, 1.0), ("alone 0.50", 0.50, 1.0))


def out_of_fold(rows: list[dict], scored: list[dict], folds: list, candidate: bool) -> np.ndarray:
    trainer.CANDIDATE = candidate
    x, y = trainer.matrix(rows), np.array([row["label"] for row in rows])
    xs = trainer.matrix(scored)
    repos = np.array([row["repo"] for row in scored])
    oof = np.zeros((len(scored), len(trainer.CLASSES)))
    for _, test in folds:
        held = set(repos[test])
        fit_on = [i for i, row in enumerate(rows) if row.get("own") or row["repo"] not in held]
        oof[test] = trainer.probabilities(trainer.fit(x[fit_on], y[fit_on]), xs[test])
    return oof


def main() -> int:
    trainer.CANDIDATE = False
    shipped_rows = trainer.training_rows()
    trainer.CANDIDATE = True
    candidate_rows = trainer.training_rows()
    scored = [candidate_rows[i] for i in trainer.scored(candidate_rows)]
    repos = np.array([row["repo"] for row in scored])
    folds = list(GroupKFold(trainer.FOLDS).split(scored, groups=repos))
    runs = {"shipped model's training": out_of_fold(shipped_rows, scored, folds, False),
            "candidate": out_of_fold(candidate_rows, scored, folds, True)}
    votes = trainer.phrase_votes(scored)
    truth = [row["label"] for row in scored]
    known = {row["repo"] for row in shipped_rows}
    for name, mask in (("all 45 repositories", np.ones(len(scored), bool)),
                       ("the 30 the shipped model trains on",
                        np.array([row["repo"] in known for row in scored]))):
        idx = np.flatnonzero(mask)
        t = [truth[i] for i in idx]
        durable = [label in trainer.DURABLE for label in t]
        print(f"\n{name}: {len(idx)} sentences, {sum(durable)} durable\n")
        print("| model | rule | precision | recall | F1 | average precision |")
        print("|---|---|---|---|---|---|")
        for model, oof in runs.items():
            ap = average_precision_score(durable, oof[idx, :len(trainer.DURABLE)].sum(1))
            for rule, threshold, floor in RULES:
                p, r, f, _ = trainer.binary_scores(
                    t, trainer.decide(oof[idx], threshold, floor, votes[idx]))
                print(f"| {model} | {rule} | {p:.3f} | {r:.3f} | {f:.3f} | {ap:.3f} |")
        p, r, f, _ = trainer.binary_scores(t, [trainer.phrase_label(scored[i]) for i in idx])
        print(f"| phrase lists alone | – | {p:.3f} | {r:.3f} | {f:.3f} | – |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
