"""Issue 25's corpus against the redactor that ``PYTHONPATH`` selects: leaks per class, look-alikes
altered, and what changes in the real fixture transcripts. Run it with this tree's ``src`` and
with another checkout's (the baseline) to compare:

    PYTHONPATH=src python bench/secret_corpus_report.py [--seed N] [--show]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "logic"))
from secret_shapes import held_out, leaked, lookalikes, shapes  # noqa: E402

from claimgraph.logic.redact import redact  # noqa: E402

PLACEHOLDER = re.compile(r"\[REDACTED:[\w-]+\]")


def fixture_changes(limit: int = 400) -> list[tuple[str, str]]:
    """(file, the changed text around each redaction) over every string in the fixtures."""
    changes = []
    for path in sorted((ROOT / "tests/fixtures/transcripts").rglob("*")):
        if not path.is_file() or path.suffix not in (".jsonl", ".json"):
            continue
        for string in _strings(path):
            out = redact(string)
            if out != string:
                for m in PLACEHOLDER.finditer(out):
                    changes.append((path.name, out[max(0, m.start() - 60):m.end() + 30]))
    return changes[:limit]


def _strings(path: Path):
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines() if path.suffix == ".jsonl" else [text]
    for line in lines:
        try:
            yield from _walk(json.loads(line))
        except ValueError:
            yield line


def _walk(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--held-out", action="store_true", help="the blind set instead")
    args = parser.parse_args()
    if args.held_out:
        secrets, public = held_out(args.seed)
        missed = [(c, redact(t)) for c, s, t in secrets if leaked(s, redact(t))]
        altered = [(c, redact(t)) for c, t in public if redact(t) != t]
        for item in missed + altered:
            print(item)
        print(json.dumps({"held_out_leaks": f"{len(missed)}/{len(secrets)}",
                          "held_out_altered": f"{len(altered)}/{len(public)}"}))
        return 0
    leaks, total = collections.Counter(), collections.Counter()
    for cls, secret, text in shapes(args.seed):
        total[cls] += 1
        out = redact(text)
        if leaked(secret, out):
            leaks[cls] += 1
            if args.show:
                print("LEAK", cls, repr(out[:160]))
    altered = []
    for cls, text in lookalikes(args.seed):
        out = redact(text)
        if out != text:
            altered.append((cls, out))
            if args.show:
                print("ALTERED", cls, repr(out[:160]))
    changes = fixture_changes()
    if args.show:
        for name, around in changes:
            print("FIXTURE", name, repr(around))
    report = {"leaks": {c: f"{leaks[c]}/{total[c]}" for c in total},
              "leaks_total": f"{sum(leaks.values())}/{sum(total.values())}",
              "lookalikes_altered": f"{len(altered)}/{len(lookalikes(args.seed))}",
              "fixture_redactions": len(changes)}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
