"""No labelled session's words in the code, its tests or its docs (issue 22's rule).

The gold sets under ``bench/memory/gold*`` record what a person or an agent said in real
sessions, to measure capture against. A rule tuned to those words, or a test or docstring that
quotes them as its example, makes the figures say more than the rules can do on a session
nobody has labelled. So no file under src/, tests/ or docs/ may hold a run of ``RUN`` words of
a gold fact's ``object`` or ``quote``. Session transcripts kept as test inputs
(``tests/fixtures``) are the sessions themselves, not code, and are not read. A program's own
message or a command every project of its kind types (git's, a compiler's) is not a person's
sentence: such runs are listed, each with its reason, in ``gold_text_allowlist.tsv``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWLIST = Path(__file__).with_name("gold_text_allowlist.tsv")
#: How many words in a row make a quotation rather than a common phrase.
RUN = 8
WORD = re.compile(r"[a-z0-9_'./-]+")
SCANNED = ("src", "tests", "docs")
SUFFIXES = frozenset({".py", ".md", ".json", ".jsonl", ".txt", ".toml", ".tsv", ".rst"})


def runs(words: list[str]) -> Iterator[tuple[int, str]]:
    """Each run of ``RUN`` words, with the index of its first word."""
    for i in range(len(words) - RUN + 1):
        yield i, " ".join(words[i:i + RUN])


def gold_runs() -> frozenset[str]:
    """Every run of ``RUN`` words in a gold fact's (or trap's) object and quote."""
    found: set[str] = set()
    for path in sorted(ROOT.glob("bench/memory/gold*/*.gold.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        items = (document.get("facts") or document.get("gold") or []) + (
            document.get("traps") or [])
        for item in items:
            said = f"{item.get('object') or ''} {item.get('quote') or ''}"
            found.update(run for _, run in runs(WORD.findall(said.lower())))
    return frozenset(found)


def allowed_runs() -> frozenset[str]:
    """The runs of the allowlist's phrases (first column; the second says why)."""
    found: set[str] = set()
    for line in ALLOWLIST.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        phrase, _, reason = line.partition("\t")
        assert reason.strip(), f"allowlist line without a reason: {line!r}"
        found.update(run for _, run in runs(WORD.findall(phrase.lower())))
    return frozenset(found)


def scanned_files() -> Iterator[Path]:
    """The project's own text files: code, tests and docs, less the kept transcripts."""
    for base in SCANNED:
        for path in sorted((ROOT / base).rglob("*")):
            relative = path.relative_to(ROOT)
            if (path.is_file() and path.suffix in SUFFIXES and path != ALLOWLIST
                    and "fixtures" not in relative.parts and "__pycache__" not in relative.parts):
                yield path


def quotations(path: Path, gold: frozenset[str]) -> Iterator[str]:
    """Where ``path`` holds a gold run: "file:line: run", the first run of each line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    matches = list(WORD.finditer(text.lower()))
    words = [m.group() for m in matches]
    told: set[int] = set()
    for i, run in runs(words):
        if run not in gold:
            continue
        line = text.count("\n", 0, matches[i].start()) + 1
        if line not in told:
            told.add(line)
            yield f"{path.relative_to(ROOT)}:{line}: {run}"


def test_no_file_quotes_a_labelled_session() -> None:
    gold = gold_runs()
    assert gold, "no gold facts found under bench/memory/gold*"
    forbidden = gold - allowed_runs()
    found = [q for path in scanned_files() for q in quotations(path, forbidden)]
    assert not found, "gold text in the project (invent an example instead):\n" + "\n".join(found)


def test_every_allowlisted_phrase_is_still_needed() -> None:
    """A stale allowlist line would let a later quotation of the same words through."""
    gold = gold_runs()
    for line in ALLOWLIST.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            phrase = line.partition("\t")[0]
            own = {run for _, run in runs(WORD.findall(phrase.lower()))}
            assert len(WORD.findall(phrase.lower())) >= RUN, phrase
            assert own & gold, f"allowlisted phrase no gold fact holds: {phrase!r}"
