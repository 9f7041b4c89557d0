"""Claims in any JSON document: every object that carries ``evidence`` (docs/claims-audit.md).

An agent's plan, review or report is a claim, not a fact. Before it is trusted, each place it
cites code (``"evidence": "src/a.py: `def total(items):`"``) can be checked against the files
by ``logic.evidence_match``; this module finds those places in a document of any shape, so the
check needs no schema. Like fractal-engine's ``extract-claims``:

- the walk is post-order (children before their parents), lists in order, objects in key order;
- every object with an ``evidence`` key is a claim; its evidence is that string, or the string
  elements of that list (anything else is ignored); an object whose evidence holds no string
  contributes nothing;
- its label is the first present, non-null one of ``description``, ``name``, ``claim``,
  ``risk``, ``title``; else the name of its first key other than ``evidence``.

We add where the claim sits, as a JSONPath (``$.risks[1]``), so a report names the object to
fix. Pure: a parsed document in, plain data out.
"""

from __future__ import annotations

import json
from claimgraph.logic.lazy_regex import lazy_regex
from typing import Any, Iterator, Sequence

EVIDENCE_KEY = "evidence"
LABEL_KEYS = ("description", "name", "claim", "risk", "title")
_PLAIN_KEY = lazy_regex(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def json_path(steps: Sequence[str | int]) -> str:
    """``$.risks[1].details``; a key that is not a plain name is quoted: ``$["a b"]``."""
    parts = ["$"]
    for step in steps:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _PLAIN_KEY.match(step):
            parts.append(f".{step}")
        else:
            parts.append(f"[{json.dumps(step, ensure_ascii=False)}]")
    return "".join(parts)


def evidence_strings(value: Any) -> list[str]:
    """The evidence an object carries: one string, or the strings of a list."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def label_of(claim: dict[str, Any]) -> str:
    """What a person would call this claim (see the module docstring for the order)."""
    for key in LABEL_KEYS:
        if claim.get(key) is not None:
            return _text(claim[key])
    return next((str(key) for key in claim if key != EVIDENCE_KEY), "")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _steps(trail: Any) -> list[str | int]:
    """A trail is a chain of links ``(step, parent's trail)``, so the walk copies no path as
    it descends (a 20,000-deep document would otherwise cost quadratic time)."""
    steps: list[str | int] = []
    while trail is not None:
        step, trail = trail
        steps.append(step)
    return steps[::-1]


def _walk(value: Any) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Post-order: every object below ``value`` first, then ``value`` itself if an object.

    Iterative, so a deeply nested document cannot exhaust the interpreter's stack.
    """
    pending: list[tuple[Any, Any, bool]] = [(value, None, False)]
    while pending:
        node, trail, children_done = pending.pop()
        if children_done:
            yield trail, node
            continue
        if isinstance(node, dict):
            pending.append((node, trail, True))
            pending.extend((v, (str(k), trail), False) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            pending.extend((v, (i, trail), False) for i, v in reversed(list(enumerate(node))))


def extract_claims(document: Any) -> list[dict[str, Any]]:
    """``[{label, json_path, evidence: [str, ...]}]`` for every evidenced object, post-order."""
    claims = []
    for trail, node in _walk(document):
        if EVIDENCE_KEY not in node:
            continue
        evidence = evidence_strings(node[EVIDENCE_KEY])
        if evidence:
            claims.append({"label": label_of(node), "json_path": json_path(_steps(trail)),
                           "evidence": evidence})
    return claims
