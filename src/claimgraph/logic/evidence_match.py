"""Claim-vs-evidence: does the file a fact cites actually contain what the citation quotes?

A model can write a fluent, code-quoted claim about a file it never read. This is the
backstop (docs/claims-audit.md): from each ``path: quote`` citation take the
code-shaped identifiers and the backtick fragments, and report which of them occur in the file,
naming the misses so a person judges instead of trusting one boolean. Matching is tolerant on
purpose (evidence is paraphrase, not a byte-exact slice): identifiers are case-insensitive
substrings, fragments compare with whitespace collapsed.

Pure: the shell reads the file and passes a ``read`` outcome; nothing here touches the disk.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Iterable, Mapping
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.logic.model import SUSPECT_VERDICTS

SUPPORT_RATIO = 0.6
MIN_TOKEN_CHARS = 4
#: Verdicts whose claim cites something that is not there (both make a fact suspect).
BAD_VERDICTS = ("unsupported", "file-missing")
#: Only this one raises the confabulation flag: the file is here and does not say that. A
#: missing file may simply live on another machine (a clone elsewhere, a deleted branch).
CONFABULATION_VERDICTS = ("unsupported",)
#: Read outcomes the shell reports, and the verdict each gives before any matching.
EARLY_VERDICTS = {"missing": "file-missing", "unreadable": "file-unreadable",
                  "outside": "outside-project"}

_CITATION = lazy_regex(r"(\S+?):\s+(.*)", re.DOTALL)
_IDENTIFIER = lazy_regex(r"[A-Za-z_][A-Za-z0-9_.]*[A-Za-z0-9_]")
_CAMEL = lazy_regex(r"[a-z][A-Z]")
_TWO_CAPITALS = lazy_regex(r"[A-Z].*[A-Z]")
_CODE_SPAN = lazy_regex(r"`([^`]*)`")
_ELLIPSIS = lazy_regex(r"\.\.\.|…")
_SPACE = lazy_regex(r"\s+")


def parse_evidence(text: str) -> dict[str, Any]:
    """``{file, quote}``; the file is the run before the first colon FOLLOWED BY WHITESPACE,
    and only when it looks like a path ("/" or "."): ``transcript#L3: ...`` cites no file,
    and ``src/a.py:12: x`` cites ``src/a.py:12`` (which then reports file-missing)."""
    trimmed = text.strip()
    match = _CITATION.fullmatch(trimmed)
    if match and ("/" in match[1] or "." in match[1]):
        return {"file": match[1], "quote": match[2].strip()}
    return {"file": None, "quote": text}


def _code_shaped(token: str) -> bool:
    """Plain English words are not evidence; snake_case, dotted and CamelCase names are."""
    return ("_" in token or "." in token or bool(_CAMEL.search(token))
            or bool(_TWO_CAPITALS.search(token)))


def identifiers(quote: str) -> list[str]:
    """Distinctive names in the quote, lowercased, first occurrence order, no repeats."""
    found = (t.lower() for t in _IDENTIFIER.findall(quote)
             if len(t) >= MIN_TOKEN_CHARS and _code_shaped(t))
    return list(dict.fromkeys(found))


def code_spans(quote: str) -> list[str]:
    """Backtick contents split on ``...``/``…`` (elided code), fragments under 4 chars dropped."""
    fragments: list[str] = []
    for span in _CODE_SPAN.findall(quote):
        if not span.strip():
            continue
        pieces = (p.strip() for p in _ELLIPSIS.split(span.strip()))
        fragments.extend(p for p in pieces if len(p) >= MIN_TOKEN_CHARS)
    return fragments


def _collapsed(text: str) -> str:
    return _SPACE.sub(" ", text).lower()


def searchable(content: str) -> str:
    """A file's text as matching sees it: lowercased, each whitespace run one space.

    Names hold no whitespace, so a name occurs here exactly where it occurs in the lowercased
    file; one string serves both kinds of match. It is the costly part of a match (a pass
    over the whole file), so a shell that checks many citations of one file computes it once
    and passes it in (``check``'s ``read["searchable"]``).
    """
    return _collapsed(content)


def _rounded(ratio: float | None) -> float | None:
    """Two decimals, halves rounded up (Clojure's Math/round), not Python's half-to-even."""
    return None if ratio is None else math.floor(ratio * 100 + 0.5) / 100.0


def _verdict(ids: list[str], found_ids: list[str], frags: list[str],
             found_frags: list[str]) -> str:
    ratio = len(found_ids) / len(ids) if ids else None
    if not ids and not frags:
        return "unverifiable"
    if not found_ids and not found_frags:
        return "unsupported"
    if ratio is None or ratio >= SUPPORT_RATIO or (frags and len(found_frags) == len(frags)):
        return "supported"
    return "partial"


def match_evidence(parsed: Mapping[str, Any], content: str,
                   prepared: str | None = None) -> dict[str, Any]:
    """The verdict of one citation against the cited file's text, with hits and misses.

    ``prepared`` is ``searchable(content)`` when the caller already has it.
    """
    quote = parsed.get("quote") or ""
    ids, frags = identifiers(quote), code_spans(quote)
    flat = searchable(content) if prepared is None else prepared
    if not ids and not frags:
        frags = _plain_quote(quote, flat)
    found_ids = [i for i in ids if i in flat]
    found_frags = [f for f in frags if _collapsed(f) in flat]
    ratio = len(found_ids) / len(ids) if ids else None
    return {"verdict": _verdict(ids, found_ids, frags, found_frags),
            "identifiers": {"found": found_ids, "missing": [i for i in ids if i not in found_ids],
                            "ratio": _rounded(ratio)},
            "code_spans": {"checked": frags, "found": found_frags}}


def _plain_quote(quote: str, flat: str) -> list[str]:
    """A quote with neither names nor backticks ("src/db.py: import psycopg") is checked
    whole, but only counts when the file holds it: prose that is not found stays
    unverifiable, as before, rather than calling a paraphrase a confabulation."""
    plain = quote.strip().strip("\"'“”‘’").strip()
    return [plain] if len(plain) >= MIN_TOKEN_CHARS and _collapsed(plain) in flat else []


def no_match(verdict: str) -> dict[str, Any]:
    """The shape of a check that never reached matching, so every check has the same keys."""
    return {"verdict": verdict, "identifiers": {"found": [], "missing": [], "ratio": None},
            "code_spans": {"checked": [], "found": []}}


def check(parsed: Mapping[str, Any], read: Mapping[str, Any] | None) -> dict[str, Any]:
    """A citation's verdict given what the shell found at its path.

    ``read`` is None when no file is cited, else ``{"status": "ok", "content": str}`` (with
    ``"searchable"`` too when the shell prepared it: then ``content`` may be left out) or
    ``{"status": "missing" | "unreadable" | "outside", "reason": str}``.
    """
    if not parsed.get("file") or read is None:
        return no_match("no-file-cited")
    status: str | None = read.get("status")
    if status == "ok":
        return match_evidence(parsed, read.get("content") or "", read.get("searchable"))
    result = no_match(EARLY_VERDICTS.get(status or "", "file-unreadable"))
    if read.get("reason"):
        result["reason"] = read["reason"]
    return result


def summarize(checks: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One banner: counts per verdict and an overall trust call.

    ``unsupported`` (the file is here and does not contain what the claim quotes) is
    confabulation: overall ``suspect``. ``file-missing`` (the cited file is not on this
    machine) cannot be judged here: overall ``incomplete``, counted in ``files_missing``,
    never the confabulation flag. A claim we could not check for other reasons
    (unverifiable, no file, unreadable, outside the project) does not lower the call.
    """
    counts = Counter(c["verdict"] for c in checks)
    total = sum(counts.values())
    confabulated = sum(counts[v] for v in CONFABULATION_VERDICTS)
    missing = counts["file-missing"]
    if total == 0:
        overall = "no-claims"
    elif confabulated:
        overall = "suspect"
    elif missing:
        overall = "incomplete"
    else:
        overall = "mixed" if counts["partial"] else "supported"
    return {"total": total, "by_verdict": dict(sorted(counts.items())),
            "confabulation_suspected": confabulated > 0, "files_missing": missing,
            "overall": overall}


def tally_verdicts(citations: Iterable[tuple[str, str]]) -> tuple[dict[str, int], int]:
    """``(fact id, verdict)`` per citation -> (citations per verdict, by verdict name; how
    many facts have at least one suspect citation: ``unsupported`` or ``file-missing``)."""
    counts: dict[str, int] = {}
    suspect: set[str] = set()
    for fact_id, verdict in citations:
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict in SUSPECT_VERDICTS:
            suspect.add(fact_id)
    return dict(sorted(counts.items())), len(suspect)
