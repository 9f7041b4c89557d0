"""Join the labeller's files into train/data/labelled.jsonl (one sentence a line, sorted by id).

    python train/prepare_data.py POOL LABELS OWN [--out train/data/labelled.jsonl]

POOL is every sentence capture would read (id, repo, source, sentence_index, n_sentences,
after_options, text); LABELS the labels by id (id, label, note?); OWN the written sentences
(full rows with their label, ``own: true``). Only labelled sentences are written: the corpus
they were cut from is never copied whole.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

FIELDS = ("id", "repo", "source", "sentence_index", "n_sentences", "after_options", "text",
          "label", "note", "own")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pool")
    parser.add_argument("labels")
    parser.add_argument("own")
    parser.add_argument("--out", default=str(Path(__file__).parent / "data" / "labelled.jsonl"))
    args = parser.parse_args()
    pool = {row["id"]: row for row in _rows(args.pool)}
    out = []
    for label in _rows(args.labels):
        row = {**pool[label["id"]], **label}
        out.append(row)
    out += [{**row, "own": True} for row in _rows(args.own)]
    out.sort(key=lambda row: row["id"])
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in out:
            kept = {k: row[k] for k in FIELDS if row.get(k) is not None}
            handle.write(json.dumps(kept, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{len(out)} labelled sentences -> {args.out}")


def _rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


if __name__ == "__main__":
    main()
